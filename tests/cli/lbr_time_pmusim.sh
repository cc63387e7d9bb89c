#!/bin/sh
# The time-weighted LBR estimate (method.md §5b) against pmusim's exact truth: libcmix and
# interp recorded with the LBR stacks taken every 199 cycles of pmusim's timing model
# (--lbr-event cycles, no other effect, depth 16); hbbp-convert --method lbr with the plain
# weight and with the time weight, each compared with the exact mix as shares (compare
# --normalize). The time weight must be at most a third of the plain weight's error and
# below 1.5% (bench/ACCURACY.md has the six workloads at full size). Also: the entries carry
# cycle counts that stock perf shows, and the default for a cycles recording is the time weight.
. "$(dirname "$0")/../lib.sh"
PMUSIM=${PMUSIM:-$ROOT/pmusim}
for t in qemu-x86_64 cc; do
	command -v $t >/dev/null 2>&1 || { skip "lbr_time_pmusim: $t not installed"; exit 0; }
done
[ -x "$PMUSIM" ] || { skip "lbr_time_pmusim: ./pmusim not built"; exit 0; }
"$ROOT/samples/workloads/build.sh" "$TMP/bin" >/dev/null 2>&1 || { fail "lbr_time_pmusim: workloads do not build"; exit 0; }
err() { "$HBBP" compare --normalize --ref "$1" "$2" | awk '/^average weighted error/ { sub("%", "", $4); print $4 }'; }
for spec in "libcmix 3000" "interp 3000"; do
	set -- $spec
	w=$1
	if ! "$PMUSIM" --lbr-event cycles --lbr-depth 16 --lbr-period 199 --ebs-period 100003 \
		-o "$TMP/$w.data" --truth "$TMP/$w.truth.csv" -- "$TMP/bin/$w" $2 >/dev/null 2>"$TMP/$w.err"; then
		cat "$TMP/$w.err" >&2; fail "lbr_time_pmusim: pmusim $w"; continue
	fi
	"$HBBP" -q --method lbr --lbr-weighting plain --by mnemonic -o "$TMP/$w.plain.csv" "$TMP/$w.data" 2>/dev/null
	"$HBBP" --method lbr --by mnemonic -o "$TMP/$w.time.csv" "$TMP/$w.data" 2>"$TMP/$w.conv"
	p=$(err "$TMP/$w.truth.csv" "$TMP/$w.plain.csv")
	t=$(err "$TMP/$w.truth.csv" "$TMP/$w.time.csv")
	echo "  $w, cycles event: plain LBR $p%, time-weighted $t%" >&2
	expect "lbr_time_pmusim: $w time weight by default" "grep -q 'LBR weight: time' '$TMP/$w.conv'"
	expect "lbr_time_pmusim: $w time-weighted $t% <= plain $p% / 3" \
		"awk -v t='$t' -v p='$p' 'BEGIN { exit !(t != \"\" && p != \"\" && t * 3 <= p) }'"
	expect "lbr_time_pmusim: $w time-weighted $t% < 1.5%" \
		"awk -v t='$t' 'BEGIN { exit !(t != \"\" && t < 1.5) }'"
done
if command -v perf >/dev/null 2>&1; then
	# perf script prints each entry as FROM/TO/M/X/A/CYCLES/...: some counts are not 0
	perf script -i "$TMP/interp.data" -F event,brstack 2>/dev/null | awk '$1 == "cycles:" || $1 == "cycles:u:" { for (i = 2; i <= NF; i++) { split($i, f, "/"); if (f[6] + 0 > 0) nz++; n++ } }
		END { exit !(n > 0 && nz > n / 2) }'
	st=$?
	expect "lbr_time_pmusim: perf script shows cycle counts in the entries" "[ $st = 0 ]"
else
	skip "lbr_time_pmusim: perf script shows cycle counts (perf not installed)"
fi
