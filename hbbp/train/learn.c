/* Learning the hybrid rule's cutoff (see hbbp/train/learn.h).
 * Depends on hbbp/method/method.h (hbbp_rule__choose), hbbp/compare/ref.h (the truth),
 * hbbp/train/model.h, util/grow.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/method/method.h"
#include "hbbp/train/learn.h"
#include "util/grow.h"
#include "util/hbbp_err.h"

#define TRAIN_MAX_ROWS		(64u << 20)

/* by module base name, then file offset */
static int truth_cmp(const void *a, const void *b)
{
	const struct ref_ip *x = a, *y = b;
	int c = strcmp(ref__basename(x->module), ref__basename(y->module));

	if (c)
		return c;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

int train_truth__load(struct ref_mix **out, const char *path)
{
	int err = ref_csv__read(path, "count", out);

	if (err)
		return err;
	if (!(*out)->nr_ips) {
		pr_err("%s: no instructions (expected pmusim --truth-insns output)", path);
		ref_mix__delete(*out);
		*out = NULL;
		return -HBBP_EFORMAT;
	}
	qsort((*out)->ips, (*out)->nr_ips, sizeof(*(*out)->ips), truth_cmp);
	return 0;
}

double train_truth__count(const struct ref_mix *t, const char *module, uint64_t offset)
{
	struct ref_ip key = { .module = (char *)module, .offset = offset };
	const struct ref_ip *hit = bsearch(&key, t->ips, t->nr_ips, sizeof(*t->ips), truth_cmp);

	return hit ? hit->count : 0;
}

void train_set__init(struct train_set *s)
{
	memset(s, 0, sizeof(*s));
}

void train_set__exit(struct train_set *s)
{
	free(s->b);
	memset(s, 0, sizeof(*s));
}

int train_set__add(struct train_set *s, const struct train_block *b)
{
	if (grow_array((void **)&s->b, &s->cap, sizeof(*s->b), s->n + 1, TRAIN_MAX_ROWS))
		return s->n >= TRAIN_MAX_ROWS ? -HBBP_ELIMIT : -ENOMEM;
	s->b[s->n++] = *b;
	return 0;
}

/* The estimate the converter would take for a code block at cutoff (method.md §6). */
static double rule_estimate(const struct train_block *b, unsigned cutoff)
{
	enum hbbp_source src = hbbp_rule__choose(HBBP_METHOD_HBBP, cutoff, b->len, b->has_e,
						 b->has_l);

	return hbbp_source_is_lbr(src) ? b->lbr : hbbp_source_is_ebs(src) ? b->ebs : 0;
}

/* Mean over runs of sum(len * |choice - exact|) / exact instructions, in percent. */
double train_set__error(const struct train_set *s, unsigned cutoff)
{
	double err[TRAIN_MAX_RUNS] = { 0 }, sum = 0;
	unsigned r;

	for (size_t i = 0; i < s->n; i++)
		err[s->b[i].run] += s->b[i].len * fabs(rule_estimate(&s->b[i], cutoff) -
							s->b[i].exact);
	for (r = 0; r < s->runs; r++)
		sum += s->total[r] > 0 ? err[r] / s->total[r] : 0;
	return s->runs ? 100 * sum / s->runs : 0;
}

void train_set__learn(const struct train_set *s, struct hbbp_model *m, double *errors)
{
	unsigned c, best = HBBP_DEFAULT_CUTOFF;
	double besterr = INFINITY;

	for (c = 0; c <= TRAIN_MAX_CUTOFF; c++) {
		double e = train_set__error(s, c);

		if (errors)
			errors[c] = e;
		/* Ties go to the cutoff nearest the default. */
		if (e < besterr - 1e-12 ||
		    (fabs(e - besterr) <= 1e-12 &&
		     abs((int)c - HBBP_DEFAULT_CUTOFF) < abs((int)best - HBBP_DEFAULT_CUTOFF))) {
			besterr = e;
			best = c;
		}
	}
	memset(m, 0, sizeof(*m));
	m->cutoff = best;
	m->runs = s->runs;
	m->blocks = s->n;
	for (size_t k = 0; k < s->n; k++)
		if (s->b[k].has_l && (!s->b[k].has_e ||
		    fabs(s->b[k].lbr - s->b[k].exact) < fabs(s->b[k].ebs - s->b[k].exact)))
			m->lbr_closer++;
	m->error = besterr;
	m->error_default = train_set__error(s, HBBP_DEFAULT_CUTOFF);
}
