/* Test tool: the decode cache of bbmap/disasm_zydis.c (x86-64 without operand text: an
 * instruction's attributes found by its bytes) against decoding every instruction. The
 * window of 32 bytes at every byte offset of the given files (code, data, anything) and of
 * as many random bytes is decoded twice, by a module with the cache and by one without, at
 * the offset's address, and the instructions compared field by field: the same bytes at
 * another address must give the same instruction there, a direct branch its target there.
 * Prints "N instructions, H from the cache, W wrong" and the first wrong ones; exit 0 when
 * none is wrong, 1 when one is, 2 on a bad argument.
 * Usage: zydis_cachecmp [-r RANDOM_BYTES] [-n MAX_BYTES_PER_FILE] [FILE...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module_priv.h"
#include "tests/tools/x86_bytes.h"

static struct bbmap_module with, without;
static struct mod_text_buf tw, to;
static unsigned long nr, wrong;

static bool same(const struct bbmap_insn *a, const struct bbmap_insn *b)
{
	return a->addr == b->addr && a->len == b->len && a->flags == b->flags &&
	       (!(a->flags & BBMAP_INSN_HAS_TARGET) || a->target == b->target) &&
	       !strcmp(a->mnemonic, b->mnemonic) && !strcmp(a->iclass, b->iclass) &&
	       a->operands == b->operands && a->width == b->width && a->isa == b->isa &&
	       a->isa_set == b->isa_set && a->category == b->category &&
	       a->packing == b->packing && a->elem == b->elem && a->nr_ops == b->nr_ops &&
	       !memcmp(a->op_kinds, b->op_kinds, sizeof(a->op_kinds));
}

static int check(const uint8_t *code, size_t left, uint64_t addr)
{
	size_t n = left < 32 ? left : 32;
	struct mod_region rw = { .start = addr, .end = addr + n };
	struct mod_region ro = rw;
	uint32_t i;

	tw.len = to.len = 0;
	if (mod_disasm__grow(&with.dec, 64) || mod_disasm__grow(&without.dec, 64) ||
	    mod_zydis__region(&with, &with.dec, &rw, code, &tw) ||
	    mod_zydis__region(&without, &without.dec, &ro, code, &to))
		return -1;
	if (rw.nr_insns != ro.nr_insns || rw.end != ro.end) {
		if (wrong++ < 10)
			printf("  at %llx: %u instructions with the cache, %u without\n",
			       (unsigned long long)addr, rw.nr_insns, ro.nr_insns);
		return 0;
	}
	for (i = 0; i < rw.nr_insns; i++) {
		const struct bbmap_insn *a = &with.dec.scr_insns[i], *b = &without.dec.scr_insns[i];

		nr++;
		if (same(a, b))
			continue;
		if (wrong++ < 10)
			printf("  at %llx: %s/%s len %u flags %x target %llx width %u isa %u, without "
			       "the cache %s/%s len %u flags %x target %llx width %u isa %u\n",
			       (unsigned long long)a->addr, a->mnemonic, a->iclass, a->len, a->flags,
			       (unsigned long long)a->target, a->width, a->isa, b->mnemonic,
			       b->iclass, b->len, b->flags, (unsigned long long)b->target, b->width,
			       b->isa);
	}
	return 0;
}

static int check_bytes(const uint8_t *p, size_t n, uint64_t base)
{
	size_t off;

	for (off = 0; off < n; off++)
		if (check(p + off, n - off, base + off))
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	size_t nrand = 0, max = (size_t)-1;
	uint64_t hits = 0, misses = 0;
	int a;

	if (mod_module__init(&with) || mod_module__init(&without))
		return 2;
	with.arch = without.arch = BBMAP_ARCH_X86_64;
	with.no_operands = without.no_operands = true;
	without.zc_off = true;
	if (mod_zydis__open(&with, &with.dec) || mod_zydis__open(&without, &without.dec))
		return 2;
	for (a = 1; a < argc; a++) {
		uint8_t *buf;
		size_t len;

		if (!strcmp(argv[a], "-r") && a + 1 < argc) {
			nrand = strtoul(argv[++a], NULL, 0);
			continue;
		}
		if (!strcmp(argv[a], "-n") && a + 1 < argc) {
			max = strtoul(argv[++a], NULL, 0);
			continue;
		}
		buf = x86_bytes__file("zydis_cachecmp", argv[a], max, &len);
		if (!buf)
			return 2;
		/* the same bytes at two addresses: the file's, then 4 GiB on */
		if (check_bytes(buf, len, 0x400000) || check_bytes(buf, len, 0x100400000ull))
			return 2;
		free(buf);
	}
	if (nrand) {
		uint8_t *buf = x86_bytes__random(nrand);

		if (!buf || check_bytes(buf, nrand, 0x7f0000000000ull))
			return 2;
		free(buf);
	}
	mod_zydis__cache_free(&with.dec, &hits, &misses);
	mod_zydis__cache_free(&without.dec, &hits, &misses);
	mod_module__exit(&with);
	mod_module__exit(&without);
	printf("%lu instructions, %llu from the cache, %lu wrong\n", nr,
	       (unsigned long long)hits, wrong);
	return wrong ? 1 : 0;
}
