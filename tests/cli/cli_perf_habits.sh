#!/bin/sh
# perf's habits: -i FILE names an input (repeatable, before the operands); --sort is --by
# (one row of the option table); -f table prints the rows as perf report --stdio does, the
# default when stdout is a terminal (script(1) gives it one) and CSV otherwise. The table is
# checked against the CSV of the same conversion, its numbers re-formatted here (share as a
# percentage with 2 decimals, the interval as [lo, hi]), its lines at most 80 columns, and
# each cut key against the CSV's full value (a prefix ending "..", a path's suffix after "..").
. "$(dirname "$0")/../lib.sh"

D=$ROOT/samples/demo/perf.data
B="--binary vector=$ROOT/samples/demo/vector"

# ---- -i and --sort ----
"$HBBP" -q $B "$D" > "$TMP/pos.csv" 2>&1
"$HBBP" -q $B -i "$D" > "$TMP/i.csv" 2>&1
"$HBBP" -q $B --by symbol,mnemonic "$D" > "$TMP/by.csv" 2>&1
"$HBBP" -q $B --sort symbol,mnemonic -i "$D" > "$TMP/sort.csv" 2>&1
expect "cli_perf_habits: -i FILE is the operand, --sort KEYS is --by KEYS" \
	'cmp -s "$TMP/pos.csv" "$TMP/i.csv" && cmp -s "$TMP/by.csv" "$TMP/sort.csv" &&
	 head -n 1 "$TMP/sort.csv" | grep -qx "symbol,mnemonic,count,count_lo,count_hi,share"'
"$HBBP" diff -q $B --sort symbol "$D" "$D" > "$TMP/d1" 2>&1
"$HBBP" diff -q $B --by symbol -i "$D" -i "$D" > "$TMP/d2" 2>&1
expect "cli_perf_habits: diff takes -i twice and --sort" \
	'cmp -s "$TMP/d1" "$TMP/d2" && grep -q "^symbol  " "$TMP/d1"'
cp "$D" "$TMP/second.data"
"$HBBP" -q $B -o "$TMP/runs.sqlite" "$TMP/second.data" -i "$D" 2> /dev/null
files=$(sqlite3 "$TMP/runs.sqlite" 'SELECT file FROM runs ORDER BY run_id' 2> /dev/null | tr '\n' ' ')
expect "cli_perf_habits: -i files come before the operands ($files)" \
	'[ "$files" = "$D $TMP/second.data " ]'
"$HBBP" help --list-options > "$TMP/list"
"$HBBP" --help > "$TMP/help"
expect "cli_perf_habits: --sort is a name of --by's rows (convert, diff), not a row of its own" \
	'[ $(grep -c "	--by --sort	KEYS	" "$TMP/list") -eq 2 ] && ! grep -q "^[^	]*	--sort" "$TMP/list" &&
	 grep -q "^      --by, --sort KEYS$" "$TMP/help" && grep -q "^  -i, --input FILE " "$TMP/help"'

# ---- -f table against the CSV ----
# table rows as CSV: "share%,count,[lo, hi],keys..." (fields are 2 or more spaces apart)
table_rows() {
	awk '/^#/ { next } { sub(/^ +/, ""); gsub(/  +/, "\t"); print }' "$1"
}
# the CSV re-formatted as the table should print it (keys: the first NK columns)
csv_rows() {
	awk -F, -v nk="$2" 'NR > 1 { s = sprintf("%.2f%%\t%s\t[%s, %s]", 100 * $(nk + 4), $(nk + 1),
		$(nk + 2), $(nk + 3)); for (i = 1; i <= nk; i++) s = s "\t" $i; print s }' "$1"
}
"$HBBP" -q $B -f table "$D" > "$TMP/t.txt" 2> "$TMP/t.err"
rc=$?
"$HBBP" -q $B -f csv "$D" > "$TMP/t.csv" 2> /dev/null
table_rows "$TMP/t.txt" > "$TMP/t.rows"
csv_rows "$TMP/t.csv" 3 > "$TMP/c.rows"
wide=$(awk 'length($0) > 80' "$TMP/t.txt" | wc -l)
expect "cli_perf_habits: -f table: the CSV's rows, share in %, [lo, hi], keys; header as perf's; $wide lines over 80 columns (exit $rc)" \
	'[ $rc -eq 0 ] && [ -s "$TMP/c.rows" ] && cmp -s "$TMP/t.rows" "$TMP/c.rows" && [ $wide -eq 0 ] &&
	 head -n 1 "$TMP/t.txt" | grep -q "^# Overhead  *count  95% interval  *module  *symbol  *mnemonic$" &&
	 sed -n 2p "$TMP/t.txt" | grep -q "^# \.\.\.\.\.\.\.\.  \.\.*  " && sed -n 3p "$TMP/t.txt" | grep -qx "#"' ||
	diff "$TMP/t.rows" "$TMP/c.rows" | head -n 5 >&2

# long keys: cut to fit 80 columns, as documented
K=srcline,symbol,module,mnemonic
"$HBBP" -q $B -f table --by $K "$D" > "$TMP/l.txt" 2> /dev/null
"$HBBP" -q $B -f csv --by $K "$D" > "$TMP/l.csv" 2> /dev/null
table_rows "$TMP/l.txt" > "$TMP/l.rows"
csv_rows "$TMP/l.csv" 4 > "$TMP/lc.rows"
wide=$(awk 'length($0) > 80' "$TMP/l.txt" | wc -l)
# each table cell equals the CSV's, or is its cut form: "X.." with X a prefix, "..X" with X
# the suffix of a path
cuts=$(awk -F'\t' 'NR == FNR { t[FNR] = $0; next }
	{ n = split(t[FNR], a, "\t"); if (n != NF) { print "fields"; next }
	  for (i = 1; i <= NF; i++) {
		if (a[i] == $i) continue
		if (a[i] ~ /\.\.$/ && index($i, substr(a[i], 1, length(a[i]) - 2)) == 1) { c++; continue }
		if (a[i] ~ /^\.\./ && $i ~ /^\// && substr($i, length($i) - length(a[i]) + 3) == substr(a[i], 3)) { c++; continue }
		print "row " FNR ": " a[i] " for " $i } }
	END { print c + 0 }' "$TMP/l.rows" "$TMP/lc.rows")
expect "cli_perf_habits: -f table --by $K: $wide lines over 80 columns, keys cut as documented ($cuts)" \
	'[ $wide -eq 0 ] && [ "$(echo "$cuts" | wc -l)" -eq 1 ] && [ "$cuts" -gt 0 ] &&
	 grep -q "^ .*  \.\.[^ ]*:[0-9]*  " "$TMP/l.txt"'

# a terminal gets the table by default; a pipe CSV
if command -v script >/dev/null 2>&1; then
	script -qc "'$HBBP' -q $B '$D'" /dev/null < /dev/null | tr -d '\r' > "$TMP/tty.txt"
	"$HBBP" -q $B "$D" 2> /dev/null | head -n 1 > "$TMP/pipe.txt"
	expect "cli_perf_habits: stdout a terminal: the table by default; a pipe: CSV" \
		'cmp -s "$TMP/tty.txt" "$TMP/t.txt" && grep -qx "module,symbol,mnemonic,count,count_lo,count_hi,share" "$TMP/pipe.txt"'
	script -qc "'$HBBP' -q $B -f csv '$D'" /dev/null < /dev/null | tr -d '\r' > "$TMP/tty.csv"
	expect "cli_perf_habits: stdout a terminal, -f csv: CSV" 'cmp -s "$TMP/tty.csv" "$TMP/t.csv"'
else
	skip "cli_perf_habits: terminal default: script(1) not installed"
fi
