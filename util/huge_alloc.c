/* 2 MiB-page buffers (see util/huge_alloc.h). Depends only on libc. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "util/huge_alloc.h"

#define HUGE_PAGE	((size_t)2 << 20)

void *huge_alloc(size_t size)
{
	size_t n;
	void *p;

	if (size > SIZE_MAX - HUGE_PAGE)
		return NULL;
	n = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	p = aligned_alloc(HUGE_PAGE, n ? n : HUGE_PAGE);
#ifdef MADV_HUGEPAGE
	if (p)
		madvise(p, n, MADV_HUGEPAGE);	/* a hint: refused, the pages stay small */
#endif
	return p;
}
