/* LBR stacks summed on a second thread: the pass resolves each stack's ends (the address
 * spaces are its own) and appends the stack with its resolved ends to a buffer of a ring; a
 * worker thread sums full buffers into the accumulators (hbbp_accum__lbr), in the order they
 * were appended, while the pass reads on. The sums are those of summing each stack at once.
 * While the worker runs, the pass must not touch what hbbp_accum__lbr writes (the
 * streams, bias, unresolved and rejection sums, the events' stream counters):
 * hbbp_stack_worker__wait first.
 * Depends on hbbp/method/method.h and pthreads.
 */
#ifndef HBBP_STACK_WORKER_H
#define HBBP_STACK_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hbbp/method/method.h"

struct hbbp_stack_buf {
	uint8_t *p;
	size_t len, cap;
};

#define HBBP_STACK_BUFS	8	/* a ring of 4 MiB buffers: the pass waits only when
				 * all are full */

/* A stack handed over as a key (hbbp_stack_worker__reserve_key), summed on the worker by the
 * caller's function: key[0 .. words), its cnt stacks' weights summing to period (per batch
 * bs), their periods to period_plain. 0 or -ENOMEM. */
typedef int hbbp_stack_key_fn(void *ctx, const uint64_t *key, size_t words, double period,
			      double period_plain, uint64_t cnt, const struct hbbp_bsum *bs);

struct hbbp_stack_worker {
	struct hbbp_accum *acc;
	hbbp_stack_key_fn *key_fn;	/* how keyed stacks are summed, and its ctx */
	void *key_ctx;
	/* the pass appends to bufs[fill]; the worker sums the nr_full buffers from bufs[work]
	 * on, in order */
	struct hbbp_stack_buf bufs[HBBP_STACK_BUFS];
	unsigned int fill, work, nr_full;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* the worker waits on it for a full buffer */
	pthread_cond_t room;		/* the pass waits on it for a free buffer */
	bool started, stop;
	int err;			/* the worker's first error (-ENOMEM) */
	uint64_t nr_bufs;		/* buffers summed */
	double cpu_s;			/* the thread's CPU seconds, once stopped */
};

/* Starts the worker on acc (keyed stacks through key_fn(key_ctx, ...)). 0 or an error (then
 * the caller sums stacks itself). */
int hbbp_stack_worker__start(struct hbbp_stack_worker *w, struct hbbp_accum *acc,
			     hbbp_stack_key_fn *key_fn, void *key_ctx);
/* Room for a keyed stack of words words in the fill buffer, written to *key, then
 * hbbp_stack_worker__commit with evidx -1 and n the words. NULL on an error. */
void *hbbp_stack_worker__reserve_key(struct hbbp_stack_worker *w, size_t words,
				     uint64_t **key);
/* Room for a stack of n entries in the fill buffer: their flags (hbbp_lbr_entry_flags) and
 * resolved ends are written to *flags (n) and *locs (2n), then hbbp_stack_worker__commit.
 * NULL on an error. */
void *hbbp_stack_worker__reserve(struct hbbp_stack_worker *w, uint64_t n, uint8_t **flags,
				 struct hbbp_end **locs);
/* Completes the reserved stack (thread pid/tid, event evidx, cnt stacks, weights summing to
 * period, periods to period_plain, bs per batch). 0 or the worker's error. */
int hbbp_stack_worker__commit(struct hbbp_stack_worker *w, void *slot, uint32_t pid,
			      uint32_t tid, int evidx, uint64_t n, double period,
			      double period_plain, uint64_t cnt, const struct hbbp_bsum *bs);
/* Sums everything appended so far and waits until it is summed. 0 or the worker's error. */
int hbbp_stack_worker__wait(struct hbbp_stack_worker *w);
/* Waits, stops and joins the worker, frees the buffers. 0 or the worker's error. */
int hbbp_stack_worker__stop(struct hbbp_stack_worker *w);

#endif
