#!/bin/sh
# BUILD_ID feature: the build-id table of `stats` must equal `perf buildid-list -i FILE` for
# every corpus recording stock perf reads (MANIFEST rows without '*'), one entry per DSO
# name as perf keeps them. Skips without perf.
. "$(dirname "$0")/../lib.sh"

if ! have_corpus; then skip "reader_buildid: no corpus at $CORPUS"; exit 0; fi
if ! command -v perf >/dev/null 2>&1; then skip "reader_buildid: perf not installed"; exit 0; fi
awk -F'|' '/^\| [a-z_]+\// { p=$2; s=$11; gsub(/^ +| +$/, "", p); gsub(/^ +| +$/, "", s);
	if (s != "" && s !~ /\*/ && p !~ /fuzz|corrupted/ && $0 !~ /perf 6.1 FAILS/) print p }' "$CORPUS/MANIFEST.md" > "$TMP/files"
n=0 nbad=0 nids=0
while read -r rel; do
	f=$CORPUS/$rel
	[ -f "$f" ] || continue
	# perf also lists DSOs of MMAP records that have no build-id (blank id): not the table
	timeout 60 perf buildid-list -i "$f" 2>/dev/null | grep '^[0-9a-f]' | sort > "$TMP/perf" || continue
	"$HBBP" stats "$f" 2>/dev/null |
		sed -n 's/.*"build_id": "\([0-9a-f]*\)", "file": "\(.*\)"}.*/\1 \2/p' |
		awk '!seen[$2]++' | sort > "$TMP/ours"	# perf keeps one entry per DSO name
	n=$((n + 1))
	nids=$((nids + $(wc -l < "$TMP/ours")))
	if ! cmp -s "$TMP/perf" "$TMP/ours"; then
		echo "$rel: build-ids differ from perf buildid-list:" >&2
		diff "$TMP/perf" "$TMP/ours" | head -n 4 >&2
		nbad=$((nbad + 1))
	fi
done < "$TMP/files"
if [ $nbad -eq 0 ] && [ $nids -gt 0 ]; then pass "reader_buildid ($n files, $nids build-ids equal to perf)"
else fail "reader_buildid ($nbad of $n files differ)"; fi
