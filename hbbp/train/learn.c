/* The hybrid-rule model (hbbp/train/model.h): learning its cutoff, reading and writing its
 * file (never printing but through hbbp_log, never exiting).
 * Depends on hbbp/method/method.h (hbbp_rule__choose), hbbp/compare/ref.h (the truth),
 * util/grow.h, util/hbbp_err.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/method/method.h"
#include "hbbp/train/model.h"
#include "util/grow.h"
#include "util/hbbp_err.h"

#define MODEL_MAX_BYTES	(64 * 1024)
#define MODEL_MAX_LINE	256
#define TRAIN_MAX_ROWS		(64u << 20)

/* by module base name, then file offset */
static int truth_cmp(const void *a, const void *b)
{
	const struct ref_ip *x = a, *y = b;
	int c = strcmp(hbbp_basename(x->module, false), hbbp_basename(y->module, false));

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
static double train_set__error(const struct train_set *s, unsigned cutoff)
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

/* ---- the model file ---- */

static int parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0 && v < 1e9))
		return -1;
	*out = v;
	return 0;
}

int hbbp_model__load(const char *path, struct hbbp_model *m, char *err, size_t errlen)
{
	char line[MODEL_MAX_LINE + 2];
	unsigned long v, lineno = 0;
	size_t total = 0;
	int have_magic = 0, have_cutoff = 0, rc = 0;
	const char *badkey = "";
	FILE *f;

	memset(m, 0, sizeof(*m));
	m->error = m->error_default = -1;
	f = fopen(path, "r");
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		char *key, *val, *sp;

		lineno++;
		total += n;
		if (total > MODEL_MAX_BYTES) {
			snprintf(err, errlen, "%s: larger than %d bytes", path, MODEL_MAX_BYTES);
			rc = -HBBP_ELIMIT;
			goto out;
		}
		if (n && line[n - 1] == '\n')
			line[--n] = 0;
		else if (!feof(f)) {
			snprintf(err, errlen, "%s:%lu: line longer than %d bytes", path, lineno,
				 MODEL_MAX_LINE);
			rc = -HBBP_EFORMAT;
			goto out;
		}
		if (n && line[n - 1] == '\r')
			line[--n] = 0;
		if (!n || line[0] == '#')
			continue;
		key = line;
		sp = strchr(line, ' ');
		if (!sp)
			goto bad;
		*sp = 0;
		val = sp + 1;
		badkey = key;
		if (!have_magic) {
			if (strcmp(key, "hbbp-model") || strcmp(val, "1")) {
				snprintf(err, errlen, "%s:%lu: not an hbbp-model 1 file", path, lineno);
				rc = -HBBP_EFORMAT;
				goto out;
			}
			have_magic = 1;
		} else if (!strcmp(key, "cutoff")) {
			if (have_cutoff) {	/* which one would apply? neither silently */
				snprintf(err, errlen, "%s:%lu: a second 'cutoff' line", path, lineno);
				rc = -HBBP_EFORMAT;
				goto out;
			}
			if (parse_ulong(val, HBBP_MODEL_MAX_CUTOFF, &v))
				goto bad;
			m->cutoff = (unsigned)v;
			have_cutoff = 1;
		} else if (!strcmp(key, "runs")) {
			if (parse_ulong(val, (unsigned long)-1, &m->runs))
				goto bad;
		} else if (!strcmp(key, "blocks")) {
			if (parse_ulong(val, (unsigned long)-1, &m->blocks))
				goto bad;
		} else if (!strcmp(key, "lbr_closer")) {
			if (parse_ulong(val, (unsigned long)-1, &m->lbr_closer))
				goto bad;
		} else if (!strcmp(key, "error")) {
			if (parse_double(val, &m->error))
				goto bad;
		} else if (!strcmp(key, "error_default")) {
			if (parse_double(val, &m->error_default))
				goto bad;
		} else {
			goto bad;
		}
	}
	if (ferror(f)) {
		rc = -EIO;
		snprintf(err, errlen, "%s: read error", path);
	} else if (!have_magic || !have_cutoff) {
		rc = -HBBP_EFORMAT;
		snprintf(err, errlen, "%s: %s", path,
			 have_magic ? "no 'cutoff' line" : "not an hbbp-model 1 file");
	}
out:
	fclose(f);
	return rc;
bad:
	snprintf(err, errlen, "%s:%lu: bad line '%s'", path, lineno, badkey);
	fclose(f);
	return -HBBP_EFORMAT;
}

int hbbp_model__text(const struct hbbp_model *m, char *buf, size_t size)
{
	char e[400] = "", d[400] = "";	/* any double */
	int n;

	if (m->error >= 0)
		snprintf(e, sizeof(e), "error %.4f\n", m->error);
	if (m->error_default >= 0)
		snprintf(d, sizeof(d), "error_default %.4f\n", m->error_default);
	n = snprintf(buf, size, "# hybrid rule learned by hbbp-convert train: LBR for blocks of "
		     "at most\n# 'cutoff' instructions, else EBS (format: hbbp/train/model.h)\n"
		     "hbbp-model 1\ncutoff %u\nruns %lu\nblocks %lu\nlbr_closer %lu\n%s%s",
		     m->cutoff, m->runs, m->blocks, m->lbr_closer, e, d);
	return n < 0 || (size_t)n >= size ? -ENOSPC : 0;
}
