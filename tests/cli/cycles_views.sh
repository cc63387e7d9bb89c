#!/bin/sh
# The cycles (docs/METHOD-cycles.md) in the views, on a pmusim recording of the primes workload
# (its branch entries carry the timing model's cycle counts):
# - compare --value cycles reads pmusim's per-instruction cycle truth (--truth-insns) as
#   pmusim's own per-mnemonic truth (--truth) sums it, and the mix's cycles column as written;
# - report: each category's thin bar is the CSV's cycles_share, each hot function's IPC the
#   CSV's ipc;
# - annotate: each block's cycles per execution and IPC (text and -f csv) are the --by block
#   CSV's cycles / count and length * count / cycles;
# - diff --value cycles: cycles_a and cycles_b are the two runs' CSV cycles by category; a run
#   without cycle counts (corpus Haswell recording) is refused with its name.
. "$(dirname "$0")/../lib.sh"
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
if ! command -v qemu-x86_64 >/dev/null || [ ! -x "$PMUSIM" ]; then
	skip "cycles_views: qemu-x86_64 or pmusim absent"; exit 0
fi
if ! sh "$ROOT/samples/workloads/build.sh" "$TMP/wl" >/dev/null 2>"$TMP/build.err"; then
	fail "cycles_views: cannot build the workloads"; cat "$TMP/build.err" >&2; exit 0
fi
for s in 1 2; do
	if ! "$PMUSIM" --truth-cycles --seed $s --ebs-period 1009 --lbr-period 101 \
		-o "$TMP/p$s.data" --truth "$TMP/p$s.truth" --truth-insns "$TMP/p$s.insns" \
		-- "$TMP/wl/primes" $((2000 * s)) >/dev/null 2>"$TMP/pmusim.err"; then
		fail "cycles_views: pmusim failed"; cat "$TMP/pmusim.err" >&2; exit 0
	fi
done
D=$TMP/p1.data
"$HBBP" -q --by mnemonic -o "$TMP/mn.csv" "$D"
"$HBBP" -q --by category -o "$TMP/cat.csv" "$D"
"$HBBP" -q --by module,symbol -o "$TMP/fn.csv" "$D"
"$HBBP" -q --by block -o "$TMP/blk.csv" "$D"

# compare: reference = pmusim's --truth cycles per mnemonic, measured = the CSV's cycles
"$HBBP" compare --value cycles --ref "$TMP/p1.insns" -o "$TMP/cmp.csv" "$TMP/mn.csv" >/dev/null
awk -F, 'FILENAME ~ /truth$/ { if (FNR > 1) t[$1] = $3; next }
	FILENAME ~ /mn.csv$/ { if (FNR > 1 && $6 != "") m[$1] = $6; next }
	FNR > 1 { n++; if ($2 != t[$1] || $3 != m[$1]) { bad++; print "  " $0 > "/dev/stderr" } }
	END { print n + 0, bad + 0 }' "$TMP/p1.truth" "$TMP/mn.csv" "$TMP/cmp.csv" > "$TMP/cmp.txt"
read n bad < "$TMP/cmp.txt"
expect "cycles_views: compare --value cycles: pmusim's cycles by mnemonic and the CSV's ($n rows)" \
	'[ "$(head -1 "$TMP/mn.csv" | cut -d, -f6)" = cycles ] && [ "$n" -ge 10 ] && [ "$bad" = 0 ]'

# what the cycles measure: below a block, the summary (rows by category, not by symbol) and
# the report say that a block's cycles are spread evenly over its instructions
"$HBBP" --by category -o "$TMP/cat3.csv" "$D" 2>"$TMP/cat3.err"
"$HBBP" --by symbol -o "$TMP/sym3.csv" "$D" 2>"$TMP/sym3.err"
"$HBBP" report -q -o "$TMP/r.html" "$D"
expect "cycles_views: the summary by category and the report say the cycles are spread evenly within a block, by symbol not" \
	'grep -q "spread evenly over a block.s instructions" "$TMP/cat3.err" &&
	 ! grep -q "spread evenly" "$TMP/sym3.err" && grep -q "spread evenly over a block.s instructions" "$TMP/r.html"'

# report: data-cycles-share of the category bars, IPC of the functions
grep -o 'data-chart="category" data-key="[^"]*"[^>]*data-cycles-share="[^"]*"' "$TMP/r.html" |
	sed 's/.*data-key="\([^"]*\)".*data-cycles-share="\([^"]*\)"/\1 \2/' > "$TMP/r.cat"
awk 'NR == FNR { r[$1] = $2; next } FNR > 1 { split($0, f, ","); n++
	d = r[f[1]] - f[10]; if (!(f[1] in r) || d > 1e-9 || d < -1e-9) bad++ }
	END { print n + 0, bad + 0 }' "$TMP/r.cat" "$TMP/cat.csv" > "$TMP/rc.txt"
read n bad < "$TMP/rc.txt"
expect "cycles_views: report: each category's cycles share is the CSV's ($n categories)" \
	'[ "$n" -ge 5 ] && [ "$bad" = 0 ]'
tr '\n' ' ' < "$TMP/r.html" | grep -o 'data-symbol="[^"]*" data-count="[^"]*"><td>[^<]*</td><td><code>[^<]*</code></td>\(<td[^>]*>[^<]*</td>\)\{5\}' |
	sed 's/data-symbol="\([^"]*\)".*<td class="n" data-v="[^"]*">\([^<]*\)<\/td>$/\1 \2/' > "$TMP/r.ipc"
awk -F, 'NR == FNR { split($0, a, " "); r[a[1]] = a[2]; next }
	FNR > 1 && ($2 in r) { n++; if (sprintf("%.2f", $10) != r[$2]) { bad++; print "  " $2 ": " r[$2] " vs " $10 > "/dev/stderr" } }
	END { print n + 0, bad + 0 }' "$TMP/r.ipc" "$TMP/fn.csv" > "$TMP/ri.txt"
read n bad < "$TMP/ri.txt"
expect "cycles_views: report: each hot function's IPC is the CSV's ($n functions)" \
	'[ "$n" -ge 3 ] && [ "$bad" = 0 ]'

# annotate: per block, cycles per execution and IPC against the --by block CSV
"$HBBP" annotate -q --top 1 -f csv -o "$TMP/a.csv" "$D" 2>/dev/null ||
	"$HBBP" annotate -q --top 1 -f csv "$D" > "$TMP/a.csv"
"$HBBP" annotate -q --top 1 --no-color "$D" > "$TMP/a.txt"
# block "primes+0x401528" -> address 0x401528; --by block keys "primes+0x401528" alike
# the CSV ends with block, source, srcline, block_cycles, block_ipc (the instruction before
# them may hold commas); the --by block row's cycles are the block's, its count instructions
awk -F, 'NR == FNR { if (FNR > 1) y[$1] = $6; next }
	FNR == 1 { if ($NF != "block_ipc" || $(NF - 4) != "block") bad = 99; next }
	{ b = $(NF - 4); if (b in seen) next; seen[b] = 1; n++; c = $(NF - 1)
	  if (!(b in y) || c == "" || (c - y[b]) / y[b] > 1e-3 || (y[b] - c) / y[b] > 1e-3)
		{ bad++; print "  " b ": " c " vs " y[b] > "/dev/stderr" } }
	END { print n + 0, bad + 0 }' "$TMP/blk.csv" "$TMP/a.csv" > "$TMP/ac.txt"
read n bad < "$TMP/ac.txt"
sed -n 's/^-- block 0x\([0-9a-f]*\): \([0-9]*\) insns, [^,]*, \([0-9.e+]*\) cycles\/execution, IPC \([0-9.e+]*\) --$/\1 \2 \3 \4/p' \
	"$TMP/a.txt" > "$TMP/at.txt"
# printed to 4 and 3 digits, the CSV's cycles and count rounded: within 2e-3 relative
awk -F, 'function off(a, b) { return (a - b) / b > 2e-3 || (b - a) / b > 2e-3 }
	NR == FNR { split($0, a, " "); b[a[1]] = a[2] " " a[3] " " a[4]; next }
	FNR > 1 { k = $1; sub(/.*\+0x/, "", k); if (!(k in b)) next; split(b[k], v, " "); n++
	  if (off(v[2], v[1] * $6 / $2) || off(v[3], $2 / $6)) {
		bad++; print "  " k ": " b[k] " vs " v[1] * $6 / $2 > "/dev/stderr" } }
	END { print n + 0, bad + 0 }' "$TMP/at.txt" "$TMP/blk.csv" > "$TMP/at2.txt"
read n2 bad2 < "$TMP/at2.txt"
expect "cycles_views: annotate: block cycles (-f csv, $n blocks) and cycles/execution, IPC (text, $n2 blocks) are the --by block CSV's" \
	'[ "$n" -ge 5 ] && [ "$bad" = 0 ] && [ "$n2" -ge 5 ] && [ "$bad2" = 0 ]'

# diff --value cycles
"$HBBP" -q --by category -o "$TMP/cat2.csv" "$TMP/p2.data"
"$HBBP" diff -q --value cycles -f csv --by category "$D" "$TMP/p2.data" > "$TMP/d.csv" 2>/dev/null
awk -F, 'FILENAME ~ /cat.csv$/ { if (FNR > 1) a[$1] = $6; next }
	FILENAME ~ /cat2.csv$/ { if (FNR > 1) b[$1] = $6; next }
	FNR > 1 { n++; if (($2 + 0) != (a[$1] + 0) || ($3 + 0) != (b[$1] + 0)) { bad++; print "  " $0 > "/dev/stderr" } }
	END { print n + 0, bad + 0 }' "$TMP/cat.csv" "$TMP/cat2.csv" "$TMP/d.csv" > "$TMP/d.txt"
read n bad < "$TMP/d.txt"
expect "cycles_views: diff --value cycles: both runs' cycles by category as their CSVs' ($n rows)" \
	'head -1 "$TMP/d.csv" | grep -q "^category,cycles_a,cycles_b,ratio,significant," && [ "$n" -ge 5 ] && [ "$bad" = 0 ]'
H=$CORPUS/autofdo/hierarchical_discriminator_test.x86_64
if have_corpus && [ -f "$H.perf.data" ]; then
	"$HBBP" diff -q --value cycles --by mnemonic --binary "hierarchical_discriminator_test=$H" \
		"$H.perf.data" "$H.perf.data" > /dev/null 2>"$TMP/dh.err"
	rc=$?
	expect "cycles_views: diff --value cycles of a run without cycle counts: refused (exit $rc)" \
		'[ $rc = 2 ] && grep -q "perf.data: no cycles" "$TMP/dh.err"'
else
	skip "cycles_views: corpus absent (a run without cycle counts)"
fi
