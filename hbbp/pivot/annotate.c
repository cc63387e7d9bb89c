/* Per-instruction listings of functions from a conversion's result tables (see
 * hbbp/pivot/annotate.h). The ids of the tables are checked against their sizes (a result
 * read from elsewhere cannot index out of bounds).
 * Depends on writers/result.h, hbbp/pivot/mix.h (the filters' matching), util/grow.h and
 * libc; never prints.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/pivot/annotate.h"
#include "hbbp/pivot/mix.h"
#include "util/grow.h"
#include "util/hbbp_err.h"

#define DEFAULT_TOP 5

static const struct result_cell *cell(const struct result_table *t, size_t row, int col)
{
	return col < 0 ? NULL : &result_table__row(t, row)[col];
}

static int64_t cell_int(const struct result_table *t, size_t row, int col, int64_t dflt)
{
	const struct result_cell *c = cell(t, row, col);

	if (!c || c->type == RES_NULL)
		return dflt;
	return c->type == RES_INT ? c->i : c->type == RES_REAL ? (int64_t)c->d : dflt;
}

static double cell_real(const struct result_table *t, size_t row, int col)
{
	return result_cell__num(cell(t, row, col));
}

static const char *cell_text(const struct result_table *t, size_t row, int col)
{
	const struct result_cell *c = cell(t, row, col);

	return c && c->type == RES_TEXT ? c->s : NULL;
}

/* id in 1..n: its index, else (size_t)-1 */
static size_t id_index(int64_t id, size_t n)
{
	return id >= 1 && (uint64_t)id <= n ? (size_t)(id - 1) : (size_t)-1;
}

bool annotate__name_matches(const char *pattern, const char *name)
{
	return !strcmp(pattern, name) || (strpbrk(pattern, "*?[") && !fnmatch(pattern, name, 0));
}

struct sym {
	size_t module;			/* index or -1 */
	const char *name;
	uint64_t start, size;
	double weight;			/* instructions counted in it */
	size_t func;			/* index in a->funcs + 1, 0: not listed */
	size_t idx;
};

struct tabs {
	const struct result_table *mod, *sym, *blk, *ins, *bcy;	/* bcy: NULL without */
	int mod_name, sym_mod, sym_name, sym_addr, sym_size;
	int blk_id, blk_sym, blk_addr, blk_len, blk_count, blk_lo, blk_hi, blk_source, blk_biased,
	    blk_insns;
	int ins_blk, ins_addr, ins_mn, ins_len, ins_src, bcy_cycles;
};

static int tabs_init(struct tabs *t, const struct result *res)
{
	t->mod = result__table(res, "modules");
	t->sym = result__table(res, "symbols");
	t->blk = result__table(res, "blocks");
	t->ins = result__table(res, "instructions");
	t->bcy = result__table(res, "block_cycles");
	if (!t->mod || !t->sym || !t->blk || !t->ins)
		return -HBBP_ENOTFOUND;
	t->bcy_cycles = t->bcy ? result_table__col(t->bcy, "cycles") : -1;
	if (t->bcy && (t->bcy->nr_rows != t->blk->nr_rows || t->bcy_cycles < 0))
		t->bcy = NULL;
	t->mod_name = result_table__col(t->mod, "name");
	t->sym_mod = result_table__col(t->sym, "module_id");
	t->sym_name = result_table__col(t->sym, "name");
	t->sym_addr = result_table__col(t->sym, "address");
	t->sym_size = result_table__col(t->sym, "size");
	t->blk_id = result_table__col(t->blk, "block_id");
	t->blk_sym = result_table__col(t->blk, "symbol_id");
	t->blk_addr = result_table__col(t->blk, "address");
	t->blk_len = result_table__col(t->blk, "length");
	t->blk_count = result_table__col(t->blk, "executions");
	t->blk_lo = result_table__col(t->blk, "executions_lo");
	t->blk_hi = result_table__col(t->blk, "executions_hi");
	t->blk_insns = result_table__col(t->blk, "instructions");
	t->blk_source = result_table__col(t->blk, "source");
	t->blk_biased = result_table__col(t->blk, "biased");
	t->ins_blk = result_table__col(t->ins, "block_id");
	t->ins_addr = result_table__col(t->ins, "address");
	t->ins_mn = result_table__col(t->ins, "mnemonic");
	t->ins_len = result_table__col(t->ins, "length");
	t->ins_src = result_table__col(t->ins, "srcline");
	if (t->mod_name < 0 || t->sym_name < 0 || t->sym_addr < 0 || t->blk_id < 0 ||
	    t->blk_sym < 0 || t->blk_addr < 0 || t->blk_len < 0 || t->blk_count < 0 ||
	    t->blk_insns < 0 || t->ins_blk < 0 || t->ins_addr < 0)
		return -HBBP_EFORMAT;
	return 0;
}

static int weight_cmp(const void *pa, const void *pb)
{
	const struct sym *a = *(const struct sym *const *)pa, *b = *(const struct sym *const *)pb;

	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int insn_cmp(const void *pa, const void *pb)
{
	const struct annotate_insn *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	/* the block that starts at the address first */
	if (a->block_start != b->block_start)
		return a->block_start ? -1 : 1;
	return a->block_addr < b->block_addr ? -1 : a->block_addr > b->block_addr;
}

static int count_cmp(const void *pa, const void *pb)
{
	const struct annotate_insn *a = pa, *b = pb;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int func_add_insn(struct annotate_func *f, size_t *alloc, const struct annotate_insn *in)
{
	if (grow_one((void **)&f->insns, alloc, sizeof(*f->insns), f->nr_insns))
		return -ENOMEM;
	f->insns[f->nr_insns++] = *in;
	return 0;
}

/* Sorts by address, adds up instructions listed by two blocks, keeps the max_insns hottest,
 * gives each its text. */
static int func_finish(struct annotate_func *f, size_t max_insns, annotate_text_fn text,
		       void *ctx)
{
	size_t i, n = 0;

	if (f->nr_insns)
		qsort(f->insns, f->nr_insns, sizeof(*f->insns), insn_cmp);
	for (i = 0; i < f->nr_insns; i++) {
		struct annotate_insn *in = &f->insns[i];

		if (n && f->insns[n - 1].addr == in->addr) {
			struct annotate_insn *p = &f->insns[n - 1];

			p->count += in->count;
			p->lo += in->lo;
			p->hi += in->hi;
			continue;
		}
		f->insns[n++] = *in;
	}
	f->nr_insns = n;
	f->nr_insns_all = n;
	f->count = 0;
	for (i = 0; i < n; i++)
		f->count += f->insns[i].count;
	if (max_insns && n > max_insns) {
		qsort(f->insns, n, sizeof(*f->insns), count_cmp);
		for (i = max_insns; i < n; i++)
			f->count_cut += f->insns[i].count;
		f->nr_insns = max_insns;
		qsort(f->insns, f->nr_insns, sizeof(*f->insns), insn_cmp);
	}
	for (i = 0; i < f->nr_insns; i++) {
		struct annotate_insn *in = &f->insns[i];
		char buf[256];

		if (!text || text(ctx, f->module_name, in->addr, buf, sizeof(buf)))
			snprintf(buf, sizeof(buf), "%s", in->mnemonic ? in->mnemonic : "?");
		in->text = strdup(buf);
		if (!in->text)
			return -ENOMEM;
	}
	return 0;
}

/* Whether the function of symbol s is listed: in the modules and names asked, or with
 * instructions counted. */
static bool sym_listed(const struct annotate_opts *o, const struct tabs *t, const struct sym *s)
{
	const char *mod;
	size_t j;

	if (s->module == (size_t)-1 || !s->name)
		return false;
	mod = cell_text(t->mod, s->module, t->mod_name);
	if (!mod)
		return false;
	if (o->module && !hbbp_mix__list_has(o->module, mod) &&
	    !hbbp_mix__list_has(o->module, hbbp_basename(mod, true)))
		return false;
	for (j = 0; j < o->nr_symbols; j++)
		if (annotate__name_matches(o->symbols[j], s->name))
			return true;
	return !o->nr_symbols && s->weight > 0;
}

/* The instruction of row i of the instructions, in block row br. */
static void insn_of(const struct tabs *t, size_t i, size_t br, bool intervals,
		    struct annotate_insn *in)
{
	double c = cell_real(t->blk, br, t->blk_count);

	memset(in, 0, sizeof(*in));
	in->addr = (uint64_t)cell_int(t->ins, i, t->ins_addr, 0);
	in->len = (unsigned)cell_int(t->ins, i, t->ins_len, 0);
	in->count = isfinite(c) ? c : 0;
	in->lo = intervals ? cell_real(t->blk, br, t->blk_lo) : NAN;
	in->hi = intervals ? cell_real(t->blk, br, t->blk_hi) : NAN;
	in->mnemonic = cell_text(t->ins, i, t->ins_mn);
	in->srcline = cell_text(t->ins, i, t->ins_src);
	if (in->srcline && !*in->srcline)
		in->srcline = NULL;
	in->block_addr = (uint64_t)cell_int(t->blk, br, t->blk_addr, 0);
	in->block_start = in->block_addr == in->addr;
	in->source = cell_text(t->blk, br, t->blk_source);
	in->biased = cell_int(t->blk, br, t->blk_biased, 0) != 0;
	in->block_len = (unsigned)cell_int(t->blk, br, t->blk_len, 0);
	in->block_cycles = t->bcy ? cell_real(t->bcy, br, t->bcy_cycles) : NAN;
}

int annotate__build(struct annotate **out, const struct result *res,
		    const struct annotate_opts *o, annotate_text_fn text, void *ctx)
{
	struct annotate *a;
	struct tabs t;
	struct sym *syms = NULL, **order = NULL;
	size_t *blk_row = NULL, *allocs = NULL;
	size_t i, nr_syms, nr_blks, nr_mods, top = o->top ? o->top : DEFAULT_TOP;
	int err;

	*out = NULL;
	err = tabs_init(&t, res);
	if (err)
		return err;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->has_intervals = t.blk_lo >= 0 && t.blk_hi >= 0;
	nr_syms = t.sym->nr_rows;
	nr_blks = t.blk->nr_rows;
	nr_mods = t.mod->nr_rows;
	syms = calloc(nr_syms + 1, sizeof(*syms));
	order = calloc(nr_syms + 1, sizeof(*order));
	blk_row = calloc(nr_blks + 1, sizeof(*blk_row));
	if (!syms || !order || !blk_row) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr_syms; i++) {
		syms[i].module = id_index(cell_int(t.sym, i, t.sym_mod, 0), nr_mods);
		syms[i].name = cell_text(t.sym, i, t.sym_name);
		syms[i].start = (uint64_t)cell_int(t.sym, i, t.sym_addr, 0);
		syms[i].size = (uint64_t)cell_int(t.sym, i, t.sym_size, 0);
		syms[i].idx = i;
	}
	/* block id -> row (ids are 1..n in the tables we build; anything else is skipped) */
	for (i = 0; i < nr_blks; i++)
		blk_row[i] = (size_t)-1;
	for (i = 0; i < nr_blks; i++) {
		size_t bi = id_index(cell_int(t.blk, i, t.blk_id, 0), nr_blks);
		size_t si = id_index(cell_int(t.blk, i, t.blk_sym, 0), nr_syms);
		double c = cell_real(t.blk, i, t.blk_count);
		double n = cell_real(t.blk, i, t.blk_insns);
		int64_t len = cell_int(t.blk, i, t.blk_len, 0);

		if (bi != (size_t)-1)
			blk_row[bi] = i;
		/* a pseudo block (no code, no length) has instructions, no executions */
		a->total += isfinite(n) ? n : 0;
		if (!isfinite(c) || len <= 0)
			continue;
		if (si != (size_t)-1)
			syms[si].weight += c * (double)len;
	}
	/* the functions to list */
	for (i = 0; i < nr_syms; i++)
		if (sym_listed(o, &t, &syms[i]))
			order[a->nr_candidates++] = &syms[i];
	if (a->nr_candidates)
		qsort(order, a->nr_candidates, sizeof(*order), weight_cmp);
	a->nr_funcs = o->nr_symbols ? a->nr_candidates :
		      a->nr_candidates < top ? a->nr_candidates : top;
	a->funcs = calloc(a->nr_funcs + 1, sizeof(*a->funcs));
	allocs = calloc(a->nr_funcs + 1, sizeof(*allocs));
	if (!a->funcs || !allocs) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < a->nr_funcs; i++) {
		struct annotate_func *f = &a->funcs[i];

		order[i]->func = i + 1;
		f->module_name = cell_text(t.mod, order[i]->module, t.mod_name);
		f->module = hbbp_basename(f->module_name, true);
		f->symbol = order[i]->name;
		f->start = order[i]->start;
		f->size = order[i]->size;
	}
	/* the instructions of their blocks */
	for (i = 0; i < t.ins->nr_rows && !err; i++) {
		size_t bi = id_index(cell_int(t.ins, i, t.ins_blk, 0), nr_blks), br, si;
		struct annotate_insn in;

		if (bi == (size_t)-1 || (br = blk_row[bi]) == (size_t)-1)
			continue;
		si = id_index(cell_int(t.blk, br, t.blk_sym, 0), nr_syms);
		if (si == (size_t)-1 || !syms[si].func)
			continue;
		insn_of(&t, i, br, a->has_intervals, &in);
		a->has_cycles |= isfinite(in.block_cycles);
		err = func_add_insn(&a->funcs[syms[si].func - 1], &allocs[syms[si].func - 1], &in);
	}
	for (i = 0; i < a->nr_funcs && !err; i++)
		err = func_finish(&a->funcs[i], o->max_insns, text, ctx);
out:
	free(syms);
	free(order);
	free(blk_row);
	free(allocs);
	if (err) {
		annotate__delete(a);
		return err;
	}
	*out = a;
	return 0;
}

void annotate__delete(struct annotate *a)
{
	size_t i, j;

	if (!a)
		return;
	for (i = 0; i < a->nr_funcs; i++) {
		for (j = 0; j < a->funcs[i].nr_insns; j++)
			free(a->funcs[i].insns[j].text);
		free(a->funcs[i].insns);
	}
	free(a->funcs);
	free(a);
}

int annotate__table(const struct annotate *a, struct result *res, const char *name,
		    bool with_bias)
{
	static const char *const cols[] = {
		"module:text", "symbol:text", "address:text", "count:real", "count_lo:real",
		"count_hi:real", "instruction:text", "block:text", "source:text", "srcline:text",
		"block_cycles:real", "block_ipc:real", "biased:int",
	};
	struct result_table *t;
	size_t i, j, nc = sizeof(cols) / sizeof(cols[0]) - !with_bias;
	int err = result__add_table(res, name, cols, nc, &t);

	for (i = 10; !err && i < 12; i++)
		t->cols[i].unset = !a->has_cycles;	/* left out of the text formats */
	for (i = 0; i < a->nr_funcs && !err; i++) {
		const struct annotate_func *f = &a->funcs[i];

		for (j = 0; j < f->nr_insns && !err; j++) {
			const struct annotate_insn *in = &f->insns[j];
			struct result_cell *c = result_table__add_row(t);
			char buf[64], blk[4096];

			if (!c)
				return -ENOMEM;
			err = result_cell__text(t, &c[0], f->module);
			if (!err)
				err = result_cell__text(t, &c[1], f->symbol);
			snprintf(buf, sizeof(buf), "0x%" PRIx64, in->addr);
			if (!err)
				err = result_cell__text(t, &c[2], buf);
			result_cell__real(&c[3], in->count);
			if (isfinite(in->lo) && isfinite(in->hi)) {
				result_cell__real(&c[4], in->lo);
				result_cell__real(&c[5], in->hi);
			}
			if (!err)
				err = result_cell__text(t, &c[6], in->text);
			snprintf(blk, sizeof(blk), "%s+0x%" PRIx64, f->module, in->block_addr);
			if (!err)
				err = result_cell__text(t, &c[7], blk);
			if (!err)
				err = result_cell__text(t, &c[8], in->source ? in->source : "");
			if (!err && in->srcline)
				err = result_cell__text(t, &c[9], in->srcline);
			if (isfinite(in->block_cycles) && in->block_cycles > 0) {
				result_cell__real(&c[10], in->block_cycles);
				result_cell__real(&c[11], in->block_len * in->count /
						  in->block_cycles);
			}
			if (with_bias)
				result_cell__int(&c[12], in->biased);
		}
	}
	return err;
}
