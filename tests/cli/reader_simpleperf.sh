#!/bin/sh
# simpleperf's own record types (type >= 32768) carry a 32-bit size, its high half in the
# header's misc field, and simpleperf puts the tracing data inside its TRACING_DATA record.
# The two corpus recordings that use them must read (exit 0), with the SAMPLE count of an
# independent walker (python3, simpleperf's RecordHeader rule, record.h). The MANIFEST's own
# walker stopped at these records ("walk: record size ..." in its notes, count 0): the test
# checks that note is still there, so a corrected MANIFEST count replaces the walker here.
. "$(dirname "$0")/../lib.sh"

if ! have_corpus; then skip "reader_simpleperf: no corpus at $CORPUS"; exit 0; fi
if ! command -v python3 >/dev/null 2>&1; then skip "reader_simpleperf: python3 not installed"; exit 0; fi

walk() {	# SAMPLE records and records in the data section, simpleperf's size rule
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off, size = struct.unpack_from('<QQ', d, 40)
end, n, recs = off + size, 0, 0
while off + 8 <= end:
    t, m, s = struct.unpack_from('<IHH', d, off)
    sz = (m << 16 | s) if t >= 32768 else s
    if t == 66 and sz == 16:          # Linux perf: the tracing data follows the record
        sz += struct.unpack_from('<I', d, off + 8)[0]
    if sz < 8:
        print("bad", hex(off)); sys.exit(0)
    n += t == 9
    recs += 1
    off += sz
print(n, recs)
PY
}
for name in perf_sched_stat_runtime perf_with_tracepoint_event; do
	f=$CORPUS/simpleperf/$name.data
	if [ ! -f "$f" ]; then skip "reader_simpleperf $name: not in the corpus"; continue; fi
	"$HBBP" stats "$f" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	ours=$(grep -o '"samples": [0-9]*' "$TMP/out" | awk '{ s += $2 } END { print s + 0 }')
	ref=$(walk "$f")
	manifest=$(grep -F "simpleperf/$name.data |" "$CORPUS/MANIFEST.md" | awk -F'|' '{ print $11 }')
	echo "$name: exit $rc, samples ours $ours, walker $ref, MANIFEST '$manifest'" >&2
	check "reader_simpleperf $name: reads (exit $rc), SAMPLE count $ours = walker's ${ref% *}" \
		sh -c "[ $rc -eq 0 ] && [ '$ours' -gt 0 ] && [ '$ours' = '${ref% *}' ] &&
			grep -F 'simpleperf/$name.data |' '$CORPUS/MANIFEST.md' | grep -q 'walk: record size'"
done
