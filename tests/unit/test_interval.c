/* Unit tests of the interval arithmetic (hbbp/method/interval.c) on hand-computed values:
 * Student's t quantiles against the printed tables, the batch-means interval of a spread
 * worked out by hand, a row from one sample (wide, finite), rows with no weight and
 * non-finite inputs (never NaN or inf, lo >= 0), the batch hash (every batch in range,
 * each about a tenth of consecutive times), and throttling's factor, its uncertainty and the
 * widening it gives an interval.
 */
#include <math.h>
#include <string.h>

#include "hbbp/method/interval.h"
#include "hbbp/method/throttle.h"
#include "tests/harness.h"

static void test_t975(void)
{
	/* Student t, two-sided 95% (e.g. NIST/SEMATECH handbook table 1.3.6.7.2) */
	CHECK_EQ_DBL(hbbp_t975(1), 12.706, 1e-3);
	CHECK_EQ_DBL(hbbp_t975(9), 2.262, 1e-3);
	CHECK_EQ_DBL(hbbp_t975(30), 2.042, 1e-3);
	CHECK_EQ_DBL(hbbp_t975(100), 1.984, 1e-3);
	CHECK_EQ_DBL(hbbp_t975(1000), 1.962, 1e-3);
}

static void test_spread(void)
{
	/* K = 10 batches of 12, 8, 12, 8, ...: batch estimates 120, 80, ... around 100, each
	 * 20 off: s^2 = 10 * 400 / 9, s / sqrt(10) = sqrt(400 / 9) = 20 / 3,
	 * half width = 2.26215716 * 20 / 3 = 15.0810477 */
	double b[10] = { 12, 8, 12, 8, 12, 8, 12, 8, 12, 8 }, lo, hi;

	hbbp_interval__batch_means(100, b, 10, &lo, &hi);
	CHECK_EQ_DBL(lo, 100 - 15.0810477, 1e-6);
	CHECK_EQ_DBL(hi, 100 + 15.0810477, 1e-6);
	/* all batches equal: no spread, a zero-width interval */
	for (int i = 0; i < 10; i++)
		b[i] = 10;
	hbbp_interval__batch_means(100, b, 10, &lo, &hi);
	CHECK_EQ_DBL(lo, 100, 1e-9);
	CHECK_EQ_DBL(hi, 100, 1e-9);
	/* K = 4 batches 1, 2, 3, 4 (est 10): estimates 4, 8, 12, 16, deviations -6 -2 2 6,
	 * s^2 = 80 / 3, s / 2 = 2.5819889, t(3) = 3.18244631: half = 8.2170410, lo 1.7829590 */
	double c[4] = { 1, 2, 3, 4 };

	hbbp_interval__batch_means(10, c, 4, &lo, &hi);
	CHECK_EQ_DBL(lo, 10 - 8.2170410, 1e-6);
	CHECK_EQ_DBL(hi, 10 + 8.2170410, 1e-6);
	/* a spread wider than the estimate: lo clamps at 0 */
	double d[4] = { 0, 0, 0, 10 };

	hbbp_interval__batch_means(10, d, 4, &lo, &hi);
	CHECK(lo == 0);
	CHECK_EQ_DBL(hi, 10 + 3.18244631 * 10, 1e-6);
}

static void test_degenerate(void)
{
	double b[10] = { 0 }, lo = -1, hi = -1;

	/* one sample of weight 5 in batch 3: s / sqrt(K) = 5, [0, 5 * (1 + t(9))] */
	b[3] = 5;
	hbbp_interval__batch_means(5, b, 10, &lo, &hi);
	CHECK(lo == 0);
	CHECK_EQ_DBL(hi, 5 * (1 + 2.26215716), 1e-6);
	/* no sample at all */
	b[3] = 0;
	hbbp_interval__batch_means(0, b, 10, &lo, &hi);
	CHECK(lo == 0 && hi == 0);
	/* non-finite input: never NaN or inf */
	hbbp_interval__batch_means(NAN, b, 10, &lo, &hi);
	CHECK(lo == 0 && hi == 0);
	hbbp_interval__batch_means(INFINITY, b, 10, &lo, &hi);
	CHECK(isfinite(lo) && isfinite(hi) && lo >= 0);
	b[0] = INFINITY;
	hbbp_interval__batch_means(7, b, 10, &lo, &hi);
	CHECK(isfinite(lo) && isfinite(hi) && lo >= 0 && hi >= 7);
	b[0] = NAN;
	hbbp_interval__batch_means(7, b, 10, &lo, &hi);
	CHECK(isfinite(lo) && isfinite(hi) && lo >= 0 && hi >= 7);
	/* huge values: finite */
	b[0] = 1e308;
	hbbp_interval__batch_means(1e308, b, 10, &lo, &hi);
	CHECK(isfinite(lo) && isfinite(hi) && lo >= 0 && hi >= 1e308);
	/* fewer than two batches: no spread to measure */
	hbbp_interval__batch_means(3, b, 1, &lo, &hi);
	CHECK(lo == 0 && hi == 0);
}

static void test_ratio(void)
{
	/* weights 1 x9 and 2 in the last batch: total 11, factors 11 x9 and 5.5 */
	struct hbbp_bsum w = { { 1, 1, 1, 1, 1, 1, 1, 1, 1, 2 } }, f, e;
	double x[HBBP_BATCHES], lo, hi;
	unsigned int i;

	hbbp_interval__ratio(&w, &f);
	CHECK_EQ_DBL(f.b[0], 11, 1e-12);
	CHECK_EQ_DBL(f.b[8], 11, 1e-12);
	CHECK_EQ_DBL(f.b[9], 5.5, 1e-12);
	/* a row in proportion to the weight of every batch: every batch estimates 11, no spread
	 * (plain batch means would see 10, ..., 10, 20 and a half width of 6.79) */
	e = w;
	for (i = 0; i < HBBP_BATCHES; i++)
		x[i] = e.b[i] * f.b[i];
	hbbp_interval__estimates(11, x, HBBP_BATCHES, &lo, &hi);
	CHECK_EQ_DBL(lo, 11, 1e-9);
	CHECK_EQ_DBL(hi, 11, 1e-9);
	/* a row all in the last batch (one sample, weight 2 of 11): estimates 0 x9 and
	 * 2 * 5.5 = 11 around 2: s^2 = (9 * 4 + 81) / 9 = 13, half = t * sqrt(1.3) = 2.5792 */
	memset(&e, 0, sizeof(e));
	e.b[9] = 2;
	for (i = 0; i < HBBP_BATCHES; i++)
		x[i] = e.b[i] * f.b[i];
	hbbp_interval__estimates(2, x, HBBP_BATCHES, &lo, &hi);
	CHECK(lo == 0);
	CHECK_EQ_DBL(hi, 2 + 2.26215716 * sqrt(1.3), 1e-6);
	/* a batch without weight: no factor, plain batch means (K) */
	w.b[4] = 0;
	hbbp_interval__ratio(&w, &f);
	for (i = 0; i < HBBP_BATCHES; i++)
		CHECK_EQ_DBL(f.b[i], HBBP_BATCHES, 0);
	w.b[4] = NAN;
	hbbp_interval__ratio(&w, &f);
	CHECK_EQ_DBL(f.b[0], HBBP_BATCHES, 0);
}

static void test_batch_hash(void)
{
	unsigned int n[HBBP_BATCHES] = { 0 }, i;
	unsigned int bad = 0;

	for (i = 0; i < 100000; i++) {
		unsigned int b = hbbp_batch__of(1000000ULL + 997ULL * i, 0x401000, 42);

		if (b >= HBBP_BATCHES)
			bad++;
		else
			n[b]++;
	}
	CHECK(bad == 0);
	for (i = 0; i < HBBP_BATCHES; i++)
		CHECK(n[i] > 9500 && n[i] < 10500);
	/* time slots: a span of 6400 in 10 x 64 slots of 10, rounded down to 8 (shift 4);
	 * time 1025 is slot 128, batch 8; consecutive slots feed consecutive batches */
	CHECK_EQ_U64(hbbp_batch__slot(1000, 7400), 4);
	CHECK(hbbp_batch__of_time(1025, 4) == 8);
	CHECK(hbbp_batch__of_time(1033, 4) == 9);
	CHECK(hbbp_batch__of_time(1041, 4) == 0);
	CHECK_EQ_U64(hbbp_batch__slot(1000, 1000), 0);		/* no span: hash */
	CHECK_EQ_U64(hbbp_batch__slot(0, 5000), 0);		/* no header */
	CHECK_EQ_U64(hbbp_batch__slot(1000, 1100), 1);		/* short span: slots of 1 */
	CHECK(hbbp_batch__of_time(1007, 1) == 7);
	/* the same sample always gets the same batch */
	CHECK(hbbp_batch__of(123, 456, 7) == hbbp_batch__of(123, 456, 7));
}

static void test_throttle(void)
{
	struct hbbp_throttle t;
	double frac, spread, lo = 90, hi = 110;

	/* event 0 on cpu 0: samples of period 10 at 100, 200, 300; throttled at 300 (30 in 200
	 * ns: 0.15 a ns), unthrottled at 400 (a gap of 100: 15 at that rate); samples at 500,
	 * 600. Span 500, gap 100: factor 500/400 = 1.25; filled at the rate, (50 + 15)/50 = 1.3,
	 * 1.3/1.25 - 1 = 0.04 apart */
	hbbp_throttle__init(&t);
	CHECK(!hbbp_throttle__sample(&t, 0, 0, 100, 10));
	CHECK(!hbbp_throttle__sample(&t, 0, 0, 200, 10));
	CHECK(!hbbp_throttle__sample(&t, 0, 0, 300, 10));
	CHECK(!hbbp_throttle__record(&t, 0, 0, 300, true));
	CHECK(!hbbp_throttle__record(&t, 0, 0, 400, false));
	CHECK(!hbbp_throttle__sample(&t, 0, 0, 500, 10));
	CHECK(!hbbp_throttle__sample(&t, 0, 0, 600, 10));
	CHECK_EQ_DBL(hbbp_throttle__factor(&t, 0, &frac, &spread), 1.25, 1e-12);
	CHECK_EQ_DBL(frac, 0.2, 1e-12);
	CHECK_EQ_DBL(spread, 0.04, 1e-12);
	/* another event: never throttled, factor 1, no spread */
	CHECK_EQ_DBL(hbbp_throttle__factor(&t, 1, &frac, &spread), 1.0, 0);
	CHECK(spread == 0 && frac == 0);
	hbbp_throttle__exit(&t);
	/* 100 in [90, 110] widened by 4%: [86, 114]; lo stays at least 0; no widening by 0 */
	hbbp_interval__widen(100, 0.04, &lo, &hi);
	CHECK_EQ_DBL(lo, 86, 1e-12);
	CHECK_EQ_DBL(hi, 114, 1e-12);
	lo = 2;
	hbbp_interval__widen(100, 0.04, &lo, &hi);
	CHECK(lo == 0);
	hbbp_interval__widen(100, 0, &lo, &hi);
	CHECK_EQ_DBL(hi, 118, 1e-12);
}

int main(void)
{
	RUN_TEST(test_t975);
	RUN_TEST(test_spread);
	RUN_TEST(test_degenerate);
	RUN_TEST(test_ratio);
	RUN_TEST(test_batch_hash);
	RUN_TEST(test_throttle);
	return TEST_EXIT();
}
