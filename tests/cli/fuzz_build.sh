#!/bin/sh
# The libFuzzer target on the reader (tests/fuzz) builds from the current sources and runs:
# `make fuzz` linked against a stale list of sources once; this compiles it as CI would and
# runs it for a few seconds on seeds from the malformed set and two corpus files.
# Skips without clang (or when clang cannot link -fsanitize=fuzzer).
. "$(dirname "$0")/../lib.sh"

if ! command -v clang >/dev/null 2>&1; then skip "fuzz_build: clang not installed"; exit 0; fi
if ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
	clang -x c -fsanitize=fuzzer -o "$TMP/probe" - >/dev/null 2>&1; then
	skip "fuzz_build: clang cannot link -fsanitize=fuzzer (libFuzzer runtime missing)"
	exit 0
fi
bin=$TMP/fuzz_reader
if nice make -s -C "$ROOT/tests/fuzz" FUZZ_BIN="$bin" "$bin" > "$TMP/build.log" 2>&1 && [ -x "$bin" ]; then
	pass "fuzz_build: make -C tests/fuzz links the reader's fuzz target"
else
	fail "fuzz_build: the fuzz target does not build"
	tail -n 20 "$TMP/build.log" >&2
	exit 0
fi
mkdir -p "$TMP/seeds"
cp "$ROOT"/tests/malformed/*.data "$TMP/seeds/" 2>/dev/null
if have_corpus; then
	find "$CORPUS" -type f -name '*.data' -size -64k 2>/dev/null | head -n 4 |
		while read -r f; do cp "$f" "$TMP/seeds/"; done
fi
cd "$TMP" || exit 2
LSAN_OPTIONS=suppressions=$ROOT/tests/malformed/lsan.supp \
	nice "$bin" -max_total_time=3 -max_len=65536 -rss_limit_mb=1024 -timeout=10 \
	"$TMP/seeds" > "$TMP/run.log" 2>&1
rc=$?
check "fuzz_build: the target runs 3 s on the seeds without a crash (rc $rc)" \
	sh -c "[ $rc -eq 0 ] && grep -q 'Done [0-9]* runs' '$TMP/run.log'"
