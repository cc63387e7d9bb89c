/* The stream targets' block leaders, per module, applied on threads (see hbbp/leaders.h).
 * Depends on hbbp/leaders.h, hbbp/method.h and pthreads.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "hbbp/leaders.h"
#include "hbbp/method.h"

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
	unsigned int thread;
};

struct leader_thread {
	const struct hbbp_leaders *l;
	const struct hbbp_code_ops *ops;
	const struct leader_job *jobs;
	size_t nr_jobs;
	unsigned int t;		/* runs the jobs with thread == t */
	pthread_t tid;
};

static void *leader_thread(void *arg)
{
	const struct leader_thread *lt = arg;
	size_t i, k;

	for (i = 0; i < lt->nr_jobs; i++) {
		const struct hbbp_leader_list *ll = &lt->l->lists[lt->jobs[i].list];

		if (lt->jobs[i].thread != lt->t)
			continue;
		for (k = 0; k < ll->nr; k++)
			lt->ops->add_leader(lt->ops->ctx, ll->mod, ll->vaddrs[k]);
	}
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
	struct leader_thread lt[MAX_THREADS];
	uint64_t load[MAX_THREADS] = { 0 };
	unsigned int nt = ops->leader_threads, t, started;
	struct leader_job *jobs = NULL;
	size_t i;

	if (nt > MAX_THREADS)
		nt = MAX_THREADS;
	if (nt > l->nr)
		nt = (unsigned int)l->nr;
	if (nt > 1)
		jobs = malloc(l->nr * sizeof(*jobs));
	if (!jobs) {
		/* one thread (also when out of memory for the plan), lists in order */
		struct leader_job one = { .thread = 0 };
		struct leader_thread only = { .l = l, .ops = ops, .jobs = &one, .nr_jobs = 1 };

		for (i = 0; i < l->nr; i++) {
			one.list = i;
			leader_thread(&only);
		}
		return;
	}
	/* the largest lists first, each to the thread with the fewest leaders so far */
	for (i = 0; i < l->nr; i++)
		jobs[i] = (struct leader_job){ .nr = l->lists[i].nr, .list = i };
	qsort(jobs, l->nr, sizeof(*jobs), by_size_desc);
	for (i = 0; i < l->nr; i++) {
		unsigned int best = 0;

		for (t = 1; t < nt; t++)
			if (load[t] < load[best])
				best = t;
		jobs[i].thread = best;
		load[best] += jobs[i].nr;
	}
	for (t = 0; t < nt; t++)
		lt[t] = (struct leader_thread){ .l = l, .ops = ops, .jobs = jobs,
						.nr_jobs = l->nr, .t = t };
	for (started = 1; started < nt; started++)
		if (pthread_create(&lt[started].tid, NULL, leader_thread, &lt[started]))
			break;
	leader_thread(&lt[0]);
	for (t = started; t < nt; t++)	/* the jobs of threads that could not start */
		leader_thread(&lt[t]);
	for (t = 1; t < started; t++)
		pthread_join(lt[t].tid, NULL);
	free(jobs);
}
