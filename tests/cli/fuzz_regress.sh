#!/bin/sh
# Inputs the fuzzers found (tests/fuzz/regress/TARGET/) are replayed: every perf.data one
# through `hbbp-convert stats` and `dump`, which must exit 0 or 2 (2 with one error line), not
# die of a signal and print no sanitizer report (under `make SAN=...` the sanitizers run);
# those of fuzz_convert also through a conversion with each method (exit 0, 2, or 4: no row);
# the databases of fuzz_store get the demo's run appended: exit 0, or 2 with the file as it was.
# Every input through its own fuzz target: fuzz_regress_targets.sh (slow tier: it builds them).
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
n=0 nbad=0
for f in "$REG"/convert/*; do
	[ -f "$f" ] || continue
	for m in hbbp ebs lbr; do
		timeout 30 "$HBBP" "$f" --method $m -q -o "$TMP/out.csv" > /dev/null 2> "$TMP/err"
		rc=$?
		if grep -qE 'Sanitizer|runtime error' "$TMP/err" ||
		   { [ $rc -ne 0 ] && [ $rc -ne 2 ] && [ $rc -ne 4 ]; }; then
			fail "fuzz_regress: --method $m $(basename "$f"): exit $rc: $(head -c 300 "$TMP/err")"
			nbad=$((nbad + 1))
		else
			n=$((n + 1))
		fi
		rm -f "$TMP/out.csv"
	done
done
[ $nbad -eq 0 ] && pass "fuzz_regress: conversions of the fuzz_convert inputs ($n runs)"
n=0 nbad=0
for f in "$REG"/store/*; do
	[ -f "$f" ] || continue
	cp "$f" "$TMP/db.sqlite"
	timeout 30 "$HBBP" "$ROOT/samples/demo/perf.data" -q --append -o "$TMP/db.sqlite" \
		> /dev/null 2> "$TMP/err"
	rc=$?
	if grep -qE 'Sanitizer|runtime error' "$TMP/err" || { [ $rc -ne 0 ] && [ $rc -ne 2 ]; } ||
	   { [ $rc -eq 2 ] && ! cmp -s "$f" "$TMP/db.sqlite"; }; then
		fail "fuzz_regress: --append to $(basename "$f"): exit $rc: $(head -c 300 "$TMP/err")"
		nbad=$((nbad + 1))
	else
		n=$((n + 1))
	fi
	rm -f "$TMP/db.sqlite"*
done
[ $nbad -eq 0 ] && pass "fuzz_regress: appends to the fuzz_store databases ($n runs)"
