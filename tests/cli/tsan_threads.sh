#!/bin/sh
# tier: slow
# The threads of one conversion under ThreadSanitizer (a build of its own, SAN=thread): the
# file read in two parts at once (--split) and the stack sums' worker. Each run must report
# no data race, exit 0 and write what the release build writes. SKIP where the compiler has
# no ThreadSanitizer runtime.
. "$(dirname "$0")/../lib.sh"
have_bench_tools tsan_threads || exit 0
printf 'int main(void) { return 0; }\n' > "$TMP/probe.c"
if ! ${CC:-cc} -fsanitize=thread -o "$TMP/probe" "$TMP/probe.c" > /dev/null 2>&1 ||
   ! "$TMP/probe"; then
	skip "tsan_threads: the compiler has no ThreadSanitizer runtime"
	exit 0
fi
TB=$ROOT/build/tsan
if ! make -C "$ROOT" -s SAN=thread BUILD=build/tsan build/tsan/hbbp-convert \
	> "$TMP/build.log" 2>&1; then
	fail "tsan_threads: the SAN=thread build failed: $(grep -m3 -iE 'error' "$TMP/build.log")"
	exit 0
fi
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
races() { grep -c 'WARNING: ThreadSanitizer' "$1"; }

srcs=$(BENCH_INPUTS="interp 10 libcmix 3" sh "$ROOT/bench/inputs.sh" "$TMP/src" "$ROOT/pmusim" \
	2> "$TMP/inputs.err") || { fail "tsan_threads: bench/inputs.sh"; exit 0; }
$GEN --mb 3 -o "$TMP/b.data" $srcs > "$TMP/b.info" || { fail "tsan_threads: benchgen"; exit 0; }
keys=pid,module,symbol,block,srcline,mnemonic,iclass,isa,width,mem
HBBP_DEBUG=1 "$TB/hbbp-convert" -q -j 2 --split 1M --by $keys \
	-o "$TMP/t.csv" "$TMP/b.data" 2> "$TMP/t.err"
rc=$?
"$HBBP" -q -j 1 --by $keys -o "$TMP/r.csv" "$TMP/b.data"
expect "tsan_threads: a conversion on threads, two parts: no race, exit 0 ($(races "$TMP/t.err") races), as the release build" \
	'[ $rc -eq 0 ] && [ "$(races "$TMP/t.err")" -eq 0 ] && grep -q "part read apart" "$TMP/t.err" &&
	 [ "$(wc -l < "$TMP/r.csv")" -gt 100 ] && cmp -s "$TMP/t.csv" "$TMP/r.csv"'
