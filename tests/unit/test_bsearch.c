/* Unit test of util/bsearch.h: bsearch_count over sorted arrays with repeated values, of
 * every length 0..40, for every key from below the first to above the last, with `<` and
 * `<=`, equals the count of a linear scan.
 */
#include "util/bsearch.h"
#include "tests/harness.h"

static void test_bsearch_count(void)
{
	unsigned v[40];
	size_t n, i, want_lt, want_le;
	unsigned key;

	for (n = 0; n <= 40; n++) {
		for (i = 0; i < n; i++)
			v[i] = (unsigned)(i / 3 * 2);	/* 0 0 0 2 2 2 4 ...: repeats and gaps */
		for (key = 0; key <= 30; key++) {
			for (want_lt = want_le = i = 0; i < n; i++) {
				want_lt += v[i] < key;
				want_le += v[i] <= key;
			}
			CHECK_EQ_U64(bsearch_count(n, mid, v[mid] < key), want_lt);
			CHECK_EQ_U64(bsearch_count(n, mid, v[mid] <= key), want_le);
		}
	}
}

int main(void)
{
	RUN_TEST(test_bsearch_count);
	return th_failed_tests ? 1 : 0;
}
