#!/bin/sh
# The comparisons of the realistic benchmark that take two or more files (run by bench/real.sh
# after its table, BENCH_PAIRS=0: not): each timed side by side, the files in turn, so that the
# machine's drift between files does not enter the ratio.
#  1. 10,000 processes against 3 of the same size (mix10000.data, mix3.data): wall and CPU
#     seconds per MiB, BENCH_PAIR_RUNS rounds (default 5), medians.
#  2. Peak RSS against the input's size, 3 processes (mix3_Nm.data for N in BENCH_SIZES, then
#     mix3.data and mix3_4g.data; each program's run from its start, so a bigger file also
#     holds more of each program's code), and mix3_whole.data (each whole run at a lower
#     rate: the code of the 4 GiB file); with the blocks with data (`--diagnostics`) and the
#     mix's rows, which grow with the code seen. Medians of BENCH_PAIR_RUNS runs, the files
#     in turn.
# Prints markdown on stdout. Usage: bench/pairs.sh DIR (the inputs, made there when missing)
# Needs HBBP, PMUSIM, GEN, TIME as bench/real.sh sets them (bench/tools.sh).
set -e
dir=$1
[ -d "$dir" ] || { echo "usage: bench/pairs.sh DIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. "$root/bench/tools.sh"
runs=${BENCH_PAIR_RUNS:-5}
sizes=${BENCH_SIZES:-250 500 2000}
tmp=$dir/pairs.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

# made NAME: the input's path (made when missing)
made() { sh bench/real_inputs.sh "$dir" "$PMUSIM" "$GEN" "$1"; }
# timed NAME: one run, "wall cpu rss_kb" appended to $tmp/NAME
# (wall from date in ns: time's %e rounds a small file's to 0; CPU at least time's 0.01 s)
timed() {
	t0=$(date +%s%N)
	if ! $TIME -f '%U %S %M' -o "$tmp/t1" "$HBBP" -q -o "$tmp/out.csv" "$dir/$1.data" \
		> /dev/null 2> "$tmp/err"; then
		echo "bench: failed: $HBBP $dir/$1.data" >&2
		tail -n 5 "$tmp/err" >&2
		exit 3
	fi
	t1=$(date +%s%N)
	awk -v ns=$((t1 - t0)) '{ c = $1 + $2; print ns / 1e9, (c > 0.01 ? c : 0.01), $3 }' \
		"$tmp/t1" >> "$tmp/$1"
	echo $(($(wc -l < "$tmp/out.csv") - 1)) > "$tmp/$1.rows"
}
med() { awk -v c="$2" '{ print $c }' "$tmp/$1" | median; }
# blocks NAME: the input's blocks with data, from the summary of --diagnostics (untimed)
blocks() {
	if ! "$HBBP" --diagnostics -o "$tmp/diag.csv" "$dir/$1.data" > /dev/null 2> "$tmp/diag"
	then
		echo "bench: failed: $HBBP --diagnostics $dir/$1.data" >&2
		tail -n 5 "$tmp/diag" >&2
		exit 3
	fi
	sed -n 's/^  blocks with data: \([0-9]*\) .*/\1/p' "$tmp/diag"
}
mib() { stat -c %s "$dir/$1.data" | awk '{ printf "%.1f", $1 / 1048576 }'; }

# 1. processes
for n in mix3 mix10000; do made $n > /dev/null; : > "$tmp/$n"; cat "$dir/$n.data" > /dev/null; done
i=0
while [ $i -lt "$runs" ]; do
	timed mix3
	timed mix10000
	i=$((i + 1))
done
echo "## Side by side"
echo
echo "The files of each comparison converted in turn (\`hbbp-convert -q -o out.csv FILE\`), $runs"
echo "rounds, medians: the machine's drift between files stays out of the ratios."
echo
awk -v m3="$(mib mix3)" -v m10="$(mib mix10000)" -v w3="$(med mix3 1)" -v w10="$(med mix10000 1)" \
	-v c3="$(med mix3 2)" -v c10="$(med mix10000 2)" 'BEGIN {
	q = (w10 / m10) / (w3 / m3); qc = (c10 / m10) / (c3 / m3)
	printf "10,000 processes / 3 processes, side by side, wall per MiB: %.2f (wanted <= 1.5: %s; CPU %.2f; wall %.2f s / %.2f s)\n",
		q, q <= 1.5 ? "met" : "not met", qc, w10, w3 }'
echo

# 2. memory against size
names=""
for s in $sizes; do names="$names mix3_${s}m"; done
for n in $names mix3 mix3_4g mix3_whole; do made "$n" > /dev/null; : > "$tmp/$n"; done
# by size, the whole runs last
names=$(for n in $names mix3 mix3_4g; do echo "$(stat -c %s "$dir/$n.data") $n"; done |
	sort -n | awk '{ printf "%s ", $2 }')
names="$names mix3_whole"
i=0
while [ $i -lt "$runs" ]; do
	for n in $names; do
		cat "$dir/$n.data" > /dev/null
		timed "$n"
	done
	i=$((i + 1))
done
big=$(med mix3_4g 3)
echo "Peak RSS against the input's size, cc1 + python + sqlite in 3 processes. Each process"
echo "replays its program's run from the start, so a bigger file also holds more of the code:"
echo "the blocks with data and the mix's rows (one per module, symbol and instruction) count the"
echo "code seen. The last file holds each whole run at a lower sampling rate (\`benchgen --whole\`):"
echo "all of the 4 GiB file's code in a quarter of its samples, but for code run too rarely to be"
echo "sampled."
echo
echo "| input | size MiB | wall s | peak RSS MiB | blocks with data | mix rows | RSS of the 4 GiB file / this |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for n in $names; do
	rows=$(cat "$tmp/$n.rows")
	r=$(med "$n" 3)
	echo "| \`$n.data\` | $(mib "$n" | awk '{ printf "%.0f", $1 }') | $(med "$n" 1) | $(awk -v r="$r" 'BEGIN { printf "%.0f", r / 1024 }') | $(blocks "$n") | $rows | $(awk -v a="$big" -v b="$r" 'BEGIN { printf "%.2f", a / b }') |"
done
echo
w=$(med mix3_whole 3)
awk -v a="$big" -v b="$(med mix3 3)" -v c="$w" 'BEGIN {
	printf "RSS 4 GiB / RSS 1 GiB, side by side (3 processes, runs from the start): %.2f (wanted <= 1.10: %s)\n", a / b, a / b <= 1.1 ? "met" : "not met"
	printf "\nRSS 4 GiB / RSS 1 GiB, side by side (3 processes, the 1 GiB file holding the whole runs): %.2f (wanted <= 1.10: %s)\n", a / c, a / c <= 1.1 ? "met" : "not met" }'
