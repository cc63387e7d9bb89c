#!/bin/sh
# tier: slow
# benchgen --whole (the 1 GiB file of bench/pairs.sh that holds the programs' whole runs): a
# process whose share of --mb is a quarter of its recording replays samples from all of it,
# in order (a subsequence of the recording reaching into its last fifth, by perf script; the
# greedy match finds the earliest place of each), where without --whole it replays the first
# quarter; with a share larger than the recording the two options make the same file.
# Source: one pmusim run of the interpreter, short periods.
. "$(dirname "$0")/../lib.sh"
have_bench_tools bench_whole || exit 0
if ! command -v perf >/dev/null 2>&1; then skip "bench_whole: perf not installed"; exit 0; fi
if ! { sh "$ROOT/samples/workloads/build.sh" "$TMP/bin" > /dev/null 2>&1 &&
	"$ROOT/pmusim" --effects realistic --ebs-period 53 --lbr-period 7 --seed 3 \
		-o "$TMP/s.data" -- "$TMP/bin/interp" 40 > /dev/null 2>&1; }; then
	fail "bench_whole: a pmusim recording"
	exit 0
fi
perf script -F ip -i "$TMP/s.data" 2> /dev/null | awk '{ print $1 }' > "$TMP/s.ip"
n=$(wc -l < "$TMP/s.ip")
# a quarter of the recording's bytes
mb=$(stat -c %s "$TMP/s.data" | awk '{ printf "%.4f", $1 / 4 / 1048576 }')
# pos OUT: "matched total last%": OUT's ips matched in order against the recording's, and
# where the last match lies (greedy: the earliest it can)
pos() {
	perf script -F ip -i "$1" 2> /dev/null | awk '{ print $1 }' |
	awk 'NR == FNR { s[++n] = $1; next }
		{ while (j < n && s[++j] != $1) ; if (s[j] == $1) { m++; last = j } }
		END { printf "%d %d %d\n", m, FNR, n ? 100 * last / n : 0 }' "$TMP/s.ip" -
}
if ! { $GEN --procs 1 --whole --mb "$mb" -o "$TMP/w.data" "$TMP/s.data" > /dev/null &&
	$GEN --procs 1 --mb "$mb" -o "$TMP/p.data" "$TMP/s.data" > /dev/null; }; then
	fail "bench_whole: benchgen --mb $mb with and without --whole"
	exit 0
fi
read -r m t last <<EOT
$(pos "$TMP/w.data")
EOT
expect "bench_whole: --whole: $m of $t samples in the recording's order, the last at $last% of its $n" \
	'[ "$m" -eq "$t" ] && [ "$t" -ge $((n / 5)) ] && [ "$t" -le $((n * 3 / 10)) ] && [ "$last" -ge 80 ]'
read -r m t last <<EOT
$(pos "$TMP/p.data")
EOT
expect "bench_whole: without --whole: $m of $t in order, the last at $last% (the first quarter)" \
	'[ "$m" -eq "$t" ] && [ "$last" -le 30 ]'
big=$(stat -c %s "$TMP/s.data" | awk '{ printf "%.4f", 3 * $1 / 1048576 }')
$GEN --procs 1 --whole --mb "$big" -o "$TMP/w3.data" "$TMP/s.data" > /dev/null &&
	$GEN --procs 1 --mb "$big" -o "$TMP/p3.data" "$TMP/s.data" > /dev/null
expect "bench_whole: a share larger than the recording: the same file either way" \
	'cmp -s "$TMP/w3.data" "$TMP/p3.data"'
