/* The tables of one recording's HTML report (see hbbp/pivot/report.h).
 * Depends on hbbp/pivot/mix.h, hbbp/pivot/annotate.h and writers/result.h; never prints.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/pivot/report.h"
#include "util/hbbp_err.h"

static int copy_cell(struct result_table *t, struct result_cell *dst, const struct result_cell *src)
{
	if (src->type == RES_TEXT)
		return result_cell__text(t, dst, src->s);
	*dst = *src;	/* a number, or NULL */
	return 0;
}

/* Adds a copy of src named name to out (its rows for which keep says so, at most max;
 * 0: all); *dst gets the new table, *rest (if not NULL) the sum of the counts of the rows
 * left out by max. */
static int copy_table(struct result *out, const char *name, const struct result_table *src,
		      size_t max, bool (*keep)(const struct result_cell *row, void *ctx),
		      void *ctx, struct result_table **dst, double *rest)
{
	int cc = result_table__col(src, "count");
	struct result_table *t = NULL;
	size_t i, j, n = 0;
	int err = result__add_table_from(out, name, NULL, src, &t);

	if (rest)
		*rest = 0;
	for (i = 0; i < src->nr_rows && !err; i++) {
		const struct result_cell *row = result_table__row(src, i);
		struct result_cell *c;

		if (keep && !keep(row, ctx))
			continue;
		if (max && n >= max) {
			if (rest && cc >= 0 && row[cc].type == RES_REAL)
				*rest += row[cc].d;
			continue;
		}
		c = result_table__add_row(t);
		if (!c) {
			err = -ENOMEM;
			break;
		}
		for (j = 0; j < src->nr_cols && !err; j++)
			err = copy_cell(t, &c[j], &row[j]);
		n++;
	}
	if (dst)
		*dst = t;
	return err;
}

/* The mix of the run by keys (comma-separated), its rows [0, top) (0: all) copied to out as
 * table name; *rest (if not NULL) gets the count of the other rows. */
static int mix_by(struct result *out, const char *name, const char *keys, size_t top,
		  const struct hbbp_counts *c, struct hbbp_accum *d,
		  const struct perf_event_info *const *events, const struct report_opts *o,
		  struct result_table **dst, double *rest)
{
	struct hbbp_mix_opts mo;
	struct result *tmp = NULL;
	char err_msg[256];
	int err;

	memset(&mo, 0, sizeof(mo));
	if (o->filters) {
		mo = *o->filters;
		mo.top = 0;
		mo.diagnostics = false;
		mo.taxonomy = NULL;
	}
	mo.mix_only = true;
	err = hbbp_mix__parse_keys(&mo, keys, NULL, err_msg, sizeof(err_msg));
	if (!err)
		err = result__new(&tmp);
	if (!err)
		err = hbbp_mix__build(tmp, c, d, o->ops, events, o->rs, &mo, NULL);
	if (!err)
		err = copy_table(out, name, result__table(tmp, "mix"), top, NULL, NULL, dst, rest);
	result__delete(tmp);
	return err;
}

/* by_mnemonic beyond the top: one "(other)" row with the rest of the count (no interval:
 * the rows' intervals do not add up) */
static int add_other(struct result_table *t, double rest, double total)
{
	int kc = result_table__col(t, "mnemonic"), cc = result_table__col(t, "count");
	int sc = result_table__col(t, "share");
	struct result_cell *row;

	if (kc < 0 || cc < 0)
		return -HBBP_EFORMAT;
	if (!(rest > 0))
		return 0;
	row = result_table__add_row(t);
	if (!row)
		return -ENOMEM;
	result_cell__real(&row[cc], rest);
	if (sc >= 0 && total > 0)
		result_cell__real(&row[sc], rest / total);
	return result_cell__text(t, &row[kc], "(other)");
}

struct fn_set {
	const struct result_table *functions;
	int mod, sym;
	int row_mod, row_sym;
};

static bool same_text(const struct result_cell *a, const struct result_cell *b)
{
	return a->type == RES_TEXT && b->type == RES_TEXT && !strcmp(a->s, b->s);
}

static bool in_top_functions(const struct result_cell *row, void *ctx)
{
	const struct fn_set *s = ctx;
	size_t i;

	for (i = 0; i < s->functions->nr_rows; i++) {
		const struct result_cell *f = result_table__row(s->functions, i);

		if (same_text(&f[s->mod], &row[s->row_mod]) && same_text(&f[s->sym], &row[s->row_sym]))
			return true;
	}
	return false;
}

static int unresolved_table(struct result *out, struct hbbp_accum *d, size_t top)
{
	static const char *const cols[] = { "module:text", "ebs_weight:real", "lbr_weight:real" };
	size_t n = 0, i;
	const struct hbbp_unresolved **v = hbbp_unresolved__weighted(d, true, &n);
	struct result_table *t;
	int err;

	if (!v)
		return -ENOMEM;
	/* heaviest first, then by name: a stable page */
	err = result__add_table(out, "unresolved", cols, 3, &t);
	for (i = 0; i < n && i < top && !err; i++) {
		struct result_cell *c = result_table__add_row(t);
		const char *name = v[i]->dso ? d->code->dso_name(d->code->ctx, v[i]->dso) : NULL;

		if (!c) {
			err = -ENOMEM;
			break;
		}
		err = result_cell__text(t, &c[0], v[i]->dso ? (name ? name : "[unknown]") :
					"[unmapped]");
		result_cell__real(&c[1], v[i]->ebs_weight);
		result_cell__real(&c[2], v[i]->lbr_weight);
	}
	if (!err && n > top)
		err = result__warn(out, "%zu more modules with unresolved weight are not listed",
				   n - top);
	free(v);
	return err;
}

static int copy_meta(struct result *out, const struct result *in)
{
	size_t i;
	int err = 0;

	for (i = 0; i < in->nr_meta && !err; i++) {
		const struct result_kv *kv = &in->meta[i];

		switch (kv->val.type) {
		case RES_TEXT: err = result__meta_text(out, kv->key, kv->val.s); break;
		case RES_INT: err = result__meta_int(out, kv->key, kv->val.i); break;
		case RES_REAL: err = result__meta_real(out, kv->key, kv->val.d); break;
		default: err = result__meta_text(out, kv->key, NULL); break;
		}
	}
	for (i = 0; i < in->nr_warnings && !err; i++)
		err = result__warn(out, "%s", in->warnings[i]);
	return err;
}

int report__build(struct result *out, const struct result *run_res, const struct hbbp_counts *c,
		  struct hbbp_accum *d, const struct perf_event_info *const *events,
		  const struct report_opts *o, annotate_text_fn text, void *ctx)
{
	struct result_table *fn = NULL, *mn = NULL, *all = NULL;
	double rest = 0;
	const struct result_table *ev = result__table(run_res, "events");
	struct annotate_opts ao;
	struct annotate *a = NULL;
	struct result *tmp = NULL;
	struct fn_set fs;
	double total = 0;
	size_t i;
	int err;

	err = copy_meta(out, run_res);
	if (!err)
		err = result__meta_int(out, "report_top_functions", (int64_t)o->top_functions);
	if (!err)
		err = result__meta_int(out, "report_top_insns", (int64_t)o->top_insns);
	if (!err)
		err = result__meta_int(out, "report_top_mnemonics", (int64_t)o->top_mnemonics);
	if (!err && ev)
		err = copy_table(out, "events", ev, 0, NULL, NULL, NULL, NULL);
	if (!err)
		err = unresolved_table(out, d, o->top_modules);
	if (!err)
		err = mix_by(out, "by_category", "category", 0, c, d, events, o, NULL, NULL);
	if (!err)
		err = mix_by(out, "by_isa", "isa", 0, c, d, events, o, NULL, NULL);
	if (!err)
		err = mix_by(out, "by_width", "width", 0, c, d, events, o, NULL, NULL);
	if (!err)
		err = mix_by(out, "by_mnemonic", "mnemonic", o->top_mnemonics, c, d, events, o, &mn,
			     &rest);
	if (!err) {
		const struct result_table *cat = result__table(out, "by_category");
		int cc = result_table__col(cat, "count");

		for (i = 0; cc >= 0 && i < cat->nr_rows; i++)
			total += result_table__row(cat, i)[cc].d;
		err = add_other(mn, rest, total);
	}
	if (!err)
		err = mix_by(out, "functions", "module,symbol", o->top_functions, c, d, events, o,
			     &fn, NULL);
	/* the functions' own mix: every (module, symbol, category) row of a listed function */
	if (!err)
		err = result__new(&tmp);
	if (!err)
		err = mix_by(tmp, "all", "module,symbol,category", 0, c, d, events, o, &all, NULL);
	if (!err) {
		fs.functions = fn;
		fs.mod = result_table__col(fn, "module");
		fs.sym = result_table__col(fn, "symbol");
		fs.row_mod = result_table__col(all, "module");
		fs.row_sym = result_table__col(all, "symbol");
		err = copy_table(out, "function_mix", all, 0, in_top_functions, &fs, NULL, NULL);
	}
	/* the listings of the hottest functions */
	if (!err) {
		memset(&ao, 0, sizeof(ao));
		ao.top = o->top_functions;
		ao.max_insns = o->top_insns;
		err = annotate__build(&a, run_res, &ao, text, ctx);
		if (err == -HBBP_ENOTFOUND)
			err = result__warn(out, "no block tables: no listings");
		else if (!err)
			err = annotate__table(a, out, "annotate", true);
	}
	for (i = 0; a && !err && i < a->nr_funcs; i++)
		if (a->funcs[i].nr_insns < a->funcs[i].nr_insns_all)
			err = result__warn(out, "%s: the hottest %zu of %zu listed",
					   a->funcs[i].symbol, a->funcs[i].nr_insns,
					   a->funcs[i].nr_insns_all);
	if (!err && a && o->filters && (o->filters->comm || o->filters->pid ||
					o->filters->user_only || o->filters->kernel_only))
		err = result__warn(out, "the listings count every thread: --comm, --pid, "
				   "--user-only and --kernel-only apply to the charts and the "
				   "functions table only");
	if (!err && a && !a->has_intervals)
		err = result__warn(out, "the 95%% interval is unavailable: this conversion "
				   "computes no count_lo/count_hi");
	annotate__delete(a);
	result__delete(tmp);
	return err;
}
