/* An x86-64 function with one byte no x86-64 decoder knows (0x06, push es, is invalid in
 * 64-bit mode: Intel SDM vol. 2, opcode map table A-2, "i64") between two nops, for
 * tests/cli/disasm_undecodable.sh. Never executed. Build: cc -nostdlib -static.
 */
	.text
	.globl	_start
	.type	_start, @function
_start:
	nop
	.byte	0x06
	nop
	ret
	.size	_start, .-_start
