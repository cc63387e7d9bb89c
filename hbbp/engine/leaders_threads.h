/* The LBR-learned block leaders (hbbp/method/leaders.h) added on several threads: the lists of
 * distinct modules are independent, so each thread takes the largest list left when it is
 * free; a list that holds more than a thread's share of all the leaders (one big program)
 * first gets every thread (struct hbbp_code_ops.add_leaders). Every module's leaders still go
 * in the order they were gathered, so the result is that of hbbp_leaders__apply_each.
 * Installed as struct hbbp_code_ops.apply_leaders.
 * Depends on hbbp/method/leaders.h, hbbp/method/method.h and pthreads.
 */
#ifndef HBBP_LEADERS_THREADS_H
#define HBBP_LEADERS_THREADS_H

#include "hbbp/method/leaders.h"

/* Adds every list's leaders to its module through ops->add_leader, on up to `threads`
 * threads (each add_leader call on modules no other thread touches). 0 or -ENOMEM (a leader
 * that could not be added for want of memory; the others are still tried). */
int hbbp_leaders__apply(const struct hbbp_leaders *l, const struct hbbp_code_ops *ops,
			unsigned int threads);

#endif
