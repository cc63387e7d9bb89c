#!/bin/sh
# A stored run looked at another way (writers/SCHEMA.md, "Pivots of a stored run"):
#  - two recordings (the demo, and the corpus's LBR-only propeller_sample) converted --by module
#    into one database: diff --by KEYS db#1 db#2 equals diffing the recordings by KEYS, for
#    mnemonic and other keys of the instructions and blocks; with --store threads,lines also
#    by thread and source line; without, those keys are refused (exit 1) naming --store;
#  - --append takes runs of other --by keys, --diagnostics and --taxonomy: each run's mix, read
#    by its run_meta mix_columns, equals the CSV of the same conversion;
#  - a database of format version 2 (tests/data/store_v2.sql, written by the release before
#    version 3): its run read and pivoted by mnemonic as the recording is; an append converts
#    it in place to version 3, after which its run still pivots as the recording and its view
#    mix_by_mnemonic equals the new run's.
. "$(dirname "$0")/../lib.sh"
command -v sqlite3 > /dev/null || { skip "store_repivot: sqlite3 not installed"; exit 0; }
A=$ROOT/samples/demo/perf.data
BIN="--binary vector=$ROOT/samples/demo/vector"
B=$A
if have_corpus; then
	B=$CORPUS/autofdo/propeller_sample.perfdata
	BIN="$BIN --binary propeller_sample.bin=$CORPUS/autofdo/propeller_sample_old.bin"
fi
conv() { "$HBBP" -q $BIN "$@" 2>> "$TMP/err"; }
diffcsv() { "$HBBP" diff -q -f csv $BIN "$@" 2>> "$TMP/err"; }

# ---- pivots of stored runs against the recordings ----
conv --by module -o "$TMP/m.sqlite" "$A" "$B" > /dev/null
conv --by module --store threads,lines -o "$TMP/t.sqlite" "$A" "$B" > /dev/null
for keys in mnemonic module,symbol,mnemonic category,isa_set mem,width,elem iclass,packing \
	    t:pid,comm t:tid,mnemonic t:srcline t:module,srcline; do
	db=m
	case $keys in t:*) db=t; keys=${keys#t:} ;; esac
	diffcsv --by "$keys" "$A" "$B" > "$TMP/rec.csv"
	diffcsv --by "$keys" "$TMP/$db.sqlite#1" "$TMP/$db.sqlite#2" > "$TMP/db.csv"
	if ! have_corpus && [ "$(wc -l < "$TMP/rec.csv")" -le 2 ]; then
		skip "store_repivot: --by $keys: the demo alone has one row (corpus absent)"
		continue
	fi
	expect "store_repivot: diff --by $keys $db.sqlite#1 #2 (runs converted --by module) equals diffing the recordings ($(($(wc -l < "$TMP/rec.csv") - 1)) rows)" \
		'[ "$(wc -l < "$TMP/rec.csv")" -gt 2 ] && rows_close "$TMP/rec.csv" "$TMP/db.csv"'
done
for k in pid:threads srcline:lines; do
	: > "$TMP/err"
	"$HBBP" diff -q -f csv --by "${k%:*}" "$TMP/m.sqlite#1" "$TMP/m.sqlite#2" > /dev/null 2> "$TMP/err"
	rc=$?
	expect "store_repivot: --by ${k%:*} of a run stored without --store ${k#*:}: exit $rc (want 1), naming --store ${k#*:}" \
		'[ "$rc" = 1 ] && grep -q -- "--store ${k#*:}" "$TMP/err"'
done

# ---- runs of any keys in one database ----
printf 'vec: v*\nmove: mov*\n' > "$TMP/tax.txt"
set -- "--by module,symbol" "--by mnemonic --diagnostics" "--by module,taxonomy --taxonomy $TMP/tax.txt" \
	"--by pid,block"
rm -f "$TMP/a.sqlite"
n=0 ok=1
for opts in "$@"; do
	n=$((n + 1))
	conv $opts "$A" > "$TMP/a$n.csv"
	[ $n = 1 ] && app= || app=--append
	conv $opts $app -o "$TMP/a.sqlite" "$A" || ok=0
	# the CSV's columns (it leaves out the cycles columns of a recording without cycle
	# counts, which the store keeps, NULL), each one of the run's mix_columns
	cols=$(sqlite3 "$TMP/a.sqlite" "select value from run_meta where run_id = $n and key = 'mix_columns'")
	hdr=$(head -1 "$TMP/a$n.csv")
	for c in $(echo "$hdr" | tr , ' '); do
		case ",$cols," in *",$c,"*) ;; *) ok=0; echo "  run $n: no $c in mix_columns" >&2 ;; esac
	done
	sqlite3 -csv -header "$TMP/a.sqlite" "select $hdr from mix where run_id = $n order by rowid" \
		> "$TMP/s$n.csv"
	rows_close "$TMP/a$n.csv" "$TMP/s$n.csv" || { ok=0; echo "  run $n ($opts) differs" >&2; }
done
expect "store_repivot: --append of runs with --by module,symbol, mnemonic --diagnostics, a taxonomy, pid,block: each run's mix is its CSV" \
	'[ $ok = 1 ] && [ "$(sqlite3 "$TMP/a.sqlite" "select count(*) from runs")" = 4 ]'

# ---- a database of format version 2 ----
sqlite3 "$TMP/v2.sqlite" < "$ROOT/tests/data/store_v2.sql"
diffcsv --by mnemonic "$A" "$A" > "$TMP/rec.csv"
diffcsv --by module,symbol "$A" "$A" > "$TMP/rec_ms.csv"
diffcsv --by mnemonic "$TMP/v2.sqlite#1" "$TMP/v2.sqlite#1" > "$TMP/v2.csv"
diffcsv "$TMP/v2.sqlite#1" "$TMP/v2.sqlite#1" > "$TMP/v2_ms.csv"
expect "store_repivot: a version 2 database: its run by its own keys and by mnemonic as the recording" \
	'[ "$(sqlite3 "$TMP/v2.sqlite" "pragma user_version")" = 2 ] &&
	 rows_close "$TMP/rec.csv" "$TMP/v2.csv" && rows_close "$TMP/rec_ms.csv" "$TMP/v2_ms.csv"'
conv --by mnemonic --append -o "$TMP/v2.sqlite" "$A"
rc=$?
diffcsv --by mnemonic "$TMP/v2.sqlite#1" "$TMP/v2.sqlite#2" > "$TMP/v3.csv"
diffcsv --by module,symbol "$TMP/v2.sqlite#1" "$TMP/v2.sqlite#2" > "$TMP/v3_ms.csv"
sqlite3 -csv "$TMP/v2.sqlite" "select mnemonic, count, count_lo, count_hi from mix_by_mnemonic where run_id = 1" > "$TMP/view1.csv"
sqlite3 -csv "$TMP/v2.sqlite" "select mnemonic, count, count_lo, count_hi from mix_by_mnemonic where run_id = 2" > "$TMP/view2.csv"
expect "store_repivot: --append to a version 2 database (exit $rc) converts it to version 3: its run pivots as the recording, its view as the new run's" \
	'[ "$rc" = 0 ] && [ "$(sqlite3 "$TMP/v2.sqlite" "pragma user_version")" = 3 ] &&
	 rows_close "$TMP/rec.csv" "$TMP/v3.csv" && rows_close "$TMP/rec_ms.csv" "$TMP/v3_ms.csv" &&
	 [ -s "$TMP/view1.csv" ] && rows_close "$TMP/view1.csv" "$TMP/view2.csv"'
