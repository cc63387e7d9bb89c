#!/bin/sh
# perf report's attribution conventions, on one recording made here. The comm at the time
# of each sample, as perf's thread model keeps it: a shell loop of
# >= 500 processes (sed, awk and sort forked by sh, recorded here with -e cpu-clock), whose
# children run under sh's name until they exec. Checked against perf report on the same
# recording: `--by comm` shares equal `perf report --sort comm` to 0.01 points, row for row;
# `--by comm,module` equals `perf report --sort comm,dso` (so no `sed` row in `dash`);
# `--comm sh` keeps all of sh's time; the SQLite view mix_by_thread sums to perf's comm
# shares. perf's key names dso and sym are module and symbol. perf's percentages: under --module libc.so.6 the shares are of every sample
# (perf report --dso libc.so.6, --percentage absolute by default) or, with --percentage
# relative, of the rows kept; the CSV's share column, the table and the summary say so.
# Skips when perf cannot record here.
. "$(dirname "$0")/../lib.sh"

if ! command -v perf >/dev/null 2>&1; then skip "perf_attribution: perf not installed"; exit 0; fi
cat > "$TMP/loop.sh" <<'EOF'
i=0
while [ $i -lt 170 ]; do
	echo "a b c $i" | sed 's/a/x/' | awk '{ print $2 }' | sort > /dev/null
	i=$((i + 1))
done
EOF
if ! perf record -q -e cpu-clock -c 50000 -o "$TMP/loop.data" sh "$TMP/loop.sh" > /dev/null 2>&1; then
	skip "perf_attribution: perf cannot record here (perf_event_paranoid?)"
	exit 0
fi
T="--ebs-event cpu-clock"
nproc=$(perf script -i "$TMP/loop.data" --show-task-events 2>/dev/null | grep -c 'PERF_RECORD_COMM exec')

# perf's rows as "key<TAB>percent", ours the same from the CSV's share
perf report -i "$TMP/loop.data" --sort comm --stdio 2>/dev/null |
	awk '/^ *[0-9.]+%/ { sub("%", "", $1); print $2 "\t" $1 }' > "$TMP/perf.comm"
perf report -i "$TMP/loop.data" --sort comm,dso --stdio 2>/dev/null |
	awk '/^ *[0-9.]+%/ { sub("%", "", $1); print $2 "/" $3 "\t" $1 }' > "$TMP/perf.cdso"
"$HBBP" $T -q --by comm -f csv "$TMP/loop.data" > "$TMP/by_comm.csv" 2> /dev/null
awk -F, 'NR > 1 { print $1 "\t" $NF * 100 }' "$TMP/by_comm.csv" > "$TMP/ours.comm"
"$HBBP" $T -q --by comm,module -f csv "$TMP/loop.data" 2> /dev/null |
	awk -F, 'NR > 1 { print $1 "/" $2 "\t" $NF * 100 }' > "$TMP/ours.cdso"
# same_rows PERF OURS: every row of either within 0.01 points of the other's (perf prints two
# decimals: 18.71 against our 18.7049 is 0.01 in decimal, a hair more in binary floating point;
# a row perf prints as 0.00% may be absent from ours, and one of ours under 0.005% from perf's)
same_rows() {
	awk -F'\t' 'NR == FNR { p[$1] = $2; next }
		{ o[$1] = $2 }
		END { for (k in p) { d = p[k] - o[k]; if (d > 0.01 + 1e-9 || d < -0.01 - 1e-9) { print "differs: " k " perf " p[k] " ours " o[k]; bad = 1 } }
		      for (k in o) if (!(k in p) && o[k] >= 0.005) { print "not in perf: " k " " o[k]; bad = 1 }
		      exit bad }' "$1" "$2" >&2
}
echo "perf_attribution: $nproc execs; perf: $(tr '\t\n' '= ' < "$TMP/perf.comm"); ours: $(tr '\t\n' '= ' < "$TMP/ours.comm")" >&2
expect "perf_attribution: --by comm shares equal perf report --sort comm to 0.01 points ($nproc execs)" \
	'[ "$nproc" -ge 500 ] && [ -s "$TMP/perf.comm" ] && same_rows "$TMP/perf.comm" "$TMP/ours.comm"'
expect "perf_attribution: --by comm,module equals perf report --sort comm,dso (no sed in dash)" \
	'[ -s "$TMP/perf.cdso" ] && same_rows "$TMP/perf.cdso" "$TMP/ours.cdso" &&
	 ! grep -q "^sed/dash" "$TMP/ours.cdso" && grep -q "^sed/sed	" "$TMP/ours.cdso"'

# perf's key names: --sort comm,dso is --by comm,module (the columns keep their names),
# and sym is symbol
"$HBBP" $T -q --by comm,module -f csv -o "$TMP/cm.csv" "$TMP/loop.data" 2> /dev/null
"$HBBP" $T -q --sort comm,dso -f csv -o "$TMP/cd.csv" "$TMP/loop.data" 2> /dev/null
"$HBBP" $T -q --by module,symbol -f csv -o "$TMP/ms.csv" "$TMP/loop.data" 2> /dev/null
"$HBBP" $T -q --sort dso,sym -f csv -o "$TMP/ds.csv" "$TMP/loop.data" 2> /dev/null
expect "perf_attribution: the keys dso and sym are module and symbol, under those column names" \
	'[ -s "$TMP/cd.csv" ] && cmp -s "$TMP/cm.csv" "$TMP/cd.csv" && cmp -s "$TMP/ms.csv" "$TMP/ds.csv" &&
	 head -n 1 "$TMP/ds.csv" | grep -qx "module,symbol,count,count_lo,count_hi,share"'

# --comm sh keeps every sample sh's name was on (before: only the samples of the processes
# whose last name was sh): its share of the whole recording is perf's sh row
total=$(awk -F, 'NR > 1 { s += $2 } END { printf "%.0f", s }' "$TMP/by_comm.csv")
sh_only=$("$HBBP" $T -q --comm sh --by module -f csv "$TMP/loop.data" 2> /dev/null |
	awk -F, -v t="$total" 'NR > 1 { s += $2 } END { if (t > 0) printf "%.4f", s * 100 / t }')
sh_perf=$(awk -F'\t' '$1 == "sh" { print $2 }' "$TMP/perf.comm")
expect "perf_attribution: --comm sh counts all of sh's time ($sh_only% of the total, perf $sh_perf%)" \
	'[ -n "$sh_only" ] && [ -n "$sh_perf" ] &&
	 awk -v a="$sh_only" -v b="$sh_perf" "BEGIN { d = a - b; exit !(d <= 0.01 + 1e-9 && d >= -0.01 - 1e-9) }"'

# the store's thread view (a run stored with its threads): its rows by comm sum to perf's shares
if command -v sqlite3 > /dev/null 2>&1; then
	"$HBBP" $T -q --store threads -o "$TMP/loop.sqlite" "$TMP/loop.data" 2> /dev/null
	sqlite3 -separator '	' "$TMP/loop.sqlite" \
		'SELECT comm, SUM(share) * 100 FROM mix_by_thread GROUP BY comm' > "$TMP/view.comm" 2> /dev/null
	expect "perf_attribution: mix_by_thread by comm equals perf report --sort comm" \
		'[ -s "$TMP/view.comm" ] && same_rows "$TMP/perf.comm" "$TMP/view.comm"'
else
	skip "perf_attribution: sqlite3 not installed"
fi

# --percentage: perf report --dso libc.so.6 with its default (absolute) and relative (perf
# drops the dso column a filter leaves one value in: rows by comm)
for pc in absolute relative; do
	perf report -i "$TMP/loop.data" --dso libc.so.6 --percentage $pc --sort comm,dso --stdio 2>/dev/null |
		awk '/^ *[0-9.]+%/ { sub("%", "", $1); print $2 "\t" $1 }' > "$TMP/perf.$pc"
	opt=$([ $pc = relative ] && echo "--percentage relative")
	"$HBBP" $T $opt --module libc.so.6 --by comm,module -f csv -o "$TMP/$pc.csv" "$TMP/loop.data" 2> "$TMP/$pc.err"
	awk -F, 'NR > 1 { print $1 "\t" $NF * 100 }' "$TMP/$pc.csv" > "$TMP/ours.$pc"
	"$HBBP" $T $opt --module libc.so.6 --by comm,module -f table "$TMP/loop.data" 2> /dev/null |
		awk '/^ *[0-9.]+%/ { sub("%", "", $1); print $5 "\t" $1 }' > "$TMP/table.$pc"
	# the summary's rows: share, count, interval (2 fields), the keys
	awk '/^top of the mix/ { on = 1; next } on && /^ *[0-9.]+%/ { sub("%", "", $1); print $5 "\t" $1 }' \
		"$TMP/$pc.err" > "$TMP/sum.$pc"
	expect "perf_attribution: --percentage $pc under --module libc.so.6: CSV, table and summary equal perf report --percentage $pc" \
		'[ -s "$TMP/perf.$pc" ] && same_rows "$TMP/perf.$pc" "$TMP/ours.$pc" &&
		 same_rows "$TMP/perf.$pc" "$TMP/table.$pc" && same_rows "$TMP/perf.$pc" "$TMP/sum.$pc"'
done
expect "perf_attribution: the summary names the share's whole" \
	'grep -q "share of every sample," "$TMP/absolute.err" && grep -q "share of the rows kept," "$TMP/relative.err"'

# a block's executions under thread sums (a filter keeps the sums per thread: the same block
# in many processes): count = executions x length on every row with code
"$HBBP" $T -q --comm 'sed,awk,sort,sh' --by block -f csv -o "$TMP/blk.csv" "$TMP/loop.data" 2> /dev/null
nb=$(awk -F, 'NR > 1 && $(NF - 1) != "" { n++ } END { print n + 0 }' "$TMP/blk.csv")
off=$(awk -F, 'NR > 1 && $(NF - 1) != "" { d = $2 - $(NF - 1) * $NF; if (d < 0) d = -d
	if (d > 0.5 * $(NF - 1) + 1e-6 * $2) n++ } END { print n + 0 }' "$TMP/blk.csv")
expect "perf_attribution: --by block over many threads: count = executions x length ($nb rows, $off off)" \
	'[ "$nb" -gt 100 ] && [ "$off" = 0 ]'
