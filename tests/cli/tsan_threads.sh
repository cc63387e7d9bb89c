#!/bin/sh
# tier: slow
# The threads of a conversion under ThreadSanitizer (a build of its own, SAN=thread): several
# input files converted at once (-j 2; one input runs on one thread). The run must report no
# data race, exit 0 and write the database the release build writes with -j 1. SKIP where the
# compiler has no ThreadSanitizer runtime or sqlite3 is missing.
. "$(dirname "$0")/../lib.sh"
have_bench_tools tsan_threads || exit 0
if ! command -v sqlite3 >/dev/null 2>&1; then skip "tsan_threads: sqlite3 not installed"; exit 0; fi
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
cp "$TMP/b.data" "$TMP/c.data"
keys=pid,module,symbol,block,srcline,mnemonic,iclass,isa,width,mem
"$TB/hbbp-convert" -q -j 2 --by $keys -o "$TMP/t.db" "$TMP/b.data" "$TMP/c.data" 2> "$TMP/t.err"
rc=$?
"$HBBP" -q -j 1 --by $keys -o "$TMP/r.db" "$TMP/b.data" "$TMP/c.data"
for f in t r; do
	sqlite3 "$TMP/$f.db" .dump | grep -v '^INSERT INTO runs VALUES' > "$TMP/$f.sql"
done
expect "tsan_threads: two inputs at once: no race, exit 0 ($(races "$TMP/t.err") races), as the release build with -j 1" \
	'[ $rc -eq 0 ] && [ "$(races "$TMP/t.err")" -eq 0 ] &&
	 [ "$(grep -c "^INSERT INTO \"\?mix" "$TMP/r.sql")" -gt 100 ] && cmp -s "$TMP/t.sql" "$TMP/r.sql"'
