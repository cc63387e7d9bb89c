#!/bin/sh
# The engine against the reference accumulation: every recording below is converted through
# the engine (lookup cache, stack cache and its queue, sum queues, the file read in two parts
# with a bundle on a second thread, leaders on threads) and through the plain loop of
# hbbp/method/reference.c (time order, every sample resolved and summed as it comes, its own
# address-space session); tests/tools/refcmp requires the same blocks, sample and stream
# counts, sources and bias flags, and sums, estimates and counts within 1e-12 relative.
# Recordings: the golden program (perfgen), a range remapped between samples (perfgen), the
# demo, every pmusim workload (realistic effects, the
# Intel two-event layout; period 1 and a longer period) and the corpus recordings whose
# binaries are present, each also read in one part on one thread (-j 1 --split 0).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/golden_lib.sh"
REFCMP=$BUILD/tools/refcmp
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
if [ ! -x "$REFCMP" ]; then fail "method_reference: $REFCMP not built"; exit 0; fi

# refcmp_both NAME ARGS...: the engine in two parts on two threads with the threads merged
# (the default mix), then in one part with its sums per thread (a thread key or table)
apart=0	# recordings of which the engine read over 1000 samples apart
refcmp_both() {
	n=$1; shift
	out=$("$REFCMP" "$@" 2>"$TMP/rc.err"); st=$?
	cat "$TMP/rc.err" >&2
	k=$(echo "$out" | sed -n 's/.*engine read \([0-9]*\) of.*/\1/p')
	[ "${k:-0}" -gt 1000 ] && apart=$((apart + 1))
	expect "method_reference: $n: engine = reference (${out#*: })" \
		'[ $st = 0 ] && case $out in *"(threads merged)"*) true ;; *) false ;; esac'
	out=$("$REFCMP" -j 1 --split 0 --threads "$@" 2>"$TMP/rc.err"); st=$?
	cat "$TMP/rc.err" >&2
	expect "method_reference: $n, one part, one thread, per thread (${out#*: })" \
		'[ $st = 0 ] && case $out in *"(per thread)"*) true ;; *) false ;; esac'
}

# the golden program
if [ $golden_ok = 1 ]; then
	golden_setup
	golden_spec "$TMP/g.spec"
	if run_perfgen "$TMP/g.spec" "$TMP/g.data" 2>"$TMP/perfgen.err"; then
		refcmp_both golden --binary "/golden/prog=$PROG" "$TMP/g.data"
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
		refcmp_both "remapped range" "$TMP/remap.data"
	else
		fail "method_reference: remapped range: perfgen: $(head -1 "$TMP/perfgen.err")"
	fi
else
	fail "method_reference: $PERFGEN not built"
fi

# the demo recording
refcmp_both demo --binary "vector=$ROOT/samples/demo/vector" "$ROOT/samples/demo/perf.data"

# every pmusim workload
if ! command -v qemu-x86_64 >/dev/null 2>&1; then
	skip "method_reference: pmusim workloads: qemu-x86_64 not installed"
elif [ ! -x "$PMUSIM" ]; then
	fail "method_reference: $PMUSIM not built"
elif ! sh "$ROOT/samples/workloads/build.sh" "$TMP/wl" >/dev/null 2>"$TMP/build.err"; then
	fail "method_reference: cannot build the workloads"; cat "$TMP/build.err" >&2
else
	two=0
	for w in "primes 2000 1" "objects 4 1" "vector 100 1" "interp 60 1" "libcmix 40 1" \
		 "divloop 2000 1" "primes 8000 397" "interp 400 397" "libcmix 400 397"; do
		set -- $w
		if ! "$PMUSIM" --effects realistic --rand-bits 3 --ebs-period $3 \
			--lbr-period $(( $3 == 1 ? 1 : 61 )) -o "$TMP/$1_$3.data" -- "$TMP/wl/$1" $2 \
			>/dev/null 2>"$TMP/$1.err"; then
			fail "method_reference: $1: pmusim failed"; cat "$TMP/$1.err" >&2; continue
		fi
		refcmp_both "$1 $2 period $3" "$TMP/$1_$3.data"
	done
	# the period-397 recordings tiled into 16 MiB as the benchmark tiles them (two CPUs'
	# samples overlapping in rounds of 512 KiB): a file the engine reads in two parts
	if "$BUILD/tools/benchgen" --mb 16 -o "$TMP/tiled.data" "$TMP/primes_397.data" \
		"$TMP/interp_397.data" "$TMP/libcmix_397.data" >/dev/null 2>"$TMP/bg.err"; then
		refcmp_both "tiled workloads" "$TMP/tiled.data"
	else
		fail "method_reference: benchgen failed"; cat "$TMP/bg.err" >&2
	fi
	# the comparison covers the part read apart only if the engine used it
	check "method_reference: the engine read over 1000 samples apart in $apart recordings (>= 2)" [ $apart -ge 2 ]
fi

# the corpus recordings with their binaries (as tests/cli/convert_corpus.sh finds them)
if have_corpus; then
	A=$CORPUS/autofdo
	refcmp_both propeller_sample "$A/propeller_sample.perfdata" \
		--binary "propeller_sample.bin=$A/propeller_sample_old.bin"
	mkdir -p "$TMP/symfs/export/hda3/tmp"
	ln -sf "$A/test.binary" "$TMP/symfs/export/hda3/tmp/test.binary"
	refcmp_both test.lbr "$A/test.lbr" --symfs "$TMP/symfs"
	bid=a05de3862b94ccc1cbffc5b3aabd1243691187e1
	mkdir -p "$TMP/bid/.build-id/a0"
	ln -sf "$A/hierarchical_discriminator_test.x86_64" "$TMP/bid/.build-id/a0/${bid#a0}"
	refcmp_both hierarchical_discriminator_test \
		"$A/hierarchical_discriminator_test.x86_64.perf.data" --buildid-dir "$TMP/bid"
else
	skip "method_reference: corpus absent"
fi
