#!/bin/sh
# tier: slow
# `make fuzz` builds every libFuzzer target (tests/fuzz) and each one runs: a few seconds on
# its seeds (copied into a temporary corpus) must end with libFuzzer's DONE line, some
# executions and no crash. SKIP where clang or its libFuzzer runtime is absent.
. "$(dirname "$0")/../lib.sh"

if ! command -v clang >/dev/null 2>&1; then
	skip "fuzz_build: clang not installed"
	exit 0
fi
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' \
	> "$TMP/probe.c"
if ! clang -fsanitize=fuzzer -o "$TMP/probe" "$TMP/probe.c" > /dev/null 2>&1; then
	skip "fuzz_build: clang has no libFuzzer runtime"
	exit 0
fi
if ! make -C "$ROOT" fuzz > "$TMP/build.log" 2>&1; then
	fail "fuzz_build: make fuzz failed: $(grep -m3 -iE 'error|undefined' "$TMP/build.log")"
	exit 0
fi
FZ=$ROOT/tests/fuzz
export LSAN_OPTIONS="suppressions=$ROOT/tests/malformed/lsan.supp"
for t in reader elf ref taxonomy model convert store; do
	if [ ! -x "$FZ/fuzz_$t" ]; then
		fail "fuzz_build: make fuzz built no fuzz_$t"
		continue
	fi
	make -s -C "$FZ" seeds T=$t CORPUS_DIR="$TMP/c_$t" STORE_SEEDS=10 > /dev/null 2>&1
	(cd "$TMP" && nice "$FZ/fuzz_$t" -max_total_time=3 -max_len=16384 -rss_limit_mb=1024 \
		-timeout=10 -artifact_prefix="$TMP/crash-$t-" "$TMP/c_$t") > "$TMP/$t.log" 2>&1
	rc=$?
	done_line=$(grep -m1 'DONE' "$TMP/$t.log")
	execs=$(echo "$done_line" | sed -n 's/.*#\([0-9][0-9]*\)[[:space:]]*DONE.*/\1/p')
	if [ $rc -eq 0 ] && [ "${execs:-0}" -gt 0 ]; then
		pass "fuzz_build: fuzz_$t ($execs executions)"
	else
		fail "fuzz_build: fuzz_$t exit $rc: $(grep -m3 -E 'ERROR|error|DONE' "$TMP/$t.log")"
	fi
done
# fuzz_convert reaches the code: the demo recording, whole, converts to blocks of its binary
# (the target finds samples/demo/vector by itself; without it every input would stop at
# "no code" and the attribution and mix would go unfuzzed)
if [ -x "$FZ/fuzz_convert" ]; then
	say=$(cd "$TMP" && FUZZ_CONVERT_SAY=1 "$FZ/fuzz_convert" -runs=1 -max_len=2000000 \
		"$ROOT/samples/demo/perf.data" 2>&1 | grep -m1 '^fuzz_convert: ')
	nb=$(echo "$say" | sed -n 's/.*, \([0-9][0-9]*\) code blocks$/\1/p')
	expect "fuzz_build: fuzz_convert converts the demo recording to code blocks (${say:-no line})" \
		'case $say in "fuzz_convert: exit 0,"*) true ;; *) false ;; esac && [ "${nb:-0}" -gt 0 ]'
fi
