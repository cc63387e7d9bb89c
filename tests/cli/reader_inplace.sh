#!/bin/sh
# A record queued for long: a recording (perfgen) with one FINISHED_ROUND at the start and
# then 115 MB of 32-deep LBR samples without rounds, whose second sample has a time far in
# the future. The queue's memory limit delivers the older half again and again while that
# sample stays queued in place in the read window; its bytes are copied out of the window
# once the reading is 96 MiB past it. Checks against stock perf: the same samples in the
# same order (that sample last); and the peak RSS of `dump` stays below 200 MB.
. "$(dirname "$0")/../lib.sh"
PERFGEN=$BUILD/tools/perfgen
if [ ! -x "$PERFGEN" ]; then skip "reader_inplace: perfgen not built"; exit 0; fi
avail=$(df -Pm "$TMP" | awk 'NR == 2 { print $4 }')
if [ "$avail" -lt 400 ]; then skip "reader_inplace: less than 400 MB free in $TMP"; exit 0; fi
br=$(awk 'BEGIN { for (k = 1; k <= 32; k++) printf "%s0x%x/0x%x", (k > 1 ? "," : ""), 4194312 + 16 * k, 4194304 + 16 * k }')
cat > "$TMP/pin.spec" <<EOF2
header hostname=pin osrelease=6.1.0 version=6.1.0 arch=x86_64 nrcpus=1 cmdline="perf record -b" branch_stack
event name=br_inst_retired.near_taken type=4 config=0x20c4 period=100 sample_type=ip,tid,time,id,period,branch_stack branch_sample_type=any,user ids=21 flags=disabled,inherit,mmap,comm,mmap2
comm pid=100 tid=100 name=pin time=1 id=21
round
sample pid=100 tid=100 ip=0x401000 time=2 br=$br
sample pid=100 tid=100 ip=0x999999 period=7777 time=1000000000 br=$br
sample pid=100 tid=100 ip=0x401004 time=3 br=$br
repeat 140000
sample pid=100 tid=100 ip=0x401008 time=+1 br=$br
end
EOF2
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$PERFGEN" "$TMP/pin.spec" "$TMP/pin.data" \
	2> "$TMP/perfgen.err" || { fail "reader_inplace: perfgen: $(head -1 "$TMP/perfgen.err")"; exit 0; }
size=$(stat -c %s "$TMP/pin.data")
if [ "$size" -lt 110000000 ]; then fail "reader_inplace: recording of $size bytes, too small"; exit 0; fi
"$HBBP" dump "$TMP/pin.data" > "$TMP/dump.txt" 2> "$TMP/dump.err" ||
	{ fail "reader_inplace: dump failed: $(head -1 "$TMP/dump.err")"; exit 0; }
# dump: event pid/tid ip period branches...
awk '{ print $3, $4 }' "$TMP/dump.txt" > "$TMP/ours"
n=$(wc -l < "$TMP/ours")
last=$(tail -n 1 "$TMP/ours")
expect "reader_inplace: 140003 samples, the far-future one last ($n, $last)" \
	'[ "$n" -eq 140003 ] && [ "$last" = "0x999999 7777" ]'
if command -v perf >/dev/null 2>&1; then
	perf script -i "$TMP/pin.data" -F ip,period 2> /dev/null |
		awk '{ printf "0x%s %s\n", $2, $1 }' > "$TMP/perf"
	check "reader_inplace: same samples in the same order as perf script" \
		cmp -s "$TMP/ours" "$TMP/perf"
else
	skip "reader_inplace: perf not installed, order not compared"
fi
case $BUILD in */san*) skip "reader_inplace: RSS is not meaningful under sanitizers"; exit 0 ;; esac
if [ -x /usr/bin/time ]; then
	rss=$(/usr/bin/time -f %M "$HBBP" dump "$TMP/pin.data" 2>&1 > /dev/null | tail -n 1)
	check "reader_inplace: peak RSS ${rss} kB < 200 MB" [ "$rss" -lt 204800 ]
fi
