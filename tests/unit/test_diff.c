/* The significance rule of hbbp-convert diff (hbbp/compare/diff.c) on hand-made intervals,
 * and the join of two small pivot tables (keys on one side only, shares, the sort).
 */
#include <math.h>
#include <stdlib.h>

#include "hbbp/compare/diff.h"
#include "tests/harness.h"

/* Margins facing each other add in quadrature: 3-4-5 triangles decide exactly. */
static void test_diff_rule(void)
{
	/* a = 100 [97, 103], b = 105 [101, 109]: b - a = 5, margins 3 (a up) and 4 (b down):
	 * sqrt(9 + 16) = 5, not beyond: not significant */
	CHECK(diff__significant(100, 97, 103, 105, 101, 109) == 0);
	/* b = 105.001: just beyond */
	CHECK(diff__significant(100, 97, 103, 105.001, 101.001, 109) == 1);
	/* the facing sides count, not the others: a's lower margin is huge, b's upper too */
	CHECK(diff__significant(100, 0, 103, 106, 102, 1000) == 1);
	/* a > b: a's lower margin and b's upper margin */
	CHECK(diff__significant(106, 102, 1000, 100, 0, 103) == 1);
	CHECK(diff__significant(105, 101, 109, 100, 97, 103) == 0);
	/* overlapping intervals can still differ significantly (not the overlap test):
	 * 100 [95, 105] vs 108 [103, 113]: 8 > sqrt(25 + 25) = 7.07 */
	CHECK(diff__significant(100, 95, 105, 108, 103, 113) == 1);
	/* equal estimates never differ; exact zero-width intervals differ when apart */
	CHECK(diff__significant(50, 40, 60, 50, 49, 51) == 0);
	CHECK(diff__significant(1, 1, 1, 2, 2, 2) == 1);
	/* a row absent from one run (0 [0, 0]): significant when the other's lower bound > 0 */
	CHECK(diff__significant(0, 0, 0, 10, 0, 25) == 0);
	CHECK(diff__significant(0, 0, 0, 10, 0.5, 25) == 1);
	/* missing or inconsistent intervals: undecided */
	CHECK(diff__significant(100, NAN, 103, 105, 101, 109) == -1);
	CHECK(diff__significant(100, 101, 103, 105, 101, 109) == -1);
	CHECK(diff__significant(100, 97, 103, 105, 101, INFINITY) == -1);
}

static struct result_table *mk(struct result *r, const char *name, const char *const *keys,
			       const double *v, size_t n, bool iv)
{
	static const char *const cols[] = { "mnemonic:text", "count:real", "count_lo:real",
					    "count_hi:real" };
	struct result_table *t;
	size_t i;

	if (result__add_table(r, name, cols, iv ? 4 : 2, &t))
		return NULL;
	for (i = 0; i < n; i++) {
		struct result_cell *c = result_table__add_row(t);

		result_cell__text(t, &c[0], keys[i]);
		result_cell__real(&c[1], v[3 * i]);
		if (iv) {
			result_cell__real(&c[2], v[3 * i + 1]);
			result_cell__real(&c[3], v[3 * i + 2]);
		}
	}
	return t;
}

static void test_diff_join(void)
{
	static const char *const ka[] = { "add", "mov", "jne" };
	static const char *const kb[] = { "mov", "add", "ret" };
	static const double va[] = { 100, 97, 103, 50, 45, 55, 10, 8, 12 };
	static const double vb[] = { 80, 75, 85, 106, 102, 110, 4, 2, 6 };
	struct result *r = NULL, *o = NULL;
	struct result_table *a, *b, *t;
	struct diff_opts opts = { 0 };
	struct diff_stats st;
	int err;

	CHECK(!result__new(&r) && !result__new(&o));
	a = mk(r, "a", ka, va, 3, true);
	b = mk(r, "b", kb, vb, 3, true);
	err = diff__tables(o, "d", a, b, &opts, &st);
	CHECK(!err);
	t = result__table(o, "d");
	CHECK(t && t->nr_rows == 4 && st.nr_rows == 4);
	/* mov 50 -> 80 (30 > sqrt(25 + 25)), add 100 -> 106 (6 > sqrt(9 + 16)), jne 10 -> 0
	 * (10 > sqrt(4 + 0)), ret 0 -> 4 (4 > sqrt(0 + 4)): all significant; sorted by size */
	CHECK(st.intervals && st.nr_significant == 4);
	if (t && t->nr_rows == 4) {
		static const char *const order[] = { "mov", "jne", "add", "ret" };
		size_t i;

		for (i = 0; i < 4; i++)
			CHECK_STR(result_table__row(t, i)[0].s, order[i]);
		CHECK_EQ_DBL(result_table__row(t, 0)[3].d, 80.0 / 50, 1e-12);	/* ratio */
		CHECK(result_table__row(t, 1)[2].d == 0);			/* jne in b */
		CHECK(result_table__row(t, 3)[3].type == RES_NULL);		/* ret: no ratio */
		CHECK(result_table__row(t, 0)[4].i == 1);
	}
	/* shares: a's total 160, b's 190; add 100/160 = 0.625 [0.60625, 0.64375] vs 106/190 =
	 * 0.5579 [0.5368, 0.5789]: 0.0671 > sqrt(0.019^2 + 0.021^2) = 0.0283: significant */
	opts.shares = true;
	err = diff__tables(o, "s", a, b, &opts, &st);
	CHECK(!err && st.total_a == 160 && st.total_b == 190);
	t = result__table(o, "s");
	if (t) {
		size_t i;

		for (i = 0; i < t->nr_rows; i++)
			if (!strcmp(result_table__row(t, i)[0].s, "add")) {
				CHECK_EQ_DBL(result_table__row(t, i)[1].d, 0.625, 1e-12);
				CHECK_EQ_DBL(result_table__row(t, i)[2].d, 106.0 / 190, 1e-12);
				CHECK(result_table__row(t, i)[4].i == 1);
			}
	}
	/* a side without intervals: nothing is called significant, the column is NULL */
	a = mk(r, "a2", ka, va, 3, false);
	opts.shares = false;
	err = diff__tables(o, "n", a, b, &opts, &st);
	CHECK(!err && !st.intervals && st.nr_significant == 0 && st.nr_undecided == 4);
	t = result__table(o, "n");
	CHECK(t && t->nr_rows == 4 && result_table__row(t, 0)[4].type == RES_NULL);
	result__delete(r);
	result__delete(o);
}

int main(void)
{
	RUN_TEST(test_diff_rule);
	RUN_TEST(test_diff_join);
	return th_failed_tests != 0;
}
