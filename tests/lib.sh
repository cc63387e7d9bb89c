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
# check NAME COMMAND...: PASS if the command succeeds.
check() { name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }
have_corpus() { [ -f "$CORPUS/MANIFEST.md" ]; }
