#!/bin/sh
# Stripped binaries: code without a symbol is one function per .eh_frame FDE, named
# sub_<start>. A program whose functions save registers (so that their call frame table has
# several rows) is built and stripped; every function of the unstripped copy (nm: an
# independent oracle) must come out of `hbbp-convert disasm` on the stripped one as
# sub_<its start>, starting a block there, with all its instructions under that one name,
# and the instructions must equal the unstripped listing's (block starts may differ only
# where neither a symbol nor an FDE tells a function starts: crt code).
. "$(dirname "$0")/../lib.sh"
for t in cc nm strip; do
	command -v $t >/dev/null 2>&1 || { skip "disasm_stripped: $t not installed"; exit 0; }
done
cat > "$TMP/p.c" <<'C'
#include <stdlib.h>
__attribute__((noinline)) long mix3(long a, long b, long c, long d, long e)
{
	long r = 0;
	for (long i = 0; i < a; i++)
		r += (b * i) ^ (c + d * e) ^ (r >> 3);
	return r + labs(b - c);
}
__attribute__((noinline)) long mix4(long *v, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += mix3(v[i], i, s, n, v[0]);
	return s;
}
int main(int argc, char **argv)
{
	long v[4] = { argc, 2, 3, 4 };
	return (int)mix4(v, argc > 1 ? atol(argv[1]) : 4);
}
C
if ! cc -O2 -fasynchronous-unwind-tables -o "$TMP/p" "$TMP/p.c" 2>"$TMP/cc.err"; then
	skip "disasm_stripped: cannot build: $(head -1 "$TMP/cc.err")"; exit 0
fi
strip -o "$TMP/p.s" "$TMP/p"
"$HBBP" disasm -f csv "$TMP/p" > "$TMP/full.csv" 2>/dev/null
"$HBBP" disasm -f csv "$TMP/p.s" > "$TMP/strip.csv" 2>/dev/null
ok=1
for f in mix3 mix4 main; do
	a=$(nm "$TMP/p" | awk -v f=$f '$3 == f { sub(/^0+/, "", $1); print $1 }')
	[ -n "$a" ] || { ok=0; echo "no $f in nm" >&2; continue; }
	# the instructions the full listing puts under f: all under sub_<a> when stripped
	want=$(awk -F, -v f=$f '$NF == f' "$TMP/full.csv" | wc -l)
	got=$(awk -F, -v s=sub_$a '$NF == s' "$TMP/strip.csv" | wc -l)
	first=$(awk -F, -v s=sub_$a '$NF == s { print $1, $(NF - 1); exit }' "$TMP/strip.csv")
	if [ "$want" -gt 3 ] && [ "$want" = "$got" ] && [ "$first" = "0x$a 1" ]; then :; else
		ok=0; echo "$f at $a: $want instructions, stripped sub_$a has $got, first '$first'" >&2
	fi
done
check "disasm_stripped: mix3, mix4, main are whole sub_<start> functions when stripped" test $ok = 1
check "disasm_stripped: the same instructions with and without symbols" \
	sh -c "cut -d, -f1-10 '$TMP/full.csv' > '$TMP/a'; cut -d, -f1-10 '$TMP/strip.csv' > '$TMP/b'; cmp -s '$TMP/a' '$TMP/b'"
