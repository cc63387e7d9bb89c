#!/bin/sh
# The decode cache (bbmap/disasm_zydis.c: x86-64 instructions found by their bytes when no
# operand text is asked for) against decoding every instruction (tests/tools/zydis_cachecmp):
# 32-byte windows at every byte offset of the first 512 KiB of libc, at two addresses, and
# of half a million random bytes; each instruction the same with and without the cache
# (attributes, and a direct branch's target at its own address), most from the cache.
. "$(dirname "$0")/../lib.sh"
CMP=$BUILD/tools/zydis_cachecmp
if [ ! -x "$CMP" ]; then skip "zydis_cache: $CMP not built (make check-build)"; exit 0; fi
set --
[ -f /lib/x86_64-linux-gnu/libc.so.6 ] && set -- /lib/x86_64-linux-gnu/libc.so.6
out=$("$CMP" -n 524288 -r 500000 "$@" 2>&1); rc=$?
echo "$out" | head -5 >&2
n=$(echo "$out" | sed -n 's/^\([0-9]*\) instructions, .*/\1/p')
h=$(echo "$out" | sed -n 's/^[0-9]* instructions, \([0-9]*\) from the cache.*/\1/p')
expect "zydis_cache: $(echo "$out" | tail -n 1) ($# libraries and random bytes)" \
	'[ "$rc" = 0 ] && [ "${n:-0}" -gt 1000000 ] && [ $((2 * ${h:-0})) -gt "$n" ]'
