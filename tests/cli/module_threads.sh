# A module's code decoded on threads against one thread, on libc, libstdc++ and gcc's
# stripped cc1 (FDE pseudo symbols and windows of code with no function), with 2 and 3
# threads:
#  - leaders (bbmap_module__add_leaders, what the conversion uses for a big program) against
#    add_leader one by one: the same block at every leader and the same counters (regions,
#    blocks, leaders, misaligned leaders, windows, instructions). The leaders: instruction
#    starts found among random addresses of the code, in a random order, and addresses that
#    were no instruction start (most of them are counted as misaligned; some start a window
#    of code with no function).
#  - blocks decoded in full (bbmap_module__fill_blocks, the mix): every instruction of the
#    blocks at those addresses with every attribute, and with source lines on a program
#    compiled with -g, as block_at decodes them one by one.
. "$(dirname "$0")/../lib.sh"
DUMP=$BUILD/tools/bbmap_dump
cc1=$(gcc -print-prog-name=cc1 2>/dev/null)
for bin in /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libstdc++.so.6 "$cc1"; do
	[ -f "$bin" ] || { skip "module_threads: $bin not installed"; continue; }
	base=$(basename "$bin")
	# random addresses of .text
	set -- $(readelf -SW "$bin" | awk '$2 == ".text" { print $4, $6 }')
	[ $# = 2 ] || { fail "module_threads: $base: no .text section"; continue; }
	awk -v s=$((0x$1)) -v n=$((0x$2)) 'BEGIN { srand(7)
		for (i = 0; i < 6000; i++) printf "%x\n", s + int(rand() * n) }' > "$TMP/$base.r"
	# the instruction starts among them, and 400 that are not, shuffled
	"$DUMP" "$bin" -z -Q < "$TMP/$base.r" | awk '$1 == "Q" && $4 == "ok" { print $2 }' > "$TMP/$base.ok"
	{ cat "$TMP/$base.ok"; grep -vxF -f "$TMP/$base.ok" "$TMP/$base.r" | head -400; } |
		sort -R --random-source="$bin" > "$TMP/$base.l"
	nok=$(wc -l < "$TMP/$base.ok"); nl=$(wc -l < "$TMP/$base.l")
	"$DUMP" "$bin" -z -G "$TMP/$base.l" -Q < "$TMP/$base.l" > "$TMP/$base.j1"
	"$DUMP" "$bin" -z -G "$TMP/$base.l" -j 2 -Q < "$TMP/$base.l" > "$TMP/$base.j2"
	"$DUMP" "$bin" -z -G "$TMP/$base.l" -j 3 -Q < "$TMP/$base.l" > "$TMP/$base.j3"
	stats=$(grep '^S ' "$TMP/$base.j1")
	lead=$(echo "$stats" | sed 's/.* leaders=\([0-9]*\).*/\1/')
	mis=$(echo "$stats" | sed 's/.* misaligned=\([0-9]*\).*/\1/')
	expect "module_threads: $base: $nl leaders ($nok instruction starts) on threads as one by one ($stats)" \
		'[ "$nok" -gt 300 ] && [ "$lead" -gt 100 ] && [ "$mis" -ge 250 ] &&
		 cmp -s "$TMP/$base.j1" "$TMP/$base.j2" && cmp -s "$TMP/$base.j1" "$TMP/$base.j3"'
	# blocks decoded in full on threads, after the leaders on threads
	"$DUMP" "$bin" -z -G "$TMP/$base.l" -j 2 -Q -I < "$TMP/$base.l" > "$TMP/$base.i1"
	"$DUMP" "$bin" -z -G "$TMP/$base.l" -j 2 -F -Q -I < "$TMP/$base.l" > "$TMP/$base.i2"
	"$DUMP" "$bin" -z -G "$TMP/$base.l" -j 3 -F -Q -I < "$TMP/$base.l" > "$TMP/$base.i3"
	ni=$(grep -c '^I ' "$TMP/$base.i1")
	expect "module_threads: $base: $ni instructions of the blocks at the leaders decoded on threads as one by one" \
		'[ "$ni" -gt 2000 ] && cmp -s "$TMP/$base.i1" "$TMP/$base.i2" && cmp -s "$TMP/$base.i1" "$TMP/$base.i3"'
done
# source lines: the blocks of a program compiled here with -g, decoded on threads
if command -v cc >/dev/null && cc -O2 -g -I"$ROOT" -o "$TMP/interp" "$ROOT/samples/workloads/interp.c" 2>/dev/null; then
	set -- $(readelf -SW "$TMP/interp" | awk '$2 == ".text" { print $4, $6 }')
	awk -v s=$((0x$1)) -v n=$((0x$2)) 'BEGIN { srand(3)
		for (i = 0; i < 3000; i++) printf "%x\n", s + int(rand() * n) }' > "$TMP/interp.r"
	"$DUMP" "$TMP/interp" -l -z -Q -I < "$TMP/interp.r" > "$TMP/interp.1"
	"$DUMP" "$TMP/interp" -l -z -j 2 -F -Q -I < "$TMP/interp.r" > "$TMP/interp.2"
	nl=$(grep -c '^I .*interp.c:[0-9]' "$TMP/interp.1")
	expect "module_threads: interp -g: $nl instructions with source lines decoded on threads as one by one" \
		'[ "$nl" -gt 500 ] && cmp -s "$TMP/interp.1" "$TMP/interp.2"'
else
	skip "module_threads: cannot compile samples/workloads/interp.c"
fi
