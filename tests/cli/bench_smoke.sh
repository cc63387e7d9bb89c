#!/bin/sh
# tier: slow
# Smoke test of the benchmark scripts (bench/run.sh, bench/inputs.sh, benchgen) on a 2 MiB
# recording tiled from two tiny pmusim runs, so that `make bench` cannot rot. Checks against
# stock perf: the tiled file holds exactly the samples benchgen reports, and every branch
# stack in it is one of the source recordings' stacks (and all of them appear).
. "$(dirname "$0")/../lib.sh"
have_bench_tools bench_smoke || exit 0
perf=0
command -v perf >/dev/null 2>&1 && perf=1

out=$TMP/run.out
BENCH_SIZES=2 BENCH_RUNS=1 BENCH_DIR=$TMP/b BENCH_RESULTS=$TMP/RESULTS.md \
	BENCH_INPUTS="interp 10 libcmix 3" BENCH_PERF=$perf GEN=$GEN HBBP=$HBBP \
	PMUSIM=$ROOT/pmusim sh "$ROOT/bench/run.sh" > "$out" 2> "$TMP/run.err"
rc=$?
check "bench_smoke: run.sh succeeds" [ $rc -eq 0 ]
[ $rc -eq 0 ] || { tail -n 20 "$TMP/run.err" >&2; exit 0; }

f=$TMP/b/lbr_2m.data
# one table row per measurement, each with a positive rate
nrows=$(grep -c '^| 2 MiB |' "$TMP/RESULTS.md")
want=$((6 + 2 * perf))
check "bench_smoke: $want rows in RESULTS.md (got $nrows)" [ "$nrows" -eq $want ]
check "bench_smoke: ours is the ratio 1.00" \
	grep -q '^| 2 MiB | hbbp-csv | plain | .* | 1.00 |' "$TMP/RESULTS.md"
bad=$(awk -F'|' '/^\| 2 MiB/ && ($7 + 0 <= 0 || $8 + 0 <= 0) { n++ } END { print n + 0 }' \
	"$TMP/RESULTS.md")
check "bench_smoke: every row has MiB/s and samples/s" [ "$bad" -eq 0 ]
check "bench_smoke: RESULTS.md names commit and machine" \
	sh -c "grep -q '^- commit: ' '$TMP/RESULTS.md' && grep -q '^- machine: [0-9]* CPUs' '$TMP/RESULTS.md'"
bytes=$(awk '{ print $4 }' "$f.info")
expect "bench_smoke: 2 MiB of samples written (bytes $bytes, file $(stat -c %s "$f"))" \
	'[ "$bytes" -ge 2097152 ] && [ "$(stat -c %s "$f")" -ge "$bytes" ]'

if [ $perf = 0 ]; then
	skip "bench_smoke: perf not installed, tiled stacks not checked"
	exit 0
fi
samples=$(awk '{ print $2 }' "$f.info")
perf script -i "$f" -F brstack 2> /dev/null | sed 's/ *$//' > "$TMP/tiled"
got=$(wc -l < "$TMP/tiled")
check "bench_smoke: perf script sees $samples samples (got $got)" [ "$got" -eq "$samples" ]
# Each source is replayed by two processes starting half-way apart, so every source stack
# appears once each process has emitted half of its source (chunks of 64 samples).
maxsrc=0
for s in "$TMP"/b/src/src_*.data; do
	perf script -i "$s" -F brstack 2> /dev/null | sed 's/ *$//' > "$TMP/one"
	n=$(wc -l < "$TMP/one")
	[ "$n" -gt $maxsrc ] && maxsrc=$n
	cat "$TMP/one"
done | sort -u > "$TMP/src.u"
for s in "$TMP"/b/src/src_*.data; do
	n=$(perf script -i "$s" -F brstack 2> /dev/null | wc -l)
	[ "$n" -gt $maxsrc ] && maxsrc=$n
done
sort -u "$TMP/tiled" > "$TMP/tiled.u"
extra=$(comm -13 "$TMP/src.u" "$TMP/tiled.u" | wc -l)
check "bench_smoke: every tiled stack is a source stack ($extra are not)" [ "$extra" -eq 0 ]
if [ $((2 * maxsrc + 256)) -le "$samples" ]; then
	check "bench_smoke: every source stack is in the tiled file" \
		cmp -s "$TMP/src.u" "$TMP/tiled.u"
else
	skip "bench_smoke: sources larger than the tiled file, coverage not checked"
fi
zs=$(perf script -i "$TMP/b/lbr_2m_z.data" -F brstack 2> /dev/null | sed 's/ *$//' | sort -u)
check "bench_smoke: the COMPRESSED variant holds the same stacks (stock perf)" \
	[ "$zs" = "$(cat "$TMP/tiled.u")" ]
# perf 6.1 does not read COMPRESSED2: compare its dump with the plain file's.
"$HBBP" dump "$f" > "$TMP/d.plain" 2>&1
"$HBBP" dump "$TMP/b/lbr_2m_z2.data" > "$TMP/d.z2" 2>&1
expect "bench_smoke: the COMPRESSED2 variant dumps like the plain file" \
	'[ "$(wc -l < "$TMP/d.plain")" -ge "$samples" ] && cmp -s "$TMP/d.plain" "$TMP/d.z2"'
