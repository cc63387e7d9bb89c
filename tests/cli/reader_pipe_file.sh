#!/bin/sh
# Pipe mode vs file mode on the same recording: records a short cpu-clock profile in file
# mode with stock perf, converts it to a pipe stream with `perf inject -o -`, and requires
# identical `dump` output from the file, the pipe-format file, and the stream on stdin ('-').
# Skips when perf cannot record here.
. "$(dirname "$0")/../lib.sh"

if ! command -v perf >/dev/null 2>&1; then skip "reader_pipe_file: perf not installed"; exit 0; fi
if ! perf record -q -e cpu-clock -F 4000 -o "$TMP/x.file" -- \
	sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done' > /dev/null 2>&1; then
	skip "reader_pipe_file: perf record does not work here"; exit 0
fi
if ! perf inject -i "$TMP/x.file" -o - > "$TMP/x.pipe" 2> /dev/null; then
	skip "reader_pipe_file: perf inject failed"; exit 0
fi
"$HBBP" dump "$TMP/x.file" > "$TMP/file.txt" || fail "reader_pipe_file: dump of file failed"
"$HBBP" dump "$TMP/x.pipe" > "$TMP/pipe.txt" || fail "reader_pipe_file: dump of pipe file failed"
"$HBBP" dump - < "$TMP/x.pipe" > "$TMP/stdin.txt" || fail "reader_pipe_file: dump of stdin failed"
cat "$TMP/x.pipe" | "$HBBP" dump - > "$TMP/fifo.txt" || fail "reader_pipe_file: dump of a pipe failed"
n=$(wc -l < "$TMP/file.txt")
perf_n=$(perf report --stats -i "$TMP/x.file" 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
expect "reader_pipe_file: file has samples ($n, perf $perf_n)" '[ "$n" -gt 0 ] && [ "$n" = "$perf_n" ]'
check "reader_pipe_file: pipe-format file equals file mode" cmp -s "$TMP/file.txt" "$TMP/pipe.txt"
check "reader_pipe_file: stdin equals file mode" cmp -s "$TMP/file.txt" "$TMP/stdin.txt"
check "reader_pipe_file: fifo equals file mode" cmp -s "$TMP/file.txt" "$TMP/fifo.txt"
"$HBBP" stats "$TMP/x.pipe" > "$TMP/stats.json"
check "reader_pipe_file: stats says pipe" grep -q '"pipe": true' "$TMP/stats.json"
