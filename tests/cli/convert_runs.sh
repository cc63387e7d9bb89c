#!/bin/sh
# Several inputs in one CSV or JSON Lines output: a first column `run` (the input's name as
# given), each input's rows in input order; each run's rows are what converting it alone
# gives, and the row counts add up. An input that fails is named and the others are written
# (exit status of the failure); JSON (one document) still asks for SQLite.
. "$(dirname "$0")/../lib.sh"
D=$ROOT/samples/demo
if [ ! -f "$D/perf.data" ] || [ ! -f "$D/vector" ]; then
	skip "convert_runs: samples/demo not present"; exit 0
fi
B="--binary vector=$D/vector"
cp "$D/perf.data" "$TMP/a.data"
cp "$D/perf.data" "$TMP/b.data"
"$HBBP" -q $B --by mnemonic -o "$TMP/one.csv" "$TMP/a.data"
"$HBBP" -q $B --by mnemonic --comm nosuch,vector -o "$TMP/runs.csv" "$TMP/a.data" "$TMP/b.data"
rc=$?
n1=$(($(wc -l < "$TMP/one.csv") - 1))
# each run's rows equal the single conversion's, with the run's name first
ok=$(awk -F, -v a="$TMP/a.data" -v b="$TMP/b.data" '
	NR == FNR { if (FNR > 1) one[++n] = $0; next }
	FNR == 1 { hdr = ($0 ~ /^run,mnemonic,count,count_lo,count_hi,share$/); next }
	{ r = $1; sub(/^[^,]*,/, ""); k[r]++; if ($0 != one[k[r]]) bad++ }
	END { print (hdr && !bad && k[a] == n && k[b] == n) ? "yes" : "no" }' \
	"$TMP/one.csv" "$TMP/runs.csv")
expect "convert_runs: two inputs in one CSV: a run column, each run's $n1 rows as alone" \
	'[ $rc = 0 ] && [ "$ok" = yes ]'
"$HBBP" -q $B --by mnemonic -o "$TMP/runs.jsonl" "$TMP/a.data" "$TMP/b.data"
rc=$?
expect "convert_runs: JSON Lines: a meta line naming both inputs, then 2 x $n1 rows with \"run\"" \
	'[ $rc = 0 ] && head -n 1 "$TMP/runs.jsonl" | grep -q "\"runs\": 2, \"input_1\": \"$TMP/a.data\", \"input_2\": \"$TMP/b.data\"" &&
	 [ "$(grep -c "^{\"run\": \"$TMP/a.data\", \"mnemonic\"" "$TMP/runs.jsonl")" = "$n1" ] &&
	 [ "$(grep -c "^{\"run\": \"$TMP/b.data\", \"mnemonic\"" "$TMP/runs.jsonl")" = "$n1" ]'
"$HBBP" -q $B --by mnemonic -o "$TMP/part.csv" "$TMP/a.data" "$TMP/nosuch.data" 2> "$TMP/part.err"
rc=$?
expect "convert_runs: a missing input: exit 2 (bad input), named, the other run written" \
	'[ $rc = 2 ] && grep -q "1 of 2 inputs failed (the first: $TMP/nosuch.data)" "$TMP/part.err" &&
	 [ "$(grep -c "^$TMP/a.data," "$TMP/part.csv")" = "$n1" ]'
"$HBBP" -q $B -o "$TMP/x.json" "$TMP/a.data" "$TMP/b.data" 2> "$TMP/json.err"
rc=$?
expect "convert_runs: JSON of two inputs is a usage error naming the formats that take them" \
	'[ $rc = 1 ] && [ ! -e "$TMP/x.json" ] && grep -q "CSV, JSON Lines (a run column) or SQLite" "$TMP/json.err"'
