#!/bin/sh
# Source recordings for the benchmark: builds the simulator workloads and records each one
# with pmusim (real qemu-x86_64 control flow, realistic PMU effects, 32-deep LBR stacks,
# the Intel two-event layout), once; bench/benchgen tiles them into large files.
# Short periods give many distinct streams per megabyte. Outputs are cached in OUTDIR.
# Usage: bench/inputs.sh OUTDIR PMUSIM      (prints the recordings, one per line)
# BENCH_INPUTS="WORKLOAD ARG ..." replaces the default list (the smoke test uses small ones).
# Depends on pmusim, qemu-x86_64 and cc only.
set -e
out=$1
pmusim=$2
[ -n "$out" ] && [ -x "$pmusim" ] || { echo "usage: bench/inputs.sh OUTDIR PMUSIM" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
if [ ! -x "$out/bin/libcmix" ] || [ ! -x "$out/bin/interp" ]; then
	sh "$root/samples/workloads/build.sh" "$out/bin" >&2
fi
seed=1
# workload and argument: branchy interpreter, libc-heavy (libc.so + ld.so), pointer
# chasing, trial division, vector kernel
list=${BENCH_INPUTS:-interp 400 libcmix 400 objects 15 primes 8000 vector 600}
set -- $list
while [ $# -ge 2 ]; do
	w=$1 arg=$2
	shift 2
	f=$out/src_${w}_$arg.data
	if [ ! -s "$f" ]; then
		"$pmusim" --effects realistic --rand-bits 3 --ebs-period 397 --lbr-period 61 \
			--seed $seed -o "$f.tmp" -- "$out/bin/$w" "$arg" >&2
		mv "$f.tmp" "$f"
	fi
	seed=$((seed + 1))
	echo "$f"
done
