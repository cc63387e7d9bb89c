/* Threads for the tool's work (see util/parallel.h): workers that take items from a shared
 * counter, and a single background thread. Depends only on libc and pthreads.
 */
#include <errno.h>
#include <stdlib.h>

#include "util/parallel.h"

struct pfor {
	parallel_fn fn;
	void *ctx;
	size_t nr;
	size_t next;			/* the next item to take (atomically) */
};

struct pfor_worker {
	struct pfor *p;
	unsigned int index;
	struct worker w;
};

static void pfor_run(struct pfor *p, unsigned int index)
{
	size_t i;

	while ((i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->nr)
		p->fn(p->ctx, i, index);
}

static void *pfor_main(void *arg)
{
	struct pfor_worker *pw = arg;

	pfor_run(pw->p, pw->index);
	return NULL;
}

unsigned int parallel_for(size_t nr, unsigned int threads, parallel_fn fn, void *ctx)
{
	struct pfor p = { .fn = fn, .ctx = ctx, .nr = nr };
	struct pfor_worker *pw = NULL;
	unsigned int n, t, started = 0;

	if (!nr)
		return 0;
	n = threads < nr ? threads : (unsigned int)nr;
	if (n > 1)
		pw = calloc(n - 1, sizeof(*pw));
	for (t = 0; pw && t < n - 1; t++) {
		pw[t].p = &p;
		pw[t].index = t + 1;
		if (worker__start(&pw[t].w, pfor_main, &pw[t]))
			break;
		started++;
	}
	pfor_run(&p, 0);
	for (t = 0; t < started; t++)
		worker__join(&pw[t].w);
	free(pw);
	return started + 1;
}

int worker__start(struct worker *w, void *(*fn)(void *arg), void *arg)
{
	w->started = !pthread_create(&w->tid, NULL, fn, arg);
	return w->started ? 0 : -EAGAIN;
}

void worker__join(struct worker *w)
{
	if (!w->started)
		return;
	pthread_join(w->tid, NULL);
	w->started = false;
}
