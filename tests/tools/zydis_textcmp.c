/* Test tool: the fast operand printer (bbmap/zydis_text.c) against Zydis's own Intel
 * formatter, instruction by instruction.
 *   zydis_textcmp FILE          every instruction of a linear sweep over FILE's executable
 *                               sections (ELF; x86-64 or x86 from its header)
 *   zydis_textcmp -r N SEED     N random byte strings (biased to prefixes, VEX, EVEX and 0F
 *                               escapes), each decoded in 64-bit and in 32-bit mode
 * Prints one line "PASS: N instructions, text equal" or "FAIL: K of N differ"; the first
 * differences go to stderr with their bytes. Exit 0 when equal, 1 when not, 2 on bad input.
 */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bbmap/zydis_text.h"

static ZydisFormatter fmt;
static uint64_t nr_cmp, nr_diff;

static void compare(const ZydisDecoder *dec, const uint8_t *p, size_t left, uint64_t addr,
		    size_t *len)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	char fast[ZYDIS_TEXT_MAX], rbuf[512];
	const char *ref;
	size_t n, k;

	ZydisDecoderContext ctx;
	ZydisDecodedInstruction zf;
	ZydisDecodedOperand full[ZYDIS_MAX_OPERAND_COUNT];

	*len = 1;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(dec, p, left, &zf, full)))
		return;
	*len = zf.length;
	/* the fast path as bbmap decodes: the operand slots past operand_count hold garbage */
	memset(ops, 0xa5, sizeof(ops));
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(dec, &ctx, p, left, &zi)) ||
	    !ZYAN_SUCCESS(ZydisDecoderDecodeOperands(dec, &ctx, &zi, ops, zi.operand_count))) {
		fprintf(stderr, "0x%" PRIx64 ": decoded by ZydisDecoderDecodeFull only\n", addr);
		nr_diff++;
		return;
	}
	memset(fast, 0x5a, sizeof(fast));
	n = zydis_text__operands(&zi, ops, addr, fast);
	ref = zydis_text__operands_ref(&fmt, &zf, full, addr, rbuf, sizeof(rbuf));
	nr_cmp++;
	if (n == strlen(fast) && !strcmp(fast, ref))
		return;
	if (++nr_diff <= 20) {
		fprintf(stderr, "0x%" PRIx64 ":", addr);
		for (k = 0; k < zi.length; k++)
			fprintf(stderr, " %02x", p[k]);
		fprintf(stderr, "  %s\n  zydis: '%s'\n  fast:  '%s'\n",
			ZydisMnemonicGetString(zi.mnemonic), ref, fast);
	}
}

static int sweep_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	ZydisDecoder dec;
	bool is64;

	if (fd < 0) {
		perror(path);
		return 2;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || !gelf_getehdr(e, &eh) || (eh.e_machine != EM_X86_64 && eh.e_machine != EM_386)) {
		fprintf(stderr, "%s: not an x86 ELF file\n", path);
		return 2;
	}
	is64 = eh.e_machine == EM_X86_64;
	ZydisDecoderInit(&dec, is64 ? ZYDIS_MACHINE_MODE_LONG_64 : ZYDIS_MACHINE_MODE_LONG_COMPAT_32,
			 is64 ? ZYDIS_STACK_WIDTH_64 : ZYDIS_STACK_WIDTH_32);
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t off = 0, len;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		while (off < d->d_size) {
			compare(&dec, (const uint8_t *)d->d_buf + off, d->d_size - off,
				sh.sh_addr + off, &len);
			off += len;
		}
	}
	elf_end(e);
	close(fd);
	return 0;
}

static uint64_t rng;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void random_bytes(unsigned long n, uint64_t seed)
{
	static const uint8_t lead[] = { 0x62, 0x62, 0x62, 0xc4, 0xc5, 0x0f, 0x66, 0xf2, 0xf3,
					0xf0, 0x48, 0x4c, 0x64, 0x65, 0x2e, 0x3e, 0x26, 0x36,
					0x67, 0x8f, 0xff, 0xea, 0x9a, 0xd9, 0xdd, 0xdf };
	ZydisDecoder d64, d32;
	uint8_t b[16];
	unsigned long i;
	size_t len, k;

	rng = seed ? seed : 1;
	ZydisDecoderInit(&d64, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	ZydisDecoderInit(&d32, ZYDIS_MACHINE_MODE_LONG_COMPAT_32, ZYDIS_STACK_WIDTH_32);
	for (i = 0; i < n; i++) {
		uint64_t a = next(), c = next();

		for (k = 0; k < sizeof(b); k++)
			b[k] = (uint8_t)(next() >> 24);
		if (c & 1)
			b[0] = lead[(c >> 8) % sizeof(lead)];
		if (c & 2)
			b[1] = lead[(c >> 16) % sizeof(lead)];
		a = c & 4 ? a & 0xffffffffu : a;
		compare(&d64, b, 15, a, &len);
		compare(&d32, b, 15, a & 0xffffffffu, &len);
	}
}

int main(int argc, char **argv)
{
	int rc;

	if (zydis_text__formatter_init(&fmt)) {
		fprintf(stderr, "zydis_textcmp: no Zydis formatter\n");
		return 2;
	}
	zydis_text__init();
	if (argc == 4 && !strcmp(argv[1], "-r")) {
		random_bytes(strtoul(argv[2], NULL, 10), strtoull(argv[3], NULL, 0));
		rc = 0;
	} else if (argc == 2) {
		rc = sweep_file(argv[1]);
	} else {
		fprintf(stderr, "usage: zydis_textcmp FILE | zydis_textcmp -r N SEED\n");
		return 2;
	}
	if (rc)
		return rc;
	if (nr_diff) {
		printf("FAIL: %" PRIu64 " of %" PRIu64 " instructions differ\n", nr_diff, nr_cmp);
		return 1;
	}
	printf("PASS: %" PRIu64 " instructions, text equal\n", nr_cmp);
	return 0;
}
