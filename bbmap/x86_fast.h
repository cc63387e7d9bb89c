/* The outline of the commonest x86-64 instructions (their length; for direct jumps,
 * conditional jumps and calls their target), decided without a decoder: what Zydis's outline
 * (bbmap/disasm_zydis.c) would give for them, much faster. Anything it does not know (it
 * knows the plain one- and two-byte opcodes compilers emit most) is left to Zydis.
 * Knows nothing of modules or perf.data.
 */
#ifndef BBMAP_X86_FAST_H
#define BBMAP_X86_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The instruction at p (left bytes of code at addr, 64-bit mode): its length, with *flags
 * (BBMAP_INSN_BRANCH, _COND, _CALL, _RET, _INDIRECT, _HAS_TARGET; 0 for no transfer) and,
 * with _HAS_TARGET, *target; 0 when not decided here. */
unsigned x86_fast__outline(const uint8_t *p, size_t left, uint64_t addr, uint16_t *flags,
			   uint64_t *target);

#endif
