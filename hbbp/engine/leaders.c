/* The stream targets' block leaders, per module, applied on threads (see hbbp/engine/leaders.h).
 * Depends on hbbp/engine/leaders.h, hbbp/method/method.h and pthreads.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "hbbp/engine/leaders.h"
#include "hbbp/method/method.h"

#define MAX_THREADS	16

void hbbp_leaders__init(struct hbbp_leaders *l)
{
	l->lists = NULL;
	l->nr = l->alloc = 0;
	hmap__init(&l->by_mod, 1, sizeof(size_t));
}

void hbbp_leaders__exit(struct hbbp_leaders *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->lists[i].vaddrs);
	free(l->lists);
	hmap__exit(&l->by_mod);
	l->lists = NULL;
	l->nr = l->alloc = 0;
}

int hbbp_leaders__add(struct hbbp_leaders *l, struct bbmap_module *mod, uint64_t vaddr)
{
	uint64_t key = (uintptr_t)mod;
	struct hbbp_leader_list *ll;
	int ins;
	size_t *idx = hmap__get(&l->by_mod, &key, &ins);

	if (!idx)
		return -ENOMEM;
	if (ins) {
		if (l->nr == l->alloc) {
			size_t nc = l->alloc ? 2 * l->alloc : 16;
			struct hbbp_leader_list *p = realloc(l->lists, nc * sizeof(*p));

			if (!p)
				return -ENOMEM;
			l->lists = p;
			l->alloc = nc;
		}
		*idx = l->nr++;
		l->lists[*idx] = (struct hbbp_leader_list){ .mod = mod };
	}
	ll = &l->lists[*idx];
	if (ll->nr == ll->alloc) {
		size_t nc = ll->alloc ? 2 * ll->alloc : 64;
		uint64_t *p = realloc(ll->vaddrs, nc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ll->vaddrs = p;
		ll->alloc = nc;
	}
	ll->vaddrs[ll->nr++] = vaddr;
	return 0;
}

struct leader_job {
	size_t nr, list;	/* the list's size and index */
};

/* The jobs, largest first, taken one at a time by whichever thread is free. */
struct leader_work {
	const struct hbbp_leaders *l;
	const struct hbbp_code_ops *ops;
	const struct leader_job *jobs;
	size_t nr_jobs;
	size_t next;		/* the next job to take (atomically) */
};

static void list_apply(const struct hbbp_leader_list *ll, const struct hbbp_code_ops *ops)
{
	size_t k;

	for (k = 0; k < ll->nr; k++)
		ops->add_leader(ops->ctx, ll->mod, ll->vaddrs[k]);
}

static void *leader_thread(void *arg)
{
	struct leader_work *w = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->nr_jobs)
		list_apply(&w->l->lists[w->jobs[i].list], w->ops);
	return NULL;
}

static int by_size_desc(const void *a, const void *b)
{
	const struct leader_job *x = a, *y = b;

	if (x->nr != y->nr)
		return x->nr > y->nr ? -1 : 1;
	return x->list < y->list ? -1 : x->list > y->list;
}

void hbbp_leaders__apply(const struct hbbp_leaders *l, const struct hbbp_code_ops *ops)
{
	pthread_t tids[MAX_THREADS];
	unsigned int nt = ops->leader_threads, t, started = 0;
	struct leader_work w = { .l = l, .ops = ops, .nr_jobs = l->nr };
	struct leader_job *jobs = NULL;
	size_t i;

	if (nt > MAX_THREADS)
		nt = MAX_THREADS;
	if (nt > l->nr)
		nt = (unsigned int)l->nr;
	jobs = malloc((l->nr ? l->nr : 1) * sizeof(*jobs));
	if (!jobs) {	/* no room for the plan: the lists in order, here */
		for (i = 0; i < l->nr; i++)
			list_apply(&l->lists[i], ops);
		return;
	}
	/* the largest lists first: the last ones taken are short, the threads end together */
	for (i = 0; i < l->nr; i++)
		jobs[i] = (struct leader_job){ .nr = l->lists[i].nr, .list = i };
	qsort(jobs, l->nr, sizeof(*jobs), by_size_desc);
	w.jobs = jobs;
	for (t = 1; t < nt; t++) {
		if (pthread_create(&tids[started], NULL, leader_thread, &w))
			break;
		started++;
	}
	leader_thread(&w);
	for (t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	free(jobs);
}
