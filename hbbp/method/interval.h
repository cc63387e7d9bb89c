/* How sure is each number (method.md §10): every sample is assigned to one of HBBP_BATCHES
 * batches, every estimate is also summed per batch, and the 95% interval of a row is the
 * spread of the row's estimate over the batches (batch means, Student t with K-1 degrees of
 * freedom). A row sums many blocks and one LBR stack feeds many blocks of a row; taking the
 * spread of the row's own per-batch sums accounts for that correlation, which summing
 * per-block variances would not. A batch's sum is scaled to the whole run by its share of the
 * role's sampled weight (hbbp_interval__ratio): the periods of its samples, also when the
 * LBR sums hold the stacks' time weights period / D(Y) (method.md §5b, hbbp/method/lbr_time.h),
 * which every batch sums as the estimate does.
 * The batches interleave in time: the recording's time span (first to last sample, perf's
 * SAMPLE_TIME header) is cut into at least K * HBBP_BATCH_CYCLES slots of a power-of-two
 * length and slot i feeds batch i mod K, so each batch is a systematic subsample spread over
 * the whole run. Samples taken at a regular period (as a PMU does) count a row with less
 * noise than independent draws would; subsamples that keep that regularity measure it, while
 * a random assignment measures the noise of independent draws (too wide: 98-99% of the rows
 * covered on pmusim instead of 95-97%). Without a time span (pipe mode, no SAMPLE_TIME header,
 * samples without time) the batch is a hash of the sample (its time, else its file offset,
 * IP and task): independent draws, the wider interval.
 * The interval covers the sampling noise only, never the hardware's bias (skid, shadowing,
 * the entry bias of the LBR).
 * Depends on libc and libm only.
 */
#ifndef HBBP_INTERVAL_H
#define HBBP_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

#define HBBP_BATCHES	10	/* K: batches every estimate is also summed over */
#define HBBP_BATCH_CYCLES 64	/* times each batch recurs over the recording's time span */

/* The per-batch sums of one estimate. */
struct hbbp_bsum { double b[HBBP_BATCHES]; };

/* The batch of a sample: a hash of key (its time when the recording has one, else its file
 * offset), ip and tid. The same for a sample however the file is read. */
static inline unsigned int hbbp_batch__of(uint64_t key, uint64_t ip, uint32_t tid)
{
	uint64_t z = key ^ (ip * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)tid << 40);

	z ^= z >> 30;
	z *= 0xbf58476d1ce4e5b9ULL;
	z ^= z >> 27;
	z *= 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (unsigned int)((z >> 32) * HBBP_BATCHES >> 32);
}

/* The time per slot of a recording whose samples span [first, last], as a shift: slots of
 * 2^(shift - 1) (the power of two at or below span / (K * cycles)); 0: no span, hash. */
static inline unsigned int hbbp_batch__slot(uint64_t first, uint64_t last)
{
	uint64_t s;
	unsigned int shift = 1;

	if (!first || last <= first)
		return 0;
	s = (last - first) / ((uint64_t)HBBP_BATCHES * HBBP_BATCH_CYCLES);
	while (shift < 63 && s >> shift)
		shift++;
	return shift;
}

/* The batch of a sample at time in slots of hbbp_batch__slot's shift (> 0). */
static inline unsigned int hbbp_batch__of_time(uint64_t time, unsigned int shift)
{
	return (unsigned int)((time >> (shift - 1)) % HBBP_BATCHES);
}

/* a += f * b, batch by batch */
static inline void hbbp_bsum__axpy(struct hbbp_bsum *a, double f, const struct hbbp_bsum *b)
{
	unsigned int i;

	for (i = 0; i < HBBP_BATCHES; i++)
		a->b[i] += f * b->b[i];
}

/* The ratio factors of a role whose used samples' periods sum to w[i] in batch i: f[i] =
 * (sum of w) / w[i], the batch's sum scaled to the whole by the weight it actually holds
 * (the PMU counts every event: the periods of a role's samples sum to a known total, and a
 * batch that happened to get more of them must not look like more executions). Where some
 * batch holds no weight (a handful of samples) every f[i] = K, plain batch means. */
void hbbp_interval__ratio(const struct hbbp_bsum *w, struct hbbp_bsum *f);

/* The 0.975 quantile of Student's t with df degrees of freedom (df >= 1; large df: the
 * normal's 1.96). */
double hbbp_t975(unsigned int df);

/* The 95% interval [*lo, *hi] of est, an estimate summed over k >= 2 batches as batch[0..k)
 * (sum of batch = est): est -/+ t(k-1) * s / sqrt(k), s^2 = sum (k * batch[i] - est)^2 / (k-1)
 * the spread of the batch estimates around est. lo >= 0 and hi >= est, both finite whatever
 * the input: a row whose weight all came from one batch (one sample) gets s / sqrt(k) = est,
 * so [0, est * (1 + t(k-1))], wide and finite; a non-finite spread gets that width too, a
 * non-finite or negative est [0, 0]. */
void hbbp_interval__batch_means(double est, const double *batch, size_t k, double *lo,
				double *hi);
/* The same from the batch estimates x[0..k) of est (x[i] = k * batch[i] above, or a batch's
 * sum times its ratio factor). */
void hbbp_interval__estimates(double est, const double *x, size_t k, double *lo, double *hi);
/* [lo, hi] widened by rel * est on each side (a relative uncertainty beyond the sampling
 * noise: throttling's, method.md §7), lo not below 0. */
void hbbp_interval__widen(double est, double rel, double *lo, double *hi);

#endif
