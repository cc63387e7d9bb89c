#!/bin/sh
# Output does not depend on the process locale: with a decimal-comma locale (de_DE, built
# here with localedef into a scratch LOCPATH) active in the writing process, CSV, JSON and
# JSONL are byte-identical to those written under the C locale.
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tools/writetest
[ -x "$W" ] || { fail "writers_locale: $W not built"; exit 0; }
mkdir -p "$TMP/loc"
if ! command -v localedef > /dev/null ||
   ! localedef -i de_DE -f UTF-8 "$TMP/loc/de_DE.UTF-8" > /dev/null 2>&1; then
	skip "writers_locale: cannot build a de_DE locale (localedef, locales sources)"
	exit 0
fi
# The locale must really give a decimal comma, or this test proves nothing.
if [ "$(LOCPATH=$TMP/loc LC_ALL=de_DE.UTF-8 /usr/bin/printf '%.1f' 0.5)" != "0,5" ]; then
	skip "writers_locale: the built de_DE locale does not load"
	exit 0
fi
for fmt in csv json jsonl; do
	"$W" -n 50 $fmt "$TMP/c.$fmt" 2> /dev/null
	LOCPATH=$TMP/loc LC_ALL=de_DE.UTF-8 "$W" -l -n 50 $fmt "$TMP/de.$fmt" 2> /dev/null
	check "writers_locale: $fmt under de_DE equals C" cmp -s "$TMP/c.$fmt" "$TMP/de.$fmt"
done
check "writers_locale: reals have a decimal point" grep -q ',0.3333333333333333,' "$TMP/de.csv"
