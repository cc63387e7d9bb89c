#!/bin/sh
# Runs every unit-test binary and every tests/cli/*.sh script, counts their PASS/FAIL/SKIP
# lines and ends with "N passed, N failed, N skipped". A program that exits non-zero without
# reporting a FAIL line counts as one failure (a crash must never pass silently).
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build/rel}
export BUILD HBBP=${HBBP:-./hbbp-convert}
out=$(mktemp)
failed_progs=0
# A check whose condition goes on with && or || after it passes on its first command alone:
# refuse the form (tests/lib.sh: use expect NAME 'a && b').
awk -f tests/weak_checks.awk tests/cli/*.sh tests/*.sh > "$out.weak"
if [ -s "$out.weak" ]; then
	sed 's/^/FAIL weak check form (use expect): /' "$out.weak" | tee -a "$out"
fi
rm -f "$out.weak"
for t in "$BUILD"/tests/test_* tests/cli/*.sh; do
	[ -e "$t" ] || continue
	case $t in *.d|*.o) continue ;; esac
	case $t in *.sh) cmd="sh $t" ;; *) cmd=$t ;; esac
	if [ -n "$ONLY" ] && ! echo "$t" | grep -q "$ONLY"; then continue; fi
	echo "== $t"
	$cmd > "$out.one" 2> "$out.err"
	rc=$?
	cat "$out.one" >> "$out"
	grep -E '^(FAIL|SKIP)' "$out.one"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$out.one"; then
		echo "FAIL $t exited with status $rc"
		echo "FAIL $t exited with status $rc" >> "$out"
		tail -n 20 "$out.err"
	elif grep -q '^FAIL' "$out.one"; then
		tail -n 40 "$out.err"
	fi
done
passed=$(grep -c '^PASS' "$out")
failed=$(grep -c '^FAIL' "$out")
skipped=$(grep -c '^SKIP' "$out")
rm -f "$out" "$out.one" "$out.err"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
