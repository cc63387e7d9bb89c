#!/bin/sh
# Compressed recordings: a corpus recording rewritten by tests/tools/perf_zpack as
# PERF_RECORD_COMPRESSED, COMPRESSED2 and COMPRESSED2 with the perf 6.16 size-field writer
# bug must give exactly the `dump` of the uncompressed original. Also the real compressed
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
