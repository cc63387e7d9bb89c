#!/bin/sh
# Malformed inputs: every case written by tests/tools/perf_craft and every file committed in
# tests/malformed/ (fuzzer finds; expected messages in tests/malformed/EXPECTED) must make
# `stats` and `dump` exit 2 with exactly one stderr line "hbbp-convert: error: FILE: ... at 0x...",
# containing the expected fragment. Under `make SAN=...` this also runs the sanitizers.
. "$(dirname "$0")/../lib.sh"

tool=$BUILD/tools/perf_craft
if [ ! -x "$tool" ]; then fail "reader_malformed: $tool not built"; exit 0; fi
mkdir -p "$TMP/m"
"$tool" "$TMP/m" > "$TMP/cases" || { fail "reader_malformed: perf_craft failed"; exit 0; }
# libtraceevent's own leak on malformed format texts is not ours (see lsan.supp)
export LSAN_OPTIONS="suppressions=$ROOT/tests/malformed/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
while IFS='|' read -r name expect; do
	echo "$TMP/m/$name|2|$expect"
done < "$TMP/cases" > "$TMP/all"
while IFS='|' read -r name code expect; do
	case $name in ''|'#'*) continue ;; esac
	echo "$ROOT/tests/malformed/$name|$code|$expect"
done < "$ROOT/tests/malformed/EXPECTED" >> "$TMP/all"

n=0 nbad=0
while IFS='|' read -r f code expect; do
	for cmd in stats dump; do
		if [ "$code" = 0 ]; then
			timeout 30 "$HBBP" $cmd "$f" > /dev/null 2> "$TMP/err"
			rc=$?
			if [ $rc -ne 0 ] || ! grep -qF "$expect" "$TMP/err"; then
				fail "reader_malformed: $cmd $(basename "$f"): exit $rc: $(head -c 300 "$TMP/err")"
				nbad=$((nbad + 1))
			else
				n=$((n + 1))
			fi
			continue
		fi
		timeout 30 "$HBBP" $cmd "$f" > /dev/null 2> "$TMP/err.all"
		rc=$?
		grep -v '^hbbp-convert: warning: ' "$TMP/err.all" > "$TMP/err"
		lines=$(wc -l < "$TMP/err")
		if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] ||
		   ! grep -q "^hbbp-convert: error: $f: .* at 0x[0-9a-f]*\$" "$TMP/err" ||
		   ! grep -qF "$expect" "$TMP/err"; then
			fail "reader_malformed: $cmd $(basename "$f"): exit $rc, stderr: $(head -c 300 "$TMP/err") (expected '$expect')"
			nbad=$((nbad + 1))
		else
			n=$((n + 1))
		fi
	done
done < "$TMP/all"
[ $nbad -eq 0 ] && pass "reader_malformed ($n checks)"
