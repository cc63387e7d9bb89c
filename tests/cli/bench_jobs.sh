#!/bin/sh
# One benchmark-style recording (bench/inputs.sh sources tiled by benchgen: rounds, several
# processes, libc.so and ld.so, 32-deep stacks) read in two parts (--split 1M: a segment
# summed apart) converts to the same rows with -j 2 (the segment on a second thread) as with
# -j 1, in CSV and SQLite, for each method, and to the rows of the one-part reading
# (--split 0) within 1e-9 relative; the segment is really used; the rows are not empty (the
# comparison is not between two empty tables).
. "$(dirname "$0")/../lib.sh"
have_bench_tools bench_jobs || exit 0
if ! command -v sqlite3 >/dev/null 2>&1; then skip "bench_jobs: sqlite3 not installed"; exit 0; fi
srcs=$(BENCH_INPUTS="interp 10 libcmix 3" sh "$ROOT/bench/inputs.sh" "$TMP/src" "$ROOT/pmusim" \
	2> "$TMP/inputs.err") || { fail "bench_jobs: bench/inputs.sh"; exit 0; }
$GEN --mb 3 -o "$TMP/b.data" $srcs > "$TMP/b.info" || { fail "bench_jobs: benchgen"; exit 0; }

ok=1 close=1 used=1
for m in hbbp lbr ebs; do
	for j in 1 2; do
		HBBP_DEBUG=1 "$HBBP" -q --split 1M --method $m --by pid,module,symbol,block,mnemonic \
			-j $j -o "$TMP/$m$j.csv" "$TMP/b.data" 2> "$TMP/$m$j.err" || ok=0
		grep -q 'part read apart' "$TMP/$m$j.err" || used=0
	done
	"$HBBP" -q --split 0 --method $m --by pid,module,symbol,block,mnemonic \
		-o "$TMP/${m}0.csv" "$TMP/b.data" || ok=0
	cmp -s "$TMP/${m}1.csv" "$TMP/${m}2.csv" || { ok=0; echo "--method $m: -j 1 != -j 2" >&2; }
	rows_close "$TMP/${m}0.csv" "$TMP/${m}2.csv" ||
		{ close=0; echo "--method $m: two parts != one part" >&2; }
	[ "$(wc -l < "$TMP/${m}1.csv")" -gt 100 ] || { ok=0; echo "--method $m: few rows" >&2; }
done
check "bench_jobs: CSV identical with -j 1 and -j 2 (hbbp, lbr, ebs)" [ $ok = 1 ]
check "bench_jobs: the file was read in two parts" [ $used = 1 ]
check "bench_jobs: two-part rows equal the one-part ones (1e-9 relative)" [ $close = 1 ]

for j in 1 2; do
	"$HBBP" -q --split 1M -j $j -o "$TMP/b$j.db" "$TMP/b.data" &&
		sqlite3 "$TMP/b$j.db" .dump | grep -v '^INSERT INTO runs VALUES' > "$TMP/b$j.sql"
done
check "bench_jobs: SQLite identical with -j 1 and -j 2" \
	sh -c "[ -s '$TMP/b1.sql' ] && cmp -s '$TMP/b1.sql' '$TMP/b2.sql'"
