#!/bin/sh
# One meaning per column name in the store's block_detail view: module is the short name
# (as in mix_by_function and the CSV; the file in module_path), and a block carries its
# executions and the instructions they ran (executions x length) apart, each with its
# interval; a block without code has no executions and its weight in instructions. On the
# golden recording (tests/cli/golden_lib.sh) the instructions sum to the hand-computed total
# 11010 (golden_hbbp.sh: incs 8605 + control 980 + the rest 1425), of which [no code] is 500
# and [unmapped] 300.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/golden_lib.sh"

[ $golden_ok = 1 ] && golden_setup
if [ $golden_ok != 1 ]; then skip "store_block_detail: $golden_why"; exit 0; fi
if ! command -v sqlite3 >/dev/null 2>&1; then skip "store_block_detail: sqlite3 not installed"; exit 0; fi
golden_spec "$TMP/g.spec"
run_perfgen "$TMP/g.spec" "$TMP/g.data" 2> /dev/null || { fail "store_block_detail: perfgen"; exit 0; }
"$HBBP" -q "$TMP/g.data" --binary "/golden/prog=$PROG" -o "$TMP/g.sqlite" 2> /dev/null
q() { sqlite3 "$TMP/g.sqlite" "$1" 2> /dev/null; }

total=$(q "SELECT printf('%.0f', SUM(instructions)) FROM block_detail")
nocode=$(q "SELECT printf('%.0f', SUM(instructions)) FROM block_detail WHERE executions IS NULL")
bad_x=$(q "SELECT COUNT(*) FROM block_detail WHERE length IS NOT NULL AND
	(abs(instructions - executions * length) > 1e-6 * instructions OR
	 abs(instructions_lo - executions_lo * length) > 1e-6 * instructions OR
	 abs(instructions_hi - executions_hi * length) > 1e-6 * instructions)")
expect "store_block_detail: instructions sum to 11010 by hand, 800 without code ($total, $nocode), = executions x length ($bad_x off)" \
	'[ "$total" = 11010 ] && [ "$nocode" = 800 ] && [ "$bad_x" = 0 ]'
paths=$(q "SELECT COUNT(*) FROM block_detail WHERE module LIKE '%/%'")
mods=$(q "SELECT DISTINCT module FROM block_detail WHERE module_path IS NOT NULL ORDER BY 1")
fmods=$(q "SELECT DISTINCT module FROM mix_by_function WHERE module <> '[unmapped]' AND module IN
	(SELECT module FROM block_detail WHERE module_path IS NOT NULL) ORDER BY 1")
expect "store_block_detail: module is the short name ($paths paths; '$mods'), as mix_by_function's" \
	'[ "$paths" = 0 ] && [ "$mods" = prog ] && [ "$fmods" = prog ]'
