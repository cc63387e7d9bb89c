#!/bin/sh
# --diagnostics counts the blocks with data ("blocks with data: N (M in decoded code)"), what
# the attribution's and the mix's memory grows with: N is the number of rows of the blocks
# table the same run writes to SQLite (one per block with data, made by another path), M at
# most N and, on the bundled demo recording whose binary is there, more than none.
. "$(dirname "$0")/../lib.sh"

if ! command -v sqlite3 > /dev/null 2>&1; then
	skip "convert_diag_blocks: sqlite3 not installed"
	exit 0
fi
D=$ROOT/samples/demo/perf.data
if ! "$HBBP" --diagnostics -o "$TMP/d.sqlite" "$D" > /dev/null 2> "$TMP/err"; then
	fail "convert_diag_blocks: the conversion failed"; cat "$TMP/err" >&2
	exit 0
fi
line=$(grep '^  blocks with data: ' "$TMP/err")
n=$(echo "$line" | sed -n 's/^  blocks with data: \([0-9]*\) (\([0-9]*\) in decoded code)$/\1/p')
m=$(echo "$line" | sed -n 's/^  blocks with data: \([0-9]*\) (\([0-9]*\) in decoded code)$/\2/p')
rows=$(sqlite3 "$TMP/d.sqlite" "SELECT COUNT(*) FROM blocks")
expect "convert_diag_blocks: the line is there ($line)" '[ -n "$n" ] && [ -n "$m" ]'
expect "convert_diag_blocks: blocks with data $n = rows of the blocks table $rows" \
	'[ -n "$n" ] && [ "$n" = "$rows" ]'
expect "convert_diag_blocks: 0 < in decoded code $m <= $n" \
	'[ -n "$m" ] && [ "$m" -gt 0 ] && [ "$m" -le "$n" ]'
