# Lazy regions (BBMAP_MODULE_LAZY_INSNS, what the conversion uses) against whole decoding,
# which module_objdump.sh and module_hotloop.sh hold to objdump: the same blocks, the same
# instructions with every attribute and source line, and the same counters, on every
# function of libc, ld.so and libstdc++ (every third), with leaders added inside blocks
# first, and block by block through block_at (-Q), also with the instructions dropped
# after each block (bbmap_module__drop_insns) and with the whole code dropped after each
# block (bbmap_module__drop_code). Each block's end_flags and may_be_bad
# against its instructions as the full decoder lists them.
. "$(dirname "$0")/../lib.sh"
DUMP=$BUILD/tools/bbmap_dump
# blocks_wrong DUMP: "W N": of the N blocks of a dump with -e, W whose end= is not the
# transfer flags (bits 0-5, 10) of the last instruction when it has BRANCH (bit 0), else 0,
# or whose bad= is not whether an instruction has BAD (bit 9)
blocks_wrong() {
	awk 'function hex(s,  i, v) { v = 0; for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
		function bit(v, k) { return int(v / 2 ^ k) % 2 }
		function flush() { if (nb && (want_end != got_end || want_bad != got_bad)) bad++ }
		/^B / { flush(); nb++; split($5, e, "="); got_end = e[2]; split($6, b, "="); got_bad = b[2]
			want_bad = 0; want_end = "0"; next }
		/^I / { f = hex($4); want_end = bit(f, 0) ? sprintf("%x", f % 64 + bit(f, 10) * 1024) : "0"
			if (bit(f, 9)) want_bad = 1 }
		END { flush(); print bad + 0 " " nb + 0 }' "$1"
}
n=0
for lib in /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2 \
	   /usr/lib/x86_64-linux-gnu/libstdc++.so.6; do
	[ -f "$lib" ] || { skip "module_lazy: $lib not installed"; continue; }
	base=$(basename "$lib")
	step=1
	case $base in libstdc++*) step=3 ;; esac
	"$DUMP" "$lib" -s $step > "$TMP/$base.eager"
	"$DUMP" "$lib" -s $step -z > "$TMP/$base.lazy"
	"$DUMP" "$lib" -s $step -t > "$TMP/$base.eagert"
	"$DUMP" "$lib" -s $step -z -n -t > "$TMP/$base.lazyn"
	ni=$(grep -c '^I ' "$TMP/$base.eager")
	nt=$(grep -c ' ->' "$TMP/$base.eagert")
	expect "module_lazy: $base: $ni instructions, lazy the same as whole (also without operand text as the conversion opens it: the same $nt branch targets)" \
		'[ "$ni" -gt 10000 ] && [ "$nt" -gt 1000 ] && cmp -s "$TMP/$base.eager" "$TMP/$base.lazy" &&
		 cmp -s "$TMP/$base.eagert" "$TMP/$base.lazyn"'
	# lazy: end= and bad= from the outline alone, the I lines from the full decoder
	"$DUMP" "$lib" -s $step -e > "$TMP/$base.eagere"
	"$DUMP" "$lib" -s $step -e -z > "$TMP/$base.lazye"
	wrong=$(blocks_wrong "$TMP/$base.lazye")
	expect "module_lazy: $base: end_flags and may_be_bad of every block (lazy) as its instructions say (wrong, blocks: $wrong)" \
		'[ "${wrong%% *}" = 0 ] && [ "${wrong#* }" -gt 1000 ] && cmp -s "$TMP/$base.eagere" "$TMP/$base.lazye"'
	# leaders inside blocks (every 97th instruction that does not start a block)
	awk '/^B / { first = 1; next } /^I / { if (!first && ++k % 97 == 0) print $2; first = 0 }' \
		"$TMP/$base.eager" | head -200 > "$TMP/$base.g"
	set --
	while read -r a; do set -- "$@" -g "$a"; done < "$TMP/$base.g"
	ng=$(($# / 2))
	"$DUMP" "$lib" -s $step "$@" > "$TMP/$base.geager"
	"$DUMP" "$lib" -s $step -z "$@" > "$TMP/$base.glazy"
	nb=$(grep -c '^B ' "$TMP/$base.eager"); nbg=$(grep -c '^B ' "$TMP/$base.geager")
	expect "module_lazy: $base: $ng leaders split blocks ($nb -> $nbg), lazy the same" \
		'[ "$ng" -ge 80 ] && [ "$nbg" -gt "$nb" ] && cmp -s "$TMP/$base.geager" "$TMP/$base.glazy"'
	# block_at on instruction addresses in a scattered order, each block filled on its own
	awk '/^I / && ++k % 13 == 0 { print $2 }' "$TMP/$base.eager" | sort -R --random-source="$lib" |
		head -3000 > "$TMP/$base.q"
	"$DUMP" "$lib" -Q < "$TMP/$base.q" > "$TMP/$base.qeager"
	"$DUMP" "$lib" -Q -z < "$TMP/$base.q" > "$TMP/$base.qlazy"
	"$DUMP" "$lib" -Q -z -x < "$TMP/$base.q" > "$TMP/$base.qdrop"
	nq=$(grep -c ' ok ' "$TMP/$base.qeager")
	expect "module_lazy: $base: block_at on $nq scattered addresses, lazy the same (kept and dropped)" \
		'[ "$nq" -gt 1000 ] && cmp -s "$TMP/$base.qeager" "$TMP/$base.qlazy" && cmp -s "$TMP/$base.qeager" "$TMP/$base.qdrop"'
	# the whole code dropped after each block (bbmap_module__drop_code): the same blocks and
	# instructions, each region decoded again (more regions counted than decoded once)
	"$DUMP" "$lib" -Q -z -X < "$TMP/$base.q" > "$TMP/$base.qfree"
	r1=$(sed -n 's/^S .* regions=\([0-9]*\) .*/\1/p' "$TMP/$base.qeager")
	r2=$(sed -n 's/^S .* regions=\([0-9]*\) .*/\1/p' "$TMP/$base.qfree")
	grep -v '^S ' "$TMP/$base.qeager" > "$TMP/$base.qeager.q"
	grep -v '^S ' "$TMP/$base.qfree" > "$TMP/$base.qfree.q"
	expect "module_lazy: $base: block_at after the code is dropped, the same $nq blocks (regions decoded: $r1 kept, $r2 dropped)" \
		'[ "$nq" -gt 1000 ] && cmp -s "$TMP/$base.qeager.q" "$TMP/$base.qfree.q" && [ "$r1" -gt 0 ] && [ "$r2" -gt "$r1" ]'
	n=$((n + 1))
done
# source lines: a program compiled here with -g
if command -v cc >/dev/null && cc -O2 -g -o "$TMP/hl" "$ROOT/tests/data/hotloop.c" 2>/dev/null; then
	"$DUMP" "$TMP/hl" -l > "$TMP/hl.eager"
	"$DUMP" "$TMP/hl" -l -z > "$TMP/hl.lazy"
	nl=$(grep -c '^I .*hotloop.c:[0-9]' "$TMP/hl.eager")
	expect "module_lazy: hotloop -g: $nl instructions with lines, lazy the same" \
		'[ "$nl" -gt 20 ] && cmp -s "$TMP/hl.eager" "$TMP/hl.lazy"'
else
	skip "module_lazy: cannot compile tests/data/hotloop.c"
fi
# an undecodable byte (0x06 in 64-bit mode, tests/data/undecodable.S): its block says so
if command -v cc >/dev/null && cc -nostdlib -static -o "$TMP/bad" "$ROOT/tests/data/undecodable.S" 2>/dev/null; then
	"$DUMP" "$TMP/bad" -e -z > "$TMP/bad.lazye"
	wrong=$(blocks_wrong "$TMP/bad.lazye")
	nbad=$(grep -c '^B .* bad=1$' "$TMP/bad.lazye")
	expect "module_lazy: undecodable.S: $nbad block(s) say may_be_bad, end_flags and may_be_bad right (wrong, blocks: $wrong)" \
		'[ "$nbad" -ge 1 ] && [ "${wrong%% *}" = 0 ]'
else
	skip "module_lazy: cannot assemble tests/data/undecodable.S"
fi
