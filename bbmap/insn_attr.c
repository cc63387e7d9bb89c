/* Instruction attributes for the mix: the printable names of bbmap/insn_attr.h, and the
 * classification of one capstone instruction (with detail) into control-transfer flags,
 * memory access, ISA extension, category, packing, element type, vector width, operands
 * and an Intel XED/SDE-style iclass name (JNZ, RET_NEAR, CALL_NEAR, ADD_LOCK, REP_MOVSB).
 * Rules are written out below per architecture. Knows nothing of ELF, blocks or perf.data.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "bbmap/module_priv.h"

static const char *const isa_names[ISA__COUNT] = {
	[ISA_UNKNOWN] = "UNKNOWN", [ISA_BASE] = "BASE", [ISA_X87] = "X87", [ISA_MMX] = "MMX",
	[ISA_SSE] = "SSE", [ISA_SSE2] = "SSE2", [ISA_SSE3] = "SSE3", [ISA_SSSE3] = "SSSE3",
	[ISA_SSE41] = "SSE4.1", [ISA_SSE42] = "SSE4.2", [ISA_SSE4A] = "SSE4A", [ISA_AVX] = "AVX",
	[ISA_AVX2] = "AVX2", [ISA_FMA] = "FMA", [ISA_FMA4] = "FMA4", [ISA_F16C] = "F16C",
	[ISA_AVX512F] = "AVX512F", [ISA_AVX512CD] = "AVX512CD", [ISA_AVX512BW] = "AVX512BW",
	[ISA_AVX512DQ] = "AVX512DQ", [ISA_AVX512VL] = "AVX512VL",
	[ISA_AVX512_OTHER] = "AVX512_OTHER", [ISA_BMI1] = "BMI1", [ISA_BMI2] = "BMI2",
	[ISA_ADX] = "ADX", [ISA_AES] = "AES", [ISA_PCLMUL] = "PCLMULQDQ", [ISA_SHA] = "SHA",
	[ISA_RDRAND] = "RDRAND", [ISA_POPCNT] = "POPCNT", [ISA_LZCNT] = "LZCNT",
	[ISA_MOVBE] = "MOVBE", [ISA_TSX] = "TSX", [ISA_XSAVE] = "XSAVE", [ISA_3DNOW] = "3DNOW",
	[ISA_X86_64_LONGMODE] = "LONGMODE", [ISA_SYSTEM] = "SYSTEM",
	[ISA_A64_BASE] = "A64", [ISA_A64_FP] = "FP", [ISA_A64_NEON] = "NEON",
	[ISA_A64_SVE] = "SVE", [ISA_A64_CRYPTO] = "CRYPTO", [ISA_A64_CRC] = "CRC",
	[ISA_A64_LSE] = "LSE", [ISA_ARM_BASE] = "ARM", [ISA_ARM_VFP] = "VFP",
	[ISA_ARM_NEON] = "ARM_NEON", [ISA_ARM_THUMB] = "THUMB",
};

static const char *const cat_names[CAT__COUNT] = {
	[CAT_OTHER] = "other", [CAT_DATAXFER] = "data_transfer", [CAT_ARITH] = "arith",
	[CAT_LOGICAL] = "logical", [CAT_SHIFT] = "shift", [CAT_COMPARE] = "compare",
	[CAT_COND_BR] = "cond_branch", [CAT_UNCOND_BR] = "uncond_branch", [CAT_CALL] = "call",
	[CAT_RET] = "return", [CAT_STRING] = "string", [CAT_STACK] = "stack", [CAT_X87] = "x87",
	[CAT_SIMD_FP] = "simd_fp", [CAT_SIMD_INT] = "simd_int", [CAT_CONVERT] = "convert",
	[CAT_SYSTEM] = "system", [CAT_NOP] = "nop",
};

const char *bbmap_isa_name(enum bbmap_isa isa)
{
	return (unsigned)isa < ISA__COUNT && isa_names[isa] ? isa_names[isa] : "UNKNOWN";
}

const char *bbmap_category_name(enum bbmap_category c)
{
	return (unsigned)c < CAT__COUNT && cat_names[c] ? cat_names[c] : "other";
}

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

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

static bool starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

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

/* ---- x86 ---- */

/* Condition codes: capstone suffix -> XED suffix. */
static const char *x86_cc(const char *s)
{
	static const char *const t[][2] = {
		{ "e", "Z" }, { "ne", "NZ" }, { "a", "NBE" }, { "ae", "NB" }, { "b", "B" },
		{ "be", "BE" }, { "g", "NLE" }, { "ge", "NL" }, { "l", "L" }, { "le", "LE" },
		{ "o", "O" }, { "no", "NO" }, { "p", "P" }, { "np", "NP" }, { "s", "S" },
		{ "ns", "NS" }, { "z", "Z" }, { "nz", "NZ" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(s, t[i][0]))
			return t[i][1];
	return NULL;
}

static bool x86_is_string(const char *b)
{
	static const char *const l[] = {
		"movsb", "movsw", "movsd", "movsq", "stosb", "stosw", "stosd", "stosq",
		"lodsb", "lodsw", "lodsd", "lodsq", "scasb", "scasw", "scasd", "scasq",
		"cmpsb", "cmpsw", "cmpsd", "cmpsq", "insb", "insw", "insd", "outsb", "outsw",
		"outsd", NULL };
	size_t n = strlen(b);
	char last = n ? b[n - 1] : 0;

	if (n < 4 || n > 5 || (last != 'b' && last != 'w' && last != 'd' && last != 'q'))
		return false;
	return in_list(b, l);
}

static enum bbmap_isa x86_isa(const cs_detail *d, unsigned id, const char *b)
{
	static const struct { uint8_t grp; uint8_t isa; } order[] = {
		{ X86_GRP_BWI, ISA_AVX512BW }, { X86_GRP_DQI, ISA_AVX512DQ },
		{ X86_GRP_CDI, ISA_AVX512CD }, { X86_GRP_ERI, ISA_AVX512_OTHER },
		{ X86_GRP_PFI, ISA_AVX512_OTHER }, { X86_GRP_AVX512, ISA_AVX512F },
		{ X86_GRP_FMA, ISA_FMA }, { X86_GRP_FMA4, ISA_FMA4 }, { X86_GRP_F16C, ISA_F16C },
		{ X86_GRP_AES, ISA_AES }, { X86_GRP_PCLMUL, ISA_PCLMUL }, { X86_GRP_SHA, ISA_SHA },
		{ X86_GRP_AVX2, ISA_AVX2 }, { X86_GRP_AVX, ISA_AVX }, { X86_GRP_XOP, ISA_AVX },
		{ X86_GRP_SSE42, ISA_SSE42 }, { X86_GRP_SSE41, ISA_SSE41 },
		{ X86_GRP_SSSE3, ISA_SSSE3 }, { X86_GRP_SSE3, ISA_SSE3 },
		{ X86_GRP_SSE4A, ISA_SSE4A }, { X86_GRP_SSE2, ISA_SSE2 }, { X86_GRP_SSE1, ISA_SSE },
		{ X86_GRP_3DNOW, ISA_3DNOW }, { X86_GRP_MMX, ISA_MMX }, { X86_GRP_BMI2, ISA_BMI2 },
		{ X86_GRP_BMI, ISA_BMI1 }, { X86_GRP_TBM, ISA_BMI1 }, { X86_GRP_ADX, ISA_ADX },
		{ X86_GRP_RTM, ISA_TSX }, { X86_GRP_HLE, ISA_TSX }, { X86_GRP_FPU, ISA_X87 },
	};
	size_t i;

	/* AVX-512 encodings of AVX instructions carry the AVX512 group only with EVEX; the
	 * VL group alone marks the 128/256-bit forms of AVX512F. */
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (has_group(d, order[i].grp))
			return has_group(d, X86_GRP_AVX512) && order[i].isa < ISA_AVX512F &&
			       order[i].isa != ISA_FMA ? ISA_AVX512F : (enum bbmap_isa)order[i].isa;
	if (has_group(d, X86_GRP_VLX))
		return ISA_AVX512VL;
	switch (id) {
	case X86_INS_POPCNT:	return ISA_POPCNT;
	case X86_INS_LZCNT:	return ISA_LZCNT;
	case X86_INS_TZCNT:	return ISA_BMI1;
	case X86_INS_MOVBE:	return ISA_MOVBE;
	case X86_INS_RDRAND:
	case X86_INS_RDSEED:	return ISA_RDRAND;
	case X86_INS_XSAVE: case X86_INS_XSAVEC: case X86_INS_XSAVEOPT: case X86_INS_XSAVES:
	case X86_INS_XRSTOR: case X86_INS_XRSTORS: case X86_INS_XSAVE64:
	case X86_INS_XRSTOR64: case X86_INS_XGETBV: case X86_INS_XSETBV:
		return ISA_XSAVE;
	default:
		break;
	}
	if (b[0] == 'f' && !starts(b, "fxsave") && !starts(b, "fxrstor") && strcmp(b, "femms"))
		return ISA_X87;
	if (has_group(d, X86_GRP_PRIVILEGE))
		return ISA_SYSTEM;
	/* Capstone 4 leaves some VEX/EVEX forms without a group (vsqrtss, vucomiss, ...): a
	 * 'v' mnemonic with vector register operands is AVX, AVX-512 with zmm or xmm16+. */
	if (b[0] == 'v') {
		bool vec = false, evex = false;

		for (i = 0; i < d->x86.op_count; i++) {
			unsigned r = d->x86.operands[i].type == X86_OP_REG ?
				     d->x86.operands[i].reg : X86_REG_INVALID;

			if (r >= X86_REG_XMM0 && r <= X86_REG_XMM31) {
				vec = true;
				evex |= r >= X86_REG_XMM16;
			} else if (r >= X86_REG_YMM0 && r <= X86_REG_YMM31) {
				vec = true;
				evex |= r >= X86_REG_YMM16;
			} else if (r >= X86_REG_ZMM0 && r <= X86_REG_ZMM31) {
				vec = evex = true;
			}
		}
		if (vec)
			return evex ? ISA_AVX512F : ISA_AVX;
	}
	return ISA_BASE;
}

static bool isa_is_simd(enum bbmap_isa i)
{
	return (i >= ISA_MMX && i <= ISA_AVX512_OTHER) || i == ISA_AES || i == ISA_PCLMUL ||
	       i == ISA_SHA || i == ISA_3DNOW;
}

static enum bbmap_elem int_elem(unsigned size)
{
	switch (size) {
	case 1:	return ELEM_INT8;
	case 2:	return ELEM_INT16;
	case 4:	return ELEM_INT32;
	case 8:	return ELEM_INT64;
	case 16:return ELEM_INT128;
	default:return ELEM_NONE;
	}
}

/* Packing and element type from an SSE/AVX mnemonic (without its 'v'). */
static void simd_type(const char *b, const cs_x86 *x, struct bbmap_insn *out)
{
	const char *two = strstr(b, "2");
	const char *s = b;
	size_t n;

	if (starts(b, "cvt") && two && two[1]) {
		s = two + 1;	/* conversion: the destination type */
		if (starts(s, "si") || starts(s, "usi")) {
			out->packing = PACK_SCALAR;
			out->elem = x->op_count ? int_elem(x->operands[0].size) : ELEM_INT32;
			return;
		}
		if (!strcmp(s, "dq") || !strcmp(s, "pi") || !strcmp(s, "udq")) {
			out->packing = PACK_PACKED;
			out->elem = ELEM_INT32;
			return;
		}
		if (!strcmp(s, "qq") || !strcmp(s, "uqq")) {
			out->packing = PACK_PACKED;
			out->elem = ELEM_INT64;
			return;
		}
	}
	n = strlen(s);
	if (n >= 2) {
		const char *t = s + n - 2;

		if (!strcmp(t, "ps") || !strcmp(t, "pd") || !strcmp(t, "ph")) {
			out->packing = PACK_PACKED;
			out->elem = t[1] == 's' ? ELEM_FP32 : t[1] == 'd' ? ELEM_FP64 : ELEM_FP16;
			return;
		}
		if (!strcmp(t, "ss") || !strcmp(t, "sd") || !strcmp(t, "sh")) {
			out->packing = PACK_SCALAR;
			out->elem = t[1] == 's' ? ELEM_FP32 : t[1] == 'd' ? ELEM_FP64 : ELEM_FP16;
			return;
		}
	}
	if (!strcmp(b, "movd")) {
		out->packing = PACK_SCALAR;
		out->elem = ELEM_INT32;
		return;
	}
	if (!strcmp(b, "movq")) {
		out->packing = PACK_SCALAR;
		out->elem = ELEM_INT64;
		return;
	}
	out->packing = PACK_PACKED;
	if (n >= 2 && !strcmp(s + n - 2, "dq"))
		out->elem = ELEM_INT128;
	else if (b[0] == 'p' && n > 2 && strcmp(b, "pxor") && strcmp(b, "pand") &&
		 strcmp(b, "por") && strcmp(b, "pandn") && strcmp(b, "ptest")) {
		switch (s[n - 1]) {
		case 'b': out->elem = ELEM_INT8; break;
		case 'w': out->elem = ELEM_INT16; break;
		case 'd': out->elem = ELEM_INT32; break;
		case 'q': out->elem = ELEM_INT64; break;
		default: break;
		}
	}
}

static void x86_iclass(const char *mn, const char *b, const cs_insn *ci, enum bbmap_isa isa,
		       char *ic, size_t n)
{
	char pre[16] = "", base[48], suf[8] = "";
	const char *cc;
	const char *sp;

	/* Prefix words: lock -> _LOCK suffix; rep/repe/repne on string insns -> REP*_ prefix;
	 * others (bnd, notrack, rep before ret, xacquire, ...) dropped as XED does. */
	for (sp = mn; (sp = strchr(mn, ' ')) != NULL; mn = sp + 1) {
		size_t l = (size_t)(sp - mn);

		if (l == 4 && !strncmp(mn, "lock", 4))
			strcpy(suf, "_LOCK");
		else if (x86_is_string(b) && l >= 3 && !strncmp(mn, "rep", 3)) {
			if ((l == 4 && mn[3] == 'e') || (l == 4 && mn[3] == 'z'))
				strcpy(pre, "REPE_");
			else if (l == 5 && mn[3] == 'n')
				strcpy(pre, "REPNE_");
			else
				strcpy(pre, (!strncmp(b, "cmps", 4) || !strncmp(b, "scas", 4)) ?
					    "REPE_" : "REP_");
		}
	}
	switch (ci->id) {
	case X86_INS_JMP:	strcpy(base, "JMP"); break;
	case X86_INS_LJMP:	strcpy(base, "JMP_FAR"); break;
	case X86_INS_CALL:	strcpy(base, "CALL_NEAR"); break;
	case X86_INS_LCALL:	strcpy(base, "CALL_FAR"); break;
	case X86_INS_RET:	strcpy(base, "RET_NEAR"); break;
	case X86_INS_RETF:
	case X86_INS_RETFQ:	strcpy(base, "RET_FAR"); break;
	case X86_INS_MOVABS:	strcpy(base, "MOV"); break;
	default:
		if (b[0] == 'j' && (cc = x86_cc(b + 1)) != NULL)
			snprintf(base, sizeof(base), "J%s", cc);
		else if (starts(b, "cmov") && (cc = x86_cc(b + 4)) != NULL)
			snprintf(base, sizeof(base), "CMOV%s", cc);
		else if (starts(b, "set") && (cc = x86_cc(b + 3)) != NULL)
			snprintf(base, sizeof(base), "SET%s", cc);
		else if ((!strcmp(b, "movsd") || !strcmp(b, "cmpsd")) && isa != ISA_BASE)
			snprintf(base, sizeof(base), "%s_XMM", !strcmp(b, "movsd") ? "MOVSD" :
				 "CMPSD");
		else
			upcase(base, sizeof(base), b);
		break;
	}
	snprintf(ic, n, "%s%s%s", pre, base, suf);
}

static enum bbmap_category x86_category(const char *b, unsigned id, uint16_t flags,
					enum bbmap_isa isa, const struct bbmap_insn *out)
{
	static const char *const sys[] = {
		"cpuid", "rdtsc", "rdtscp", "rdpmc", "lfence", "mfence", "sfence", "pause", "hlt",
		"in", "out", "cli", "sti", "wrmsr", "rdmsr", "xgetbv", "xsetbv", "swapgs",
		"invlpg", "clflush", "clflushopt", "clwb", "ldmxcsr", "stmxcsr", "vldmxcsr",
		"vstmxcsr", "fxsave", "fxrstor", "fxsave64", "fxrstor64", "xsave", "xrstor",
		"xsaveopt", "xsavec", "xsave64", "xrstor64", "ud2", "ud0", "ud2b", "lgdt", "lidt",
		"sgdt", "sidt", "lldt", "ltr", "wbinvd", "invd", "rdfsbase", "rdgsbase",
		"wrfsbase", "wrgsbase", "prefetch", "prefetchw", "prefetcht0", "prefetcht1",
		"prefetcht2", "prefetchnta", "rdrand", "rdseed", "xbegin", "xend", "xabort",
		"xtest", "vzeroupper", "vzeroall", "emms", "femms", "cld", "std", "clc", "stc",
		"cmc", "lahf", "sahf", "wait", NULL };
	static const char *const dx[] = {
		"mov", "movabs", "movzx", "movsx", "movsxd", "xchg", "bswap", "movbe", "movnti",
		"xlatb", NULL };
	static const char *const arith[] = {
		"add", "adc", "sub", "sbb", "inc", "dec", "neg", "mul", "imul", "div", "idiv",
		"xadd", "cmpxchg", "cmpxchg8b", "cmpxchg16b", "adcx", "adox", "mulx", "lea",
		"daa", "das", "aaa", "aas", "aam", "aad", NULL };
	static const char *const logic[] = {
		"and", "or", "xor", "not", "andn", "bt", "bts", "btr", "btc", "bsf", "bsr",
		"popcnt", "lzcnt", "tzcnt", "blsi", "blsmsk", "blsr", "bextr", "bzhi", "pdep",
		"pext", NULL };
	static const char *const shift[] = {
		"shl", "sal", "shr", "sar", "rol", "ror", "rcl", "rcr", "shld", "shrd", "sarx",
		"shlx", "shrx", "rorx", NULL };
	static const char *const stack[] = {
		"push", "pop", "pushal", "popal", "pushaw", "popaw", "pushfd", "popfd", "pushfq",
		"popfq", "pushf", "popf", "enter", "leave", NULL };
	static const char *const conv[] = {
		"cbw", "cwde", "cdqe", "cwd", "cdq", "cqo", NULL };

	if (flags & BBMAP_INSN_SYSCALL)
		return CAT_SYSTEM;
	if (flags & BBMAP_INSN_RET)
		return CAT_RET;
	if (flags & BBMAP_INSN_CALL)
		return CAT_CALL;
	if (flags & BBMAP_INSN_COND)
		return CAT_COND_BR;
	if (flags & BBMAP_INSN_BRANCH)
		return id == X86_INS_UD2 || id == X86_INS_UD2B || id == X86_INS_UD0 ?
			CAT_SYSTEM : CAT_UNCOND_BR;
	if (id == X86_INS_NOP || !strcmp(b, "nop") || starts(b, "endbr"))
		return CAT_NOP;
	if (in_list(b, sys))
		return CAT_SYSTEM;
	if (isa == ISA_X87)
		return CAT_X87;
	if (isa_is_simd(isa)) {
		const char *s = b[0] == 'v' && isa >= ISA_AVX ? b + 1 : b;

		if (strstr(s, "cvt"))
			return CAT_CONVERT;
		if (starts(s, "mov") || starts(s, "broadcast") || starts(s, "pbroadcast") ||
		    starts(s, "lddqu") || starts(s, "maskmov") || starts(s, "insert") ||
		    starts(s, "extract") || starts(s, "pinsr") || starts(s, "pextr") ||
		    starts(s, "gather") || starts(s, "pgather") || starts(s, "scatter"))
			return CAT_DATAXFER;
		return out->elem >= ELEM_FP16 ? CAT_SIMD_FP : CAT_SIMD_INT;
	}
	if (x86_is_string(b) && isa == ISA_BASE)
		return CAT_STRING;
	if (in_list(b, stack))
		return CAT_STACK;
	if (in_list(b, dx) || starts(b, "cmov") || starts(b, "set"))
		return CAT_DATAXFER;
	if (in_list(b, arith))
		return CAT_ARITH;
	if (in_list(b, logic))
		return CAT_LOGICAL;
	if (in_list(b, shift))
		return CAT_SHIFT;
	if (!strcmp(b, "cmp") || !strcmp(b, "test"))
		return CAT_COMPARE;
	if (in_list(b, conv))
		return CAT_CONVERT;
	return CAT_OTHER;
}

void insn_attr__x86(csh h, const cs_insn *ci, struct bbmap_insn *out, char *iclass, size_t n,
		    bool full)
{
	const cs_detail *d = ci->detail;
	const cs_x86 *x = &d->x86;
	const char *b = strrchr(ci->mnemonic, ' ');
	unsigned id = ci->id;
	uint16_t f = 0;
	enum bbmap_isa isa;
	uint8_t i;

	b = b ? b + 1 : ci->mnemonic;	/* the mnemonic without prefix words */

	/* Control transfers. */
	if (has_group(d, X86_GRP_JUMP)) {
		f |= BBMAP_INSN_BRANCH;
		if (id != X86_INS_JMP && id != X86_INS_LJMP)
			f |= BBMAP_INSN_COND;
	}
	if (has_group(d, X86_GRP_CALL))
		f |= BBMAP_INSN_BRANCH | BBMAP_INSN_CALL | BBMAP_INSN_MEM_WRITE;
	if (has_group(d, X86_GRP_RET) || id == X86_INS_RET || id == X86_INS_RETF ||
	    id == X86_INS_RETFQ)
		f |= BBMAP_INSN_BRANCH | BBMAP_INSN_RET | BBMAP_INSN_MEM_READ;
	if (has_group(d, X86_GRP_IRET) || has_group(d, X86_GRP_INT) ||
	    id == X86_INS_SYSCALL || id == X86_INS_SYSENTER || id == X86_INS_SYSEXIT ||
	    id == X86_INS_SYSRET || id == X86_INS_INT || id == X86_INS_INT1 ||
	    id == X86_INS_INT3 || id == X86_INS_INTO)
		f |= BBMAP_INSN_BRANCH | BBMAP_INSN_SYSCALL;
	if (id == X86_INS_UD2 || id == X86_INS_UD2B || id == X86_INS_UD0)
		f |= BBMAP_INSN_BRANCH;
	if ((f & BBMAP_INSN_BRANCH) && !(f & (BBMAP_INSN_RET | BBMAP_INSN_SYSCALL)) &&
	    (has_group(d, X86_GRP_JUMP) || has_group(d, X86_GRP_CALL))) {
		if (x->op_count >= 1 && x->operands[0].type == X86_OP_IMM &&
		    id != X86_INS_LJMP && id != X86_INS_LCALL) {
			f |= BBMAP_INSN_HAS_TARGET;
			out->target = (uint64_t)x->operands[0].imm;
		} else {
			f |= BBMAP_INSN_INDIRECT;
		}
	}
	if (f & BBMAP_INSN_RET)
		f |= BBMAP_INSN_INDIRECT;

	/* Memory operands (not for lea and hinting nops, which do not access memory). */
	if (id != X86_INS_LEA && id != X86_INS_NOP && !starts(b, "prefetch")) {
		for (i = 0; i < x->op_count; i++) {
			const cs_x86_op *op = &x->operands[i];

			if (op->type != X86_OP_MEM)
				continue;
			if (op->access & CS_AC_WRITE)
				f |= BBMAP_INSN_MEM_WRITE;
			if ((op->access & CS_AC_READ) || !op->access)
				f |= BBMAP_INSN_MEM_READ;
		}
	}
	if (starts(b, "push") || !strcmp(b, "enter"))
		f |= BBMAP_INSN_MEM_WRITE;
	if (starts(b, "pop") && !starts(b, "popcnt"))
		f |= BBMAP_INSN_MEM_READ;
	if (!strcmp(b, "leave"))
		f |= BBMAP_INSN_MEM_READ;
	if ((id == X86_INS_CMPXCHG || id == X86_INS_CMPXCHG8B || id == X86_INS_CMPXCHG16B ||
	     x->prefix[0] == X86_PREFIX_LOCK) && (f & BBMAP_INSN_MEM_READ))
		f |= BBMAP_INSN_MEM_WRITE;	/* capstone 4 marks cmpxchg's memory read-only */
	isa = full ? x86_isa(d, id, b) : (enum bbmap_isa)out->isa;
	/* String forms only: movsd/cmpsd also name SSE2 instructions. */
	if (x86_is_string(b) && isa == ISA_BASE) {
		if (starts(b, "movs") || starts(b, "lods") || starts(b, "scas") ||
		    starts(b, "cmps") || starts(b, "outs"))
			f |= BBMAP_INSN_MEM_READ;
		if (starts(b, "movs") || starts(b, "stos") || starts(b, "ins"))
			f |= BBMAP_INSN_MEM_WRITE;
	}
	if (x->prefix[0] == X86_PREFIX_LOCK ||
	    (id == X86_INS_XCHG && (f & (BBMAP_INSN_MEM_READ | BBMAP_INSN_MEM_WRITE))))
		f |= BBMAP_INSN_LOCK;

	out->isa = (uint8_t)isa;

	/* Operands and vector width. */
	out->nr_ops = x->op_count;
	for (i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (i < 4)
			out->op_kinds[i] = op->type == X86_OP_REG ? 'r' :
					   op->type == X86_OP_MEM ? 'm' :
					   op->type == X86_OP_IMM ? 'i' : '?';
		if (op->type == X86_OP_REG) {
			const char *rn = cs_reg_name(h, op->reg);
			uint16_t w = 0;

			if (rn && rn[1] == 'm' && rn[2] == 'm')
				w = rn[0] == 'x' ? 128 : rn[0] == 'y' ? 256 : rn[0] == 'z' ? 512 : 0;
			else if (rn && rn[0] == 'm' && rn[1] == 'm')
				w = 64;
			if (w > out->width)
				out->width = w;
		}
	}

	/* Packing and element type. */
	if (isa_is_simd(isa)) {
		if (full || strstr(b, "2si") || strstr(b, "2usi"))
			simd_type(b[0] == 'v' && isa >= ISA_AVX ? b + 1 : b, x, out);
	} else if (isa == ISA_X87) {
		out->packing = PACK_SCALAR;
		out->elem = ELEM_FP80;
		for (i = 0; i < x->op_count; i++)
			if (x->operands[i].type == X86_OP_MEM)
				out->elem = x->operands[i].size == 4 ? ELEM_FP32 :
					    x->operands[i].size == 8 ? ELEM_FP64 :
					    x->operands[i].size == 2 ? ELEM_INT16 : ELEM_FP80;
	} else if (x->op_count && !(f & BBMAP_INSN_BRANCH) && id != X86_INS_NOP) {
		out->elem = int_elem(x->operands[0].size);
	}
	out->flags = f;
	if (full) {
		out->category = (uint8_t)x86_category(b, id, f, isa, out);
		x86_iclass(ci->mnemonic, b, ci, isa, iclass, n);
	}
}

/* ---- AArch64 ---- */

static bool a64_lse(const char *mn)
{
	static const char *const p[] = { "cas", "swp", "ldadd", "ldclr", "ldeor", "ldset",
					 "ldsmax", "ldsmin", "ldumax", "ldumin", "stadd",
					 "stclr", "steor", "stset", "stsmax", "stsmin",
					 "stumax", "stumin", NULL };
	const char *const *q;

	for (q = p; *q; q++)
		if (starts(mn, *q))
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

void insn_attr__arm64(csh h, const cs_insn *ci, struct bbmap_insn *out, char *iclass, size_t n)
{
	const cs_detail *d = ci->detail;
	const cs_arm64 *a = &d->arm64;
	const char *mn = ci->mnemonic;
	unsigned id = ci->id;
	uint16_t f = 0;
	enum bbmap_isa isa = ISA_A64_BASE;
	bool fp = mn[0] == 'f' || starts(mn, "scvtf") || starts(mn, "ucvtf");
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
	if (a64_lse(mn)) {
		f |= BBMAP_INSN_MEM_READ | BBMAP_INSN_MEM_WRITE | BBMAP_INSN_LOCK;
		isa = ISA_A64_LSE;
	} else if (starts(mn, "ld")) {
		f |= BBMAP_INSN_MEM_READ;
		if (strstr(mn, "xr") || strstr(mn, "xp"))
			f |= BBMAP_INSN_LOCK;
	} else if (starts(mn, "st")) {
		f |= BBMAP_INSN_MEM_WRITE;
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

	out->nr_ops = a->op_count;
	for (i = 0; i < a->op_count; i++) {
		const cs_arm64_op *op = &a->operands[i];

		if (i < 4)
			out->op_kinds[i] = op->type == ARM64_OP_REG ? 'r' :
					   op->type == ARM64_OP_MEM ? 'm' :
					   (op->type == ARM64_OP_IMM || op->type == ARM64_OP_FP ||
					    op->type == ARM64_OP_CIMM) ? 'i' : '?';
		if (op->type == ARM64_OP_REG) {
			const char *rn = cs_reg_name(h, op->reg);
			uint16_t w = 0;

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
	out->flags = f;
	if (f & BBMAP_INSN_SYSCALL)
		out->category = CAT_SYSTEM;
	else if (f & BBMAP_INSN_RET)
		out->category = CAT_RET;
	else if (f & BBMAP_INSN_CALL)
		out->category = CAT_CALL;
	else if (f & BBMAP_INSN_COND)
		out->category = CAT_COND_BR;
	else if (f & BBMAP_INSN_BRANCH)
		out->category = id == ARM64_INS_BRK ? CAT_SYSTEM : CAT_UNCOND_BR;
	else if (!strcmp(mn, "nop") || starts(mn, "hint") || starts(mn, "bti") ||
		 !strcmp(mn, "yield"))
		out->category = CAT_NOP;
	else if (starts(mn, "msr") || starts(mn, "mrs") || starts(mn, "dmb") ||
		 starts(mn, "dsb") || starts(mn, "isb") || starts(mn, "sys") ||
		 starts(mn, "prfm") || starts(mn, "dc") || starts(mn, "ic") ||
		 starts(mn, "wfe") || starts(mn, "wfi") || starts(mn, "sev"))
		out->category = CAT_SYSTEM;
	else if (strstr(mn, "cvt") || starts(mn, "fcvt") || starts(mn, "scvtf") ||
		 starts(mn, "ucvtf") || starts(mn, "sxt") || starts(mn, "uxt"))
		out->category = CAT_CONVERT;
	else if (starts(mn, "ld") || starts(mn, "st") || starts(mn, "mov") ||
		 starts(mn, "fmov") || starts(mn, "adr") || starts(mn, "dup") ||
		 starts(mn, "ins") || starts(mn, "umov") || starts(mn, "smov") ||
		 starts(mn, "csel") || starts(mn, "cset") || starts(mn, "csinc") ||
		 starts(mn, "cas") || starts(mn, "swp"))
		out->category = CAT_DATAXFER;
	else if (starts(mn, "fcmp") || starts(mn, "cmp") || starts(mn, "cmn") ||
		 starts(mn, "tst") || starts(mn, "ccmp") || starts(mn, "ccmn") ||
		 starts(mn, "fccmp"))
		out->category = CAT_COMPARE;
	else if (isa == ISA_A64_NEON || isa == ISA_A64_FP || isa == ISA_A64_CRYPTO)
		out->category = fp ? CAT_SIMD_FP : CAT_SIMD_INT;
	else if (starts(mn, "lsl") || starts(mn, "lsr") || starts(mn, "asr") ||
		 starts(mn, "ror") || starts(mn, "extr"))
		out->category = CAT_SHIFT;
	else if (starts(mn, "and") || starts(mn, "orr") || starts(mn, "eor") ||
		 starts(mn, "bic") || starts(mn, "orn") || starts(mn, "eon") ||
		 starts(mn, "mvn") || starts(mn, "bfi") || starts(mn, "bfx") ||
		 starts(mn, "ubfx") || starts(mn, "sbfx") || starts(mn, "ubfiz") ||
		 starts(mn, "sbfiz") || starts(mn, "bfxil") || starts(mn, "clz") ||
		 starts(mn, "cls") || starts(mn, "rbit") || starts(mn, "rev"))
		out->category = CAT_LOGICAL;
	else if (starts(mn, "add") || starts(mn, "sub") || starts(mn, "mul") ||
		 starts(mn, "madd") || starts(mn, "msub") || starts(mn, "neg") ||
		 starts(mn, "adc") || starts(mn, "sbc") || starts(mn, "sdiv") ||
		 starts(mn, "udiv") || starts(mn, "smul") || starts(mn, "umul") ||
		 starts(mn, "smadd") || starts(mn, "umadd") || starts(mn, "smsub") ||
		 starts(mn, "umsub") || starts(mn, "cneg") || starts(mn, "cinc") ||
		 starts(mn, "csneg") || starts(mn, "csinv") || starts(mn, "mneg"))
		out->category = CAT_ARITH;
	else
		out->category = CAT_OTHER;
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

	(void)h;
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
			(id == ARM_INS_POP || id == ARM_INS_PUSH) ? CAT_STACK :
			(f & (BBMAP_INSN_MEM_READ | BBMAP_INSN_MEM_WRITE)) ? CAT_DATAXFER : CAT_OTHER;
	upcase(iclass, n, ci->mnemonic);
}
