/* Operand text of a decoded x86 instruction in Intel syntax (bbmap/zydis_text.h). The fast
 * path writes the text in one pass over the shown operands, with register names and lengths
 * from a table filled once, and no library call but ZydisCalcAbsoluteAddress; it follows the
 * rules of Zydis 4's Intel formatter as disasm_zydis.c sets it up (memory sizes always shown,
 * lowercase hex with 0x, no padding, absolute branch and RIP-relative addresses, EVEX
 * decorators after their operand), so that listings read the same whichever path made them:
 * tests/tools/zydis_textcmp compares the two on every instruction of a binary and on random
 * bytes. Depends on Zydis only.
 */
#include <pthread.h>
#include <string.h>

#include "bbmap/zydis_text.h"

#define NR_REGS (ZYDIS_REGISTER_MAX_VALUE + 1)

static char reg_name[NR_REGS][12];
static uint8_t reg_len[NR_REGS];
static pthread_once_t regs_once = PTHREAD_ONCE_INIT;

static void fill_regs(void)
{
	unsigned i;

	for (i = 0; i < NR_REGS; i++) {
		const char *s = ZydisRegisterGetString((ZydisRegister)i);
		size_t k = s ? strlen(s) : 0;

		if (!s || k >= sizeof(reg_name[i]))
			s = "invalid", k = 7;
		memcpy(reg_name[i], s, k + 1);
		reg_len[i] = (uint8_t)k;
	}
}

void zydis_text__init(void)
{
	pthread_once(&regs_once, fill_regs);
}

static char *put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

#define PUT_LIT(p, lit) put((p), (lit), sizeof(lit) - 1)

static char *put_reg(char *p, ZydisRegister r)
{
	unsigned i = (unsigned)r < NR_REGS ? (unsigned)r : 0;

	return put(p, reg_name[i], reg_len[i]);
}

/* "0x" and v in lowercase hex, at least pad digits */
static char *put_hex(char *p, uint64_t v, unsigned pad)
{
	static const char digits[] = "0123456789abcdef";
	char t[16];
	unsigned k = 0;

	do {
		t[k++] = digits[v & 15];
		v >>= 4;
	} while (v);
	*p++ = '0';
	*p++ = 'x';
	while (pad > k) {
		*p++ = '0';
		pad--;
	}
	while (k)
		*p++ = t[--k];
	return p;
}

static char *put_hex_signed(char *p, int64_t v, bool plus)
{
	if (v < 0) {
		*p++ = '-';
		return put_hex(p, (uint64_t)0 - (uint64_t)v, 0);
	}
	if (plus)
		*p++ = '+';
	return put_hex(p, (uint64_t)v, 0);
}

static char *put_size(char *p, unsigned bits)
{
	switch (bits) {
	case 8:		return PUT_LIT(p, "byte ptr ");
	case 16:	return PUT_LIT(p, "word ptr ");
	case 32:	return PUT_LIT(p, "dword ptr ");
	case 48:	return PUT_LIT(p, "fword ptr ");
	case 64:	return PUT_LIT(p, "qword ptr ");
	case 80:	return PUT_LIT(p, "tbyte ptr ");
	case 128:	return PUT_LIT(p, "xmmword ptr ");
	case 256:	return PUT_LIT(p, "ymmword ptr ");
	case 512:	return PUT_LIT(p, "zmmword ptr ");
	default:	return p;
	}
}

static char *put_mem(char *p, const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *op,
		     uint64_t addr, bool *ok)
{
	const ZydisDecodedOperandMem *mm = &op->mem;
	bool seg;

	if (mm->type == ZYDIS_MEMOP_TYPE_MEM || mm->type == ZYDIS_MEMOP_TYPE_VSIB)
		p = put_size(p, op->size);
	switch (mm->segment) {
	case ZYDIS_REGISTER_ES:
	case ZYDIS_REGISTER_CS:
	case ZYDIS_REGISTER_FS:
	case ZYDIS_REGISTER_GS:
		seg = true;
		break;
	case ZYDIS_REGISTER_SS:
		seg = zi->attributes & ZYDIS_ATTRIB_HAS_SEGMENT_SS;
		break;
	case ZYDIS_REGISTER_DS:
		seg = zi->attributes & ZYDIS_ATTRIB_HAS_SEGMENT_DS;
		break;
	default:
		seg = false;
		break;
	}
	if (seg) {
		p = put_reg(p, mm->segment);
		*p++ = ':';
	}
	*p++ = '[';
	if (mm->disp.has_displacement && mm->index == ZYDIS_REGISTER_NONE &&
	    (mm->base == ZYDIS_REGISTER_NONE || mm->base == ZYDIS_REGISTER_EIP ||
	     mm->base == ZYDIS_REGISTER_RIP)) {
		ZyanU64 a;

		if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(zi, op, addr, &a))) {
			*ok = false;
			return p;
		}
		p = put_hex(p, a, 0);
	} else {
		if (mm->base != ZYDIS_REGISTER_NONE)
			p = put_reg(p, mm->base);
		if (mm->index != ZYDIS_REGISTER_NONE) {
			if (mm->base != ZYDIS_REGISTER_NONE)
				*p++ = '+';
			p = put_reg(p, mm->index);
			if (mm->scale && mm->type != ZYDIS_MEMOP_TYPE_MIB) {
				*p++ = '*';
				*p++ = (char)('0' + mm->scale % 10);
			}
		}
		if (mm->disp.has_displacement && mm->disp.value)
			p = put_hex_signed(p, mm->disp.value, true);
	}
	*p++ = ']';
	return p;
}

static char *put_imm(char *p, const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *op,
		     uint64_t addr, bool *ok)
{
	uint64_t v = op->imm.value.u;

	if (op->imm.is_relative) {
		ZyanU64 a;

		if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(zi, op, addr, &a))) {
			*ok = false;
			return p;
		}
		return put_hex(p, a, 0);
	}
	switch (zi->operand_width) {
	case 8:		v = (uint8_t)v; break;
	case 16:	v = (uint16_t)v; break;
	case 32:	v = (uint32_t)v; break;
	case 64:	break;
	default:	*ok = false; return p;
	}
	return put_hex(p, v, 0);
}

static char *put_rc_sae(char *p, const ZydisDecodedInstruction *zi)
{
	static const char *const rc[] = { "", " {rn", " {rd", " {ru", " {rz" };
	unsigned m = (unsigned)zi->avx.rounding.mode;

	if (m && m < sizeof(rc) / sizeof(rc[0])) {
		p = put(p, rc[m], 4);
		if (zi->avx.has_sae)
			p = PUT_LIT(p, "-sae");
		*p++ = '}';
	} else if (zi->avx.has_sae) {
		p = PUT_LIT(p, " {sae}");
	}
	return p;
}

static char *put_bcst(char *p, const ZydisDecodedInstruction *zi)
{
	static const char *const bc[] = {
		[ZYDIS_BROADCAST_MODE_1_TO_2] = " {1to2}", [ZYDIS_BROADCAST_MODE_1_TO_4] = " {1to4}",
		[ZYDIS_BROADCAST_MODE_1_TO_8] = " {1to8}",
		[ZYDIS_BROADCAST_MODE_1_TO_16] = " {1to16}",
		[ZYDIS_BROADCAST_MODE_1_TO_32] = " {1to32}",
		[ZYDIS_BROADCAST_MODE_1_TO_64] = " {1to64}",
		[ZYDIS_BROADCAST_MODE_2_TO_4] = " {2to4}", [ZYDIS_BROADCAST_MODE_2_TO_8] = " {2to8}",
		[ZYDIS_BROADCAST_MODE_2_TO_16] = " {2to16}",
		[ZYDIS_BROADCAST_MODE_4_TO_8] = " {4to8}",
		[ZYDIS_BROADCAST_MODE_4_TO_16] = " {4to16}",
		[ZYDIS_BROADCAST_MODE_8_TO_16] = " {8to16}",
	};
	unsigned m = (unsigned)zi->avx.broadcast.mode;

	if (zi->avx.broadcast.is_static || m >= sizeof(bc) / sizeof(bc[0]) || !bc[m])
		return p;
	return put(p, bc[m], strlen(bc[m]));
}

/* KNC's MVEX memory decorations: up-conversion and eviction hint */
static char *put_mvex_mem(char *p, const ZydisDecodedInstruction *zi)
{
	static const char *const cv[] = {
		[ZYDIS_CONVERSION_MODE_FLOAT16] = " {float16}",
		[ZYDIS_CONVERSION_MODE_SINT8] = " {sint8}", [ZYDIS_CONVERSION_MODE_UINT8] = " {uint8}",
		[ZYDIS_CONVERSION_MODE_SINT16] = " {sint16}",
		[ZYDIS_CONVERSION_MODE_UINT16] = " {uint16}",
	};
	unsigned m = (unsigned)zi->avx.conversion.mode;

	if (m < sizeof(cv) / sizeof(cv[0]) && cv[m])
		p = put(p, cv[m], strlen(cv[m]));
	if (zi->avx.has_eviction_hint)
		p = PUT_LIT(p, " {eh}");
	return p;
}

/* KNC's MVEX register swizzle */
static char *put_swizzle(char *p, const ZydisDecodedInstruction *zi)
{
	static const char *const sw[] = {
		[ZYDIS_SWIZZLE_MODE_CDAB] = " {cdab}", [ZYDIS_SWIZZLE_MODE_BADC] = " {badc}",
		[ZYDIS_SWIZZLE_MODE_DACB] = " {dacb}", [ZYDIS_SWIZZLE_MODE_AAAA] = " {aaaa}",
		[ZYDIS_SWIZZLE_MODE_BBBB] = " {bbbb}", [ZYDIS_SWIZZLE_MODE_CCCC] = " {cccc}",
		[ZYDIS_SWIZZLE_MODE_DDDD] = " {dddd}",
	};
	unsigned m = (unsigned)zi->avx.swizzle.mode;

	if (m < sizeof(sw) / sizeof(sw[0]) && sw[m])
		p = put(p, sw[m], 7);
	return p;
}

size_t zydis_text__operands(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops,
			    uint64_t addr, char *out)
{
	unsigned i, n = zi->operand_count_visible;
	bool mvex = zi->encoding == ZYDIS_INSTRUCTION_ENCODING_MVEX, ok = true, first = true;
	bool evex = zi->encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX || mvex;
	char delim = ',';
	char *p = out;

	if (n > ZYDIS_MAX_OPERAND_COUNT_VISIBLE)
		n = ZYDIS_MAX_OPERAND_COUNT_VISIBLE;
	if (zi->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR) {
		p = PUT_LIT(p, "far");
		first = false;
		delim = 0;
	}
	for (i = 0; i < n && ok; i++) {
		const ZydisDecodedOperand *op = &ops[i];

		if (op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN)
			break;
		/* the write mask is shown as a decoration of the first operand */
		if (i == 1 && op->type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    op->encoding == ZYDIS_OPERAND_ENCODING_MASK)
			continue;
		if (!first) {
			if (delim)
				*p++ = delim;
			*p++ = ' ';
		}
		first = false;
		delim = ',';
		switch (op->type) {
		case ZYDIS_OPERAND_TYPE_REGISTER:
			p = put_reg(p, op->reg.value);
			break;
		case ZYDIS_OPERAND_TYPE_MEMORY:
			p = put_mem(p, zi, op, addr, &ok);
			break;
		case ZYDIS_OPERAND_TYPE_POINTER:
			p = put_hex(p, op->ptr.segment, 4);
			*p++ = ':';
			p = put_hex(p, op->ptr.offset, zi->operand_width == 16 ? 4 : 8);
			break;
		case ZYDIS_OPERAND_TYPE_IMMEDIATE:
			p = put_imm(p, zi, op, addr, &ok);
			break;
		default:
			ok = false;
			break;
		}
		if (!evex)
			continue;
		if (i == 0 && 1 < zi->operand_count &&
		    ops[1].encoding == ZYDIS_OPERAND_ENCODING_MASK &&
		    zi->avx.mask.reg != ZYDIS_REGISTER_K0) {
			p = PUT_LIT(p, " {");
			p = put_reg(p, zi->avx.mask.reg);
			*p++ = '}';
			if (zi->raw.evex.z && (zi->avx.mask.mode == ZYDIS_MASK_MODE_ZEROING ||
					       zi->avx.mask.mode == ZYDIS_MASK_MODE_CONTROL_ZEROING))
				p = PUT_LIT(p, " {z}");
		}
		if (op->type == ZYDIS_OPERAND_TYPE_MEMORY) {
			p = put_bcst(p, zi);
			if (mvex)
				p = put_mvex_mem(p, zi);
		} else if (op->type != ZYDIS_OPERAND_TYPE_IMMEDIATE &&
			   (i + 1 == n || (i + 1 < zi->operand_count &&
					   ops[i + 1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE))) {
			if (mvex)
				p = put_swizzle(p, zi);
			p = put_rc_sae(p, zi);
		}
	}
	if (!ok)
		p = out;
	*p = 0;
	return (size_t)(p - out);
}

int zydis_text__formatter_init(ZydisFormatter *fmt)
{
	if (!ZYAN_SUCCESS(ZydisFormatterInit(fmt, ZYDIS_FORMATTER_STYLE_INTEL)))
		return -1;
	/* As objdump -M intel writes operands: sizes of memory operands, lowercase hex,
	 * no zero padding. */
	ZydisFormatterSetProperty(fmt, ZYDIS_FORMATTER_PROP_FORCE_SIZE, ZYAN_TRUE);
	ZydisFormatterSetProperty(fmt, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, ZYAN_FALSE);
	ZydisFormatterSetProperty(fmt, ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE,
				  ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(fmt, ZYDIS_FORMATTER_PROP_ADDR_PADDING_RELATIVE,
				  ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(fmt, ZYDIS_FORMATTER_PROP_IMM_PADDING, ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(fmt, ZYDIS_FORMATTER_PROP_DISP_PADDING, ZYDIS_PADDING_DISABLED);
	return 0;
}

const char *zydis_text__operands_ref(const ZydisFormatter *fmt,
				     const ZydisDecodedInstruction *zi,
				     const ZydisDecodedOperand *ops, uint64_t addr, char *buf,
				     size_t n)
{
	const char *mn = ZydisMnemonicGetString(zi->mnemonic);
	char *p = buf, *sp;
	size_t l = mn ? strlen(mn) : 0;

	if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(fmt, zi, ops, zi->operand_count_visible,
							  buf, n, addr, ZYAN_NULL))) {
		buf[0] = 0;
		return buf;
	}
	/* past the prefix words (lock, rep, bnd, ...) and the mnemonic */
	while (l && (strncmp(p, mn, l) || (p[l] != ' ' && p[l] != 0)) &&
	       (sp = strchr(p, ' ')) != NULL)
		p = sp + 1;
	if (l && !strncmp(p, mn, l))
		p += l;
	while (*p == ' ')
		p++;
	return p;
}
