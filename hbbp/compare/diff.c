/* Run-to-run difference of two pivot tables and the significance rule (hbbp/compare/diff.h).
 * The join sorts both sides' rows by their joined key text and merges them.
 * Depends on writers/result.h, hbbp/compare/ref.h (which columns are values) and libc; never
 * prints.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/compare/diff.h"
#include "hbbp/compare/ref.h"
#include "util/hbbp_err.h"

#define MAX_KEYS 32

int diff__significant(double a, double a_lo, double a_hi, double b, double b_lo, double b_hi)
{
	double ma, mb;

	if (!isfinite(a) || !isfinite(b) || !isfinite(a_lo) || !isfinite(a_hi) ||
	    !isfinite(b_lo) || !isfinite(b_hi) || a_lo > a || a > a_hi || b_lo > b || b > b_hi)
		return -1;
	if (a == b)
		return 0;
	if (a > b) {
		ma = a - a_lo;
		mb = b_hi - b;
	} else {
		ma = a_hi - a;
		mb = b - b_lo;
	}
	return fabs(a - b) > sqrt(ma * ma + mb * mb);
}

bool diff__value_column(const char *name)
{
	return !strcmp(name, "run_id") || ref_mix__value_column(name);
}

struct side {
	const struct result_table *t;
	int keys[MAX_KEYS];
	size_t nr_keys;
	int count, lo, hi;
	double total;
};

/* One side: its keys and its value column v (count or cycles, and v_lo, v_hi); -HBBP_ENOTFOUND
 * when it has no value in v (no such column, or no row with one). */
static int side_init(struct side *s, const struct result_table *t, const char *v)
{
	char name[64];
	size_t i, r;
	bool any = false;

	memset(s, 0, sizeof(*s));
	s->t = t;
	s->count = result_table__col(t, v);
	snprintf(name, sizeof(name), "%s_lo", v);
	s->lo = result_table__col(t, name);
	snprintf(name, sizeof(name), "%s_hi", v);
	s->hi = result_table__col(t, name);
	if (s->count < 0)
		return strcmp(v, "count") ? -HBBP_ENOTFOUND : -HBBP_EFORMAT;
	for (i = 0; i < t->nr_cols; i++) {
		if (diff__value_column(t->cols[i].name))
			continue;
		if (s->nr_keys == MAX_KEYS)
			return -HBBP_EUSAGE;
		s->keys[s->nr_keys++] = (int)i;
	}
	for (r = 0; r < t->nr_rows; r++) {
		const struct result_cell *c = &result_table__row(t, r)[s->count];
		double x = result_cell__num(c);

		if (isfinite(x))
			s->total += x;
		any |= c->type == RES_REAL || c->type == RES_INT;
	}
	return any || !strcmp(v, "count") ? 0 : -HBBP_ENOTFOUND;
}

static double num(const struct result_table *t, size_t row, int col)
{
	return col < 0 ? NAN : result_cell__num(&result_table__row(t, row)[col]);
}

/* one row of either side */
struct item {
	char *key;
	int side;			/* 0: a, 1: b */
	size_t row;
};

static int item_cmp(const void *pa, const void *pb)
{
	const struct item *a = pa, *b = pb;
	int r = strcmp(a->key, b->key);

	return r ? r : a->side - b->side;
}

/* The key cells of a row, each ended by '\x1f': a malloc'd string, or NULL. */
static char *join_key(const struct side *s, size_t row)
{
	char *buf = strdup(""), *nb;
	size_t len = 0, i;

	for (i = 0; i < s->nr_keys && buf; i++) {
		const struct result_cell *c = &result_table__row(s->t, row)[s->keys[i]];
		char v[32] = "";
		const char *p = c->type == RES_TEXT && c->s ? c->s : v;
		size_t n;

		if (c->type == RES_INT)
			snprintf(v, sizeof(v), "%" PRId64, c->i);
		else if (c->type == RES_REAL)
			snprintf(v, sizeof(v), "%.17g", c->d);
		n = strlen(p);
		nb = realloc(buf, len + n + 2);
		if (!nb) {
			free(buf);
			return NULL;
		}
		buf = nb;
		memcpy(buf + len, p, n);
		len += n;
		buf[len++] = '\x1f';
		buf[len] = 0;
	}
	return buf;
}

/* a key's row of both sides, [0] of a and [1] of b */
struct drow {
	size_t row[2];			/* (size_t)-1: absent */
	double c[2], lo[2], hi[2];	/* absent: 0 */
	int sig;
	const char *key;
};

static int drow_cmp(const void *pa, const void *pb)
{
	const struct drow *x = pa, *y = pb;
	double dx = fabs(x->c[1] - x->c[0]), dy = fabs(y->c[1] - y->c[0]);

	if ((x->sig == 1) != (y->sig == 1))
		return x->sig == 1 ? -1 : 1;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->key, y->key);
}

static void put_real(struct result_cell *c, double v)
{
	if (isfinite(v))
		result_cell__real(c, v);
}

/* The sorted items of both sides into rows (one per key, each side's count scaled to a
 * share with o->shares): 0, or -HBBP_EFORMAT for a key twice on one side. */
static int join_rows(const struct side *s, const struct item *items, size_t n,
		     const struct diff_opts *o, struct drow *rows, size_t *nr_out)
{
	double f[2] = { o->shares && s[0].total > 0 ? 1 / s[0].total : 1,
			o->shares && s[1].total > 0 ? 1 / s[1].total : 1 };
	size_t i, nr = 0;

	for (i = 0; i < n; i++) {
		int sd = items[i].side;
		struct drow *d;

		/* the same key twice on one side (a table that is not a pivot): add up */
		if (nr && !strcmp(rows[nr - 1].key, items[i].key) &&
		    rows[nr - 1].row[sd] == (size_t)-1)
			d = &rows[nr - 1];
		else if (nr && !strcmp(rows[nr - 1].key, items[i].key))
			return -HBBP_EFORMAT;	/* duplicate key: not a pivot table */
		else {
			d = &rows[nr++];	/* calloc'd: an absent side counted 0 */
			d->row[0] = d->row[1] = (size_t)-1;
			d->key = items[i].key;
		}
		d->row[sd] = items[i].row;
		d->c[sd] = f[sd] * num(s[sd].t, d->row[sd], s[sd].count);
		d->lo[sd] = f[sd] * num(s[sd].t, d->row[sd], s[sd].lo);
		d->hi[sd] = f[sd] * num(s[sd].t, d->row[sd], s[sd].hi);
	}
	*nr_out = nr;
	return 0;
}

/* The table name of the rows: the keys, the values v, ratio, significant, the intervals. */
static int diff_table(struct result *out, const char *name, const struct side *s,
		      const struct drow *rows, size_t nr, bool intervals, const char *v)
{
	static const char *const suffix[6] = { "a", "b", "a_lo", "a_hi", "b_lo", "b_hi" };
	const struct result_table *ta = s[0].t;
	const char *cols[MAX_KEYS + 8];
	char spec[MAX_KEYS][160], vs[6][80];
	struct result_table *t;
	size_t i, nc = 0;
	int err;

	for (i = 0; i < s[0].nr_keys; i++) {
		const struct result_column *c = &ta->cols[s[0].keys[i]];

		snprintf(spec[i], sizeof(spec[i]), "%s:%s", c->name,
			 c->type == RES_INT ? "int" : c->type == RES_REAL ? "real" : "text");
		cols[nc++] = spec[i];
	}
	for (i = 0; i < 6; i++)
		snprintf(vs[i], sizeof(vs[i]), "%s_%s:real", v, suffix[i]);
	cols[nc++] = vs[0];
	cols[nc++] = vs[1];
	cols[nc++] = "ratio:real";
	cols[nc++] = "significant:int";
	for (i = 2; i < 6; i++)
		cols[nc++] = vs[i];
	err = result__add_table(out, name, cols, nc, &t);
	for (i = 0; i < nr && !err; i++) {
		const struct drow *d = &rows[i];
		const struct side *ks = &s[d->row[0] == (size_t)-1];
		size_t kr = d->row[d->row[0] == (size_t)-1], k, j = 0;
		struct result_cell *c = result_table__add_row(t);

		if (!c) {
			err = -ENOMEM;
			break;
		}
		for (k = 0; k < ks->nr_keys && !err; k++, j++) {
			const struct result_cell *from = &result_table__row(ks->t, kr)[ks->keys[k]];

			if (from->type == RES_TEXT)
				err = result_cell__text(t, &c[j], from->s);
			else
				c[j] = *from;
		}
		result_cell__real(&c[j++], d->c[0]);
		result_cell__real(&c[j++], d->c[1]);
		if (d->c[0] > 0)
			result_cell__real(&c[j], d->c[1] / d->c[0]);
		j++;
		if (d->sig >= 0)
			result_cell__int(&c[j], d->sig);
		j++;
		if (intervals) {
			put_real(&c[j], d->lo[0]);
			put_real(&c[j + 1], d->hi[0]);
			put_real(&c[j + 2], d->lo[1]);
			put_real(&c[j + 3], d->hi[1]);
		}
	}
	return err;
}

int diff__tables(struct result *out, const char *name, const struct result_table *ta,
		 const struct result_table *tb, const struct diff_opts *o, struct diff_stats *st)
{
	struct side s[2];
	struct item *items = NULL;
	struct drow *rows = NULL;
	size_t i, n = 0, nr = 0;
	const char *v = o->value ? o->value : "count";
	int err;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < 2; i++)
		if ((err = side_init(&s[i], i ? tb : ta, v))) {
			st->lacks = (int)i;
			return err;
		}
	if (s[0].nr_keys != s[1].nr_keys)
		return -HBBP_EUSAGE;
	for (i = 0; i < s[0].nr_keys; i++)
		if (strcmp(ta->cols[s[0].keys[i]].name, tb->cols[s[1].keys[i]].name))
			return -HBBP_EUSAGE;
	st->total_a = s[0].total;
	st->total_b = s[1].total;
	st->intervals = s[0].lo >= 0 && s[0].hi >= 0 && s[1].lo >= 0 && s[1].hi >= 0;
	items = calloc(ta->nr_rows + tb->nr_rows + 1, sizeof(*items));
	rows = calloc(ta->nr_rows + tb->nr_rows + 1, sizeof(*rows));
	if (!items || !rows) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ta->nr_rows + tb->nr_rows; i++) {
		int sd = i >= ta->nr_rows;
		size_t r = sd ? i - ta->nr_rows : i;

		items[n].key = join_key(&s[sd], r);
		if (!items[n].key) {
			err = -ENOMEM;
			goto out;
		}
		items[n].side = sd;
		items[n].row = r;
		n++;
	}
	qsort(items, n, sizeof(*items), item_cmp);
	err = join_rows(s, items, n, o, rows, &nr);
	if (err)
		goto out;
	for (i = 0; i < nr; i++) {
		struct drow *d = &rows[i];

		if (!isfinite(d->c[0]))
			d->c[0] = 0;
		if (!isfinite(d->c[1]))
			d->c[1] = 0;
		d->sig = st->intervals ? diff__significant(d->c[0], d->lo[0], d->hi[0], d->c[1],
							    d->lo[1], d->hi[1]) : -1;
		if (d->sig == 1)
			st->nr_significant++;
		else if (d->sig < 0)
			st->nr_undecided++;
	}
	st->nr_rows = nr;
	if (nr)
		qsort(rows, nr, sizeof(*rows), drow_cmp);
	err = diff_table(out, name, s, rows, nr, st->intervals, v);
out:
	for (i = 0; items && i < n; i++)
		free(items[i].key);
	free(items);
	free(rows);
	return err;
}
