#!/bin/sh
# Inputs of the realistic benchmark (bench/real.sh): recordings that look like real ones, made
# by the simulator running big real programs, then mixed by benchgen into many-process and
# many-thread files. Unlike bench/inputs.sh (small workloads tiled into the best case), every
# stack here comes from a long run of a real compiler, database or interpreter, so a converter
# sees many distinct stacks and streams.
#
# Files (in OUTDIR; each with FILE.cmd, the commands that made it, FILE.info, and FILE.bin,
# its main program, for tools that read one binary's samples):
#   cc1.data       pmusim: gcc's cc1 -O2 compiling the preprocessed samples/workloads/interp.c
#   cc1_cycles.data  the same run with the LBR sampled on cycles (perf record -b -e cycles, as
#                  AutoFDO, BOLT and Propeller users record): the time-weighted path
#   sqlite.data    pmusim: sqlite3 running bench/real/work.sql
#   python.data    pmusim: python3 running bench/real/work.py (json, re, Counter)
#   python_cycles.data, perl_cycles.data  the LBR sampled on cycles, as cc1_cycles.data:
#                  python3 running work.py, perl running bench/real/work.pl (hashes, regular
#                  expressions, sort, sprintf); perl.data: the same perl run on taken branches
#   mix3.data      benchgen: cc1 + python + sqlite, 3 processes, 1000 MiB
#   mix3000.data   the same sources, 3000 processes
#   mix10000.data  the same sources, 10,000 processes
#   threads.data   benchgen: sqlite replayed by 256 threads of one process (a server), 1000 MiB
#   mix3_4g.data   like mix3.data, 4096 MiB
#   mix3_Nm.data   like mix3.data, N MiB (bench/pairs.sh: memory against the input's size)
#   mix3_whole.data  like mix3.data, but each process replays its program's whole run, thinned
#                  (benchgen --whole): the code of mix3_4g.data at a quarter of the samples
#   cc1_1g.data    benchgen: cc1.data alone, one process, replayed to 1000 MiB (all of it)
#   cc1_4g.data    the same to 4096 MiB: more input, the same code as cc1_1g.data
#   tiled.data     the best case: bench/inputs.sh's five short runs tiled to 1000 MiB (as in
#                  make bench-tiled): nearly every stack repeats
# A file that exists is kept (delete it to remake it). Prints the paths made or found.
#
# Usage: bench/real_inputs.sh OUTDIR PMUSIM BENCHGEN [NAME...]   (default: all of them)
# Knobs: BENCH_CC1 (cc1 binary), BENCH_SQLITE, BENCH_PYTHON, BENCH_PERL (programs
#        recorded); BENCH_CC1_C (the C file compiled), BENCH_SQL, BENCH_PY, BENCH_PL (the scripts);
#        BENCH_MIX_MB (1000) and BENCH_BIG_MB (4096): sizes of the benchgen files;
#        BENCH_THREADS (256): threads of threads.data. (The smoke test makes small ones.)
# Depends on pmusim (qemu-x86_64), benchgen, gcc, sqlite3, python3 and perl only.
set -e
out=$1 pmusim=$2 gen=$3
[ -n "$out" ] && [ -x "$pmusim" ] && [ -x "$gen" ] ||
	{ echo "usage: bench/real_inputs.sh OUTDIR PMUSIM BENCHGEN [NAME...]" >&2; exit 2; }
shift 3
root=$(cd "$(dirname "$0")/.." && pwd)
case $pmusim in /*) ;; *) pmusim=$(pwd)/$pmusim ;; esac
case $gen in /*) ;; *) gen=$(pwd)/$gen ;; esac
names=${*:-cc1 sqlite python mix3 mix3000 mix10000 threads mix3_4g cc1_1g cc1_4g tiled}
cc1=$(readlink -f "${BENCH_CC1:-$(gcc -print-prog-name=cc1)}")
sqlite=$(readlink -f "${BENCH_SQLITE:-$(command -v sqlite3 || echo /usr/bin/sqlite3)}")
python=$(readlink -f "${BENCH_PYTHON:-/usr/bin/python3}")
csrc=${BENCH_CC1_C:-$root/samples/workloads/interp.c}
sql=${BENCH_SQL:-$root/bench/real/work.sql}
py=${BENCH_PY:-$root/bench/real/work.py}
perl=$(readlink -f "${BENCH_PERL:-/usr/bin/perl}")
pl=${BENCH_PL:-$root/bench/real/work.pl}
nthreads=${BENCH_THREADS:-256}
mixmb=${BENCH_MIX_MB:-1000}
bigmb=${BENCH_BIG_MB:-4096}
sim="--effects realistic --rand-bits 3 --ebs-period 397 --lbr-period 61"
r_sim=		# extra pmusim options of one recording
mkdir -p "$out"
out=$(cd "$out" && pwd)

# note FILE CMD...: runs CMD (which writes FILE.tmp), records it in FILE.cmd, renames.
note() {
	n_f=$1
	shift
	for n_a in "$@"; do
		case $n_a in
		*[!A-Za-z0-9_./=:,+-]*) printf "'%s' " "$n_a" ;;
		*) printf '%s ' "$n_a" ;;
		esac
	done | sed 's/ $//; s|\.data\.tmp|.data|g; s|/\./|/|g' >> "$n_f.cmd.tmp"
	echo >> "$n_f.cmd.tmp"
	"$@"
}
# finish FILE: FILE.tmp becomes FILE; FILE.info gets its size in bytes.
finish() {
	mv "$1.tmp" "$1"
	mv "$1.cmd.tmp" "$1.cmd"
	echo "file_bytes $(stat -c %s "$1")" >> "$1.info"
}

# pmusim NAME SEED PROGRAM ARGS...: one recording, run in $out (the programs' outputs go
# there too; qemu-user does not follow exec, so each program runs directly, not under sh).
record() {
	r_f=$out/$1.data r_seed=$2
	shift 2
	[ -s "$r_f" ] && return 0
	echo "bench: recording $r_f (minutes)" >&2
	(cd "$out" && note "$r_f" "$pmusim" $sim $r_sim --seed "$r_seed" -o "$r_f.tmp" -- "$@" \
		> "$r_f.log" 2>&1) || { tail -n 5 "$r_f.log" >&2; exit 3; }
	finish "$r_f"
}

# mix NAME BENCHGEN-ARGS...: a benchgen file from the three recordings.
mix() {
	m_f=$out/$1.data
	shift
	[ -s "$m_f" ] && return 0
	echo "bench: generating $m_f" >&2
	note "$m_f" "$gen" "$@" -o "$m_f.tmp" > "$m_f.info.tmp"
	mv "$m_f.info.tmp" "$m_f.info"
	finish "$m_f"
}

srcs="$out/cc1.data $out/python.data $out/sqlite.data"
for n in $names; do
	[ -s "$out/$n.data" ] || rm -f "$out/$n.data.cmd.tmp" "$out/$n.data.info"
	case $n in
	cc1|cc1_*|mix*)	echo "$cc1" > "$out/$n.data.bin" ;;
	sqlite|threads)	echo "$sqlite" > "$out/$n.data.bin" ;;
	python*)	echo "$python" > "$out/$n.data.bin" ;;
	perl*)		echo "$perl" > "$out/$n.data.bin" ;;
	tiled)		echo "$out/tiled_src/bin/interp" > "$out/$n.data.bin" ;;
	esac
	case $n in
	cc1)
		if [ ! -s "$out/cc1.data" ]; then
			note "$out/cc1.data" gcc -E -I"$root" "$csrc" -o "$out/big.i"
		fi
		record cc1 11 "$cc1" -quiet -O2 "$out/big.i" -o "$out/big.s" ;;
	cc1_cycles)
		if [ ! -s "$out/big.i" ]; then
			note "$out/cc1_cycles.data" gcc -E -I"$root" "$csrc" -o "$out/big.i"
		fi
		r_sim="--lbr-event cycles --lbr-period 211"
		record cc1_cycles 11 "$cc1" -quiet -O2 "$out/big.i" -o "$out/big.s"
		r_sim= ;;
	sqlite)
		cp "$sql" "$out/work.sql"
		record sqlite 13 "$sqlite" :memory: ".read $out/work.sql" ;;
	python)
		cp "$py" "$out/work.py"
		record python 12 "$python" "$out/work.py" ;;
	python_cycles)
		cp "$py" "$out/work.py"
		r_sim="--lbr-event cycles --lbr-period 211"
		record python_cycles 12 "$python" "$out/work.py"
		r_sim= ;;
	perl|perl_cycles)
		cp "$pl" "$out/work.pl"
		[ $n = perl ] || r_sim="--lbr-event cycles --lbr-period 211"
		record $n 14 "$perl" "$out/work.pl"
		r_sim= ;;
	mix3)		mix mix3 --procs 3 --mb "$mixmb" $srcs ;;
	mix3000)	mix mix3000 --procs 3000 --mb "$mixmb" $srcs ;;
	mix10000)	mix mix10000 --procs 10000 --mb "$mixmb" $srcs ;;
	threads)	mix threads --threads "$nthreads" --mb "$mixmb" "$out/sqlite.data" ;;
	mix3_4g)	mix mix3_4g --procs 3 --mb "$bigmb" $srcs ;;
	mix3_whole)	mix mix3_whole --procs 3 --whole --mb "$mixmb" $srcs ;;
	mix3_*m)	mb=${n#mix3_}
			mb=${mb%m}
			case $mb in *[!0-9]*|'') echo "bench: unknown input '$n'" >&2; exit 1 ;; esac
			mix "$n" --procs 3 --mb "$mb" $srcs ;;
	cc1_1g)		mix cc1_1g --procs 1 --mb "$mixmb" "$out/cc1.data" ;;
	cc1_4g)		mix cc1_4g --procs 1 --mb "$bigmb" "$out/cc1.data" ;;
	tiled)
		if [ ! -s "$out/tiled.data" ]; then
			echo "sh bench/inputs.sh $out/tiled_src $pmusim" > "$out/tiled.data.cmd.tmp"
			tsrcs=$(sh "$root/bench/inputs.sh" "$out/tiled_src" "$pmusim")
		fi
		mix tiled --mb "$mixmb" $tsrcs ;;
	*)		echo "bench: unknown input '$n'" >&2; exit 1 ;;
	esac
	echo "$out/$n.data"
done
