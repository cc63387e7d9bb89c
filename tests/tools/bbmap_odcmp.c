/* Test tool: checks bbmap's decoding of a binary against `objdump -d -z --no-show-raw-insn`
 * output read from stdin (an independent disassembler). For every STEP-th function symbol
 * (about MAX functions in all), decoded whole through bbmap_module__block_at, block after block:
 *   - the instruction starts equal objdump's in the function's range (both ways),
 *   - every block starts at an objdump instruction start,
 *   - the instruction after every objdump control transfer starts a block.
 * Usage: bbmap_odcmp FILE MAX < objdump.txt. Prints one "PASS"/"FAIL" line and the counts;
 * details of the first mismatches on stderr.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module.h"
#include "util/hbbp_err.h"

struct od_insn {
	uint64_t addr;
	int branch;
};

static struct od_insn *od;
static size_t nr_od, cap_od;

static int is_prefix(const char *w)
{
	static const char *const p[] = { "bnd", "notrack", "rep", "repz", "repnz", "repe",
					 "repne", "lock", "data16", "data32", "cs", "ds", "ss",
					 "es", "fs", "gs", "addr32", "addr16", "rex", "xacquire",
					 "xrelease", NULL };
	size_t i;

	if (!strncmp(w, "rex.", 4))
		return 1;
	for (i = 0; p[i]; i++)
		if (!strcmp(w, p[i]))
			return 1;
	return 0;
}

/* Control transfers as objdump names them (x86 AT&T syntax, AArch64). */
static int od_branch(const char *mn)
{
	static const char *const b[] = { "call", "ret", "loop", "syscall", "sysenter",
					 "sysexit", "sysret", "int", "iret", "ud2", "ud1", "ud0",
					 "lret", "ljmp", "lcall", "jrcxz", "jecxz", NULL };
	size_t i;

	static const char *const a64[] = { "b", "bl", "br", "blr", "cbz", "cbnz", "tbz", "tbnz",
					   "svc", "hvc", "smc", "eret", "brk", NULL };

	if (mn[0] == 'j' || !strncmp(mn, "b.", 2))
		return 1;
	for (i = 0; a64[i]; i++)
		if (!strcmp(mn, a64[i]))
			return 1;
	for (i = 0; b[i]; i++)
		if (!strncmp(mn, b[i], strlen(b[i])))
			return 1;
	return 0;
}

static void read_objdump(void)
{
	char line[4096];

	while (fgets(line, sizeof(line), stdin)) {
		char *p = line, *end, *tab, word[64];
		uint64_t a;
		int n;

		while (*p == ' ')
			p++;
		a = strtoull(p, &end, 16);
		if (end == p || *end != ':' || end[1] != '\t')
			continue;
		tab = end + 2;
		/* The mnemonic: the first word that is not a prefix. */
		word[0] = 0;
		while (sscanf(tab, "%63s%n", word, &n) == 1) {
			if (!is_prefix(word))
				break;
			tab += n;
			word[0] = 0;
		}
		if (!word[0] && !strstr(end, "(bad)"))
			continue;
		if (nr_od == cap_od) {
			cap_od = cap_od ? cap_od * 2 : 65536;
			od = realloc(od, cap_od * sizeof(*od));
			if (!od)
				exit(3);
		}
		od[nr_od].addr = a;
		od[nr_od].branch = word[0] && od_branch(word);
		nr_od++;
	}
}

static long od_find(uint64_t a)
{
	size_t lo = 0, hi = nr_od;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (od[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo;
}

static size_t nfunc, ninsn, nblk, bad, nbr;
static uint64_t *starts, *bstarts;
static size_t cap, bcap;
static const char *file;

static void check_range(struct bbmap_module *m, const char *name, uint64_t start, uint64_t end)
{
	const struct bbmap_block *b;
	size_t n = 0, nb = 0, k;
	long o;

	if (bbmap_module__block_at(m, start, &b))
		return;
	nfunc++;
	for (; b && b->start < end;) {
		if (nb == bcap) {
			bcap = bcap ? bcap * 2 : 1024;
			bstarts = realloc(bstarts, bcap * sizeof(*bstarts));
		}
		bstarts[nb++] = b->start;
		for (k = 0; k < b->nr_insns; k++) {
			if (n == cap) {
				cap = cap ? cap * 2 : 4096;
				starts = realloc(starts, cap * sizeof(*starts));
			}
			starts[n++] = b->insns[k].addr;
		}
		if (b->end >= end || bbmap_module__block_at(m, b->end, &b))
			break;
	}
	ninsn += n;
	nblk += nb;
	/* Instruction starts: ours == objdump's within the range. */
	o = od_find(start);
	for (k = 0; k < n; k++, o++) {
		if ((size_t)o >= nr_od || od[o].addr != starts[k]) {
			if (bad++ < 10)
				fprintf(stderr, "%s: %s: insn 0x%" PRIx64 " vs objdump 0x%" PRIx64 "\n",
					file, name, starts[k], (size_t)o < nr_od ? od[o].addr : 0);
			break;
		}
		/* Branch per objdump: the next instruction must start a block. */
		if (od[o].branch && k + 1 < n) {
			size_t j;
			int found = 0;

			nbr++;
			for (j = 0; j < nb; j++)
				if (bstarts[j] == starts[k + 1])
					found = 1;
			if (!found && bad++ < 10)
				fprintf(stderr, "%s: %s: no block after branch at 0x%" PRIx64 "\n",
					file, name, starts[k]);
		}
	}
	if (k == n && n && (size_t)o < nr_od && od[o].addr < end &&
	    od[o].addr < starts[n - 1] + 16 && bad++ < 10)
		fprintf(stderr, "%s: %s: objdump has 0x%" PRIx64 " beyond our last insn\n",
			file, name, od[o].addr);
	for (k = 0; k < nb; k++) {
		long q = od_find(bstarts[k]);

		if (((size_t)q >= nr_od || od[q].addr != bstarts[k]) && bad++ < 10)
			fprintf(stderr, "%s: block at 0x%" PRIx64 " is no objdump instruction\n",
				file, bstarts[k]);
	}
}

int main(int argc, char **argv)
{
	struct bbmap_module *m;
	struct bbmap_module_stats st;
	size_t i, step, max, nsym;
	int err;

	if (argc < 3) {
		fprintf(stderr, "usage: bbmap_odcmp FILE MAX < objdump.txt\n");
		return 1;
	}
	file = argv[1];
	read_objdump();
	err = bbmap_module__open_flags(&m, argv[1], NULL, 0);
	if (err) {
		printf("FAIL open %s: %s\n", argv[1], hbbp_strerror(err));
		return 1;
	}
	max = strtoul(argv[2], NULL, 0);
	nsym = bbmap_module__nr_symbols(m);
	step = max && nsym > max ? nsym / max : 1;
	for (i = 0; i < nsym; i += step) {
		const struct bbmap_symbol *s = bbmap_module__symbol(m, i);

		if (s->size)
			check_range(m, s->name, s->start, s->start + s->size);
	}
	if (!nsym) {
		/* Stripped: the functions .eh_frame describes (sub_<hex> pseudo symbols). */
		uint64_t done = 0;

		for (i = 0; i < nr_od; i++) {
			const struct bbmap_symbol *s;

			if (od[i].addr < done)
				continue;
			s = bbmap_module__symbol_at(m, od[i].addr);
			if (!s || s->start != od[i].addr)
				continue;
			check_range(m, s->name, s->start, s->start + s->size);
			done = s->start + s->size;
		}
	}
	bbmap_module__stats(m, &st);
	printf("%s odcmp %s: %zu functions, %zu insns, %zu blocks, %zu branches, %zu mismatches"
	       ", %" PRIu64 " bad\n", bad || !nfunc ? "FAIL" : "PASS", argv[1], nfunc, ninsn,
	       nblk, nbr, bad, st.nr_bad);
	free(starts);
	free(bstarts);
	free(od);
	bbmap_module__delete(m);
	return 0;
}
