# Lazy regions (BBMAP_MODULE_LAZY_INSNS, what the conversion uses) against whole decoding,
# which module_objdump.sh and module_hotloop.sh hold to objdump: the same blocks, the same
# instructions with every attribute and source line, and the same counters, on every
# function of libc, ld.so and libstdc++ (every third), with leaders added inside blocks
# first, and block by block through block_at (-Q).
. "$(dirname "$0")/../lib.sh"
DUMP=$BUILD/tools/bbmap_dump
n=0
for lib in /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2 \
	   /usr/lib/x86_64-linux-gnu/libstdc++.so.6; do
	[ -f "$lib" ] || { skip "module_lazy: $lib not installed"; continue; }
	base=$(basename "$lib")
	step=1
	case $base in libstdc++*) step=3 ;; esac
	"$DUMP" "$lib" -s $step > "$TMP/$base.eager"
	"$DUMP" "$lib" -s $step -z > "$TMP/$base.lazy"
	ni=$(grep -c '^I ' "$TMP/$base.eager")
	expect "module_lazy: $base: $ni instructions, lazy the same as whole" \
		'[ "$ni" -gt 10000 ] && cmp -s "$TMP/$base.eager" "$TMP/$base.lazy"'
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
	nq=$(grep -c ' ok ' "$TMP/$base.qeager")
	expect "module_lazy: $base: block_at on $nq scattered addresses, lazy the same" \
		'[ "$nq" -gt 1000 ] && cmp -s "$TMP/$base.qeager" "$TMP/$base.qlazy"'
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
