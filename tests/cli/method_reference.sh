#!/bin/sh
# The engine against the independent reference: every recording below is converted through the
# engine (tests/tools/methoddump: hbbp-convert's conversion) and through tests/tools/refmethod
# (method.md computed a second time, sharing no code or arithmetic with hbbp/method or
# hbbp/engine), and tests/cli/method_cmp.awk requires the same blocks, lengths, sample and
# stream counts, sources and bias flags, rejections and event counters, the same sums,
# estimates and counts within 1e-12 relative (the order of the additions differs; the
# reference sums compensated), and the sums per batch and the intervals within 1e-9.
# Each recording three times: the engine's sums of the threads merged (the default mix), its
# sums per thread (a thread key or table), those compared too, and per thread made a process at
# a time (a thread key in the mix alone).
# Recordings: the golden program (perfgen), a range remapped between samples (perfgen), the
# demo, every pmusim workload with realistic effects, its stacks sampled on taken branches and
# on cycles (the time-weighted estimate, method.md §5b), those tiled into one file, and every
# corpus recording (those converted with their binaries; the
# rest must be refused by both).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/golden_lib.sh"
REF=$BUILD/tools/refmethod
DUMP=${METHODDUMP:-$BUILD/tools/methoddump}	# the engine (METHODDUMP: another build of it)
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
if [ ! -x "$REF" ] || [ ! -x "$DUMP" ]; then fail "method_reference: $REF or $DUMP not built"; exit 0; fi

# compare NAME ENGINE-OPTS REFERENCE-OPTS ARGS...: one engine run against the reference
compare() {
	n=$1 eo=$2 ro=$3; shift 3
	"$DUMP" $eo "$@" > "$TMP/eng" 2>"$TMP/eng.err"; es=$?
	"$REF" $ro "$@" > "$TMP/ref" 2>"$TMP/ref.err"; rs=$?
	out=$(awk -f "$ROOT/tests/cli/method_cmp.awk" "$TMP/eng" "$TMP/ref" \
		2>"$TMP/cmp.err"); cs=$?
	[ $cs = 0 ] || cat "$TMP/cmp.err" >&2
	[ $es = 0 ] || cat "$TMP/eng.err" >&2
	[ $rs = 0 ] || cat "$TMP/ref.err" >&2
	expect "method_reference: $n: engine = reference ($out)" '[ $es = 0 ] && [ $rs = 0 ] && [ $cs = 0 ]'
}

# both NAME ARGS...: the threads merged, then per thread
both() {
	b=$1; shift
	compare "$b" "" "" "$@"
	compare "$b, per thread" "--threads" "--threads" "$@"
	compare "$b, per thread, a process at a time" "--by-process" "--threads" "$@"
}

# the golden program
if [ $golden_ok = 1 ]; then
	golden_setup
	golden_spec "$TMP/g.spec"
	golden_spec "$TMP/gm.spec" mux
	if run_perfgen "$TMP/g.spec" "$TMP/g.data" 2>"$TMP/perfgen.err" &&
	   run_perfgen "$TMP/gm.spec" "$TMP/gm.data" 2>>"$TMP/perfgen.err"; then
		both golden --binary "/golden/prog=$PROG" "$TMP/g.data"
		both "golden, multiplexed" --binary "/golden/prog=$PROG" "$TMP/gm.data"
		compare "golden, cutoff 5" "--cutoff 5" "--cutoff 5" --binary "/golden/prog=$PROG" \
			"$TMP/g.data"
		for m in ebs lbr; do
			compare "golden, --method $m" "--method $m" "--method $m" \
				--binary "/golden/prog=$PROG" "$TMP/g.data"
		done
	else
		fail "method_reference: golden: perfgen: $(head -1 "$TMP/perfgen.err")"
	fi
else
	skip "method_reference: golden: $golden_why"
fi

# an address range mapped to another file between samples of one process: the engine's
# cached lookups must not outlive the MMAP2 (the reference resolves every sample afresh)
if [ -x "$PERFGEN" ]; then
	printf '%s\n' "event name=instructions type=0 config=1 period=1000 sample_type=ip,tid,period" \
		"mmap2 pid=100 tid=100 start=0x400000 len=0x2000 file=/nonexistent/a" \
		"sample ev=0 pid=100 tid=100 ip=0x401000 period=1000" \
		"sample ev=0 pid=100 tid=100 ip=0x401000 period=1000" \
		"mmap2 pid=100 tid=100 start=0x400000 len=0x2000 file=/nonexistent/b" \
		"sample ev=0 pid=100 tid=100 ip=0x401000 period=3000" > "$TMP/remap.spec"
	if run_perfgen "$TMP/remap.spec" "$TMP/remap.data" 2>"$TMP/perfgen.err"; then
		both "remapped range" "$TMP/remap.data"
	else
		fail "method_reference: remapped range: perfgen: $(head -1 "$TMP/perfgen.err")"
	fi
else
	fail "method_reference: $PERFGEN not built"
fi

# the demo recording
both demo --binary "vector=$ROOT/samples/demo/vector" "$ROOT/samples/demo/perf.data"

# every pmusim workload, stacks on taken branches and on cycles (the engine sums each stream's
# 1/duration of method.md §5b without compensation: 4e-13 off the exact sum here, 4e-12 on
# primes with stacks every 61 cycles)
if ! command -v qemu-x86_64 >/dev/null 2>&1; then
	skip "method_reference: pmusim workloads: qemu-x86_64 not installed"
elif [ ! -x "$PMUSIM" ]; then
	fail "method_reference: $PMUSIM not built"
elif ! sh "$ROOT/samples/workloads/build.sh" "$TMP/wl" >/dev/null 2>"$TMP/build.err"; then
	fail "method_reference: cannot build the workloads"; cat "$TMP/build.err" >&2
else
	for w in "primes 8000" "objects 4" "vector 100" "interp 400" "libcmix 400" "divloop 2000"; do
		set -- $w
		for ev in taken cycles; do
			if ! "$PMUSIM" --effects realistic --rand-bits 3 --ebs-period 397 --lbr-period \
				$([ $ev = taken ] && echo 61 || echo 211) --lbr-event $ev \
				-o "$TMP/$1_$ev.data" -- "$TMP/wl/$1" $2 >/dev/null 2>"$TMP/$1.err"; then
				fail "method_reference: $1: pmusim failed"; cat "$TMP/$1.err" >&2; continue
			fi
			both "$1 $2, stacks on $ev" "$TMP/$1_$ev.data"
		done
	done
	# throttled (at most 10 samples an event a tick: a quarter of them missing): the scale
	# and the intervals' widening of method.md §7
	if "$PMUSIM" --clock-hz 10000000 --hz 250 --throttle-rate 2500 --effects none \
		--ebs-period 1000 --lbr-period 100 --lbr-depth 8 -o "$TMP/throttled.data" \
		-- "$TMP/wl/primes" 8000 >/dev/null 2>"$TMP/thr.err"; then
		both "primes 8000, throttled" "$TMP/throttled.data"
	else
		fail "method_reference: throttled primes: pmusim failed"; cat "$TMP/thr.err" >&2
	fi
	# the taken-branch recordings tiled into 16 MiB as the benchmark tiles them (two CPUs'
	# samples overlapping in rounds of 512 KiB): many rounds and processes
	if "$BUILD/tools/benchgen" --mb 16 -o "$TMP/tiled.data" "$TMP/primes_taken.data" \
		"$TMP/interp_taken.data" "$TMP/libcmix_taken.data" >/dev/null 2>"$TMP/bg.err"; then
		both "tiled workloads" "$TMP/tiled.data"
	else
		fail "method_reference: benchgen failed"; cat "$TMP/bg.err" >&2
	fi
fi

# every corpus recording with the binaries there are; one the engine refuses (no usable event,
# not a perf.data file) the reference refuses too
if have_corpus; then
	C=$CORPUS
	BINS="--binary propeller_sample.bin=$C/autofdo/propeller_sample_old.bin
--binary test.binary=$C/autofdo/test.binary
--binary hierarchical_discriminator_test.x86_64=$C/autofdo/hierarchical_discriminator_test.x86_64
--binary libro_sample.so=$C/autofdo/libro_sample.so
--binary a.out=$C/hotspot/cpp-recursion__a.out
--binary cpp-inlining=$C/perfparser/cpp-inlining__cpp-inlining
--binary fork=$C/perfparser/fork_static_gcc__fork
--binary parallel_static_gcc=$C/perfparser/parallel_static_gcc__parallel_static_gcc
--binary vector_static_clang_v8.0.1=$C/perfparser/vector_static_clang__vector_static_clang_v8.0.1
--binary vector_static_gcc_v9.1.0=$C/perfparser/vector_static_gcc__vector_static_gcc_v9.1.0
--binary etm_test_loop=$C/simpleperf/etm__etm_test_loop
--binary etm_test_loop_small=$C/simpleperf/etm__etm_test_loop_small
--binary rq_stats.ko=$C/simpleperf/etm__rq_stats.ko
--binary lbr_test_loop=$C/simpleperf/lbr__lbr_test_loop"
	refused=0 odd=
	for f in $(find "$C" -type f ! -name '*.md' ! -name '*.txt' | sort); do
		if ! "$DUMP" $BINS "$f" >/dev/null 2>&1; then
			"$REF" $BINS "$f" >/dev/null 2>&1 && odd="$odd ${f#$C/}"
			refused=$((refused + 1))
			continue
		fi
		both "corpus ${f#$C/}" $BINS "$f"
	done
	expect "method_reference: corpus: the $refused recordings the engine refuses, the reference refuses too${odd:+ (not:$odd)}" '[ -z "$odd" ]'
else
	skip "method_reference: corpus absent"
fi
