# bbmap decoding agrees with objdump (an independent disassembler) on the corpus binaries:
# instruction starts, block starts on instruction starts, a block after every branch.
# Small binaries: every function; large ones: a sample of about 200 functions.
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
