# A test program compiled here (cc -O2 -g -no-pie): its hot loop's blocks, lengths,
# mnemonics and source lines against objdump -d -l (an independent disassembler and line
# reader); the load bias against objdump -F; the same function stripped (.eh_frame
# pseudo symbol, same blocks) and with a .gnu_debuglink debug file (names and lines back).
. "$(dirname "$0")/../lib.sh"
DUMP=$BUILD/tools/bbmap_dump
SRC=$ROOT/tests/data/hotloop.c
for t in cc objdump nm strip objcopy; do
	command -v $t >/dev/null || { skip "module_hotloop: $t not installed"; exit 0; }
done
if ! cc -O2 -g -no-pie -o "$TMP/hl" "$SRC" 2>"$TMP/cc.err"; then
	skip "module_hotloop: cannot compile $SRC"; exit 0
fi
addr=$(nm "$TMP/hl" | awk '$3 == "hot_loop" { sub(/^0+/, "", $1); print $1 }')

# The oracle, from objdump: "addr mnemonic file:line" per instruction, and the blocks by
# method.md §3: leaders are the function start, every branch target inside the function
# and the instruction after every branch; a block's length is its instruction count.
objdump -d -l -M intel --no-show-raw-insn --disassemble=hot_loop "$TMP/hl" | awk '
	/^\/.*:[0-9]+/ { split($1, a, " "); loc = a[1]; next }
	/^ +[0-9a-f]+:\t/ {
		addr = $1; sub(/:$/, "", addr)
		i = 2
		while ($i == "cs" || $i == "ds" || $i == "data16" || $i == "bnd" || $i == "notrack") i++
		mn = $i
		n++; A[n] = addr; M[n] = mn; L[n] = loc
		if (mn ~ /^j/ || mn ~ /^call/ || mn ~ /^ret/) {
			BR[n] = 1
			if ($(i + 2) ~ /^<hot_loop\+/ || $(i + 2) ~ /^<hot_loop>/) T[$(i + 1)] = 1
		}
	}
	END {
		for (k = 1; k <= n; k++) print "I", A[k], M[k], L[k] > "'"$TMP"'/want_insns"
		for (k = 1; k <= n; k++) if (k == 1 || BR[k - 1] || (A[k] in T)) lead[k] = 1
		for (k = 1; k <= n; k++) {
			if (lead[k]) { if (start) print "B", start, cnt; start = A[k]; cnt = 0 }
			cnt++
		}
		print "B", start, cnt
	}' > "$TMP/want_blocks"
"$DUMP" "$TMP/hl" -l -a "$addr" > "$TMP/got"
awk '$1 == "I" { print "I", $2, $5, $NF }' "$TMP/got" > "$TMP/got_insns"
awk '$1 == "B" { print "B", $2, $4 }' "$TMP/got" > "$TMP/got_blocks"
if [ -s "$TMP/want_insns" ] && diff -u "$TMP/want_insns" "$TMP/got_insns" >&2; then
	pass "module_hotloop instructions, mnemonics and source lines ($(wc -l < "$TMP/got_insns") insns)"
else
	fail "module_hotloop instructions, mnemonics and source lines"
fi
if [ "$(wc -l < "$TMP/want_blocks")" -ge 4 ] && diff -u "$TMP/want_blocks" "$TMP/got_blocks" >&2; then
	pass "module_hotloop blocks and lengths ($(wc -l < "$TMP/got_blocks") blocks)"
else
	fail "module_hotloop blocks and lengths"
fi
# The loop: some block ends in a backward conditional jump to a block of the function.
back=$(awk '$1 == "I" && $5 ~ /^j/ && $4 ~ /3$/ {print $2}' "$TMP/got" | head -1)
check "module_hotloop has blocks ending in conditional jumps" test -n "$back"

# Load bias: objdump -F gives hot_loop's file offset; offset_to_vaddr must give its address.
off=$(objdump -d -F "$TMP/hl" | sed -n 's/^0*\([0-9a-f]*\) <hot_loop> (File Offset: 0x\([0-9a-f]*\)):$/\2/p')
o=$("$DUMP" "$TMP/hl" -o "$off" | awk '$1 == "O" { print $3 }')
if [ -n "$off" ] && [ "$o" = "$addr" ] && [ "$off" != "$addr" ]; then
	pass "module_hotloop offset_to_vaddr 0x$off -> 0x$o"
else
	fail "module_hotloop offset_to_vaddr 0x$off -> 0x$o, want 0x$addr"
fi

# Stripped copy: no symbol for the hot range; .eh_frame gives sub_<addr>, blocks unchanged.
strip -o "$TMP/hl.stripped" "$TMP/hl"
"$DUMP" "$TMP/hl" -a "$addr" | grep -E '^[BI] ' > "$TMP/full"
"$DUMP" "$TMP/hl.stripped" -a "$addr" > "$TMP/strip.out"
name=$(awk '$1 == "F" { print $4 }' "$TMP/strip.out")
grep -E '^[BI] ' "$TMP/strip.out" > "$TMP/strip"
if [ "$name" = "sub_$addr" ] && diff -u "$TMP/full" "$TMP/strip" >&2; then
	pass "module_hotloop stripped: $name, same blocks"
else
	fail "module_hotloop stripped: name '$name', blocks differ or missing"
fi
grep -q ' fde=1 ' "$TMP/strip.out" && pass "module_hotloop stripped: one .eh_frame pseudo symbol made" ||
	fail "module_hotloop stripped: fde counter"

# Separate debug info through .gnu_debuglink next to the file.
mkdir -p "$TMP/dl"
objcopy --only-keep-debug "$TMP/hl" "$TMP/dl/hl.debug"
objcopy --strip-all --add-gnu-debuglink="$TMP/dl/hl.debug" "$TMP/hl" "$TMP/dl/hl"
"$DUMP" "$TMP/dl/hl" -l -a "$addr" > "$TMP/dl.out"
awk '$1 == "I" { print "I", $2, $5, $NF }' "$TMP/dl.out" > "$TMP/dl_insns"
if [ "$(awk '$1 == "F" { print $4 }' "$TMP/dl.out")" = hot_loop ] &&
   diff -u "$TMP/want_insns" "$TMP/dl_insns" >&2; then
	pass "module_hotloop debuglink: symbols and lines from the debug file"
else
	fail "module_hotloop debuglink"
fi
# An explicit debug path wins, and a stripped file without one has no lines.
"$DUMP" "$TMP/hl.stripped" -l -d "$TMP/dl/hl.debug" -a "$addr" | awk '$1 == "I" { print "I", $2, $5, $NF }' > "$TMP/dp_insns"
check "module_hotloop explicit debug path" diff -u "$TMP/want_insns" "$TMP/dp_insns"
"$DUMP" "$TMP/hl.stripped" -l -a "$addr" | awk '$1 == "I" && $NF != "??:0"' > "$TMP/nolines"
check "module_hotloop no debug info: no lines" test ! -s "$TMP/nolines"
