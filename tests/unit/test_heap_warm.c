/* Unit test of util/heap_warm.c: memory malloc hands out after hbbp_heap_warm() is already
 * in the page tables. The oracle is the kernel's count of minor page faults (getrusage):
 * touching 2 MiB of fresh malloc memory faults once per 4 KiB page (checked first, so the
 * test can tell), and almost never after the heap was warmed with 16 MiB.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "tests/harness.h"
#include "util/heap_warm.h"

#define BLOCK	(2u << 20)

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* minor faults taken by touching every page of a fresh BLOCK from malloc */
static long touch_faults(void)
{
	volatile char *p = malloc(BLOCK);
	long before, after;
	size_t i;

	if (!p)
		return -1;
	before = minflt();
	for (i = 0; i < BLOCK; i += 4096)
		p[i] = 1;
	after = minflt();
	free((void *)p);
	return after - before;
}

static void test_heap_warm(void)
{
	long cold = touch_faults(), warm;

	/* without warming, a 2 MiB block is a fresh map (malloc's default): a fault per page */
	CHECK(cold >= (long)(BLOCK / 4096) / 2);
	hbbp_heap_warm(16u << 20);
	warm = touch_faults();
	CHECK(warm >= 0 && warm < 64);
	/* and again: the memory stayed in the heap after free */
	warm = touch_faults();
	CHECK(warm >= 0 && warm < 64);
}

int main(void)
{
#if defined(__SANITIZE_ADDRESS__) || !defined(__GLIBC__)
	SKIP_TEST("test_heap_warm", "the sanitizer's allocator (or not glibc) ignores mallopt");
#else
	RUN_TEST(test_heap_warm);
#endif
	return TEST_EXIT();
}
