#!/bin/sh
# The best-case conversion benchmark (make bench-tiled): generates large two-event LBR
# recordings by tiling pmusim recordings of short runs (bench/inputs.sh,
# tests/tools/benchgen.c), then times, on the same files from the page cache: hbbp-convert to
# CSV and to SQLite, hbbp-convert dump, perf script -F ip,brstack, perf report --stdio -b, and
# cat (the read limit, run in turn with the CSV conversion), plus hbbp-convert on the
# zstd-compressed variants. Prints the table and writes it to $BENCH_RESULTS with the commit,
# the machine and the load average.
#
# Knobs (environment):
#   BENCH_SIZES="100 1000"  file sizes in MiB of uncompressed data
#   BENCH_RUNS=N            runs per measurement (default: 5 below 500 MiB, else 3)
#   BENCH_PERF=0            skip the perf script / perf report rows
#   BENCH_Z="z z2"          compressed variants (z: COMPRESSED, z2: COMPRESSED2; "" none)
#   BENCH_DIR=build/bench   where the recordings go (never committed)
#   BENCH_RESULTS=bench/RESULTS-tiled.md   where the table goes ("" : not written)
# Depends on hbbp-convert, pmusim, benchgen, /usr/bin/time; perf is optional.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
BUILD=${BUILD:-build/rel}
sizes=${BENCH_SIZES:-100 1000}
dir=${BENCH_DIR:-build/bench}
results=${BENCH_RESULTS-bench/RESULTS-tiled.md}
zvariants=${BENCH_Z-z z2}
. "$root/bench/tools.sh"	# TIME, HBBP, PMUSIM, GEN (absolute, checked), perf_ok

# Disk: each size needs its file plus the compressed variants (a fraction of it).
need=0
for s in $sizes; do need=$((need + s + s / 2)); done
avail=$(df -Pm "$root" | awk 'NR == 2 { print $4 }')
if [ "$avail" -lt $((need + 1024)) ]; then
	echo "bench: needs about $need MiB of disk plus 1 GiB spare, $avail MiB free" >&2
	exit 2
fi

mkdir -p "$dir"
srcs=$(sh bench/inputs.sh "$dir/src" "$PMUSIM")
nsrc=$(echo "$srcs" | wc -l)
rows=$dir/rows.txt
: > "$rows"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# run_once TIMES CMD...: runs CMD once under /usr/bin/time, appends "wall user sys rss_kb" to
# TIMES; fails (with the command's last lines) when CMD fails.
run_once() {
	r_times=$1
	shift
	rm -f "$dir/out.db" "$dir/out.db-journal" "$dir/out.csv"
	if ! $TIME -f '%e %U %S %M' -o "$dir/time1" "$@" > /dev/null 2> "$dir/err"; then
		echo "bench: failed: $*" >&2
		tail -n 5 "$dir/err" >&2
		return 1
	fi
	tail -n 1 "$dir/time1" >> "$r_times"
}

# summarize TIMES SIZE LABEL VARIANT MIB SAMPLES: the medians of TIMES, appended to $rows as
# "size label variant wall cpu rss_kb mib samples load".
summarize() {
	m_times=$1 m_size=$2 m_label=$3 m_var=$4 m_mib=$5 m_samples=$6
	[ -s "$m_times" ] || return 0
	wall=$(awk '{ print $1 }' "$m_times" | median)
	cpu=$(awk '{ print $2 + $3 }' "$m_times" | median)
	rss=$(awk '{ print $4 }' "$m_times" | median)
	load=$(cut -d' ' -f1 /proc/loadavg)
	echo "$m_size $m_label $m_var $wall $cpu $rss $m_mib $m_samples $load" >> "$rows"
	printf '  %-22s %-6s wall %7.2f s  cpu %7.2f s  rss %7.1f MiB  load %s\n' \
		"$m_label" "$m_var" "$wall" "$cpu" "$(echo "$rss" | awk '{ print $1 / 1024 }')" "$load"
}

# measure SIZE LABEL VARIANT MIB SAMPLES CMD...: runs CMD $runs times, one row.
measure() {
	m1=$1 m2=$2 m3=$3 m4=$4 m5=$5
	shift 5
	: > "$dir/times"
	i=0
	while [ $i -lt "$runs" ] && run_once "$dir/times" "$@"; do
		i=$((i + 1))
	done
	[ $i -eq "$runs" ] || return 0
	summarize "$dir/times" "$m1" "$m2" "$m3" "$m4" "$m5"
}

# measure_read_limit SIZE MIB SAMPLES FILE: cat FILE and the CSV conversion of FILE in turn,
# $runs times each, so that both see the same phases of a shared machine (the ratio of the
# two is a target); two rows.
measure_read_limit() {
	: > "$dir/times.cat"
	: > "$dir/times.csv"
	i=0
	while [ $i -lt "$runs" ] && run_once "$dir/times.cat" cat "$4" &&
	      run_once "$dir/times.csv" "$HBBP" -q -o "$dir/out.csv" "$4"; do
		i=$((i + 1))
	done
	[ $i -eq "$runs" ] || return 0
	summarize "$dir/times.cat" "$1" cat plain "$2" "$3"
	summarize "$dir/times.csv" "$1" hbbp-csv plain "$2" "$3"
}

for s in $sizes; do
	runs=${BENCH_RUNS:-$([ "$s" -lt 500 ] && echo 5 || echo 3)}
	f=$dir/lbr_${s}m.data
	# regenerate when missing or when benchgen changed
	if [ ! -s "$f" ] || [ ! -s "$f.info" ] || [ "$GEN" -nt "$f" ]; then
		echo "generating $f" >&2
		$GEN --mb "$s" -o "$f" $srcs > "$f.info"
		rm -f "$dir/lbr_${s}m_z.data" "$dir/lbr_${s}m_z2.data"
	fi
	samples=$(awk '{ print $2 }' "$f.info")
	mib=$(stat -c %s "$f" | awk '{ printf "%.1f", $1 / 1048576 }')
	for z in $zvariants; do
		zf=$dir/lbr_${s}m_$z.data
		if [ ! -s "$zf" ]; then
			echo "generating $zf" >&2
			$GEN $([ $z = z ] && echo -z || echo --zstd2) --mb "$s" -o "$zf" $srcs > /dev/null
		fi
	done
	echo "== $f: $mib MiB, $samples samples, $runs runs"
	cat "$f" > /dev/null
	measure_read_limit "$s" "$mib" "$samples" "$f"
	measure "$s" hbbp-sqlite plain "$mib" "$samples" "$HBBP" -q --force -o "$dir/out.db" "$f"
	measure "$s" hbbp-dump plain "$mib" "$samples" "$HBBP" dump "$f"
	if [ $perf_ok = 1 ]; then
		measure "$s" perf-script plain "$mib" "$samples" perf script -i "$f" -F ip,brstack
		measure "$s" perf-report plain "$mib" "$samples" perf report -i "$f" --stdio -b
	fi
	for z in $zvariants; do
		zf=$dir/lbr_${s}m_$z.data
		cat "$zf" > /dev/null
		measure "$s" hbbp-csv "$z" "$mib" "$samples" "$HBBP" -q -o "$dir/out.csv" "$zf"
	done
done
rm -f "$dir/out.db" "$dir/out.csv" "$dir/times" "$dir/times.cat" "$dir/times.csv" "$dir/time1" \
	"$dir/err"

# The table: MiB/s is MiB of uncompressed data per wall (and per CPU) second; the ratios
# divide by ours (hbbp-csv plain of the same size). Then the speed and memory targets.
table=$dir/table.md
awk -f bench/table.awk "$rows" > "$table"
echo
cat "$table"

if [ -n "$results" ]; then
	{
		echo "# Benchmark results"
		echo
		echo "Produced by \`make bench-tiled\` (bench/run.sh; BENCH_SIZES=\"$sizes\"). These files are"
		echo "the best case: tiled from five short runs, nearly every stack repeats."
		echo
		echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- . ':!bench/RESULTS*.md' 2>/dev/null || echo ' (with local changes)')"
		echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "- machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM, $(uname -sr)"
		echo "- perf: $(perf version 2>/dev/null || echo absent)"
		echo "- load average (1, 5, 15 min): $load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
		echo "- input: benchgen tiling of $nsrc pmusim recordings ($(echo $srcs | sed 's|[^ ]*/src_||g; s|\.data||g')) into $((2 * nsrc)) processes; libcmix maps libc.so and ld.so; two events (inst_retired.prec_dist, br_inst_retired.near_taken), a 32-entry branch stack on every sample, attr size 128; a FINISHED_ROUND every 512 KiB, the two CPUs' samples overlapping in time within a round (as perf record -a writes them)"
		echo
		echo "Times are medians of several runs from the page cache (wall and user+system CPU"
		echo "seconds; cat and the CSV conversion of the uncompressed file are run in turn, so"
		echo "that their ratio compares the same phases of a shared machine); MiB/s counts uncompressed data for the compressed inputs (z: COMPRESSED,"
		echo "z2: COMPRESSED2); samples/s is per wall second; the ratios divide by the hbbp-convert"
		echo "CSV conversion of the uncompressed file of the same size; load is the 1-minute load"
		echo "average after the measurement. On a loaded machine the CPU columns are the stable ones."
		echo
		cat "$table"
	} > "$results"
	echo "wrote $results"
fi
