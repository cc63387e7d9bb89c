# Other inputs through the same interface: an x86-32 executable (against objdump), a
# section-less "core-style" image such as kcore (code from PT_LOAD only), and C++ symbols
# (deduplicated and demangled, against nm -C).
. "$(dirname "$0")/../lib.sh"
DUMP=$BUILD/tools/bbmap_dump
ODCMP=$BUILD/tools/bbmap_odcmp

# x86-32: a freestanding object linked without libc.
if cc -m32 -O2 -g -ffreestanding -fno-pic -c -o "$TMP/l32.o" "$ROOT/tests/data/loop32.c" 2>/dev/null &&
   ld -m elf_i386 -e hot_loop -o "$TMP/l32" "$TMP/l32.o" 2>/dev/null; then
	objdump -d -z --no-show-raw-insn "$TMP/l32" > "$TMP/od32"
	out=$("$ODCMP" "$TMP/l32" 0 < "$TMP/od32" 2>&1)
	case $out in
	PASS*) pass "module_formats x86-32 agrees with objdump (${out#*: })" ;;
	*) fail "module_formats x86-32: $out" ;;
	esac
else
	skip "module_formats x86-32: cc -m32 or ld -m elf_i386 not available"
fi

# Core-style image: the same executable with its section headers removed (e_shoff,
# e_shnum, e_shstrndx zeroed), as in kcore. Code then comes from the PF_X PT_LOAD.
if cc -O2 -g -no-pie -o "$TMP/hl" "$ROOT/tests/data/hotloop.c" 2>/dev/null; then
	addr=$(nm "$TMP/hl" | awk '$3 == "hot_loop" { sub(/^0+/, "", $1); print $1 }')
	cp "$TMP/hl" "$TMP/core"
	printf '\000\000\000\000\000\000\000\000' | dd of="$TMP/core" bs=1 seek=40 conv=notrunc 2>/dev/null
	printf '\000\000\000\000' | dd of="$TMP/core" bs=1 seek=60 conv=notrunc 2>/dev/null
	if readelf -S "$TMP/core" 2>&1 | grep -q 'There are no sections'; then
		"$DUMP" "$TMP/hl" -a "$addr" | grep -E '^[BI] ' > "$TMP/full"
		"$DUMP" "$TMP/core" -a "$addr" > "$TMP/core.out"
		grep -E '^[BI] ' "$TMP/core.out" > "$TMP/core.bi"
		if [ -s "$TMP/full" ] && diff -u "$TMP/full" "$TMP/core.bi" >&2; then
			pass "module_formats section-less image: same blocks from PT_LOAD ($(awk '$1 == "F" {print $4}' "$TMP/core.out"))"
		else
			fail "module_formats section-less image: blocks differ"
		fi
	else
		fail "module_formats: could not make a section-less copy"
	fi
else
	skip "module_formats section-less image: cannot compile"
fi

# C++ symbols: every name we list is one nm -C prints for that address (demangled the same
# way), one name per address (aliases removed), and the C++ names are demangled.
bin=$CORPUS/hotspot/cpp-recursion__a.out
if [ -f "$bin" ] && command -v nm >/dev/null; then
	nm -C --defined-only "$bin" | awk '$2 ~ /^[TtWwi]$/ { a = $1; sub(/^0+/, "", a); $1 = ""; $2 = ""; sub(/^  /, ""); print a "\t" $0 }' | sort -u > "$TMP/nm"
	"$DUMP" "$bin" -s 1 | awk '$1 == "F" { a = $2; $1 = ""; $2 = ""; $3 = ""; sub(/^   /, ""); print a "\t" $0 }' | sort -u > "$TMP/ours"
	missing=$(comm -23 "$TMP/ours" "$TMP/nm" | wc -l)
	dups=$(cut -f1 "$TMP/ours" | uniq -d | wc -l)
	cxx=$(grep -c '::' "$TMP/ours")
	if [ "$missing" -eq 0 ] && [ "$dups" -eq 0 ] && [ "$cxx" -gt 100 ]; then
		pass "module_formats C++ symbols: $(wc -l < "$TMP/ours") functions, $cxx demangled C++ names, all as nm -C prints them"
	else
		fail "module_formats C++ symbols: $missing not in nm -C, $dups duplicate addresses, $cxx C++ names"
		comm -23 "$TMP/ours" "$TMP/nm" | head -5 >&2
	fi
else
	skip "module_formats C++ symbols: corpus or nm not available"
fi

# PLT stubs are named "<function>@plt" at the addresses objdump gives them.
plt_check() {	# plt_check BINARY OBJDUMP
	"$2" -d "$1" 2>/dev/null | sed -n 's/^0*\([0-9a-f]*\) <\(.*@plt\)>:$/\1 \2/p' | sort > "$TMP/plt_od"
	"$DUMP" "$1" | awk '$1 == "F" && $4 ~ /@plt$/ { print $2, $4 }' | sort > "$TMP/plt_ours"
	if [ -s "$TMP/plt_od" ] && diff -u "$TMP/plt_od" "$TMP/plt_ours" >&2; then
		pass "module_formats PLT names of $(basename "$1") ($(wc -l < "$TMP/plt_ours") stubs) as objdump"
	else
		fail "module_formats PLT names of $(basename "$1") differ from objdump"
	fi
}
[ -f "$TMP/hl" ] && plt_check "$TMP/hl" objdump
for f in autofdo/test.binary simpleperf/lbr__lbr_test_loop autofdo/hierarchical_discriminator_test.x86_64; do
	[ -f "$CORPUS/$f" ] && plt_check "$CORPUS/$f" objdump
done
if command -v aarch64-linux-gnu-objdump >/dev/null && [ -f "$CORPUS/simpleperf/etm__etm_test_loop" ]; then
	plt_check "$CORPUS/simpleperf/etm__etm_test_loop" aarch64-linux-gnu-objdump
else
	skip "module_formats AArch64 PLT names: aarch64-linux-gnu-objdump or binary not available"
fi
