#!/bin/sh
# Corpus test of the perf.data reader: `hbbp-convert stats` on every file of the real corpus
# (../shared/perfdata). Recordings must be read (exit 0), fuzz inputs and deliberately
# corrupted files must be rejected with exit 2 and a "FILE: ... at 0x..." message, and
# nothing may crash (exit >= 124) or hang. Per-event sample counts are compared with
# `perf report --stats` (stock perf, run live) or, for files perf cannot read (marked * in
# MANIFEST.md), with the MANIFEST counts.
. "$(dirname "$0")/../lib.sh"

if ! have_corpus; then skip "reader_corpus: no corpus at $CORPUS"; exit 0; fi
have_perf=0
command -v perf >/dev/null 2>&1 && have_perf=1

# MANIFEST rows: path|#samples
awk -F'|' '/^\| [a-z_]+\// { p=$2; s=$11; gsub(/^ +| +$/, "", p); gsub(/^ +| +$/, "", s); print p "|" s "|" $0 }' \
	"$CORPUS/MANIFEST.md" > "$TMP/manifest"

ours_counts() {	# nonzero per-event sample counts, one per line, in event order
	grep -o '"samples": [0-9]*' "$1" | awk '$2 != 0 { print $2 }'
}
# perf's per-event counts; when they do not add up to its aggregate SAMPLE count (group
# READ samples are counted once per member) the aggregate alone, prefixed with "total".
perf_counts() {
	timeout 120 perf report --stats -i "$1" 2>/dev/null | awk '
		/^Aggregated stats:/ { agg = 1; next }
		agg && /SAMPLE events:/ { total = $3; agg = 0; next }
		/ stats:$/ { in_ev = 1; next }
		in_ev && /SAMPLE events:/ { if ($3 != 0) { c[n++] = $3; sum += $3 } in_ev = 0 }
		END { if (n > 1 && sum != total) print "total " total;
		      else for (i = 0; i < n; i++) print c[i] }'
}
manifest_counts() {	# "3893 (cycles:669, instructions:644)" -> 669 644; "145*" -> 145
	echo "$1" | awk '{
		if (match($0, /\(.*\)/)) {
			s = substr($0, RSTART + 1, RLENGTH - 2); n = split(s, a, ", ");
			for (i = 1; i <= n; i++) { m = split(a[i], b, ":"); if (b[m] != 0) print b[m] }
		} else { v = $1; sub(/\*$/, "", v); if (v != 0) print v }
	}'
}

nfail=0 nok=0 nrej=0 ncmp=0
find "$CORPUS" -type f ! -name MANIFEST.md | sort > "$TMP/files"
while read -r f; do
	rel=${f#"$CORPUS"/}
	row=$(grep -F "$rel|" "$TMP/manifest" | head -n 1)
	timeout 60 "$HBBP" stats "$f" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ $rc -ge 124 ]; then
		echo "$rel: crashed or hung (exit $rc)" >&2; nfail=$((nfail + 1)); continue
	fi
	case $rel in
	perf_data_converter_fuzz/*|*.corrupted.*) expect=2 ;;
	*) r2=${row#*|}; if [ -n "${r2%%|*}" ]; then expect=0; else expect=any; fi ;;
	esac
	# files whose records the MANIFEST's independent walker also found broken
	case $row in *'walk: record size'*) expect=any ;; esac
	if [ $rc -ne 0 ]; then
		if [ $rc -ne 2 ] || ! grep -q "^hbbp-convert: .*: .* at 0x[0-9a-f]*" "$TMP/err"; then
			echo "$rel: exit $rc without a proper message: $(cat "$TMP/err")" >&2
			nfail=$((nfail + 1)); continue
		fi
		if [ "$expect" = 0 ]; then
			echo "$rel: rejected: $(cat "$TMP/err")" >&2; nfail=$((nfail + 1)); continue
		fi
		nrej=$((nrej + 1)); continue
	fi
	if [ "$expect" = 2 ]; then
		# a fuzz input that still parses is fine as long as nothing crashed
		nok=$((nok + 1)); continue
	fi
	[ -z "$row" ] && { nok=$((nok + 1)); continue; }
	nok=$((nok + 1))
	msamples=${row#*|}
	msamples=${msamples%%|*}
	ours_counts "$TMP/out" > "$TMP/ours"
	case $msamples in
	*'*'*) manifest_counts "$msamples" > "$TMP/ref"; src=MANIFEST ;;
	*)	if [ $have_perf = 1 ]; then perf_counts "$f" > "$TMP/ref"; src=perf
			# perf cannot read it and the MANIFEST walker stopped early: the count
			# is checked by reader_simpleperf.sh with a walker that knows the format
			case $row in *'perf 6.1 FAILS'*'walk: record size'*)
				[ -s "$TMP/ref" ] || continue ;; esac
		else manifest_counts "$msamples" > "$TMP/ref"; src=MANIFEST; fi ;;
	esac
	if head -n 1 "$TMP/ref" | grep -q '^total '; then
		awk '{ s += $1 } END { print "total " s }' "$TMP/ours" > "$TMP/ours2"
		mv "$TMP/ours2" "$TMP/ours"
	elif [ "$src" = MANIFEST ] && ! echo "$msamples" | grep -q '('; then
		awk '{ s += $1 } END { if (s) print s }' "$TMP/ours" > "$TMP/ours2"
		mv "$TMP/ours2" "$TMP/ours"
	fi
	ncmp=$((ncmp + 1))
	if ! cmp -s "$TMP/ours" "$TMP/ref"; then
		echo "$rel: sample counts differ from $src: ours [$(tr '\n' ' ' < "$TMP/ours")]" \
			"$src [$(tr '\n' ' ' < "$TMP/ref")]" >&2
		nfail=$((nfail + 1))
	fi
done < "$TMP/files"
echo "reader_corpus: $nok read, $nrej rejected, $ncmp count comparisons, $nfail failures" >&2
if [ $nfail -eq 0 ]; then pass "reader_corpus ($nok read, $nrej rejected, $ncmp counts compared)"
else fail "reader_corpus ($nfail failures)"; fi
