/* Running work on threads, the one place the tool starts them:
 *  - parallel_for(nr, threads, fn, ctx): fn(ctx, item, worker) for every item < nr on up to
 *    `threads` workers, the calling thread among them (worker 0); each worker takes the next
 *    item from a shared counter, so items start in order and a worker's number is stable for
 *    the run (per-worker scratch indexed by it needs no lock). Returns once every item is
 *    done, with the number of workers that ran (fewer than asked when a thread could not
 *    start: the others do its share).
 *  - a worker: one background thread, started and joined.
 * Depends only on libc and pthreads.
 */
#ifndef HBBP_PARALLEL_H
#define HBBP_PARALLEL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

typedef void (*parallel_fn)(void *ctx, size_t item, unsigned int worker);

/* The number of workers that ran: 0 when nr is 0, else 1..min(threads, nr) (threads 0 is
 * taken as 1). */
unsigned int parallel_for(size_t nr, unsigned int threads, parallel_fn fn, void *ctx);

struct worker {
	pthread_t tid;
	bool started;
};

/* Runs fn(arg) on a thread of its own: 0, or -EAGAIN when none could start (the caller then
 * does the work itself). */
int worker__start(struct worker *w, void *(*fn)(void *arg), void *arg);
/* Waits for the thread to end; nothing when it never started. */
void worker__join(struct worker *w);

#endif
