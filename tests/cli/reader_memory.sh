#!/bin/sh
# Memory stays flat as the input grows: corpus recordings (one without, one with
# FINISHED_ROUND records) and the same recordings with their data section repeated 10 times
# (tests/tools/perf_repeat) must have peak RSS of `dump > /dev/null` within 4 MB of each
# other; prints the dump throughput in MB/s.
. "$(dirname "$0")/../lib.sh"

src=$CORPUS/perf_data_converter/with-callchain.perf.data
if [ ! -f "$src" ]; then skip "reader_memory: corpus file missing"; exit 0; fi
case $BUILD in */san*) skip "reader_memory: RSS is not meaningful under sanitizers"; exit 0 ;; esac
if [ ! -x /usr/bin/time ]; then skip "reader_memory: /usr/bin/time missing"; exit 0; fi
tool=$BUILD/tools/perf_repeat
if [ ! -x "$tool" ]; then fail "reader_memory: $tool not built"; exit 0; fi
"$tool" "$src" "$TMP/x1" 1 && "$tool" "$src" "$TMP/x10" 10 || { fail "reader_memory: perf_repeat"; exit 0; }
rss() { /usr/bin/time -f %M "$HBBP" dump "$1" 2>&1 >/dev/null | tail -n 1; }
n1=$("$HBBP" dump "$TMP/x1" | wc -l)
n10=$("$HBBP" dump "$TMP/x10" | wc -l)
check "reader_memory: 10x file has 10x samples ($n1, $n10)" [ "$n10" -eq $((n1 * 10)) ]
r1=$(rss "$TMP/x1")
r10=$(rss "$TMP/x10")
echo "peak RSS: 1x ${r1} kB, 10x ${r10} kB" >&2
check "reader_memory: peak RSS flat (1x ${r1} kB, 10x ${r10} kB)" [ $((r10 - r1)) -lt 4096 ]
# a recording with FINISHED_ROUND records: rounds bound the queue
src2=$CORPUS/autofdo/propeller_sample.perfdata
if [ -f "$src2" ] && "$tool" "$src2" "$TMP/p1" 1 && "$tool" "$src2" "$TMP/p10" 10; then
	r1=$(rss "$TMP/p1")
	r10=$(rss "$TMP/p10")
	check "reader_memory: peak RSS flat with rounds (1x ${r1} kB, 10x ${r10} kB)" [ $((r10 - r1)) -lt 4096 ]
fi
bytes=$(stat -c %s "$TMP/x10")
t0=$(date +%s.%N)
"$HBBP" dump "$TMP/x10" > /dev/null
t1=$(date +%s.%N)
echo "dump throughput: $(echo "$bytes $t0 $t1" | awk '{ printf "%.0f MB/s (%d bytes in %.2f s)", $1 / 1e6 / ($3 - $2), $1, $3 - $2 }')" >&2
