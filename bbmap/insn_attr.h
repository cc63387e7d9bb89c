/* Instruction attributes used by the instruction mix: ISA extension, category, packing,
 * element type, and their printable names. Pure data; depends on nothing.
 */
#ifndef BBMAP_INSN_ATTR_H
#define BBMAP_INSN_ATTR_H

#include <stdint.h>

enum bbmap_isa {
	ISA_UNKNOWN = 0,
	/* x86 */
	ISA_BASE, ISA_X87, ISA_MMX, ISA_SSE, ISA_SSE2, ISA_SSE3, ISA_SSSE3, ISA_SSE41, ISA_SSE42,
	ISA_SSE4A, ISA_AVX, ISA_AVX2, ISA_FMA, ISA_FMA4, ISA_F16C, ISA_AVX512F, ISA_AVX512CD,
	ISA_AVX512BW, ISA_AVX512DQ, ISA_AVX512VL, ISA_AVX512_OTHER, ISA_BMI1, ISA_BMI2, ISA_ADX,
	ISA_AES, ISA_PCLMUL, ISA_SHA, ISA_RDRAND, ISA_POPCNT, ISA_LZCNT, ISA_MOVBE, ISA_TSX,
	ISA_XSAVE, ISA_3DNOW, ISA_X86_64_LONGMODE, ISA_SYSTEM,
	/* AArch64 */
	ISA_A64_BASE, ISA_A64_FP, ISA_A64_NEON, ISA_A64_SVE, ISA_A64_CRYPTO, ISA_A64_CRC,
	ISA_A64_LSE,
	/* ARM32 */
	ISA_ARM_BASE, ISA_ARM_VFP, ISA_ARM_NEON, ISA_ARM_THUMB,
	ISA__COUNT
};

enum bbmap_category {
	CAT_OTHER = 0,
	CAT_DATAXFER,		/* data transfer (mov, load, store) */
	CAT_ARITH,		/* integer arithmetic */
	CAT_LOGICAL,
	CAT_SHIFT,		/* shift and rotate */
	CAT_COMPARE,		/* cmp, test */
	CAT_COND_BR,
	CAT_UNCOND_BR,
	CAT_CALL,
	CAT_RET,
	CAT_STRING,
	CAT_STACK,		/* push, pop */
	CAT_X87,
	CAT_SIMD_FP,
	CAT_SIMD_INT,
	CAT_CONVERT,
	CAT_SYSTEM,		/* syscall, int, iret, cpuid, rdtsc, fences, ... */
	CAT_NOP,
	CAT__COUNT
};

enum bbmap_packing { PACK_NONE = 0, PACK_SCALAR, PACK_PACKED };

enum bbmap_elem {
	ELEM_NONE = 0, ELEM_INT8, ELEM_INT16, ELEM_INT32, ELEM_INT64, ELEM_INT128,
	ELEM_FP16, ELEM_BF16, ELEM_FP32, ELEM_FP64, ELEM_FP80,
};

/* bbmap_insn.flags */
#define BBMAP_INSN_BRANCH	(1u << 0)	/* any control transfer: ends a block */
#define BBMAP_INSN_COND		(1u << 1)
#define BBMAP_INSN_CALL		(1u << 2)
#define BBMAP_INSN_RET		(1u << 3)
#define BBMAP_INSN_INDIRECT	(1u << 4)
#define BBMAP_INSN_SYSCALL	(1u << 5)	/* syscall/sysenter/int/iret/svc/eret */
#define BBMAP_INSN_MEM_READ	(1u << 6)
#define BBMAP_INSN_MEM_WRITE	(1u << 7)
#define BBMAP_INSN_LOCK		(1u << 8)	/* lock prefix or atomic */
#define BBMAP_INSN_BAD		(1u << 9)	/* undecodable byte(s), length 1 */
#define BBMAP_INSN_HAS_TARGET	(1u << 10)	/* direct branch: target valid */

const char *bbmap_isa_name(enum bbmap_isa isa);		/* "BASE", "AVX2", "NEON", ... */
const char *bbmap_category_name(enum bbmap_category c);	/* "data_transfer", ... */
const char *bbmap_packing_name(enum bbmap_packing p);	/* "none", "scalar", "packed" */
const char *bbmap_elem_name(enum bbmap_elem e);		/* "", "i8", ..., "f64" */

#endif
