#!/bin/sh
# compare and the model file refuse what they cannot read right, with one line naming the
# file, instead of a number: a CSV header with a column twice, a JSON row naming a column
# twice or with a null key, a SQLite mix row with a NULL key, a JSON/JSONL/SQLite format
# version other than 1, a side that counts nothing; unrelated inputs (keys barely overlap)
# are compared with a warning saying so. A model file with two 'cutoff' lines is refused.
. "$(dirname "$0")/../lib.sh"

# refused NAME PATTERN CMD...: exit 2 and an error line matching PATTERN
refused() {
	name=$1 pat=$2; shift 2
	"$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q -- "^hbbp-convert: error: .*$pat" "$TMP/err"; then pass "$name"
	else fail "$name (exit $rc)"; cat "$TMP/err" >&2; fi
}
cd "$TMP" || exit 2
printf 'mnemonic,count\nmov,90\nadd,10\n' > m.csv
printf 'mnemonic,mnemonic,count\nmov,add,100\n' > dup.csv
refused "compare_say duplicate CSV column" "dup.csv:1: column 'mnemonic' appears twice" \
	"$HBBP" compare --ref dup.csv m.csv
printf 'mnemonic,count\nmov,0\n' > zero.csv
refused "compare_say a reference that counts nothing" "zero.csv: counts nothing" \
	"$HBBP" compare --ref zero.csv m.csv
printf '{"format_version": 1, "meta": {}, "rows": [\n{"mnemonic": "mov", "mnemonic": "add", "count": 5, "share": 1}\n]}\n' > dup.json
refused "compare_say JSON row naming a column twice" "dup.json:.*a row names a column twice" \
	"$HBBP" compare --ref m.csv dup.json
printf '{"format_version": 1, "meta": {}, "rows": [\n{"mnemonic": null, "count": 5, "share": 1}\n]}\n' > null.json
refused "compare_say JSON null key" "null.json:.*a key column is null" "$HBBP" compare --ref m.csv null.json
printf '{"format_version": 3, "meta": {}, "rows": [\n{"mnemonic": "mov", "count": 5, "share": 1}\n]}\n' > v2.json
refused "compare_say JSON format version 3" "v2.json: format version 3 is not supported" \
	"$HBBP" compare --ref m.csv v2.json
printf '{"format_version": 3, "meta": {}, "warnings": []}\n{"mnemonic": "mov", "count": 5, "share": 1}\n' > v3.jsonl
refused "compare_say JSONL format version 3" "v3.jsonl: format version 3 is not supported" \
	"$HBBP" compare --ref m.csv v3.jsonl
# JSON and JSON Lines read a line at a time: the line of what is wrong, and the layout's
# own rules (a comma after each row of a document but the last, then ]}; one row a line)
printf '{"format_version": 2}\n{"mnemonic": "mov", "count": 5}\n{"mnemonic": "add" "count": 1}\n' > syn.jsonl
refused "compare_say JSON Lines syntax error" "syn.jsonl:3: malformed JSON" "$HBBP" compare --ref m.csv syn.jsonl
printf '{"format_version": 2, "meta": {},\n"rows": [\n{"mnemonic": "mov", "count": 5}\n{"mnemonic": "add", "count": 1}\n]}\n' > comma.json
refused "compare_say JSON row without its comma" "comma.json:4: expected ','" "$HBBP" compare --ref m.csv comma.json
printf '{"format_version": 2, "meta": {},\n"rows": [\n{"mnemonic": "mov", "count": 5},\n]}\n' > last.json
refused "compare_say JSON last row with a comma" "last.json:4: expected a row after ','" \
	"$HBBP" compare --ref m.csv last.json
printf '{"format_version": 2, "meta": {},\n"rows": [\n{"mnemonic": "mov", "count": 5}\n' > cut2.json
refused "compare_say JSON cut short" "cut2.json:3: expected ']}'" "$HBBP" compare --ref m.csv cut2.json
printf '{\n  "format_version": 2,\n  "rows": [\n    {\n      "mnemonic": "mov",\n      "count": 5\n    }\n  ]\n}\n' > pretty.json
refused "compare_say JSON row over several lines" "pretty.json:4: expected a row object, one per line" \
	"$HBBP" compare --ref m.csv pretty.json
printf '{"format_version": 2}\n{"mnemonic": "mov\0", "count": 5}\n' > nul.jsonl
refused "compare_say JSON Lines with a NUL byte" "nul.jsonl:2: a NUL byte" "$HBBP" compare --ref m.csv nul.jsonl
printf '{"format_version": 2, "meta": {}, "warnings": [],\n"rows": []}\n' > none.json
refused "compare_say JSON without rows, as written without a mix table" "none.json: counts nothing" \
	"$HBBP" compare --ref m.csv none.json
{ printf '{"format_version": 2}\n{'; head -c 67108864 /dev/zero | tr '\0' ' '; printf '}\n'; } > long.jsonl
refused "compare_say JSON Lines line over 64 MiB" "long.jsonl:2: longer than 64 MiB" \
	"$HBBP" compare --ref m.csv long.jsonl
rm -f long.jsonl
if command -v sqlite3 >/dev/null 2>&1; then
	"$HBBP" -q --binary "vector=$ROOT/samples/demo/vector" -o ok.sqlite "$ROOT/samples/demo/perf.data" 2>/dev/null
	cp ok.sqlite null.sqlite
	sqlite3 null.sqlite "update mix set mnemonic = NULL where rowid = (select min(rowid) from mix)"
	refused "compare_say SQLite NULL key" "null.sqlite: mix row with a NULL key 'mnemonic'" \
		"$HBBP" compare --ref ok.sqlite null.sqlite
	cp ok.sqlite v9.sqlite
	sqlite3 v9.sqlite "pragma user_version = 9"
	refused "compare_say SQLite format version 9" "v9.sqlite: format version 9 is not supported" \
		"$HBBP" compare --ref ok.sqlite v9.sqlite
else
	skip "compare_say SQLite cases: sqlite3 not installed"
fi
printf 'mnemonic,count\nfoo,100\nbar,5\nmov,1\n' > other.csv
"$HBBP" compare --ref other.csv m.csv > out 2> err
rc=$?
check "compare_say unrelated inputs: compared (exit $rc) with a warning that the keys barely overlap" \
	sh -c "[ $rc -eq 0 ] && grep -q 'warning: the keys barely overlap: the keys both have hold 0.9% of other.csv.s count and 90.0% of m.csv' err &&
		grep -q 'average weighted error' out"
"$HBBP" compare --ref m.csv m.csv > out 2> err
check "compare_say the same input: no overlap warning" sh -c "! grep -q overlap err"
printf 'hbbp-model 1\ncutoff 12\ncutoff 30\n' > two.model
refused "compare_say model file with two cutoffs" "two.model:3: a second 'cutoff' line" \
	"$HBBP" --model two.model "$ROOT/samples/demo/perf.data"
printf 'mnemonic,count\nmov,1e308\nadd,1.7e308\n' > big.csv
refused "compare_say counts adding up to infinity (was -nan%)" "big.csv: its counts add up beyond a double's range" \
	"$HBBP" compare --ref big.csv m.csv
