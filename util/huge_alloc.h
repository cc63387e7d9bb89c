/* Large buffers that live for the whole run and are touched for every sample (the stack
 * cache's keys, the read window), in 2 MiB pages where the kernel gives them (transparent
 * huge pages in "madvise" mode, Debian's default): fewer TLB misses per sample, which cost
 * most in a virtual machine. Plain pages otherwise. Depends only on libc.
 */
#ifndef HBBP_HUGE_ALLOC_H
#define HBBP_HUGE_ALLOC_H

#include <stddef.h>

/* size bytes (rounded up to 2 MiB), uninitialised; free() them. NULL when out of memory. */
void *huge_alloc(size_t size);

#endif
