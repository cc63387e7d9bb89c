#!/bin/sh
# `hbbp-convert dump` against stock `perf script -F pid,tid,ip,period,brstack` on every corpus
# recording perf reads (MANIFEST rows without '*', with samples), compared as sorted sets of
# "PID/TID IP PERIOD [FROM/TO ...]" lines (perf reorders and pads; its brstack entries
# 0xF/0xT/P/-/-/0 are cut to 0xF/0xT). Skips without perf or the corpus.
. "$(dirname "$0")/../lib.sh"

if ! have_corpus; then skip "reader_dump_perf: no corpus at $CORPUS"; exit 0; fi
if ! command -v perf >/dev/null 2>&1; then skip "reader_dump_perf: perf not installed"; exit 0; fi

awk -F'|' '/^\| [a-z_]+\// { p=$2; s=$11; gsub(/^ +| +$/, "", p); gsub(/^ +| +$/, "", s);
	if (s != "" && s !~ /\*/ && s !~ /^0/ && p !~ /fuzz|corrupted/) print p }' \
	"$CORPUS/MANIFEST.md" > "$TMP/files"

norm_perf() {
	awk '{
		line = $1; ip = $3; sub(/^0+/, "", ip); if (ip == "") ip = "0";
		line = line " 0x" ip " " $2;
		for (i = 4; i <= NF; i++) { n = split($i, b, "/"); if (n >= 2) line = line " " b[1] "/" b[2] }
		print line
	}'
}

nfail=0 n=0
while read -r rel; do
	f=$CORPUS/$rel
	case $rel in
	# perf script decodes the Intel PT trace into synthesized samples: not in the file
	*intel_pt*) continue ;;
	# group READ samples: perf script prints one line per group member
	simpleperf/perf_with_add_counter.data) continue ;;
	esac
	[ -f "$f" ] || continue
	timeout 120 perf script --hide-call-graph -F pid,tid,ip,period,brstack -i "$f" > "$TMP/perf.raw" 2> /dev/null
	if [ ! -s "$TMP/perf.raw" ]; then
		echo "$rel: perf script printed nothing, skipped" >&2
		continue
	fi
	norm_perf < "$TMP/perf.raw" | sort > "$TMP/perf"
	if ! timeout 60 "$HBBP" dump "$f" > "$TMP/dump.raw" 2> "$TMP/err"; then
		echo "$rel: dump failed: $(cat "$TMP/err")" >&2
		nfail=$((nfail + 1)); continue
	fi
	cut -d' ' -f2- "$TMP/dump.raw" | sort > "$TMP/ours"
	n=$((n + 1))
	if ! cmp -s "$TMP/perf" "$TMP/ours"; then
		echo "$rel: dump differs from perf script ($(wc -l < "$TMP/ours") vs $(wc -l < "$TMP/perf") lines):" >&2
		diff "$TMP/perf" "$TMP/ours" | head -n 4 | cut -c1-200 >&2
		nfail=$((nfail + 1))
	fi
done < "$TMP/files"
if [ $nfail -eq 0 ] && [ $n -gt 0 ]; then pass "reader_dump_perf ($n files equal to perf script)"
else fail "reader_dump_perf ($nfail of $n files differ)"; fi
