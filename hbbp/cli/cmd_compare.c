/* hbbp-convert compare --ref REF MIX: the accuracy of an instruction mix against a reference.
 * Reads both (hbbp/compare/ref.h: our CSV/JSON/SQLite, pmusim truth, callgrind, SDE -mix), pivots
 * both by the same key columns, and prints per key the reference count, the measured count
 * and the error, then the paper's average weighted error and, where both sides have
 * instruction addresses, seed 002's NRMSE, sample coverage and order deviation
 * (hbbp/compare/metrics.h). The last line printed is always `average weighted error X.XX%`.
 * Depends on hbbp/compare/ref.h, hbbp/compare/metrics.h and the writers (for -o).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/cli/options.h"
#include "util/hmap.h"
#include "hbbp/compare/metrics.h"
#include "hbbp/compare/ref.h"
#include "util/hbbp_err.h"
#include "writers/result.h"
#include "writers/writer.h"

#define MAX_KEYS 16

struct cmp_row {
	const char *key;	/* joined by '\x1f' */
	double ref, meas;	/* counts, or shares with --normalize */
	double ref_count, meas_count;
};

struct cmp {
	const char *keys[MAX_KEYS];
	size_t nr_keys;
	bool normalize;
	const char *value;	/* the column compared: count or cycles (--value) */
	size_t top;
	struct cmp_row *rows;
	size_t nr;
	double ref_total, meas_total;
	double err;
	size_t only_ref, only_meas;
	double only_ref_w, only_meas_w;
	bool have_ip;
	struct metrics_ip ip;
	size_t ip_ref, ip_meas, ip_common;
};

static const char usage_text[] =
"usage: hbbp-convert compare --ref REF [--by KEYS] [--normalize] [--top N]\n"
"                            [--value count|cycles] [-o OUT.csv|.json] MIX\n"
"REF and MIX: hbbp-convert CSV/JSON/SQLite output, pmusim --truth or --truth-insns\n"
"CSV, valgrind callgrind profile (--dump-instr=yes), Intel SDE -mix output.\n"
"\n";

static int split_keys(struct cmp *c, char *s)
{
	char *save = NULL, *t;

	for (t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (c->nr_keys == MAX_KEYS)
			return -HBBP_EUSAGE;
		c->keys[c->nr_keys++] = t;
	}
	return c->nr_keys ? 0 : -HBBP_EUSAGE;
}

static int row_by_weight(const void *pa, const void *pb)
{
	const struct cmp_row *a = pa, *b = pb;

	if (a->ref != b->ref)
		return a->ref < b->ref ? 1 : -1;
	if (a->meas != b->meas)
		return a->meas < b->meas ? 1 : -1;
	return strcmp(a->key, b->key);
}

/* Merges the two sorted aggregates into c->rows. */
static int merge(struct cmp *c, const struct ref_agg *r, const struct ref_agg *m)
{
	size_t i = 0, j = 0;

	c->rows = calloc(r->nr + m->nr + 1, sizeof(*c->rows));
	if (!c->rows)
		return -ENOMEM;
	c->ref_total = r->total;
	c->meas_total = m->total;
	while (i < r->nr || j < m->nr) {
		struct cmp_row *row = &c->rows[c->nr++];
		int d = i == r->nr ? 1 : j == m->nr ? -1 : strcmp(r->rows[i].key, m->rows[j].key);

		if (d <= 0) {
			row->key = r->rows[i].key;
			row->ref_count = r->rows[i++].count;
		}
		if (d >= 0) {
			row->key = m->rows[j].key;
			row->meas_count = m->rows[j++].count;
		}
		if (d < 0) {
			c->only_ref++;
			c->only_ref_w += row->ref_count;
		} else if (d > 0) {
			c->only_meas++;
			c->only_meas_w += row->meas_count;
		}
		row->ref = c->normalize ? (r->total > 0 ? row->ref_count / r->total : 0)
					: row->ref_count;
		row->meas = c->normalize ? (m->total > 0 ? row->meas_count / m->total : 0)
					 : row->meas_count;
	}
	return 0;
}

/* Keys the two sides share hold most of each side's count, or the comparison is of
 * unrelated inputs (another program, another key): said before the numbers. */
static void overlap_warning(const struct cmp *c, const char *refp, const char *mixp)
{
	double rc = 0, mc = 0;
	size_t i;

	for (i = 0; i < c->nr; i++)
		if (c->rows[i].ref_count > 0 && c->rows[i].meas_count > 0) {
			rc += c->rows[i].ref_count;
			mc += c->rows[i].meas_count;
		}
	rc /= c->ref_total;
	mc /= c->meas_total;
	if (rc < 0.5 || mc < 0.5)
		pr_warn("the keys barely overlap: the keys both have hold %.1f%% of %s's count and "
			"%.1f%% of %s's: are they runs of the same program, pivoted by the same "
			"keys?", 100 * rc, refp, 100 * mc, mixp);
}

static int weighted_error(struct cmp *c)
{
	double *a = malloc(2 * (c->nr + 1) * sizeof(double)), *b;
	size_t i;

	if (!a)
		return -ENOMEM;
	b = a + c->nr + 1;
	for (i = 0; i < c->nr; i++) {
		a[i] = c->rows[i].ref;
		b[i] = c->rows[i].meas;
	}
	c->err = metrics__weighted_error(a, b, c->nr);
	free(a);
	return 0;
}

/* ---- IP level ---- */

static uint64_t module_id(const char **names, size_t *nr, const char *path)
{
	const char *b = hbbp_basename(path, false);
	size_t i;

	for (i = 0; i < *nr; i++)
		if (!strcmp(names[i], b))
			return i;
	if (*nr < 4096)
		names[(*nr)++] = b;
	return i;
}

static int ip_metrics(struct cmp *c, struct ref_mix *ref, struct ref_mix *meas)
{
	struct ref_ip *rips = NULL, *mips = NULL;
	size_t nr_r = 0, nr_m = 0, i, nnames = 0;
	bool own_r = false, own_m = false;
	const char **names = calloc(4096, sizeof(char *));
	double *all = NULL, *cv = NULL, *rv = NULL, *val;
	const uint64_t *key;
	struct hmap h, hm;
	int err = 0;

	hmap__init(&h, 2, sizeof(double));
	hmap__init(&hm, 2, sizeof(double));
	if (!names)
		return -ENOMEM;
	if (ref_mix__ips(ref, NULL, &rips, &nr_r, &own_r) ||
	    ref_mix__ips(meas, ref, &mips, &nr_m, &own_m) || !nr_r || !nr_m)
		goto out;
	for (i = 0; i < nr_r && !err; i++) {
		uint64_t k[2] = { module_id(names, &nnames, rips[i].module), rips[i].addr };
		double *v = hmap__get(&h, k, NULL);

		if (!v)
			err = -ENOMEM;
		else
			*v += rips[i].count;
	}
	for (i = 0; i < nr_m && !err; i++) {
		uint64_t k[2] = { module_id(names, &nnames, mips[i].module), mips[i].addr };
		double *v = hmap__get(&hm, k, NULL);

		if (!v)
			err = -ENOMEM;
		else
			*v += mips[i].count;
	}
	if (err)
		goto out;
	all = malloc((h.nr + 1) * sizeof(double));
	cv = malloc(2 * (hm.nr + 1) * sizeof(double));	/* then rv */
	if (!all || !cv) {
		err = -ENOMEM;
		goto out;
	}
	rv = cv + hm.nr + 1;
	c->ip_ref = c->ip_meas = c->ip_common = 0;
	hmap__for_each(&h, i, key, val)
		all[c->ip_ref++] = *val;
	hmap__for_each(&hm, i, key, val) {
		const double *rr;

		if (*val <= 0)
			continue;
		rr = hmap__find(&h, key);
		cv[c->ip_meas] = *val;
		rv[c->ip_meas++] = rr ? *rr : 0;
		if (rr)
			c->ip_common++;
	}
	if (metrics__ip(all, c->ip_ref, cv, rv, c->ip_meas, &c->ip) == 0)
		c->have_ip = true;
out:
	hmap__exit(&h);
	hmap__exit(&hm);
	if (own_r)
		free(rips);
	if (own_m)
		free(mips);
	free(names);
	free(all);
	free(cv);
	return err;
}

/* ---- output ---- */

static void print_key(const char *key, int width)
{
	char buf[256];
	size_t i;

	for (i = 0; key[i] && i < sizeof(buf) - 1; i++)
		buf[i] = key[i] == '\x1f' ? ',' : key[i];
	buf[i] = 0;
	printf("%-*s", width, buf);
}

static void print_val(const struct cmp *c, double v)
{
	if (c->normalize)
		printf(" %13.4f%%", v * 100);
	else
		printf(" %14.0f", v);
}

static void print_table(const struct cmp *c, const struct ref_mix *ref,
			const struct ref_mix *meas)
{
	size_t i, n = c->nr < c->top ? c->nr : c->top, listed;
	int w = 24;
	double rest_r = 0, rest_m = 0;

	printf("reference: %s (%s)\nmeasured:  %s (%s)\n", ref->path, ref->kind, meas->path,
	       meas->kind);
	if (ref->note)
		printf("reference note: %s\n", ref->note);
	if (meas->note)
		printf("measured note: %s\n", meas->note);
	if (ref->nr_unresolved)
		printf("reference: %zu addresses (%.0f executions) could not be decoded and have "
		       "no key\n", ref->nr_unresolved, ref->unresolved);
	if (meas->nr_unresolved)
		printf("measured: %zu addresses or blocks (%.0f) could not be decoded\n",
		       meas->nr_unresolved, meas->unresolved);
	printf("%-*s %14s %14s %9s\n", w, "key", c->normalize ? "ref share" : "reference",
	       c->normalize ? "meas share" : "measured", "error");
	for (i = 0; i < c->nr; i++) {
		const struct cmp_row *r = &c->rows[i];
		double e = metrics__error(r->ref, r->meas);

		if (i >= n) {
			rest_r += r->ref;
			rest_m += r->meas;
			continue;
		}
		print_key(r->key, w);
		print_val(c, r->ref);
		print_val(c, r->meas);
		if (e < 0)
			printf(" %9s", "n/a");
		else
			printf(" %8.2f%%", e * 100);
		if (r->ref_count == 0)
			printf("  (measured only)");
		else if (r->meas_count == 0)
			printf("  (reference only)");
		putchar('\n');
	}
	if (c->nr > n) {
		char lbl[64];

		snprintf(lbl, sizeof(lbl), "(%zu more keys)", c->nr - n);
		printf("%-*s", w, lbl);
		print_val(c, rest_r);
		print_val(c, rest_m);
		putchar('\n');
	}
	printf("%-*s %14.0f %14.0f\n", w, "total (counts)", c->ref_total, c->meas_total);
	printf("keys: %zu compared, %zu only in the reference (%.0f executions, counted as "
	       "100%% error), %zu only in the measurement (%.0f, added to the error)\n",
	       c->nr, c->only_ref, c->only_ref_w, c->only_meas, c->only_meas_w);
	for (i = 0, listed = 0; i < c->nr; i++)
		if (!c->rows[i].meas_count || !c->rows[i].ref_count) {
			if (listed++ == c->top) {
				printf("  ... (%zu keys on one side only)\n",
				       c->only_ref + c->only_meas);
				break;
			}
			printf("  %s: ", c->rows[i].meas_count ? "measured only" : "reference only");
			print_key(c->rows[i].key, 0);
			printf(" %.0f\n", c->rows[i].meas_count + c->rows[i].ref_count);
		}
	if (c->have_ip)
		printf("IP level (seed 002): %zu reference addresses, %zu measured, %zu common: "
		       "weighted NRMSE %.4f, sample coverage %.4f, order deviation %.6f "
		       "(weighted RMS level deviation %.4f)\n",
		       c->ip_ref, c->ip_meas, c->ip_common, c->ip.nrmse, c->ip.coverage,
		       c->ip.order_dev, c->ip.order_rms);
	printf("average weighted error %.2f%%\n", c->err * 100);
}

static int write_out(const struct cmp *c, const struct ref_mix *ref, const struct ref_mix *meas,
		     const char *path, const char *by)
{
	const char *cols[MAX_KEYS + 7];
	char colbuf[MAX_KEYS][80];
	struct result_table *t;
	struct result *res;
	enum writer_format fmt = writer_format_from_path(path);
	size_t i, k, nc = 0;
	int err;

	if (fmt == WRITER_NONE || !writer_format_is_file(fmt) || fmt == WRITER_SQLITE)
		fmt = strcmp(path, "-") ? WRITER_NONE : WRITER_CSV;
	if (fmt == WRITER_NONE) {
		pr_err("%s: output must be .csv, .json or .jsonl", path);
		return -HBBP_EUSAGE;
	}
	if ((err = result__new(&res)))
		return err;
	for (k = 0; k < c->nr_keys; k++) {
		snprintf(colbuf[k], sizeof(colbuf[k]), "%s:text", c->keys[k]);
		cols[nc++] = colbuf[k];
	}
	cols[nc++] = "reference:real";
	cols[nc++] = "measured:real";
	cols[nc++] = "abs_diff:real";
	cols[nc++] = "error:real";
	cols[nc++] = "reference_count:real";
	cols[nc++] = "measured_count:real";
	err = result__add_table(res, "mix", cols, nc, &t);
	err = err ? err : result__meta_text(res, "reference", ref->path);
	err = err ? err : result__meta_text(res, "reference_kind", ref->kind);
	err = err ? err : result__meta_text(res, "measured", meas->path);
	err = err ? err : result__meta_text(res, "measured_kind", meas->kind);
	err = err ? err : result__meta_text(res, "by", by);
	err = err ? err : result__meta_int(res, "normalize", c->normalize);
	err = err ? err : result__meta_real(res, "reference_total", c->ref_total);
	err = err ? err : result__meta_real(res, "measured_total", c->meas_total);
	err = err ? err : result__meta_int(res, "keys_only_in_reference", (int64_t)c->only_ref);
	err = err ? err : result__meta_int(res, "keys_only_in_measured", (int64_t)c->only_meas);
	err = err ? err : result__meta_real(res, "average_weighted_error", c->err);
	if (!err && c->have_ip) {
		err = result__meta_real(res, "ip_nrmse", c->ip.nrmse);
		err = err ? err : result__meta_real(res, "ip_sample_coverage", c->ip.coverage);
		err = err ? err : result__meta_real(res, "ip_order_deviation", c->ip.order_dev);
		err = err ? err : result__meta_real(res, "ip_order_rms", c->ip.order_rms);
	}
	for (i = 0; i < c->nr && !err; i++) {
		const struct cmp_row *r = &c->rows[i];
		struct result_cell *cell = result_table__add_row(t);
		const char *p = r->key;
		char part[4096];
		double e = metrics__error(r->ref, r->meas);

		if (!cell) {
			err = -ENOMEM;
			break;
		}
		for (k = 0; k < c->nr_keys && !err; k++) {
			size_t l = strcspn(p, "\x1f");

			snprintf(part, sizeof(part), "%.*s", (int)l, p);
			p += l + !!p[l];
			cell = result_table__row(t, i);
			err = result_cell__text(t, &cell[k], part);
		}
		cell = result_table__row(t, i);
		result_cell__real(&cell[k++], r->ref);
		result_cell__real(&cell[k++], r->meas);
		result_cell__real(&cell[k++], fabs(r->ref - r->meas));
		if (e >= 0)
			result_cell__real(&cell[k], e);
		k++;
		result_cell__real(&cell[k++], r->ref_count);
		result_cell__real(&cell[k++], r->meas_count);
	}
	if (!err)
		err = writer__write(res, path, fmt, &(struct writer_opts){
			.inputs = (const char *const[]){ ref->path, meas->path }, .nr_inputs = 2 });
	if (err)
		pr_err("%s: cannot write: %s", path, hbbp_strerror(err));
	result__delete(res);
	return err;
}

static const char *default_key(const struct ref_mix *r, const struct ref_mix *m)
{
	static const char *const pref[] = { "mnemonic", "iclass" };
	size_t i;

	for (i = 0; i < 2; i++)
		if (ref_mix__has_key(r, pref[i]) && ref_mix__has_key(m, pref[i]))
			return pref[i];
	for (i = 0; i < r->nr_cols; i++)
		if (ref_mix__has_key(m, r->cols[i]))
			return r->cols[i];
	return "mnemonic";
}

/* Reads both sides, aggregates them by the keys and compares: 0 or a negative error. */
static int compare(struct cmp *c, const char *refp, const char *mixp, const char *by,
		   const char *outp)
{
	struct ref_mix *ref = NULL, *meas = NULL;
	struct ref_agg ar = { 0 }, am = { 0 };
	char bybuf[1024];
	int err;
	size_t k;

	if ((err = ref_mix__read(refp, c->value, &ref)) ||
	    (err = ref_mix__read(mixp, c->value, &meas)))
		goto out;
	snprintf(bybuf, sizeof(bybuf), "%s", by ? by : default_key(ref, meas));
	if (split_keys(c, bybuf)) {
		pr_err("--by: '%s': at most %d keys, comma-separated", bybuf, MAX_KEYS);
		err = -HBBP_EUSAGE;
		goto out;
	}
	for (k = 0; k < c->nr_keys; k++) {
		const struct ref_mix *lacks = !ref_mix__has_key(ref, c->keys[k]) ? ref :
					      !ref_mix__has_key(meas, c->keys[k]) ? meas : NULL;

		if (lacks) {
			pr_err("%s: has no key column '%s' (%s); both sides need every --by key",
			       lacks->path, c->keys[k], lacks->kind);
			err = -HBBP_ENOTFOUND;
			goto out;
		}
	}
	if ((err = ref_mix__aggregate(ref, c->keys, c->nr_keys, &ar)) ||
	    (err = ref_mix__aggregate(meas, c->keys, c->nr_keys, &am)) || (err = merge(c, &ar, &am)) ||
	    (err = weighted_error(c)) || (err = ip_metrics(c, ref, meas)))
		goto out;
	if (!(c->ref_total > 0) || !(c->meas_total > 0)) {
		pr_err("%s: counts nothing (total %g): nothing to compare",
		       c->ref_total > 0 ? mixp : refp, c->ref_total > 0 ? c->meas_total : c->ref_total);
		err = -HBBP_EFORMAT;
		goto out;
	}
	if (!isfinite(c->ref_total) || !isfinite(c->meas_total)) {	/* no inf% errors */
		pr_err("%s: its counts add up beyond a double's range",
		       isfinite(c->ref_total) ? mixp : refp);
		err = -HBBP_EFORMAT;
		goto out;
	}
	overlap_warning(c, refp, mixp);
	qsort(c->rows, c->nr, sizeof(*c->rows), row_by_weight);
	if (outp && (err = write_out(c, ref, meas, outp, bybuf)))
		goto out;
	print_table(c, ref, meas);
out:
	ref_agg__exit(&ar);
	ref_agg__exit(&am);
	ref_mix__delete(ref);
	ref_mix__delete(meas);
	return err;
}

int cmd_compare(int argc, char **argv)
{
	struct cli_args a;
	struct cmp c = { 0 };
	int rc = cli_args__parse(&a, CLI_COMPARE, usage_text, argc, argv), err;

	if (rc || a.done || (rc = cli_check_output("-o", a.output)))
		goto out;
	if (a.refs.nr != 1 || a.nr_operands != 1) {
		pr_err("compare: %s", a.refs.nr != 1 ? "one --ref REF" : "one MIX to compare");
		rc = HBBP_EXIT_USAGE;
		goto out;
	}
	c.normalize = a.normalize;
	c.value = a.cycles_value ? "cycles" : "count";
	c.top = a.top;
	err = compare(&c, a.refs.v[0], a.operands[0], a.by, a.output);
	free(c.rows);
	ref_decode__exit();
	rc = hbbp_exit_code(err);
out:
	cli_args__exit(&a);
	return rc;
}
