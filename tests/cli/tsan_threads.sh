#!/bin/sh
# tier: slow
# The threads of one conversion under ThreadSanitizer (a build of its own, SAN=thread): the
# file read in two parts at once (--split), the stack sums' worker, a module's leaders and
# blocks decoded on threads and the mix's instructions read ahead in batches of 7 blocks.
# Each run must report no data race, exit 0 and write what the release build writes. SKIP where the compiler has no ThreadSanitizer runtime.
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
	build/tsan/tools/bbmap_dump > "$TMP/build.log" 2>&1; then
	fail "tsan_threads: the SAN=thread build failed: $(grep -m3 -iE 'error' "$TMP/build.log")"
	exit 0
fi
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
races() { grep -c 'WARNING: ThreadSanitizer' "$1"; }

srcs=$(BENCH_INPUTS="interp 10 libcmix 3" sh "$ROOT/bench/inputs.sh" "$TMP/src" "$ROOT/pmusim" \
	2> "$TMP/inputs.err") || { fail "tsan_threads: bench/inputs.sh"; exit 0; }
$GEN --mb 3 -o "$TMP/b.data" $srcs > "$TMP/b.info" || { fail "tsan_threads: benchgen"; exit 0; }
keys=pid,module,symbol,block,srcline,mnemonic,iclass,isa,width,mem
HBBP_MIX_READ_BLOCKS=7 HBBP_DEBUG=1 "$TB/hbbp-convert" -q -j 2 --split 1M --by $keys \
	-o "$TMP/t.csv" "$TMP/b.data" 2> "$TMP/t.err"
rc=$?
"$HBBP" -q -j 1 --by $keys -o "$TMP/r.csv" "$TMP/b.data"
expect "tsan_threads: a conversion on threads, two parts, mix read ahead: no race, exit 0 ($(races "$TMP/t.err") races), as the release build" \
	'[ $rc -eq 0 ] && [ "$(races "$TMP/t.err")" -eq 0 ] && grep -q "part read apart" "$TMP/t.err" &&
	 [ "$(wc -l < "$TMP/r.csv")" -gt 100 ] && cmp -s "$TMP/t.csv" "$TMP/r.csv"'

# a big program's leaders and blocks decoded on 3 threads (bbmap/module_threads.c)
cc1=$(gcc -print-prog-name=cc1 2>/dev/null)
bin=/lib/x86_64-linux-gnu/libc.so.6
[ -f "$cc1" ] && bin=$cc1
if [ -f "$bin" ]; then
	set -- $(readelf -SW "$bin" | awk '$2 == ".text" { print $4, $6 }')
	awk -v s=$((0x$1)) -v n=$((0x$2)) 'BEGIN { srand(5)
		for (i = 0; i < 3000; i++) printf "%x\n", s + int(rand() * n) }' > "$TMP/l"
	"$TB/tools/bbmap_dump" "$bin" -z -G "$TMP/l" -j 3 -F -Q -I < "$TMP/l" > "$TMP/d3" 2> "$TMP/d.err"
	rc=$?
	"$BUILD/tools/bbmap_dump" "$bin" -z -G "$TMP/l" -Q -I < "$TMP/l" > "$TMP/d1"
	expect "tsan_threads: $(basename "$bin")'s leaders and blocks decoded on 3 threads: no race, as on one ($(grep -c '^I ' "$TMP/d1") instructions)" \
		'[ $rc -eq 0 ] && [ "$(races "$TMP/d.err")" -eq 0 ] && [ "$(grep -c "^I " "$TMP/d1")" -gt 1000 ] &&
		 cmp -s "$TMP/d1" "$TMP/d3"'
else
	skip "tsan_threads: no libc.so.6 or cc1 to decode"
fi
