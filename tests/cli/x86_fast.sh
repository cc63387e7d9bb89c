# The outline of the commonest x86-64 instructions without Zydis (bbmap/x86_fast.c) against
# Zydis's outline at every byte offset of libc and libstdc++ (code, data and all: each offset
# starts another byte sequence) and of 2 million random bytes biased to the prefixes and
# opcodes it knows (tests/tools/x86_fastcmp): where it decides an instruction, Zydis decodes
# the same length, control-transfer flags and branch target. module_lazy.sh holds the
# conversion's outline to the full decoder on whole libraries.
. "$(dirname "$0")/../lib.sh"
CMP=$BUILD/tools/x86_fastcmp
set --
for f in /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libstdc++.so.6; do
	[ -f "$f" ] && set -- "$@" "$f"
done
out=$("$CMP" -r 2000000 "$@" 2>&1); rc=$?
echo "$out" | head -5 >&2
dec=$(echo "$out" | sed -n 's/^decided \([0-9]*\) of.*/\1/p')
expect "x86_fast: $(echo "$out" | tail -n 1) ($# libraries and random bytes)" \
	'[ "$rc" = 0 ] && [ "${dec:-0}" -gt 1000000 ]'
