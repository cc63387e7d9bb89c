/* Fills the page tables of the heap's first pages in one call. On the virtual machines this
 * tool was measured on, a page fault costs about 12 us and a page populated by
 * madvise(MADV_POPULATE_WRITE) about 3 us; a conversion touches a few thousand fresh heap
 * pages (decoded instructions, the stack cache, the tables), which then cost a quarter.
 * The populated memory is handed back to malloc and stays in the heap: blocks below the mmap
 * threshold are carved from it, and freeing them does not return it to the kernel.
 * A hint: where madvise or mallopt is missing, nothing happens. Depends only on libc.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "util/heap_warm.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif

#define MMAP_MIN	(4u << 20)	/* blocks from maps of their own: from 4 MiB */
#define PIECE		(1u << 20)	/* the heap is warmed in pieces below that */
#define MAX_PIECES	256

void hbbp_heap_warm(size_t bytes)
{
#ifdef __GLIBC__
	char *piece[MAX_PIECES];
	size_t i, n = 0;

	if (!bytes)
		return;
	/* Blocks below 4 MiB come from the heap, larger ones from maps of their own: freed,
	 * those go back to the kernel, and growing they move without a copy (mremap). The
	 * big arrays of a conversion (blocks, sums, hash tables) grow by realloc: in the heap
	 * each move leaves a hole the size of the old array, which peak RSS pays for. The
	 * heap is not trimmed below what was populated. */
	mallopt(M_MMAP_THRESHOLD, MMAP_MIN);
	mallopt(M_TRIM_THRESHOLD, (int)(bytes + (64u << 20)));
	while (n < MAX_PIECES && n * PIECE < bytes) {
		uintptr_t from, to;

		piece[n] = malloc(PIECE);
		if (!piece[n])
			break;
		from = ((uintptr_t)piece[n] + 4095) & ~(uintptr_t)4095;
		to = ((uintptr_t)piece[n] + PIECE) & ~(uintptr_t)4095;
		if (to > from)
			madvise((void *)from, to - from, MADV_POPULATE_WRITE);
		n++;
	}
	for (i = n; i-- > 0;)
		free(piece[i]);
#else
	(void)bytes;
#endif
}
