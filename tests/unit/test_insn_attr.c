/* Instruction attributes of a representative set of x86-64 and AArch64 instructions.
 * The bytes are hand-encoded from the Intel SDM / Arm ARM, and the expected attributes
 * are written out from those manuals (mnemonic as objdump -M intel prints it, XED iclass,
 * extension and category names as Intel SDE prints them), so the tests do not echo the
 * classifier's own output.
 */
#include <stdlib.h>

#include "bbmap/module_priv.h"
#include "tests/harness.h"

struct want {
	const char *name;
	uint8_t bytes[16];
	uint8_t len;
	const char *mnemonic, *iclass;
	enum bbmap_isa isa;
	enum bbmap_category cat;
	enum bbmap_packing pack;
	enum bbmap_elem elem;
	uint16_t width;
	uint16_t flags;		/* exact */
	uint64_t target;	/* with BBMAP_INSN_HAS_TARGET, relative to ADDR */
	const char *kinds;	/* operand kinds */
};

#define ADDR 0x401000ull
#define BR BBMAP_INSN_BRANCH
#define RD BBMAP_INSN_MEM_READ
#define WR BBMAP_INSN_MEM_WRITE
#define TG BBMAP_INSN_HAS_TARGET

/* x86-64, decoded by Zydis. Expected names are Intel XED's (as SDE's -mix prints them:
 * iclass, *isa-ext-, *category-), written from XED's instruction tables and the SDM. */
static const struct want x86[] = {
	{ "mov r64", { 0x48, 0x89, 0xd8 }, 3, "mov", "MOV", ISA_BASE, CAT_DATAXFER, PACK_NONE,
	  ELEM_INT64, 0, 0, 0, "rr" },
	{ "mov store", { 0x89, 0x07 }, 2, "mov", "MOV", ISA_BASE, CAT_DATAXFER, PACK_NONE,
	  ELEM_INT32, 0, WR, 0, "mr" },
	{ "add load", { 0x03, 0x47, 0x08 }, 3, "add", "ADD", ISA_BASE, CAT_BINARY, PACK_NONE,
	  ELEM_INT32, 0, RD, 0, "rm" },
	{ "lea", { 0x48, 0x8d, 0x04, 0x37 }, 4, "lea", "LEA", ISA_BASE, CAT_MISC, PACK_NONE,
	  ELEM_INT64, 0, 0, 0, "rm" },
	{ "lock xadd", { 0xf0, 0x0f, 0xc1, 0x07 }, 4, "lock xadd", "XADD_LOCK", ISA_BASE,
	  CAT_SEMAPHORE, PACK_NONE, ELEM_INT32, 0, RD | WR | BBMAP_INSN_LOCK, 0, "mr" },
	{ "lock cmpxchg", { 0xf0, 0x0f, 0xb1, 0x0f }, 4, "lock cmpxchg", "CMPXCHG_LOCK",
	  ISA_BASE, CAT_SEMAPHORE, PACK_NONE, ELEM_INT32, 0, RD | WR | BBMAP_INSN_LOCK, 0, "mr" },
	{ "rep movsb", { 0xf3, 0xa4 }, 2, "rep movsb", "REP_MOVSB", ISA_BASE, CAT_STRINGOP,
	  PACK_NONE, ELEM_INT8, 0, RD | WR, 0, "" },
	{ "rep stosq", { 0xf3, 0x48, 0xab }, 3, "rep stosq", "REP_STOSQ", ISA_LONGMODE, CAT_STRINGOP,
	  PACK_NONE, ELEM_INT64, 0, WR, 0, "" },
	{ "lodsb", { 0xac }, 1, "lodsb", "LODSB", ISA_BASE, CAT_STRINGOP, PACK_NONE, ELEM_INT8, 0,
	  RD, 0, "" },
	{ "repne scasb", { 0xf2, 0xae }, 2, "repnz scasb", "REPNE_SCASB", ISA_BASE, CAT_STRINGOP,
	  PACK_NONE, ELEM_INT8, 0, RD, 0, "" },
	{ "movsd string", { 0xa5 }, 1, "movsd", "MOVSD", ISA_BASE, CAT_STRINGOP, PACK_NONE,
	  ELEM_INT32, 0, RD | WR, 0, "" },
	{ "jne rel8", { 0x75, 0x10 }, 2, "jne", "JNZ", ISA_BASE, CAT_COND_BR, PACK_NONE,
	  ELEM_NONE, 0, BR | BBMAP_INSN_COND | TG, 0x12, "i" },
	{ "je rel32", { 0x0f, 0x84, 0x00, 0x01, 0x00, 0x00 }, 6, "je", "JZ", ISA_BASE,
	  CAT_COND_BR, PACK_NONE, ELEM_NONE, 0, BR | BBMAP_INSN_COND | TG, 0x106, "i" },
	{ "jmp rel8", { 0xeb, 0xfe }, 2, "jmp", "JMP", ISA_BASE, CAT_UNCOND_BR, PACK_NONE,
	  ELEM_NONE, 0, BR | TG, 0, "i" },
	{ "jmp rax", { 0xff, 0xe0 }, 2, "jmp", "JMP", ISA_BASE, CAT_UNCOND_BR, PACK_NONE,
	  ELEM_NONE, 0, BR | BBMAP_INSN_INDIRECT, 0, "r" },
	{ "call rel32", { 0xe8, 0x00, 0x00, 0x00, 0x00 }, 5, "call", "CALL_NEAR", ISA_BASE,
	  CAT_CALL, PACK_NONE, ELEM_NONE, 0, BR | BBMAP_INSN_CALL | WR | TG, 5, "i" },
	{ "call [rax]", { 0xff, 0x10 }, 2, "call", "CALL_NEAR", ISA_BASE, CAT_CALL, PACK_NONE,
	  ELEM_NONE, 0, BR | BBMAP_INSN_CALL | BBMAP_INSN_INDIRECT | RD | WR, 0, "m" },
	{ "ret", { 0xc3 }, 1, "ret", "RET_NEAR", ISA_BASE, CAT_RET, PACK_NONE, ELEM_NONE, 0,
	  BR | BBMAP_INSN_RET | BBMAP_INSN_INDIRECT | RD, 0, "" },
	{ "push rbp", { 0x55 }, 1, "push", "PUSH", ISA_BASE, CAT_PUSH, PACK_NONE, ELEM_INT64,
	  0, WR, 0, "r" },
	{ "pop rbp", { 0x5d }, 1, "pop", "POP", ISA_BASE, CAT_POP, PACK_NONE, ELEM_INT64, 0,
	  RD, 0, "r" },
	{ "sete", { 0x0f, 0x94, 0xc0 }, 3, "sete", "SETZ", ISA_BASE, CAT_SETCC, PACK_NONE,
	  ELEM_INT8, 0, 0, 0, "r" },
	{ "cmovne", { 0x0f, 0x45, 0xc1 }, 3, "cmovne", "CMOVNZ", ISA_BASE, CAT_CMOV,
	  PACK_NONE, ELEM_INT32, 0, 0, 0, "rr" },
	{ "cmp", { 0x48, 0x39, 0xc8 }, 3, "cmp", "CMP", ISA_BASE, CAT_BINARY, PACK_NONE,
	  ELEM_INT64, 0, 0, 0, "rr" },
	{ "shl", { 0x48, 0xc1, 0xe0, 0x03 }, 4, "shl", "SHL", ISA_BASE, CAT_SHIFT, PACK_NONE,
	  ELEM_INT64, 0, 0, 0, "ri" },
	{ "idiv", { 0x48, 0xf7, 0xf9 }, 3, "idiv", "IDIV", ISA_BASE, CAT_BINARY, PACK_NONE,
	  ELEM_INT64, 0, 0, 0, "r" },
	{ "divsd", { 0xf2, 0x0f, 0x5e, 0xc1 }, 4, "divsd", "DIVSD", ISA_SSE2, CAT_SSE,
	  PACK_SCALAR, ELEM_FP64, 128, 0, 0, "rr" },
	{ "sqrtsd", { 0xf2, 0x0f, 0x51, 0xc1 }, 4, "sqrtsd", "SQRTSD", ISA_SSE2, CAT_SSE,
	  PACK_SCALAR, ELEM_FP64, 128, 0, 0, "rr" },
	{ "addps mem", { 0x0f, 0x58, 0x00 }, 3, "addps", "ADDPS", ISA_SSE, CAT_SSE,
	  PACK_PACKED, ELEM_FP32, 128, RD, 0, "rm" },
	{ "movsd xmm load", { 0xf2, 0x0f, 0x10, 0x00 }, 4, "movsd", "MOVSD_XMM", ISA_SSE2,
	  CAT_DATAXFER, PACK_SCALAR, ELEM_FP64, 128, RD, 0, "rm" },
	{ "movaps store", { 0x0f, 0x29, 0x07 }, 3, "movaps", "MOVAPS", ISA_SSE, CAT_DATAXFER,
	  PACK_PACKED, ELEM_FP32, 128, WR, 0, "mr" },
	{ "vaddpd ymm", { 0xc5, 0xf5, 0x58, 0xc2 }, 4, "vaddpd", "VADDPD", ISA_AVX, CAT_AVX,
	  PACK_PACKED, ELEM_FP64, 256, 0, 0, "rrr" },
	{ "vfmadd231ps ymm", { 0xc4, 0xe2, 0x75, 0xb8, 0xc2 }, 5, "vfmadd231ps", "VFMADD231PS",
	  ISA_FMA, CAT_VFMA, PACK_PACKED, ELEM_FP32, 256, 0, 0, "rrr" },
	{ "vsqrtss", { 0xc5, 0xf2, 0x51, 0xc2 }, 4, "vsqrtss", "VSQRTSS",
	  ISA_AVX, CAT_AVX, PACK_SCALAR, ELEM_FP32, 128, 0, 0, "rrr" },
	{ "vucomiss", { 0xc5, 0xf8, 0x2e, 0xc1 }, 4, "vucomiss",
	  "VUCOMISS", ISA_AVX, CAT_AVX, PACK_SCALAR, ELEM_FP32, 128, 0, 0, "rr" },
	{ "vpaddd ymm (AVX2)", { 0xc5, 0xf5, 0xfe, 0xc2 }, 4, "vpaddd", "VPADDD", ISA_AVX2,
	  CAT_AVX2, PACK_PACKED, ELEM_INT32, 256, 0, 0, "rrr" },
	{ "vaddps zmm", { 0x62, 0xf1, 0x74, 0x48, 0x58, 0xc2 }, 6, "vaddps", "VADDPS",
	  ISA_AVX512EVEX, CAT_AVX512, PACK_PACKED, ELEM_FP32, 512, 0, 0, "rrr" },
	{ "paddd", { 0x66, 0x0f, 0xfe, 0xc1 }, 4, "paddd", "PADDD", ISA_SSE2, CAT_SSE,
	  PACK_PACKED, ELEM_INT32, 128, 0, 0, "rr" },
	{ "pshufb", { 0x66, 0x0f, 0x38, 0x00, 0xc1 }, 5, "pshufb", "PSHUFB", ISA_SSSE3,
	  CAT_SSE, PACK_PACKED, ELEM_INT8, 128, 0, 0, "rr" },
	{ "cvtsi2sd", { 0xf2, 0x0f, 0x2a, 0xc0 }, 4, "cvtsi2sd", "CVTSI2SD", ISA_SSE2,
	  CAT_CONVERT, PACK_SCALAR, ELEM_FP64, 128, 0, 0, "rr" },
	{ "aesenc", { 0x66, 0x0f, 0x38, 0xdc, 0xc1 }, 5, "aesenc", "AESENC", ISA_AES,
	  CAT_AES, PACK_PACKED, ELEM_INT128, 128, 0, 0, "rr" },
	{ "syscall", { 0x0f, 0x05 }, 2, "syscall", "SYSCALL", ISA_LONGMODE, CAT_SYSCALL,
	  PACK_NONE, ELEM_NONE, 0, BR | BBMAP_INSN_SYSCALL, 0, "" },
	{ "ud2", { 0x0f, 0x0b }, 2, "ud2", "UD2", ISA_BASE, CAT_MISC, PACK_NONE, ELEM_NONE, 0,
	  BR, 0, "" },
	{ "nop", { 0x90 }, 1, "nop", "NOP", ISA_BASE, CAT_NOP, PACK_NONE, ELEM_NONE, 0, 0, 0, "" },
	{ "nop dword [rax]", { 0x0f, 0x1f, 0x40, 0x00 }, 4, "nop", "NOP", ISA_BASE, CAT_WIDENOP,
	  PACK_NONE, ELEM_NONE, 0, 0, 0, "m" },
	{ "fld qword", { 0xdd, 0x00 }, 2, "fld", "FLD", ISA_X87, CAT_X87_ALU, PACK_SCALAR,
	  ELEM_FP64, 0, RD, 0, "m" },
	{ "faddp", { 0xde, 0xc1 }, 2, "faddp", "FADDP", ISA_X87, CAT_X87_ALU, PACK_SCALAR,
	  ELEM_FP80, 0, 0, 0, NULL },
};

/* AArch64: encodings from the Arm ARM (little-endian words). */
static const struct want a64[] = {
	{ "add x", { 0x20, 0x00, 0x02, 0x8b }, 4, "add", "ADD", ISA_A64_BASE, CAT_BINARY,
	  PACK_NONE, ELEM_INT64, 0, 0, 0, "rrr" },
	{ "ldr x", { 0x20, 0x00, 0x40, 0xf9 }, 4, "ldr", "LDR", ISA_A64_BASE, CAT_DATAXFER,
	  PACK_NONE, ELEM_INT64, 0, RD, 0, "rm" },
	{ "str w", { 0x20, 0x00, 0x00, 0xb9 }, 4, "str", "STR", ISA_A64_BASE, CAT_DATAXFER,
	  PACK_NONE, ELEM_INT32, 0, WR, 0, "rm" },
	{ "b.ne", { 0x41, 0x00, 0x00, 0x54 }, 4, "b.ne", "B_NE", ISA_A64_BASE, CAT_COND_BR,
	  PACK_NONE, ELEM_NONE, 0, BR | BBMAP_INSN_COND | TG, 8, "i" },
	{ "cbz", { 0x40, 0x00, 0x00, 0xb4 }, 4, "cbz", "CBZ", ISA_A64_BASE, CAT_COND_BR,
	  PACK_NONE, ELEM_INT64, 0, BR | BBMAP_INSN_COND | TG, 8, "ri" },
	{ "bl", { 0x02, 0x00, 0x00, 0x94 }, 4, "bl", "BL", ISA_A64_BASE, CAT_CALL, PACK_NONE,
	  ELEM_NONE, 0, BR | BBMAP_INSN_CALL | TG, 8, "i" },
	{ "b", { 0x02, 0x00, 0x00, 0x14 }, 4, "b", "B", ISA_A64_BASE, CAT_UNCOND_BR, PACK_NONE,
	  ELEM_NONE, 0, BR | TG, 8, "i" },
	{ "br x16", { 0x00, 0x02, 0x1f, 0xd6 }, 4, "br", "BR", ISA_A64_BASE, CAT_UNCOND_BR,
	  PACK_NONE, ELEM_INT64, 0, BR | BBMAP_INSN_INDIRECT, 0, "r" },
	{ "ret", { 0xc0, 0x03, 0x5f, 0xd6 }, 4, "ret", "RET", ISA_A64_BASE, CAT_RET, PACK_NONE,
	  ELEM_NONE, 0, BR | BBMAP_INSN_RET | BBMAP_INSN_INDIRECT, 0, NULL },
	{ "svc", { 0x01, 0x00, 0x00, 0xd4 }, 4, "svc", "SVC", ISA_A64_BASE, CAT_SYSTEM,
	  PACK_NONE, ELEM_NONE, 0, BR | BBMAP_INSN_SYSCALL, 0, "i" },
	{ "fadd v.4s", { 0x20, 0xd4, 0x22, 0x4e }, 4, "fadd", "FADD", ISA_A64_NEON, CAT_SIMD_FP,
	  PACK_PACKED, ELEM_FP32, 128, 0, 0, "rrr" },
	{ "fadd d", { 0x20, 0x28, 0x62, 0x1e }, 4, "fadd", "FADD", ISA_A64_FP, CAT_SIMD_FP,
	  PACK_SCALAR, ELEM_FP64, 0, 0, 0, "rrr" },
	{ "add v.4s", { 0x20, 0x84, 0xa2, 0x4e }, 4, "add", "ADD", ISA_A64_NEON, CAT_SIMD_INT,
	  PACK_PACKED, ELEM_INT32, 128, 0, 0, "rrr" },
	{ "nop", { 0x1f, 0x20, 0x03, 0xd5 }, 4, "nop", "NOP", ISA_A64_BASE, CAT_NOP, PACK_NONE,
	  ELEM_NONE, 0, 0, 0, "" },
};

/* ARM32 (A32 encoding): control flow, memory and stack; isa/packing left basic. */
static const struct want a32[] = {
	{ "b", { 0x00, 0x00, 0x00, 0xea }, 4, "b", "B", ISA_ARM_BASE, CAT_UNCOND_BR, PACK_NONE,
	  ELEM_NONE, 0, BR | TG, 8, "i" },
	{ "bne", { 0x00, 0x00, 0x00, 0x1a }, 4, "bne", "BNE", ISA_ARM_BASE, CAT_COND_BR,
	  PACK_NONE, ELEM_NONE, 0, BR | BBMAP_INSN_COND | TG, 8, "i" },
	{ "bl", { 0x00, 0x00, 0x00, 0xeb }, 4, "bl", "BL", ISA_ARM_BASE, CAT_CALL, PACK_NONE,
	  ELEM_NONE, 0, BR | BBMAP_INSN_CALL | TG, 8, "i" },
	{ "bx lr", { 0x1e, 0xff, 0x2f, 0xe1 }, 4, "bx", "BX", ISA_ARM_BASE, CAT_RET, PACK_NONE,
	  ELEM_NONE, 0, BR | BBMAP_INSN_INDIRECT | BBMAP_INSN_RET, 0, "r" },
	{ "pop {r4, pc}", { 0x10, 0x80, 0xbd, 0xe8 }, 4, "pop", "POP", ISA_ARM_BASE, CAT_RET,
	  PACK_NONE, ELEM_NONE, 0, BR | BBMAP_INSN_INDIRECT | BBMAP_INSN_RET | RD, 0, "rr" },
	{ "ldr", { 0x00, 0x00, 0x91, 0xe5 }, 4, "ldr", "LDR", ISA_ARM_BASE, CAT_DATAXFER,
	  PACK_NONE, ELEM_NONE, 0, RD, 0, "rm" },
	{ "add", { 0x02, 0x00, 0x81, 0xe0 }, 4, "add", "ADD", ISA_ARM_BASE, CAT_MISC, PACK_NONE,
	  ELEM_NONE, 0, 0, 0, "rrr" },
	{ "svc", { 0x00, 0x00, 0x00, 0xef }, 4, "svc", "SVC", ISA_ARM_BASE, CAT_SYSTEM,
	  PACK_NONE, ELEM_NONE, 0, BR | BBMAP_INSN_SYSCALL, 0, "i" },
};

static void check_set(cs_arch arch, cs_mode mode, const struct want *w, size_t n)
{
	csh h;
	cs_insn *ci;
	size_t i;

	if (cs_open(arch, mode, &h) != CS_ERR_OK) {
		CHECK(!"cs_open");
		return;
	}
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	ci = cs_malloc(h);
	for (i = 0; i < n; i++) {
		const uint8_t *p = w[i].bytes;
		size_t left = w[i].len;
		uint64_t addr = ADDR;
		struct bbmap_insn in;
		char iclass[64];
		int k;

		memset(&in, 0, sizeof(in));
		if (!cs_disasm_iter(h, &p, &left, &addr, ci)) {
			fprintf(stderr, "%s: not decoded\n", w[i].name);
			CHECK(!"decode");
			continue;
		}
		if (arch == CS_ARCH_ARM64)
			insn_attr__arm64(h, ci, &in, iclass, sizeof(iclass));
		else
			insn_attr__arm(h, ci, &in, iclass, sizeof(iclass));
		int before = th_failed_checks;

		CHECK_EQ_U64(ci->size, w[i].len);
		CHECK_STR(ci->mnemonic, w[i].mnemonic);
		CHECK_STR(iclass, w[i].iclass);
		CHECK_STR(bbmap_isa_name(in.isa), bbmap_isa_name(w[i].isa));
		CHECK_STR(bbmap_category_name(in.category), bbmap_category_name(w[i].cat));
		CHECK_STR(bbmap_packing_name(in.packing), bbmap_packing_name(w[i].pack));
		CHECK_STR(bbmap_elem_name(in.elem), bbmap_elem_name(w[i].elem));
		CHECK_EQ_U64(in.width, w[i].width);
		CHECK_EQ_U64(in.flags, w[i].flags);
		if (w[i].flags & TG)
			CHECK_EQ_U64(in.target, ADDR + w[i].target);
		if (w[i].kinds) {
			CHECK_EQ_U64(in.nr_ops, strlen(w[i].kinds));
			for (k = 0; k < in.nr_ops && k < 4 && w[i].kinds[k]; k++)
				CHECK_EQ_U64(in.op_kinds[k], w[i].kinds[k]);
		}
		if (th_failed_checks != before)
			fprintf(stderr, "^ in \"%s\"\n", w[i].name);
	}
	cs_free(ci, 1);
	cs_close(&h);
}

static void test_x86_64_attributes(void)
{
	struct bbmap_module m;
	size_t i;

	memset(&m, 0, sizeof(m));
	mod_module__init(&m);
	m.arch = BBMAP_ARCH_X86_64;
	m.path = "test";
	CHECK_EQ_U64(mod_zydis__init(), 0);	/* every Zydis name is in insn_attr.h */
	if (mod_zydis__open(&m, &m.dec)) {
		CHECK(!"mod_zydis__open");
		mod_module__exit(&m);
		return;
	}
	for (i = 0; i < sizeof(x86) / sizeof(x86[0]); i++) {
		const struct want *w = &x86[i];
		ZydisDecodedInstruction zi;
		ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
		struct bbmap_insn in;
		int k, before = th_failed_checks;

		memset(&in, 0, sizeof(in));
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&m.dec.zy_dec, w->bytes, w->len, &zi, ops))) {
			fprintf(stderr, "%s: not decoded\n", w->name);
			CHECK(!"decode");
			continue;
		}
		CHECK_EQ_U64(mod_zydis__attrs(&m, &m.dec, &zi, ops, ADDR, &in), 0);
		CHECK_EQ_U64(zi.length, w->len);
		CHECK_STR(in.mnemonic, w->mnemonic);
		CHECK_STR(in.iclass, w->iclass);
		CHECK_STR(bbmap_isa_name(in.isa), bbmap_isa_name(w->isa));
		CHECK_STR(bbmap_category_name(in.category), bbmap_category_name(w->cat));
		CHECK_STR(bbmap_packing_name(in.packing), bbmap_packing_name(w->pack));
		CHECK_STR(bbmap_elem_name(in.elem), bbmap_elem_name(w->elem));
		CHECK_EQ_U64(in.width, w->width);
		CHECK_EQ_U64(in.flags, w->flags);
		if (w->flags & TG)
			CHECK_EQ_U64(in.target, ADDR + w->target);
		if (w->kinds) {
			CHECK_EQ_U64(in.nr_ops, strlen(w->kinds));
			for (k = 0; k < in.nr_ops && k < 4 && w->kinds[k]; k++)
				CHECK_EQ_U64(in.op_kinds[k], w->kinds[k]);
		}
		if (th_failed_checks != before)
			fprintf(stderr, "^ in \"%s\" (got %s %s %s %s %s %s w%u f%#x)\n", w->name,
				in.mnemonic, in.iclass, bbmap_isa_name(in.isa),
				bbmap_category_name(in.category), bbmap_packing_name(in.packing),
				bbmap_elem_name(in.elem), in.width, in.flags);
	}
	mod_module__exit(&m);
}

static void test_aarch64_attributes(void)
{
	check_set(CS_ARCH_ARM64, CS_MODE_ARM, a64, sizeof(a64) / sizeof(a64[0]));
}

static void test_arm32_attributes(void)
{
	check_set(CS_ARCH_ARM, CS_MODE_ARM, a32, sizeof(a32) / sizeof(a32[0]));
}

static void test_names(void)
{
	CHECK_STR(bbmap_isa_name(ISA_SSE4), "SSE4");
	CHECK_STR(bbmap_isa_name(ISA_AVX512EVEX), "AVX512EVEX");
	CHECK_STR(bbmap_isa_name((enum bbmap_isa)250), "INVALID");
	CHECK_STR(bbmap_isa_set_name(ISA_SET_AVX512_VNNI_512), "AVX512_VNNI_512");
	CHECK_STR(bbmap_category_name(CAT_COND_BR), "COND_BR");
	CHECK_STR(bbmap_category_name((enum bbmap_category)250), "INVALID");
	CHECK_EQ_U64(bbmap_category_from_name("DATAXFER"), CAT_DATAXFER);
	CHECK_EQ_U64(bbmap_isa_from_name("AMX_TILE"), ISA_AMX_TILE);
	CHECK_STR(bbmap_packing_name(PACK_PACKED), "packed");
	CHECK_STR(bbmap_elem_name(ELEM_FP64), "f64");
	CHECK_STR(bbmap_elem_name(ELEM_NONE), "");
}

int main(void)
{
	RUN_TEST(test_x86_64_attributes);
	RUN_TEST(test_aarch64_attributes);
	RUN_TEST(test_arm32_attributes);
	RUN_TEST(test_names);
	return TEST_EXIT();
}
