/* Decodes one region of an x86 or x86-64 module with Zydis: one ZydisDecoder per mode (set up
 * once per module), ZydisDecoderDecodeInstruction and ZydisDecoderDecodeOperands (what
 * ZydisDecoderDecodeFull does, without clearing the unused operand slots: nothing here reads
 * past operand_count) into one reused instruction and operand array, the
 * operand text written from that one decoding by Zydis's Intel formatter (set up as objdump
 * -M intel writes operands). Attributes come from Zydis's tables, which
 * follow Intel XED: the ISA extension, ISA set and category are XED's names (bbmap/insn_attr.h
 * lists them; they are mapped from Zydis's enums by name once per process), the iclass is
 * XED's (Zydis's mnemonic with XED's _NEAR/_FAR, REP_/REPE_/REPNE_, _LOCK and _XMM forms).
 * The mnemonic column keeps objdump's and capstone's spelling of condition codes (jne, cmove,
 * seta), so that mnemonics read as in `objdump -d -M intel`. An undecodable byte becomes a
 * 1-byte BAD instruction, is counted, and decoding goes on. Knows nothing of perf.data,
 * symbols or blocks.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module_priv.h"
#include "bbmap/x86_fast.h"
#include "util/hbbp_err.h"

#define NR_MNEMONICS (ZYDIS_MNEMONIC_MAX_VALUE + 1)
#define BBMAP_INSN_PSEUDO_OP	(1u << 15)	/* internal, between attrs and the text */

/* Zydis enum -> bbmap enum, and the per-mnemonic names; filled once (pthread_once). */
static uint8_t ext_map[ZYDIS_ISA_EXT_MAX_VALUE + 1];
static uint8_t set_map[ZYDIS_ISA_SET_MAX_VALUE + 1];
static uint8_t cat_map[ZYDIS_CATEGORY_MAX_VALUE + 1];
static char mn_names[NR_MNEMONICS][24];		/* objdump spelling, lowercase */
static char ic_names[NR_MNEMONICS][24];		/* XED iclass, uppercase */
static uint8_t pseudo_kind[NR_MNEMONICS];	/* enum pseudo: which compare pseudo-op */
static uint16_t reg_bits[ZYDIS_REGISTER_MAX_VALUE + 1];	/* vector width of a register */
/* simd_packing's reading of the names (see there), per iclass and per ISA set */
static int8_t name_elem[NR_MNEMONICS];
static bool name_scalar[NR_MNEMONICS];
static bool set_scalar[ZYDIS_ISA_SET_MAX_VALUE + 1];
static unsigned nr_unmapped;			/* Zydis names missing from insn_attr.h */
static ZydisFormatter formatter;		/* the operand text (read only once set up) */
static bool formatter_ok;
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/* Zydis's (and XED's) condition-code spellings and objdump's (and capstone's). */
static const char *const cc_od[][2] = {
	{ "nz", "ne" }, { "z", "e" }, { "nbe", "a" }, { "nb", "ae" }, { "nle", "g" },
	{ "nl", "ge" },
};

/* The objdump spelling of a Zydis mnemonic: condition codes of jcc, cmovcc and setcc. */
static void od_spelling(const char *zy, char *out, size_t n)
{
	static const char *const fam[] = { "j", "cmov", "set" };
	size_t f, c;

	for (f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
		size_t l = strlen(fam[f]);

		if (strncmp(zy, fam[f], l))
			continue;
		for (c = 0; c < sizeof(cc_od) / sizeof(cc_od[0]); c++)
			if (!strcmp(zy + l, cc_od[c][0])) {
				snprintf(out, n, "%s%s", fam[f], cc_od[c][1]);
				return;
			}
	}
	snprintf(out, n, "%s", zy);
}

enum pseudo { PSEUDO_NONE, PSEUDO_VPCMP, PSEUDO_PCLMUL, PSEUDO_CMP, PSEUDO_VCMP };

static bool ends(const char *s, size_t l, const char *suf);
static int name_elem_of(const char *n);
static bool name_scalar_of(const char *n);

/* The compare family a Zydis mnemonic belongs to, for cmp_pseudo. */
static enum pseudo pseudo_of(const char *zn)
{
	if (!strncmp(zn, "vpcmp", 5) && strlen(zn) <= 7 && zn[5] != 'e' && zn[5] != 'g' &&
	    zn[5] != 'i')
		return PSEUDO_VPCMP;	/* vpcmpb/ub/w/uw/d/ud/q/uq */
	if (!strcmp(zn, "pclmulqdq") || !strcmp(zn, "vpclmulqdq"))
		return PSEUDO_PCLMUL;
	if (!strcmp(zn, "cmpps") || !strcmp(zn, "cmppd") || !strcmp(zn, "cmpss") ||
	    !strcmp(zn, "cmpsd"))
		return PSEUDO_CMP;
	if (!strcmp(zn, "vcmpps") || !strcmp(zn, "vcmppd") || !strcmp(zn, "vcmpss") ||
	    !strcmp(zn, "vcmpsd") || !strcmp(zn, "vcmpph") || !strcmp(zn, "vcmpsh"))
		return PSEUDO_VCMP;
	return PSEUDO_NONE;
}

static uint16_t reg_width_of(ZydisRegister r)
{
	switch (ZydisRegisterGetClass(r)) {
	case ZYDIS_REGCLASS_MMX:	return 64;
	case ZYDIS_REGCLASS_XMM:	return 128;
	case ZYDIS_REGCLASS_YMM:	return 256;
	case ZYDIS_REGCLASS_ZMM:	return 512;
	case ZYDIS_REGCLASS_TMM:	return 8192;	/* an AMX tile: 16 rows of 64 bytes */
	default:			return 0;
	}
}

static void build_tables(void)
{
	unsigned i;
	int v;

	for (i = 0; i <= ZYDIS_ISA_EXT_MAX_VALUE; i++) {
		const char *s = ZydisISAExtGetString((ZydisISAExt)i);

		v = s && i ? bbmap_isa_from_name(s) : -1;
		ext_map[i] = v > 0 ? (uint8_t)v : ISA_UNKNOWN;
		nr_unmapped += i && v <= 0;
	}
	for (i = 0; i <= ZYDIS_ISA_SET_MAX_VALUE; i++) {
		const char *s = ZydisISASetGetString((ZydisISASet)i);

		v = s && i ? bbmap_isa_set_from_name(s) : -1;
		set_map[i] = v > 0 ? (uint8_t)v : ISA_SET_NONE;
		nr_unmapped += i && v <= 0;
	}
	for (i = 0; i <= ZYDIS_CATEGORY_MAX_VALUE; i++) {
		const char *s = ZydisCategoryGetString((ZydisInstructionCategory)i);

		v = s && i ? bbmap_category_from_name(s) : -1;
		cat_map[i] = v > 0 ? (uint8_t)v : CAT_INVALID;
		nr_unmapped += i && v <= 0;
	}
	for (i = 0; i < NR_MNEMONICS; i++) {
		const char *s = ZydisMnemonicGetString((ZydisMnemonic)i);
		size_t k;

		pseudo_kind[i] = s ? (uint8_t)pseudo_of(s) : PSEUDO_NONE;
		if (!s)
			s = "invalid";
		od_spelling(s, mn_names[i], sizeof(mn_names[i]));
		for (k = 0; s[k] && k + 1 < sizeof(ic_names[i]); k++)
			ic_names[i][k] = (char)(s[k] >= 'a' && s[k] <= 'z' ? s[k] - 32 : s[k]);
		ic_names[i][k] = 0;
	}
	for (i = 0; i <= ZYDIS_REGISTER_MAX_VALUE; i++)
		reg_bits[i] = reg_width_of((ZydisRegister)i);
	snprintf(ic_names[ZYDIS_MNEMONIC_CALL], sizeof(ic_names[0]), "CALL_NEAR");
	snprintf(ic_names[ZYDIS_MNEMONIC_RET], sizeof(ic_names[0]), "RET_NEAR");
	for (i = 0; i < NR_MNEMONICS; i++) {
		name_elem[i] = (int8_t)name_elem_of(ic_names[i]);
		name_scalar[i] = name_scalar_of(ic_names[i]);
	}
	for (i = 0; i <= ZYDIS_ISA_SET_MAX_VALUE; i++) {
		const char *set = ZydisISASetGetString((ZydisISASet)i);

		set_scalar[i] = set && ends(set, strlen(set), "_SCALAR");
	}
	/* As objdump -M intel writes operands: sizes of memory operands, lowercase hex, no
	 * zero padding. */
	formatter_ok = ZYAN_SUCCESS(ZydisFormatterInit(&formatter, ZYDIS_FORMATTER_STYLE_INTEL));
	ZydisFormatterSetProperty(&formatter, ZYDIS_FORMATTER_PROP_FORCE_SIZE, ZYAN_TRUE);
	ZydisFormatterSetProperty(&formatter, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, ZYAN_FALSE);
	ZydisFormatterSetProperty(&formatter, ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE,
				  ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(&formatter, ZYDIS_FORMATTER_PROP_ADDR_PADDING_RELATIVE,
				  ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(&formatter, ZYDIS_FORMATTER_PROP_IMM_PADDING,
				  ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(&formatter, ZYDIS_FORMATTER_PROP_DISP_PADDING,
				  ZYDIS_PADDING_DISABLED);
}

unsigned mod_zydis__init(void)
{
	pthread_once(&tables_once, build_tables);
	return nr_unmapped;
}

int mod_zydis__open(const struct bbmap_module *m, struct mod_decoder *d)
{
	bool is64 = m->arch == BBMAP_ARCH_X86_64;

	if (d->zy_open)
		return 0;
	mod_zydis__init();
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&d->zy_dec,
					   is64 ? ZYDIS_MACHINE_MODE_LONG_64 :
						  ZYDIS_MACHINE_MODE_LONG_COMPAT_32,
					   is64 ? ZYDIS_STACK_WIDTH_64 : ZYDIS_STACK_WIDTH_32))) {
		pr_err("%s: zydis: cannot set up a decoder for this architecture", m->path);
		return -HBBP_EUNSUPP;
	}
	d->zy_open = true;
	return 0;
}

static uint16_t reg_width(ZydisRegister r)
{
	return (unsigned)r <= ZYDIS_REGISTER_MAX_VALUE ? reg_bits[r] : 0;
}

static enum bbmap_elem elem_of(ZydisElementType t, unsigned bits)
{
	switch (t) {
	case ZYDIS_ELEMENT_TYPE_FLOAT16:	return ELEM_FP16;
	case ZYDIS_ELEMENT_TYPE_FLOAT32:	return ELEM_FP32;
	case ZYDIS_ELEMENT_TYPE_FLOAT64:	return ELEM_FP64;
	case ZYDIS_ELEMENT_TYPE_FLOAT80:	return ELEM_FP80;
	case ZYDIS_ELEMENT_TYPE_INT:
	case ZYDIS_ELEMENT_TYPE_UINT:
		switch (bits) {
		case 8:		return ELEM_INT8;
		case 16:	return ELEM_INT16;
		case 32:	return ELEM_INT32;
		case 64:	return ELEM_INT64;
		case 128:	return ELEM_INT128;
		default:	return ELEM_NONE;
		}
	default:
		return ELEM_NONE;
	}
}

static bool ends(const char *s, size_t l, const char *suf)
{
	size_t k = strlen(suf);

	return l >= k && !memcmp(s + l - k, suf, k);
}

/* Scalar or packed, as XED's names say it (Zydis keeps no SIMD_SCALAR attribute): the
 * scalar forms are named ...SS/SD/SH (addss, vcvtsd2ss, comisd), ...2SI/2USI (conversions
 * to an integer register), MOVD/MOVQ, and the EVEX ISA sets ..._SCALAR. Integer vector
 * instructions take the element size from their name (PADDB i8, PSHUFB i8, VPADDQ i64)
 * where Zydis gives the operand's default. */
static enum bbmap_packing simd_packing(const ZydisDecodedInstruction *zi, struct bbmap_insn *in)
{
	unsigned mn = (unsigned)zi->mnemonic < NR_MNEMONICS ? (unsigned)zi->mnemonic : 0;
	unsigned set = (unsigned)zi->meta.isa_set <= ZYDIS_ISA_SET_MAX_VALUE ?
		       (unsigned)zi->meta.isa_set : 0;

	if (zi->meta.category == ZYDIS_CATEGORY_AES || zi->meta.category == ZYDIS_CATEGORY_VAES)
		in->elem = ELEM_INT128;
	else if (name_elem[mn] >= 0 && in->elem >= ELEM_INT8 && in->elem <= ELEM_INT128)
		in->elem = (uint8_t)name_elem[mn];
	return name_scalar[mn] || set_scalar[set] ? PACK_SCALAR : PACK_PACKED;
}

/* The element type an integer vector iclass names (PADDB i8, VPADDQ i64, PMULUDQ i64,
 * PSLLDQ i128), -1 when its name says none; and whether its name is a scalar form. */
static int name_elem_of(const char *n)
{
	size_t l = strlen(n);
	char c;

	if (n[0] == 'V')
		n++, l--;
	if (n[0] != 'P' || l <= 2)
		return -1;
	c = n[l - 1];
	if (ends(n, l, "DQ") && !ends(n, l, "UDQ") && !ends(n, l, "SDQ"))
		return ends(n, l, "LDQ") || ends(n, l, "HDQ") || !strncmp(n, "PALIGNR", 7) ?
		       -1 : ELEM_INT128;
	return c == 'B' ? ELEM_INT8 : c == 'W' ? ELEM_INT16 : c == 'D' ? ELEM_INT32 :
	       c == 'Q' ? ELEM_INT64 : -1;
}

static bool name_scalar_of(const char *n)
{
	size_t l = strlen(n);

	if (n[0] == 'V')
		n++, l--;
	return ends(n, l, "SS") || ends(n, l, "SD") || ends(n, l, "SH") || ends(n, l, "2SI") ||
	       ends(n, l, "2USI") || !strcmp(n, "MOVD") || !strcmp(n, "MOVQ");
}

/* objdump's (and capstone's) pseudo-op for a compare predicate in the immediate:
 * cmpsd xmm4, xmm1, 6 -> cmpnlesd xmm4, xmm1; vpcmpub k0, zmm0, zmm1, 4 -> vpcmpnequb;
 * pclmulqdq xmm0, xmm1, 0x10 -> pclmullqhqdq (objdump's and the SDM's names). The
 * mnemonic goes to mbuf; false when the instruction has no such form. */
static bool cmp_pseudo(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops,
		       char *mbuf, size_t n)
{
	static const char *const fp[32] = {
		"eq", "lt", "le", "unord", "neq", "nlt", "nle", "ord", "eq_uq", "nge", "ngt",
		"false", "neq_oq", "ge", "gt", "true", "eq_os", "lt_oq", "le_oq", "unord_s",
		"neq_us", "nlt_uq", "nle_uq", "ord_s", "eq_us", "nge_uq", "ngt_uq", "false_os",
		"neq_os", "ge_oq", "gt_oq", "true_us" };
	static const char *const in[8] = { "eq", "lt", "le", "false", "neq", "nlt", "nle",
					   "true" };
	const char *zn;
	const ZydisDecodedOperand *imm = NULL;
	enum pseudo kind = (unsigned)zi->mnemonic < NR_MNEMONICS ?
			   (enum pseudo)pseudo_kind[zi->mnemonic] : PSEUDO_NONE;
	unsigned i;
	uint64_t v;

	if (kind == PSEUDO_NONE || zi->operand_count_visible < 2)
		return false;
	zn = ZydisMnemonicGetString(zi->mnemonic);
	for (i = 0; i < zi->operand_count_visible; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
			imm = &ops[i];
	if (!imm || !zn)
		return false;
	v = imm->imm.value.u;
	switch (kind) {
	case PSEUDO_VPCMP:	/* integer predicates 0..7 */
		if (v > 7)
			return false;
		snprintf(mbuf, n, "vpcmp%s%s", in[v], zn + 5);
		return true;
	case PSEUDO_PCLMUL:	/* which quadword of each source: bit 0 the first, bit 4 the second */
		if (v & ~0x11ull)
			return false;
		snprintf(mbuf, n, "%spclmul%sq%sqdq", zn[0] == 'v' ? "v" : "", v & 1 ? "h" : "l",
			 v & 0x10 ? "h" : "l");
		return true;
	case PSEUDO_CMP:
		if (v > 7)
			return false;
		snprintf(mbuf, n, "cmp%s%s", fp[v], zn + 3);
		return true;
	case PSEUDO_VCMP:
		if (v > 31)
			return false;
		snprintf(mbuf, n, "vcmp%s%s", fp[v], zn + 4);
		return true;
	default:
		return false;
	}
}

/* The iclass and mnemonic of an instruction with a prefix form (lock, rep) or a near/far
 * or string/SSE pair under one Zydis mnemonic; NULLs when it is the plain form. */
static int x86_forms(struct mod_decoder *d, const ZydisDecodedInstruction *zi,
		     const ZydisDecodedOperand *ops, struct bbmap_insn *in)
{
	const char *mn = mn_names[zi->mnemonic], *ic = ic_names[zi->mnemonic];
	char ibuf[48], mbuf[48];
	const char *pre = "", *mpre = "", *suf = "";
	ZyanU64 a = zi->attributes;
	bool str = zi->meta.category == ZYDIS_CATEGORY_STRINGOP ||
		   zi->meta.category == ZYDIS_CATEGORY_IOSTRINGOP;

	if (zi->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR) {
		if (zi->mnemonic == ZYDIS_MNEMONIC_CALL)
			ic = "CALL_FAR";
		else if (zi->mnemonic == ZYDIS_MNEMONIC_RET)
			ic = "RET_FAR";
		else if (zi->mnemonic == ZYDIS_MNEMONIC_JMP)
			ic = "JMP_FAR";
	}
	if (!str && (zi->mnemonic == ZYDIS_MNEMONIC_MOVSD || zi->mnemonic == ZYDIS_MNEMONIC_CMPSD))
		ic = zi->mnemonic == ZYDIS_MNEMONIC_MOVSD ? "MOVSD_XMM" : "CMPSD_XMM";
	if (a & ZYDIS_ATTRIB_HAS_LOCK) {
		mpre = "lock ";
		if (zi->mnemonic != ZYDIS_MNEMONIC_XCHG)
			suf = "_LOCK";
	}
	if (str && (a & ZYDIS_ATTRIB_HAS_REP)) {
		mpre = "rep ";
		pre = "REP_";
	} else if (str && (a & ZYDIS_ATTRIB_HAS_REPE)) {
		mpre = "repz ";
		pre = "REPE_";
	} else if (str && (a & ZYDIS_ATTRIB_HAS_REPNE)) {
		mpre = "repnz ";
		pre = "REPNE_";
	}
	/* objdump's movabs: mov with a 64-bit immediate or a 64-bit absolute address */
	if (zi->mnemonic == ZYDIS_MNEMONIC_MOV &&
	    (zi->raw.imm[0].size == 64 || (zi->raw.disp.size == 64 && !zi->raw.modrm.offset)))
		mn = "movabs";
	if (cmp_pseudo(zi, ops, mbuf, sizeof(mbuf))) {
		in->flags |= BBMAP_INSN_PSEUDO_OP;
		in->mnemonic = mod_str__intern(d, mbuf);
		in->iclass = ic;
		return in->mnemonic ? 0 : -ENOMEM;
	}
	if (ic == ic_names[zi->mnemonic] && !*pre && !*suf && !*mpre) {
		in->mnemonic = mn;
		in->iclass = ic;
		return 0;
	}
	snprintf(ibuf, sizeof(ibuf), "%s%.32s%s", pre, ic, suf);
	snprintf(mbuf, sizeof(mbuf), "%s%.40s", mpre, mn);
	in->iclass = mod_str__intern(d, ibuf);
	in->mnemonic = *mpre ? mod_str__intern(d, mbuf) : mn;
	return in->iclass && in->mnemonic ? 0 : -ENOMEM;
}

static bool is_ud(const ZydisDecodedInstruction *zi);

/* The control-transfer flags of an instruction, from its category alone. */
static uint16_t branch_flags(const ZydisDecodedInstruction *zi)
{
	switch (zi->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		return BBMAP_INSN_BRANCH | BBMAP_INSN_COND;
	case ZYDIS_CATEGORY_UNCOND_BR:
		return BBMAP_INSN_BRANCH;
	case ZYDIS_CATEGORY_CALL:
		return BBMAP_INSN_BRANCH | BBMAP_INSN_CALL;
	case ZYDIS_CATEGORY_RET:
		return BBMAP_INSN_BRANCH | BBMAP_INSN_RET | BBMAP_INSN_INDIRECT;
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
	case ZYDIS_CATEGORY_INTERRUPT:
		return BBMAP_INSN_BRANCH | BBMAP_INSN_SYSCALL;
	default:
		return is_ud(zi) ? BBMAP_INSN_BRANCH : 0;
	}
}

static bool is_ud(const ZydisDecodedInstruction *zi)
{
	return zi->mnemonic == ZYDIS_MNEMONIC_UD0 || zi->mnemonic == ZYDIS_MNEMONIC_UD1 ||
	       zi->mnemonic == ZYDIS_MNEMONIC_UD2;
}

/* Whether a branch has a target or is indirect (not ret, syscall or ud). */
static bool needs_target(const ZydisDecodedInstruction *zi, uint16_t f)
{
	return (f & BBMAP_INSN_BRANCH) && !(f & (BBMAP_INSN_RET | BBMAP_INSN_SYSCALL)) &&
	       !is_ud(zi);
}

/* BBMAP_INSN_HAS_TARGET with *target set, or BBMAP_INSN_INDIRECT. */
static uint16_t branch_target(const struct bbmap_module *m, const ZydisDecodedInstruction *zi,
			      const ZydisDecodedOperand *ops, uint64_t addr, uint64_t *target)
{
	ZyanU64 t;

	if (zi->operand_count_visible && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
	    ops[0].imm.is_relative && ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(zi, &ops[0], addr, &t))) {
		*target = m->arch == BBMAP_ARCH_X86_32 ? (uint32_t)t : t;
		return BBMAP_INSN_HAS_TARGET;
	}
	return BBMAP_INSN_INDIRECT;
}

int mod_zydis__attrs(const struct bbmap_module *m, struct mod_decoder *d,
		     const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops,
		     uint64_t addr, struct bbmap_insn *in)
{
	ZydisInstructionCategory cat = zi->meta.category;
	uint16_t f = 0, width = 0;
	const ZydisDecodedOperand *first = NULL;
	bool vec = false, x87 = zi->meta.isa_ext == ZYDIS_ISA_EXT_X87;
	unsigned i, nk = 0;

	f = branch_flags(zi);
	if (needs_target(zi, f))
		f |= branch_target(m, zi, ops, addr, &in->target);
	for (i = 0; i < zi->operand_count; i++) {
		const ZydisDecodedOperand *op = &ops[i];

		if (op->type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    (op->mem.type == ZYDIS_MEMOP_TYPE_MEM || op->mem.type == ZYDIS_MEMOP_TYPE_VSIB) &&
		    cat != ZYDIS_CATEGORY_PREFETCH && cat != ZYDIS_CATEGORY_NOP &&
		    cat != ZYDIS_CATEGORY_WIDENOP) {
			if (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
				f |= BBMAP_INSN_MEM_READ;
			if (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
				f |= BBMAP_INSN_MEM_WRITE;
		}
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER) {
			uint16_t w = reg_width(op->reg.value);

			if (w > width)
				width = w;
			vec |= w != 0;
		}
		if (!first && cat == ZYDIS_CATEGORY_STRINGOP &&
		    op->type == ZYDIS_OPERAND_TYPE_MEMORY)
			first = op;	/* movsb, stosq: their operands are implicit */
		/* The operands a listing shows: not the hidden ones (flags, stack pointer), not
		 * EVEX's k0 "no mask", and only the r/m operand of a multi-byte nop. */
		if (op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN ||
		    (op->encoding == ZYDIS_OPERAND_ENCODING_MASK && op->reg.value == ZYDIS_REGISTER_K0) ||
		    (cat == ZYDIS_CATEGORY_WIDENOP && nk))
			continue;
		if (!first && op->type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
			first = op;
		if (nk < 4)
			in->op_kinds[nk] = op->type == ZYDIS_OPERAND_TYPE_REGISTER ? 'r' :
					   op->type == ZYDIS_OPERAND_TYPE_MEMORY ? 'm' :
					   op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE ? 'i' : 'p';
		nk++;
	}
	if ((zi->attributes & ZYDIS_ATTRIB_HAS_LOCK) ||
	    (zi->mnemonic == ZYDIS_MNEMONIC_XCHG && (f & BBMAP_INSN_MEM_WRITE)))
		f |= BBMAP_INSN_LOCK;
	in->flags = f;
	in->width = width;
	in->nr_ops = (uint8_t)nk;
	in->isa = ext_map[zi->meta.isa_ext];
	in->isa_set = set_map[zi->meta.isa_set];
	in->category = cat_map[cat];
	/* Packing and element type: of the first shown operand that is not an immediate (the
	 * destination, or the source of a store-like form), its element type from Zydis. */
	if (first && (vec || x87)) {
		in->elem = (uint8_t)elem_of(first->element_type, first->element_size);
		in->packing = x87 ? PACK_SCALAR : (uint8_t)simd_packing(zi, in);
	} else if (first && !(f & BBMAP_INSN_BRANCH) && cat != ZYDIS_CATEGORY_NOP &&
		   cat != ZYDIS_CATEGORY_WIDENOP) {
		in->elem = (uint8_t)elem_of(ZYDIS_ELEMENT_TYPE_INT, first->size);
	}
	return x86_forms(d, zi, ops, in);
}

#define TEXT_MAX 512	/* bytes of a formatted instruction, its final NUL included */

/* Writes the operand text of zi at runtime address addr to out (TEXT_MAX bytes of room): the
 * formatter's line with the prefix words (lock, rep, bnd, ...) and the mnemonic cut off; ""
 * where the formatter refuses (an immediate under an operand width it does not print).
 * Returns its length. */
static size_t operand_text(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops,
			   uint64_t addr, char *out)
{
	const char *mn = ZydisMnemonicGetString(zi->mnemonic);
	char *p = out, *sp;
	size_t l = mn ? strlen(mn) : 0, n;

	if (!formatter_ok ||
	    !ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&formatter, zi, ops,
							  zi->operand_count_visible, out, TEXT_MAX,
							  addr, ZYAN_NULL))) {
		out[0] = 0;
		return 0;
	}
	while (l && (strncmp(p, mn, l) || (p[l] != ' ' && p[l] != 0)) &&
	       (sp = strchr(p, ' ')) != NULL)
		p = sp + 1;
	if (l && !strncmp(p, mn, l))
		p += l;
	while (*p == ' ')
		p++;
	n = strlen(p);
	memmove(out, p, n + 1);
	return n;
}

/* Decodes the instruction at addr (no operands) with the bytes left in the region; at a
 * window's cut (no more data before soft_end_max) its last instruction runs past the cut,
 * and the region ends after it (r->end, *left). */
static ZyanStatus decode_step(const struct mod_decoder *d, struct mod_region *r,
			      const uint8_t *code, uint64_t addr, size_t *left,
			      ZydisDecoderContext *ctx, ZydisDecodedInstruction *zi)
{
	ZyanStatus st = ZydisDecoderDecodeInstruction(&d->zy_dec, ctx, code, *left, zi);

	if (st == ZYDIS_STATUS_NO_MORE_DATA && r->soft_end_max > r->end) {
		uint64_t more = r->soft_end_max - addr;

		st = ZydisDecoderDecodeInstruction(&d->zy_dec, ctx, code, more < 15 ? more : 15, zi);
		if (ZYAN_SUCCESS(st)) {
			r->end = addr + zi->length;
			*left = zi->length;
		}
	}
	return st;
}

/* An undecodable unit: one byte, counted (bytes cut by the region's end apart). */
static void count_bad(struct mod_decoder *d, ZyanStatus st, struct bbmap_insn *in)
{
	if (st == ZYDIS_STATUS_NO_MORE_DATA)
		d->stats.bytes_cut++;
	in->flags = BBMAP_INSN_BAD;
	in->len = 1;
	d->stats.nr_bad++;
	d->stats.bytes_bad++;
}

int mod_zydis__region(const struct bbmap_module *m, struct mod_decoder *d, struct mod_region *r,
		      const uint8_t *code, struct mod_text_buf *text)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecoderContext ctx;
	size_t left = r->end - r->start;
	uint64_t addr = r->start;
	const char *bad_mn = d->bad_mn ? d->bad_mn : (d->bad_mn = mod_str__intern(d, "(bad)"));
	bool is64 = m->arch == BBMAP_ARCH_X86_64 && !m->zy_only;
	ZyanStatus st;
	unsigned n;
	int err;

	if (!bad_mn)
		return -ENOMEM;
	err = mod_zydis__open(m, d);
	if (err)
		return err;
	while (left) {
		struct bbmap_insn *in;
		char t[TEXT_MAX];
		size_t off = 0, tl;

		if (r->nr_insns == d->scr_cap && mod_disasm__grow(d, (size_t)r->nr_insns + 1))
			return -ENOMEM;
		in = &d->scr_insns[r->nr_insns];
		if (text)
			memset(in, 0, sizeof(*in));
		in->addr = addr;
		/* the outline of the commonest instructions without Zydis (bbmap/x86_fast.h) */
		if (!text && is64 && (n = x86_fast__outline(code, left, addr, &in->flags, &in->target))) {
			in->len = (uint8_t)n;
			code += n;
			left -= n;
			addr += n;
			r->nr_insns++;
			continue;
		}
		st = decode_step(d, r, code, addr, &left, &ctx, &zi);
		/* the outline decodes the operands of branches only */
		if (ZYAN_SUCCESS(st) && (text || needs_target(&zi, branch_flags(&zi))))
			st = ZydisDecoderDecodeOperands(&d->zy_dec, &ctx, &zi, ops, zi.operand_count);
		if (!ZYAN_SUCCESS(st)) {
			/* Undecodable: one byte as BAD, counted, then go on. */
			count_bad(d, st, in);
			in->mnemonic = bad_mn;
			in->iclass = "INVALID";
			off = text ? mod_text__add(text, "") : 0;
		} else if (!text) {
			in->len = zi.length;
			in->flags = branch_flags(&zi);
			if (needs_target(&zi, in->flags))
				in->flags |= branch_target(m, &zi, ops, addr, &in->target);
		} else {
			err = mod_zydis__attrs(m, d, &zi, ops, addr, in);
			if (err)
				return err;
			in->len = zi.length;
			tl = m->no_operands ? 0 : operand_text(&zi, ops, addr, t);
			t[tl] = 0;
			if (in->flags & BBMAP_INSN_PSEUDO_OP) {
				/* the predicate is in the mnemonic: drop ", imm" */
				char *c = memrchr(t, ',', tl);

				in->flags &= (uint16_t)~BBMAP_INSN_PSEUDO_OP;
				if (c)
					*c = 0;
			}
			off = mod_text__add(text, t);
		}
		if (off == (size_t)-1)
			return -ENOMEM;
		in->operands = (const char *)(uintptr_t)off;
		code += in->len;
		left -= in->len;
		addr += in->len;
		r->nr_insns++;
	}
	return 0;
}
