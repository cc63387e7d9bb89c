/* The engine's record loop (see hbbp/engine/driver.h): every record in delivery order.
 * Non-sample records go to the session (address spaces); READ records and samples to the
 * method's accumulator (hbbp/method/accum.c): lookups through the range cache, identical
 * LBR stacks summed first by their raw addresses and resolved once, before the next record
 * that may change an address space, the accumulator's cells loaded ahead.
 * No allocation per sample beyond amortised hash growth. Never prints; never opens files.
 * Depends on hbbp/engine/driver.h, hbbp/engine/code_bbmap.h, util/hmap.h and the reader's
 * record structs only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/engine/code_bbmap.h"
#include "hbbp/engine/driver.h"
#include "util/grow.h"
#include "util/hbbp_err.h"

/* stacks up to this deep have their cells loaded ahead */
#define DRIVER_PREFETCH	64

int hbbp_driver__init(struct hbbp_driver *d, const struct hbbp_code *code,
		      struct bbmap_session *s, const struct perf_event_info *const *events,
		      const struct hbbp_event_role *roles, size_t nr_events)
{
	memset(d, 0, sizeof(*d));
	d->s = s;
	d->per_thread = true;
	d->lgen = 1;
	hbbp_stack_cache__init(&d->stacks);
	return hbbp_accum__init(&d->acc, code, events, roles, nr_events);
}

void hbbp_driver__exit(struct hbbp_driver *d)
{
	if (!d)
		return;
	hbbp_accum__exit(&d->acc);
	hbbp_stack_cache__exit(&d->stacks);
	free(d->ends);
	free(d->flags);
	free(d->cyc);
	free(d->nums);
	memset(d, 0, sizeof(*d));
}

/* The task the method sums a sample of thread pid/tid under: 0/0 without per_thread, else
 * the thread under its name now (bbmap_session__thread_key: perf's comm at the sample's
 * time; the stacks in the cache are summed before a COMM record is applied). */
static inline uint64_t driver_task(const struct hbbp_driver *d, uint32_t pid, uint32_t tid)
{
	return d->per_thread ? (uint64_t)pid << 32 | bbmap_session__thread_key(d->s, pid, tid) : 0;
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

/* bbmap_session__lookup through the range cache; *last set to the range addr is in when it
 * is cached. */
static int driver_lookup(struct hbbp_driver *d, uint32_t pid, int cpumode, uint64_t addr,
			 struct bbmap_loc *loc, const struct hbbp_range_slot **last)
{
	struct hbbp_range_slot *rs = range_slot(d, pid, addr);
	uint64_t lo = 0, hi = 0;
	int rc;

	if (range_has(d, rs, pid, cpumode, addr)) {
		*last = rs;
		*loc = rs->loc;
		loc->vaddr = addr + rs->delta;
		return 0;
	}
	memset(loc, 0, sizeof(*loc));
	rc = bbmap_session__lookup_range(d->s, pid, cpumode, addr, loc, &lo, &hi);
	if (rc || !loc->dso) {
		loc->dso = NULL;
		return rc ? rc : -HBBP_ENOTFOUND;
	}
	if (hi - lo > 1 && addr - lo < hi - lo) {
		rs->lo = lo;
		rs->hi = hi;
		rs->delta = loc->vaddr - addr;
		rs->gen = d->lgen;
		rs->pid = pid;
		rs->cpumode = cpumode;
		rs->loc = *loc;
		*last = rs;
	}
	return 0;
}

/* The ends of e[0..n) of process pid through the range cache (the range of the end before
 * tried first) into d->ends, their flags into d->flags. 0 or -ENOMEM. */
static int driver_resolve(struct hbbp_driver *d, uint32_t pid, int cpumode,
			  const struct perf_branch_entry *e, uint64_t n)
{
	const struct hbbp_range_slot *last = NULL;
	uint64_t k;

	/* n is bounded by the record size (64 KiB / 24 bytes per entry) */
	if (grow_array((void **)&d->ends, &d->alloc_ends, sizeof(*d->ends), 2 * n, SIZE_MAX) ||
	    grow_array((void **)&d->flags, &d->alloc_flags, 1, n, SIZE_MAX) ||
	    grow_array((void **)&d->nums, &d->alloc_nums, sizeof(*d->nums), n, SIZE_MAX))
		return -ENOMEM;
	for (k = 0; k < 2 * n; k++) {
		uint64_t addr = k & 1 ? e[k / 2].to : e[k / 2].from;
		int cm = hbbp_branch_cpumode(cpumode, addr);
		struct bbmap_loc loc = { 0 };

		if (!(k & 1))
			d->flags[k / 2] = hbbp_lbr_entry_flag(e, k / 2);
		if (addr && last && range_has(d, last, pid, cm, addr)) {
			d->ends[k].dso = last->loc.dso;
			d->ends[k].vaddr = addr + last->delta;
			continue;
		}
		if (!addr || driver_lookup(d, pid, cm, addr, &loc, &last))
			loc.dso = NULL;
		d->ends[k].dso = loc.dso;
		d->ends[k].vaddr = loc.dso ? loc.vaddr : 0;
	}
	return 0;
}

/* cnt stacks e[0..n) of thread pid/tid, their weights summing to weight (per batch bs) and
 * their periods to period, resolved and summed into the accumulator; first the accumulator's
 * cells of the stack's branches and (likely kept) streams are loaded ahead, together: most
 * miss the CPU caches, and their loads overlap this way (their hashes go with the stack). */
static int driver_lbr(struct hbbp_driver *d, uint32_t pid, uint32_t tid, int cpumode, int evidx,
		      const struct perf_branch_entry *e, uint64_t n, double weight, double period,
		      uint64_t cnt, const struct hbbp_bsum *bs, const double *cyc)
{
	uint64_t h[2 * DRIVER_PREFETCH], key[5], k, task = driver_task(d, pid, tid);
	bool b[DRIVER_PREFETCH], st[DRIVER_PREFETCH];
	struct hbbp_accum *a = &d->acc;
	struct hbbp_stack s = { n, NULL, NULL, n <= DRIVER_PREFETCH ? h : NULL, NULL, NULL };
	int err = driver_resolve(d, pid, cpumode, e, n);

	if (err)
		return err;
	s.flags = d->flags;
	s.ends = d->ends;
	s.cyc = cyc;
	s.cell = d->defer ? d->nums : NULL;
	for (k = 0; k < n && s.hash; k++) {
		b[k] = hbbp_accum__branch_key(&s, k, key);
		h[2 * k] = b[k] ? hmap__hash(&a->bias, key) : 0;
		if (b[k])
			hmap__prefetch(&a->bias, h[2 * k], 0);
		st[k] = k && hbbp_accum__stream_key(&s, k, task, evidx, key);
		h[2 * k + 1] = st[k] ? hmap__hash(&a->streams, key) : 0;
		if (st[k])
			hmap__prefetch(&a->streams, h[2 * k + 1], 0);
	}
	for (k = 0; k < n && s.hash; k++) {
		if (b[k])
			hmap__prefetch(&a->bias, h[2 * k], 1);
		if (st[k])
			hmap__prefetch(&a->streams, h[2 * k + 1], 1);
	}
	err = hbbp_accum__lbr(a, (uint32_t)(task >> 32), (uint32_t)task, evidx, &s, weight,
			      period, cnt, bs);
	if (!err && d->defer)
		err = hbbp_lbr_defer__stack(d->defer, &s, pid, evidx, e[0].to);
	return err;
}

/* The stacks summed in the cache, resolved and summed into the accumulator in insertion
 * order (the sums do not depend on addresses or hashing), then the cache emptied. */
static int driver_flush(struct hbbp_driver *d)
{
	struct perf_branch_entry e[HBBP_STACK_CACHE_DEPTH];
	size_t i, base = d->defer ? d->defer->nr_stacks : 0;
	int err = 0;

	if (d->stacks.cyc && grow_array((void **)&d->cyc, &d->alloc_cyc, sizeof(*d->cyc),
					2 * HBBP_STACK_CACHE_DEPTH, SIZE_MAX))
		return -ENOMEM;
	for (i = 0; i < d->stacks.nr && !err; i++) {
		const uint64_t *key = hbbp_stack_cache__key(&d->stacks, i);
		const struct hbbp_stack_val *v = &d->stacks.vals[i];
		const double *row = hbbp_stack_cache__cyc(&d->stacks, v);
		uint64_t n = key[1] >> 32, k;

		for (k = 0; k < n; k++) {
			e[k].from = key[2 + 2 * k];
			e[k].to = key[3 + 2 * k];
			e[k].flags = 0;
		}
		if (row)
			hbbp_cycles__row_sums(row, hbbp_stack_cache__pres(&d->stacks, v), n,
					      v->period, d->cyc);
		err = driver_lbr(d, (uint32_t)(key[0] >> 32), (uint32_t)key[0],
				 (int)((key[1] >> 16) & 0xffff), (int)(key[1] & 0xffff), e, n,
				 v->period, v->period_plain, v->n, &v->bs,
				 row ? d->cyc : NULL);
	}
	if (d->defer)	/* entry i is stack base + i */
		hbbp_lbr_defer__settle(d->defer, base);
	hbbp_stack_cache__clear(&d->stacks);
	return err;
}

/* The stack cache key of an LBR item (see struct hbbp_driver.stacks); false when the stack
 * is not cached (deeper than the cache, an entry on the wrong path, an event index > 0xffff):
 * the flags are not kept in the key. */
static bool stack_key(const struct hbbp_driver *d, const struct hbbp_sample_item *it,
		      uint64_t *key)
{
	uint64_t n = it->nr, k;

	if (n > HBBP_STACK_CACHE_DEPTH || it->evidx > 0xffff || it->evidx < 0)
		return false;
	for (k = 0; k < n; k++) {
		if (hbbp_branch__spec_wrong(&it->raw[k]))
			return false;
		key[2 + 2 * k] = it->raw[k].from;
		key[3 + 2 * k] = it->raw[k].to;
	}
	key[0] = (uint64_t)it->pid << 32 | (d->per_thread ? it->tid : 0);
	key[1] = (uint64_t)it->evidx | (uint64_t)it->cpumode << 16 | n << 32;
	return true;
}

/* With the time weight, a stack of the time event: its durations into the statistics as it
 * comes (method.md §5b), its streams named in ids unless named already. */
static int driver_time(struct hbbp_driver *d, const struct hbbp_sample_item *it, uint32_t *ids,
		       bool named)
{
	int err = 0;

	if (!d->defer || it->evidx != d->defer->evidx)
		return 0;
	if (!named)
		err = hbbp_lbr_time__ends(d->defer->t, it->pid, it->raw, it->nr, ids);
	if (!err)
		hbbp_lbr_time__add(d->defer->t, it->raw, it->nr, ids);
	return err;
}

/* An LBR item: summed with the identical stacks in the cache, or (not cacheable) at once.
 * The stacks' weights (period / D(Y) with method.md §5b) are summed, so the key need not
 * hold the IP. With the time weight, a stack's streams are named once per entry. */
static int driver_stack(struct hbbp_driver *d, const struct hbbp_sample_item *it)
{
	uint64_t key[HBBP_STACK_KEY_WORDS], h;
	struct hbbp_stack_val *v;
	struct hbbp_bsum bs;
	bool cyc;
	int err;

	if (!stack_key(d, it, key)) {
		err = grow_array((void **)&d->nums, &d->alloc_nums, sizeof(*d->nums), it->nr,
				 SIZE_MAX);
		err = err ? err : driver_time(d, it, d->nums, false);
		if (err)
			return err;
		d->sstats.stacks++;
		d->sstats.direct++;
		memset(&bs, 0, sizeof(bs));
		bs.b[it->batch < HBBP_BATCHES ? it->batch : 0] = it->weight;
		cyc = !d->defer && hbbp_cycles__any(it->raw, it->nr);
		if (cyc) {
			if (grow_array((void **)&d->cyc, &d->alloc_cyc, sizeof(*d->cyc),
				       2 * it->nr, SIZE_MAX))
				return -ENOMEM;
			memset(d->cyc, 0, 2 * it->nr * sizeof(*d->cyc));
			hbbp_cycles__stack(it->raw, it->nr, it->weight, d->cyc);
		}
		err = driver_lbr(d, it->pid, it->tid, it->cpumode, it->evidx, it->raw, it->nr,
				 it->weight, (double)it->period, 1, &bs, cyc ? d->cyc : NULL);
		if (!err && d->defer)
			err = hbbp_lbr_defer__sample(d->defer, (uint32_t)(d->defer->nr_stacks - 1),
						     it->ip, it->period, it->batch, it->raw,
						     it->nr);
		return err;
	}
	h = hbbp_stack_cache__hash(key);
	hbbp_stack_stats__note(&d->sstats, h);
	d->sstats.cached++;
	v = hbbp_stack_cache__get(&d->stacks, key, h);
	if (!v && d->stacks.nr >= HBBP_STACK_CACHE_MAX) {
		err = driver_flush(d);
		if (err)
			return err;
		v = hbbp_stack_cache__get(&d->stacks, key, h);
	}
	if (!v)
		return -ENOMEM;
	err = driver_time(d, it, hbbp_stack_cache__end_ids(&d->stacks, v), v->n);
	if (err)
		return err;
	/* the cycle sums: none with the time weight in one pass (the deferred samples keep
	 * their counts), none made before a stack with a count comes */
	if (!d->defer && !d->stacks.cyc && hbbp_cycles__any(it->raw, it->nr) &&
	    hbbp_stack_cache__cycles(&d->stacks))
		return -ENOMEM;
	if (!d->defer && d->stacks.cyc)
		hbbp_cycles__row_add(hbbp_stack_cache__cyc(&d->stacks, v),
				     hbbp_stack_cache__pres(&d->stacks, v), it->raw, it->nr,
				     it->weight, v->period);
	v->period += it->weight;
	v->period_plain += (double)it->period;
	v->n++;
	v->bs.b[it->batch < HBBP_BATCHES ? it->batch : 0] += it->weight;
	if (!d->defer)
		return 0;
	return hbbp_lbr_defer__sample(d->defer, HBBP_DEFER_PENDING |
				      (uint32_t)(v - d->stacks.vals), it->ip, it->period, it->batch,
				      it->raw, it->nr);
}

/* An EBS item (method.md §4): its IP resolved, its period queued for its sum. */
static int driver_ebs(struct hbbp_driver *d, const struct hbbp_sample_item *it)
{
	const struct hbbp_range_slot *last = NULL;
	uint64_t key[4], task = driver_task(d, it->pid, it->tid);
	struct bbmap_loc loc;
	bool mapped = !driver_lookup(d, it->pid, it->cpumode, it->ip, &loc, &last);

	hbbp_accum__ebs_key(&d->acc, (uint32_t)(task >> 32), (uint32_t)task, it->evidx,
			    mapped ? &loc : NULL, (double)it->period, 1, key);
	return hbbp_sum_queue__add(&d->ebsq, &d->acc.ebs, key, (double)it->period, it->batch);
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

int hbbp_driver__record(struct hbbp_driver *d, const struct perf_record *rec)
{
	struct hbbp_sample_item it;
	int err;

	/* the end of the throttle spans: the last time of any record (an EXIT's too) */
	if (rec->type != PERF_RECORD_SAMPLE && rec->has_sid)
		hbbp_throttle__seen(&d->acc.throttle, rec->sid.time);
	if (rec->type == PERF_RECORD_EXIT || rec->type == PERF_RECORD_FORK)
		hbbp_throttle__seen(&d->acc.throttle, rec->task.time);
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		if ((rec->sample.present & PERF_SAMPLE_TIME) && rec->evidx >= 0 &&
		    hbbp_throttle__sample(&d->acc.throttle, rec->evidx, rec->sample.cpu,
					  rec->sample.time, rec->sample.period))
			return -ENOMEM;
		hbbp_sample__digest(d->acc.ev, d->acc.nr_events, d->acc.batch_slot, rec, &it);
		err = hbbp_accum__count_item(&d->acc, &it);
		if (!err && it.kind == HBBP_ITEM_LBR && d->defer)
			it.weight = 0;	/* its weight comes at the end (hbbp_driver__finish) */
		if (!err && it.kind == HBBP_ITEM_EBS)
			err = driver_ebs(d, &it);
		else if (!err && it.kind == HBBP_ITEM_LBR)
			err = driver_stack(d, &it);
		return err;
	case PERF_RECORD_THROTTLE: case PERF_RECORD_UNTHROTTLE:
		if (rec->evidx < 0)
			return 0;
		return hbbp_throttle__record(&d->acc.throttle, rec->evidx,
					     rec->has_sid ? rec->sid.cpu : 0, rec->throttle.time,
					     rec->type == PERF_RECORD_THROTTLE);
	case PERF_RECORD_READ:
		return hbbp_accum__read_value(&d->acc, rec->read.pid, rec->read.tid,
					      rec->has_sid ? rec->sid.cpu : 0, rec->evidx,
					      rec->read.time_enabled, rec->read.time_running);
	default:
		break;
	}
	if (record_keeps_maps(rec->type))	/* LOST, THROTTLE: counted by the reader */
		return 0;
	err = d->stacks.nr ? driver_flush(d) : 0;
	if (err)
		return err;
	d->lgen++;	/* the address spaces may change: forget cached lookups */
	err = hbbp_code_bbmap__record(d->s, rec);
	if (err == -ENOMEM)
		return err;
	if (err)	/* a malformed map or build-id: left out, said in the run's notes */
		d->nr_record_errors++;
	return 0;
}

void hbbp_driver__finish(struct hbbp_driver *d)
{
	int err = driver_flush(d);

	err = err ? err : hbbp_sum_queue__drain(&d->ebsq, &d->acc.ebs);
	if (!err && d->defer) {
		err = hbbp_lbr_time__finish(d->defer->t);
		err = err ? err : hbbp_lbr_defer__apply(d->defer, &d->acc,
				d->defer->t->status == HBBP_LBR_TIME_OK ? d->defer->t : NULL);
	}
	d->sstats.inserts = d->stacks.nr_inserts;
	hbbp_stack_cache__exit(&d->stacks);	/* flushed: its memory is of no more use */
	if (err && !d->flush_err)
		d->flush_err = err;
	hbbp_accum__scale(&d->acc);
}
