#!/bin/sh
# Several inputs in one SQLite database, converted by -j N threads: the golden recording
# (tests/cli/golden_lib.sh), a variant whose program is mapped only after its first sample
# (an address-space change mid-file), and corpus recordings with LBR stacks and their
# binaries (a recording whose code is not found has no row: no run). Checks: every
# run of the golden recording gives the hand-computed mix (tests/golden/golden_hbbp.expected);
# in the late-map variant the first sample's period (1000) lands in [unmapped] (300 + 1000);
# -j 1 and -j 2 write identical databases; each run equals the file converted alone;
# several inputs need SQLite, CSV or JSON Lines output (JSON is refused) and -j 0 is refused. One file with -j 2 gives the same CSV
# and database as -j 1.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/golden_lib.sh"

names="convert_jobs_golden convert_jobs_late_map convert_jobs_identical convert_jobs_single
	convert_jobs_usage convert_jobs_one_file"
command -v sqlite3 >/dev/null 2>&1 || { golden_ok=0; golden_why="sqlite3 not installed"; }
[ $golden_ok = 1 ] && golden_setup
if [ $golden_ok != 1 ] || [ "$golden_layout_ok" != 1 ]; then
	for n in $names; do skip "$n: ${golden_why:-golden_prog.S layout differs}"; done
	exit 0
fi
golden_spec "$TMP/g.spec"
# the program's map arrives at time 11, after the first EBS sample (time 10)
awk '/file=\/golden\/prog/ { late = $0; sub(/time=2 /, "time=11 ", late); next }
	{ print } /period=1000 time=10/ { print late }' "$TMP/g.spec" > "$TMP/late.spec"
run_perfgen "$TMP/g.spec" "$TMP/g.data" 2>"$TMP/perfgen.err" &&
	run_perfgen "$TMP/late.spec" "$TMP/late.data" 2>>"$TMP/perfgen.err" ||
	{ for n in $names; do fail "$n: perfgen: $(head -1 "$TMP/perfgen.err")"; done; exit 0; }
BIN="--binary /golden/prog=$PROG -q --by symbol,mnemonic"

inputs="$TMP/g.data $TMP/late.data"
add_input() { # RECORDING NAME BINARY (corpus paths): the recording, its binary given
	[ -f "$CORPUS/$1" ] && [ -f "$CORPUS/$3" ] || return 0
	inputs="$inputs $CORPUS/$1"
	BIN="$BIN --binary $2=$CORPUS/$3"
}
add_input autofdo/test.lbr test.binary autofdo/test.binary
add_input simpleperf/lbr__perf_lbr.data lbr_test_loop simpleperf/lbr__lbr_test_loop
inputs="$inputs $TMP/g.data"
n=$(echo $inputs | wc -w)

# mix rows of run N as CSV with the header of a conversion (symbol,mnemonic,count,share)
run_csv() {
	echo "symbol,mnemonic,count,share"
	sqlite3 -separator , "$1" \
		"SELECT symbol, mnemonic, count, share FROM mix WHERE run_id = $2 ORDER BY rowid"
}
dump_db() { sqlite3 "$1" .dump | grep -v '^INSERT INTO runs VALUES'; }

"$HBBP" $BIN -j 1 -o "$TMP/j1.db" $inputs 2>"$TMP/err1"
rc1=$?
"$HBBP" $BIN -j 2 -o "$TMP/j2.db" $inputs 2>"$TMP/err2"
rc2=$?
runs=$(sqlite3 "$TMP/j2.db" "SELECT COUNT(*) FROM runs" 2>/dev/null)
if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ] || [ "$runs" != "$n" ]; then
	cat "$TMP/err1" "$TMP/err2" >&2
	for n in $names; do fail "$n: conversion failed (rc $rc1/$rc2, $runs runs of $n)"; done
	exit 0
fi

run_csv "$TMP/j2.db" 1 > "$TMP/r1.csv"
run_csv "$TMP/j2.db" "$n" > "$TMP/rn.csv"
mix_cmp "$TMP/r1.csv" "$ROOT/tests/golden/golden_hbbp.expected" &&
	mix_cmp "$TMP/rn.csv" "$ROOT/tests/golden/golden_hbbp.expected" &&
	pass convert_jobs_golden || fail convert_jobs_golden

unmapped() {
	sqlite3 "$TMP/j2.db" "SELECT SUM(count) FROM mix WHERE run_id = $1 AND mnemonic = '[unmapped]'"
}
unm=$(unmapped 2)
gunm=$(unmapped 1)
check "convert_jobs_late_map: [unmapped] 1300 with the late map, 300 without ($unm, $gunm)" \
	awk -v a="$unm" -v b="$gunm" 'BEGIN { exit !(a == 1300 && b == 300) }'

dump_db "$TMP/j1.db" > "$TMP/j1.sql"
dump_db "$TMP/j2.db" > "$TMP/j2.sql"
check "convert_jobs_identical: -j 1 and -j 2 databases ($n runs)" cmp -s "$TMP/j1.sql" "$TMP/j2.sql"

ok=1
i=0
for f in $inputs; do
	i=$((i + 1))
	rm -f "$TMP/one.db"
	"$HBBP" $BIN -o "$TMP/one.db" "$f" 2>/dev/null || { ok=0; echo "alone: $f failed" >&2; continue; }
	run_csv "$TMP/one.db" 1 > "$TMP/one.csv"
	run_csv "$TMP/j2.db" $i > "$TMP/many.csv"
	cmp -s "$TMP/one.csv" "$TMP/many.csv" || { ok=0; echo "run $i differs from $f alone" >&2; }
done
check "convert_jobs_single: each run equals its file converted alone" [ $ok = 1 ]

"$HBBP" $BIN -o "$TMP/x.json" "$TMP/g.data" "$TMP/late.data" 2>/dev/null
rc_csv=$?
"$HBBP" $BIN -j 0 -o "$TMP/x.db" "$TMP/g.data" 2>/dev/null
rc_j0=$?
expect "convert_jobs_usage: JSON with two inputs and -j 0 are usage errors ($rc_csv, $rc_j0)" \
	'[ $rc_csv -eq 1 ] && [ $rc_j0 -eq 1 ] && [ ! -e "$TMP/x.csv" ] && [ ! -e "$TMP/x.db" ]'

ok=1
for f in $inputs; do
	for j in 1 2; do
		rm -f "$TMP/one$j.db"
		"$HBBP" $BIN --by pid,module,symbol,mnemonic -j $j -o "$TMP/one$j.csv" "$f" 2>/dev/null &&
			"$HBBP" $BIN -j $j -o "$TMP/one$j.db" "$f" 2>/dev/null ||
			{ ok=0; echo "-j $j: $f failed" >&2; }
		dump_db "$TMP/one$j.db" > "$TMP/one$j.sql"
	done
	cmp -s "$TMP/one1.csv" "$TMP/one2.csv" && cmp -s "$TMP/one1.sql" "$TMP/one2.sql" ||
		{ ok=0; echo "-j 1 and -j 2 differ on $f" >&2; }
	[ -s "$TMP/one1.csv" ] || ok=0
done
check "convert_jobs_one_file: one file, -j 1 and -j 2 identical (CSV and SQLite)" [ $ok = 1 ]
