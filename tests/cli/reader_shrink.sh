#!/bin/sh
# An input that shrinks while it is read (another process truncates it): the records come
# short from pread(2) (and where a file is mapped, touching a page past the new end raises
# SIGBUS). The program must not die of it: one message naming the file and the offset,
# exit 2, and no output file or temporary left behind. Deterministic: `dump` writes into a FIFO nobody reads, so it blocks after the
# first 64 KiB of text; the file is truncated to 64 KiB then, and the FIFO drained.
. "$(dirname "$0")/../lib.sh"

tool=$BUILD/tools/perf_repeat
if [ ! -x "$tool" ]; then fail "reader_shrink: $tool not built"; exit 0; fi
src=$(dirname "$0")/../../samples/demo/perf.data
"$tool" "$src" "$TMP/big.data" 30 || { fail "reader_shrink: perf_repeat"; exit 0; }
mkfifo "$TMP/fifo"
"$HBBP" dump "$TMP/big.data" > "$TMP/fifo" 2> "$TMP/err" &
pid=$!
exec 7< "$TMP/fifo"
dd bs=4096 count=1 <&7 > /dev/null 2>&1	# dump is running and has read the start
sleep 0.3					# ... and is blocked on the full FIFO
truncate -s 65536 "$TMP/big.data"
cat <&7 > /dev/null
exec 7<&-
wait $pid
rc=$?
check "reader_shrink: dump exits 2 (got $rc)" [ "$rc" -eq 2 ]
check "reader_shrink: dump names the file and the offset: $(head -c 200 "$TMP/err")" \
	grep -Eq "big.data: the file shrank while it was being read (\(bus error )?at 0x" "$TMP/err"

# the conversion: the output must not appear, nor its hidden temporary
"$tool" "$src" "$TMP/big2.data" 1000 || { fail "reader_shrink: perf_repeat"; exit 0; }
mkdir "$TMP/out"
"$HBBP" -q -o "$TMP/out/mix.csv" "$TMP/big2.data" 2> "$TMP/err2" &
pid=$!
sleep 0.1
truncate -s 65536 "$TMP/big2.data"
wait $pid
rc=$?
if [ "$rc" -eq 0 ]; then
	skip "reader_shrink: the conversion finished before the truncation"
else
	check "reader_shrink: convert exits 2 (got $rc): $(head -c 200 "$TMP/err2")" [ "$rc" -eq 2 ]
	check "reader_shrink: no output and no temporary file: $(ls -A "$TMP/out")" \
		[ -z "$(ls -A "$TMP/out")" ]
fi
