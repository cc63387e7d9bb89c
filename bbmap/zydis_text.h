/* Operand text of a decoded x86 instruction in Intel syntax, as `objdump -M intel` and the
 * listings write it ("qword ptr [rsp+0x8]", "zmm16 {k1} {z}", "0x401000"): written straight
 * into a buffer by zydis_text__operands (the fast path, one pass over the operands), and by
 * zydis_text__operands_ref through Zydis's own Intel formatter (the plain version, for tests
 * to compare with). Both give the same text. Depends on Zydis only: knows nothing of
 * modules, symbols, perf.data.
 */
#ifndef BBMAP_ZYDIS_TEXT_H
#define BBMAP_ZYDIS_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <Zydis/Zydis.h>

/* Bytes zydis_text__operands may write, its final NUL included: 5 shown operands of at most
 * 64 bytes, a mask, zeroing, rounding and "far" decorations. */
#define ZYDIS_TEXT_MAX 448

/* Fills the register name table once per process (pthread_once). */
void zydis_text__init(void);

/* Writes the operand text of zi at runtime address addr to out (ZYDIS_TEXT_MAX bytes of room)
 * with a final NUL; returns its length. Reads ops[0..operand_count) only (the slots past it
 * count as unused, as ZydisDecoderDecodeFull clears them). An instruction Zydis's formatter refuses (an
 * immediate under an operand width it does not print) gives "", as the formatter does. */
size_t zydis_text__operands(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops,
			    uint64_t addr, char *out);

/* The formatter zydis_text__operands_ref uses: Intel style, memory sizes always shown,
 * lowercase hex, no padding. */
int zydis_text__formatter_init(ZydisFormatter *fmt);

/* The same text through fmt (ZydisFormatterFormatInstruction, then the prefix words and the
 * mnemonic cut off); returns a pointer into buf (n bytes). */
const char *zydis_text__operands_ref(const ZydisFormatter *fmt,
				     const ZydisDecodedInstruction *zi,
				     const ZydisDecodedOperand *ops, uint64_t addr, char *buf,
				     size_t n);

#endif
