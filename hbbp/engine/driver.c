/* The engine's record loop (see hbbp/engine/driver.h): every record in delivery order.
 * Non-sample records go to the code ops (address spaces); LOST/THROTTLE/READ and samples go to
 * the method's accumulators (hbbp/method/accum.c) through the fast path: lookups through a
 * small cache, identical stacks (most repeat) summed first by their raw addresses and
 * resolved once, before the next record that may change an address space, EBS sums through a
 * queue, and the sums of a segment read apart merged where its samples belong.
 * No allocation per sample beyond amortised hash growth. Never prints; never opens files.
 * Depends on hbbp/engine/driver.h, util/hmap.h and the reader's record structs only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hbbp/engine/code_bbmap.h"
#include "hbbp/engine/driver.h"
#include "util/grow.h"
#include "util/hbbp_err.h"

static int driver_merge_bundle(struct hbbp_driver *d);
static int driver_flush_resolved(struct hbbp_driver *d);
static int driver_sum_key(struct hbbp_driver *d, const uint64_t *key, double period,
			  double period_plain, uint64_t cnt, const struct hbbp_bsum *bs);

/* ---- the keys of resolved stacks (struct hbbp_driver.rstacks) ---- */

#define RKEY_ID_BITS	13		/* dso ids in a key; past them a stack is not cached */
#define RKEY_IDS	((1u << RKEY_ID_BITS) - 1)
#define RKEY_NO_ID	UINT32_MAX
#define RKEY_LOW48	0xffffffffffffULL

/* The id (1 ..) of dso in the keys, made on first use; 0 for no dso; RKEY_NO_ID when the
 * ids ran out (or out of memory: the stack is then summed uncached). */
static uint32_t dso_id(struct hbbp_driver *d, struct bbmap_dso *dso)
{
	uint64_t key = (uintptr_t)dso, *v;
	int ins;

	if (!dso)
		return 0;
	v = hmap__get(&d->dso_ids, &key, &ins);
	if (!v)
		return RKEY_NO_ID;
	if (ins) {
		/* allocated once, never moved: the worker reads the ids of the stacks handed
		 * over while the pass adds new ones */
		if (!d->id_dso)
			d->id_dso = calloc(RKEY_IDS, sizeof(*d->id_dso));
		if (!d->id_dso || d->nr_ids >= RKEY_IDS) {
			*v = RKEY_NO_ID;
		} else {
			d->id_dso[d->nr_ids++] = dso;
			*v = d->nr_ids;
		}
	}
	return (uint32_t)*v;
}

/* An end (its dso's id, vaddr) and flags fl packed in a word: fl, id, whether vaddr's top 16
 * bits are ones (else zeros), its low 48 bits. false when it does not fit. */
static inline bool rkey_pack(uint32_t id, uint64_t vaddr, unsigned int fl, uint64_t *w)
{
	uint64_t hi = vaddr >> 48;

	if (id >= (1u << RKEY_ID_BITS) || (hi && hi != 0xffff))
		return false;
	*w = (uint64_t)fl << 62 | (uint64_t)id << 49 | (uint64_t)!!hi << 48 | (vaddr & RKEY_LOW48);
	return true;
}

static inline void rkey_unpack(const struct hbbp_driver *d, uint64_t w, struct hbbp_end *l)
{
	uint32_t id = (uint32_t)(w >> 49) & ((1u << RKEY_ID_BITS) - 1);

	l->dso = id ? d->id_dso[id - 1] : NULL;
	l->vaddr = (w & RKEY_LOW48) | (w >> 48 & 1 ? ~RKEY_LOW48 : 0);
}

int hbbp_driver__init(struct hbbp_driver *d, const struct hbbp_code *code,
		      struct bbmap_session *s, const struct perf_event_info *const *events,
		      const struct hbbp_event_role *roles, size_t nr_events)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->s = s;
	d->per_thread = true;
	err = hbbp_accum__init(&d->acc, code, events, roles, nr_events);
	if (err)
		return err;
	hbbp_stack_cache__init(&d->stacks);
	hbbp_stack_stats__init(&d->sstats, HBBP_STACKS_AUTO);
	hbbp_stack_cache__init(&d->rstacks);
	hbbp_stack_stats__init(&d->rsstats, HBBP_STACKS_AUTO);
	hmap__init(&d->dso_ids, 1, sizeof(uint64_t));
	return 0;
}

void hbbp_driver__exit(struct hbbp_driver *d)
{
	if (!d)
		return;
	hbbp_stack_worker__stop(&d->worker);
	hbbp_accum__exit(&d->acc);
	hbbp_stack_cache__exit(&d->stacks);
	hbbp_stack_cache__exit(&d->rstacks);
	hmap__exit(&d->dso_ids);
	free(d->id_dso);
	free(d->deep_ends);
	free(d->deep_flags);
	memset(d, 0, sizeof(*d));
}

void hbbp_driver__finish(struct hbbp_driver *d)
{
	int err = d->bundle && !d->bundle_merged ? driver_merge_bundle(d) : 0;

	err = err ? err : hbbp_driver__flush(d);
	err = err ? err : hbbp_sum_queue__drain(&d->ebsq, &d->acc.ebs);
	{
		bool had = d->worker.started;
		int werr = hbbp_stack_worker__stop(&d->worker);	/* every stack summed */

		if (had) {
			struct timespec ts;

			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
			pr_debug("the pass: %.3f CPU s reading, %.3f CPU s summing stacks on a "
				 "second thread", (double)ts.tv_sec + ts.tv_nsec / 1e9,
				 d->worker.cpu_s);
		}

		err = err ? err : werr;
	}
	err = err ? err : driver_flush_resolved(d);	/* the worker is done with them */
	d->sstats.inserts += d->stacks.nr_inserts - d->merge_inserts;
	hbbp_stack_cache__exit(&d->stacks);	/* flushed: its memory is of no more use */
	d->rsstats.inserts += d->rstacks.nr_inserts;
	d->rsstats.stacks += d->rs_unkeyed;
	d->rsstats.direct += d->rs_unkeyed;
	hbbp_stack_cache__exit(&d->rstacks);
	if (err && !d->flush_err)
		d->flush_err = err;
	hbbp_accum__scale(&d->acc);
}

/* The range slot of addr in pid's address space (struct hbbp_range_slot). */
static inline struct hbbp_range_slot *range_slot(struct hbbp_driver *d, uint32_t pid,
						 uint64_t addr)
{
	uint64_t h = ((addr >> 21) ^ (uint64_t)pid << 20) * 0x9e3779b97f4a7c15ULL;

	return &d->rcache[h >> 57 & (HBBP_RANGE_CACHE - 1)];
}

static inline bool range_has(const struct hbbp_driver *d, const struct hbbp_range_slot *r,
			     uint32_t pid, int cpumode, uint64_t addr)
{
	return r->gen == d->lgen && addr - r->lo < r->hi - r->lo && r->pid == pid &&
	       r->cpumode == cpumode;
}

/* bbmap_session__lookup through the caches (see struct hbbp_range_slot). */
static int driver_lookup(void *ctx, uint32_t pid, int cpumode, uint64_t addr,
			 struct bbmap_loc *loc)
{
	struct hbbp_driver *d = ctx;
	struct hbbp_range_slot *rs = range_slot(d, pid, addr);
	struct hbbp_lookup_slot *sl;
	uint64_t h, lo = 0, hi = 0;

	if (!d->lgen)
		d->lgen = 1;
	d->nr_lookups++;
	if (range_has(d, rs, pid, cpumode, addr)) {
		d->nr_lookup_hits++;
		*loc = rs->loc;
		loc->vaddr = addr + rs->delta;
		return 0;
	}
	h = (addr ^ (addr >> 7) ^ (addr >> 17) ^ ((uint64_t)pid << 40)) * 0x9e3779b97f4a7c15ULL;
	sl = &d->lcache[h >> 56 & (HBBP_LOOKUP_CACHE - 1)];
	if (sl->gen == d->lgen && sl->addr == addr && sl->pid == pid && sl->cpumode == cpumode) {
		d->nr_lookup_hits++;
		*loc = sl->loc;
		return sl->rc;
	}
	memset(loc, 0, sizeof(*loc));
	sl->rc = bbmap_session__lookup_range(d->s, pid, cpumode, addr, loc, &lo, &hi);
	if (sl->rc)
		loc->dso = NULL;
	sl->addr = addr;
	sl->pid = pid;
	sl->cpumode = cpumode;
	sl->gen = d->lgen;
	sl->loc = *loc;
	if (!sl->rc && loc->dso && hi - lo > 1 && addr - lo < hi - lo) {
		rs->lo = lo;
		rs->hi = hi;
		rs->delta = loc->vaddr - addr;
		rs->gen = d->lgen;
		rs->pid = pid;
		rs->cpumode = cpumode;
		rs->dso_id = dso_id(d, loc->dso);
		rs->loc = *loc;
	}
	return sl->rc;
}

/* hbbp_accum__lbr_resolve and hbbp_lbr_entry_flags in one pass, through the caches: the
 * range of the address before tried first, then the range slot of the address, here. With
 * pk, each end is packed in its key word (struct hbbp_driver.rstacks) instead of written to
 * locs: false when one does not fit (then ask again without pk). */
static bool driver_resolve(struct hbbp_driver *d, uint32_t pid, int cpumode,
			   const struct perf_branch_entry *e, uint64_t n, struct hbbp_end *locs,
			   uint8_t *flags, uint64_t *pk)
{
	const struct hbbp_range_slot *last = NULL;
	uint64_t k;

	if (!d->lgen)
		d->lgen = 1;
	for (k = 0; k < 2 * n; k++) {
		uint64_t addr = k & 1 ? e[k / 2].to : e[k / 2].from, vaddr = 0;
		struct bbmap_dso *dso = NULL;
		uint32_t id = 0;

		if (!(k & 1))
			flags[k / 2] = hbbp_lbr_entry_flag(e, k / 2);
		if (addr) {
			int cm = hbbp_branch_cpumode(cpumode, addr);

			if (!last || !range_has(d, last, pid, cm, addr)) {
				const struct hbbp_range_slot *r = range_slot(d, pid, addr);

				last = range_has(d, r, pid, cm, addr) ? r : NULL;
			}
			if (last) {
				dso = last->loc.dso;
				vaddr = addr + last->delta;
				id = last->dso_id;
			} else {
				struct bbmap_loc loc;

				if (!driver_lookup(d, pid, cm, addr, &loc) && loc.dso) {
					dso = loc.dso;
					vaddr = loc.vaddr;
					id = pk ? dso_id(d, dso) : 0;
				}
			}
		}
		if (pk) {
			if (!rkey_pack(id, dso ? vaddr : 0, k & 1 ? 0 : flags[k / 2], &pk[k]))
				return false;
		} else {
			locs[k].dso = dso;
			locs[k].vaddr = vaddr;
		}
	}
	return pk != NULL;
}

/* The task the method sums a sample of thread pid/tid under: 0/0 without per_thread. */
static inline uint64_t driver_task(const struct hbbp_driver *d, uint32_t pid, uint32_t tid)
{
	return d->per_thread ? (uint64_t)pid << 32 | tid : 0;
}

/* n EBS samples of thread pid/tid at ip, their periods summing to period (method.md §4): per
 * batch bs, or all in batch batch when bs is NULL */
static int driver_ebs_add(struct hbbp_driver *d, uint32_t pid, uint32_t tid, int cpumode,
			  uint64_t ip, int evidx, double period, uint64_t n, unsigned int batch,
			  const struct hbbp_bsum *bs)
{
	struct bbmap_loc loc;
	uint64_t key[4];
	bool mapped = !driver_lookup(d, pid, cpumode, ip, &loc) && loc.dso;
	uint64_t task = driver_task(d, pid, tid);

	hbbp_accum__ebs_key(&d->acc, (uint32_t)(task >> 32), (uint32_t)task, evidx,
			    mapped ? &loc : NULL, period, n, key);
	if (bs)
		return hbbp_sum_queue__add_sums(&d->ebsq, &d->acc.ebs, key, period, n, bs);
	return hbbp_sum_queue__add(&d->ebsq, &d->acc.ebs, key, period, n, batch);
}

/* A resolved stack (ends locs, flags) to the accumulators: to the worker, or summed here. */
static int driver_emit(struct hbbp_driver *d, uint32_t pid, uint32_t tid, int evidx,
		       const uint8_t *flags, uint64_t n, const struct hbbp_end *locs,
		       double period, double period_plain, uint64_t cnt,
		       const struct hbbp_bsum *bs)
{
	struct hbbp_end *wl;
	uint8_t *wf;
	void *slot;

	if (!d->worker.started)
		return hbbp_accum__lbr(&d->acc, pid, tid, evidx,
				       &(struct hbbp_stack){ n, flags, locs }, period, period_plain,
				       cnt, bs);
	slot = hbbp_stack_worker__reserve(&d->worker, n, &wf, &wl);
	if (!slot)
		return d->worker.err ? d->worker.err : -ENOMEM;
	memcpy(wl, locs, 2 * (size_t)n * sizeof(*locs));
	memcpy(wf, flags, (size_t)n);
	return hbbp_stack_worker__commit(&d->worker, slot, pid, tid, evidx, n, period,
					 period_plain, cnt, bs);
}

/* A resolved stack by its key, into the accumulators here. */
static int driver_sum_key(struct hbbp_driver *d, const uint64_t *key, double period,
			  double period_plain, uint64_t cnt, const struct hbbp_bsum *bs)
{
	struct hbbp_end locs[2 * HBBP_STACK_CACHE_DEPTH];
	uint8_t flags[HBBP_STACK_CACHE_DEPTH];
	uint64_t n = key[1] >> 32, k;

	for (k = 0; k < 2 * n; k++) {
		rkey_unpack(d, key[2 + k], &locs[k]);
		if (!(k & 1))
			flags[k / 2] = (uint8_t)(key[2 + k] >> 62);
	}
	return hbbp_accum__lbr(&d->acc, (uint32_t)(key[0] >> 32), (uint32_t)key[0],
			       (int)(key[1] & 0xffff), &(struct hbbp_stack){ n, flags, locs }, period,
			       period_plain, cnt, bs);
}

/* The resolved stacks summed so far, into the accumulators in insertion order (on the
 * worker while it runs: see driver_rstack). */
static int driver_flush_resolved(struct hbbp_driver *d)
{
	size_t i;
	int err = 0;

	for (i = 0; i < d->rstacks.nr && !err; i++) {
		const struct hbbp_stack_val *v = &d->rstacks.vals[i];

		err = driver_sum_key(d, hbbp_stack_cache__key(&d->rstacks, i), v->period,
				     v->period_plain, v->n, &v->bs);
	}
	hbbp_stack_cache__clear(&d->rstacks);
	return err;
}

/* A resolved stack by its key (struct hbbp_driver.rstacks): summed with the identical ones
 * where that pays, else into the accumulators at once; on the worker (hbbp_stack_key_fn)
 * while it runs, else here. */
static int driver_rstack(void *ctx, const uint64_t *key, size_t words, double period,
			 double period_plain, uint64_t cnt, const struct hbbp_bsum *bs)
{
	struct hbbp_driver *d = ctx;
	uint64_t h = hbbp_stack_cache__hash(key);
	struct hbbp_stack_val *v;

	(void)words;
	hbbp_stack_stats__note(&d->rsstats, h);
	if (!hbbp_stack_stats__use_cache(&d->rsstats, d->rstacks.nr_inserts))
		return driver_sum_key(d, key, period, period_plain, cnt, bs);
	v = hbbp_stack_cache__get(&d->rstacks, key, h);
	if (!v && d->rstacks.nr >= HBBP_STACK_CACHE_MAX) {
		int err = driver_flush_resolved(d);

		if (err)
			return err;
		v = hbbp_stack_cache__get(&d->rstacks, key, h);
	}
	if (!v)
		return -ENOMEM;
	v->period += period;
	v->period_plain += period_plain;
	v->n += cnt;
	hbbp_bsum__axpy(&v->bs, 1.0, bs);
	return 0;
}

/* cnt stacks e[0..n), their weights summing to period (periods: period_plain): resolved,
 * then summed with the identical resolved stacks (struct hbbp_driver.rstacks) where that
 * pays, else at once */
static int driver_lbr_stack(struct hbbp_driver *d, uint32_t pid, uint32_t tid, int cpumode,
			    int evidx, const struct perf_branch_entry *e, uint64_t n,
			    double period, double period_plain, uint64_t cnt,
			    const struct hbbp_bsum *bs)
{
	struct hbbp_end locs[2 * HBBP_STACK_CACHE_DEPTH];
	uint8_t flags[HBBP_STACK_CACHE_DEPTH];
	uint64_t key[HBBP_STACK_KEY_WORDS], task = driver_task(d, pid, tid);

	if (n > HBBP_STACK_CACHE_DEPTH || evidx < 0 || evidx > 0xffff) {
		/* n is bounded by the record size (64 KiB / 24 bytes per entry) */
		if (grow_array((void **)&d->deep_ends, &d->alloc_deep_ends, sizeof(*d->deep_ends),
			       2 * n, SIZE_MAX) ||
		    grow_array((void **)&d->deep_flags, &d->alloc_deep_flags, 1, n, SIZE_MAX))
			return -ENOMEM;
		driver_resolve(d, pid, cpumode, e, n, d->deep_ends, d->deep_flags, NULL);
		return driver_emit(d, (uint32_t)(task >> 32), (uint32_t)task, evidx, d->deep_flags,
				   n, d->deep_ends, period, period_plain, cnt, bs);
	}
	if (d->rsstats.policy == HBBP_STACKS_NEVER ||
	    !driver_resolve(d, pid, cpumode, e, n, NULL, flags, key + 2)) {
		driver_resolve(d, pid, cpumode, e, n, locs, flags, NULL);
		d->rs_unkeyed++;	/* rsstats is the worker's while it runs */
		return driver_emit(d, (uint32_t)(task >> 32), (uint32_t)task, evidx, flags, n, locs,
				   period, period_plain, cnt, bs);
	}
	key[0] = task;
	key[1] = (uint64_t)evidx | n << 32;
	if (d->worker.started) {	/* summed together on the worker */
		uint64_t *wk;
		void *slot = hbbp_stack_worker__reserve_key(&d->worker, 2 + 2 * n, &wk);

		if (!slot)
			return d->worker.err ? d->worker.err : -ENOMEM;
		memcpy(wk, key, (2 + 2 * n) * sizeof(*key));
		return hbbp_stack_worker__commit(&d->worker, slot, 0, 0, -1, 2 + 2 * n, period,
						 period_plain, cnt, bs);
	}
	return driver_rstack(d, key, 2 + 2 * n, period, period_plain, cnt, bs);
}

int hbbp_driver__start_worker(struct hbbp_driver *d)
{
	return hbbp_stack_worker__start(&d->worker, &d->acc, driver_rstack, d);
}

int hbbp_driver__flush(struct hbbp_driver *d)
{
	struct perf_branch_entry e[HBBP_STACK_CACHE_DEPTH];
	size_t i;
	int err = hbbp_stack_cache__drain(&d->stacks);

	/* insertion order: the sums below do not depend on addresses or hashing */
	for (i = 0; i < d->stacks.nr && !err; i++) {
		const uint64_t *key = hbbp_stack_cache__key(&d->stacks, i);
		const struct hbbp_stack_val *v = &d->stacks.vals[i];
		uint64_t n = key[1] >> 32, k;

		for (k = 0; k < n; k++) {
			e[k].from = key[2 + 2 * k];
			e[k].to = key[3 + 2 * k];
			e[k].flags = 0;
		}
		err = driver_lbr_stack(d, (uint32_t)(key[0] >> 32), (uint32_t)key[0],
				       (int)((key[1] >> 16) & 0xffff), (int)(key[1] & 0xffff), e,
				       n, v->period, v->period_plain, v->n, &v->bs);
	}
	hbbp_stack_cache__clear(&d->stacks);
	return err;
}

bool hbbp_driver__stack_key(const struct hbbp_sample_item *it, const struct perf_branch_entry *e,
			    bool per_thread, uint64_t *key)
{
	uint64_t n = it->nr, k;

	if (n > HBBP_STACK_CACHE_DEPTH || it->evidx > 0xffff || it->evidx < 0)
		return false;
	for (k = 0; k < n; k++) {
		if (hbbp_branch__spec_wrong(&e[k]))	/* flags are not kept in the cache */
			return false;
		key[2 + 2 * k] = e[k].from;
		key[3 + 2 * k] = e[k].to;
	}
	key[0] = (uint64_t)it->pid << 32 | (per_thread ? it->tid : 0);
	key[1] = (uint64_t)it->evidx | (uint64_t)it->cpumode << 16 | n << 32;
	return true;
}

/* cnt stacks key (hash h), their weights summing to period (per batch bs, or all in batch
 * batch when bs is NULL; periods: period_plain), into the cache */
static int driver_stack_add(struct hbbp_driver *d, const uint64_t *key, uint64_t h,
			    double period, double period_plain, uint64_t cnt, unsigned int batch,
			    const struct hbbp_bsum *bs)
{
	struct hbbp_stack_val *v;
	int err = hbbp_stack_cache__drain(&d->stacks);

	if (err)
		return err;
	v = hbbp_stack_cache__get(&d->stacks, key, h);
	if (!v && d->stacks.nr >= HBBP_STACK_CACHE_MAX) {
		err = hbbp_driver__flush(d);
		if (err)
			return err;
		v = hbbp_stack_cache__get(&d->stacks, key, h);
	}
	if (!v)
		return -ENOMEM;
	v->period += period;
	v->period_plain += period_plain;
	v->n += cnt;
	if (bs)
		hbbp_bsum__axpy(&v->bs, 1.0, bs);
	else
		v->bs.b[batch < HBBP_BATCHES ? batch : 0] += period;
	return 0;
}

/* An LBR item resolved and summed at once, not through the cache. */
static int driver_lbr_direct(struct hbbp_driver *d, const struct hbbp_sample_item *it,
			     const struct perf_branch_entry *e)
{
	struct hbbp_bsum bs;

	memset(&bs, 0, sizeof(bs));
	bs.b[it->batch < HBBP_BATCHES ? it->batch : 0] = it->weight;
	return driver_lbr_stack(d, it->pid, it->tid, it->cpumode, it->evidx, e, it->nr, it->weight,
				(double)it->period, 1, &bs);
}

int hbbp_driver__apply(struct hbbp_driver *d, const struct hbbp_sample_item *it,
		       const struct perf_branch_entry *e)
{
	uint64_t local[HBBP_STACK_KEY_WORDS], *key, h;
	int err = hbbp_accum__count_item(&d->acc, it);

	if (err)
		return err;
	if (it->kind == HBBP_ITEM_EBS)
		return driver_ebs_add(d, it->pid, it->tid, it->cpumode, it->ip, it->evidx,
				      (double)it->period, 1, it->batch, NULL);
	if (it->kind != HBBP_ITEM_LBR)
		return 0;
	/* identical stacks are summed in the cache and resolved at the next flush: queued for
	 * their lookup while there is room for all queued, else added at once. Their weights
	 * (period / D(Y) with method.md §5b) are summed, so the key need not hold the IP. */
	key = hbbp_stack_cache__queue_key(&d->stacks);
	if (!hbbp_driver__stack_key(it, e, d->per_thread, key ? key : local)) {
		d->sstats.stacks++;
		d->sstats.direct++;
		return driver_lbr_direct(d, it, e);
	}
	h = hbbp_stack_cache__hash(key ? key : local);
	hbbp_stack_stats__note(&d->sstats, h);
	if (!hbbp_stack_stats__use_cache(&d->sstats, d->stacks.nr_inserts))
		return driver_lbr_direct(d, it, e);	/* the cache does not pay here */
	if (key)
		return hbbp_stack_cache__queue_w(&d->stacks, h, it->weight, (double)it->period, 1,
						 it->batch);
	return driver_stack_add(d, local, h, it->weight, (double)it->period, 1, it->batch, NULL);
}

/* Records after which the address spaces are unchanged: no need to flush the stacks. */
static bool record_keeps_maps(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_SWITCH: case PERF_RECORD_SWITCH_CPU_WIDE:
	case PERF_RECORD_NAMESPACES: case PERF_RECORD_CGROUP: case PERF_RECORD_ITRACE_START:
	case PERF_RECORD_AUX: case PERF_RECORD_TIME_CONV: case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES: case PERF_RECORD_THROTTLE: case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_READ:
		return true;
	}
	return false;
}

void hbbp_driver__set_bundle(struct hbbp_driver *d, const struct hbbp_bundle *b)
{
	d->bundle = b;
	d->bundle_merged = false;
}

/* The bundle's sums, resolved now (see struct hbbp_bundle), in insertion order. */
static int driver_merge_bundle(struct hbbp_driver *d)
{
	const struct hbbp_bundle *b = d->bundle;
	uint64_t ins;
	size_t i;
	int err;

	const uint64_t *key;
	const struct hbbp_ebs_val *v;

	d->bundle_merged = true;
	hbbp_stack_stats__merge(&d->sstats, &b->sstats);
	d->acc.nr_samples += b->nr_samples;
	d->acc.nr_unused_samples += b->nr_unused_samples;
	for (i = 0; i < d->acc.nr_events; i++) {
		d->acc.ev[i].samples += b->ev[i].samples;
		d->acc.ev[i].samples_used += b->ev[i].lbr_used;
		d->acc.ev[i].stacks_short += b->ev[i].stacks_short;
		d->acc.ev[i].zero_entries += b->ev[i].zero_entries;
		d->acc.ev[i].lbr_time_stacks += b->ev[i].lbr_time;
		d->acc.ev[i].lbr_time_fallback += b->ev[i].lbr_fallback;
		d->acc.ev[i].lbr_time_by_ip += b->ev[i].lbr_by_ip;
		hbbp_bsum__axpy(&d->acc.ev[i].bs, 1.0, &b->ev[i].bs);
	}
	hmap__for_each(&b->ebs, i, key, v) {
		err = driver_ebs_add(d, (uint32_t)(key[0] >> 32), (uint32_t)key[0], (int)key[1],
				     key[2], (int)key[3], v->period, v->n, 0, &v->bs);
		if (err)
			return err;
	}
	err = hbbp_stack_cache__drain(&d->stacks);
	if (err)
		return err;
	ins = d->stacks.nr_inserts;
	for (i = 0; i < b->stacks.nr; i++) {
		const uint64_t *skey = hbbp_stack_cache__key(&b->stacks, i);

		err = driver_stack_add(d, skey, hbbp_stack_cache__hash(skey),
				       b->stacks.vals[i].period, b->stacks.vals[i].period_plain,
				       b->stacks.vals[i].n, 0, &b->stacks.vals[i].bs);
		if (err)
			return err;
	}
	err = hbbp_stack_cache__drain(&d->stacks);
	d->merge_inserts += d->stacks.nr_inserts - ins;
	return err;
}

/* A record that may change an address space, with the bundle set: is the bundle still in
 * its place (see struct hbbp_bundle)? Merges it before the first such record after it. */
static int driver_bundle_order(struct hbbp_driver *d, const struct perf_record *rec)
{
	const struct hbbp_bundle *b = d->bundle;
	bool any = b->tmin <= b->tmax;	/* the bundle has samples */
	/* without a time the record came in file order: before the bundle if read before */
	bool timed = rec->has_sid;
	uint64_t t = rec->sid.time;

	if (rec->file_offset < b->start) {
		if (d->bundle_merged || (timed && any && t > b->tmin))
			return -HBBP_EREDO;
		return 0;
	}
	if (!timed || (any && t < b->tmax))
		return -HBBP_EREDO;
	return d->bundle_merged ? 0 : driver_merge_bundle(d);
}

int hbbp_driver__record(struct hbbp_driver *d, const struct perf_record *rec)
{
	if (rec->type != PERF_RECORD_SAMPLE && !record_keeps_maps(rec->type)) {
		int err = d->bundle ? driver_bundle_order(d, rec) : 0;

		if (!err && (d->stacks.nr || d->stacks.qnr))
			err = hbbp_driver__flush(d);
		if (err)
			return err;
	}
	switch (rec->type) {
	case PERF_RECORD_SAMPLE: {
		struct hbbp_sample_item it;

		hbbp_sample__digest(d->acc.ev, d->acc.nr_events, d->acc.lbr_time,
				    d->acc.batch_slot, rec, &it);
		return hbbp_driver__apply(d, &it, it.raw);
	}
	case PERF_RECORD_LOST:		/* counted by the reader (method.md §2: reported) */
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
		return 0;
	case PERF_RECORD_READ:
		return hbbp_accum__read_value(&d->acc, rec->read.pid, rec->read.tid,
					      rec->has_sid ? rec->sid.cpu : 0, rec->evidx,
					      rec->read.time_enabled, rec->read.time_running);
	default:
		break;
	}
	d->lgen++;	/* the address spaces may change: forget cached lookups */
	if (hbbp_code_bbmap__record(d->s, rec))
		d->nr_record_errors++;
	return 0;
}
