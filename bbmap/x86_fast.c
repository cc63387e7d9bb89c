/* The outline of the commonest x86-64 instructions without Zydis (see bbmap/x86_fast.h):
 * their length, and for direct jumps, conditional jumps and calls their target, from a
 * table of the plain one- and two-byte opcodes. Anything else (other prefixes, VEX and
 * EVEX, x87, string repeats, indirect and far transfers, system instructions, opcodes whose
 * validity depends on the ModRM byte beyond what is checked here) is left to Zydis, which
 * decides the instructions this file does not.
 * Knows nothing of modules or perf.data.
 */
#include "bbmap/insn_attr.h"
#include "bbmap/x86_fast.h"

/* What follows an opcode. */
enum form {
	F_NO = 0,	/* not decided here */
	F_NONE,		/* the opcode alone */
	F_M,		/* ModRM */
	F_MIB,		/* ModRM, imm8 */
	F_MIZ,		/* ModRM, imm16/32 */
	F_IB,		/* imm8 */
	F_IZ,		/* imm16/32 */
	F_IV,		/* imm16/32/64 (mov r, imm) */
	F_M0,		/* ModRM, reg field 0 only */
	F_M0IB,		/* ModRM with reg 0, imm8 */
	F_M0IZ,		/* ModRM with reg 0, imm16/32 */
	F_MMEM,		/* ModRM, a memory operand only (lea) */
	F_GRP3,		/* f6/f7: test (reg 0) has an immediate, not/neg/mul/div (reg 2-7) not */
	F_GRP5,		/* fe/ff: inc, dec (reg 0, 1), push (ff reg 6) */
	F_JCC8,		/* a conditional jump, rel8 */
	F_JMP8,		/* jmp rel8 */
	F_JMP32,	/* jmp rel32 */
	F_CALL32,	/* call rel32 */
	F_RET,		/* ret */
	F_RETIW,	/* ret imm16 */
};

/* One-byte opcodes in 64-bit mode. */
static const unsigned char one[256] = {
	/* add, or, adc, sbb, and, sub, xor, cmp: r/m,r  r,r/m  al,ib  eax,iz */
	[0x00] = F_M, [0x01] = F_M, [0x02] = F_M, [0x03] = F_M, [0x04] = F_IB, [0x05] = F_IZ,
	[0x08] = F_M, [0x09] = F_M, [0x0a] = F_M, [0x0b] = F_M, [0x0c] = F_IB, [0x0d] = F_IZ,
	[0x10] = F_M, [0x11] = F_M, [0x12] = F_M, [0x13] = F_M, [0x14] = F_IB, [0x15] = F_IZ,
	[0x18] = F_M, [0x19] = F_M, [0x1a] = F_M, [0x1b] = F_M, [0x1c] = F_IB, [0x1d] = F_IZ,
	[0x20] = F_M, [0x21] = F_M, [0x22] = F_M, [0x23] = F_M, [0x24] = F_IB, [0x25] = F_IZ,
	[0x28] = F_M, [0x29] = F_M, [0x2a] = F_M, [0x2b] = F_M, [0x2c] = F_IB, [0x2d] = F_IZ,
	[0x30] = F_M, [0x31] = F_M, [0x32] = F_M, [0x33] = F_M, [0x34] = F_IB, [0x35] = F_IZ,
	[0x38] = F_M, [0x39] = F_M, [0x3a] = F_M, [0x3b] = F_M, [0x3c] = F_IB, [0x3d] = F_IZ,
	/* push, pop */
	[0x50] = F_NONE, [0x51] = F_NONE, [0x52] = F_NONE, [0x53] = F_NONE,
	[0x54] = F_NONE, [0x55] = F_NONE, [0x56] = F_NONE, [0x57] = F_NONE,
	[0x58] = F_NONE, [0x59] = F_NONE, [0x5a] = F_NONE, [0x5b] = F_NONE,
	[0x5c] = F_NONE, [0x5d] = F_NONE, [0x5e] = F_NONE, [0x5f] = F_NONE,
	[0x63] = F_M,		/* movsxd */
	[0x68] = F_IZ, [0x69] = F_MIZ, [0x6a] = F_IB, [0x6b] = F_MIB,	/* push, imul */
	[0x70] = F_JCC8, [0x71] = F_JCC8, [0x72] = F_JCC8, [0x73] = F_JCC8,
	[0x74] = F_JCC8, [0x75] = F_JCC8, [0x76] = F_JCC8, [0x77] = F_JCC8,
	[0x78] = F_JCC8, [0x79] = F_JCC8, [0x7a] = F_JCC8, [0x7b] = F_JCC8,
	[0x7c] = F_JCC8, [0x7d] = F_JCC8, [0x7e] = F_JCC8, [0x7f] = F_JCC8,
	[0x80] = F_MIB, [0x81] = F_MIZ, [0x83] = F_MIB,	/* group 1 */
	[0x84] = F_M, [0x85] = F_M, [0x86] = F_M, [0x87] = F_M,	/* test, xchg */
	[0x88] = F_M, [0x89] = F_M, [0x8a] = F_M, [0x8b] = F_M,	/* mov */
	[0x8d] = F_MMEM,	/* lea */
	[0x8f] = F_M0,		/* pop r/m */
	/* nop, xchg, cbw/cwde/cdqe, cwd/cdq/cqo, pushf, popf, sahf, lahf */
	[0x90] = F_NONE, [0x91] = F_NONE, [0x92] = F_NONE, [0x93] = F_NONE,
	[0x94] = F_NONE, [0x95] = F_NONE, [0x96] = F_NONE, [0x97] = F_NONE,
	[0x98] = F_NONE, [0x99] = F_NONE, [0x9c] = F_NONE, [0x9d] = F_NONE,
	[0x9e] = F_NONE, [0x9f] = F_NONE,
	[0xa8] = F_IB, [0xa9] = F_IZ,	/* test al/eax */
	/* mov r8, imm8; mov r, imm */
	[0xb0] = F_IB, [0xb1] = F_IB, [0xb2] = F_IB, [0xb3] = F_IB,
	[0xb4] = F_IB, [0xb5] = F_IB, [0xb6] = F_IB, [0xb7] = F_IB,
	[0xb8] = F_IV, [0xb9] = F_IV, [0xba] = F_IV, [0xbb] = F_IV,
	[0xbc] = F_IV, [0xbd] = F_IV, [0xbe] = F_IV, [0xbf] = F_IV,
	[0xc0] = F_MIB, [0xc1] = F_MIB,	/* shifts by imm8 */
	[0xc2] = F_RETIW, [0xc3] = F_RET,
	[0xc6] = F_M0IB, [0xc7] = F_M0IZ,	/* mov r/m, imm */
	[0xc9] = F_NONE,	/* leave */
	[0xd0] = F_M, [0xd1] = F_M, [0xd2] = F_M, [0xd3] = F_M,	/* shifts by 1, cl */
	[0xe8] = F_CALL32, [0xe9] = F_JMP32, [0xeb] = F_JMP8,
	[0xf6] = F_GRP3, [0xf7] = F_GRP3,
	[0xfe] = F_GRP5, [0xff] = F_GRP5,
};

/* Two-byte opcodes (0f xx). */
static const unsigned char two[256] = {
	[0x10] = F_M, [0x11] = F_M, [0x14] = F_M, [0x15] = F_M,	/* movups/pd, unpck */
	[0x1f] = F_M0,		/* nop r/m */
	[0x28] = F_M, [0x29] = F_M, [0x2e] = F_M, [0x2f] = F_M,	/* movaps/pd, (u)comis */
	[0x40] = F_M, [0x41] = F_M, [0x42] = F_M, [0x43] = F_M,	/* cmovcc */
	[0x44] = F_M, [0x45] = F_M, [0x46] = F_M, [0x47] = F_M,
	[0x48] = F_M, [0x49] = F_M, [0x4a] = F_M, [0x4b] = F_M,
	[0x4c] = F_M, [0x4d] = F_M, [0x4e] = F_M, [0x4f] = F_M,
	[0x54] = F_M, [0x55] = F_M, [0x56] = F_M, [0x57] = F_M,	/* and, andn, or, xor */
	[0x58] = F_M, [0x59] = F_M, [0x5c] = F_M, [0x5d] = F_M,	/* add, mul, sub, min */
	[0x5e] = F_M, [0x5f] = F_M,				/* div, max */
	[0x6e] = F_M, [0x6f] = F_M, [0x7e] = F_M, [0x7f] = F_M,	/* movd/q, movq/dqa */
	[0x80] = F_JCC8, [0x81] = F_JCC8, [0x82] = F_JCC8, [0x83] = F_JCC8,	/* jcc rel32 */
	[0x84] = F_JCC8, [0x85] = F_JCC8, [0x86] = F_JCC8, [0x87] = F_JCC8,
	[0x88] = F_JCC8, [0x89] = F_JCC8, [0x8a] = F_JCC8, [0x8b] = F_JCC8,
	[0x8c] = F_JCC8, [0x8d] = F_JCC8, [0x8e] = F_JCC8, [0x8f] = F_JCC8,
	[0x90] = F_M0, [0x91] = F_M0, [0x92] = F_M0, [0x93] = F_M0,	/* setcc */
	[0x94] = F_M0, [0x95] = F_M0, [0x96] = F_M0, [0x97] = F_M0,
	[0x98] = F_M0, [0x99] = F_M0, [0x9a] = F_M0, [0x9b] = F_M0,
	[0x9c] = F_M0, [0x9d] = F_M0, [0x9e] = F_M0, [0x9f] = F_M0,
	[0xa3] = F_M, [0xa4] = F_MIB, [0xa5] = F_M,	/* bt, shld */
	[0xab] = F_M, [0xac] = F_MIB, [0xad] = F_M, [0xaf] = F_M,	/* bts, shrd, imul */
	[0xb0] = F_M, [0xb1] = F_M, [0xb3] = F_M,	/* cmpxchg, btr */
	[0xb6] = F_M, [0xb7] = F_M, [0xbb] = F_M,	/* movzx, btc */
	[0xbc] = F_M, [0xbd] = F_M, [0xbe] = F_M, [0xbf] = F_M,	/* bsf, bsr, movsx */
	[0xc0] = F_M, [0xc1] = F_M,	/* xadd */
	[0xd4] = F_M, [0xdb] = F_M, [0xeb] = F_M, [0xef] = F_M,	/* paddq, pand, por, pxor */
	[0xfa] = F_M, [0xfe] = F_M,	/* psubd, paddd */
};

static int64_t sext(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	unsigned k;

	for (k = 0; k < n; k++)
		v |= (uint64_t)p[k] << (8 * k);
	if (n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~(uint64_t)0 << (8 * n);
	return (int64_t)v;
}

/* The rest of an instruction whose opcode (op, of the two-byte map when two_byte) has a
 * ModRM byte at p[i]: the ModRM, SIB and displacement, then the immediate its form adds (iz:
 * the size of an imm16/32). Its length, or 0 when left to Zydis. */
static unsigned modrm_len(const uint8_t *p, size_t i, size_t left, unsigned op, unsigned form,
			  bool osz, bool two_byte, unsigned iz)
{
	unsigned mod, reg, rm, imm = 0;

	if (i >= left)
		return 0;
	mod = p[i] >> 6;
	reg = (p[i] >> 3) & 7;
	rm = p[i] & 7;
	i++;
	switch (form) {
	case F_MIB:
		imm = 1;
		break;
	case F_MIZ:
		imm = iz;
		break;
	case F_M0:
	case F_M0IB:
	case F_M0IZ:
		if (reg)
			return 0;
		imm = form == F_M0IB ? 1 : form == F_M0IZ ? iz : 0;
		break;
	case F_MMEM:
		if (mod == 3)
			return 0;
		break;
	case F_GRP3:
		if (reg == 1)
			return 0;	/* the undocumented test alias */
		imm = reg == 0 ? (op == 0xf6 ? 1 : iz) : 0;
		break;
	case F_GRP5:
		if (!(reg == 0 || reg == 1 || (reg == 6 && op == 0xff)))
			return 0;	/* call, jmp, far forms: Zydis */
		if (reg == 6 && osz)
			return 0;
		break;
	default:
		break;
	}
	/* the shifts' reg 6 (an alias of shl) */
	if (!two_byte && reg == 6 && (op == 0xc0 || op == 0xc1 || (op >= 0xd0 && op <= 0xd3)))
		return 0;
	if (mod != 3) {
		if (rm == 4) {		/* SIB */
			if (i >= left)
				return 0;
			if (mod == 0 && (p[i] & 7) == 5)
				i += 4;	/* no base: disp32 */
			i++;
		} else if (mod == 0 && rm == 5) {
			i += 4;		/* rip + disp32 */
		}
		if (mod == 1)
			i += 1;
		else if (mod == 2)
			i += 4;
	}
	i += imm;
	return i <= left ? (unsigned)i : 0;
}

unsigned x86_fast__outline(const uint8_t *p, size_t left, uint64_t addr, uint16_t *flags,
			   uint64_t *target)
{
	size_t i = 0;
	bool osz = false, two_byte = false;
	unsigned rex = 0, op, form, imm, rel;
	unsigned iz;		/* an imm16/32's size: 66 makes it 2, unless REX.W */

	*flags = 0;
	if (left > 15)
		left = 15;
	if (i < left && p[i] == 0x66) {
		osz = true;
		i++;
	}
	if (i < left && (p[i] & 0xf0) == 0x40)
		rex = p[i++];
	if (i >= left)
		return 0;
	op = p[i++];
	if (op == 0x0f) {
		if (i >= left)
			return 0;
		op = p[i++];
		form = two[op];
		two_byte = true;
		if (osz && op >= 0x80 && op <= 0x9f)
			return 0;	/* jcc, setcc with 66: left to Zydis */
	} else {
		form = one[op];
		if (osz && (op == 0x63 || (op >= 0x50 && op <= 0x5f) || op == 0x8f || op == 0x9c ||
			    op == 0x9d || op == 0x9e || op == 0x9f || op == 0xc9))
			return 0;	/* 16-bit forms left to Zydis */
	}
	iz = osz && !(rex & 8) ? 2 : 4;
	switch (form) {
	case F_NO:
		return 0;
	case F_NONE:
		return (unsigned)i;
	case F_IB:
	case F_IZ:
	case F_IV:
		imm = form == F_IB ? 1 : form == F_IV && (rex & 8) ? 8 : iz;
		return i + imm <= left ? (unsigned)(i + imm) : 0;
	case F_JCC8:
	case F_JMP8:
	case F_JMP32:
	case F_CALL32:
		if (osz || rex)
			return 0;	/* operand-size forms of branches: Zydis's mode decides */
		rel = two_byte || form == F_JMP32 || form == F_CALL32 ? 4 : 1;
		if (i + rel > left)
			return 0;
		*target = addr + i + rel + (uint64_t)sext(p + i, rel);
		*flags = BBMAP_INSN_BRANCH | BBMAP_INSN_HAS_TARGET |
			 (form == F_JCC8 ? BBMAP_INSN_COND : 0) |
			 (form == F_CALL32 ? BBMAP_INSN_CALL : 0);
		return (unsigned)(i + rel);
	case F_RET:
	case F_RETIW:
		if (osz || rex)
			return 0;
		*flags = BBMAP_INSN_BRANCH | BBMAP_INSN_RET | BBMAP_INSN_INDIRECT;
		i += form == F_RETIW ? 2 : 0;
		return i <= left ? (unsigned)i : 0;
	default:	/* a ModRM byte */
		return modrm_len(p, i, left, op, form, osz, two_byte, iz);
	}
}
