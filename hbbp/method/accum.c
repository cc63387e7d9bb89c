/* The method's accumulator (method.md §2, §4, §5, §7): what one sample, one LBR stack or one
 * READ value adds to it. EBS samples accumulate their period per resolved (task, dso, vaddr);
 * LBR stacks are cut into n-1 streams weighted period/(n-1), validated, and accumulated per
 * (task, dso, to, from); slot counters per branch feed the bias flag.
 * Never prints (debug logging aside); never opens files.
 * Depends on hbbp/method/method.h, util/hmap.h and the reader's record structs only.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/method/method.h"
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
int hbbp_accum__init(struct hbbp_accum *a, const struct hbbp_code *code,
		     const struct perf_event_info *const *events,
		     const struct hbbp_event_role *roles, size_t nr_events)
{
	size_t i;

	memset(a, 0, sizeof(*a));
	a->code = code;
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
	hbbp_throttle__init(&a->throttle);
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
	hbbp_throttle__exit(&a->throttle);
	memset(a, 0, sizeof(*a));
}

/* The accounting entry of dso (NULL: unmapped), made on first use; NULL when out of memory. */
static struct hbbp_unresolved *dso_acct(struct hmap *unres, struct bbmap_dso *dso)
{
	uint64_t key = (uintptr_t)dso;
	struct hbbp_unresolved *u = hmap__get(unres, &key, NULL);

	if (u)
		u->dso = dso;
	return u;
}

/* Weight that could not be attributed, by dso (method.md §4, §5: never dropped silently).
 * The stream weight is summed with its rounding error kept apart (Neumaier's summation),
 * added in by hbbp_accum__scale: a total shown in full comes out the same (to its last
 * digit) in any order of the stacks. */
int hbbp_accum__unresolved_add(struct hbbp_accum *a, struct bbmap_dso *dso, bool lbr,
			       uint64_t n, double weight)
{
	struct hbbp_unresolved *u = dso_acct(&a->unres, dso);

	if (!u)
		return -ENOMEM;
	if (lbr) {
		double t = u->lbr_weight + weight;

		u->lbr_streams += n;
		u->lbr_weight_err += fabs(u->lbr_weight) >= fabs(weight) ?
				     (u->lbr_weight - t) + weight : (weight - t) + u->lbr_weight;
		u->lbr_weight = t;
	} else {
		u->ebs_samples += n;
		u->ebs_weight += weight;
	}
	return 0;
}

const char *hbbp_accum__comm(const struct hbbp_accum *a, uint32_t pid, uint32_t key,
			     uint32_t *tid)
{
	uint32_t t = key;
	const char *c = a->code && a->code->comm ? a->code->comm(a->code->ctx, pid, key, &t) : NULL;

	if (tid)
		*tid = t;
	return c;
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
	struct hbbp_unresolved *u;
	size_t i;
	const uint64_t *key;
	uint64_t *v;

	hmap__for_each(&a->unres, i, key, u) {
		u->lbr_weight += u->lbr_weight_err;
		u->lbr_weight_err = 0;
	}
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
		e->throttle_scale = hbbp_throttle__factor(&a->throttle, (int)i,
							  &e->throttled_frac,
							  &e->throttle_spread);
		if (a->no_throttle)
			e->throttle_scale = 1.0, e->throttle_spread = 0;
		e->scale *= e->throttle_scale;
	}
}

/* The batch of a sample (method.md §10, interval.h): its time slot when the recording's span
 * is known (slot: hbbp_batch__slot's shift), else a hash of its time or file offset, IP and
 * task. The same however the file is read. */
static unsigned int sample_batch(const struct perf_record *rec, unsigned int slot)
{
	const struct perf_sample *s = &rec->sample;

	if (slot && (s->present & PERF_SAMPLE_TIME))
		return hbbp_batch__of_time(s->time, slot);
	return hbbp_batch__of(s->present & PERF_SAMPLE_TIME ? s->time : rec->file_offset, s->ip,
			      s->tid);
}

/* method.md §2 (EBS samples give their IP, LBR samples their stack, by the event's role), §5
 * (a partly filled LBR is padded with 0/0 entries at its oldest end: they are no branches),
 * §5b (the stack's weight) and §10 (the batch). */
void hbbp_sample__digest(const struct hbbp_event_state *ev, size_t nr_events, unsigned int slot,
			 const struct perf_record *rec, struct hbbp_sample_item *it)
{
	const struct perf_sample *s = &rec->sample;
	const struct perf_branch_entry *e = s->branches;
	int evidx = rec->evidx;
	uint64_t n;

	it->kind = HBBP_ITEM_BAD_EVENT;
	it->evidx = evidx;
	it->batch = sample_batch(rec, slot);
	it->pid = s->pid;
	it->tid = s->tid;
	it->cpu = s->cpu;
	it->cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	it->has_read = s->present & PERF_SAMPLE_READ;
	it->time_enabled = s->time_enabled;
	it->time_running = s->time_running;
	it->ip = s->ip;
	it->period = s->period;
	it->zero_entries = it->nr = 0;
	it->raw = NULL;
	it->weight = 0;
	if (evidx < 0 || (size_t)evidx >= nr_events)
		return;
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
	it->weight = (double)it->period;
}

/* The diagnostics of one sample (method.md §2, §5) and its read values (§7). */
int hbbp_accum__count_item(struct hbbp_accum *a, const struct hbbp_sample_item *it)
{
	struct hbbp_event_state *ev;
	unsigned int b = it->batch < HBBP_BATCHES ? it->batch : 0;

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
		ev->bs.b[b] += (double)it->period;
		break;
	case HBBP_ITEM_LBR_SHORT:
		ev->stacks_short++;
		break;
	case HBBP_ITEM_LBR:
		ev->samples_used++;
		/* the periods (not the time weights): the role's known total (interval.h) */
		ev->bs.b[b] += (double)it->period;
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

/* method.md §4: the periods go to the instruction at the IP (the block is found at
 * attribution); unmapped IPs are kept per task as one "[unmapped]" row. */
void hbbp_accum__ebs_key(struct hbbp_accum *a, uint32_t pid, uint32_t tid, int evidx,
			 const struct bbmap_loc *loc, double period, uint64_t n, uint64_t *key)
{
	bool mapped = loc && loc->dso;

	if (mapped) {
		a->ev[evidx].samples_used += n;
	} else {
		a->ebs_unmapped_n += n;
		a->ebs_unmapped_w += period;
	}
	key[0] = (uint64_t)pid << 32 | tid;
	key[1] = mapped ? (uintptr_t)loc->dso : 0;
	key[2] = mapped ? loc->vaddr : 0;
	key[3] = (uint64_t)evidx;
}

int hbbp_accum__ebs(struct hbbp_accum *a, uint32_t pid, uint32_t tid, int evidx,
		    const struct bbmap_loc *loc, double period, uint64_t n,
		    const struct hbbp_bsum *bs)
{
	uint64_t key[4];
	struct hbbp_ebs_val *v;

	hbbp_accum__ebs_key(a, pid, tid, evidx, loc, period, n, key);
	v = hmap__get(&a->ebs, key, NULL);
	if (!v)
		return -ENOMEM;
	v->period += period;
	v->n += n;
	hbbp_bsum__axpy(&v->bs, 1.0, bs);
	return 0;
}

/* Stream weight per dso touched (either end x, y), and how much of it was rejected. *last:
 * the entry the stack's stream before added to (NULL: none; valid while the accounting
 * gains no entry), set to this one's. */
static int stream_dsos(struct hbbp_accum *a, struct bbmap_dso *x, struct bbmap_dso *y, double w,
		       bool rejected, struct hbbp_unresolved **last)
{
	struct bbmap_dso *d[2] = { x, y != x ? y : NULL };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct hbbp_unresolved *u;

		if (!d[i])
			continue;
		u = *last && (*last)->dso == d[i] ? *last : dso_acct(&a->unres, d[i]);
		if (!u)
			return -ENOMEM;
		u->lbr_total += w;
		if (rejected)
			u->lbr_rejected += w;
		*last = u;
	}
	return 0;
}

bool hbbp_accum__branch_key(const struct hbbp_stack *s, uint64_t k, uint64_t *key)
{
	const struct hbbp_end *lf = &s->ends[2 * k], *lt = &s->ends[2 * k + 1];

	key[0] = (uintptr_t)lf->dso;
	key[1] = lf->dso ? lf->vaddr : 0;
	key[2] = (uintptr_t)lt->dso;
	key[3] = lt->dso ? lt->vaddr : 0;
	return lf->dso || lt->dso;
}

enum hbbp_reject hbbp_stack__stream_class(const struct hbbp_stack *s, uint64_t k)
{
	const struct hbbp_end *lto = &s->ends[2 * k + 1], *lfrom = &s->ends[2 * (k - 1)];

	if ((s->flags[k] | s->flags[k - 1]) & HBBP_ENTRY_WRONG)
		return REJ_SPECULATIVE;
	if (s->flags[k] & HBBP_ENTRY_BACK)
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

static void stream_key(const struct hbbp_stack *s, uint64_t k, uint64_t task, int evidx,
		       uint64_t *key)
{
	key[0] = task;
	key[1] = (uintptr_t)s->ends[2 * k + 1].dso;
	key[2] = s->ends[2 * k + 1].vaddr;
	key[3] = s->ends[2 * (k - 1)].vaddr;
	key[4] = (uint64_t)evidx;
}

bool hbbp_accum__stream_key(const struct hbbp_stack *s, uint64_t k, uint64_t task, int evidx,
			    uint64_t *key)
{
	stream_key(s, k, task, evidx, key);
	return hbbp_stack__stream_class(s, k) == REJ__COUNT;
}

/* Per branch (from, to) of a stack: method.md §5 (bias, decision) slot counters, oldest slot
 * e[n-1], newest e[0], when its source is mapped; and whether its target is a block leader
 * (§3: every branch target seen in the LBR data starts a block, the oldest entry's and those
 * of rejected streams too; not a wrong-path entry's, never executed). One entry per branch
 * serves both. */
static int stack_branches(struct hbbp_accum *a, const struct hbbp_stack *s, uint64_t cnt)
{
	double share = (double)cnt / (double)s->n;	/* each slot's chance share, once */
	uint64_t k;

	for (k = 0; k < s->n; k++) {
		const struct hbbp_end *lf = &s->ends[2 * k], *lt = &s->ends[2 * k + 1];
		uint64_t key[4];
		struct hbbp_bias_val *b;

		if (!hbbp_accum__branch_key(s, k, key))
			continue;
		b = hmap__get_hashed(&a->bias, key,
				     s->hash ? s->hash[2 * k] : hmap__hash(&a->bias, key), NULL);
		if (!b)
			return -ENOMEM;
		if (lt->dso && !(s->flags[k] & HBBP_ENTRY_WRONG))
			b->target = 1;
		if (!lf->dso)
			continue;
		b->all += cnt;
		b->expected += share;
		if (k == s->n - 1)
			b->oldest += cnt;
		if (k == 0)
			b->newest += cnt;
	}
	return 0;
}

/* The kept stream e[k].to .. e[k-1].from: w, its plain weight wp, per batch wbs (all in batch
 * only when only >= 0). */
static int stream_add(struct hbbp_accum *a, uint64_t task, int evidx, const struct hbbp_stack *s,
		      uint64_t k, double w, double wp, uint64_t cnt, const struct hbbp_bsum *wbs,
		      int only, double weight)
{
	uint64_t key[5];
	struct hbbp_stream_val *v;

	stream_key(s, k, task, evidx, key);
	v = hmap__get_hashed(&a->streams, key,
			     s->hash ? s->hash[2 * k + 1] : hmap__hash(&a->streams, key), NULL);
	if (!v)
		return -ENOMEM;
	if (s->cell)
		s->cell[k] = (uint32_t)((size_t)((unsigned char *)v - a->streams.slots) /
					a->streams.slot_size);
	v->weight += w;
	v->weight_plain += wp;
	v->n += cnt;
	if (only >= 0)
		v->bs.b[only] += wbs->b[only];
	else
		hbbp_bsum__axpy(&v->bs, 1.0, wbs);
	if (s->cyc && hbbp_cycles__stream(&v->cyc, s->cyc, k, s->n, weight, w, wbs,
					     only))
		a->cycles_streams += cnt;
	return 0;
}

int hbbp_accum__lbr(struct hbbp_accum *a, uint32_t pid, uint32_t tid, int evidx,
		    const struct hbbp_stack *s, double weight, double period, uint64_t cnt,
		    const struct hbbp_bsum *bs)
{
	uint64_t k, n = s->n, task = (uint64_t)pid << 32 | tid;
	struct hbbp_event_state *ev = &a->ev[evidx];
	double w = weight / (double)(n - 1), wp = period / (double)(n - 1);
	struct hbbp_unresolved *last = NULL;
	struct hbbp_bsum wbs;
	int err = stack_branches(a, s, cnt), only = -1;

	if (err)
		return err;
	ev->streams += cnt * (n - 1);
	ev->stream_weight += weight;
	ev->stream_weight_plain += period;
	/* the batch sums of each stream: bs / (n-1); most stacks were seen in one batch only */
	for (k = 0; k < HBBP_BATCHES; k++) {
		wbs.b[k] = bs->b[k] / (double)(n - 1);
		if (bs->b[k] != 0)
			only = only == -1 ? (int)k : -2;
	}
	for (k = 1; k < n && !err; k++) {
		struct bbmap_dso *dto = s->ends[2 * k + 1].dso, *dfrom = s->ends[2 * (k - 1)].dso;
		enum hbbp_reject r = hbbp_stack__stream_class(s, k);

		if (r == REJ_UNMAPPED)
			pr_debug("stream %s .. %s: unmapped (entries %" PRIu64 "/%" PRIu64 ")",
				 dto ? "mapped" : "unmapped", dfrom ? "mapped" : "unmapped", k, n);
		if (r == REJ__COUNT) {
			err = stream_add(a, task, evidx, s, k, w, wp, cnt, &wbs, only, weight);
		} else {
			a->rejected[r] += cnt;
			a->rejected_weight[r] += w;
			if (r == REJ_UNMAPPED) {
				err = hbbp_accum__unresolved_add(a, NULL, true, cnt, w);
				last = NULL;
			}
		}
		if (!err)
			err = stream_dsos(a, dto, dfrom, w, r != REJ__COUNT, &last);
	}
	return err;
}
