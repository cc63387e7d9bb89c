#!/bin/sh
# Inputs the fuzzers found (tests/fuzz/regress/TARGET/) are replayed: every perf.data one
# through `hbbp-convert stats` and `dump`, which must exit 0 or 2 (2 with one error line), not
# die of a signal and print no sanitizer report (under `make SAN=...` the sanitizers run);
# and, where clang has libFuzzer, every input through its own fuzz target (tests/fuzz, built
# with address and undefined-behaviour sanitizers), which must not crash.
. "$(dirname "$0")/../lib.sh"

REG=$ROOT/tests/fuzz/regress
export LSAN_OPTIONS="suppressions=$ROOT/tests/malformed/lsan.supp"
n=0 nbad=0
for f in "$REG"/reader/*; do
	[ -f "$f" ] || continue
	for cmd in stats dump; do
		timeout 30 "$HBBP" $cmd "$f" > /dev/null 2> "$TMP/err.all"
		rc=$?
		grep -v '^hbbp-convert: warning: ' "$TMP/err.all" > "$TMP/err"
		if grep -qE 'Sanitizer|runtime error' "$TMP/err.all" ||
		   { [ $rc -ne 0 ] && [ $rc -ne 2 ]; } ||
		   { [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -ne 1 ]; }; then
			fail "fuzz_regress: $cmd $(basename "$f"): exit $rc: $(head -c 300 "$TMP/err.all")"
			nbad=$((nbad + 1))
		else
			n=$((n + 1))
		fi
	done
done
[ $nbad -eq 0 ] && pass "fuzz_regress: hbbp-convert on the reader inputs ($n runs)"

if ! command -v clang >/dev/null 2>&1; then
	skip "fuzz_regress: clang not installed (fuzz targets not replayed)"
	exit 0
fi
if ! make -s -C "$ROOT/tests/fuzz" > "$TMP/build.log" 2>&1; then
	fail "fuzz_regress: building the fuzz targets failed: $(grep -m3 -iE 'error' "$TMP/build.log")"
	exit 0
fi
for d in "$REG"/*/; do
	t=$(basename "$d")
	set -- "$d"*
	[ -f "$1" ] || continue
	(cd "$TMP" && "$ROOT/tests/fuzz/fuzz_$t" -runs=1 -rss_limit_mb=1024 -timeout=10 "$@") \
		> "$TMP/$t.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && ! grep -qE 'ERROR|runtime error' "$TMP/$t.log"; then
		pass "fuzz_regress: fuzz_$t on $# inputs"
	else
		fail "fuzz_regress: fuzz_$t exit $rc: $(grep -m3 -E 'ERROR|runtime error|Running' "$TMP/$t.log")"
	fi
done
