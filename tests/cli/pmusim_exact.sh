#!/bin/sh
# pmusim exactness: with period 1 and every effect off, the EBS samples of each workload
# hit every retired instruction once and the LBR streams cover every retired instruction
# once, so an independent recount from stock `perf script` output (pmusim_count.awk) equals
# pmusim's exact per-instruction truth for every instruction of every workload (reduced
# inputs). With realistic effects the EBS recount must differ (the check can fail), and with
# effects off the error must shrink as the periods shrink.
. "$(dirname "$0")/../lib.sh"
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
for tool in qemu-x86_64 perf; do
	if ! command -v $tool >/dev/null; then skip "pmusim_exact: $tool not installed"; exit 0; fi
done
if [ ! -x "$PMUSIM" ]; then fail "pmusim_exact: $PMUSIM not built"; exit 0; fi
if ! sh "$ROOT/samples/workloads/build.sh" "$TMP/wl" 2>"$TMP/build.err"; then
	fail "pmusim_exact: cannot build the workloads"; cat "$TMP/build.err" >&2; exit 0
fi
AWK="awk -f $ROOT/tests/cli/hex.awk -f $ROOT/tests/cli/pmusim_count.awk"
# recount NAME ARGS...: runs pmusim with the given options on workload NAME and prints the
# comparison table to $TMP/NAME.cmp
recount() {
	wl=$1; shift
	"$PMUSIM" "$@" --lbr-depth 8 -o "$TMP/$wl.data" --truth-insns "$TMP/$wl.csv" \
		-- "$TMP/wl/$wl" $arg >/dev/null 2>"$TMP/$wl.err" &&
	perf script -i "$TMP/$wl.data" -F event,ip,period,brstack > "$TMP/$wl.txt" \
		2>>"$TMP/$wl.err" &&
	$AWK "$TMP/$wl.csv" "$TMP/$wl.txt" > "$TMP/$wl.cmp"
}
mismatches() {	# EBS or LBR count differing from the truth at some address
	awk 'NR > 1 && ($2 != $3 || $4 - $2 > 1e-6 * $2 + 1e-6 || $2 - $4 > 1e-6 * $2 + 1e-6)' "$1" | wc -l
}
for w in "primes 300" "objects 2" "vector 40" "interp 10" "libcmix 10" "divloop 300"; do
	set -- $w
	wl=$1 arg=$2
	if ! recount "$wl" --ebs-period 1 --lbr-period 1 --effects none; then
		fail "pmusim_exact: $wl: recording or perf script failed"
		cat "$TMP/$wl.err" >&2
		continue
	fi
	n=$(awk 'NR > 1' "$TMP/$wl.cmp" | wc -l)
	bad=$(mismatches "$TMP/$wl.cmp")
	if [ "$n" -gt 100 ] && [ "$bad" -eq 0 ]; then
		pass "pmusim_exact: $wl: EBS and LBR equal the exact count at all $n instructions"
	else
		fail "pmusim_exact: $wl: $bad of $n instructions differ"
		awk 'NR > 1 && ($2 != $3 || $4 != $2)' "$TMP/$wl.cmp" | head -5 >&2
	fi
done
# signals: handlers entered between blocks and left through rt_sigreturn stay exact
cat > "$TMP/signals.c" <<'C'
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
static volatile int hits;
static void on_alarm(int s) { (void)s; hits++; }
int main(void)
{
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };
	volatile unsigned long x = 0;
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, 0);
	while (hits < 3)
		x++;
	printf("%d\n", hits);
	return 0;
}
C
wl=signals arg=""
if cc -O1 -static -o "$TMP/wl/signals" "$TMP/signals.c" &&
   recount signals --ebs-period 1 --lbr-period 1 --effects none; then
	n=$(awk 'NR > 1' "$TMP/signals.cmp" | wc -l)
	bad=$(mismatches "$TMP/signals.cmp")
	check "pmusim_exact: signals: EBS and LBR equal the exact count at all $n instructions" \
		test "$bad" = 0 -a "$n" -gt 100
else
	fail "pmusim_exact: signals: recording failed"
fi
# the comparison can fail: skid alone moves EBS samples
wl=divloop arg=300
if recount divloop --ebs-period 1 --lbr-period 1 --effects none --skid-mean 0.5; then
	bad=$(mismatches "$TMP/divloop.cmp")
	check "pmusim_exact: skid moves samples ($bad instructions differ)" test "$bad" -gt 0
else
	fail "pmusim_exact: realistic recording failed"
fi
# error (sum |estimate - truth| / sum truth, per instruction) shrinks with the period
wl=primes arg=300
prev_e=2 prev_l=2 ok=1 msg=""
for p in "4099 1021" "1021 257" "257 61" "61 13"; do
	set -- $p
	if ! recount primes --ebs-period $1 --lbr-period $2 --effects none; then ok=0; break; fi
	e=$(awk 'NR > 1 { t += $2; d = $3 - $2; de += d < 0 ? -d : d; d = $4 - $2; dl += d < 0 ? -d : d }
		END { printf "%.4f %.4f", de / t, dl / t }' "$TMP/primes.cmp")
	set -- $e
	msg="$msg $1/$2"
	awk -v e=$1 -v l=$2 -v pe=$prev_e -v pl=$prev_l 'BEGIN { exit !(e < pe && l < pl) }' || ok=0
	prev_e=$1 prev_l=$2
done
check "pmusim_exact: EBS/LBR error shrinks with the period:$msg" test $ok = 1
