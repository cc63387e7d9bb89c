#!/bin/sh
# An address-space record the session cannot take (a KSYMBOL whose end wraps to its start,
# crafted by tests/tools/perf_craft) is left out with a warning that counts it, not silently:
# the conversion goes on (its only sample is then unattributed: no row, exit 4).
. "$(dirname "$0")/../lib.sh"

tool=$BUILD/tools/perf_craft
if [ ! -x "$tool" ]; then skip "convert_bad_records: $tool not built"; exit 0; fi
mkdir -p "$TMP/c"
"$tool" "$TMP/c" > /dev/null || { fail "convert_bad_records: perf_craft failed"; exit 0; }
F=$TMP/c/ksymbol_wraps
"$HBBP" --ebs-event cycles:HG -o "$TMP/out.csv" "$F" 2> "$TMP/err"
rc=$?
expect "convert_bad_records: the left-out KSYMBOL is counted in a warning (exit $rc)" \
	'[ $rc -eq 4 ] &&
	 grep -q "warning: $F: malformed mmap, ksymbol or build-id records left out: 1 " "$TMP/err"'
grep -q "left out: 1 " "$TMP/err" || cat "$TMP/err" >&2
