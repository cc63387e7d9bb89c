#!/bin/sh
# Interval calibration (method.md §10): records the six workloads through pmusim with no
# hardware effect (--effects none) under SEEDS different seeds, the seed drawing the low
# RAND bits of every sampling period (--rand-bits: without them every seed gives the same
# file), converts each with --by mnemonic for each method, and counts the rows holding at
# least 0.5% of the exact instructions (pmusim --truth) whose exact count lies in
# [count_lo, count_hi]; prints the coverage per workload and method, in total, and the
# median relative width (count_hi - count_lo) / count of the rows holding at least 1%.
# The interval stands for the sampling noise alone: with no hardware effect that is all
# the error there is, so about 95% of the rows should be covered.
# Depends only on ./hbbp-convert, ./pmusim, qemu-x86_64 and a C compiler.
# Usage: bench/calibrate.sh [-s SEEDS] [-m "ebs lbr hbbp"] [-r RANDBITS] [-q] [-w WORKDIR]
#                           [WORKLOAD...]
#   -q  quick: inputs a tenth of the size with periods a tenth as long (the test's set)
# Output: one line per workload and method "W M rows inside coverage% medianwidth%", then
# "total M rows inside coverage% medianwidth%" per method and "total all ..." (last line).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
HBBP=${HBBP:-$top/hbbp-convert}
PMUSIM=${PMUSIM:-$top/pmusim}
work=${TMPDIR:-/tmp}/hbbp-calibrate
seeds=20 methods="hbbp" rand=6 quick=0
while getopts s:m:r:qw: opt; do
	case $opt in
	s) seeds=$OPTARG ;;
	m) methods=$OPTARG ;;
	r) rand=$OPTARG ;;
	q) quick=1 ;;
	w) work=$OPTARG ;;
	*) echo "usage: $0 [-s SEEDS] [-m METHODS] [-r RANDBITS] [-q] [-w WORKDIR] [WORKLOAD...]" >&2
	   exit 2 ;;
	esac
done
shift $((OPTIND - 1))
all="primes objects vector interp libcmix divloop"
[ $# -gt 0 ] && all="$*"
DEPTH=16
PE=${PE:-1009} PL=${PL:-101} PEQ=${PEQ:-101} PLQ=${PLQ:-11}
# Inputs of 1.5-2.5 M instructions (a tenth of bench/accuracy.sh's), EBS period 1009 and LBR
# period 101 as there: 1 500-2 500 EBS samples per run. Quick: a tenth of that again, with
# periods 101 and 11 (about as many samples).
params() {
	case $1 in
	primes)  echo "8000 $PE $PL | 2000 $PE $PL" ;;
	objects) echo "12 $PE $PL | 3 $PE $PL" ;;
	vector)  echo "400 $PE $PL | 100 $PE $PL" ;;
	interp)  echo "4000 $PE $PL | 1000 $PE $PL" ;;
	libcmix) echo "900 $PE $PL | 225 $PE $PL" ;;
	divloop) echo "130000 $PE $PL | 32500 $PE $PL" ;;
	*) echo "unknown workload $1" >&2; exit 2 ;;
	esac
}
extra() { [ "$1" = vector ] && echo 2; true; }

mkdir -p "$work"
"$top/samples/workloads/build.sh" "$work/bin" >/dev/null
res=$work/rows.txt
: >"$res"
for w in $all; do
	p=$(params "$w")
	[ $quick = 1 ] && p=${p#*| } || p=${p%% |*}
	set -- $p
	size=$1 pe=$2 pl=$3
	s=1
	while [ $s -le "$seeds" ]; do
		d=$work/$w.$s.data
		"$PMUSIM" --effects none --rand-bits "$rand" --seed "$s" --lbr-depth $DEPTH \
			--ebs-period "$pe" --lbr-period "$pl" -o "$d" --truth "$work/$w.$s.truth.csv" \
			-- "$work/bin/$w" "$size" $(extra "$w") >/dev/null 2>"$work/$w.pmusim.log" ||
			{ cat "$work/$w.pmusim.log" >&2; exit 1; }
		for m in $methods; do
			"$HBBP" -q --method "$m" --by mnemonic -o "$work/$w.$s.$m.csv" "$d"
			# per row of >= 0.5% of the exact instructions: W M truth-share inside width
			awk -F, -v w="$w" -v m="$m" 'FNR == 1 { if (NR == FNR) next
				for (i = 1; i <= NF; i++) c[$i] = i; next }
				NR == FNR { t[$1] = $2; tot += $2; next }
				{ n[$1] = $c["count"]; lo[$1] = $c["count_lo"]; hi[$1] = $c["count_hi"] }
				END { for (k in t) { if (t[k] < 0.005 * tot) continue
					x = k in n ? n[k] : 0
					in_ = (k in n) && t[k] >= lo[k] && t[k] <= hi[k]
					wd = x > 0 ? (hi[k] - lo[k]) / x : 0
					printf "%s %s %.6f %d %.6f\n", w, m, t[k] / tot, in_, wd } }' \
				"$work/$w.$s.truth.csv" "$work/$w.$s.$m.csv" >>"$res"
		done
		rm -f "$d"
		s=$((s + 1))
	done
done
# coverage and median relative width (rows >= 1%) per group
summary() { # LABEL (rows on stdin)
	sort -k5,5g | awk -v l="$1" '{ n++; in_ += $4; if ($3 >= 0.01) w[++nw] = $5 }
		END { if (!n) exit; med = nw ? (nw % 2 ? w[(nw + 1) / 2] : (w[nw / 2] + w[nw / 2 + 1]) / 2) : 0
			printf "%s %d %d %.1f %.2f\n", l, n, in_, 100 * in_ / n, 100 * med }'
}
for w in $all; do
	for m in $methods; do
		awk -v w="$w" -v m="$m" '$1 == w && $2 == m' "$res" | summary "$w $m"
	done
done
for m in $methods; do
	awk -v m="$m" '$2 == m' "$res" | summary "total $m"
done
summary "total all" <"$res"
