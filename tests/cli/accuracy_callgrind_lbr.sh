#!/bin/sh
# The LBR-only mix of the corpus recording of autofdo's hierarchical_discriminator_test
# (cycles:P -b, 145 stacks of 16, recorded on an i7-5820K) against the exact mix of the same
# binary run here under `valgrind --tool=callgrind --dump-instr=yes`, read by
# `hbbp-convert compare --by symbol,mnemonic --normalize`. Only the binary's own functions
# (nm of the binary) are comparable: the recording's libc/ld.so are another machine's.
# Shares are renormalised over that set. The recording samples on cycles, so streams weight
# code by time, not executions: the whole-binary error is large (printed, bounded loosely).
# Within one function time weighting cancels (each hot loop is one block walk), so the mix of
# each hot function alone must agree with callgrind's within 3%.
. "$(dirname "$0")/../lib.sh"
A=$CORPUS/autofdo
BIN=$A/hierarchical_discriminator_test.x86_64
DATA=$A/hierarchical_discriminator_test.x86_64.perf.data
if ! have_corpus || [ ! -f "$BIN" ] || [ ! -f "$DATA" ]; then skip "accuracy_callgrind_lbr: corpus absent"; exit 0; fi
for t in valgrind nm; do
	command -v $t >/dev/null 2>&1 || { skip "accuracy_callgrind_lbr: $t not installed"; exit 0; }
done
cp "$BIN" "$TMP/hdt" && chmod +x "$TMP/hdt"
if ! (cd "$TMP" && valgrind --tool=callgrind --dump-instr=yes \
	--callgrind-out-file="$TMP/cg.out" ./hdt > /dev/null 2>&1); then
	skip "accuracy_callgrind_lbr: the binary does not run under valgrind here"; exit 0
fi
if ! "$HBBP" -q "$DATA" --binary "hierarchical_discriminator_test=$BIN" --method lbr \
	--module hierarchical_discriminator_test --by symbol,mnemonic -o "$TMP/mix.csv" 2>"$TMP/err" ||
   ! "$HBBP" compare --ref "$TMP/cg.out" --by symbol,mnemonic --normalize -o "$TMP/cmp.csv" \
	"$TMP/mix.csv" > /dev/null 2>>"$TMP/err"; then
	cat "$TMP/err" >&2; fail "accuracy_callgrind_lbr: convert/compare failed"; exit 0
fi
nm --defined-only "$BIN" | awk '$2 ~ /^[tTwW]$/ { print $3 }' > "$TMP/syms"
# err SYMBOL|ALL: sum over keys of |ref share - measured share| (both renormalised over the
# keys kept), in percent, from compare's reference_count/measured_count columns.
err() {
	awk -F, -v want="$1" 'NR == FNR { own[$1] = 1; next }
		FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ s = $1; if (!(s in own)) next; if (want != "ALL" && s != want) next
		  r[$1 "," $2] = $(col["reference_count"]); m[$1 "," $2] = $(col["measured_count"])
		  R += r[$1 "," $2]; M += m[$1 "," $2] }
		END { if (!R || !M) { print "nan"; exit }
		      for (k in r) e += (r[k] / R - m[k] / M) < 0 ? m[k] / M - r[k] / R : r[k] / R - m[k] / M
		      printf "%.2f %.1f%%\n", 100 * e, 100 * R }' "$TMP/syms" "$TMP/cmp.csv"
}
share() { # SYMBOL -> "reference% measured%" of the binary's own instructions
	awk -F, -v want="$1" 'NR == FNR { own[$1] = 1; next }
		FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 in own { R += $(col["reference_count"]); M += $(col["measured_count"])
		  if ($1 == want) { r += $(col["reference_count"]); m += $(col["measured_count"]) } }
		END { printf "%.1f%% %.1f%%\n", R ? 100 * r / R : 0, M ? 100 * m / M : 0 }' "$TMP/syms" "$TMP/cmp.csv"
}
set -- $(err ALL); all=$1
set -- $(err test_unroll); eu=$1
set -- $(err test_vector_loop); ev=$1
set -- $(share test_vector_loop); vr=$1 vm=$2
set -- $(share test_unroll); ur=$1 um=$2
echo "  LBR-only (cycles) vs callgrind, binary's own code: average weighted error $all%;" \
	"test_unroll alone $eu%, test_vector_loop alone $ev%;" \
	"instruction shares callgrind/LBR: test_vector_loop $vr/$vm, test_unroll $ur/$um" >&2
ok() { awk -v x="$1" -v b="$2" 'BEGIN { exit !(x != "nan" && x + 0 <= b) }'; }
check "accuracy_callgrind_lbr: test_unroll mix within 3% ($eu%)" ok "$eu" 3
check "accuracy_callgrind_lbr: test_vector_loop mix within 3% ($ev%)" ok "$ev" 3
# Whole binary: time weighting moves about a quarter of the weight between the two loops; the
# error is bounded, not small (a mix from another binary would be near 100%).
check "accuracy_callgrind_lbr: whole-binary error below 70% ($all%)" ok "$all" 70
