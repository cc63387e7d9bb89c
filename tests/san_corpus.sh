#!/bin/sh
# Runs the sanitizer build (make SAN=address,undefined) over the whole real corpus
# (../shared/perfdata): `stats`, `dump` and a default conversion of every file. Exit codes
# 0 (read), 1 (nothing to convert), 2 (rejected input, with its message) and 4 (no row: the
# recording's binaries are not at hand) are all fine;
# any AddressSanitizer/UndefinedBehaviorSanitizer report, a crash or a hang fails the file.
# Ends with "N passed, N failed, N skipped" like tests/run.sh. Not part of `make check`
# (it takes minutes): `make san-corpus` runs it after changes to reader/ or bbmap/.
# Usage: tests/san_corpus.sh [HBBP_SAN_BINARY]
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$top/build/san/hbbp-convert}
corpus=${CORPUS:-${HBBP_CORPUS:-$top/../shared/perfdata}}
pass=0 fail=0 skip=0
if [ ! -d "$corpus" ]; then
	echo "SKIP san_corpus: no corpus at $corpus"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
[ -x "$bin" ] || { echo "san_corpus: $bin is not built (make SAN=address,undefined)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=abort_on_error=0:exitcode=99:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98
export LSAN_OPTIONS=suppressions=$top/tests/malformed/lsan.supp
run() { # NAME FILE ARGS...
	name=$1 f=$2
	shift 2
	timeout 300 "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if { [ $rc -le 2 ] || [ $rc = 4 ]; } && ! grep -q "Sanitizer\|runtime error" "$tmp/err"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $name $f (exit $rc)"
		grep -m 5 "Sanitizer\|runtime error\|^    #[0-4] " "$tmp/err" | sed 's/^/  /'
	fi
}
find "$corpus" -type f ! -name '*.md' ! -name '*.txt' ! -name '*.c' ! -name '*.cc' \
	! -name '*.h' ! -name '*.py' ! -name '*.sh' | sort >"$tmp/files"
while read -r f; do
	case $(head -c 4 "$f" | od -An -c | tr -d ' ') in
	177ELF*) skip=$((skip + 1)); continue ;;	# the recordings' binaries
	esac
	run stats "$f" stats "$f"
	run dump "$f" dump "$f"
	run convert "$f" -q -o "$tmp/mix.csv" --symfs "$(dirname "$f")" "$f"
done <"$tmp/files"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
