# Hand-written x86-64 code with known basic blocks for the golden HBBP tests
# (tests/cli/golden_*.sh). It is never run: synthetic recordings (tests/tools/perfgen) sample
# it, and the tests compare hbbp-convert's counts with hand-computed ones.
# Build: cc -nostdlib -static -Wl,--build-id -o prog golden_prog.S
#
# Blocks (length = instructions):
#   _start  4   mov, inc, cmp, jne _start
#   b18    18   17 x inc, jne _start              (exactly the default cutoff)
#   b19    19   18 x inc, jne _start              (one above it)
#   c       6   5 x inc, ret; c+4 (after two incs) is the target of the indirect jump in d,
#               so LBR data split it into c [c, c+4) 2 insns and c+4 [c+4, end) 4 insns
#   d       2   lea c+4(%rip), %rax; jmp *%rax
#   e       3   inc, inc, ret
#   f40    40   39 x inc, ret
	.text

	.globl _start
	.type _start, @function
_start:
	mov $1, %eax
	inc %ecx
	cmp $3, %eax
	jne _start
	.size _start, . - _start

	.globl b18
	.type b18, @function
b18:
	.rept 17
	inc %ecx
	.endr
	jne _start
	.size b18, . - b18

	.globl b19
	.type b19, @function
b19:
	.rept 18
	inc %ecx
	.endr
	jne _start
	.size b19, . - b19

	.globl c
	.type c, @function
c:
	inc %ecx
	inc %ecx
.Lc_mid:
	inc %ecx
	inc %ecx
	inc %ecx
	ret
	.size c, . - c

	.globl d
	.type d, @function
d:
	lea .Lc_mid(%rip), %rax
	jmp *%rax
	.size d, . - d

	.globl e
	.type e, @function
e:
	inc %ecx
	inc %ecx
	ret
	.size e, . - e

	.globl f40
	.type f40, @function
f40:
	.rept 39
	inc %ecx
	.endr
	ret
	.size f40, . - f40
