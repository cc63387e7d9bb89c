#!/bin/sh
# Throttling corrected as scaling (method.md §7): pmusim runs primes with the kernel's
# interrupt throttling simulated (--throttle-rate 2500 at HZ 250 on a 10 MHz clock: at most 10
# samples an event a tick) so that more than 10% of the samples are missing; the absolute
# counts by mnemonic against pmusim's exact ones: their total within 2% (uncorrected, with
# --no-throttle-correction: the full deficit), every big row's 95% interval holds its exact
# count, and the summary and metadata say the factor and its uncertainty.
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
# every row of at least 2% of the exact total: its 95% interval holds its exact count (the
# rows are a few tenths of a percent low on this deterministic loop, more than the sampling
# noise alone: the intervals widen by the factor's uncertainty, method.md §7)
held=$(awk -F, 'NR == FNR { if (FNR > 1) { x[$1] = $2; s += $2 } next }
	FNR > 1 && x[$1] >= 0.02 * s { n++; if ($3 <= x[$1] && x[$1] <= $4) h++ }
	END { print h + 0, n + 0 }' "$TMP/t.mix" "$TMP/c.csv")
set -- $held
expect "throttle_scale: $1 of $2 rows >= 2% hold their exact count in their interval" \
	"[ '$2' -ge 5 ] && [ '$1' = '$2' ]"
expect "throttle_scale: the summary and metadata say the factor and its uncertainty" \
	"grep -q 'throttled [0-9.]*% of its span: scaled x1\.[0-9]*, intervals +-[0-9.]*%' '$TMP/c.out' '$TMP/c.err' &&
	 grep -q '\"throttle_scale_1\": 1\.[0-9]' '$TMP/c.json' && grep -q '\"throttle_spread_1\": 0\.0' '$TMP/c.json'"
