/* Two undecodable bytes (0x06, invalid in 64-bit mode) in one function, on both sides of
 * _start + 3, for tests/cli/disasm_undecodable.sh: an LBR branch there makes it a block leader,
 * so the block from there holds one of them, the code cut without that leader both. Never
 * executed. Build: cc -nostdlib -static.
 */
	.text
	.globl	_start
	.type	_start, @function
_start:
	nop
	.byte	0x06
	nop
.Lmid:					/* _start + 3: a local label, no symbol to cut at */
	nop
	.byte	0x06
	nop
	ret
	.size	_start, .-_start
