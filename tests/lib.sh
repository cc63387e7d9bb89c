# Helpers for shell tests (sourced). Each test prints one PASS/FAIL/SKIP line, which
# tests/run.sh counts. $HBBP is the hbbp-convert binary, $CORPUS the real perf.data corpus.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HBBP=${HBBP:-$ROOT/hbbp-convert}
case $HBBP in /*) ;; *) HBBP=$ROOT/$HBBP ;; esac
BUILD=${BUILD:-build/rel}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
CORPUS=${HBBP_CORPUS:-$ROOT/../shared/perfdata}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hbbp-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export LC_ALL=C

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; }
skip() { echo "SKIP $*"; }
# check NAME COMMAND...: PASS if the one command succeeds. A condition of several commands
# (a && b) must not follow it: the shell binds `&& b` outside check. Use expect for those.
check() { name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }
# expect NAME 'CONDITION': PASS if the whole CONDITION, a shell list such as '[ a ] && b', holds.
# It runs as one unit (as git's test_expect_success runs its quoted body), with the test's
# variables and functions in scope; false when it fails (so `expect ... || cat LOG` shows why).
# tests/run.sh refuses the weak form (tests/weak_checks.awk).
expect() { name=$1; shift; if eval "$*"; then pass "$name"; else fail "$name"; return 1; fi; }
have_corpus() { [ -f "$CORPUS/MANIFEST.md" ]; }
# have_bench_tools NAME: benchgen ($GEN) and pmusim built and qemu-x86_64 installed; else a
# SKIP line for NAME and false.
have_bench_tools() {
	GEN=$BUILD/tools/benchgen
	if ! command -v qemu-x86_64 >/dev/null 2>&1; then
		skip "$1: qemu-x86_64 not installed (pmusim needs it)"
		return 1
	fi
	if [ ! -x "$GEN" ] || [ ! -x "$ROOT/pmusim" ]; then
		skip "$1: benchgen or pmusim not built (make check-build)"
		return 1
	fi
}

# rows_close A B: two CSV files with the same rows in the same order, numeric fields equal
# to the rounding of the text outputs (the same sums taken in another order may round to
# neighbours: 1 from 1000 on, 1e-3 relative below)
rows_close() {
	awk -F, 'NR == FNR { a[FNR] = $0; n = FNR; next }
		{ k = split(a[FNR], x, ","); if (k != NF) { bad = 1; exit }
		  for (i = 1; i <= NF; i++) {
			if (x[i] == $i) continue
			if (x[i] !~ /^-?[0-9.e+-]+$/ || $i !~ /^-?[0-9.e+-]+$/) { bad = 1; exit }
			d = x[i] - $i; if (d < 0) d = -d
			m = x[i] < 0 ? -x[i] : x[i]
			if (d > (m >= 1000 ? 1 : 1e-3 * m) + 1e-12) { bad = 1; exit }
		  }
		  m2 = FNR }
		END { exit (bad || m2 != n) }' "$1" "$2"
}
