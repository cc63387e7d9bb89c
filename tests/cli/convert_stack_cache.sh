#!/bin/sh
# The stack cache and the stack statistics of --diagnostics, on two files made from one pmusim
# recording: stacks that repeat (the recording tiled over 2 processes) and stacks that do not
# (the same samples over 2000 processes: each process's stacks are its own; 80 MiB).
# - the stacks counted are the LBR event's; those that repeat are mostly cache hits;
# - on the 2000 processes (the cache filled and flushed again and again) the counts are
#   those of the independent reference (tests/tools/refmethod);
# - the distinct stacks it estimates are within 5% of the exact count, computed from
#   perf script's branch stacks (process, event, from/to pairs: the cache's key);
# - without a thread key the 2000-process file takes about the memory of the same samples
#   in 2 processes (the sums are bounded by the code, not by the processes).
. "$(dirname "$0")/../lib.sh"
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim

have_bench_tools convert_stack_cache || exit 0
if ! sh "$ROOT/samples/workloads/build.sh" "$TMP/wl" >/dev/null 2>"$TMP/build.err"; then
	fail "convert_stack_cache: cannot build the workloads"; cat "$TMP/build.err" >&2
	exit 0
fi
if ! "$PMUSIM" --effects realistic --rand-bits 3 --ebs-period 397 --lbr-period 61 \
	-o "$TMP/src.data" -- "$TMP/wl/interp" 200 >/dev/null 2>"$TMP/pmusim.err"; then
	fail "convert_stack_cache: pmusim failed"; cat "$TMP/pmusim.err" >&2
	exit 0
fi
"$GEN" --procs 2 --mb 12 -o "$TMP/repeat.data" "$TMP/src.data" >/dev/null 2>"$TMP/bg.err" &&
"$GEN" --procs 2000 --mb 80 -o "$TMP/fresh.data" "$TMP/src.data" >/dev/null 2>>"$TMP/bg.err"
if [ $? != 0 ]; then
	fail "convert_stack_cache: benchgen failed"; cat "$TMP/bg.err" >&2
	exit 0
fi

# the diagnostics line of a run: "LBR stacks: N, D distinct (P%, estimated); stack cache ..."
stacks_line() { grep '^  LBR stacks: ' "$1"; }

# the stacks counted = the LBR event's stacks; the stacks that repeat are mostly cache hits
for f in repeat fresh; do
	"$HBBP" --diagnostics -o "$TMP/$f.csv" "$TMP/$f.data" 2>"$TMP/$f.err"
	ev=$(sed -n 's/.* lbr  *[0-9]* samples, \([0-9]*\) stacks,.*/\1/p' "$TMP/$f.err")
	st=$(stacks_line "$TMP/$f.err" | sed -n 's/.*LBR stacks: \([0-9]*\),.*/\1/p')
	expect "convert_stack_cache: $f: ${st:-?} stacks counted, the event's ${ev:-?}" \
		'[ -n "$st" ] && [ "$st" = "$ev" ]'
done
hits=$(stacks_line "$TMP/repeat.err" | sed -n 's/.*stack cache \([0-9.]*\)% hits.*/\1/p')
expect "convert_stack_cache: stacks that repeat: ${hits:-?}% cache hits (>= 50)" \
	'[ -n "$hits" ] && awk -v h="$hits" "BEGIN { exit !(h >= 50) }"'
# the engine's counts (the cache flushed when full) are those of the independent reference
if [ -x "$BUILD/tools/methoddump" ] && [ -x "$BUILD/tools/refmethod" ]; then
	"$BUILD/tools/methoddump" "$TMP/fresh.data" >"$TMP/eng" 2>/dev/null &&
	"$BUILD/tools/refmethod" "$TMP/fresh.data" >"$TMP/ref" 2>/dev/null &&
	out=$(awk -f "$ROOT/tests/cli/method_cmp.awk" "$TMP/eng" "$TMP/ref"); st=$?
	expect "convert_stack_cache: fresh: engine = reference ($out)" '[ $st = 0 ]'
else
	skip "convert_stack_cache: methoddump or refmethod not built"
fi

# memory bounded by the code, not by the processes: the 2000-process file against the same
# samples in 2 processes, both 80 MiB (peak RSS by /usr/bin/time; the mix has no thread key).
# The raw stack cache's capacity is allowed on top: 16384 stacks (hbbp/engine/stack_cache.h),
# filled by the 2000 processes' distinct stacks and left mostly untouched by the 2 processes'
# repeating ones (36.5 MiB against 18.9; 16.1 against 14.0 with the cache off).
if [ -x /usr/bin/time ] &&
   "$GEN" --procs 2 --mb 80 -o "$TMP/two.data" "$TMP/src.data" >/dev/null 2>"$TMP/bg.err"; then
	/usr/bin/time -f %M -o "$TMP/rss.two" "$HBBP" -j 1 -o "$TMP/two.csv" "$TMP/two.data" 2>/dev/null
	/usr/bin/time -f %M -o "$TMP/rss.many" "$HBBP" -j 1 -o "$TMP/many.csv" "$TMP/fresh.data" \
		2>/dev/null
	two=$(tail -n 1 "$TMP/rss.two") many=$(tail -n 1 "$TMP/rss.many")
	expect "convert_stack_cache: 2000 processes take ${many:-?} KiB, 2 processes ${two:-?} KiB (at most 1.25x + 8 MiB + the stack cache's 16 MiB)" \
		'[ "${two:-0}" -gt 0 ] && [ "${many:-0}" -gt 0 ] &&
		 [ "$many" -le $((two * 5 / 4 + 8192 + 16384)) ]'
else
	skip "convert_stack_cache: memory: /usr/bin/time or benchgen missing"
fi

# exact distinct stacks from perf script: pid, event and the from/to of each entry
if ! command -v perf >/dev/null 2>&1; then
	skip "convert_stack_cache: distinct stacks: perf not installed"
	exit 0
fi
for f in repeat fresh; do
	exact=$(perf script -F pid,event,brstack -i "$TMP/$f.data" 2>/dev/null | awk '
		NF > 2 && $2 ~ /near_taken/ {
			k = $1
			for (i = 3; i <= NF; i++) { split($i, p, "/"); k = k " " p[1] "/" p[2] }
			print k
		}' | sort -u | wc -l)
	line=$(stacks_line "$TMP/$f.err")
	est=$(echo "$line" | sed -n 's/.*, \([0-9]*\) distinct.*/\1/p')
	expect "convert_stack_cache: $f: distinct stacks ${est:-?} estimated, $exact exact (within 5%)" \
		'[ "${exact:-0}" -gt 100 ] && [ -n "$est" ] &&
		 awk -v e="$est" -v x="$exact" "BEGIN { d = e - x; if (d < 0) d = -d; exit !(d <= 0.05 * x) }"'
done
