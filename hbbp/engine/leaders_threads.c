/* The block leaders added on threads (see hbbp/engine/leaders_threads.h).
 * Depends on hbbp/engine/leaders_threads.h and pthreads.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "hbbp/engine/leaders_threads.h"

#define MAX_THREADS	16

struct leader_job {
	size_t nr, list;	/* the list's size and index */
};

/* The jobs, largest first, taken one at a time by whichever thread is free. */
struct leader_work {
	const struct hbbp_leaders *l;
	hbbp_leaders_add_fn *add;
	const struct leader_job *jobs;
	size_t nr_jobs;
	size_t next;		/* the next job to take (atomically) */
	int err;		/* -ENOMEM once a list met it (atomically) */
};

static void *leader_thread(void *arg)
{
	struct leader_work *w = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->nr_jobs)
		if (w->add(w->l->lists[w->jobs[i].list].mod, w->l->lists[w->jobs[i].list].vaddrs,
			   w->l->lists[w->jobs[i].list].nr, 1))
			__atomic_store_n(&w->err, -ENOMEM, __ATOMIC_RELAXED);
	return NULL;
}

static int by_size_desc(const void *a, const void *b)
{
	const struct leader_job *x = a, *y = b;

	if (x->nr != y->nr)
		return x->nr > y->nr ? -1 : 1;
	return x->list < y->list ? -1 : x->list > y->list;
}

int hbbp_leaders__apply(const struct hbbp_leaders *l, hbbp_leaders_add_fn *add,
			unsigned int threads)
{
	pthread_t tids[MAX_THREADS];
	unsigned int nt = threads, t, started = 0;
	struct leader_work w = { .l = l, .add = add, .nr_jobs = l->nr };
	struct leader_job *jobs = NULL;
	size_t i, total = 0;

	if (nt > MAX_THREADS)
		nt = MAX_THREADS;
	if (nt < 1)
		nt = 1;
	if (nt == 1 || l->nr < 2 || !(jobs = malloc(l->nr * sizeof(*jobs)))) {
		/* the lists in order, here (a single list on every thread) */
		for (i = 0; i < l->nr; i++)
			if (add(l->lists[i].mod, l->lists[i].vaddrs, l->lists[i].nr, nt))
				w.err = -ENOMEM;
		return w.err;
	}
	/* the largest lists first: the last ones taken are short, the threads end together */
	for (i = 0; i < l->nr; i++) {
		jobs[i] = (struct leader_job){ .nr = l->lists[i].nr, .list = i };
		total += l->lists[i].nr;
	}
	qsort(jobs, l->nr, sizeof(*jobs), by_size_desc);
	w.jobs = jobs;
	/* one module with more than a thread's share: its code decoded on every thread first */
	if (jobs[0].nr * nt > total) {
		const struct hbbp_leader_list *big = &l->lists[jobs[0].list];

		if (add(big->mod, big->vaddrs, big->nr, nt))
			w.err = -ENOMEM;
		w.next = 1;
	}
	if (nt > l->nr - w.next)	/* a thread a list at most */
		nt = (unsigned int)(l->nr - w.next);
	for (t = 1; t < nt; t++) {
		if (pthread_create(&tids[started], NULL, leader_thread, &w))
			break;
		started++;
	}
	leader_thread(&w);
	for (t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	free(jobs);
	return w.err;
}
