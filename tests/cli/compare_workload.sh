#!/bin/sh
# `compare` with a callgrind reference against pmusim's own truth of the same workload run
# (samples/workloads, reduced inputs, both with an empty environment): per function, every
# function the workload's source defines has exactly the same instruction count on both sides;
# the whole-run totals differ by the C library start-up (CPU feature and cache detection sees
# valgrind's CPU on one side and qemu's on the other), which is printed, not hidden.
# --skip-plt=no: by default callgrind counts a call into a PLT stub (IRELATIVE slots for
# libm's ifuncs in a static binary) twice at the call instruction.
. "$(dirname "$0")/../lib.sh"
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
for tool in qemu-x86_64 valgrind nm cc; do
	if ! command -v $tool > /dev/null; then skip "compare_workload: $tool not installed"; exit 0; fi
done
if [ ! -x "$PMUSIM" ]; then fail "compare_workload: $PMUSIM not built"; exit 0; fi
if ! sh "$ROOT/samples/workloads/build.sh" "$TMP/wl" > /dev/null 2> "$TMP/build.err"; then
	fail "compare_workload: cannot build the workloads"; cat "$TMP/build.err" >&2; exit 0
fi
for w in "primes 300" "objects 2"; do
	set -- $w
	name=$1 arg=$2 bin=$TMP/wl/$1
	env -i "$PMUSIM" -o "$TMP/$name.data" --truth-insns "$TMP/$name.ti" -- "$bin" $arg \
		> /dev/null 2> "$TMP/$name.err"
	env -i valgrind --tool=callgrind --skip-plt=no --dump-instr=yes --callgrind-out-file="$TMP/$name.cg" \
		"$bin" $arg > /dev/null 2>> "$TMP/$name.err"
	if [ ! -s "$TMP/$name.ti" ] || [ ! -s "$TMP/$name.cg" ]; then
		fail "compare_workload: $name: a run failed"; cat "$TMP/$name.err" >&2; continue
	fi
	cc -c -O2 -o "$TMP/$name.o" "$ROOT/samples/workloads/$name.c" 2> /dev/null
	nm --defined-only "$TMP/$name.o" | awk '$2 ~ /^[tT]$/ { print $3 }' > "$TMP/$name.fns"
	"$HBBP" compare --ref "$TMP/$name.cg" --by symbol -o "$TMP/$name.csv" "$TMP/$name.ti" \
		> "$TMP/$name.out" 2>&1
	# symbol,reference,measured,abs_diff,error,reference_count,measured_count
	set -- $(awk -F, 'NR == FNR { own[$1] = 1; next }
		FNR > 1 { cg += $6; sim += $7
			  if ($1 in own) { n++; ownc += $6; if ($6 != $7) { bad++; which = which " " $1 } } }
		END { printf "%.0f %.0f %d %.0f %d%s\n", cg, sim, n, ownc, bad, which }' \
		"$TMP/$name.fns" "$TMP/$name.csv")
	cgt=$1 simt=$2 nown=$3 ownc=$4 bad=$5
	shift 5
	differ=
	[ "$bad" = 0 ] || differ=" except$(printf ' %s' "$@")"
	check "compare_workload: $name $arg: $nown own functions ($ownc instructions) agree$differ; whole run callgrind $cgt, pmusim $simt, difference $((cgt - simt)) (C library start-up); $(tail -n 1 "$TMP/$name.out")" \
		test "$bad" = 0 -a "$nown" -gt 0 -a "$ownc" -gt 1000
done
