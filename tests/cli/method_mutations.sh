#!/bin/sh
# tier: slow
# The independent reference can fail: each mutation below of the engine's arithmetic is applied
# with sed to a copy of the tree, the engine built there (tests/tools/methoddump, without LTO),
# and tests/cli/method_reference.sh run against it with the reference of this build; every
# mutation must make some of its checks fail (the failing checks are listed on stderr).
# Mutations: (a) the stream weight divided by n instead of n-1; (b) e[0].to counted as a stream
# start (streams paired e[k-1].to .. e[k].from, the stack read oldest first); (c) the bias flag
# inverted; (d) the hybrid cutoff compared with < instead of <=; (e) D(Y) of the time weight
# taken from the oldest entry's target instead of the interrupted newest stream's start (the
# start the engine hands the one-pass time weight, hbbp/method/lbr_defer.c).
# Minutes (a build and five runs of method_reference.sh): make check-slow runs it.
. "$(dirname "$0")/../lib.sh"
T=$TMP/tree
mkdir -p "$T"
tar -C "$ROOT" --exclude=./build --exclude=./.git --exclude=./hbbp-convert --exclude=./pmusim \
	-cf - . | tar -C "$T" -xf -
if ! nice make -C "$T" -j2 LTO=0 build/rel/tools/methoddump >"$TMP/build.log" 2>&1; then
	fail "method_mutations: the copy does not build"; tail -20 "$TMP/build.log"; exit 0
fi

# mutate NAME FILE SED-SCRIPT: the mutation must change FILE, build, and fail some checks
mutate() {
	n=$1 f=$2 s=$3
	cp "$T/$f" "$TMP/orig"
	sed -i "$s" "$T/$f"
	if cmp -s "$T/$f" "$TMP/orig"; then
		fail "method_mutations: $n: the mutation does not apply to $f"; return
	fi
	if ! make -C "$T" LTO=0 build/rel/tools/methoddump >"$TMP/build.log" 2>&1; then
		fail "method_mutations: $n: the mutated engine does not build"
		tail -20 "$TMP/build.log"
	else
		METHODDUMP=$T/build/rel/tools/methoddump sh "$ROOT/tests/cli/method_reference.sh" \
			>"$TMP/out" 2>/dev/null
		failed=$(grep -c '^FAIL' "$TMP/out")
		echo "method_mutations: $n: failing checks:" >&2
		sed -n 's/^FAIL method_reference: \([^(]*\).*/  \1/p' "$TMP/out" >&2
		expect "method_mutations: $n: $failed of $(grep -c '^PASS\|^FAIL' "$TMP/out") checks fail" \
			'[ "$failed" -gt 0 ]'
	fi
	cp "$TMP/orig" "$T/$f"
}

mutate "(a) stream weight / n" hbbp/method/accum.c \
	's|w = weight / (double)(n - 1),|w = weight / (double)n,|'
mutate "(b) e[0].to a stream start" hbbp/method/accum.c \
	'/lf = /!{s|ends\[2 \* k + 1\]|ends[2 * k - 1]|g; s|ends\[2 \* (k - 1)\]|ends[2 * k]|g}'
mutate "(c) bias flag inverted" hbbp/method/blocks.c \
	's|v->target = \(v->all >= HBBP_BIAS_MIN_OCC && v->expected > HBBP_BIAS_FACTOR \* chance\);|v->target = !(\1);|'
mutate "(d) cutoff compared with <" hbbp/method/blocks.c \
	's|if (nr_insns <= cutoff)|if (nr_insns < cutoff)|'
mutate "(e) D(Y) from the oldest entry" hbbp/engine/driver.c \
	's|evidx, e\[0\]\.to);|evidx, e[n - 1].to);|'
