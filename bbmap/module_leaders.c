/* Block leaders added to a module on several threads (bbmap_module__add_leaders): the
 * regions the leaders need are planned in order on the calling thread, as add_leader one
 * leader after the other makes them (their bounds depend on the regions made before), then
 * outlined and cut into blocks on the threads, each with a copy of the module whose scratch
 * and counters are its own, then given their symbols and split at the leaders in order
 * here. Blocks and counters are those of add_leader in a loop. A window cut at no known
 * boundary (whose end is known once it is decoded) is decoded while planning.
 * Knows nothing of perf.data.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module_priv.h"
#include "util/grow.h"
#include "util/hbbp_err.h"

#define MAX_THREADS	16

struct outline_work {
	const struct bbmap_module *m;
	struct mod_region **todo;	/* largest first */
	int *errs;			/* per region of todo */
	size_t nr;
	size_t next;			/* the next region to take (atomically) */
};

struct outline_thread {
	struct outline_work *w;
	struct bbmap_module_stats stats;	/* its counters, added to the module's after */
	pthread_t tid;
};

static void *outline_main(void *arg)
{
	struct outline_thread *t = arg;
	struct outline_work *w = t->w;
	struct bbmap_module sh = *w->m;	/* read-only but for scratch and counters */
	size_t i;

	sh.scr_insns = NULL;
	sh.scr_cap = 0;
	sh.scr_text = NULL;
	sh.scr_text_cap = 0;
	memset(&sh.stats, 0, sizeof(sh.stats));
	while ((i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->nr)
		w->errs[i] = mod_region__outline(&sh, w->todo[i]);
	t->stats = sh.stats;
	free(sh.scr_insns);
	free(sh.scr_text);
	return NULL;
}

static int by_size_desc(const void *a, const void *b)
{
	const struct mod_region *x = *(struct mod_region *const *)a;
	const struct mod_region *y = *(struct mod_region *const *)b;
	uint64_t sx = x->end - x->start, sy = y->end - y->start;

	if (sx != sy)
		return sx > sy ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void stats_add(struct bbmap_module_stats *a, const struct bbmap_module_stats *b)
{
	a->bytes_decoded += b->bytes_decoded;
	a->nr_insns += b->nr_insns;
	a->nr_bad += b->nr_bad;
	a->nr_blocks += b->nr_blocks;
	a->nr_regions += b->nr_regions;
	a->nr_leaders += b->nr_leaders;
	a->nr_leaders_misaligned += b->nr_leaders_misaligned;
	a->nr_fde_syms += b->nr_fde_syms;
	a->nr_windows += b->nr_windows;
	a->bytes_bad += b->bytes_bad;
	a->bytes_cut += b->bytes_cut;
}

/* The regions to outline, in m's regions already (planned as add_leader would make them in
 * this order); *nr of them, or -ENOMEM (the regions planned so far are in *todo). */
static int plan(struct bbmap_module *m, const uint64_t *vaddrs, size_t n,
		struct mod_region ***todo, size_t *nr, size_t *alloc)
{
	size_t i;
	int err, nomem = 0;

	for (i = 0; i < n; i++) {
		struct mod_region *r;

		if (mod_region__of(m, vaddrs[i]))
			continue;
		r = mod_region__new(m, vaddrs[i], &err);
		if (!r) {
			nomem |= err == -ENOMEM;
			continue;
		}
		if (r->soft_end_max) {		/* its end is known once decoded: now */
			err = mod_region__complete(m, r);
			nomem |= err == -ENOMEM;
			continue;
		}
		if (grow_one((void **)todo, alloc, sizeof(**todo), *nr) ||
		    mod_region__insert(m, r)) {
			mod_region__free(r);
			nomem = 1;
			continue;
		}
		(*todo)[(*nr)++] = r;
	}
	return nomem ? -ENOMEM : 0;
}

static int add_each(struct bbmap_module *m, const uint64_t *vaddrs, size_t n)
{
	size_t i;
	int nomem = 0;

	for (i = 0; i < n; i++)
		nomem |= bbmap_module__add_leader(m, vaddrs[i]) == -ENOMEM;
	return nomem ? -ENOMEM : 0;
}

int bbmap_module__add_leaders(struct bbmap_module *m, const uint64_t *vaddrs, size_t n,
			      unsigned int threads)
{
	struct outline_thread th[MAX_THREADS];
	struct outline_work w = { .m = m };
	struct mod_region **todo = NULL;
	size_t nr = 0, alloc = 0, i;
	unsigned int t, started = 0;
	int err, nomem = 0;

	if (threads <= 1 || !mod_region__lazy(m) || mod_zydis__open(m))
		return add_each(m, vaddrs, n);
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	nomem |= plan(m, vaddrs, n, &todo, &nr, &alloc) == -ENOMEM;
	w.errs = calloc(nr ? nr : 1, sizeof(*w.errs));
	if (!w.errs) {
		for (i = 0; i < nr; i++) {
			mod_region__remove(m, todo[i]);
			mod_region__free(todo[i]);
		}
		free(todo);
		return -ENOMEM;
	}
	qsort(todo, nr, sizeof(*todo), by_size_desc);
	w.todo = todo;
	w.nr = nr;
	for (t = 0; t < threads && t < nr; t++)
		th[t].w = &w;
	for (t = 1; t < threads && t < nr; t++) {
		if (pthread_create(&th[t].tid, NULL, outline_main, &th[t]))
			break;
		started = t;
	}
	th[0].w = &w;
	outline_main(&th[0]);
	stats_add(&m->stats, &th[0].stats);
	for (t = 1; t <= started; t++) {
		pthread_join(th[t].tid, NULL);
		stats_add(&m->stats, &th[t].stats);
	}
	for (i = 0; i < nr; i++) {
		if (w.errs[i]) {
			nomem |= w.errs[i] == -ENOMEM;
			mod_region__remove(m, todo[i]);
			mod_region__free(todo[i]);
		} else {
			mod_region__attach_syms(m, todo[i]);
		}
	}
	free(w.errs);
	free(todo);
	/* the leaders in order, as add_leader adds them to decoded regions */
	for (i = 0; i < n; i++) {
		struct mod_region *r = mod_region__of(m, vaddrs[i]);

		if (r) {
			err = mod_region__split(m, r, vaddrs[i]);
			nomem |= err == -ENOMEM;
		}
	}
	return nomem ? -ENOMEM : 0;
}
