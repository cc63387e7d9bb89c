#!/bin/sh
# Truncated recordings (perf record killed before writing the header): a corpus file with
# data size 0 in its header and cut in the middle of a record must be read up to the last
# complete record (exit 0, "truncated": true, a warning on stderr) and give a prefix of the
# full file's `dump --no-sort`. A pipe stream cut the same way behaves alike.
. "$(dirname "$0")/../lib.sh"

src=$CORPUS/perf_data_converter/perf.data.branch-4.14
if [ ! -f "$src" ]; then skip "reader_truncated: corpus file missing"; exit 0; fi
u64() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
d_off=$(u64 "$src" 40)
d_size=$(u64 "$src" 48)
cut=$((d_off + d_size / 2 + 5))
head -c "$cut" "$src" > "$TMP/t.data"
printf '\0\0\0\0\0\0\0\0' | dd of="$TMP/t.data" bs=1 seek=48 conv=notrunc 2>/dev/null
"$HBBP" dump --no-sort "$src" > "$TMP/full.txt" 2>/dev/null
"$HBBP" dump --no-sort "$TMP/t.data" > "$TMP/t.txt" 2> "$TMP/t.err"
rc=$?
check "reader_truncated: exit 0 (got $rc)" [ $rc -eq 0 ]
check "reader_truncated: warning on stderr" grep -q 'truncated' "$TMP/t.err"
n=$(wc -l < "$TMP/t.txt")
# The event is named by the (lost) EVENT_DESC feature in the full file, from its attr in the
# cut one (cycles:ppp vs cycles:pppH): compare the samples without the name.
head -n "$n" "$TMP/full.txt" | cut -d' ' -f2- > "$TMP/prefix.txt"
cut -d' ' -f2- "$TMP/t.txt" > "$TMP/t.nameless"
expect "reader_truncated: $n samples, a prefix of the full dump" \
	'[ "$n" -gt 0 ] && [ "$n" -lt "$(wc -l < "$TMP/full.txt")" ] && cmp -s "$TMP/prefix.txt" "$TMP/t.nameless"'
"$HBBP" stats "$TMP/t.data" > "$TMP/t.json" 2>/dev/null
check "reader_truncated: stats says truncated" grep -q '"truncated": true' "$TMP/t.json"

pipe=$CORPUS/perf_data_converter/perf.data.piped.target-3.4
if [ -f "$pipe" ]; then
	sz=$(stat -c %s "$pipe")
	head -c $((sz * 9 / 10 + 3)) "$pipe" > "$TMP/p.data"
	"$HBBP" dump --no-sort "$pipe" > "$TMP/pfull.txt" 2>/dev/null
	"$HBBP" dump --no-sort "$TMP/p.data" > "$TMP/p.txt" 2>/dev/null
	rc=$?
	n=$(wc -l < "$TMP/p.txt")
	head -n "$n" "$TMP/pfull.txt" > "$TMP/pprefix.txt"
	expect "reader_truncated: cut pipe stream read to its last record (exit $rc, $n samples)" \
		'[ $rc -eq 0 ] && [ "$n" -gt 0 ] && cmp -s "$TMP/pprefix.txt" "$TMP/p.txt"'
fi
