#!/bin/sh
# Runs the unit-test binaries and tests/cli/*.sh scripts of one tier, counts their
# PASS/FAIL/SKIP lines and ends with "N passed, N failed, N skipped". A program that exits
# non-zero without reporting a FAIL line counts as one failure (a crash must never pass silently).
# A test's tier is named by a line "# tier: NAME" in the script (in a unit test's source
# tests/unit/test_X.c, "/* tier: NAME */"); without one it is "everyday".
#   TIER=everyday   (default; make check) the tests without a tier line
#   TIER=slow       (make check-slow) builds of their own, simulator campaigns, bench smoke tests
#   TIER=all        both; the default when ONLY=PATTERN picks tests by path
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build/rel}
export BUILD HBBP=${HBBP:-./hbbp-convert}
TIER=${TIER:-$([ -n "$ONLY" ] && echo all || echo everyday)}
case $TIER in everyday|slow|all) ;; *) echo "run.sh: TIER=$TIER: everyday, slow or all" >&2; exit 1 ;; esac
out=$(mktemp)
# A check whose condition goes on with && or || after it passes on its first command alone:
# refuse the form (tests/lib.sh: use expect NAME 'a && b').
awk -f tests/weak_checks.awk tests/cli/*.sh tests/*.sh > "$out.weak"
if [ -s "$out.weak" ]; then
	sed 's/^/FAIL weak check form (use expect): /' "$out.weak" | tee -a "$out"
fi
rm -f "$out.weak"
ms() { echo $(($(date +%s%N) / 1000000)); }
start=$(ms)
n=0
for t in "$BUILD"/tests/test_* tests/cli/*.sh; do
	[ -e "$t" ] || continue
	case $t in *.d|*.o|*_lib.sh) continue ;; esac	# *_lib.sh: sourced by the tests
	case $t in *.sh) cmd="sh $t" src=$t ;; *) cmd=$t src=tests/unit/${t##*/}.c ;; esac
	if [ -n "$ONLY" ] && ! echo "$t" | grep -q "$ONLY"; then continue; fi
	tier=$(sed -nE 's@^(#|/\*) tier: ([a-z]+).*@\2@p' "$src" 2>/dev/null | head -n 1)
	case ${tier:=everyday} in
	everyday|slow) ;;
	*) echo "FAIL $t: unknown tier '$tier'" | tee -a "$out"; continue ;;
	esac
	[ "$TIER" = all ] || [ "$TIER" = "$tier" ] || continue
	echo "== $t"
	t0=$(ms)
	$cmd > "$out.one" 2> "$out.err"
	rc=$?
	echo "$(($(ms) - t0)) $t" >> "$out.times"
	n=$((n + 1))
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
# A test (or the program under test) that replaced /dev/null by a file broke the machine.
if [ ! -c /dev/null ]; then
	echo "FAIL /dev/null is no longer a character device: a test wrote over it" | tee -a "$out"
fi
passed=$(grep -c '^PASS' "$out")
failed=$(grep -c '^FAIL' "$out")
skipped=$(grep -c '^SKIP' "$out")
# the tier's wall time, the CPU time of its tests (the shell's `times`: steadier on a busy
# machine) and its slowest tests, to keep the everyday tier short
times > "$out.cpu"
cpu=$(awk 'NR == 2 { gsub(/[ms]/, " "); printf "%.0f", $1 * 60 + $2 + $3 * 60 + $4 }' "$out.cpu")
[ -s "$out.times" ] && echo "tier $TIER: $n tests in $((($(ms) - start) / 1000)) s, CPU $cpu s; slowest: $(sort -rn \
	"$out.times" | head -n 5 | awk '{ sub(".*/", "", $2); printf "%s%s %.0f s", (NR > 1 ? ", " : ""), $2, $1 / 1000 }')"
rm -f "$out" "$out.one" "$out.err" "$out.times" "$out.cpu"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
