#!/bin/sh
# pmusim trace reconstruction: a hand-written static program whose exact instruction mix is
# known by hand (loops, rep movsb counted once, calls/returns, the final syscall) must come
# out exactly in --truth, and callgrind must count the same total.
. "$(dirname "$0")/../lib.sh"
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
if ! command -v qemu-x86_64 >/dev/null; then skip "pmusim_trace: qemu-x86_64 not installed"; exit 0; fi
if [ ! -x "$PMUSIM" ]; then fail "pmusim_trace: $PMUSIM not built"; exit 0; fi
cat > "$TMP/hand.S" <<'ASM'
	.text
	.globl _start
_start:
	mov $5, %ecx
1:	dec %ecx
	jnz 1b
	lea buf(%rip), %rdi
	lea buf2(%rip), %rsi
	mov $100, %ecx
	rep movsb
	call f
	call f
	mov $3, %ebx
2:	call f
	dec %ebx
	jnz 2b
exit_block:
	mov $60, %eax
	xor %edi, %edi
	syscall
f:	nop
	ret
	.bss
buf:	.space 128
buf2:	.space 128
ASM
if ! cc -nostdlib -static -o "$TMP/hand" "$TMP/hand.S" 2>"$TMP/cc.err"; then
	fail "pmusim_trace: cannot assemble the test program"; cat "$TMP/cc.err" >&2; exit 0
fi
if ! "$PMUSIM" --truth "$TMP/mix.csv" --truth-insns "$TMP/insns.csv" -- "$TMP/hand" 2>"$TMP/err"; then
	fail "pmusim_trace: pmusim failed"; cat "$TMP/err" >&2; exit 0
fi
# by hand: mov 4, dec 8, jne 8, lea 2, rep movsb 1, call 5, nop 5, ret 5, xor 1, syscall 1
cat > "$TMP/expect.csv" <<'CSV'
call,5
dec,8
jne,8
lea,2
mov,4
nop,5
rep movsb,1
ret,5
syscall,1
xor,1
CSV
tail -n +2 "$TMP/mix.csv" | sort > "$TMP/got.csv"
if diff -u "$TMP/expect.csv" "$TMP/got.csv" >&2; then
	pass "pmusim_trace: exact mix of a hand-counted program"
else
	fail "pmusim_trace: exact mix of a hand-counted program"
fi
# per-instruction counts: the loop body at _start+5 ran 5 times, f's nop 5 times
first=$(awk -F, 'NR==2 {print $4}' "$TMP/insns.csv")
nop=$(awk -F, '$5=="nop" {print $4}' "$TMP/insns.csv")
total=$(awk -F, 'NR>1 {s+=$4} END {print s}' "$TMP/insns.csv")
check "pmusim_trace: per-instruction counts (first 1, nop 5, total 40)" \
	test "$first" = 1 -a "$nop" = 5 -a "$total" = 40
# callgrind counts every iteration of a rep-prefixed instruction, the PMU (and pmusim) one
# retirement, and callgrind does not count the block that ends in the exit syscall (the
# process ends inside it): compare every other instruction address by address.
if command -v valgrind >/dev/null; then
	valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$TMP/cg.out" "$TMP/hand" \
		>/dev/null 2>&1
	awk -f "$ROOT/tests/cli/hex.awk" -f "$ROOT/tests/cli/cg_addr.awk" "$TMP/cg.out" |
		sort > "$TMP/cg.txt"
	cat > "$TMP/sim.awk" <<'AWK'
NR > 1 && $5 !~ /^rep/ { printf "%.0f %s\n", hex2num($3), $4 }
AWK
	awk -F, -f "$ROOT/tests/cli/hex.awk" -f "$TMP/sim.awk" "$TMP/insns.csv" | sort > "$TMP/sim.txt"
	rep=$(awk -F, '$5 ~ /^rep/ { print $3 }' "$TMP/insns.csv")
	ex=$(nm "$TMP/hand" | awk '$3 == "exit_block" { print "0x" $1 }')
	fn=$(nm "$TMP/hand" | awk '$3 == "f" { print "0x" $1 }')
	cat > "$TMP/norep.awk" <<AWK
BEGIN { r = hex2num("$rep"); lo = hex2num("$ex"); hi = hex2num("$fn") }
\$1 != r && !(\$1 >= lo && \$1 < hi)
AWK
	awk -f "$ROOT/tests/cli/hex.awk" -f "$TMP/norep.awk" "$TMP/cg.txt" > "$TMP/cg2.txt"
	awk -f "$ROOT/tests/cli/hex.awk" -f "$TMP/norep.awk" "$TMP/sim.txt" > "$TMP/sim2.txt"
	nexit=$(($(wc -l < "$TMP/sim.txt") - $(wc -l < "$TMP/sim2.txt")))
	if [ -s "$TMP/sim2.txt" ] && [ "$nexit" = 3 ] && diff -u "$TMP/cg2.txt" "$TMP/sim2.txt" >&2; then
		pass "pmusim_trace: callgrind agrees address by address (rep iterations aside)"
	else
		fail "pmusim_trace: callgrind agrees address by address (rep iterations aside)"
	fi
else
	skip "pmusim_trace: valgrind not installed"
fi
# self-modifying code: qemu retranslates the patched block (same pc, new translation); the
# mix must follow the bytes that ran: add 3 times, then sub 2 times
cat > "$TMP/smc.S" <<'ASM'
	.text
	.globl _start
_start:
	xor %eax, %eax
	mov $1, %ebx
	call f
	call f
	call f
	lea f(%rip), %rdi
	movb $0x29, (%rdi)
	call f
	call f
	mov $60, %eax
	xor %edi, %edi
	syscall
	.section .smc,"awx",@progbits
f:	add %ebx, %eax
	ret
ASM
if cc -nostdlib -static -o "$TMP/smc" "$TMP/smc.S" 2>/dev/null &&
   "$PMUSIM" -v --truth "$TMP/smc.csv" -- "$TMP/smc" 2>"$TMP/smc.err"; then
	check "pmusim_trace: retranslated self-modified block (add 3, sub 2)" sh -c \
		"grep -qx 'add,3' '$TMP/smc.csv' && grep -qx 'sub,2' '$TMP/smc.csv' &&
		 grep -q ' 1 retranslated' '$TMP/smc.err'"
else
	fail "pmusim_trace: self-modifying program"; cat "$TMP/smc.err" >&2
fi
# what pmusim refuses, with exit code 2 (bad input) and a message
cat > "$TMP/fork.c" <<'C'
#include <unistd.h>
#include <sys/wait.h>
int main(void) { pid_t p = fork(); if (!p) _exit(0); waitpid(p, 0, 0); return 0; }
C
cat > "$TMP/thread.c" <<'C'
#include <pthread.h>
static void *f(void *a) { return a; }
int main(void) { pthread_t t; pthread_create(&t, 0, f, 0); pthread_join(t, 0); return 0; }
C
cc -static -o "$TMP/fork" "$TMP/fork.c" && cc -static -pthread -o "$TMP/thread" "$TMP/thread.c"
for p in fork:'fork/clone' thread:'threads are not supported' notelf:'did not run'; do
	prog=$TMP/${p%%:*} want=${p#*:}
	[ -e "$prog" ] || echo 'not an ELF file' > "$prog"
	"$PMUSIM" --truth "$TMP/x.csv" -- "$prog" >/dev/null 2>"$TMP/refuse.err"
	rc=$?
	check "pmusim_trace: refuses ${p%%:*} (exit $rc, '$want')" sh -c \
		"test $rc = 2 && grep -q '$want' '$TMP/refuse.err'"
done
