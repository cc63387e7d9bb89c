#!/bin/sh
# The time-weighted LBR estimate (method.md §5b) on real recordings made with `perf record -b
# -e cycles`:
# - autofdo's propeller_sample.perfdata (Skylake-SP, 32 entries with cycle counts): its own
#   code's mix by mnemonic against the exact counts of tests/data/propeller_truth.csv (derived
#   from callgrind by tests/data/propeller_truth.sh), as shares: the plain weight is biased
#   (divsd/addsd/movsd about -22%), the time weight (the default here) at most 60% of its
#   error (measured: 4.37% and 2.22%);
# - autofdo's hierarchical_discriminator_test (Haswell-E, no cycle counts): the warning says
#   the time bias cannot be corrected, and the counts are the plain weight's.
. "$(dirname "$0")/../lib.sh"
A=$CORPUS/autofdo
if ! have_corpus || [ ! -f "$A/propeller_sample.perfdata" ] || [ ! -f "$A/propeller_sample_old.bin" ]; then
	skip "lbr_time_corpus: corpus absent"; exit 0
fi
sed "s|@BIN@|$A/propeller_sample_old.bin|" "$ROOT/tests/data/propeller_truth.csv" > "$TMP/truth.csv"
conv() { "$HBBP" "$A/propeller_sample.perfdata" --binary "propeller_sample.bin=$A/propeller_sample_old.bin" \
	--method lbr --module propeller_sample.bin --by mnemonic "$@"; }
err() { "$HBBP" compare --normalize --ref "$TMP/truth.csv" "$1" | awk '/^average weighted error/ { sub("%", "", $4); print $4 }'; }
conv -q --lbr-weighting plain -o "$TMP/plain.csv" 2>/dev/null
conv -o "$TMP/time.csv" 2>"$TMP/time.err"
p=$(err "$TMP/plain.csv")
t=$(err "$TMP/time.csv")
echo "  propeller_sample.perfdata vs its exact mix: plain LBR $p%, time-weighted $t%" >&2
expect "lbr_time_corpus: propeller time weight by default" "grep -q 'LBR weight: time' '$TMP/time.err'"
expect "lbr_time_corpus: propeller plain weight biased ($p% >= 3.5%)" \
	"awk -v p='$p' 'BEGIN { exit !(p != \"\" && p >= 3.5) }'"
expect "lbr_time_corpus: propeller time-weighted $t% <= 60% of plain $p%" \
	"awk -v t='$t' -v p='$p' 'BEGIN { exit !(t != \"\" && p != \"\" && t <= 0.6 * p) }'"
H=$A/hierarchical_discriminator_test.x86_64
if [ -f "$H" ] && [ -f "$H.perf.data" ]; then
	"$HBBP" "$H.perf.data" --binary "hierarchical_discriminator_test=$H" --by mnemonic -o "$TMP/h.csv" 2>"$TMP/h.err"
	"$HBBP" -q "$H.perf.data" --binary "hierarchical_discriminator_test=$H" --by mnemonic --lbr-weighting plain -o "$TMP/hp.csv" 2>/dev/null
	expect "lbr_time_corpus: hierarchical_discriminator_test warns the time bias cannot be corrected" \
		"grep -q 'no cycle counts in the branch entries.*time bias cannot be corrected' '$TMP/h.err' && cmp -s '$TMP/h.csv' '$TMP/hp.csv'"
else
	skip "lbr_time_corpus: hierarchical_discriminator_test absent"
fi
