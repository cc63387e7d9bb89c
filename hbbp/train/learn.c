/* Learning the hybrid rule's cutoff (see hbbp/train/learn.h).
 * Depends on hbbp/method/method.h (hbbp_rule__choose), hbbp/train/model.h, util/grow.h.
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

#define TRAIN_MAX_LINE		4096
#define TRAIN_MAX_ROWS		(64u << 20)

struct truth_insn {
	char *module;		/* basename */
	uint64_t offset;
	double count;
};

struct train_truth {
	struct truth_insn *v;
	size_t n, cap;
	double total;
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static int truth_cmp(const void *a, const void *b)
{
	const struct truth_insn *x = a, *y = b;
	int c = strcmp(x->module, y->module);

	if (c)
		return c;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

void train_truth__delete(struct train_truth *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].module);
	free(t->v);
	free(t);
}

/* Module paths contain no comma (pmusim writes them bare). */
int train_truth__load(struct train_truth **out, const char *path)
{
	char line[TRAIN_MAX_LINE];
	struct train_truth *t;
	unsigned long lineno = 0;
	FILE *f;
	int err;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	f = fopen(path, "r");
	if (!f) {
		err = -errno;
		pr_err("%s: %s", path, strerror(errno));
		free(t);
		return err;
	}
	while (fgets(line, sizeof(line), f)) {
		char *fld[5], *p = line, *end;
		struct truth_insn *ti;
		int k;

		lineno++;
		if (lineno == 1 && !strncmp(line, "module,", 7))
			continue;
		for (k = 0; k < 5 && p; k++) {
			fld[k] = p;
			p = strchr(p, ',');
			if (p)
				*p++ = 0;
		}
		if (k < 5)
			goto bad;
		if (grow_array((void **)&t->v, &t->cap, sizeof(*t->v), t->n + 1, TRAIN_MAX_ROWS)) {
			if (t->n >= TRAIN_MAX_ROWS) {
				pr_err("%s: more than %u rows", path, TRAIN_MAX_ROWS);
				err = -HBBP_ELIMIT;
			} else {
				err = -ENOMEM;
			}
			goto fail;
		}
		ti = &t->v[t->n];
		errno = 0;
		ti->offset = strtoull(fld[1], &end, 0);
		if (errno || *end || end == fld[1])
			goto bad;
		ti->count = strtod(fld[3], &end);
		if (end == fld[3] || *end || !(ti->count >= 0))
			goto bad;
		ti->module = strdup(base_name(fld[0]));
		if (!ti->module) {
			err = -ENOMEM;
			goto fail;
		}
		t->total += ti->count;
		t->n++;
	}
	fclose(f);
	if (!t->n) {
		pr_err("%s: no instructions (expected pmusim --truth-insns output)", path);
		train_truth__delete(t);
		return -HBBP_EFORMAT;
	}
	qsort(t->v, t->n, sizeof(*t->v), truth_cmp);
	*out = t;
	return 0;
bad:
	pr_err("%s:%lu: not a module,offset,address,count,mnemonic row", path, lineno);
	err = -HBBP_EFORMAT;
fail:
	train_truth__delete(t);
	fclose(f);
	return err;
}

double train_truth__count(const struct train_truth *t, const char *module, uint64_t offset)
{
	struct truth_insn key = { (char *)base_name(module), offset, 0 };
	const struct truth_insn *hit = bsearch(&key, t->v, t->n, sizeof(*t->v), truth_cmp);

	return hit ? hit->count : 0;
}

double train_truth__total(const struct train_truth *t)
{
	return t->total;
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
