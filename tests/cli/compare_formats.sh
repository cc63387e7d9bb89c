#!/bin/sh
# compare reads every output format hbbp-convert writes: the bundled demo recording
# (samples/demo, made by pmusim, with its exact mix truth.csv) converted to CSV, JSON, JSON
# Lines and SQLite gives the same per-mnemonic comparison against the truth from each, and
# the CSV mix compared with its SQLite twin has no error.
. "$(dirname "$0")/../lib.sh"
D=$ROOT/samples/demo
if [ ! -f "$D/perf.data" ] || [ ! -f "$D/truth.csv" ] || [ ! -f "$D/vector" ]; then
	skip "compare_formats: samples/demo not present"; exit 0
fi
for f in csv json jsonl db; do
	"$HBBP" -q --binary vector="$D/vector" --by mnemonic -o "$TMP/mix.$f" "$D/perf.data" ||
		{ fail "compare_formats: conversion to $f failed"; exit 0; }
	"$HBBP" compare --ref "$D/truth.csv" -o "$TMP/cmp.$f.csv" "$TMP/mix.$f" > "$TMP/out.$f" 2>&1
done
w=$(tail -n 1 "$TMP/out.csv")
same=yes
for f in json jsonl db; do
	[ "$(tail -n 1 "$TMP/out.$f")" = "$w" ] || same=no
	# same keys and reference counts; measured counts equal up to rounding in the last bits
	# (the estimate's sums may be added in another order from one conversion to the next)
	awk -F, 'NR == FNR { r[$1] = $6; m[$1] = $7; n++; next }
		{ k++; d = $7 - m[$1]; if (d < 0) d = -d
		  if (!($1 in r) || r[$1] != $6 || d > 1e-9 * ($7 + 1)) bad = 1 }
		END { exit bad || k != n }' "$TMP/cmp.csv.csv" "$TMP/cmp.$f.csv" || same=no
done
check "compare_formats: CSV, JSON, JSON Lines and SQLite mixes compare alike against the truth ($w)" \
	test "$same" = yes -a -n "$w"
"$HBBP" compare --ref "$TMP/mix.csv" "$TMP/mix.db" > "$TMP/self" 2>&1
check "compare_formats: a mix against itself (CSV vs SQLite) has no error" \
	test "$(tail -n 1 "$TMP/self")" = "average weighted error 0.00%"

# a key our CSV defused for spreadsheets ("'-bash", "'=cmd": writers/SCHEMA.md) reads back as
# its text: the CSV mix of command names starting with - and = equals its JSON twin
GEN=$BUILD/tools/perfgen
if [ -x "$GEN" ]; then
	cat > "$TMP/f.spec" <<'SPEC'
event name=instructions sample_type=ip,tid,time,period period=1000
comm pid=7 tid=7 name=-bash time=1
sample pid=7 tid=7 ip=0x401000 time=10
sample pid=7 tid=7 ip=0x401000 time=11
comm pid=8 tid=8 name==cmd time=1
sample pid=8 tid=8 ip=0x401000 time=12
SPEC
	"$GEN" "$TMP/f.spec" "$TMP/f.data" > /dev/null
	"$HBBP" -q --by comm -o "$TMP/f.csv" "$TMP/f.data" 2> /dev/null
	"$HBBP" -q --by comm -o "$TMP/f.json" "$TMP/f.data" 2> /dev/null
	"$HBBP" compare --by comm --ref "$TMP/f.json" "$TMP/f.csv" > "$TMP/f.out" 2>&1
	expect "compare_formats: defused CSV cells ('-bash, '=cmd) equal their JSON text" \
		'grep -q "^\"'"'"'-bash\",2000," "$TMP/f.csv" &&
		 grep -q "^keys: 2 compared, 0 only in the reference" "$TMP/f.out" &&
		 [ "$(tail -n 1 "$TMP/f.out")" = "average weighted error 0.00%" ]'
else
	fail "compare_formats: $GEN not built"
fi
