#!/bin/sh
# The realistic benchmark (make bench-real, and make bench): times the conversion on recordings
# that look like real ones (bench/real_inputs.sh: the simulator running a compiler, a database
# and an interpreter; many-process and many-thread mixes of them; a 4 GiB file) and on the
# tiled best case, side by side with `perf script -F ip,brstack` and perf2bolt on the same
# file: the three tools run in turn, BENCH_RUNS times each, medians. Per file it reports size,
# wall and CPU seconds, MiB/s, peak RSS, the distinct LBR stacks and streams and the
# stack-cache hit rate (from the summary of `hbbp-convert --diagnostics`, one extra untimed
# run; "n/a" where the summary does not say), and the ratios of the others' times to ours.
# Prints the table and writes it to $BENCH_RESULTS with the commit, the machine, the load
# average and the commands that made each input; keeps the raw rows in $BENCH_DIR/rows.last
# (awk -f bench/real_table.awk rows.last prints the table again).
#
# Knobs (environment):
#   BENCH_REAL="cc1 ... tiled"   the files (default below); NAME+pid converts NAME with
#                                --by pid,symbol,mnemonic, NAME+comm with --by comm,symbol,
#                                NAME+sqlite to SQLite instead of CSV
#   BENCH_DIR=build/bench-real   where the inputs are made and kept (never committed)
#   BENCH_RUNS=3                 runs per tool and file
#   BENCH_PERF=0                 skip perf script;  BENCH_P2B=0  skip perf2bolt
#   BENCH_P2B_RUNS=N             runs of perf2bolt (default BENCH_RUNS; it is the slowest)
#   BENCH_RESULTS=bench/RESULTS.md   where the table goes ("" : not written)
#   HBBP_ARGS="..."              extra converter options (e.g. -j 1)
#   BENCH_DISTINCT=1             also count distinct stacks with perf alone (bench/distinct.sh,
#                                about a minute per GiB, untimed)
#   BENCH_PAIRS=0                skip bench/pairs.sh (10,000 against 3 processes side by side,
#                                RSS against size); BENCH_PAIR_RUNS=5, BENCH_SIZES="250 500 2000"
#   PERF2BOLT=path               perf2bolt binary (default: llvm's, found under /usr/lib/llvm-*)
# Depends on hbbp-convert, pmusim, benchgen, /usr/bin/time; perf and perf2bolt are optional.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
BUILD=${BUILD:-build/rel}
names=${BENCH_REAL:-cc1 cc1+sqlite cc1_cycles sqlite python python_cycles perl perl_cycles mix3 \
	mix3000 mix10000 mix10000+pid mix10000+comm threads mix3_4g cc1_1g cc1_4g tiled}
dir=${BENCH_DIR:-build/bench-real}
runs=${BENCH_RUNS:-3}
p2b_runs=${BENCH_P2B_RUNS:-$runs}
results=${BENCH_RESULTS-bench/RESULTS.md}
. "$root/bench/tools.sh"	# TIME, HBBP, PMUSIM, GEN (absolute, checked), perf_ok
# llvm's perf2bolt acts as perf2bolt only under that name: /usr/bin/perf2bolt-15 is a link
# whose name makes it llvm-bolt, which rewrites the binary instead.
p2b=${PERF2BOLT:-$(ls /usr/lib/llvm-*/bin/perf2bolt 2>/dev/null | sort -V | tail -n 1)}
p2b_ok=0
if [ "${BENCH_P2B:-1}" = 1 ] && [ -n "$p2b" ] && [ -x "$p2b" ]; then
	p2b_ok=1
fi

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# per run (two runs may share BENCH_DIR): times, rows, outputs; removed at the end
tmp=$dir/run.$$
mkdir -p "$tmp"
rows=$tmp/rows.txt
: > "$rows"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# run_once TIMES CMD...: runs CMD once under /usr/bin/time, appends "wall user sys rss_kb" to
# TIMES (the wall time in ms resolution from date: time's %e rounds a small file's to 0);
# on failure prints the command's last lines and returns 1.
run_once() {
	r_times=$1
	shift
	t0=$(date +%s%N)
	if ! $TIME -f '%U %S %M' -o "$tmp/time1" "$@" > /dev/null 2> "$tmp/err"; then
		echo "bench: failed: $*" >&2
		tail -n 5 "$tmp/err" >&2
		return 1
	fi
	t1=$(date +%s%N)
	echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')" \
		"$(tail -n 1 "$tmp/time1")" >> "$r_times"
}

# meds TIMES: "wall cpu rss_kb" medians of TIMES, or "- - -" when empty.
meds() {
	if [ -s "$1" ]; then
		echo "$(awk '{ print $1 }' "$1" | median) $(awk '{ print $2 + $3 }' "$1" | median)" \
			"$(awk '{ print $4 }' "$1" | median)"
	else
		echo "- - -"
	fi
}

for n in $names; do
	# NAME+VARIANT: the input NAME converted another way (the table names the variant)
	out=$tmp/out.csv vargs=
	case $n in
	*+pid)		vargs="--by pid,symbol,mnemonic" ;;
	*+comm)		vargs="--by comm,symbol" ;;
	*+sqlite)	out=$tmp/out.sqlite ;;
	*+*)		echo "bench: unknown variant '$n' (+pid, +comm, +sqlite)" >&2; exit 2 ;;
	esac
	f=$(sh bench/real_inputs.sh "$dir" "$PMUSIM" "$GEN" "${n%%+*}")
	bin=$(cat "$f.bin" 2> /dev/null || true)
	mib=$(stat -c %s "$f" | awk '{ printf "%.1f", $1 / 1048576 }')
	echo "== $n: $f, $mib MiB, $runs runs" >&2
	cat "$f" > /dev/null
	# the diagnostics summary, untimed
	# shellcheck disable=SC2086
	if ! "$HBBP" --diagnostics $HBBP_ARGS $vargs -o "$tmp/diag.csv" "$f" > /dev/null \
		2> "$tmp/diag.err"
	then
		echo "bench: failed: $HBBP --diagnostics $f" >&2
		tail -n 5 "$tmp/diag.err" >&2
		exit 3
	fi
	d=$(awk -f bench/diag.awk "$tmp/diag.err")
	: > "$tmp/t.hbbp"
	: > "$tmp/t.perf"
	: > "$tmp/t.p2b"
	i=0
	while [ $i -lt "$runs" ]; do
		# shellcheck disable=SC2086
		rm -f "$out"	# a database is not replaced without --force
		run_once "$tmp/t.hbbp" "$HBBP" -q $HBBP_ARGS $vargs -o "$out" "$f" || exit 3
		if [ $perf_ok = 1 ]; then
			run_once "$tmp/t.perf" perf script -F ip,brstack -i "$f" || true
		fi
		if [ $p2b_ok = 1 ] && [ -n "$bin" ] && [ $i -lt "$p2b_runs" ]; then
			run_once "$tmp/t.p2b" "$p2b" -p "$f" -o "$tmp/out.fdata" "$bin" || true
		fi
		i=$((i + 1))
	done
	# a tool that failed on some run has no median: "-"
	[ "$(wc -l < "$tmp/t.perf")" -eq "$runs" ] || : > "$tmp/t.perf"
	[ "$(wc -l < "$tmp/t.p2b")" -eq "$p2b_runs" ] || : > "$tmp/t.p2b"
	load=$(cut -d' ' -f1 /proc/loadavg)
	pd="- -"
	if [ $perf_ok = 1 ] && [ "${BENCH_DISTINCT:-0}" = 1 ]; then
		pd=$(sh bench/distinct.sh "$f" | awk '{ print $3, $5 }')
	fi
	# row: ... load, then LBR samples and distinct address lists by perf ("-": not counted)
	row="$n $mib $(meds "$tmp/t.hbbp") $d $(meds "$tmp/t.perf") $(meds "$tmp/t.p2b") $load $pd"
	echo "$row" >> "$rows"
	echo "  $row" >&2
done
rm -f "$tmp/out.csv" "$tmp/out.sqlite" "$tmp/out.fdata" "$tmp/diag.csv"
cp "$tmp/rows.txt" "$dir/rows.last"

table=$tmp/table.md
awk -f bench/real_table.awk "$rows" > "$table"
if [ "${BENCH_PAIRS:-1}" = 1 ]; then	# the comparisons of two files, side by side
	echo >> "$table"
	sh bench/pairs.sh "$dir" >> "$table" || exit 3
fi
cat "$table"

if [ -n "$results" ]; then
	{
		echo "# Benchmark results"
		echo
		echo "Produced by \`make bench-real\` (bench/real.sh; BENCH_REAL=\"$names\", BENCH_RUNS=$runs)."
		echo
		echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- . ':!bench/RESULTS*.md' 2>/dev/null || echo ' (with local changes)')"
		echo "- converter: $HBBP $HBBP_ARGS"
		echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "- machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM, $(uname -sr)"
		echo "- perf: $(perf version 2>/dev/null || echo absent); perf2bolt: $([ $p2b_ok = 1 ] && echo "$p2b ($p2b_runs runs)" || echo absent)"
		echo "- load average (1, 5, 15 min): $load_start at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
		echo
		echo "Each file from the page cache; per run, in turn: \`hbbp-convert -q -o out.csv FILE\`,"
		echo "\`perf script -F ip,brstack -i FILE > /dev/null\`, \`perf2bolt -p FILE -o out.fdata BINARY\`"
		echo "(BINARY: the file's main program; perf2bolt keeps only its samples). Medians of the runs;"
		echo "wall seconds from \`date +%s%N\` around the run, CPU (user + system) seconds and peak RSS from \`/usr/bin/time -f '%U %S %M'\`;"
		echo "MiB/s per wall second; the \"/ ours\" columns are the other tool's time over ours, wall"
		echo "and CPU; load is the 1-minute load average after the file's runs. On a loaded machine"
		echo "the CPU columns are the steadier ones."
		echo "Stacks, streams and hits come from the summary of \`hbbp-convert --diagnostics\`."
		echo
		cat "$table"
		echo
		echo "## How each input was made"
		echo
		for n in $(echo $names | tr ' ' '\n' | sed 's/+.*//' | awk '!seen[$0]++'); do
			f=$dir/$n.data
			echo "- \`$n.data\` ($(stat -c %s "$f" | awk '{ printf "%.0f MiB", $1 / 1048576 }')):"
			echo
			echo '```'
			sed "s|$dir/||g; s|$(dirname "$GEN")/||g; s|$(dirname "$PMUSIM")/||g;
				s|-I$root |-I. |; s|$root/||g" "$f.cmd"
			echo '```'
		done
	} > "$results"
	echo "wrote $results" >&2
fi
rm -rf "$tmp"
