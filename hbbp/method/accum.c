/* The method's accumulators (method.md §2, §4, §5, §7): what one sample, one LBR stack or one
 * LOST/THROTTLE/READ record adds to them, written once for whoever reads the records (the
 * engine's record loop, hbbp/engine/driver.c).
 * EBS samples accumulate their period per resolved (thread, dso, vaddr); LBR stacks are cut
 * into n-1 streams weighted period/(n-1), validated, and accumulated per (thread, dso, to,
 * from); slot counters per branch feed the bias flag.
 * Single-threaded. Never prints (debug logging aside); never opens files.
 * Depends on hbbp/method/method.h, util/hmap.h and the reader's record structs only.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/method/method.h"
#include "util/grow.h"
#include "util/hbbp_err.h"

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

/* method.md §2: the roles come with the events; an LBR role needs the all-branches filter. */
int hbbp_accum__init(struct hbbp_accum *a, const struct hbbp_code_ops *ops,
		     const struct perf_event_info *const *events,
		     const struct hbbp_event_role *roles, size_t nr_events)
{
	size_t i;

	memset(a, 0, sizeof(*a));
	a->ops = ops;
	a->per_thread = true;
	a->ev = calloc(nr_events ? nr_events : 1, sizeof(*a->ev));
	if (!a->ev)
		return -ENOMEM;
	a->nr_events = nr_events;
	for (i = 0; i < nr_events; i++) {
		a->ev[i].role = roles[i].role;
		a->ev[i].role_reason = roles[i].reason;
		a->ev[i].branch_any = roles[i].branch_any;
		a->ev[i].name = events[i]->name;
		a->ev[i].scale = 1.0;
		/* An LBR role without the all-branches filter gives no valid streams. */
		if (a->ev[i].role == HBBP_ROLE_LBR && !a->ev[i].branch_any)
			a->ev[i].role = HBBP_ROLE_UNUSED;
	}
	hmap__init(&a->ebs, 4, sizeof(struct hbbp_ebs_val));
	hmap__init(&a->streams, 5, sizeof(struct hbbp_stream_val));
	hmap__init(&a->bias, 4, sizeof(struct hbbp_bias_val));
	hmap__init(&a->unres, 1, sizeof(struct hbbp_unresolved));
	hmap__init(&a->reads, 3, 2 * sizeof(uint64_t));
	return 0;
}

void hbbp_accum__exit(struct hbbp_accum *a)
{
	if (!a)
		return;
	free(a->ev);
	hmap__exit(&a->ebs);
	hmap__exit(&a->streams);
	hmap__exit(&a->bias);
	hmap__exit(&a->unres);
	hmap__exit(&a->reads);
	free(a->locs);
	free(a->flags);
	memset(a, 0, sizeof(*a));
}

/* Weight that could not be attributed, by dso (method.md §4, §5: never dropped silently). */
struct hbbp_unresolved *hbbp_accum__dso_acct(struct hbbp_accum *a, struct bbmap_dso *dso)
{
	uint64_t key = (uintptr_t)dso;
	struct hbbp_unresolved *u;

	if (a->acct_last && a->acct_nr == a->unres.nr && a->acct_last->dso == dso)
		return a->acct_last;
	u = hmap__get(&a->unres, &key, NULL);
	if (!u)
		return NULL;
	u->dso = dso;
	a->acct_last = u;
	a->acct_nr = a->unres.nr;
	return u;
}

int hbbp_accum__unresolved_add(struct hbbp_accum *a, struct bbmap_dso *dso, bool lbr,
			       uint64_t n, double weight)
{
	struct hbbp_unresolved *u = hbbp_accum__dso_acct(a, dso);

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

const char *hbbp_accum__comm(const struct hbbp_accum *a, uint32_t pid, uint32_t tid)
{
	return a->ops && a->ops->thread_comm ? a->ops->thread_comm(a->ops->ctx, pid, tid) : NULL;
}

/* method.md §7: the values are cumulative; the latest (largest) per counter is kept. */
int hbbp_accum__read_value(struct hbbp_accum *a, uint32_t pid, uint32_t tid, uint32_t cpu,
			   int evidx, uint64_t enabled, uint64_t running)
{
	uint64_t key[3] = { (uint64_t)pid << 32 | tid, cpu, (uint64_t)evidx };
	uint64_t *v;

	if (evidx < 0 || (size_t)evidx >= a->nr_events || (!enabled && !running))
		return 0;
	v = hmap__get(&a->reads, key, NULL);
	if (!v)
		return -ENOMEM;
	if (enabled >= v[0]) {
		v[0] = enabled;
		v[1] = running;
	}
	return 0;
}

/* method.md §7: enabled / running per event, summed over the counters read. */
void hbbp_accum__scale(struct hbbp_accum *a)
{
	size_t i;
	const uint64_t *key;
	uint64_t *v;

	if (a->ebs_unmapped_n &&
	    !hbbp_accum__unresolved_add(a, NULL, false, a->ebs_unmapped_n, a->ebs_unmapped_w)) {
		a->ebs_unmapped_n = 0;	/* added once */
		a->ebs_unmapped_w = 0;
	}

	for (i = 0; i < a->nr_events; i++)
		a->ev[i].time_enabled = a->ev[i].time_running = 0;
	hmap__for_each(&a->reads, i, key, v) {
		a->ev[key[2]].time_enabled += v[0];
		a->ev[key[2]].time_running += v[1];
	}
	for (i = 0; i < a->nr_events; i++) {
		struct hbbp_event_state *e = &a->ev[i];

		e->scale = 1.0;
		if (e->time_running && e->time_running < e->time_enabled)
			e->scale = (double)e->time_enabled / (double)e->time_running;
	}
}

unsigned int hbbp_sample__batch(const struct perf_record *rec, unsigned int slot)
{
	const struct perf_sample *s = &rec->sample;

	if (slot && (s->present & PERF_SAMPLE_TIME))
		return hbbp_batch__of_time(s->time, slot);
	return hbbp_batch__of(s->present & PERF_SAMPLE_TIME ? s->time : rec->file_offset, s->ip,
			      s->tid);
}

/* method.md §2 (EBS samples give their IP, LBR samples their stack, by the event's role) and
 * §5 (a partly filled LBR is padded with 0/0 entries at its oldest end: they are no branches). */
void hbbp_sample__digest(const struct hbbp_event_state *ev, size_t nr_events,
			 const struct perf_record *rec, struct hbbp_sample_item *it)
{
	const struct perf_sample *s = &rec->sample;
	const struct perf_branch_entry *e = s->branches;
	int evidx = rec->evidx;
	uint64_t n;

	it->kind = HBBP_ITEM_BAD_EVENT;
	it->evidx = evidx;
	it->nr = 0;
	it->batch = 0;
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
	if (evidx < 0 || (size_t)evidx >= nr_events)
		return;		/* HBBP_ITEM_BAD_EVENT, every field set */
	switch (ev[evidx].role) {
	case HBBP_ROLE_EBS:
		it->kind = HBBP_ITEM_EBS;
		return;
	case HBBP_ROLE_LBR:
		break;
	default:
		it->kind = HBBP_ITEM_UNUSED;
		return;
	}
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
	it->weight = (double)it->period;	/* §5; §5b: hbbp_lbr_time__weigh */
	it->lbr_time = it->lbr_fallback = it->lbr_by_ip = 0;
}

/* The diagnostics of one sample (method.md §2, §5) and its read values (§7). */
int hbbp_accum__count_item(struct hbbp_accum *a, const struct hbbp_sample_item *it)
{
	struct hbbp_event_state *ev;

	a->nr_samples++;
	if (it->kind == HBBP_ITEM_BAD_EVENT) {
		a->nr_unused_samples++;
		return 0;
	}
	ev = &a->ev[it->evidx];
	ev->samples++;
	ev->zero_entries += it->zero_entries;
	switch (it->kind) {
	case HBBP_ITEM_EBS:
		ev->bs.b[it->batch < HBBP_BATCHES ? it->batch : 0] += (double)it->period;
		break;
	case HBBP_ITEM_LBR_SHORT:
		ev->stacks_short++;
		break;
	case HBBP_ITEM_LBR:
		ev->samples_used++;
		ev->lbr_time_stacks += it->lbr_time;
		ev->lbr_time_fallback += it->lbr_fallback;
		ev->lbr_time_by_ip += it->lbr_by_ip;
		/* the periods (not the time weights): the role's known total (interval.h) */
		ev->bs.b[it->batch < HBBP_BATCHES ? it->batch : 0] += (double)it->period;
		break;
	default:
		a->nr_unused_samples++;
		break;
	}
	if (it->has_read)
		return hbbp_accum__read_value(a, it->pid, it->tid, it->cpu, it->evidx,
					      it->time_enabled, it->time_running);
	return 0;
}

int hbbp_accum__sum(struct hmap *h, const uint64_t *key, double period, uint64_t n,
		    unsigned int batch)
{
	struct hbbp_ebs_val *v = hmap__get(h, key, NULL);

	if (!v)
		return -ENOMEM;
	v->period += period;
	v->n += n;
	v->bs.b[batch < HBBP_BATCHES ? batch : 0] += period;
	return 0;
}

/* method.md §4: the sample's period goes to the instruction at its IP (the block is found at
 * attribution); unmapped IPs are kept per thread as one "[unmapped]" row. */
int hbbp_accum__ebs_key(struct hbbp_accum *a, uint32_t pid, uint32_t tid, int evidx,
			const struct bbmap_loc *loc, double period, uint64_t n, uint64_t *key)
{
	if (!loc || !loc->dso) {
		loc = NULL;
		a->ebs_unmapped_n += n;
		a->ebs_unmapped_w += period;
	} else {
		a->ev[evidx].samples_used += n;
	}
	key[0] = a->per_thread ? (uint64_t)pid << 32 | tid : 0;
	key[1] = loc ? (uintptr_t)loc->dso : 0;
	key[2] = loc ? loc->vaddr : 0;
	key[3] = (uint64_t)evidx;
	return 0;
}

/* *s += x, the rounding error kept in *c when a->compensated (Neumaier's summation) */
static void accum_add(const struct hbbp_accum *a, double *s, double *c, double x)
{
	double t;

	if (!a->compensated) {
		*s += x;
		return;
	}
	t = *s + x;
	*c += fabs(*s) >= fabs(x) ? (*s - t) + x : (x - t) + *s;
	*s = t;
}

void hbbp_accum__compensate(struct hbbp_accum *a)
{
	struct hbbp_stream_val *v;
	const uint64_t *key;
	size_t i;

	hmap__for_each(&a->streams, i, key, v) {
		v->weight += v->comp;
		v->comp = 0;
	}
	for (i = 0; i < REJ__COUNT; i++) {
		a->rejected_weight[i] += a->rejected_comp[i];
		a->rejected_comp[i] = 0;
	}
}

static int accum_reject(struct hbbp_accum *a, enum hbbp_reject why, double w, uint64_t cnt,
			bool unresolved)
{
	a->rejected[why] += cnt;
	accum_add(a, &a->rejected_weight[why], &a->rejected_comp[why], w);
	if (unresolved)
		return hbbp_accum__unresolved_add(a, NULL, true, cnt, w);
	return 0;
}

/* Stream weight per dso touched (either end), and how much of it was rejected. */
static int accum_stream_dsos(struct hbbp_accum *a, struct bbmap_dso *x, struct bbmap_dso *y,
			     double w, bool rejected)
{
	struct hbbp_unresolved *u;

	if (x) {
		u = hbbp_accum__dso_acct(a, x);
		if (!u)
			return -ENOMEM;
		u->lbr_total += w;
		if (rejected)
			u->lbr_rejected += w;
	}
	if (y && y != x) {
		u = hbbp_accum__dso_acct(a, y);
		if (!u)
			return -ENOMEM;
		u->lbr_total += w;
		if (rejected)
			u->lbr_rejected += w;
	}
	return 0;
}

/* Per branch (from, to) of a stack: method.md §5 (bias, decision) slot counters, oldest slot
 * e[n-1], newest e[0], when its source is mapped; and whether its target is a block leader
 * (§3: every branch target seen in the LBR data starts a block, the oldest entry's and those
 * of rejected streams too; not a wrong-path entry's, never executed). One entry per branch
 * serves both. */
static bool branch_key(const struct hbbp_end *locs, uint64_t k, uint64_t *key)
{
	const struct hbbp_end *lf = &locs[2 * k], *lt = &locs[2 * k + 1];

	if (!lf->dso && !lt->dso)
		return false;
	key[0] = (uintptr_t)lf->dso;
	key[1] = lf->dso ? lf->vaddr : 0;
	key[2] = (uintptr_t)lt->dso;
	key[3] = lt->dso ? lt->vaddr : 0;
	return true;
}

static int accum_branches(struct hbbp_accum *a, const uint8_t *flags,
			  const struct hbbp_end *locs, uint64_t n, uint64_t cnt,
			  const uint64_t *hash)
{
	double share = (double)cnt / (double)n;	/* each slot's chance share, once */
	uint64_t k;

	for (k = 0; k < n; k++) {
		const struct hbbp_end *lf = &locs[2 * k], *lt = &locs[2 * k + 1];
		uint64_t key[4];
		struct hbbp_bias_val *b;

		if (!branch_key(locs, k, key))
			continue;
		b = hmap__get_hashed(&a->bias, key, hash ? hash[k] : hmap__hash(&a->bias, key),
				     NULL);
		if (!b)
			return -ENOMEM;
		if (lt->dso && !(flags[k] & HBBP_ENTRY_WRONG))
			b->target = 1;
		if (!lf->dso)
			continue;
		b->all += cnt;
		b->expected += share;
		if (k == n - 1)
			b->oldest += cnt;
		if (k == 0)
			b->newest += cnt;
	}
	return 0;
}

void hbbp_lbr_entry_flags(const struct perf_branch_entry *e, uint64_t n, uint8_t *flags)
{
	uint64_t k;

	for (k = 0; k < n; k++)
		flags[k] = hbbp_lbr_entry_flag(e, k);
}

/* method.md §5: whether the stream e[k].to .. e[k-1].from is kept (REJ__COUNT) or why not. */
static enum hbbp_reject stream_class(const uint8_t *flags, const struct hbbp_end *locs,
				     uint64_t k)
{
	const struct hbbp_end *lto = &locs[2 * k + 1], *lfrom = &locs[2 * (k - 1)];

	if ((flags[k] | flags[k - 1]) & HBBP_ENTRY_WRONG)
		return REJ_SPECULATIVE;
	if (flags[k] & HBBP_ENTRY_BACK)
		return REJ_BACKWARD;
	if (!lto->dso || !lfrom->dso)
		return REJ_UNMAPPED;
	if (lto->dso != lfrom->dso)
		return REJ_CROSS_MODULE;
	if (lto->vaddr > lfrom->vaddr)
		return REJ_BACKWARD;
	if (lfrom->vaddr - lto->vaddr > HBBP_MAX_STREAM_BYTES)
		return REJ_TOO_LONG;
	return REJ__COUNT;
}

/* stacks up to this deep have their map entries loaded ahead (hbbp_accum__lbr_stack_w) */
#define HBBP_STACK_PREFETCH	64

/* The streams map key of the kept stream e[k].to .. e[k-1].from. */
static void stream_key(uint64_t thr, const struct hbbp_end *locs, uint64_t k, int evidx,
		       uint64_t *key)
{
	key[0] = thr;
	key[1] = (uintptr_t)locs[2 * k + 1].dso;
	key[2] = locs[2 * k + 1].vaddr;
	key[3] = locs[2 * (k - 1)].vaddr;
	key[4] = (uint64_t)evidx;
}

/* method.md §5: the streams e[k].to .. e[k-1].from of a stack and their rejections. */
int hbbp_accum__lbr_stack(struct hbbp_accum *a, hbbp_lookup_fn *lookup, void *lctx,
			  uint32_t pid, uint32_t tid, int cpumode, int evidx,
			  const struct perf_branch_entry *e, uint64_t n, double period, uint64_t cnt,
			  const struct hbbp_bsum *bs)
{
	return hbbp_accum__lbr_stack_w(a, lookup, lctx, pid, tid, cpumode, evidx, e, n, period,
				       period, cnt, bs);
}

void hbbp_accum__lbr_resolve(hbbp_lookup_fn *lookup, void *lctx, uint32_t pid, int cpumode,
			     const struct perf_branch_entry *e, uint64_t n, struct hbbp_end *locs)
{
	uint64_t k;

	for (k = 0; k < 2 * n; k++) {
		uint64_t addr = k & 1 ? e[k / 2].to : e[k / 2].from;
		struct bbmap_loc loc = { 0 };

		if (!addr || lookup(lctx, pid, hbbp_branch_cpumode(cpumode, addr), addr, &loc))
			loc.dso = NULL;
		locs[k].dso = loc.dso;
		locs[k].vaddr = loc.vaddr;
	}
}

int hbbp_accum__lbr_stack_w(struct hbbp_accum *a, hbbp_lookup_fn *lookup, void *lctx,
			    uint32_t pid, uint32_t tid, int cpumode, int evidx,
			    const struct perf_branch_entry *e, uint64_t n, double period,
			    double period_plain, uint64_t cnt, const struct hbbp_bsum *bs)
{
	/* n is bounded by the record size (64 KiB / 24 bytes per entry) */
	if (grow_array((void **)&a->locs, &a->alloc_locs, sizeof(*a->locs), 2 * n, SIZE_MAX) ||
	    grow_array((void **)&a->flags, &a->alloc_flags, 1, n, SIZE_MAX))
		return -ENOMEM;
	hbbp_accum__lbr_resolve(lookup, lctx, pid, cpumode, e, n, a->locs);
	hbbp_lbr_entry_flags(e, n, a->flags);
	return hbbp_accum__lbr_sum(a, pid, tid, evidx, a->flags, n, a->locs, period, period_plain,
				   cnt, bs);
}

int hbbp_accum__lbr_sum(struct hbbp_accum *a, uint32_t pid, uint32_t tid, int evidx,
			const uint8_t *flags, uint64_t n, const struct hbbp_end *locs,
			double period, double period_plain, uint64_t cnt,
			const struct hbbp_bsum *bs)
{
	uint64_t k, thr = a->per_thread ? (uint64_t)pid << 32 | tid : 0;
	struct hbbp_event_state *ev = &a->ev[evidx];
	struct hbbp_bsum wbs;
	uint64_t bh[HBBP_STACK_PREFETCH], sh[HBBP_STACK_PREFETCH];
	enum hbbp_reject why[HBBP_STACK_PREFETCH];
	double w, wp;
	int err, only = -1;
	bool pf;

	/* the map entries of the stack's branches and streams, loaded ahead together: most
	 * miss the CPU caches, and their loads overlap this way */
	pf = n <= HBBP_STACK_PREFETCH;
	for (k = 0; pf && k < n; k++) {
		uint64_t key[5];

		if (branch_key(locs, k, key)) {
			bh[k] = hmap__hash(&a->bias, key);
			hmap__prefetch(&a->bias, bh[k], 0);
		}
		why[k] = k ? stream_class(flags, locs, k) : REJ__COUNT;
		if (k && why[k] == REJ__COUNT) {
			stream_key(thr, locs, k, evidx, key);
			sh[k] = hmap__hash(&a->streams, key);
			hmap__prefetch(&a->streams, sh[k], 0);
		}
	}
	for (k = 0; pf && k < n; k++) {
		if (locs[2 * k].dso || locs[2 * k + 1].dso)
			hmap__prefetch(&a->bias, bh[k], 1);
		if (k && why[k] == REJ__COUNT)
			hmap__prefetch(&a->streams, sh[k], 1);
	}
	err = accum_branches(a, flags, locs, n, cnt, pf ? bh : NULL);
	if (err)
		return err;
	w = period / (double)(n - 1);
	wp = period_plain / (double)(n - 1);
	ev->streams += cnt * (n - 1);
	ev->stream_weight += period;
	ev->stream_weight_plain += period_plain;
	/* the batch sums of each stream: bs / (n-1); most stacks were seen in one batch only */
	for (k = 0; k < HBBP_BATCHES; k++) {
		wbs.b[k] = bs->b[k] / (double)(n - 1);
		if (bs->b[k] != 0)
			only = only == -1 ? (int)k : -2;
	}
	for (k = 1; k < n; k++) {
		const struct hbbp_end *lto = &locs[2 * k + 1], *lfrom = &locs[2 * (k - 1)];
		enum hbbp_reject r = pf ? why[k] : stream_class(flags, locs, k);
		uint64_t key[5];
		struct hbbp_stream_val *v;
		bool rejected = true;

		if (r == REJ_BACKWARD && (flags[k] & HBBP_ENTRY_BACK))
			pr_debug("stream backward in run-time addresses (entries %" PRIu64 "/%" PRIu64
				 ")", k, n);
		else if (r == REJ_UNMAPPED)
			pr_debug("stream %s .. %s: unmapped (entries %" PRIu64 "/%" PRIu64 ")",
				 lto->dso ? "mapped" : "unmapped", lfrom->dso ? "mapped" : "unmapped",
				 k, n);
		if (r != REJ__COUNT) {
			err = accum_reject(a, r, w, cnt, r == REJ_UNMAPPED);
		} else {
			stream_key(thr, locs, k, evidx, key);
			v = hmap__get_hashed(&a->streams, key,
					     pf ? sh[k] : hmap__hash(&a->streams, key), NULL);
			if (!v)
				return -ENOMEM;
			accum_add(a, &v->weight, &v->comp, w);
			v->weight_plain += wp;
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
		err = accum_stream_dsos(a, lto->dso, lfrom->dso, w, rejected);
		if (err)
			return err;
	}
	return 0;
}
