#!/bin/sh
# tier: slow
# Inputs the fuzzers found (tests/fuzz/regress/TARGET/) are replayed through their own fuzz
# target (tests/fuzz, built here with clang's libFuzzer and the address and undefined-behaviour
# sanitizers), which must not crash. fuzz_regress.sh replays them through hbbp-convert.
. "$(dirname "$0")/../lib.sh"

REG=$ROOT/tests/fuzz/regress
export LSAN_OPTIONS="suppressions=$ROOT/tests/malformed/lsan.supp"
if ! command -v clang >/dev/null 2>&1; then
	skip "fuzz_regress_targets: clang not installed (fuzz targets not replayed)"
	exit 0
fi
if ! make -s -C "$ROOT/tests/fuzz" > "$TMP/build.log" 2>&1; then
	fail "fuzz_regress_targets: building the fuzz targets failed: $(grep -m3 -iE 'error' "$TMP/build.log")"
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
		pass "fuzz_regress_targets: fuzz_$t on $# inputs"
	else
		fail "fuzz_regress_targets: fuzz_$t exit $rc: $(grep -m3 -E 'ERROR|runtime error|Running' "$TMP/$t.log")"
	fi
done
