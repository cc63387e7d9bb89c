#!/bin/sh
# The operand text disasm and annotate show is written by bbmap/zydis_text.c in one pass over
# the decoded operands; it must equal what Zydis's own Intel formatter (set up as objdump -M
# intel writes: sizes shown, lowercase hex, no padding) makes of the same instruction. Compared
# by tools/zydis_textcmp on every instruction of a linear sweep over this machine's libc,
# libm, libstdc++ and ld.so (AVX-512, AVX2, x87, string and far forms), and on random bytes
# biased to prefixes, VEX, EVEX, MVEX, 0F escapes and far pointers, in 64- and 32-bit mode.
. "$(dirname "$0")/../lib.sh"
CMP=$BUILD/tools/zydis_textcmp
if [ ! -x "$CMP" ]; then fail "disasm_operand_text: $CMP not built"; exit 0; fi
n=0
for lib in libc.so.6 libm.so.6 libstdc++.so.6 ld-linux-x86-64.so.2; do
	bin=""
	for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64; do
		[ -f "$d/$lib" ] && { bin=$d/$lib; break; }
	done
	[ -n "$bin" ] || continue
	n=$((n + 1))
	out=$("$CMP" "$bin" 2>"$TMP/err")
	case $out in
	PASS*) pass "disasm_operand_text $lib: ${out#PASS: }" ;;
	*) fail "disasm_operand_text $lib: $out"; head -12 "$TMP/err" >&2 ;;
	esac
done
[ $n = 0 ] && skip "disasm_operand_text: no libc, libm, libstdc++ or ld.so found"
out=$("$CMP" -r 300000 20261125 2>"$TMP/err")
case $out in
PASS*) pass "disasm_operand_text: random bytes, 64- and 32-bit mode: ${out#PASS: }" ;;
*) fail "disasm_operand_text: random bytes: $out"; head -12 "$TMP/err" >&2 ;;
esac
