/* The interval arithmetic of hbbp/method/interval.h: Student's t quantile and the batch-means
 * interval of one estimate. Depends on libc and libm only.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "hbbp/method/interval.h"

double hbbp_t975(unsigned int df)
{
	/* t(0.975, df) for df = 1..30 (standard tables, 9 significant digits) */
	static const double t[30] = {
		12.7062047, 4.30265273, 3.18244631, 2.77644511, 2.57058184, 2.44691185,
		2.36462425, 2.30600414, 2.26215716, 2.22813885, 2.20098516, 2.17881283,
		2.16036866, 2.14478669, 2.13144955, 2.11990530, 2.10981558, 2.10092204,
		2.09302405, 2.08596345, 2.07961384, 2.07387307, 2.06865761, 2.06389856,
		2.05953855, 2.05552944, 2.05183052, 2.04840714, 2.04522964, 2.04227246,
	};

	if (df == 0)
		df = 1;
	if (df <= 30)
		return t[df - 1];
	/* beyond the table: the normal quantile with the first Cornish-Fisher term */
	return 1.95996398 + (1.95996398 * 1.95996398 * 1.95996398 + 1.95996398) / (4.0 * df);
}

void hbbp_interval__ratio(const struct hbbp_bsum *w, struct hbbp_bsum *f)
{
	double tot = 0;
	unsigned int i;
	bool ok = true;

	for (i = 0; i < HBBP_BATCHES; i++) {
		tot += w->b[i];
		ok &= w->b[i] > 0 && isfinite(w->b[i]);
	}
	for (i = 0; i < HBBP_BATCHES; i++)
		f->b[i] = ok && isfinite(tot) ? tot / w->b[i] : HBBP_BATCHES;
}

void hbbp_interval__batch_means(double est, const double *batch, size_t k, double *lo,
				double *hi)
{
	double x[64];
	size_t i;

	if (k > 64)
		k = 64;
	for (i = 0; i < k; i++)
		x[i] = (double)k * batch[i];
	hbbp_interval__estimates(est, x, k, lo, hi);
}

void hbbp_interval__estimates(double est, const double *x, size_t k, double *lo, double *hi)
{
	double ss = 0, half, t = hbbp_t975(k > 1 ? (unsigned int)(k - 1) : 1);
	size_t i;

	*lo = *hi = 0;
	if (!isfinite(est) || est <= 0 || k < 2)
		return;
	for (i = 0; i < k; i++) {
		double dev = x[i] - est;

		ss += dev * dev;
	}
	half = t * sqrt(ss / (double)(k - 1) / (double)k);
	if (!isfinite(half))
		half = t * est;		/* the one-sample width */
	*lo = est - half > 0 ? est - half : 0;
	*hi = est + half < DBL_MAX ? est + half : DBL_MAX;
}

void hbbp_interval__widen(double est, double rel, double *lo, double *hi)
{
	double d = rel * est;

	if (!(d > 0) || !isfinite(d))
		return;
	*lo = *lo - d > 0 ? *lo - d : 0;
	*hi = *hi + d < DBL_MAX ? *hi + d : DBL_MAX;
}
