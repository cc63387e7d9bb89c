#!/bin/sh
# pmusim's cycles truth (--truth-cycles): a hand-costed program's cycles per instruction and
# per mnemonic come out exactly as computed by hand from the timing model's table, and on the
# six workloads the branch entries' cycle counts that stock perf prints agree exactly with the
# per-instruction cycles: with LBR period 1 and depth 2 every stream is in one sample, and over
# each run of code that streams overlap (intervals [to, from] merged), the entries' cycles sum
# to the truth's cycles of its instructions. The count columns stay as without the option.
. "$(dirname "$0")/../lib.sh"
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
for tool in qemu-x86_64 perf; do
	if ! command -v $tool >/dev/null; then skip "pmusim_cycles: $tool not installed"; exit 0; fi
done
if [ ! -x "$PMUSIM" ]; then fail "pmusim_cycles: $PMUSIM not built"; exit 0; fi
K=0xffffffff81000000

# By hand (README, "Time" and "Cycles per instruction"): plain 1/4 cycle, div r32 26. The
# first stream runs _start..jnz (1 + 4 + 104 + 1 = 110 quarters: 28 cycles, 2 quarters of
# rounding on jnz), three more end at the taken jnz (109: 28, 3 quarters each on jnz), the last
# runs from the loop to the exit syscall (112: 28, none): 140 cycles in all.
cat > "$TMP/cyc.S" <<'ASM'
	.text
	.globl _start
_start:
	mov $5, %ecx
1:	mov $7, %eax
	xor %edx, %edx
	mov $3, %ebx
	div %ebx
	dec %ecx
	jnz 1b
	mov $60, %eax
	xor %edi, %edi
	syscall
ASM
if ! cc -nostdlib -static -o "$TMP/cyc" "$TMP/cyc.S" 2>"$TMP/cc.err"; then
	fail "pmusim_cycles: cannot assemble the test program"; cat "$TMP/cc.err" >&2; exit 0
fi
if ! "$PMUSIM" -v --truth-cycles --lbr-period 1 --lbr-depth 2 -o "$TMP/cyc.data" \
	--truth "$TMP/cyc.mix" --truth-insns "$TMP/cyc.insns" -- "$TMP/cyc" 2>"$TMP/cyc.err"; then
	fail "pmusim_cycles: pmusim failed"; cat "$TMP/cyc.err" >&2; exit 0
fi
cat > "$TMP/cyc.expect" <<'CSV'
dec,5,1.25
div,5,130
jne,5,4
mov,12,3
syscall,1,0.25
xor,6,1.5
1,mov,0.25
5,mov,1.25
5,xor,1.25
5,mov,1.25
5,div,130
5,dec,1.25
5,jne,4
1,mov,0.25
1,xor,0.25
1,syscall,0.25
CSV
{ tail -n +2 "$TMP/cyc.mix" | sort; tail -n +2 "$TMP/cyc.insns" | cut -d, -f4-; } > "$TMP/cyc.got"
expect "pmusim_cycles: hand-costed program: cycles per mnemonic and per instruction" \
	'diff -u "$TMP/cyc.expect" "$TMP/cyc.got" >&2 && grep -q " 140 cycles (timing model)" "$TMP/cyc.err"'
perf script -i "$TMP/cyc.data" -F brstack 2>/dev/null | awk -v K=$K '{ split($1, e, "/")
	if (e[1] != K) print e[6] }' | sort | uniq -c | awk '{ print $1 "x" $2 }' > "$TMP/cyc.entries"
expect "pmusim_cycles: hand-costed program: five streams of 28 cycles in the entries" \
	'[ "$(cat "$TMP/cyc.entries")" = 5x28 ]'

cat > "$TMP/streams.awk" <<'AWK'
$1 == "br_inst_retired.near_taken:" {
	split($2, a, "/"); split($3, b, "/")
	if (a[1] == K || b[2] == K) next
	printf "%.0f %.0f %.0f\n", hex2num(b[2]), hex2num(a[1]), 4 * a[6]
}
AWK
# first input: runs "lo hi quarters"; second: --truth-insns; prints "runs differing outside
# entries_cycles truth_cycles"
cat > "$TMP/runs.awk" <<'AWK'
NR == FNR { lo[++n] = $1; hi[n] = $2; want[n] = $3; next }
FNR == 1 { r = 1; next }
{
	a = hex2num($3); q = 4 * $6; all += q
	while (r <= n && hi[r] < a) r++
	if (r > n || a < lo[r]) { outside++; next }
	got[r] += q
}
END {
	for (i = 1; i <= n; i++) { if (got[i] != want[i]) bad++; sum += want[i] }
	printf "%d %d %d %.0f %.0f\n", n, bad, outside, sum / 4, all / 4
}
AWK
if ! sh "$ROOT/samples/workloads/build.sh" "$TMP/wl" 2>"$TMP/build.err"; then
	fail "pmusim_cycles: cannot build the workloads"; cat "$TMP/build.err" >&2; exit 0
fi
for w in "primes 300" "objects 2" "vector 40" "interp 10" "libcmix 10" "divloop 300"; do
	set -- $w
	wl=$1
	if ! "$PMUSIM" -v --truth-cycles --ebs-period 1000003 --lbr-period 1 --lbr-depth 2 \
		-o "$TMP/$wl.data" --truth "$TMP/$wl.mix" --truth-insns "$TMP/$wl.insns" \
		-- "$TMP/wl/$wl" $2 >/dev/null 2>"$TMP/$wl.err" ||
	   ! "$PMUSIM" --ebs-period 1000003 --lbr-period 1 --lbr-depth 2 --truth "$TMP/$wl.mix0" \
		--truth-insns "$TMP/$wl.insns0" -- "$TMP/wl/$wl" $2 >/dev/null 2>>"$TMP/$wl.err" ||
	   ! perf script -i "$TMP/$wl.data" -F event,brstack > "$TMP/$wl.txt" 2>>"$TMP/$wl.err"; then
		fail "pmusim_cycles: $wl: recording or perf script failed"
		cat "$TMP/$wl.err" >&2
		continue
	fi
	# the streams e[1].to .. e[0].from with e[0]'s cycles, in quarter cycles
	awk -f "$ROOT/tests/cli/hex.awk" -f "$TMP/streams.awk" -v K=$K "$TMP/$wl.txt" |
		sort -n -k1,1 -k2,2 > "$TMP/$wl.streams"
	# merged intervals and the entries' sum over each, then the truth over each
	awk 'NR > 1 && $1 > hi { printf "%s %s %.0f\n", lo, hi, s; s = 0 }
		NR == 1 || $1 > hi { lo = $1; hi = $2 }
		$2 > hi { hi = $2 }
		{ s += $3 }
		END { if (NR) printf "%s %s %.0f\n", lo, hi, s }' "$TMP/$wl.streams" > "$TMP/$wl.runs"
	awk -f "$ROOT/tests/cli/hex.awk" -f "$TMP/runs.awk" "$TMP/$wl.runs" FS=, "$TMP/$wl.insns" \
		> "$TMP/$wl.cmp"
	read runs bad outside entries truth < "$TMP/$wl.cmp"
	total=$(sed -n 's/^pmusim: \([0-9]*\) cycles (timing model).*/\1/p' "$TMP/$wl.err")
	sat=$(sed -n 's/.* cycles (timing model), \([0-9]*\) branch entries.*/\1/p' "$TMP/$wl.err")
	expect "pmusim_cycles: $wl: entries' cycles equal the truth's over all $runs runs ($truth cycles)" \
		'[ "$runs" -gt 20 ] && [ "$bad" = 0 ] && [ "$outside" = 0 ] && [ "$sat" = 0 ] &&
		 [ "$entries" = "$truth" ] && [ "$truth" = "$total" ]'
	# per mnemonic: the mix's cycles are the instructions' cycles summed by mnemonic; the
	# count columns are those written without --truth-cycles
	awk -F, 'FNR == 1 { next } NR == FNR { m[$5] += 4 * $6; next } { if (m[$1] != 4 * $3) bad++ }
		END { exit bad > 0 }' "$TMP/$wl.insns" "$TMP/$wl.mix" > /dev/null
	mixok=$?
	expect "pmusim_cycles: $wl: cycles by mnemonic, counts unchanged" \
		'[ $mixok = 0 ] && cut -d, -f1-2 "$TMP/$wl.mix" | cmp -s - "$TMP/$wl.mix0" &&
		 cut -d, -f1-5 "$TMP/$wl.insns" | cmp -s - "$TMP/$wl.insns0"'
done
