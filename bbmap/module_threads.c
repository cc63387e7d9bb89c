/* A module's code decoded on several workers (util/parallel.h), each with a decoder of its
 * own (struct mod_decoder: scratch, decode cache, counters), the module only read while they
 * run (its strings are interned under its lock):
 *  - block leaders (bbmap_module__add_leaders): the regions the leaders need are planned in
 *    order on the calling thread, as add_leader one leader after the other makes them (their
 *    bounds depend on the regions made before), then outlined and cut into blocks by the
 *    workers, then given their symbols and split at the leaders in order here. Blocks and
 *    counters are those of add_leader in a loop. A window cut at no known boundary (whose
 *    end is known once it is decoded) is decoded while planning.
 *  - blocks decoded in full (bbmap_module__fill_blocks): a region's blocks by one worker
 *    (their instructions live in the region's memory), source lines after, here (libdw is
 *    used by one thread). Each worker's decode cache stays with the module between runs.
 * Knows nothing of perf.data.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module_priv.h"
#include "util/grow.h"
#include "util/parallel.h"
#include "util/radix.h"
#include "util/hbbp_err.h"

#define MAX_THREADS	BBMAP_MAX_THREADS

typedef void (*mod_work_fn)(const struct bbmap_module *m, struct mod_decoder *d, void *ctx,
			    size_t i);

struct mod_work {
	const struct bbmap_module *m;
	mod_work_fn fn;
	void *ctx;
	struct mod_decoder *dec;	/* the workers' */
};

static void work_one(void *arg, size_t i, unsigned int worker)
{
	struct mod_work *w = arg;

	w->fn(w->m, &w->dec[worker], w->ctx, i);
}

/* The workers' decoders, made once: 0 or -ENOMEM. */
static int workers_get(struct bbmap_module *m)
{
	unsigned int t;

	if (m->workers)
		return 0;
	m->workers = calloc(MAX_THREADS, sizeof(*m->workers));
	if (!m->workers)
		return -ENOMEM;
	for (t = 0; t < MAX_THREADS; t++)
		mod_decoder__init(&m->workers[t], m, true);
	return 0;
}

/* Runs fn over nr items on up to `threads` workers (this thread among them); their counters
 * are added to the module's when count is set. Their scratch is freed after, their caches
 * kept. */
static void run_work(struct bbmap_module *m, mod_work_fn fn, void *ctx, size_t nr,
		     unsigned int threads, bool count)
{
	struct mod_work w = { .m = m, .fn = fn, .ctx = ctx, .dec = m->workers };
	unsigned int t, ran;

	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	for (t = 0; t < threads; t++)
		memset(&m->workers[t].stats, 0, sizeof(m->workers[t].stats));
	ran = parallel_for(nr, threads, work_one, &w);
	for (t = 0; t < ran; t++) {
		if (count)
			mod_stats__add(&m->stats, &m->workers[t].stats);
		mod_decoder__drop_scratch(&m->workers[t]);
	}
}

/* ---- leaders ---- */

struct outline_work {
	struct mod_region **todo;	/* largest first */
	int *errs;			/* per region of todo */
};

static void outline_one(const struct bbmap_module *m, struct mod_decoder *d, void *ctx, size_t i)
{
	struct outline_work *w = ctx;

	w->errs[i] = mod_region__outline(m, d, w->todo[i]);
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
	struct outline_work w = { 0 };
	struct mod_region **todo = NULL;
	size_t nr = 0, alloc = 0, i;
	int err, nomem = 0;

	if (threads <= 1 || !mod_region__lazy(m) || mod_zydis__open(m, &m->dec) || workers_get(m))
		return add_each(m, vaddrs, n);
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
	if (nr > 1)	/* todo is NULL when every function was decoded already */
		qsort(todo, nr, sizeof(*todo), by_size_desc);
	w.todo = todo;
	run_work(m, outline_one, &w, nr, threads, true);
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

/* ---- blocks decoded in full ---- */

struct fill_item {
	uint64_t start;			/* b's */
	struct mod_region *r;
	struct bbmap_block *b;
};

struct fill_work {
	const struct fill_item *items;	/* sorted by region */
	const size_t *group;		/* group g: items [group[g], group[g + 1]) */
	int *errs;			/* per group */
};

static void fill_one(const struct bbmap_module *m, struct mod_decoder *d, void *ctx, size_t g)
{
	struct fill_work *w = ctx;
	size_t i;
	int err = 0;

	for (i = w->group[g]; i < w->group[g + 1] && !err; i++)
		err = mod_region__fill(m, d, w->items[i].r, w->items[i].b);
	w->errs[g] = err;
}

static int by_region(const void *a, const void *b)
{
	const struct fill_item *x = a, *y = b;

	if (x->r != y->r)
		return x->r->start < y->r->start ? -1 : 1;
	return x->b->start < y->b->start ? -1 : x->b->start > y->b->start;
}

int bbmap_module__fill_blocks(struct bbmap_module *m, const uint64_t *starts, size_t n,
			      unsigned int threads)
{
	struct fill_item *items;
	struct fill_work w = { 0 };
	size_t *group, i, k = 0, ng = 0;
	int nomem = 0;

	if (threads <= 1 || !mod_region__lazy(m) || mod_zydis__open(m, &m->dec) || workers_get(m))
		return 0;	/* block_at decodes each when it is asked for */
	items = malloc((n ? n : 1) * sizeof(*items));
	group = malloc((n + 1) * sizeof(*group));
	w.errs = calloc(n ? n : 1, sizeof(*w.errs));
	if (!items || !group || !w.errs) {
		free(items);
		free(group);
		free(w.errs);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct mod_region *r;
		struct bbmap_block *b = mod_region__block(m, starts[i], &r);

		if (b && !b->insns && r->offs)
			items[k++] = (struct fill_item){ b->start, r, b };
	}
	/* by region, then block: by block start alone, as regions do not overlap (a stable
	 * radix sort; qsort without the memory) */
	if (radix_sort_records(items, k, sizeof(*items), offsetof(struct fill_item, start)))
		qsort(items, k, sizeof(*items), by_region);
	for (i = 0; i < k; i++)
		if (!i || items[i].r != items[i - 1].r)
			group[ng++] = i;
	group[ng] = k;
	w.items = items;
	w.group = group;
	run_work(m, fill_one, &w, ng, threads, false);
	for (i = 0; i < ng; i++)
		nomem |= w.errs[i] == -ENOMEM;
	if (m->dwarf)
		for (i = 0; i < k; i++)
			if (items[i].b->insns)
				mod_srcline__fill(m, &m->dec, (struct bbmap_insn *)items[i].b->insns,
						  items[i].b->nr_insns);
	free(items);
	free(group);
	free(w.errs);
	return nomem ? -ENOMEM : 0;
}
