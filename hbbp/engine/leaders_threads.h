/* The LBR-learned block leaders (hbbp/method/leaders.h) added to their modules on several
 * threads: the lists of distinct modules are independent, so each thread takes the largest
 * list left when it is free; a list that holds more than a thread's share of all the leaders
 * (one big program) first gets every thread. Every module's leaders still go in the order
 * they were gathered, so the result is that of adding them one by one on one thread.
 * Depends on hbbp/method/leaders.h and pthreads.
 */
#ifndef HBBP_LEADERS_THREADS_H
#define HBBP_LEADERS_THREADS_H

#include "hbbp/method/leaders.h"

/* How one list is added to its module (bbmap_module__add_leaders: in order, the code decoded
 * on up to `threads` threads; a leader that is no instruction start skipped): 0 or -ENOMEM. */
typedef int hbbp_leaders_add_fn(struct bbmap_module *m, const uint64_t *vaddrs, size_t n,
				unsigned int threads);
/* Adds every list's leaders to its module through add, on up to `threads` threads (each
 * module on one thread at a time). 0 or -ENOMEM (a list that met it; the others are still
 * added). */
int hbbp_leaders__apply(const struct hbbp_leaders *l, hbbp_leaders_add_fn *add,
			unsigned int threads);

#endif
