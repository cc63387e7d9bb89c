#!/bin/sh
# hbbp-convert diff: two simulator recordings of one program that differ only by the random
# seed (period randomisation and the other realistic effects) flag at most 10% of the rows at
# 95%; two different programs flag most rows; the same pair read back from a database
# (FILE.sqlite#RUN) gives the same table; usage errors. The rule itself is unit-tested on
# hand-made intervals (tests/unit/test_diff.c).
. "$(dirname "$0")/../lib.sh"
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim

"$HBBP" diff "$ROOT/samples/demo/perf.data" >/dev/null 2>&1; rc1=$?
"$HBBP" diff --bogus a b >/dev/null 2>&1; rc2=$?
"$HBBP" diff "$TMP/none.data" "$TMP/none.data" >/dev/null 2>&1; rc3=$?
check "diff_errors: one run 1, unknown option 1, missing file 2 ($rc1 $rc2 $rc3)" \
	test "$rc1" = 1 -a "$rc2" = 1 -a "$rc3" = 2

if ! command -v qemu-x86_64 >/dev/null; then
	for n in diff_seeds diff_programs diff_database; do skip "$n: qemu-x86_64 not installed"; done
	exit 0
fi
if ! sh "$ROOT/samples/workloads/build.sh" "$TMP/wl" 2>"$TMP/build.err"; then
	fail "diff: cannot build the workloads"; cat "$TMP/build.err" >&2; exit 0
fi
rec() {	# rec OUT SEED PROGRAM ARGS...
	out=$1 seed=$2; shift 2
	"$PMUSIM" --ebs-period 997 --lbr-period 211 --effects realistic --seed "$seed" \
		-o "$out" -- "$@" >/dev/null 2>>"$TMP/pm.err"
}
if ! rec "$TMP/s1.data" 1 "$TMP/wl/interp" 300 || ! rec "$TMP/s2.data" 2 "$TMP/wl/interp" 300 ||
   ! rec "$TMP/p.data" 1 "$TMP/wl/vector" 2000; then
	fail "diff: pmusim failed"; cat "$TMP/pm.err" >&2; exit 0
fi
cmp -s "$TMP/s1.data" "$TMP/s2.data" && fail "diff_seeds: the seeds gave the same recording"
# the conversion gives intervals (count_lo/count_hi), else significance cannot be judged
if ! "$HBBP" -q --by mnemonic "$TMP/s1.data" | head -1 | grep -q count_lo; then
	for n in diff_seeds diff_programs diff_database; do
		skip "$n: this conversion computes no 95% intervals (count_lo/count_hi)"
	done
	exit 0
fi
"$HBBP" diff -q -f csv --by mnemonic "$TMP/s1.data" "$TMP/s2.data" > "$TMP/seeds.csv" 2>"$TMP/seeds.err"
set -- $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ n++; s += $c["significant"] } END { printf "%d %d\n", n, s }' "$TMP/seeds.csv")
check "diff_seeds: same program, seeds 1 and 2: $2 of $1 rows flagged (at most 10%)" \
	awk -v n="$1" -v s="$2" 'BEGIN { exit !(n >= 20 && s <= 0.10 * n) }'
# (by category: by mnemonic, most rows are startup code both programs share, rightly not
# flagged, and rows of a few samples)
"$HBBP" diff -q -f csv --by category --shares "$TMP/s1.data" "$TMP/p.data" > "$TMP/prog.csv" 2>"$TMP/prog.err"
set -- $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ n++; s += $c["significant"] } END { printf "%d %d\n", n, s }' "$TMP/prog.csv")
check "diff_programs: interp against vector by category: $2 of $1 rows flagged (most)" \
	awk -v n="$1" -v s="$2" 'BEGIN { exit !(n >= 10 && s > 0.5 * n) }'
# the same two runs from a database: the same rows, counts and flags
"$HBBP" -q --by mnemonic -o "$TMP/runs.sqlite" "$TMP/s1.data" "$TMP/s2.data" 2>"$TMP/db.err" &&
"$HBBP" diff -q -f csv "$TMP/runs.sqlite#1" "$TMP/runs.sqlite#2" > "$TMP/db.csv" 2>>"$TMP/db.err"
expect "diff_database: runs.sqlite#1 against #2 equals the recordings' diff" \
	'[ -s "$TMP/db.csv" ] && rows_close "$TMP/seeds.csv" "$TMP/db.csv"'
