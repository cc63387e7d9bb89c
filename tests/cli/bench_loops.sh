#!/bin/sh
# Aggregation is linear: a recording whose processes replay their samples exactly 5 times
# (benchgen --loops 5) must convert to 5 times the counts of the same recording replayed once
# (--loops 1), row by row, whatever the converter sums early (identical LBR stacks, streams)
# or late. Sources: two small pmusim runs (static interp; libcmix with libc.so and ld.so).
. "$(dirname "$0")/../lib.sh"
have_bench_tools bench_loops || exit 0
srcs=$(BENCH_INPUTS="interp 10 libcmix 3" sh "$ROOT/bench/inputs.sh" "$TMP/src" "$ROOT/pmusim" \
	2> "$TMP/inputs.err") || { fail "bench_loops: bench/inputs.sh"; exit 0; }
$GEN --loops 1 -o "$TMP/once.data" $srcs > "$TMP/once.info" &&
	$GEN --loops 5 -o "$TMP/five.data" $srcs > "$TMP/five.info"
check "bench_loops: benchgen --loops 1 and 5" [ $? -eq 0 ]
n1=$(awk '{ print $2 }' "$TMP/once.info")
n5=$(awk '{ print $2 }' "$TMP/five.info")
check "bench_loops: 5 times the samples ($n1, $n5)" [ "$n5" -eq $((5 * n1)) ]

for m in hbbp lbr ebs; do
	"$HBBP" -q --method $m --by pid,module,symbol,mnemonic -o "$TMP/once_$m.csv" \
		"$TMP/once.data" &&
	"$HBBP" -q --method $m --by pid,module,symbol,mnemonic -o "$TMP/five_$m.csv" \
		"$TMP/five.data"
	if [ $? -ne 0 ]; then
		fail "bench_loops: convert --method $m"
		continue
	fi
	# rows: pid,module,symbol,mnemonic,count,share
	bad=$(awk -F, 'NR == FNR { if (FNR > 1) once[$1 "," $2 "," $3 "," $4] = $5; next }
		FNR > 1 { k = $1 "," $2 "," $3 "," $4; seen[k] = 1; want = 5 * once[k]
			d = $5 - want; if (d < 0) d = -d
			# the text outputs round counts (integers from 1000 on, 4 digits below):
			# 5 x a rounded count is within 3 units (3e-3 relative) of the rounded 5x
			if (!(k in once) || d > (want >= 1000 ? 3 : 3e-3 * want) + 1e-9) { n++; if (n < 4) print k, $5, want > "/dev/stderr" } }
		END { for (k in once) if (!(k in seen)) n++; print n + 0 }' \
		"$TMP/once_$m.csv" "$TMP/five_$m.csv")
	rows=$(($(wc -l < "$TMP/once_$m.csv") - 1))
	expect "bench_loops: --method $m: every one of $rows rows counts 5 times ($bad differ)" \
		'[ "$bad" -eq 0 ] && [ "$rows" -gt 10 ]'
done
