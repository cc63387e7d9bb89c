#!/bin/sh
# perf.data directories: a `perf record --threads` recording (header file `data` plus
# header-less data.N streams) must give the same samples as `perf script` and the count of
# `perf report --stats`; a kcore_dir/ next to `data` is reported. Skips without perf.
. "$(dirname "$0")/../lib.sh"

if ! command -v perf >/dev/null 2>&1; then skip "reader_dir: perf not installed"; exit 0; fi
d=$TMP/t.data
if ! perf record -q --threads -e cpu-clock -F 4000 -o "$d" -- \
	sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done' > /dev/null 2>&1 || [ ! -f "$d/data" ]; then
	skip "reader_dir: perf record --threads does not work here"; exit 0
fi
ls "$d" | grep -q '^data\.' || { skip "reader_dir: no data.N files written"; exit 0; }
"$HBBP" stats "$d" > "$TMP/stats.json" || fail "reader_dir: stats failed"
check "reader_dir: stats says directory" grep -q '"directory": true' "$TMP/stats.json"
ours=$(grep -o '"samples": [0-9]*' "$TMP/stats.json" | awk '{ s += $2 } END { print s + 0 }')
theirs=$(perf report --stats -i "$d" 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
expect "reader_dir: sample count equals perf report ($ours, $theirs)" '[ "$ours" = "$theirs" ] && [ "$ours" -gt 0 ]'
"$HBBP" dump "$d" | cut -d' ' -f2- | sort > "$TMP/ours"
perf script --hide-call-graph -F pid,tid,ip,period -i "$d" 2>/dev/null |
	awk '{ ip = $3; sub(/^0+/, "", ip); print $1 " 0x" ip " " $2 }' | sort > "$TMP/perf"
check "reader_dir: dump equals perf script" cmp -s "$TMP/ours" "$TMP/perf"
mkdir "$d/kcore_dir"
"$HBBP" stats "$d" > "$TMP/stats2.json"
check "reader_dir: kcore_dir reported" grep -q '"kcore_dir": ".*/kcore_dir"' "$TMP/stats2.json"
