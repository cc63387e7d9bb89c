#!/bin/sh
# One meaning per column name for blocks. A mix with a block key carries each block's length
# and executions beside its count (instructions: executions x length), empty for weight
# without code; with an instruction key too, the executions are the block's, not the row's
# count. Hand-computed on the golden recording (tests/cli/golden_hbbp.sh): b19 (19
# instructions) 3800 = 200 x 19, b18 (18) 3600 = 200 x 18, c's blocks 2 instructions x 10 and
# 4 x 35 (its 3 inc 105, its ret 35). The store's block_detail view: module is the short name
# (as in mix_by_function and the CSV; the file in module_path), and a block carries its
# executions and the instructions they ran (executions x length) apart, each with its
# interval; a block without code has no executions and its weight in instructions. On the
# golden recording (tests/cli/golden_lib.sh) the instructions sum to the hand-computed total
# 11010 (golden_hbbp.sh: incs 8605 + control 980 + the rest 1425), of which [no code] is 500
# and [unmapped] 300.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/golden_lib.sh"

[ $golden_ok = 1 ] && golden_setup
if [ $golden_ok != 1 ]; then skip "block_columns: $golden_why"; exit 0; fi
if ! command -v sqlite3 >/dev/null 2>&1; then skip "block_columns: sqlite3 not installed"; exit 0; fi
golden_spec "$TMP/g.spec"
run_perfgen "$TMP/g.spec" "$TMP/g.data" 2> /dev/null || { fail "block_columns: perfgen"; exit 0; }
"$HBBP" -q "$TMP/g.data" --binary "/golden/prog=$PROG" -o "$TMP/g.sqlite" 2> /dev/null
conv() { "$HBBP" -q "$TMP/g.data" --binary "/golden/prog=$PROG" -f csv "$@" 2> /dev/null; }
blk() { printf 'prog+%s' "$1"; }

conv --by block > "$TMP/b.csv"
conv --by block,mnemonic > "$TMP/bm.csv"
expect "block_columns: --by block: count, length and executions by hand" \
	'head -n 1 "$TMP/b.csv" | grep -qx "block,count,count_lo,count_hi,share,length,executions" &&
	 grep -q "^$(blk $B19),3800,.*,19,200$" "$TMP/b.csv" && grep -q "^$(blk $B18),3600,.*,18,200$" "$TMP/b.csv" &&
	 grep -q "^$(blk $C),20,.*,2,10$" "$TMP/b.csv" && grep -q "^$(blk $C_MID),140,.*,4,35$" "$TMP/b.csv" &&
	 grep -q "^other+0x0,500,.*,,$" "$TMP/b.csv" && grep -q "^\[unmapped\],300,.*,,$" "$TMP/b.csv"'
expect "block_columns: --by block,mnemonic: the executions of the block on each row" \
	'grep -q "^$(blk $C_MID),inc,105,.*,4,35$" "$TMP/bm.csv" && grep -q "^$(blk $C_MID),ret,35,.*,4,35$" "$TMP/bm.csv"'

q() { sqlite3 "$TMP/g.sqlite" "$1" 2> /dev/null; }

total=$(q "SELECT printf('%.0f', SUM(instructions)) FROM block_detail")
nocode=$(q "SELECT printf('%.0f', SUM(instructions)) FROM block_detail WHERE executions IS NULL")
bad_x=$(q "SELECT COUNT(*) FROM block_detail WHERE length IS NOT NULL AND
	(abs(instructions - executions * length) > 1e-6 * instructions OR
	 abs(instructions_lo - executions_lo * length) > 1e-6 * instructions OR
	 abs(instructions_hi - executions_hi * length) > 1e-6 * instructions)")
expect "block_columns: instructions sum to 11010 by hand, 800 without code ($total, $nocode), = executions x length ($bad_x off)" \
	'[ "$total" = 11010 ] && [ "$nocode" = 800 ] && [ "$bad_x" = 0 ]'
paths=$(q "SELECT COUNT(*) FROM block_detail WHERE module LIKE '%/%'")
mods=$(q "SELECT DISTINCT module FROM block_detail WHERE module_path IS NOT NULL ORDER BY 1")
fmods=$(q "SELECT DISTINCT module FROM mix_by_function WHERE module <> '[unmapped]' AND module IN
	(SELECT module FROM block_detail WHERE module_path IS NOT NULL) ORDER BY 1")
expect "block_columns: module is the short name ($paths paths; '$mods'), as mix_by_function's" \
	'[ "$paths" = 0 ] && [ "$mods" = prog ] && [ "$fmods" = prog ]'
