/* Two places where `objdump -d` (a linear sweep that resyncs only at symbols) and the
 * processor disagree on where instructions start, for tests/cli/disasm_objdump_resync.sh.
 * Build: cc -nostdlib -static -Wl,--eh-frame-hdr, then strip (f and g keep only their FDEs).
 *  - f follows 3 bytes of zero padding: objdump decodes 00 00 (add [rax],al), then 00 50 48
 *    (add [rax+0x48],dl) across f's start, which .eh_frame gives and _start calls.
 *  - g begins with 4f 47 41 4d 53: push r11 with three REX prefixes before its own. The SDM
 *    (vol. 2, 2.2.1) says a REX prefix not right before the opcode is ignored: one
 *    instruction of 5 bytes, which the processor executes in one step; objdump lists each
 *    ignored REX byte as an instruction of its own.
 *  - w: fstcw is FWAIT (9B) then FNSTCW (D9 /7); the processor executes two instructions
 *    (the SDM: "the assembler issues two instructions"); objdump lists one.
 * _start calls f and g, stores the x87 control word below the stack pointer, and exits.
 */
	.text
	.globl	_start
_start:
	call	f
	call	g
	.globl	w
w:	fstcw	-8(%rsp)
	mov	$60, %eax
	xor	%edi, %edi
	syscall
	.byte	0, 0, 0
f:
	.cfi_startproc
	push	%rax
	lea	0(%rip), %rax
	pop	%rax
	ret
	.cfi_endproc
g:
	.cfi_startproc
	.byte	0x4f, 0x47, 0x41, 0x4d, 0x53
	pop	%r11
	ret
	.cfi_endproc
