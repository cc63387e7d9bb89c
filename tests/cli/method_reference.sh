#!/bin/sh
# The engine against the reference accumulation: every recording below is converted through
# the engine (lookup cache, stack cache and its queue, sum queues, the file read in two parts
# with a bundle on a second thread, leaders on threads) and through the plain loop of
# hbbp/method/reference.c (time order, every sample resolved and summed as it comes, its own
# address-space session); tests/tools/refcmp requires the same blocks, sample and stream
# counts, sources and bias flags, and sums, estimates and counts within 1e-12 relative.
# Recordings: the golden program (perfgen), every pmusim workload (realistic effects, the
# Intel two-event layout; period 1 and a longer period) and the corpus recordings whose
# binaries are present, each also read in one part on one thread (-j 1 --split 0).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/golden_lib.sh"
REFCMP=$BUILD/tools/refcmp
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
if [ ! -x "$REFCMP" ]; then fail "method_reference: $REFCMP not built"; exit 0; fi

# refcmp_both NAME ARGS...: the engine in two parts on two threads, then in one part
refcmp_both() {
	n=$1; shift
	out=$("$REFCMP" "$@" 2>"$TMP/rc.err"); st=$?
	cat "$TMP/rc.err" >&2
	check "method_reference: $n: engine = reference (${out#*: })" [ $st = 0 ]
	out=$("$REFCMP" -j 1 --split 0 "$@" 2>"$TMP/rc.err"); st=$?
	cat "$TMP/rc.err" >&2
	check "method_reference: $n, one part, one thread (${out#*: })" [ $st = 0 ]
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
		"$REFCMP" "$TMP/$1_$3.data" 2>/dev/null | grep -q 'in two parts' && two=$((two + 1))
	done
	# the comparison covers the part read apart only if the engine used it somewhere
	check "method_reference: the engine read $two of the workloads in two parts (>= 1)" [ $two -ge 1 ]
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
