/* Test tool: how much of a run executes in long basic blocks. Reads pmusim's --truth-insns
 * CSV (module,offset,address,count,mnemonic), maps every executed instruction onto its basic
 * block with bbmap (blocks split, as hbbp-convert splits them at LBR targets, at every executed
 * instruction whose count differs from the one before it: an entry from elsewhere), and prints
 * the share of executed instructions in blocks longer than CUTOFF instructions (default 18):
 *   blocklen [-c CUTOFF] INSNS.csv
 *   -> "total N long M share X.XX% blocks B long-blocks LB unmapped U"
 * Depends on bbmap only; knows nothing of pmusim beyond the CSV.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module.h"
#include "util/hbbp_err.h"

struct row {
	char *module;
	uint64_t off, count;
	int mod;		/* index into the module table */
};

#define MAX_MODS 64

int main(int argc, char **argv)
{
	unsigned cutoff = 18;
	const char *path = NULL;
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-c") && a + 1 < argc)
			cutoff = (unsigned)strtoul(argv[++a], NULL, 10);
		else
			path = argv[a];
	}
	if (!path) {
		fprintf(stderr, "usage: blocklen [-c CUTOFF] INSNS.csv\n");
		return 2;
	}
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return 1;
	}
	struct row *rows = NULL;
	size_t n = 0, cap = 0;
	char line[8192];
	char *names[MAX_MODS];
	struct bbmap_module *mods[MAX_MODS];
	int nmods = 0;
	if (!fgets(line, sizeof(line), f)) {
		fprintf(stderr, "%s: empty\n", path);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ','), *c2, *c3, *c4;
		if (!c1 || !(c2 = strchr(c1 + 1, ',')) || !(c3 = strchr(c2 + 1, ',')) ||
		    !(c4 = strchr(c3 + 1, ',')))
			continue;
		*c1 = 0;
		int mi;
		for (mi = 0; mi < nmods; mi++)
			if (!strcmp(names[mi], line))
				break;
		if (mi == nmods) {
			if (nmods == MAX_MODS)
				continue;
			names[nmods] = strdup(line);
			mods[nmods] = NULL;
			if (bbmap_module__open_flags(&mods[nmods], line, NULL, 0))
				mods[nmods] = NULL;
			nmods++;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			rows = realloc(rows, cap * sizeof(*rows));
			if (!rows)
				return 1;
		}
		rows[n].mod = mi;
		rows[n].off = strtoull(c1 + 1, NULL, 0);
		rows[n].count = strtoull(c3 + 1, NULL, 10);
		n++;
	}
	fclose(f);
	/* leaders: an executed instruction whose count differs from its predecessor's */
	for (size_t i = 1; i < n; i++) {
		if (rows[i].mod != rows[i - 1].mod || rows[i].count == rows[i - 1].count)
			continue;
		struct bbmap_module *m = mods[rows[i].mod];
		uint64_t va;
		if (m && !bbmap_module__offset_to_vaddr(m, rows[i].off, &va))
			bbmap_module__add_leader(m, va);
	}
	uint64_t total = 0, longc = 0, unmapped = 0, nblocks = 0, nlong = 0, last_start = 0;
	int last_mod = -1;
	for (size_t i = 0; i < n; i++) {
		struct bbmap_module *m = mods[rows[i].mod];
		const struct bbmap_block *b;
		uint64_t va;
		total += rows[i].count;
		if (!m || bbmap_module__offset_to_vaddr(m, rows[i].off, &va) ||
		    bbmap_module__block_at(m, va, &b)) {
			unmapped += rows[i].count;
			continue;
		}
		if (b->nr_insns > cutoff)
			longc += rows[i].count;
		if (rows[i].mod != last_mod || b->start != last_start) {
			nblocks++;
			nlong += b->nr_insns > cutoff;
			last_mod = rows[i].mod;
			last_start = b->start;
		}
	}
	printf("total %" PRIu64 " long %" PRIu64 " share %.2f%% blocks %" PRIu64
	       " long-blocks %" PRIu64 " unmapped %" PRIu64 "\n", total, longc,
	       total ? 100.0 * (double)longc / (double)total : 0.0, nblocks, nlong, unmapped);
	for (int i = 0; i < nmods; i++) {
		bbmap_module__delete(mods[i]);
		free(names[i]);
	}
	free(rows);
	return 0;
}
