#!/bin/sh
# Cycles per block (docs/METHOD-cycles.md) on real recordings:
# - autofdo's propeller_sample.perfdata (Skylake-SP, branch entries with cycle counts): every
#   block's cycles per instruction (cycles / count of its --by block row) equals what
#   tests/cli/cycles_corpus.awk computes from `perf script -F period,ip,brstack` and objdump,
#   to 1e-9 relative (blocks whose rounded cycles and count are >= 1e9: their rounding is
#   below 5e-10);
# - autofdo's hierarchical_discriminator_test (Haswell-E, no cycle counts): no cycles columns,
#   and one line on stderr says why (a line of the summary: not under -q);
# - both into one SQLite store: its mix table has the cycles columns, NULL for the run without
#   cycle counts.
. "$(dirname "$0")/../lib.sh"
A=$CORPUS/autofdo
if ! have_corpus || [ ! -f "$A/propeller_sample.perfdata" ] || [ ! -f "$A/propeller_sample_old.bin" ]; then
	skip "cycles_corpus: corpus absent"; exit 0
fi
"$HBBP" -q "$A/propeller_sample.perfdata" --binary "propeller_sample.bin=$A/propeller_sample_old.bin" \
	--lbr-weighting plain --method lbr --module propeller_sample.bin --by block \
	-o "$TMP/b.csv" 2>/dev/null
if command -v perf >/dev/null 2>&1 && command -v objdump >/dev/null 2>&1 &&
   perf script -F period,ip,brstack -i "$A/propeller_sample.perfdata" > "$TMP/bs.txt" 2>/dev/null; then
	objdump -d --no-show-raw-insn "$A/propeller_sample_old.bin" > "$TMP/od.txt"
	perf script --show-mmap-events -i "$A/propeller_sample.perfdata" 2>/dev/null |
		awk '/PERF_RECORD_MMAP/ && /propeller_sample.bin$/ {
			s = $0; sub(/.*\[/, "", s); sub(/\(.*/, "", s); print s }' | sort -u > "$TMP/maps.txt"
	awk -v OD="$TMP/od.txt" -v MAPS="$TMP/maps.txt" -f "$ROOT/tests/cli/cycles_corpus.awk" \
		"$TMP/bs.txt" > "$TMP/ref.txt"
	head -1 "$TMP/b.csv" | cut -d, -f2,6 > "$TMP/cols.txt"
	awk -F, 'NR > 1 && $2 >= 1e9 && $6 >= 1e9 { b = $1; sub(/.*\+0x/, "", b)
		printf "%s %.17g\n", b, $6 / $2 }' "$TMP/b.csv" > "$TMP/got.txt"
	awk 'NR == FNR { r[$1] = $2; next }
	     { ok++; d = $1 in r ? ($2 - r[$1]) / r[$1] : 1; d = d < 0 ? -d : d
	       if (d > m) m = d; if (d > 1e-9) { bad++; print "  block " $1 ": " $2 " vs " r[$1] > "/dev/stderr" } }
	     END { print ok + 0, bad + 0, m + 0 }' "$TMP/ref.txt" "$TMP/got.txt" > "$TMP/cmp.txt"
	read nr bad max < "$TMP/cmp.txt"
	echo "  propeller_sample: $nr blocks, cycles per instruction vs perf script + awk: max relative difference $max" >&2
	expect "cycles_corpus: propeller per-block cycles equal perf script's ($nr blocks, $bad off)" \
		"[ '$(cat "$TMP/cols.txt")' = 'count,cycles' ] && [ '$nr' -ge 10 ] && [ '$bad' = 0 ]"
else
	skip "cycles_corpus: perf or objdump absent or cannot read the file"
fi
H=$A/hierarchical_discriminator_test.x86_64
if [ -f "$H" ] && [ -f "$H.perf.data" ]; then
	"$HBBP" "$H.perf.data" --binary "hierarchical_discriminator_test=$H" --by mnemonic \
		-o "$TMP/h.csv" 2>"$TMP/h.err"
	expect "cycles_corpus: no cycle counts, no cycles columns and one line saying why" \
		"! head -1 '$TMP/h.csv' | grep -q cycles && head -1 '$TMP/h.csv' | grep -q '^mnemonic,count,' &&
		 [ \$(grep -c 'no cycle counts in the branch entries.*no cycles columns' '$TMP/h.err') = 1 ]"
	"$HBBP" -q "$H.perf.data" --binary "hierarchical_discriminator_test=$H" --by mnemonic \
		-o "$TMP/q.csv" 2>"$TMP/q.err"
	expect "cycles_corpus: no cycle counts under -q: the same CSV, the line not on stderr" \
		"cmp -s '$TMP/h.csv' '$TMP/q.csv' && [ -s '$TMP/q.err' ] && ! grep -q 'no cycles columns' '$TMP/q.err'"
	"$HBBP" -q "$H.perf.data" "$A/propeller_sample.perfdata" --by mnemonic -o "$TMP/two.csv" \
		--binary "hierarchical_discriminator_test=$H" \
		--binary "propeller_sample.bin=$A/propeller_sample_old.bin" 2>"$TMP/two.err"
	rc=$?
	expect "cycles_corpus: one CSV of runs without and with cycle counts: the second refused (exit $rc)" \
		"[ $rc = 2 ] && ! head -1 '$TMP/two.csv' | grep -q cycles && grep -q 'columns differ' '$TMP/two.err'"
	if command -v sqlite3 >/dev/null 2>&1; then
		"$HBBP" -q "$H.perf.data" --binary "hierarchical_discriminator_test=$H" \
			--by mnemonic -o "$TMP/r.sqlite" 2>/dev/null
		"$HBBP" -q "$A/propeller_sample.perfdata" --by mnemonic --append -o "$TMP/r.sqlite" \
			--binary "propeller_sample.bin=$A/propeller_sample_old.bin" 2>/dev/null
		sqlite3 "$TMP/r.sqlite" "SELECT run_id, COUNT(*), COUNT(cycles), COUNT(ipc),
			COUNT(cycles_share) FROM mix GROUP BY run_id ORDER BY run_id" > "$TMP/r.txt" 2>&1
		expect "cycles_corpus: one SQLite store, runs with and without cycle counts: NULL for the latter" \
			"[ \$(wc -l < '$TMP/r.txt') = 2 ] && grep -q '^1|[1-9][0-9]*|0|0|0\$' '$TMP/r.txt' &&
			 awk -F'|' 'NR == 2 && \$3 > 0 && \$3 == \$4 { ok = 1 } END { exit !ok }' '$TMP/r.txt'"
	else
		skip "cycles_corpus: sqlite3 not installed"
	fi
else
	skip "cycles_corpus: hierarchical_discriminator_test absent"
fi
