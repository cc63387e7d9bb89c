/* Test tool: bbmap/x86_fast.c against Zydis's outline (bbmap/disasm_zydis.c), instruction by
 * instruction, at every byte offset of the given files' bytes (code, data, anything: every
 * offset starts a different byte sequence) and of as many random bytes. Wherever the fast
 * outline decides an instruction, Zydis must decode it too, to the same length, the same
 * control-transfer flags and, for a direct branch, the same target.
 * Prints "decided D of N offsets (P%), W wrong" and the first wrong ones; exit 0 when none
 * is wrong, 1 when one is, 2 on a bad argument.
 * Usage: x86_fastcmp [-r RANDOM_BYTES] [FILE...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module_priv.h"
#include "bbmap/x86_fast.h"
#include "tests/tools/x86_bytes.h"

static struct bbmap_module zm;	/* a module of nothing but Zydis's state */
static unsigned long decided, total, wrong;

static void check(const uint8_t *code, size_t left, uint64_t addr)
{
	struct mod_region r = { .start = addr, .end = addr + (left < 15 ? left : 15) };
	uint16_t fl;
	uint64_t tg = 0;
	unsigned n = x86_fast__outline(code, left, addr, &fl, &tg);
	const struct bbmap_insn *z;

	total++;
	if (!n)
		return;
	decided++;
	if (mod_disasm__grow(&zm.dec, 32) || mod_zydis__region(&zm, &zm.dec, &r, code, NULL) ||
	    !r.nr_insns) {
		wrong++;
		return;
	}
	z = &zm.dec.scr_insns[0];
	if ((z->flags & BBMAP_INSN_BAD) || z->len != n ||
	    (z->flags & BBMAP_INSN_TRANSFER_MASK) != fl ||
	    ((fl & BBMAP_INSN_HAS_TARGET) && z->target != tg)) {
		if (wrong++ < 10) {
			unsigned k;

			printf("  at %llx:", (unsigned long long)addr);
			for (k = 0; k < 15 && k < left; k++)
				printf(" %02x", code[k]);
			printf(": fast len %u flags %x target %llx, zydis len %u flags %x target %llx\n",
			       n, fl, (unsigned long long)tg, z->len, z->flags,
			       (unsigned long long)z->target);
		}
	}
}

static void check_bytes(const uint8_t *p, size_t n, uint64_t base)
{
	size_t off;

	for (off = 0; off < n; off++)
		check(p + off, n - off, base + off);
}

int main(int argc, char **argv)
{
	size_t nrand = 0;
	int a;

	mod_module__init(&zm);
	zm.arch = BBMAP_ARCH_X86_64;
	zm.zy_only = true;
	if (mod_zydis__open(&zm, &zm.dec))
		return 2;
	for (a = 1; a < argc; a++) {
		uint8_t *buf;
		size_t len;

		if (!strcmp(argv[a], "-r") && a + 1 < argc) {
			nrand = strtoul(argv[++a], NULL, 0);
			continue;
		}
		buf = x86_bytes__file("x86_fastcmp", argv[a], (size_t)-1, &len);
		if (!buf)
			return 2;
		check_bytes(buf, len, 0x400000);
		free(buf);
	}
	if (nrand) {
		uint8_t *buf = x86_bytes__random(nrand);

		if (!buf)
			return 2;
		check_bytes(buf, nrand, 0x7f0000000000ull);
		free(buf);
	}
	printf("decided %lu of %lu offsets (%.1f%%), %lu wrong\n", decided, total,
	       total ? 100.0 * decided / total : 0, wrong);
	return wrong ? 1 : 0;
}
