/* The exact counts of a simulated run: the instruction mix (`mnemonic,count`, capstone's
 * mnemonic verbatim) and the per-instruction counts (`module,offset,address,count,mnemonic`),
 * each optionally with a last column `cycles`: the cycles of the timing model the instructions
 * account for (their costs, as the PMU's clock counts them, and the streams' rounding charged
 * to the blocks' last instructions). Aggregates the translation blocks' counters; knows nothing
 * of perf.data.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "samples/pmusim/pmusim.h"
#include "util/hbbp_err.h"

struct sim_addr_count { uint64_t addr; uint64_t count; uint64_t q; uint32_t mn; };

/* Retirements of instruction i of a block, and the quarter cycles they account for. */
static uint64_t sim_truth__count(const struct sim_tb *tb, uint32_t i, const struct sim_pmu *pmu,
				 uint64_t *q)
{
	uint64_t c = tb->nexec - (i == 0 ? tb->ncont : 0);
	*q = pmu ? c * sim_pmu__cost_q(pmu, tb->insns[i].tclass) +
		   (i + 1 == tb->n ? tb->end_pad_q : 0) : 0;
	return c;
}

/* Quarter cycles as a decimal number of cycles, exactly. */
static void sim_truth__cycles(FILE *f, const struct sim_pmu *pmu, uint64_t q)
{
	static const char *const frac[4] = { "", ".25", ".5", ".75" };
	if (pmu)
		fprintf(f, ",%" PRIu64 "%s", q / 4, frac[q % 4]);
	fputc('\n', f);
}

static int sim_cmp_addr(const void *a, const void *b)
{
	const struct sim_addr_count *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Per-address counts, sorted by address, merged over retranslations. */
static int sim_truth__collect(const struct sim_trace *t, const struct sim_pmu *pmu,
			      struct sim_addr_count **out, size_t *nr)
{
	size_t n = 0, k = 0;
	for (const struct sim_tb *tb = sim_trace__tbs(t); tb; tb = tb->all_next)
		n += tb->n;
	struct sim_addr_count *v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (const struct sim_tb *tb = sim_trace__tbs(t); tb; tb = tb->all_next) {
		for (uint32_t i = 0; i < tb->n; i++) {
			uint64_t q, c = sim_truth__count(tb, i, pmu, &q);
			if (!c)
				continue;
			v[k].addr = tb->insns[i].addr;
			v[k].count = c;
			v[k].q = q;
			v[k].mn = tb->insns[i].mn;
			k++;
		}
	}
	qsort(v, k, sizeof(*v), sim_cmp_addr);
	size_t w = 0;
	for (size_t i = 0; i < k; i++) {
		if (w && v[w - 1].addr == v[i].addr) {
			v[w - 1].count += v[i].count;
			v[w - 1].q += v[i].q;
			continue;
		}
		v[w++] = v[i];
	}
	*out = v;
	*nr = w;
	return 0;
}

static int sim_close_checked(FILE *f, const char *tmp, const char *path)
{
	int bad = ferror(f);
	if (fclose(f) || bad) {
		unlink(tmp);
		return -EIO;
	}
	if (rename(tmp, path)) {
		int err = -errno;
		unlink(tmp);
		return err;
	}
	return 0;
}

struct sim_mn_count { const char *name; uint64_t count, q; };

static int sim_cmp_mn(const void *a, const void *b)
{
	const struct sim_mn_count *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

int sim_truth__write_mix(const struct sim_trace *t, const char *path,
			 const struct sim_pmu *pmu)
{
	size_t nmn = sim_trace__nr_mnemonics(t);
	struct sim_mn_count *mc = calloc(nmn ? nmn : 1, sizeof(*mc));
	if (!mc)
		return -ENOMEM;
	for (size_t i = 0; i < nmn; i++)
		mc[i].name = sim_trace__mnemonic(t, (uint32_t)i);
	for (const struct sim_tb *tb = sim_trace__tbs(t); tb; tb = tb->all_next)
		for (uint32_t i = 0; i < tb->n; i++) {
			uint64_t q;
			mc[tb->insns[i].mn].count += sim_truth__count(tb, i, pmu, &q);
			mc[tb->insns[i].mn].q += q;
		}
	qsort(mc, nmn, sizeof(*mc), sim_cmp_mn);
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		free(mc);
		return -errno;
	}
	fprintf(f, "mnemonic,count%s\n", pmu ? ",cycles" : "");
	for (size_t i = 0; i < nmn; i++) {
		if (!mc[i].count)
			continue;
		/* capstone mnemonics hold no comma or quote; quote defensively anyway */
		if (strpbrk(mc[i].name, ",\""))
			fprintf(f, "\"%s\",%" PRIu64, mc[i].name, mc[i].count);
		else
			fprintf(f, "%s,%" PRIu64, mc[i].name, mc[i].count);
		sim_truth__cycles(f, pmu, mc[i].q);
	}
	free(mc);
	return sim_close_checked(f, tmp, path);
}

int sim_truth__write_insns(const struct sim_trace *t, const struct sim_modules *m,
			   const char *path, const struct sim_pmu *pmu)
{
	struct sim_addr_count *v;
	size_t n;
	int err = sim_truth__collect(t, pmu, &v, &n);
	if (err)
		return err;
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		err = -errno;
		free(v);
		return err;
	}
	fprintf(f, "module,offset,address,count,mnemonic%s\n", pmu ? ",cycles" : "");
	for (size_t i = 0; i < n; i++) {
		const struct sim_module *mod = sim_modules__find(m, v[i].addr);
		const char *name = mod ? mod->path : "[unknown]";
		uint64_t off = mod ? v[i].addr - mod->start + mod->pgoff : v[i].addr;
		fprintf(f, "%s,0x%" PRIx64 ",0x%" PRIx64 ",%" PRIu64 ",%s", name, off,
			v[i].addr, v[i].count, sim_trace__mnemonic(t, v[i].mn));
		sim_truth__cycles(f, pmu, v[i].q);
	}
	free(v);
	return sim_close_checked(f, tmp, path);
}
