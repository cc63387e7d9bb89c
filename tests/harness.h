/* Minimal unit-test harness: CHECK* macros count failed checks; RUN_TEST prints one
 * "PASS name" / "FAIL name" line per test, which tests/run.sh counts. A test binary
 * returns non-zero when any test failed.
 */
#ifndef TESTS_HARNESS_H
#define TESTS_HARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int th_failed_checks;
static int th_failed_tests;

#define CHECK(cond) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		th_failed_checks++;						\
	}									\
} while (0)

#define CHECK_EQ_U64(a, b) do {							\
	uint64_t th_a = (uint64_t)(a), th_b = (uint64_t)(b);			\
	if (th_a != th_b) {							\
		fprintf(stderr, "%s:%d: %s == %s failed: 0x%" PRIx64 " != 0x%" PRIx64 "\n", \
			__FILE__, __LINE__, #a, #b, th_a, th_b);		\
		th_failed_checks++;						\
	}									\
} while (0)

#define CHECK_EQ_DBL(a, b, tol) do {						\
	double th_a = (a), th_b = (b);						\
	if (!(th_a - th_b <= (tol) && th_b - th_a <= (tol))) {			\
		fprintf(stderr, "%s:%d: %s == %s failed: %.10g != %.10g\n",	\
			__FILE__, __LINE__, #a, #b, th_a, th_b);		\
		th_failed_checks++;						\
	}									\
} while (0)

#define CHECK_STR(a, b) do {							\
	const char *th_a = (a), *th_b = (b);					\
	if (!th_a || !th_b || strcmp(th_a, th_b)) {				\
		fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n",	\
			__FILE__, __LINE__, #a, #b, th_a ? th_a : "(null)",	\
			th_b ? th_b : "(null)");				\
		th_failed_checks++;						\
	}									\
} while (0)

#define RUN_TEST(fn) do {							\
	int th_before = th_failed_checks;					\
	fn();									\
	if (th_failed_checks == th_before) {					\
		printf("PASS %s\n", #fn);					\
	} else {								\
		printf("FAIL %s\n", #fn);					\
		th_failed_tests++;						\
	}									\
	fflush(stdout);								\
} while (0)

#define SKIP_TEST(name, why) printf("SKIP %s: %s\n", name, why)

#define TEST_EXIT() (th_failed_tests ? 1 : 0)

#endif
