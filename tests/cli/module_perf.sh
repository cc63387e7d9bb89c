# Decoding rate on a large corpus binary (every function, lines on), per CPU second.
# The decoder (Zydis for x86) bounds it;
# the check guards against quadratic behaviour: at least 1 MB/s in the optimized build.
. "$(dirname "$0")/../lib.sh"
BENCH=$BUILD/tools/bbmap_bench
bin=$CORPUS/hotspot/cpp-recursion__a.out
if [ ! -f "$bin" ]; then skip "module_perf: corpus binary not found"; exit 0; fi
case $BUILD in
*/san) skip "module_perf: sanitizer build, rate not meaningful"; exit 0 ;;
esac
out=$("$BENCH" "$bin" 1.0)
if [ $? -eq 0 ]; then pass "module_perf decoding: $out"; else fail "module_perf decoding too slow: $out"; fi
