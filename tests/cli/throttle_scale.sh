#!/bin/sh
# Throttling corrected as scaling (method.md §7): pmusim runs primes with the kernel's
# interrupt throttling simulated (--throttle-rate 2500 at HZ 250 on a 10 MHz clock: at most 10
# samples an event a tick) so that more than 10% of the samples are missing; the absolute
# counts by mnemonic against pmusim's exact ones: their total within 2% (uncorrected, with
# --no-throttle-correction: the full deficit), the rows' 95% intervals summed hold the exact
# total, and the summary and metadata say the factor.
. "$(dirname "$0")/../lib.sh"
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
for t in qemu-x86_64 cc; do
	command -v $t >/dev/null 2>&1 || { skip "throttle_scale: $t not installed"; exit 0; }
done
[ -x "$PMUSIM" ] || { skip "throttle_scale: pmusim not built"; exit 0; }
if ! sh "$ROOT/samples/workloads/build.sh" "$TMP/wl" >/dev/null 2>&1 ||
   ! "$PMUSIM" -v --clock-hz 10000000 --hz 250 --throttle-rate 2500 --effects none \
	--ebs-period 1000 --lbr-period 100 --lbr-depth 8 -o "$TMP/t.data" --truth "$TMP/t.mix" \
	-- "$TMP/wl/primes" 40000 >/dev/null 2>"$TMP/sim.err"; then
	fail "throttle_scale: recording failed"; cat "$TMP/sim.err" >&2; exit 0
fi
"$HBBP" "$TMP/t.data" --by mnemonic -o "$TMP/c.csv" 2>"$TMP/c.err" >"$TMP/c.out"
"$HBBP" -q "$TMP/t.data" --by mnemonic -f json -o "$TMP/c.json" 2>/dev/null
"$HBBP" -q "$TMP/t.data" --by mnemonic --no-throttle-correction -o "$TMP/n.csv" 2>/dev/null
tot() { awk -F, 'NR > 1 { s += $2 } END { printf "%.0f", s }' "$1"; }
t=$(tot "$TMP/t.mix") c=$(tot "$TMP/c.csv") n=$(tot "$TMP/n.csv")
echo "  exact $t, corrected $c, uncorrected $n" >&2
expect "throttle_scale: uncorrected $n at least 10% below the exact $t" \
	"awk -v n='$n' -v t='$t' 'BEGIN { exit !(t > 0 && n < 0.9 * t) }'"
expect "throttle_scale: corrected $c within 2% of the exact $t" \
	"awk -v c='$c' -v t='$t' 'BEGIN { d = (c - t) / t; exit !(t > 0 && d < 0.02 && d > -0.02) }'"
# the rows' intervals summed bound the total (each row's interval alone is narrower than the
# correction's remaining error of a few tenths of a percent on this deterministic loop)
cover=$(awk -F, 'NR > 1 { lo += $3; hi += $4 } END { printf "%.0f %.0f", lo, hi }' "$TMP/c.csv")
set -- $cover
expect "throttle_scale: the intervals' sums [$1, $2] hold the exact total $t" "[ '$1' -le '$t' ] && [ '$t' -le '$2' ]"
expect "throttle_scale: the summary and metadata say the factor" \
	"grep -q 'throttled [0-9.]*% of its span: scaled x1\.[0-9]' '$TMP/c.out' '$TMP/c.err' && grep -q '\"throttle_scale_1\": 1\.[0-9]' '$TMP/c.json'"
