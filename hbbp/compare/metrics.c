/* Accuracy metrics for `compare`: formulas and their exact definitions are in hbbp/compare/metrics.h.
 * Depends only on libc and libm.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/compare/metrics.h"

double metrics__error(double ref, double meas)
{
	if (ref <= 0)
		return -1;
	return fabs(ref - meas) / ref;
}

double metrics__weighted_error(const double *ref, const double *meas, size_t n)
{
	double num = 0, den = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		num += fabs(ref[i] - meas[i]);
		den += ref[i];
	}
	if (den <= 0)
		return num > 0 ? INFINITY : 0;
	return num / den;
}

static int dbl_desc(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? 1 : a > b ? -1 : 0;
}

/* Counts within this relative distance are equal: estimates are sums of fractions
 * (period / (n - 1)) and an exact estimate may differ from an integer in its last bits. */
#define REL_EQ 1e-9

static bool near(double a, double b)
{
	return fabs(a - b) <= REL_EQ * fmax(fabs(a), fabs(b));
}

/* Sorted (descending) distinct values of v[0..n) into *out; returns their number or -1. */
static long distinct_desc(const double *v, size_t n, double **out)
{
	double *s = malloc((n + 1) * sizeof(double));
	size_t i, w = 0;

	if (!s)
		return -1;
	if (n)
		memcpy(s, v, n * sizeof(double));
	qsort(s, n, sizeof(double), dbl_desc);
	for (i = 0; i < n; i++)
		if (!w || !near(s[w - 1], s[i]))
			s[w++] = s[i];
	*out = s;
	return (long)w;
}

/* 1 + number of distinct values (sorted descending in d[0..nd)) larger than x and not near
 * it. */
static double level_of(const double *d, long nd, double x)
{
	long lo = 0, hi = nd;	/* first index with d[idx] <= x */

	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (d[mid] > x && !near(d[mid], x))
			lo = mid + 1;
		else
			hi = mid;
	}
	return (double)lo + 1;
}

int metrics__ip(const double *ref_all, size_t n_ref, const double *c, const double *r, size_t m,
		struct metrics_ip *out)
{
	double ns = 0, ni = 0, lo = INFINITY, hi = -INFINITY, sq = 0, cov = 0, od = 0;
	double *dref = NULL, *dmeas = NULL;
	long nref, nmeas;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->m = m;
	for (i = 0; i < m; i++)
		ns += c[i];
	for (i = 0; i < n_ref; i++)
		ni += ref_all[i];
	if (!m || ns <= 0 || ni <= 0)
		return -1;
	nref = distinct_desc(ref_all, n_ref, &dref);
	nmeas = distinct_desc(c, m, &dmeas);
	if (nref < 0 || nmeas < 0) {
		free(dref);
		free(dmeas);
		return -2;
	}
	for (i = 0; i < m; i++) {
		double fc = c[i] / ns, fr = r[i] / ni, dl;

		sq += fc * (fc - fr) * (fc - fr);
		lo = fmin(lo, fmin(fc, fr));
		hi = fmax(hi, fmax(fc, fr));
		cov += r[i];
		dl = level_of(dmeas, nmeas, c[i]) - level_of(dref, nref, r[i]);
		od += fc * dl * dl;
	}
	out->nrmse = hi > lo ? sqrt(sq) / (hi - lo) : 0;
	out->coverage = cov / ni;
	out->order_rms = sqrt(od);
	out->order_dev = out->order_rms / (double)m;
	free(dref);
	free(dmeas);
	return 0;
}
