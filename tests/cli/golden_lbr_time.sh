#!/bin/sh
# Golden test of the time-weighted LBR estimate (method.md §5b): a hand-made `cycles -b`
# recording (perfgen) over tests/data/golden_prog.S whose branch entries carry cycle counts;
# the block counts are computed by hand below, never taken from the tool. Also: the plain
# weight (--lbr-weighting plain, and the lbr_count_plain diagnostics column), cycle counts all
# 0 or all saturated (plain weight with a warning, no NaN), and the warning of a recording on
# cycles whose entries carry no cycle counts.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/golden_lib.sh"

names="lbr_time_blocks lbr_time_summary lbr_time_meta lbr_time_plain lbr_time_diag_plain lbr_time_jobs lbr_time_zero lbr_time_saturated lbr_time_pipe lbr_time_usage lbr_time_cpu_clock"
[ $golden_ok = 1 ] && golden_setup
if [ $golden_ok != 1 ]; then
	for n in $names; do skip "$n: $golden_why"; done
	exit 0
fi
if [ $golden_layout_ok != 1 ]; then
	for n in $names; do fail "$n: golden_prog.S layout differs from what the test assumes"; done
	exit 0
fi

# Streams (method.md §5: e[k].to .. e[k-1].from, duration e[k-1].cycles):
#   s1 = S .. S_JNE          block _start (4 insns)
#   s2 = S .. B18_JNE        _start's jne not taken: _start then b18 (18 insns)
#   s3 = B18 .. B18_JNE      b18
#   s4 = B19 .. B19_JNE      b19 (19 insns)
# Stacks (newest first, FROM/TO/FLAGS/CYCLES), the interrupted stream Y starts at e[0].to:
#   L1 period 1728, ip b18+2: s4 (30), s2 (20), s1 (12)     Y from S, IP in b18
#   L2 period 640,  ip S+5:   s2 (30), s1 (12)              Y from S, IP in _start
#   L3 period 320,  ip S+7:   s3 (28), s4 (60)              Y from S
#   L4 period 160,  ip b19+4: s1 (12), s1 (12)              Y from B19
#   L5 period 240,  ip c+2:   s1 (24), s1 (24)              Y from c: no stream starts there
# (the oldest entry's count belongs to a stream before the stack: not used)
# Complete streams from S: s1 12 12 12 12 24 24, s2 20 30. D(Y) over the streams from Y's
# start that hold the IP is their harmonic mean (hbbp/method/lbr_time.h): an IP in b18 is held
# by s2 only, 2 / (1/20 + 1/30) = 24; an IP in _start by all eight, 8 / (4/12 + 2/24 + 1/20 +
# 1/30) = 8 / (1/2) = 16. From B19: s4 30 60, 2 / (1/30 + 1/60) = 40. The recording's mean
# (arithmetic, for a start no stream has): (96 + 50 + 90 + 28) / 11 = 24.
# D(Y) and the stack's weight period/D, split over its n-1 streams:
#   L1 D=24 (IP refinement: s2 only) 1728/24 = 72: s4 s2 s1 +24 each
#   L2 D=16 640/16 = 40: s2 s1 +20 each
#   L3 D=16 320/16 = 20: s3 s4 +10 each
#   L4 D=40 (B19, IP inside) 160/40 = 4: s1 s1 +2 each
#   L5 D=24 (fallback: the recording's mean) 240/24 = 10: s1 s1 +5 each
# Executions: _start = s1 (24+20+4+10) + s2 (24+20) = 102; b18 = s2 44 + s3 10 = 54;
# b19 = s4 (24+10) = 34. Instructions: _start 408, b18 972, b19 646.
# Plain (period/(n-1)): L1 576, L2 320, L3 160, L4 80, L5 120 per stream:
# _start = s1 (576+320+160+240) + s2 (576+320) = 2192 (8768 insns); b18 = 896 + 160 = 1056
# (19008); b19 = 576 + 160 = 736 (13984).
spec() { # FILE CYCLES-OVERRIDE [pipe]: "" keeps the cycle counts, else every entry gets it
	o=$2
	c() { if [ -n "$o" ]; then echo "$o"; else echo "$1"; fi; }
	[ "$3" = pipe ] && echo "option pipe" > "$1" || : > "$1"
	cat >> "$1" <<SPEC
header hostname=goldenhost osrelease=6.1.0-golden version=6.1.0 arch=x86_64 nrcpus=2 cmdline="perf record -b -e cycles ./prog" branch_stack
event name=cycles type=0 config=0 period=1000 sample_type=ip,tid,time,id,period,branch_stack branch_sample_type=any,user ids=11 flags=disabled,inherit,mmap,comm,mmap2,comm_exec
comm pid=100 tid=100 name=prog exec time=1 id=11
mmap2 pid=100 tid=100 start=$TEXT_VADDR len=0x1000 pgoff=$TEXT_OFF file=/golden/prog buildid=$BID prot=5 time=2 id=11
sample pid=100 tid=100 ip=$(hex "$B18 + 2") period=1728 time=10 br=$B19_JNE/$S/-/$(c 30),$B18_JNE/$B19/-/$(c 20),$S_JNE/$S/-/$(c 12),$B19_JNE/$S/-/$(c 7)
sample pid=100 tid=100 ip=$(hex "$S + 5") period=640 time=11 br=$B18_JNE/$S/-/$(c 30),$S_JNE/$S/-/$(c 12),$S_JNE/$S/-/$(c 3)
sample pid=100 tid=100 ip=$(hex "$S + 7") period=320 time=12 br=$B18_JNE/$S/-/$(c 28),$B19_JNE/$B18/-/$(c 60),$S_JNE/$B19/-/$(c 5)
sample pid=100 tid=100 ip=$(hex "$B19 + 4") period=160 time=13 br=$S_JNE/$B19/-/$(c 12),$S_JNE/$S/-/$(c 12),$S_JNE/$S/-/$(c 9)
sample pid=100 tid=100 ip=$(hex "$C + 2") period=240 time=14 br=$S_JNE/$C/-/$(c 24),$S_JNE/$S/-/$(c 24),$S_JNE/$S/-/$(c 3)
SPEC
}
spec "$TMP/t.spec" ""
spec "$TMP/z.spec" 0
spec "$TMP/s.spec" 65535
spec "$TMP/p.spec" "" pipe
sed 's/^event name=cycles type=0 config=0/event name=cpu-clock type=1 config=0/' "$TMP/t.spec" > "$TMP/k.spec"
for f in t z s k; do
	run_perfgen "$TMP/$f.spec" "$TMP/$f.data" 2>"$TMP/perfgen.err" ||
		{ for n in $names; do fail "$n: perfgen: $(head -1 "$TMP/perfgen.err")"; done; exit 0; }
done
run_perfgen "$TMP/p.spec" - > "$TMP/p.data" 2>"$TMP/perfgen.err" ||
	{ for n in $names; do fail "$n: perfgen: $(head -1 "$TMP/perfgen.err")"; done; exit 0; }
BIN="--binary /golden/prog=$PROG"
blk() { printf 'prog+%s' "$1"; }
# blocks EXPECTED OUT.csv: block,count rows (counts within 1e-9 relative), in any order
blocks() {
	awk -F, 'NR == FNR { e[$1] = $2; n++; next }
		FNR == 1 { next }
		{ got++; d = $2 - e[$1]; if (d < 0) d = -d
		  if (!($1 in e) || d > 1e-9 * e[$1]) { printf "%s: %s, expected %s\n", $1, $2, e[$1]; bad = 1 } }
		END { if (got != n) { printf "%d rows, expected %d\n", got, n; bad = 1 }; exit bad }' "$1" "$2" >&2
}
printf '%s,408\n%s,972\n%s,646\n' "$(blk $S)" "$(blk $B18)" "$(blk $B19)" > "$TMP/time.exp"
printf '%s,8768\n%s,19008\n%s,13984\n' "$(blk $S)" "$(blk $B18)" "$(blk $B19)" > "$TMP/plain.exp"

"$HBBP" "$TMP/t.data" $BIN --by block -o "$TMP/time.csv" 2>"$TMP/time.err"
st=$?
expect lbr_time_blocks "[ $st = 0 ] && blocks '$TMP/time.exp' '$TMP/time.csv'"
# the summary says the weight is time, with 5 stacks, 4 refined by the IP, 1 by the mean
expect lbr_time_summary "grep -q 'LBR weight: time' '$TMP/time.err' && grep -q ': 5 stacks by the mean duration' '$TMP/time.err' && grep -q '(4 of them refined by the IP), 1 by the recording.s mean stream duration 24.0 cycles' '$TMP/time.err'"
"$HBBP" -q "$TMP/t.data" $BIN --by block -o "$TMP/time.json" 2>/dev/null
expect lbr_time_meta "grep -q '\"lbr_weighting\": *\"time\"' '$TMP/time.json' && grep -q '\"lbr_time_fallback_stacks\": *1' '$TMP/time.json'"
"$HBBP" -q "$TMP/t.data" $BIN --by block --lbr-weighting plain -o "$TMP/plain.csv" 2>"$TMP/plain.err"
expect lbr_time_plain "blocks '$TMP/plain.exp' '$TMP/plain.csv'"
# --diagnostics: lbr_count is the time weight, lbr_count_plain the plain one
"$HBBP" -q "$TMP/t.data" $BIN --by block --diagnostics -o "$TMP/diag.csv" 2>/dev/null
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ print $1 "," $(c["lbr_count_plain"]) }' "$TMP/diag.csv" > "$TMP/diag.plain"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ print $1 "," $(c["lbr_count"]) }' "$TMP/diag.csv" > "$TMP/diag.time"
printf 'block,count\n' | cat - "$TMP/diag.plain" > "$TMP/diag.plain.csv"
printf 'block,count\n' | cat - "$TMP/diag.time" > "$TMP/diag.time.csv"
expect lbr_time_diag_plain "blocks '$TMP/plain.exp' '$TMP/diag.plain.csv' && blocks '$TMP/time.exp' '$TMP/diag.time.csv'"
# threads give the same counts
"$HBBP" -q "$TMP/t.data" $BIN --by block -j 4 -o "$TMP/j.csv" 2>/dev/null
expect lbr_time_jobs "blocks '$TMP/time.exp' '$TMP/j.csv'"
# bad cycle counts: all 0 (none reported) or all saturated: the plain weight, with a warning
"$HBBP" "$TMP/z.data" $BIN --by block -o "$TMP/z.csv" 2>"$TMP/z.err"
expect lbr_time_zero "blocks '$TMP/plain.exp' '$TMP/z.csv' && grep -q 'no cycle counts in the branch entries.*cannot be corrected' '$TMP/z.err' && ! grep -qi 'nan\|inf' '$TMP/z.csv'"
"$HBBP" "$TMP/s.data" $BIN --by block -o "$TMP/s.csv" 2>"$TMP/s.err"
expect lbr_time_saturated "blocks '$TMP/plain.exp' '$TMP/s.csv' && grep -q 'saturated.*cannot be corrected' '$TMP/s.err' && ! grep -qi 'nan\|inf' '$TMP/s.csv'"
# a pipe is read once, like a file: the time weight all the same
"$HBBP" - $BIN --by block -o "$TMP/p.csv" < "$TMP/p.data" 2>"$TMP/p.err"
expect lbr_time_pipe "blocks '$TMP/time.exp' '$TMP/p.csv' && grep -q 'LBR weight: time' '$TMP/p.err'"
# a bad --lbr-weighting is a usage error (exit 1) naming the choices
"$HBBP" "$TMP/t.data" $BIN --lbr-weighting bogus -o "$TMP/u.csv" 2>"$TMP/u.err"
st=$?
expect lbr_time_usage "[ $st = 1 ] && grep -q 'expected time or plain' '$TMP/u.err' && [ ! -e '$TMP/u.csv' ]"
# cpu-clock counts time too: the same weights (the units differ: a warning says the counts
# are scaled by the clock rate)
"$HBBP" "$TMP/k.data" $BIN --by block -o "$TMP/k.csv" 2>"$TMP/k.err"
expect lbr_time_cpu_clock "blocks '$TMP/time.exp' '$TMP/k.csv' && grep -q 'LBR weight: time' '$TMP/k.err' && grep -q 'counts nanoseconds' '$TMP/k.err'"
