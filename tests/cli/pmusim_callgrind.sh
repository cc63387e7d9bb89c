#!/bin/sh
# pmusim truth against valgrind callgrind --dump-instr=yes on the static workloads, run with
# the same empty environment: inside the workload's own functions every instruction's count
# must agree exactly; elsewhere (C library start-up: CPU feature/cache detection sees qemu's
# -cpu max, not the host CPU; rep iterations; the exit block) the difference is reported.
# --skip-plt=no: by default callgrind counts a call into a PLT stub (a static binary's
# IRELATIVE slots for libm's ifuncs) twice at the call instruction.
. "$(dirname "$0")/../lib.sh"
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
for tool in qemu-x86_64 valgrind nm; do
	if ! command -v $tool >/dev/null; then skip "pmusim_callgrind: $tool not installed"; exit 0; fi
done
if [ ! -x "$PMUSIM" ]; then fail "pmusim_callgrind: $PMUSIM not built"; exit 0; fi
if ! sh "$ROOT/samples/workloads/build.sh" "$TMP/wl" 2>"$TMP/build.err"; then
	fail "pmusim_callgrind: cannot build the workloads"; cat "$TMP/build.err" >&2; exit 0
fi
for w in "primes 300" "objects 2" "vector 40" "interp 10" "divloop 300"; do
	set -- $w
	wl=$1 arg=$2 bin=$TMP/wl/$1
	env -i "$PMUSIM" --truth-insns "$TMP/$wl.csv" -- "$bin" $arg >/dev/null 2>"$TMP/$wl.err"
	env -i valgrind --tool=callgrind --skip-plt=no --dump-instr=yes --callgrind-out-file="$TMP/$wl.cg" \
		"$bin" $arg >/dev/null 2>>"$TMP/$wl.err"
	if [ ! -s "$TMP/$wl.csv" ] || [ ! -s "$TMP/$wl.cg" ]; then
		fail "pmusim_callgrind: $wl: a run failed"; cat "$TMP/$wl.err" >&2; continue
	fi
	# address ranges of the functions the workload source defines
	cc -c -O2 -o "$TMP/$wl.o" "$ROOT/samples/workloads/$wl.c" 2>/dev/null
	nm --defined-only "$TMP/$wl.o" | awk '$2 ~ /^[tT]$/ { print $3 }' > "$TMP/$wl.fns"
	nm -S --defined-only "$bin" | awk 'NR == FNR { f[$1] = 1; next }
		($3 ~ /^[tT]$/) && ($4 in f) { print "0x" $1, "0x" $2 }' "$TMP/$wl.fns" - \
		> "$TMP/$wl.ranges"
	awk -f "$ROOT/tests/cli/hex.awk" -f "$ROOT/tests/cli/cg_addr.awk" "$TMP/$wl.cg" \
		> "$TMP/$wl.cgc"
	cat > "$TMP/cmp.awk" <<'AWK'
function key(x) { return sprintf("%.0f", x) }
FILENAME ~ /ranges$/ { lo[++nr] = hex2num($1); hi[nr] = lo[nr] + hex2num($2); next }
FILENAME ~ /cgc$/ { cg[$1] = $2; cgt += $2; next }
FNR > 1 { split($0, f, ","); a = key(hex2num(f[3])); sim[a] = f[4]; simt += f[4] }
END {
	for (a in sim) all[a] = 1
	for (a in cg) all[a] = 1
	for (a in all) {
		own = 0
		for (i = 1; i <= nr; i++) if (a + 0 >= lo[i] && a + 0 < hi[i]) own = 1
		d = sim[a] - cg[a]
		if (own) { ownt += sim[a]; if (d) ownbad++ }
	}
	printf "%d %d %d %d\n", simt, cgt, ownt, ownbad
}
AWK
	set -- $(awk -f "$ROOT/tests/cli/hex.awk" -f "$TMP/cmp.awk" "$TMP/$wl.ranges" \
		"$TMP/$wl.cgc" "$TMP/$wl.csv")
	simt=$1 cgt=$2 ownt=$3 ownbad=$4
	check "pmusim_callgrind: $wl: own code $ownt instructions agree ($ownbad addresses differ); whole run pmusim $simt, callgrind $cgt, difference $((cgt - simt)) (C library start-up)" \
		test "$ownbad" = 0 -a "$ownt" -gt 0
done
