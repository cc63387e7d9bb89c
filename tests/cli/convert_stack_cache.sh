#!/bin/sh
# The stack cache's policy and the stack statistics of --diagnostics, on two files made from
# one pmusim recording: stacks that repeat (the recording tiled over 2 processes) and stacks
# that do not (the same samples over 2000 processes: each process's stacks are its own;
# 80 MiB: a few of the windows over which the cache measures its hit rate).
# - the text output is the same byte for byte with the caches forced on, forced off and
#   left to themselves (HBBP_STACK_CACHE=on|off|auto);
# - the stacks of the 2000 processes, identical once resolved, are summed together first,
#   and the counts are those of the independent reference (tests/tools/refmethod);
# - left to itself, the cache stays on where stacks repeat and turns off where they do not;
# - the distinct stacks it estimates are within 5% of the exact count, computed from
#   perf script's branch stacks (process, event, from/to pairs: the cache's key);
# - without a thread key the 2000-process file takes about the memory of the same samples
#   in 2 processes (the sums are bounded by the code, not by the processes).
. "$(dirname "$0")/../lib.sh"
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim

have_bench_tools convert_stack_cache || exit 0
if ! sh "$ROOT/samples/workloads/build.sh" "$TMP/wl" >/dev/null 2>"$TMP/build.err"; then
	fail "convert_stack_cache: cannot build the workloads"; cat "$TMP/build.err" >&2
	exit 0
fi
if ! "$PMUSIM" --effects realistic --rand-bits 3 --ebs-period 397 --lbr-period 61 \
	-o "$TMP/src.data" -- "$TMP/wl/interp" 200 >/dev/null 2>"$TMP/pmusim.err"; then
	fail "convert_stack_cache: pmusim failed"; cat "$TMP/pmusim.err" >&2
	exit 0
fi
"$GEN" --procs 2 --mb 12 -o "$TMP/repeat.data" "$TMP/src.data" >/dev/null 2>"$TMP/bg.err" &&
"$GEN" --procs 2000 --mb 80 -o "$TMP/fresh.data" "$TMP/src.data" >/dev/null 2>>"$TMP/bg.err"
if [ $? != 0 ]; then
	fail "convert_stack_cache: benchgen failed"; cat "$TMP/bg.err" >&2
	exit 0
fi

# the diagnostics line of a run: "LBR stacks: N, D distinct (P%, estimated); stack cache ..."
stacks_line() { grep '^  LBR stacks: ' "$1"; }

for f in repeat fresh; do
	for pol in on off auto; do
		HBBP_STACK_CACHE=$pol "$HBBP" -j 1 --diagnostics -o "$TMP/$f.$pol.csv" \
			"$TMP/$f.data" 2>"$TMP/$f.$pol.err"
		echo $? > "$TMP/$f.$pol.rc"
	done
	on=$(stacks_line "$TMP/$f.on.err") off=$(stacks_line "$TMP/$f.off.err")
	expect "convert_stack_cache: $f: the same CSV with the cache on, off and automatic" \
		'[ "$(cat "$TMP/$f.on.rc" "$TMP/$f.off.rc" "$TMP/$f.auto.rc")" = "0
0
0" ] && [ -s "$TMP/$f.on.csv" ] && cmp -s "$TMP/$f.on.csv" "$TMP/$f.off.csv" &&
		 cmp -s "$TMP/$f.on.csv" "$TMP/$f.auto.csv"'
	expect "convert_stack_cache: $f: forced on says (on), forced off says (off) ($on | $off)" \
		'case $on in *"hits (on);"*) true ;; *) false ;; esac &&
		 case $off in *"stack cache (off);"*) true ;; *) false ;; esac'
done
# the stacks counted = the LBR event's stacks, the file also read in two parts (-j 2)
for f in repeat fresh; do
	"$HBBP" -j 2 --split 1M --diagnostics -o "$TMP/$f.split.csv" "$TMP/$f.data" \
		2>"$TMP/$f.split.err"
	ev=$(sed -n 's/.* lbr  *[0-9]* samples, \([0-9]*\) stacks,.*/\1/p' "$TMP/$f.split.err")
	st=$(stacks_line "$TMP/$f.split.err" | sed -n 's/.*LBR stacks: \([0-9]*\),.*/\1/p')
	expect "convert_stack_cache: $f read in two parts: ${st:-?} stacks counted, the event's ${ev:-?}" \
		'[ -n "$st" ] && [ "$st" = "$ev" ]'
done
# the 2000 processes' stacks, the same once resolved (one program), summed together first;
# and the engine's counts so made are those of the independent reference
res=$(grep '^  resolved stacks: ' "$TMP/fresh.auto.err")
pct=$(echo "$res" | sed -n 's/.*, \([0-9.]*\)% summed.*/\1/p')
expect "convert_stack_cache: fresh: identical resolved stacks summed first (${res#  })" \
	'[ -n "$pct" ] && awk -v p="$pct" "BEGIN { exit !(p >= 50) }"'
if [ -x "$BUILD/tools/methoddump" ] && [ -x "$BUILD/tools/refmethod" ]; then
	"$BUILD/tools/methoddump" --split 1 -j 2 "$TMP/fresh.data" >"$TMP/eng" 2>/dev/null &&
	"$BUILD/tools/refmethod" "$TMP/fresh.data" >"$TMP/ref" 2>/dev/null &&
	out=$(awk -f "$ROOT/tests/cli/method_cmp.awk" "$TMP/eng" "$TMP/ref"); st=$?
	expect "convert_stack_cache: fresh: engine = reference ($out)" '[ $st = 0 ]'
else
	skip "convert_stack_cache: methoddump or refmethod not built"
fi
auto=$(stacks_line "$TMP/repeat.auto.err")
expect "convert_stack_cache: stacks that repeat: the cache stays on ($auto)" \
	'case $auto in *"hits (on);"*) true ;; *) false ;; esac'
auto=$(stacks_line "$TMP/fresh.auto.err")
expect "convert_stack_cache: stacks that do not repeat: the cache turns off ($auto)" \
	'case $auto in *"(off for "*) true ;; *) false ;; esac'

# memory bounded by the code, not by the processes: the 2000-process file against the same
# samples in 2 processes, both 80 MiB (peak RSS by /usr/bin/time; the mix has no thread key).
# The raw stack cache's capacity is allowed on top: 16384 stacks (hbbp/engine/stack_cache.h),
# filled by the 2000 processes' distinct stacks and left mostly untouched by the 2 processes'
# repeating ones (36.5 MiB against 18.9; 16.1 against 14.0 with the cache off).
if [ -x /usr/bin/time ] &&
   "$GEN" --procs 2 --mb 80 -o "$TMP/two.data" "$TMP/src.data" >/dev/null 2>"$TMP/bg.err"; then
	/usr/bin/time -f %M -o "$TMP/rss.two" "$HBBP" -j 1 -o "$TMP/two.csv" "$TMP/two.data" 2>/dev/null
	/usr/bin/time -f %M -o "$TMP/rss.many" "$HBBP" -j 1 -o "$TMP/many.csv" "$TMP/fresh.data" \
		2>/dev/null
	two=$(tail -n 1 "$TMP/rss.two") many=$(tail -n 1 "$TMP/rss.many")
	expect "convert_stack_cache: 2000 processes take ${many:-?} KiB, 2 processes ${two:-?} KiB (at most 1.25x + 8 MiB + the stack cache's 16 MiB)" \
		'[ "${two:-0}" -gt 0 ] && [ "${many:-0}" -gt 0 ] &&
		 [ "$many" -le $((two * 5 / 4 + 8192 + 16384)) ]'
else
	skip "convert_stack_cache: memory: /usr/bin/time or benchgen missing"
fi

# exact distinct stacks from perf script: pid, event and the from/to of each entry
if ! command -v perf >/dev/null 2>&1; then
	skip "convert_stack_cache: distinct stacks: perf not installed"
	exit 0
fi
for f in repeat fresh; do
	exact=$(perf script -F pid,event,brstack -i "$TMP/$f.data" 2>/dev/null | awk '
		NF > 2 && $2 ~ /near_taken/ {
			k = $1
			for (i = 3; i <= NF; i++) { split($i, p, "/"); k = k " " p[1] "/" p[2] }
			print k
		}' | sort -u | wc -l)
	line=$(stacks_line "$TMP/$f.auto.err")
	est=$(echo "$line" | sed -n 's/.*, \([0-9]*\) distinct.*/\1/p')
	expect "convert_stack_cache: $f: distinct stacks ${est:-?} estimated, $exact exact (within 5%)" \
		'[ "${exact:-0}" -gt 100 ] && [ -n "$est" ] &&
		 awk -v e="$est" -v x="$exact" "BEGIN { d = e - x; if (d < 0) d = -d; exit !(d <= 0.05 * x) }"'
done
