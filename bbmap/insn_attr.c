/* Instruction attributes for the mix: the printable names of bbmap/insn_attr.h, and the
 * classification of one capstone Arm instruction (with detail) into control-transfer flags,
 * memory access, ISA, category (the XED category that fits), packing, element type, vector
 * width and operands. Rules are written out below per architecture; x86 attributes come
 * from Zydis's tables (disasm_zydis.c). Knows nothing of ELF, blocks or perf.data.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "bbmap/module_priv.h"
#include "util/hbbp_err.h"

static const char *const isa_names[ISA__COUNT] = {
	[ISA_UNKNOWN] = "INVALID",
	[ISA_A64_BASE] = "A64", [ISA_A64_FP] = "FP", [ISA_A64_NEON] = "NEON",
	[ISA_A64_SVE] = "SVE", [ISA_A64_CRYPTO] = "CRYPTO", [ISA_A64_CRC] = "CRC",
	[ISA_A64_LSE] = "LSE", [ISA_ARM_BASE] = "ARM", [ISA_ARM_VFP] = "VFP",
	[ISA_ARM_NEON] = "ARM_NEON", [ISA_ARM_THUMB] = "THUMB",
#define BBMAP_X(n) [ISA_##n] = #n,
	BBMAP_X86_ISA_EXTS(BBMAP_X)
#undef BBMAP_X
};

static const char *const set_names[ISA_SET__COUNT] = {
	[ISA_SET_NONE] = "",
#define BBMAP_X(n) [ISA_SET_##n] = #n,
	BBMAP_X86_ISA_SETS(BBMAP_X)
#undef BBMAP_X
};

static const char *const cat_names[CAT__COUNT] = {
	[CAT_INVALID] = "INVALID",
#define BBMAP_X(n) [CAT_##n] = #n,
	BBMAP_X86_CATEGORIES(BBMAP_X)
#undef BBMAP_X
	[CAT_SIMD_FP] = "SIMD_FP", [CAT_SIMD_INT] = "SIMD_INT",
};

const char *bbmap_isa_name(enum bbmap_isa isa)
{
	return (unsigned)isa < ISA__COUNT && isa_names[isa] ? isa_names[isa] : "INVALID";
}

const char *bbmap_isa_set_name(enum bbmap_isa_set s)
{
	return (unsigned)s < ISA_SET__COUNT && set_names[s] ? set_names[s] : "";
}

const char *bbmap_category_name(enum bbmap_category c)
{
	return (unsigned)c < CAT__COUNT && cat_names[c] ? cat_names[c] : "INVALID";
}

static int from_name(const char *const *names, int n, const char *s)
{
	int i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], s))
			return i;
	return -1;
}

int bbmap_isa_from_name(const char *s) { return from_name(isa_names, ISA__COUNT, s); }
int bbmap_isa_set_from_name(const char *s) { return from_name(set_names, ISA_SET__COUNT, s); }
int bbmap_category_from_name(const char *s) { return from_name(cat_names, CAT__COUNT, s); }

const char *bbmap_packing_name(enum bbmap_packing p)
{
	return p == PACK_SCALAR ? "scalar" : p == PACK_PACKED ? "packed" : "none";
}

const char *bbmap_elem_name(enum bbmap_elem e)
{
	static const char *const n[] = { "", "i8", "i16", "i32", "i64", "i128",
					 "f16", "bf16", "f32", "f64", "f80" };

	return (unsigned)e < sizeof(n) / sizeof(n[0]) ? n[e] : "";
}

/* ---- string and group tests ---- */


static void upcase(char *dst, size_t n, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < n; i++)
		dst[i] = src[i] == ' ' || src[i] == '.' ? '_' : (char)toupper((unsigned char)src[i]);
	if (n)
		dst[i] = 0;
}

static bool has_group(const cs_detail *d, uint8_t g)
{
	uint8_t i;

	for (i = 0; i < d->groups_count; i++)
		if (d->groups[i] == g)
			return true;
	return false;
}

/* ---- AArch64 ---- */

/* mn starts with one of the prefixes of p (NULL-terminated) */
static bool starts_any(const char *mn, const char *const *p)
{
	for (; *p; p++)
		if (hbbp_starts(mn, *p))
			return true;
	return false;
}

static enum bbmap_elem a64_vas_elem(arm64_vas v, bool fp)
{
	switch (v) {
	case ARM64_VAS_8B: case ARM64_VAS_16B:	return ELEM_INT8;
	case ARM64_VAS_4H: case ARM64_VAS_8H:	return fp ? ELEM_FP16 : ELEM_INT16;
	case ARM64_VAS_2S: case ARM64_VAS_4S:	return fp ? ELEM_FP32 : ELEM_INT32;
	case ARM64_VAS_1D: case ARM64_VAS_2D:	return fp ? ELEM_FP64 : ELEM_INT64;
	case ARM64_VAS_1Q:			return ELEM_INT128;
	default:				return ELEM_NONE;
	}
}

/* The control-transfer flags, and the target of a direct branch into out. */
static uint16_t a64_branch(const cs_detail *d, unsigned id, struct bbmap_insn *out)
{
	const cs_arm64 *a = &d->arm64;
	uint16_t f = 0;
	uint8_t i;

	switch (id) {
	case ARM64_INS_B:
		f |= BBMAP_INSN_BRANCH;
		if (a->cc != ARM64_CC_INVALID && a->cc != ARM64_CC_AL && a->cc != ARM64_CC_NV)
			f |= BBMAP_INSN_COND;
		break;
	case ARM64_INS_BL:	f |= BBMAP_INSN_BRANCH | BBMAP_INSN_CALL; break;
	case ARM64_INS_BR:	f |= BBMAP_INSN_BRANCH | BBMAP_INSN_INDIRECT; break;
	case ARM64_INS_BLR:	f |= BBMAP_INSN_BRANCH | BBMAP_INSN_CALL | BBMAP_INSN_INDIRECT; break;
	case ARM64_INS_RET:	f |= BBMAP_INSN_BRANCH | BBMAP_INSN_RET | BBMAP_INSN_INDIRECT; break;
	case ARM64_INS_CBZ: case ARM64_INS_CBNZ: case ARM64_INS_TBZ: case ARM64_INS_TBNZ:
		f |= BBMAP_INSN_BRANCH | BBMAP_INSN_COND;
		break;
	case ARM64_INS_SVC: case ARM64_INS_HVC: case ARM64_INS_SMC: case ARM64_INS_ERET:
		f |= BBMAP_INSN_BRANCH | BBMAP_INSN_SYSCALL;
		break;
	case ARM64_INS_BRK:
		f |= BBMAP_INSN_BRANCH;
		break;
	default:
		if (has_group(d, ARM64_GRP_JUMP) || has_group(d, ARM64_GRP_CALL) ||
		    has_group(d, ARM64_GRP_RET))
			f |= BBMAP_INSN_BRANCH | BBMAP_INSN_INDIRECT;
		break;
	}
	if ((f & BBMAP_INSN_BRANCH) && !(f & (BBMAP_INSN_INDIRECT | BBMAP_INSN_SYSCALL)) &&
	    id != ARM64_INS_BRK) {
		for (i = a->op_count; i > 0; i--)
			if (a->operands[i - 1].type == ARM64_OP_IMM) {
				f |= BBMAP_INSN_HAS_TARGET;
				out->target = (uint64_t)a->operands[i - 1].imm;
				break;
			}
	}
	return f;
}

/* The operands' kinds, the widest register, packing and element type. */
static void a64_operands(csh h, const cs_arm64 *a, enum bbmap_isa isa, bool fp,
			 struct bbmap_insn *out)
{
	uint8_t i;

	out->nr_ops = a->op_count;
	for (i = 0; i < a->op_count; i++) {
		const cs_arm64_op *op = &a->operands[i];
		const char *rn;
		uint16_t w = 0;

		if (i < 4)
			out->op_kinds[i] = op->type == ARM64_OP_REG ? 'r' :
					   op->type == ARM64_OP_MEM ? 'm' :
					   (op->type == ARM64_OP_IMM || op->type == ARM64_OP_FP ||
					    op->type == ARM64_OP_CIMM) ? 'i' : '?';
		if (op->type != ARM64_OP_REG)
			continue;
		rn = cs_reg_name(h, op->reg);
		if (op->vas == ARM64_VAS_8B || op->vas == ARM64_VAS_4H ||
		    op->vas == ARM64_VAS_2S || op->vas == ARM64_VAS_1D)
			w = 64;
		else if (op->vas != ARM64_VAS_INVALID || (rn && rn[0] == 'q'))
			w = 128;
		if (w > out->width)
			out->width = w;
		if (op->vas != ARM64_VAS_INVALID) {
			out->packing = PACK_PACKED;
			out->elem = (uint8_t)a64_vas_elem(op->vas, fp);
		} else if (!out->elem && rn && (isa == ISA_A64_FP || isa == ISA_A64_NEON)) {
			out->packing = PACK_SCALAR;
			out->elem = rn[0] == 's' ? (fp ? ELEM_FP32 : ELEM_INT32) :
				    rn[0] == 'd' ? (fp ? ELEM_FP64 : ELEM_INT64) :
				    rn[0] == 'h' ? (fp ? ELEM_FP16 : ELEM_INT16) :
				    rn[0] == 'b' ? ELEM_INT8 : ELEM_NONE;
		} else if (!out->elem && rn && i == 0) {
			out->elem = rn[0] == 'x' ? ELEM_INT64 : rn[0] == 'w' ? ELEM_INT32 :
				    ELEM_NONE;
		}
	}
}

/* The category: from the flags, else from the mnemonic's prefix, in this order. */
static enum bbmap_category a64_category(const char *mn, uint16_t f, unsigned id,
					enum bbmap_isa isa, bool fp)
{
	static const char *const nop[] = { "hint", "bti", NULL };
	static const char *const sys[] = { "msr", "mrs", "dmb", "dsb", "isb", "sys", "prfm",
					   "dc", "ic", "wfe", "wfi", "sev", NULL };
	static const char *const cvt[] = { "fcvt", "scvtf", "ucvtf", "sxt", "uxt", NULL };
	static const char *const xfer[] = { "ld", "st", "mov", "fmov", "adr", "dup", "ins",
					    "umov", "smov", "csel", "cset", "csinc", "cas",
					    "swp", NULL };
	static const char *const cmp[] = { "fcmp", "cmp", "cmn", "tst", "ccmp", "ccmn",
					   "fccmp", NULL };
	static const char *const shift[] = { "lsl", "lsr", "asr", "ror", "extr", NULL };
	static const char *const logical[] = { "and", "orr", "eor", "bic", "orn", "eon", "mvn",
					       "bfi", "bfx", "ubfx", "sbfx", "ubfiz", "sbfiz",
					       "bfxil", "clz", "cls", "rbit", "rev", NULL };
	static const char *const arith[] = { "add", "sub", "mul", "madd", "msub", "neg", "adc",
					     "sbc", "sdiv", "udiv", "smul", "umul", "smadd",
					     "umadd", "smsub", "umsub", "cneg", "cinc", "csneg",
					     "csinv", "mneg", NULL };

	if (f & BBMAP_INSN_SYSCALL)
		return CAT_SYSTEM;
	if (f & BBMAP_INSN_RET)
		return CAT_RET;
	if (f & BBMAP_INSN_CALL)
		return CAT_CALL;
	if (f & BBMAP_INSN_COND)
		return CAT_COND_BR;
	if (f & BBMAP_INSN_BRANCH)
		return id == ARM64_INS_BRK ? CAT_SYSTEM : CAT_UNCOND_BR;
	if (!strcmp(mn, "nop") || !strcmp(mn, "yield") || starts_any(mn, nop))
		return CAT_NOP;
	if (starts_any(mn, sys))
		return CAT_SYSTEM;
	if (strstr(mn, "cvt") || starts_any(mn, cvt))
		return CAT_CONVERT;
	if (starts_any(mn, xfer))
		return CAT_DATAXFER;
	if (starts_any(mn, cmp))
		return CAT_BINARY;
	if (isa == ISA_A64_NEON || isa == ISA_A64_FP || isa == ISA_A64_CRYPTO)
		return fp ? CAT_SIMD_FP : CAT_SIMD_INT;
	if (starts_any(mn, shift))
		return CAT_SHIFT;
	if (starts_any(mn, logical))
		return CAT_LOGICAL;
	if (starts_any(mn, arith))
		return CAT_BINARY;
	return CAT_MISC;
}

void insn_attr__arm64(csh h, const cs_insn *ci, struct bbmap_insn *out, char *iclass, size_t n)
{
	static const char *const lse[] = { "cas", "swp", "ldadd", "ldclr", "ldeor", "ldset",
					   "ldsmax", "ldsmin", "ldumax", "ldumin", "stadd",
					   "stclr", "steor", "stset", "stsmax", "stsmin",
					   "stumax", "stumin", NULL };
	const cs_detail *d = ci->detail;
	const char *mn = ci->mnemonic;
	uint16_t f = a64_branch(d, ci->id, out);
	enum bbmap_isa isa = ISA_A64_BASE;
	bool fp = mn[0] == 'f' || hbbp_starts(mn, "scvtf") || hbbp_starts(mn, "ucvtf");

	if (starts_any(mn, lse)) {
		f |= BBMAP_INSN_MEM_READ | BBMAP_INSN_MEM_WRITE | BBMAP_INSN_LOCK;
		isa = ISA_A64_LSE;
	} else if (hbbp_starts(mn, "ld") || hbbp_starts(mn, "st")) {
		f |= mn[0] == 'l' ? BBMAP_INSN_MEM_READ : BBMAP_INSN_MEM_WRITE;
		if (strstr(mn, "xr") || strstr(mn, "xp"))
			f |= BBMAP_INSN_LOCK;
	}
	if (has_group(d, ARM64_GRP_CRYPTO))
		isa = ISA_A64_CRYPTO;
	else if (has_group(d, ARM64_GRP_CRC))
		isa = ISA_A64_CRC;
	else if (has_group(d, ARM64_GRP_NEON))
		isa = ISA_A64_NEON;
	else if (has_group(d, ARM64_GRP_FPARMV8))
		isa = ISA_A64_FP;
	out->isa = (uint8_t)isa;
	a64_operands(h, &d->arm64, isa, fp, out);
	out->flags = f;
	out->category = (uint8_t)a64_category(mn, f, ci->id, isa, fp);
	upcase(iclass, n, mn);
}

/* ---- ARM32 (basic: control flow, memory, ISA from groups) ---- */

void insn_attr__arm(csh h, const cs_insn *ci, struct bbmap_insn *out, char *iclass, size_t n)
{
	const cs_detail *d = ci->detail;
	const cs_arm *a = &d->arm;
	unsigned id = ci->id;
	uint16_t f = 0;
	bool writes_pc = false, reads_lr = false;
	uint8_t i;

	for (i = 0; i < a->op_count; i++) {
		const cs_arm_op *op = &a->operands[i];

		if (i < 4)
			out->op_kinds[i] = op->type == ARM_OP_REG ? 'r' :
					   op->type == ARM_OP_MEM ? 'm' :
					   op->type == ARM_OP_IMM ? 'i' : '?';
		if (op->type == ARM_OP_REG && op->reg == ARM_REG_PC &&
		    (i == 0 || id == ARM_INS_POP || id == ARM_INS_LDM))
			writes_pc = true;
		if (op->type == ARM_OP_REG && op->reg == ARM_REG_LR)
			reads_lr = true;
		if (op->type == ARM_OP_MEM)
			f |= (op->access & CS_AC_WRITE) ? BBMAP_INSN_MEM_WRITE : BBMAP_INSN_MEM_READ;
	}
	if (id == ARM_INS_POP || id == ARM_INS_LDM || (ci->mnemonic[0] == 'l' &&
						       ci->mnemonic[1] == 'd'))
		f |= BBMAP_INSN_MEM_READ;
	if (id == ARM_INS_PUSH || (ci->mnemonic[0] == 's' && ci->mnemonic[1] == 't'))
		f |= BBMAP_INSN_MEM_WRITE;
	switch (id) {
	case ARM_INS_B:
		f |= BBMAP_INSN_BRANCH;
		break;
	case ARM_INS_BL:
		f |= BBMAP_INSN_BRANCH | BBMAP_INSN_CALL;
		break;
	case ARM_INS_BLX:
		f |= BBMAP_INSN_BRANCH | BBMAP_INSN_CALL;
		if (a->op_count && a->operands[0].type == ARM_OP_REG)
			f |= BBMAP_INSN_INDIRECT;
		break;
	case ARM_INS_BX:
		f |= BBMAP_INSN_BRANCH | BBMAP_INSN_INDIRECT | (reads_lr ? BBMAP_INSN_RET : 0);
		break;
	case ARM_INS_SVC:
		f |= BBMAP_INSN_BRANCH | BBMAP_INSN_SYSCALL;
		break;
	default:
		if (writes_pc)	/* pop {..., pc}, ldm, ldr pc, mov pc, lr */
			f |= BBMAP_INSN_BRANCH | BBMAP_INSN_INDIRECT |
			     (id == ARM_INS_POP || id == ARM_INS_LDM || reads_lr ? BBMAP_INSN_RET : 0);
		else if (has_group(d, ARM_GRP_JUMP))
			f |= BBMAP_INSN_BRANCH;
		break;
	}
	if ((f & BBMAP_INSN_BRANCH) && a->cc != ARM_CC_AL && a->cc != ARM_CC_INVALID)
		f |= BBMAP_INSN_COND;
	if ((f & BBMAP_INSN_BRANCH) && !(f & (BBMAP_INSN_INDIRECT | BBMAP_INSN_SYSCALL)) &&
	    a->op_count && a->operands[0].type == ARM_OP_IMM) {
		f |= BBMAP_INSN_HAS_TARGET;
		out->target = (uint32_t)a->operands[0].imm;
	}
	out->nr_ops = a->op_count;
	out->flags = f;
	out->isa = has_group(d, ARM_GRP_NEON) ? ISA_ARM_NEON :
		   (has_group(d, ARM_GRP_VFP2) || has_group(d, ARM_GRP_VFP3) ||
		    has_group(d, ARM_GRP_VFP4) || has_group(d, ARM_GRP_FPARMV8)) ? ISA_ARM_VFP :
		   has_group(d, ARM_GRP_THUMB) ? ISA_ARM_THUMB : ISA_ARM_BASE;
	out->category = (f & BBMAP_INSN_SYSCALL) ? CAT_SYSTEM : (f & BBMAP_INSN_RET) ? CAT_RET :
			(f & BBMAP_INSN_CALL) ? CAT_CALL : (f & BBMAP_INSN_COND) ? CAT_COND_BR :
			(f & BBMAP_INSN_BRANCH) ? CAT_UNCOND_BR :
			id == ARM_INS_POP ? CAT_POP : id == ARM_INS_PUSH ? CAT_PUSH :
			(f & (BBMAP_INSN_MEM_READ | BBMAP_INSN_MEM_WRITE)) ? CAT_DATAXFER : CAT_MISC;
	upcase(iclass, n, ci->mnemonic);
}
