# bbmap decoding agrees with objdump (an independent disassembler) on the corpus binaries:
# instruction starts, block starts on instruction starts, a block after every branch.
# Small binaries: every function; large ones: a sample of about 200 functions.
# Then `hbbp-convert disasm` over each whole x86 binary (the corpus's and this machine's libc,
# libm, libstdc++, ld.so) against `objdump -d -M intel`: instruction starts equal both ways,
# mnemonics equal through the mapping table of tests/cli/od_intel.awk, and no undecodable byte
# where objdump decodes one. Where objdump's starts cannot be equal (a function start only
# .eh_frame gives, ignored REX prefixes, fwait joined to the next x87 instruction), the
# processor decides: tests/cli/disasm_objdump_resync.sh. Larger binaries (libLLVM, chromium,
# the largest ELF at hand): make objdump-big.
. "$(dirname "$0")/../lib.sh"
ODCMP=$BUILD/tools/bbmap_odcmp
if ! have_corpus; then skip "module_objdump: corpus not found at $CORPUS"; exit 0; fi
if ! command -v objdump >/dev/null; then skip "module_objdump: objdump not installed"; exit 0; fi
for f in autofdo/hierarchical_discriminator_test.x86_64 autofdo/propeller_sample_old.bin \
	 autofdo/test.binary autofdo/libro_sample.so hotspot/cpp-recursion__a.out \
	 perfparser/vector_static_clang__vector_static_clang_v8.0.1 \
	 perfparser/cpp-inlining__cpp-inlining perfparser/vector_static_gcc__vector_static_gcc_v9.1.0 \
	 perfparser/fork_static_gcc__fork perfparser/parallel_static_gcc__parallel_static_gcc \
	 simpleperf/lbr__lbr_test_loop; do
	bin=$CORPUS/$f
	if [ ! -f "$bin" ]; then skip "module_objdump $f: not in corpus"; continue; fi
	size=$(wc -c < "$bin")
	max=0
	[ "$size" -gt 200000 ] && max=200
	objdump -d -z --no-show-raw-insn "$bin" > "$TMP/od.txt" 2>/dev/null
	out=$("$ODCMP" "$bin" $max < "$TMP/od.txt" 2>"$TMP/err")
	case $out in
	PASS*) pass "module_objdump $f (${out#*: })" ;;
	*) fail "module_objdump $f: $out"; head -5 "$TMP/err" >&2 ;;
	esac
done
# The whole binary through disasm, against objdump's Intel syntax.
od_whole() {
	bin=$1 name=$2
	objdump -d -z -M intel --no-show-raw-insn "$bin" > "$TMP/odi.txt" 2>/dev/null
	if ! "$HBBP" disasm -f csv "$bin" > "$TMP/dis.csv" 2>"$TMP/dis.err"; then
		fail "disasm_objdump $name: $(tail -1 "$TMP/dis.err")"; return
	fi
	res=$(awk -f "$ROOT/tests/cli/od_intel.awk" "$TMP/odi.txt" "$TMP/dis.csv")
	od_bad=$(grep -c -E '	(\(bad\)|\.byte )' "$TMP/odi.txt")
	our_bad=$(tail -1 "$TMP/dis.err" | sed -n 's/.* \([0-9]*\) undecodable bytes.*$/\1/p')
	last=$(echo "$res" | tail -1)
	set -- $last
	if [ "$5" = 0 ] && [ "$7" = 0 ] && [ "$9" = 0 ] && [ "$our_bad" = "$od_bad" ]; then
		pass "disasm_objdump $name ($3 instructions, starts and mnemonics equal objdump -M intel, $our_bad undecodable bytes as objdump)"
	else
		fail "disasm_objdump $name: $last; undecodable bytes: ours $our_bad, objdump $od_bad"
		echo "$res" | head -20 >&2
	fi
}
for f in autofdo/hierarchical_discriminator_test.x86_64 autofdo/propeller_sample_old.bin \
	 autofdo/test.binary autofdo/libro_sample.so hotspot/cpp-recursion__a.out \
	 perfparser/vector_static_clang__vector_static_clang_v8.0.1 \
	 perfparser/cpp-inlining__cpp-inlining perfparser/vector_static_gcc__vector_static_gcc_v9.1.0 \
	 perfparser/fork_static_gcc__fork perfparser/parallel_static_gcc__parallel_static_gcc \
	 simpleperf/lbr__lbr_test_loop; do
	[ -f "$CORPUS/$f" ] && od_whole "$CORPUS/$f" "$f"
done
for lib in libc.so.6 libm.so.6 libstdc++.so.6 ld-linux-x86-64.so.2; do
	bin=""
	for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64; do
		[ -f "$d/$lib" ] && { bin=$d/$lib; break; }
	done
	if [ -z "$bin" ]; then skip "disasm_objdump $lib: not on this machine"; continue; fi
	od_whole "$bin" "$bin"
done
# AArch64 binaries: only with a binutils that reads them.
for f in simpleperf/etm__etm_test_loop simpleperf/etm__etm_test_loop_small; do
	bin=$CORPUS/$f
	[ -f "$bin" ] || continue
	od=""
	for c in aarch64-linux-gnu-objdump objdump; do
		if command -v $c >/dev/null && $c -d "$bin" >/dev/null 2>&1; then od=$c; break; fi
	done
	if [ -z "$od" ]; then
		skip "module_objdump $f: no objdump for aarch64 (apt-get install binutils-aarch64-linux-gnu)"
		continue
	fi
	$od -d -z --no-show-raw-insn "$bin" > "$TMP/od.txt" 2>/dev/null
	out=$("$ODCMP" "$bin" 0 < "$TMP/od.txt" 2>"$TMP/err")
	case $out in
	PASS*) pass "module_objdump $f (${out#*: })" ;;
	*) fail "module_objdump $f: $out"; head -5 "$TMP/err" >&2 ;;
	esac
done
