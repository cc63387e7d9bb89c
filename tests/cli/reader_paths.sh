#!/bin/sh
# The two ways the reader takes the records of a file agree: used in place in the file's map
# (queued without a copy) and read with pread(2) into a buffer (copied for time ordering).
# tests/tools/reader_paths reads every corpus recording both ways and compares every
# delivered record and sample field, branch entries included; plus the same recordings'
# data sections repeated three times (tests/tools/perf_repeat: times out of order).
. "$(dirname "$0")/../lib.sh"
tool=$BUILD/tools/reader_paths
rep=$BUILD/tools/perf_repeat
if ! have_corpus; then skip "reader_paths: corpus missing"; exit 0; fi
if [ ! -x "$tool" ] || [ ! -x "$rep" ]; then skip "reader_paths: tools not built"; exit 0; fi
n=0 differ=0
for f in $(find "$CORPUS" -type f ! -name '*.md' | sort); do
	"$tool" "$f" > "$TMP/out" 2>/dev/null
	case $? in
	0) n=$((n + 1)) ;;
	1) differ=$((differ + 1)); echo "differs: $f" >&2; cat "$TMP/out" >&2 ;;
	esac
done
expect "reader_paths: in place and pread agree on $n corpus files ($differ differ)" \
	'[ "$differ" -eq 0 ] && [ "$n" -gt 100 ]'
n=0 differ=0
for f in perf_data_converter/with-callchain.perf.data autofdo/propeller_sample.perfdata \
	perf_data_converter/perf.data.branch-4.14; do
	[ -f "$CORPUS/$f" ] || continue
	"$rep" "$CORPUS/$f" "$TMP/r.data" 3 2>/dev/null || continue
	if "$tool" "$TMP/r.data" > "$TMP/out" 2>&1; then
		n=$((n + 1))
	else
		differ=$((differ + 1)); cat "$TMP/out" >&2
	fi
done
expect "reader_paths: in place and pread agree on $n repeated recordings ($differ differ)" \
	'[ "$differ" -eq 0 ] && [ "$n" -gt 0 ]'
