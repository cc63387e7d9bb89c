#!/bin/sh
# tests/tools/blocklen (the representativeness measure of bench/blocklen.sh and make accuracy):
# on a hand-written static program whose blocks are known by hand, the share of executed
# instructions in blocks longer than the cutoff, from pmusim --truth-insns, must be exact.
# Blocks: _start's `mov` (1 insn, once), a loop of 20 nops + dec + jnz (22 insns, 10 times:
# the loop target makes it a block of its own), `mov` (1, once), a loop nop + dec + jnz (3, 5
# times), the exit block (3, once): 240 instructions, 220 of them in the one block > 18.
. "$(dirname "$0")/../lib.sh"
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
BL=$BUILD/tools/blocklen
for t in qemu-x86_64 cc; do
	command -v $t >/dev/null 2>&1 || { skip "accuracy_blocklen: $t not installed"; exit 0; }
done
[ -x "$PMUSIM" ] || { fail "accuracy_blocklen: $PMUSIM not built"; exit 0; }
[ -x "$BL" ] || { fail "accuracy_blocklen: $BL not built"; exit 0; }
{
	printf '\t.text\n\t.globl _start\n_start:\n\tmov $10, %%ecx\nlong:\n'
	i=0
	while [ $i -lt 20 ]; do printf '\tnop\n'; i=$((i + 1)); done
	printf '\tdec %%ecx\n\tjnz long\n\tmov $5, %%ecx\nshort:\n\tnop\n\tdec %%ecx\n\tjnz short\n'
	printf '\tmov $60, %%eax\n\txor %%edi, %%edi\n\tsyscall\n'
} > "$TMP/bl.S"
if ! cc -nostdlib -static -o "$TMP/bl" "$TMP/bl.S" 2>"$TMP/cc.err"; then
	fail "accuracy_blocklen: cannot assemble"; cat "$TMP/cc.err" >&2; exit 0
fi
if ! "$PMUSIM" --truth-insns "$TMP/bl.csv" -- "$TMP/bl" >/dev/null 2>"$TMP/p.err"; then
	fail "accuracy_blocklen: pmusim failed"; cat "$TMP/p.err" >&2; exit 0
fi
out=$("$BL" "$TMP/bl.csv")
check "accuracy_blocklen: cutoff 18: $out" \
	test "$out" = "total 240 long 220 share 91.67% blocks 5 long-blocks 1 unmapped 0"
out=$("$BL" -c 21 "$TMP/bl.csv")
check "accuracy_blocklen: cutoff 21 counts the 22-instruction block ($out)" \
	test "$out" = "total 240 long 220 share 91.67% blocks 5 long-blocks 1 unmapped 0"
out=$("$BL" -c 22 "$TMP/bl.csv")
check "accuracy_blocklen: cutoff 22 does not ($out)" \
	test "$out" = "total 240 long 0 share 0.00% blocks 5 long-blocks 0 unmapped 0"
out=$("$BL" -c 2 "$TMP/bl.csv")
check "accuracy_blocklen: cutoff 2: all but the two 1-instruction blocks ($out)" \
	test "$out" = "total 240 long 238 share 99.17% blocks 5 long-blocks 3 unmapped 0"
