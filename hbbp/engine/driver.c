/* The method's single pass (method.md §2, §4, §5, §7): every record in delivery order.
 * Non-sample records go to the code ops (address spaces); LOST/THROTTLE are counted per
 * event; READ values feed multiplexing; EBS samples accumulate their period per resolved
 * (thread, dso, vaddr); LBR stacks are cut into n-1 streams weighted period/(n-1), validated,
 * and accumulated per (thread, dso, to, from); slot counters per branch feed the bias flag.
 * Identical stacks (most repeat) are first summed by their raw addresses and resolved once,
 * before the next record that may change an address space.
 * Every sum is also kept per batch of the samples (hbbp/method/interval.h, method.md §10): a
 * sample's batch comes from the sample alone, so the sums are those of any reading order.
 * No allocation per sample beyond amortised hash growth. Never prints; never opens files.
 * Depends on hbbp/method/method.h, util/hmap.h and the reader's record structs only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/method/method.h"
#include "util/hbbp_err.h"

static int driver_merge_bundle(struct hbbp_driver *d);

const char *hbbp_method_name(enum hbbp_method m)
{
	switch (m) {
	case HBBP_METHOD_HBBP: return "hbbp";
	case HBBP_METHOD_EBS: return "ebs";
	case HBBP_METHOD_LBR: return "lbr";
	}
	return "?";
}

const char *hbbp_reject_name(enum hbbp_reject r)
{
	static const char *const names[REJ__COUNT] = {
		[REJ_BACKWARD] = "to>from",
		[REJ_UNMAPPED] = "unmapped",
		[REJ_CROSS_MODULE] = "cross-module",
		[REJ_TOO_LONG] = "too-long",
		[REJ_SPECULATIVE] = "speculative",
		[REJ_NO_CODE] = "no-code",
		[REJ_WALK_JUMP] = "walk-jump",
		[REJ_WALK_UNDECODED] = "walk-undecoded",
		[REJ_WALK_BOUND] = "walk-bound",
	};
	return (unsigned)r < REJ__COUNT ? names[r] : "?";
}

int hbbp_driver__init(struct hbbp_driver *d, const struct hbbp_code_ops *ops,
		      const struct perf_event_info *const *events, size_t nr_events)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	d->ops = ops;
	d->ev = calloc(nr_events ? nr_events : 1, sizeof(*d->ev));
	if (!d->ev)
		return -ENOMEM;
	d->nr_events = nr_events;
	for (i = 0; i < nr_events; i++) {
		d->ev[i].role = events[i]->role;
		d->ev[i].branch_any = events[i]->branch_any;
		d->ev[i].name = events[i]->name;
		d->ev[i].scale = 1.0;
		/* An LBR role without the all-branches filter gives no valid streams. */
		if (d->ev[i].role == PERF_ROLE_LBR && !d->ev[i].branch_any)
			d->ev[i].role = PERF_ROLE_UNUSED;
	}
	hmap__init(&d->ebs, 4, sizeof(struct hbbp_ebs_val));
	hmap__init(&d->streams, 5, sizeof(struct hbbp_stream_val));
	hmap__init(&d->bias, 4, sizeof(struct hbbp_bias_val));
	hmap__init(&d->unres, 1, sizeof(struct hbbp_unresolved));
	hmap__init(&d->reads, 3, 2 * sizeof(uint64_t));
	hmap__init(&d->comms, 1, sizeof(uint64_t));
	hbbp_stack_cache__init(&d->stacks);
	return 0;
}

void hbbp_driver__exit(struct hbbp_driver *d)
{
	size_t i;

	if (!d)
		return;
	free(d->ev);
	hmap__exit(&d->ebs);
	hmap__exit(&d->streams);
	hmap__exit(&d->bias);
	hmap__exit(&d->unres);
	hmap__exit(&d->reads);
	hmap__exit(&d->comms);
	hbbp_stack_cache__exit(&d->stacks);
	for (i = 0; i < d->nr_comm; i++)
		free(d->comm[i]);
	free(d->comm);
	free(d->locs);
	memset(d, 0, sizeof(*d));
}

struct hbbp_unresolved *hbbp_driver__dso_acct(struct hbbp_driver *d, struct bbmap_dso *dso)
{
	uint64_t key = (uintptr_t)dso;
	struct hbbp_unresolved *u;

	if (d->acct_cache && d->acct_nr == d->unres.nr && d->acct_cache->dso == dso)
		return d->acct_cache;
	u = hmap__get(&d->unres, &key, NULL);
	if (!u)
		return NULL;
	u->dso = dso;
	d->acct_cache = u;
	d->acct_nr = d->unres.nr;
	return u;
}

int hbbp_driver__unresolved_add(struct hbbp_driver *d, struct bbmap_dso *dso, bool lbr,
				uint64_t n, double weight)
{
	struct hbbp_unresolved *u = hbbp_driver__dso_acct(d, dso);

	if (!u)
		return -ENOMEM;
	if (lbr) {
		u->lbr_streams += n;
		u->lbr_weight += weight;
	} else {
		u->ebs_samples += n;
		u->ebs_weight += weight;
	}
	return 0;
}

static int driver_set_comm(struct hbbp_driver *d, uint32_t tid, const char *comm)
{
	uint64_t key = tid, *slot;
	int ins;
	char *s;

	if (!comm)
		return 0;
	slot = hmap__get(&d->comms, &key, &ins);
	if (!slot)
		return -ENOMEM;
	if (!ins && !strcmp(d->comm[*slot], comm))
		return 0;
	s = strdup(comm);
	if (!s)
		return -ENOMEM;
	if (!ins) {
		free(d->comm[*slot]);
		d->comm[*slot] = s;
		return 0;
	}
	if (d->nr_comm == d->alloc_comm) {
		size_t n = d->alloc_comm ? d->alloc_comm * 2 : 64;
		char **nc = realloc(d->comm, n * sizeof(*nc));

		if (!nc) {
			free(s);
			return -ENOMEM;
		}
		d->comm = nc;
		d->alloc_comm = n;
	}
	*slot = d->nr_comm;
	d->comm[d->nr_comm++] = s;
	return 0;
}

const char *hbbp_driver__comm(const struct hbbp_driver *d, uint32_t pid, uint32_t tid)
{
	uint64_t key = tid;
	const uint64_t *slot = hmap__find(&d->comms, &key);

	if (!slot) {
		key = pid;
		slot = hmap__find(&d->comms, &key);
	}
	return slot ? d->comm[*slot] : NULL;
}

static int driver_read_value(struct hbbp_driver *d, uint32_t pid, uint32_t tid, uint32_t cpu,
			     int evidx, uint64_t enabled, uint64_t running)
{
	uint64_t key[3] = { (uint64_t)pid << 32 | tid, cpu, (uint64_t)evidx };
	uint64_t *v;

	if (evidx < 0 || (size_t)evidx >= d->nr_events || (!enabled && !running))
		return 0;
	v = hmap__get(&d->reads, key, NULL);
	if (!v)
		return -ENOMEM;
	/* The values are cumulative: keep the latest (largest) per counter. */
	if (enabled >= v[0]) {
		v[0] = enabled;
		v[1] = running;
	}
	return 0;
}

void hbbp_driver__finish(struct hbbp_driver *d)
{
	size_t i;
	void *val;
	const uint64_t *key;
	int err = d->bundle && !d->bundle_merged ? driver_merge_bundle(d) : 0;

	err = err ? err : hbbp_driver__flush(d);
	err = err ? err : hbbp_sum_queue__drain(&d->ebsq, &d->ebs);
	if (err && !d->flush_err)
		d->flush_err = err;

	for (i = 0; i < d->nr_events; i++)
		d->ev[i].time_enabled = d->ev[i].time_running = 0;
	for (i = 0; i < d->reads.cap; i++) {
		uint64_t *v;

		key = hmap__slot(&d->reads, i, &val);
		if (!key)
			continue;
		v = val;
		d->ev[key[2]].time_enabled += v[0];
		d->ev[key[2]].time_running += v[1];
	}
	for (i = 0; i < d->nr_events; i++) {
		struct hbbp_event_state *e = &d->ev[i];

		e->scale = 1.0;
		if (e->time_running && e->time_running < e->time_enabled)
			e->scale = (double)e->time_enabled / (double)e->time_running;
	}
}

/* ops->lookup through the cache (see struct hbbp_lookup_slot). */
static int driver_lookup(struct hbbp_driver *d, uint32_t pid, int cpumode, uint64_t addr,
			 struct bbmap_loc *loc)
{
	struct hbbp_lookup_slot *sl;
	uint64_t h;

	if (pid != d->lpid) {
		d->lpid = pid;
		d->lgen++;
	}
	if (!d->lgen)
		d->lgen = 1;
	h = (addr ^ (addr >> 7) ^ (addr >> 17)) * 0x9e3779b97f4a7c15ULL;
	sl = &d->lcache[h >> 56 & (HBBP_LOOKUP_CACHE - 1)];
	d->nr_lookups++;
	if (sl->gen == d->lgen && sl->addr == addr && sl->cpumode == cpumode) {
		d->nr_lookup_hits++;
		*loc = sl->loc;
		return sl->rc;
	}
	memset(loc, 0, sizeof(*loc));
	sl->rc = d->ops->lookup(d->ops->ctx, pid, cpumode, addr, loc);
	if (sl->rc)
		loc->dso = NULL;
	sl->addr = addr;
	sl->cpumode = cpumode;
	sl->gen = d->lgen;
	sl->loc = *loc;
	return sl->rc;
}

/* cpumode for a branch end: kernel half of the address space goes to kernel maps. */
static int branch_cpumode(int sample_cpumode, uint64_t addr)
{
	bool kernel = addr >> 63;

	if (sample_cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
	    sample_cpumode == PERF_RECORD_MISC_GUEST_USER)
		return kernel ? PERF_RECORD_MISC_GUEST_KERNEL : PERF_RECORD_MISC_GUEST_USER;
	return kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
}

/* n EBS samples of thread pid/tid at ip, their periods summing to period: per batch bs, or
 * all in batch batch when bs is NULL */
static int driver_ebs_add(struct hbbp_driver *d, uint32_t pid, uint32_t tid, int cpumode,
			  uint64_t ip, int evidx, double period, uint64_t n, unsigned int batch,
			  const struct hbbp_bsum *bs)
{
	struct bbmap_loc loc;
	uint64_t key[4];

	if (driver_lookup(d, pid, cpumode, ip, &loc) || !loc.dso) {
		/* Unmapped IPs are kept per thread as one "[unmapped]" row. */
		loc.dso = NULL;
		loc.vaddr = 0;
		if (hbbp_driver__unresolved_add(d, NULL, false, n, period))
			return -ENOMEM;
	} else {
		d->ev[evidx].samples_used += n;
	}
	key[0] = (uint64_t)pid << 32 | tid;
	key[1] = (uintptr_t)loc.dso;
	key[2] = loc.vaddr;
	key[3] = (uint64_t)evidx;
	if (bs)
		return hbbp_sum_queue__add_sums(&d->ebsq, &d->ebs, key, period, n, bs);
	return hbbp_sum_queue__add(&d->ebsq, &d->ebs, key, period, n, batch);
}

static int driver_reject(struct hbbp_driver *d, enum hbbp_reject why, double w, uint64_t cnt,
			 struct bbmap_dso *dso, bool unresolved)
{
	d->rejected[why] += cnt;
	d->rejected_weight[why] += w;
	if (unresolved)
		return hbbp_driver__unresolved_add(d, dso, true, cnt, w);
	return 0;
}

/* Stream weight per dso touched (either end), and how much of it was rejected. */
static int driver_acct_stream(struct hbbp_driver *d, struct bbmap_dso *a, struct bbmap_dso *b,
			      double w, bool rejected)
{
	struct hbbp_unresolved *u;

	if (a) {
		u = hbbp_driver__dso_acct(d, a);
		if (!u)
			return -ENOMEM;
		u->lbr_total += w;
		if (rejected)
			u->lbr_rejected += w;
	}
	if (b && b != a) {
		u = hbbp_driver__dso_acct(d, b);
		if (!u)
			return -ENOMEM;
		u->lbr_total += w;
		if (rejected)
			u->lbr_rejected += w;
	}
	return 0;
}

static bool entry_spec_wrong(const struct perf_branch_entry *e)
{
	return PERF_BR_SPEC(e->flags) == PERF_BR_SPEC_WRONG_PATH;
}

/* Resolves, validates and accumulates the stack e[0..n) (n >= 2, newest first) of thread
 * pid/tid, seen cnt times with periods summing to period, bs per batch. */
static int driver_lbr_stack(struct hbbp_driver *d, uint32_t pid, uint32_t tid, int cpumode,
			    int evidx, const struct perf_branch_entry *e, uint64_t n,
			    double period, uint64_t cnt, const struct hbbp_bsum *bs)
{
	uint64_t k, thr = (uint64_t)pid << 32 | tid;
	struct hbbp_event_state *ev = &d->ev[evidx];
	struct hbbp_bsum wbs;
	double w;
	int err, only = -1;

	/* n is bounded by the record size (64 KiB / 24 bytes per entry) */
	if (2 * n > d->alloc_locs) {
		struct bbmap_loc *nl = realloc(d->locs, 2 * n * sizeof(*nl));

		if (!nl)
			return -ENOMEM;
		d->locs = nl;
		d->alloc_locs = 2 * n;
	}
	/* locs[2k] = from of e[k], locs[2k+1] = to of e[k] */
	for (k = 0; k < n; k++) {
		struct bbmap_loc *lf = &d->locs[2 * k], *lt = &d->locs[2 * k + 1];

		if (!e[k].from || driver_lookup(d, pid, branch_cpumode(cpumode, e[k].from),
						e[k].from, lf))
			lf->dso = NULL;
		if (!e[k].to || driver_lookup(d, pid, branch_cpumode(cpumode, e[k].to),
					      e[k].to, lt))
			lt->dso = NULL;
	}
	/* Slot counters per branch for the bias flag (oldest e[n-1], newest e[0]). */
	for (k = 0; k < n; k++) {
		const struct bbmap_loc *lf = &d->locs[2 * k], *lt = &d->locs[2 * k + 1];
		uint64_t key[4];
		struct hbbp_bias_val *b;

		if (!lf->dso)
			continue;
		key[0] = (uintptr_t)lf->dso;
		key[1] = lf->vaddr;
		key[2] = (uintptr_t)lt->dso;
		key[3] = lt->dso ? lt->vaddr : 0;
		b = hmap__get(&d->bias, key, NULL);
		if (!b)
			return -ENOMEM;
		b->all += cnt;
		b->expected += (double)cnt / (double)n;
		if (k == n - 1)
			b->oldest += cnt;
		if (k == 0)
			b->newest += cnt;
	}
	w = period / (double)(n - 1);
	ev->streams += cnt * (n - 1);
	ev->stream_weight += period;
	/* the batch sums of each stream: bs / (n-1); most stacks were seen in one batch only */
	for (k = 0; k < HBBP_BATCHES; k++) {
		wbs.b[k] = bs->b[k] / (double)(n - 1);
		if (bs->b[k] != 0)
			only = only == -1 ? (int)k : -2;
	}
	for (k = 1; k < n; k++) {
		const struct bbmap_loc *lto = &d->locs[2 * k + 1], *lfrom = &d->locs[2 * (k - 1)];
		uint64_t to = e[k].to, from = e[k - 1].from;
		uint64_t key[5];
		struct hbbp_stream_val *v;
		bool rejected = true;

		if (entry_spec_wrong(&e[k]) || entry_spec_wrong(&e[k - 1])) {
			err = driver_reject(d, REJ_SPECULATIVE, w, cnt, NULL, false);
		} else if (to > from) {
			pr_debug("stream to 0x%" PRIx64 " > from 0x%" PRIx64 " (entries %" PRIu64
				 "/%" PRIu64 ")", to, from, k, n);
			err = driver_reject(d, REJ_BACKWARD, w, cnt, NULL, false);
		} else if (!lto->dso || !lfrom->dso) {
			pr_debug("stream 0x%" PRIx64 " (%s) .. 0x%" PRIx64 " (%s) unmapped", to,
				 lto->dso ? "mapped" : "unmapped", from,
				 lfrom->dso ? "mapped" : "unmapped");
			err = driver_reject(d, REJ_UNMAPPED, w, cnt, NULL, true);
		} else if (lto->dso != lfrom->dso) {
			err = driver_reject(d, REJ_CROSS_MODULE, w, cnt, NULL, false);
		} else if (lto->vaddr > lfrom->vaddr ||
			   lfrom->vaddr - lto->vaddr > HBBP_MAX_STREAM_BYTES) {
			err = driver_reject(d, lto->vaddr > lfrom->vaddr ? REJ_BACKWARD : REJ_TOO_LONG,
					    w, cnt, NULL, false);
		} else {
			key[0] = thr;
			key[1] = (uintptr_t)lto->dso;
			key[2] = lto->vaddr;
			key[3] = lfrom->vaddr;
			key[4] = (uint64_t)evidx;
			v = hmap__get(&d->streams, key, NULL);
			if (!v)
				return -ENOMEM;
			v->weight += w;
			v->n += cnt;
			if (only >= 0)
				v->bs.b[only] += wbs.b[only];
			else
				hbbp_bsum__axpy(&v->bs, 1.0, &wbs);
			err = 0;
			rejected = false;
		}
		if (err)
			return err;
		err = driver_acct_stream(d, lto->dso, lfrom->dso, w, rejected);
		if (err)
			return err;
	}
	return 0;
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
				       n, v->period, v->n, &v->bs);
	}
	hbbp_stack_cache__clear(&d->stacks);
	return err;
}

void hbbp_driver__digest(const struct hbbp_driver *d, const struct perf_record *rec,
			 struct hbbp_sample_item *it)
{
	const struct perf_sample *s = &rec->sample;
	const struct perf_branch_entry *e = s->branches;
	int evidx = rec->evidx;
	uint64_t n;

	it->kind = HBBP_ITEM_BAD_EVENT;
	it->evidx = evidx;
	it->nr = 0;
	it->batch = 0;
	if (evidx < 0 || (size_t)evidx >= d->nr_events)
		return;
	/* the batch: from the sample's time slot, else a hash of the sample (its time or its place
	 * in the file): the same however the file is read */
	if (d->batch_slot && (s->present & PERF_SAMPLE_TIME))
		it->batch = hbbp_batch__of_time(s->time, d->batch_slot);
	else
		it->batch = hbbp_batch__of(s->present & PERF_SAMPLE_TIME ? s->time
									  : rec->file_offset,
					   s->ip, s->tid);
	it->pid = s->pid;
	it->tid = s->tid;
	it->cpu = s->cpu;
	it->cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	it->has_read = s->present & PERF_SAMPLE_READ;
	it->time_enabled = s->time_enabled;
	it->time_running = s->time_running;
	it->ip = s->ip;
	it->period = s->period;
	it->zero_entries = 0;
	it->raw = NULL;
	switch (d->ev[evidx].role) {
	case PERF_ROLE_EBS:
		it->kind = HBBP_ITEM_EBS;
		return;
	case PERF_ROLE_LBR:
		break;
	default:
		it->kind = HBBP_ITEM_UNUSED;
		return;
	}
	/* A partly filled LBR is padded with 0/0 entries (oldest end): they are no branches. */
	n = s->nr_branches;
	while (n && e && !e[n - 1].from && !e[n - 1].to) {
		n--;
		it->zero_entries++;
	}
	if (n < 2 || !e) {
		it->kind = HBBP_ITEM_LBR_SHORT;
		return;
	}
	it->kind = HBBP_ITEM_LBR;
	it->nr = n;
	it->raw = e;
}

bool hbbp_driver__stack_key(const struct hbbp_sample_item *it, const struct perf_branch_entry *e,
			    uint64_t *key)
{
	uint64_t n = it->nr, k;

	if (n > HBBP_STACK_CACHE_DEPTH || it->evidx > 0xffff || it->evidx < 0)
		return false;
	for (k = 0; k < n; k++) {
		if (entry_spec_wrong(&e[k]))	/* flags are not kept in the cache */
			return false;
		key[2 + 2 * k] = e[k].from;
		key[3 + 2 * k] = e[k].to;
	}
	key[0] = (uint64_t)it->pid << 32 | it->tid;
	key[1] = (uint64_t)it->evidx | (uint64_t)it->cpumode << 16 | n << 32;
	return true;
}

/* cnt stacks key (hash h), their periods summing to period (per batch bs, or all in batch
 * batch when bs is NULL), into the cache */
static int driver_stack_add(struct hbbp_driver *d, const uint64_t *key, uint64_t h,
			    double period, uint64_t cnt, unsigned int batch,
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
	v->n += cnt;
	if (bs)
		hbbp_bsum__axpy(&v->bs, 1.0, bs);
	else
		v->bs.b[batch < HBBP_BATCHES ? batch : 0] += period;
	return 0;
}

int hbbp_driver__apply(struct hbbp_driver *d, const struct hbbp_sample_item *it,
		       const struct perf_branch_entry *e)
{
	uint64_t local[HBBP_STACK_KEY_WORDS], *key, n = it->nr;
	struct hbbp_event_state *ev;
	int err;

	d->nr_samples++;
	if (it->kind == HBBP_ITEM_BAD_EVENT) {
		d->nr_unused_samples++;
		return 0;
	}
	ev = &d->ev[it->evidx];
	ev->samples++;
	if (it->has_read) {
		err = driver_read_value(d, it->pid, it->tid, it->cpu, it->evidx, it->time_enabled,
					it->time_running);
		if (err)
			return err;
	}
	ev->zero_entries += it->zero_entries;
	switch (it->kind) {
	case HBBP_ITEM_EBS:
		ev->bs.b[it->batch < HBBP_BATCHES ? it->batch : 0] += (double)it->period;
		return driver_ebs_add(d, it->pid, it->tid, it->cpumode, it->ip, it->evidx,
				      (double)it->period, 1, it->batch, NULL);
	case HBBP_ITEM_LBR_SHORT:
		ev->stacks_short++;
		return 0;
	case HBBP_ITEM_LBR:
		break;
	default:
		d->nr_unused_samples++;
		return 0;
	}
	ev->samples_used++;
	ev->bs.b[it->batch < HBBP_BATCHES ? it->batch : 0] += (double)it->period;
	/* identical stacks are summed in the cache and resolved at the next flush: queued for
	 * their lookup while there is room for all queued, else added at once */
	key = hbbp_stack_cache__queue_key(&d->stacks);
	if (!hbbp_driver__stack_key(it, e, key ? key : local)) {
		struct hbbp_bsum bs;

		memset(&bs, 0, sizeof(bs));
		bs.b[it->batch < HBBP_BATCHES ? it->batch : 0] = (double)it->period;
		return driver_lbr_stack(d, it->pid, it->tid, it->cpumode, it->evidx, e, n,
					(double)it->period, 1, &bs);
	}
	if (key)
		return hbbp_stack_cache__queue(&d->stacks, hbbp_stack_cache__hash(key),
					       (double)it->period, 1, it->batch);
	return driver_stack_add(d, local, hbbp_stack_cache__hash(local), (double)it->period, 1,
				it->batch, NULL);
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
	size_t i;
	int err;

	d->bundle_merged = true;
	d->nr_samples += b->nr_samples;
	d->nr_unused_samples += b->nr_unused_samples;
	for (i = 0; i < d->nr_events; i++) {
		d->ev[i].samples += b->ev[i].samples;
		d->ev[i].samples_used += b->ev[i].lbr_used;
		d->ev[i].stacks_short += b->ev[i].stacks_short;
		d->ev[i].zero_entries += b->ev[i].zero_entries;
		hbbp_bsum__axpy(&d->ev[i].bs, 1.0, &b->ev[i].bs);
	}
	for (i = 0; i < b->ebs.nr; i++) {
		void *val;
		const uint64_t *key = hmap__slot(&b->ebs, i, &val);
		const struct hbbp_ebs_val *v = val;

		err = driver_ebs_add(d, (uint32_t)(key[0] >> 32), (uint32_t)key[0], (int)key[1],
				     key[2], (int)key[3], v->period, v->n, 0, &v->bs);
		if (err)
			return err;
	}
	for (i = 0; i < b->stacks.nr; i++) {
		const uint64_t *key = hbbp_stack_cache__key(&b->stacks, i);

		err = driver_stack_add(d, key, hbbp_stack_cache__hash(key),
				       b->stacks.vals[i].period, b->stacks.vals[i].n, 0,
				       &b->stacks.vals[i].bs);
		if (err)
			return err;
	}
	return 0;
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
	int evidx = rec->evidx;
	bool ev_ok = evidx >= 0 && (size_t)evidx < d->nr_events;

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

		hbbp_driver__digest(d, rec, &it);
		return hbbp_driver__apply(d, &it, it.raw);
	}
	case PERF_RECORD_LOST:
		d->nr_lost_records++;
		d->nr_lost += rec->lost.lost;
		if (ev_ok)
			d->ev[evidx].lost += rec->lost.lost;
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		d->nr_lost_samples += rec->lost_samples.lost;
		if (ev_ok)
			d->ev[evidx].lost += rec->lost_samples.lost;
		return 0;
	case PERF_RECORD_THROTTLE:
		d->nr_throttle++;
		if (ev_ok)
			d->ev[evidx].throttled++;
		return 0;
	case PERF_RECORD_READ:
		return driver_read_value(d, rec->read.pid, rec->read.tid,
					 rec->has_sid ? rec->sid.cpu : 0, evidx,
					 rec->read.time_enabled, rec->read.time_running);
	case PERF_RECORD_COMM:
		if (driver_set_comm(d, rec->comm.tid, rec->comm.comm))
			return -ENOMEM;
		break;
	case PERF_RECORD_FORK: {
		/* A child keeps its parent's comm until it execs. */
		const char *pc = hbbp_driver__comm(d, rec->task.ppid, rec->task.ptid);
		uint64_t key = rec->task.tid;

		if (pc && !hmap__find(&d->comms, &key)) {
			char *copy = strdup(pc);

			if (!copy || driver_set_comm(d, rec->task.tid, copy)) {
				free(copy);
				return -ENOMEM;
			}
			free(copy);
		}
		break;
	}
	default:
		break;
	}
	d->lgen++;	/* the address spaces may change: forget cached lookups */
	if (d->ops->record && d->ops->record(d->ops->ctx, rec))
		d->nr_record_errors++;
	return 0;
}
