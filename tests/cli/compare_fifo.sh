#!/bin/sh
# compare opens only regular files named inside a reference: a callgrind profile whose ob=
# and fl= name a FIFO (which no one writes: opening it would wait forever) or a character
# device is compared within 10 s with a warning naming the path, the reference's counts
# kept under the unknown key.
. "$(dirname "$0")/../lib.sh"
command -v timeout > /dev/null || { skip "compare_fifo: timeout not installed"; exit 0; }
mkfifo "$TMP/fifo"
printf 'symbol,mnemonic,count\nfoo,xor,1\n' > "$TMP/one.csv"
for obj in "$TMP/fifo" /dev/zero; do
	cat > "$TMP/r.cg" <<EOF2
# callgrind format
version: 1
creator: compare_fifo.sh
positions: instr
events: Ir
ob=$obj
fl=$obj
fn=foo
0x1000 5
0x1004 7
EOF2
	timeout 10 "$HBBP" compare --ref "$TMP/r.cg" --by symbol,mnemonic -o "$TMP/o.csv" \
		"$TMP/one.csv" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	grep -q "$obj: named in the reference, but not a regular file" "$TMP/err" ||
		rc="$rc, no warning"
	grep -q '^\[unknown\],\[unknown\] *12 ' "$TMP/out" || rc="$rc, not 12 unknown executions"
	check "compare_fifo: ob= $obj: not opened, done in time with a warning (status $rc)" \
		[ "$rc" = 0 ]
done
