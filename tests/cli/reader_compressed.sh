#!/bin/sh
# Compressed recordings: a corpus recording rewritten by tests/tools/perf_zpack as
# PERF_RECORD_COMPRESSED, COMPRESSED2 and COMPRESSED2 with the perf 6.16 size-field writer
# bug must give exactly the `dump` of the uncompressed original; a COMPRESSED record nested
# inside compressed data (perf never writes one) is skipped, counted by `stats` and named in a
# note by a conversion. Also the real compressed
# corpus files must match their MANIFEST sample counts (covered by reader_corpus).
. "$(dirname "$0")/../lib.sh"

src=$CORPUS/perf_data_converter/perf.data.branch-4.14
[ -f "$src" ] || src=$CORPUS/autofdo/propeller_sample.perfdata
if [ ! -f "$src" ]; then skip "reader_compressed: corpus file missing"; exit 0; fi
tool=$BUILD/tools/perf_zpack
if [ ! -x "$tool" ]; then fail "reader_compressed: $tool not built"; exit 0; fi
"$HBBP" dump "$src" > "$TMP/orig.txt" || { fail "reader_compressed: dump of original"; exit 0; }
for mode in c1 c2 c2bug; do
	if ! "$tool" "$src" "$TMP/$mode.data" $mode; then
		fail "reader_compressed: perf_zpack $mode"; continue
	fi
	"$HBBP" dump "$TMP/$mode.data" > "$TMP/$mode.txt" 2> "$TMP/$mode.err"
	check "reader_compressed: $mode dump equals the uncompressed file" \
		cmp -s "$TMP/orig.txt" "$TMP/$mode.txt"
	"$HBBP" stats "$TMP/$mode.data" > "$TMP/$mode.json"
	check "reader_compressed: $mode stats says compressed" grep -q '"compressed": true' "$TMP/$mode.json"
done
check "reader_compressed: c2bug has the unknown filler records" grep -q '"type100": 2' "$TMP/c2bug.json"

# nested: the same dump (the inner record skipped), counted, and said by a conversion
if "$tool" "$src" "$TMP/nested.data" nested; then
	"$HBBP" dump "$TMP/nested.data" > "$TMP/nested.txt" 2> "$TMP/nested.err"
	"$HBBP" stats "$TMP/nested.data" > "$TMP/nested.json"
	"$HBBP" -o "$TMP/nested.csv" "$TMP/nested.data" 2> "$TMP/nested.conv"
	expect "reader_compressed: a nested COMPRESSED record is skipped, counted and said" \
		'cmp -s "$TMP/orig.txt" "$TMP/nested.txt" &&
		 grep -q "\"nested_compressed\": 1\$" "$TMP/nested.json" &&
		 grep -q "1 compressed record(s) inside compressed data skipped" "$TMP/nested.conv"'
else
	fail "reader_compressed: perf_zpack nested"
fi
