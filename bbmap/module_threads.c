/* A module's code decoded on several threads, each with a copy of the module whose scratch
 * and counters are its own (and whose strings are interned in the module under a lock):
 *  - block leaders (bbmap_module__add_leaders): the regions the leaders need are planned in
 *    order on the calling thread, as add_leader one leader after the other makes them (their
 *    bounds depend on the regions made before), then outlined and cut into blocks on the
 *    threads, then given their symbols and split at the leaders in order here. Blocks and
 *    counters are those of add_leader in a loop. A window cut at no known boundary (whose
 *    end is known once it is decoded) is decoded while planning.
 *  - blocks decoded in full (bbmap_module__fill_blocks): a region's blocks by one thread
 *    (their instructions live in the region's memory), source lines after, here (libdw is
 *    used by one thread). Each thread's decode cache stays with the module between runs.
 * Knows nothing of perf.data.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module_priv.h"
#include "util/grow.h"
#include "util/radix.h"
#include "util/hbbp_err.h"

#define MAX_THREADS	BBMAP_MAX_THREADS

/* Items of work done on a module by several threads: fn(sh, ctx, i) for i < nr, each thread
 * with its copy sh of the module, whose scratch and counters are its own and whose strings
 * are interned in the module under a lock. */
struct mod_work {
	struct bbmap_module *m;
	void (*fn)(struct bbmap_module *sh, void *ctx, size_t i);
	void *ctx;
	size_t nr;
	size_t next;			/* the next item to take (atomically) */
	pthread_mutex_t str_lock;
};

struct mod_thread {
	struct mod_work *w;
	struct bbmap_module sh;		/* its copy of the module, made before any thread runs */
	pthread_t tid;
};

static void *work_main(void *arg)
{
	struct mod_thread *t = arg;
	struct mod_work *w = t->w;
	size_t i;

	while ((i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->nr)
		w->fn(&t->sh, w->ctx, i);
	free(t->sh.scr_insns);
	free(t->sh.scr_text);
	return NULL;
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

/* Runs fn over nr items on up to `threads` threads (this one among them); their counters
 * are added to the module's when count is set. The module is copied for every thread
 * before the first starts and written again only once all have ended: the threads read
 * it while others intern strings into it. */
static void run_work(struct bbmap_module *m, void (*fn)(struct bbmap_module *sh, void *ctx,
							  size_t i),
		     void *ctx, size_t nr, unsigned int threads, bool count)
{
	struct mod_thread th[MAX_THREADS];
	struct mod_work w = { .m = m, .fn = fn, .ctx = ctx, .nr = nr };
	unsigned int t, n, started = 0;

	if (!nr)
		return;
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	n = threads < nr ? threads : (unsigned int)nr;
	pthread_mutex_init(&w.str_lock, NULL);
	for (t = 0; t < n; t++) {	/* read-only but for scratch and counters */
		th[t].w = &w;
		th[t].sh = *m;
		th[t].sh.scr_insns = NULL;
		th[t].sh.scr_cap = 0;
		th[t].sh.scr_text = NULL;
		th[t].sh.scr_text_cap = 0;
		th[t].sh.shared = m;
		th[t].sh.str_lock = &w.str_lock;
		th[t].sh.dwarf = NULL;		/* source lines: by the caller, after */
		th[t].sh.zc = m->zc_thread[t];	/* its decode cache, kept between runs */
		memset(&th[t].sh.stats, 0, sizeof(th[t].sh.stats));
	}
	for (t = 1; t < n; t++) {
		if (pthread_create(&th[t].tid, NULL, work_main, &th[t]))
			break;
		started = t;
	}
	work_main(&th[0]);
	for (t = 1; t <= started; t++)
		pthread_join(th[t].tid, NULL);
	for (t = 0; t <= started; t++)
		m->zc_thread[t] = th[t].sh.zc;
	for (t = 0; t <= started && count; t++)
		stats_add(&m->stats, &th[t].sh.stats);
	pthread_mutex_destroy(&w.str_lock);
}

/* ---- leaders ---- */

struct outline_work {
	struct mod_region **todo;	/* largest first */
	int *errs;			/* per region of todo */
};

static void outline_one(struct bbmap_module *sh, void *ctx, size_t i)
{
	struct outline_work *w = ctx;

	w->errs[i] = mod_region__outline(sh, w->todo[i]);
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

	if (threads <= 1 || !mod_region__lazy(m) || mod_zydis__open(m))
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

static void fill_one(struct bbmap_module *sh, void *ctx, size_t g)
{
	struct fill_work *w = ctx;
	size_t i;
	int err = 0;

	for (i = w->group[g]; i < w->group[g + 1] && !err; i++)
		err = mod_region__fill(sh, w->items[i].r, w->items[i].b);
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

	if (threads <= 1 || !mod_region__lazy(m) || mod_zydis__open(m))
		return 0;	/* block_at decodes each when it is asked for */
	if (!m->bad_mn && !(m->bad_mn = mod_str__intern(m, "(bad)")))
		return -ENOMEM;
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
				mod_srcline__fill(m, (struct bbmap_insn *)items[i].b->insns,
						  items[i].b->nr_insns);
	free(items);
	free(group);
	free(w.errs);
	return nomem ? -ENOMEM : 0;
}
