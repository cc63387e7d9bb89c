#!/bin/sh
# Memory per mapping: a system-wide recording holds an mmap record for each of many
# processes. 200,000 distinct-pid mmap records of one library convert in at most 250 bytes
# of peak RSS per process above the same recording with one such process (peak RSS by
# /usr/bin/time; before the address-space arrays started small, ~550 bytes each).
. "$(dirname "$0")/../lib.sh"

GEN=$BUILD/tools/perfgen
if [ ! -x "$GEN" ] || [ ! -x /usr/bin/time ]; then
	skip "session_mem: perfgen or /usr/bin/time missing"; exit 0
fi
N=200000
# spec N: N processes each mapping libc, 100 samples in the first one
spec() {
	awk -v n="$1" 'BEGIN {
		print "event name=instructions type=0 config=1 period=10007 sample_type=ip,tid,time,id,period"
		for (i = 1; i <= n; i++)
			printf "mmap2 pid=%d tid=%d start=0x7f0000000000 len=0x200000 pgoff=0 file=/usr/lib/libc.so.6 prot=5\n", i, i
		for (i = 1; i <= 100; i++)
			printf "sample pid=1 tid=1 ip=0x7f0000001000 time=%d\n", i
	}'
}
spec 1 | "$GEN" - "$TMP/one.data" && spec $N | "$GEN" - "$TMP/many.data" ||
	{ fail "session_mem: perfgen"; exit 0; }
# no binary is given: exit 4 (no row) in both, after the whole address space was built
/usr/bin/time -f %M -o "$TMP/rss.one" "$HBBP" -q -j 1 -f csv -o /dev/null "$TMP/one.data" 2>/dev/null
/usr/bin/time -f %M -o "$TMP/rss.many" "$HBBP" -q -j 1 -f csv -o /dev/null "$TMP/many.data" 2>/dev/null
one=$(tail -1 "$TMP/rss.one"); many=$(tail -1 "$TMP/rss.many")
per=$(( (many - one) * 1024 / N ))
expect "session_mem: $N processes' mappings cost $per bytes each of peak RSS (<= 250)" \
	'[ -n "$one" ] && [ -n "$many" ] && [ $per -le 250 ]'
