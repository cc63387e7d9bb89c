# Sourced by bench/run.sh, bench/real.sh and bench/pairs.sh (with $root set to the
# checkout): the tools they time, as absolute paths, checked to exist; perf_ok=1 when perf
# is to be run too (BENCH_PERF=0: not); median. Knobs: HBBP, PMUSIM, GEN (benchgen), BUILD.
TIME=/usr/bin/time
export LC_ALL=C
HBBP=${HBBP:-./hbbp-convert}
PMUSIM=${PMUSIM:-./pmusim}
GEN=${GEN:-$BUILD/tools/benchgen}
abs() { case $1 in /*) echo "$1" ;; *) echo "$root/$1" ;; esac; }
HBBP=$(abs "$HBBP") PMUSIM=$(abs "$PMUSIM") GEN=$(abs "$GEN")

for p in "$HBBP" "$PMUSIM" "$GEN" "$TIME"; do
	[ -x "$p" ] || { echo "bench: $p is missing (make && make check-build)" >&2; exit 2; }
done
perf_ok=0
if [ "${BENCH_PERF:-1}" = 1 ] && command -v perf >/dev/null 2>&1; then
	perf_ok=1
fi

# median of the numbers on stdin ("" when there are none)
median() { sort -n | awk '{ v[NR] = $1 } END { if (!NR) print "";
	else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
