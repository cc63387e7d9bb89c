/* Populating the heap ahead of a conversion (see util/heap_warm.c). */
#ifndef HBBP_HEAP_WARM_H
#define HBBP_HEAP_WARM_H

#include <stddef.h>

/* Populates the page tables of `bytes` of heap and leaves them to malloc. */
void hbbp_heap_warm(size_t bytes);

#endif
