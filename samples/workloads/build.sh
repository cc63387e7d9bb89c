#!/bin/sh
# Builds the simulator workloads into OUTDIR (default build/workloads): static binaries,
# except libcmix (dynamically linked, so it crosses into libc.so and ld.so). vector is built
# with -O3 -mavx2 -mfma when qemu-x86_64 offers AVX2 (-cpu max), else -O3 (SSE2).
# Usage: samples/workloads/build.sh [OUTDIR]
set -e
src=$(cd "$(dirname "$0")" && pwd)
out=${1:-build/workloads}
mkdir -p "$out"
CC=${CC:-cc}
avx=""
if qemu-x86_64 -cpu help 2>/dev/null | grep -qw avx2; then
	avx="-mavx2 -mfma"
fi
for w in primes objects interp divloop; do
	$CC -O2 -g -static -o "$out/$w" "$src/$w.c" -lm
done
$CC -O3 -g -static $avx -o "$out/vector" "$src/vector.c" -lm
$CC -O2 -g -o "$out/libcmix" "$src/libcmix.c"
