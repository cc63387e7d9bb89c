#!/bin/sh
# hbbp-convert compare on small mixes written here, with the errors worked out by hand:
# our CSV/JSON/SQLite outputs and pmusim's truth format, --normalize, keys missing on either
# side, -o CSV/JSON, and malformed references (exit 2, file and line in the message).
. "$(dirname "$0")/../lib.sh"

last() { tail -n 1 "$1"; }

printf 'mnemonic,count\nmov,100\nadd,50\n' > "$TMP/ref.csv"
printf 'mnemonic,count,share\nmov,90,0.6\nadd,60,0.4\n' > "$TMP/meas.csv"
# (|100-90| + |50-60|) / 150 = 13.33%
"$HBBP" compare --ref "$TMP/ref.csv" "$TMP/meas.csv" > "$TMP/out" 2>&1
check "compare_basic: (10+10)/150 = 13.33%" test "$(last "$TMP/out")" = "average weighted error 13.33%"
check "compare_basic: per-key error mov 10.00%" grep -q '^mov  *100  *90  *10.00%' "$TMP/out"
check "compare_basic: per-key error add 20.00%" grep -q '^add  *50  *60  *20.00%' "$TMP/out"

# a key missing on each side: nop (50) is 100% error for its weight, xor adds 25:
# (0 + 0 + 50 + 25) / 200 = 37.50%
printf 'mnemonic,count\nmov,100\nadd,50\nnop,50\n' > "$TMP/ref2.csv"
printf 'module,mnemonic,count,share\na,mov,60,0\nb,mov,40,0\na,add,50,0\na,xor,25,0\n' \
	> "$TMP/meas2.csv"
"$HBBP" compare --ref "$TMP/ref2.csv" "$TMP/meas2.csv" > "$TMP/out2" 2>&1
check "compare_basic: missing keys (50+25)/200 = 37.50%" \
	test "$(last "$TMP/out2")" = "average weighted error 37.50%"
check "compare_basic: missing keys listed" \
	sh -c "grep -q 'reference only: nop 50' '$TMP/out2' && grep -q 'measured only: xor 25' '$TMP/out2'"

# --normalize: shares ref 0.5/0.5, meas 0.75/0.25: (0.25 + 0.25) / 1 = 50.00%
printf 'mnemonic,count\na,100\nb,100\n' > "$TMP/ref3.csv"
printf 'mnemonic,count,share\na,30,0.75\nb,10,0.25\n' > "$TMP/meas3.csv"
"$HBBP" compare --normalize --ref "$TMP/ref3.csv" "$TMP/meas3.csv" > "$TMP/out3" 2>&1
check "compare_basic: --normalize 50.00%" test "$(last "$TMP/out3")" = "average weighted error 50.00%"
# without it: (70 + 90) / 200 = 80.00%
"$HBBP" compare --ref "$TMP/ref3.csv" "$TMP/meas3.csv" > "$TMP/out3b" 2>&1
check "compare_basic: absolute 80.00%" test "$(last "$TMP/out3b")" = "average weighted error 80.00%"

# JSON measured mix and -o CSV / JSON
cat > "$TMP/meas.json" <<'EOF'
{"format_version": 1, "meta": {"file": "x"}, "warnings": [],
"rows": [
{"mnemonic": "mov", "count": 90, "share": 0.6},
{"mnemonic": "add", "count": 60, "share": 0.4}
]}
EOF
"$HBBP" compare --ref "$TMP/ref.csv" -o "$TMP/res.csv" "$TMP/meas.json" > "$TMP/out4" 2>&1
check "compare_basic: JSON measured 13.33%" test "$(last "$TMP/out4")" = "average weighted error 13.33%"
check "compare_basic: -o CSV row add" \
	grep -q '^add,50,60,10,0.2,50,60$' "$TMP/res.csv"
"$HBBP" compare --ref "$TMP/ref.csv" -o "$TMP/res.json" "$TMP/meas.json" > /dev/null 2>&1
check "compare_basic: -o JSON weighted error" \
	grep -q '"average_weighted_error": 0.1333333333333333' "$TMP/res.json"

# JSON Lines: a header object, then one row per line
printf '%s\n' '{"format_version": 1, "meta": {"file": "x"}, "warnings": []}' \
	'{"mnemonic": "mov", "count": 90, "share": 0.6}' '{"mnemonic": "add", "count": 60, "share": 0.4}' \
	> "$TMP/meas.jsonl"
"$HBBP" compare --ref "$TMP/ref.csv" "$TMP/meas.jsonl" > "$TMP/out4b" 2>&1
check "compare_basic: JSON Lines measured 13.33%" test "$(last "$TMP/out4b")" = "average weighted error 13.33%"

# SQLite measured mix (the mix table of the last run)
if command -v sqlite3 > /dev/null; then
	sqlite3 "$TMP/m.db" "create table mix(run_id integer, mnemonic text, count real, share real);
		insert into mix values (1, 'mov', 1, 0.5), (1, 'add', 1, 0.5),
		(2, 'mov', 90, 0.6), (2, 'add', 60, 0.4);"
	"$HBBP" compare --ref "$TMP/ref.csv" "$TMP/m.db" > "$TMP/out5" 2>&1
	check "compare_basic: SQLite last run 13.33%" \
		test "$(last "$TMP/out5")" = "average weighted error 13.33%"
else
	skip "compare_basic: sqlite3 not installed"
fi

# malformed references: exit 2, message with file and line
printf 'mnemonic,count\nmov,100\nadd,lots\n' > "$TMP/bad.csv"
"$HBBP" compare --ref "$TMP/bad.csv" "$TMP/meas.csv" > /dev/null 2> "$TMP/err"
rc=$?
check "compare_basic: bad count exits 2 naming bad.csv:3" \
	sh -c "[ $rc = 2 ] && grep -q 'bad.csv:3: bad count' '$TMP/err'"
printf 'mnemonic,count\nmov,100,1\n' > "$TMP/bad2.csv"
"$HBBP" compare --ref "$TMP/bad2.csv" "$TMP/meas.csv" > /dev/null 2> "$TMP/err"
rc=$?
check "compare_basic: wrong field count exits 2 naming bad2.csv:2" \
	sh -c "[ $rc = 2 ] && grep -q 'bad2.csv:2:' '$TMP/err'"
printf '{"rows": [\n{"mnemonic": "mov", "count": 1},\n{"mnemonic": "add"}\n]}\n' > "$TMP/bad.json"
"$HBBP" compare --ref "$TMP/ref.csv" "$TMP/bad.json" > /dev/null 2> "$TMP/err"
rc=$?
check "compare_basic: JSON row without count exits 2 naming bad.json:3" \
	sh -c "[ $rc = 2 ] && grep -q 'bad.json:3:' '$TMP/err'"
"$HBBP" compare --ref "$TMP/ref.csv" --by iclass "$TMP/meas.csv" > /dev/null 2> "$TMP/err"
rc=$?
check "compare_basic: a --by key one side lacks exits 2" \
	sh -c "[ $rc = 2 ] && grep -q \"no key column 'iclass'\" '$TMP/err'"
"$HBBP" compare "$TMP/meas.csv" > /dev/null 2>&1
check "compare_basic: no --ref is a usage error" test $? = 1
