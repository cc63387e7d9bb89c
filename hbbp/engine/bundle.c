/* The raw sums of a segment of the recording (see struct hbbp_bundle in hbbp/engine/driver.h):
 * what hbbp_driver__apply does to a sample, short of resolving an address. LBR stacks go
 * into a stack cache under the driver's keys, EBS IPs into a map by (thread, cpumode, ip,
 * event); the driver resolves both when it merges the bundle. A sample whose accumulation
 * would depend on state the bundle does not have (read values) or on the order of samples
 * (a stack that is not cached) is refused: the segment ends before it.
 * Depends on hbbp/engine/driver.h only; runs in a thread of its own, on a copy of the events'
 * roles.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/engine/driver.h"

/* After this many stacks, a bundle whose stacks are more than BUNDLE_MAX_NEW new ones
 * ends: merging it would cost the pass as much as reading them itself. */
#define BUNDLE_PROBE	8192u
#define BUNDLE_MAX_NEW	0.6

int hbbp_bundle__init(struct hbbp_bundle *b, const struct hbbp_driver *d)
{
	size_t n = d->acc.nr_events ? d->acc.nr_events : 1, i;

	memset(b, 0, sizeof(*b));
	b->ev = calloc(n, sizeof(*b->ev));
	b->roles = calloc(n, sizeof(*b->roles));
	if (!b->ev || !b->roles) {
		hbbp_bundle__exit(b);
		return -ENOMEM;
	}
	b->nr_events = d->acc.nr_events;
	b->batch_slot = d->acc.batch_slot;
	b->per_thread = d->per_thread;
	for (i = 0; i < d->acc.nr_events; i++)
		b->roles[i].role = d->acc.ev[i].role;
	b->lbr_time = d->acc.lbr_time;	/* read-only during the pass */
	hmap__init(&b->ebs, 4, sizeof(struct hbbp_ebs_val));
	hbbp_stack_cache__init(&b->stacks);
	hbbp_stack_stats__init(&b->sstats, HBBP_STACKS_ALWAYS);
	b->tmin = UINT64_MAX;
	return 0;
}

void hbbp_bundle__exit(struct hbbp_bundle *b)
{
	if (!b)
		return;
	free(b->ev);
	free(b->roles);
	hmap__exit(&b->ebs);
	hbbp_stack_cache__exit(&b->stacks);
	memset(b, 0, sizeof(*b));
}

int hbbp_bundle__add(struct hbbp_bundle *b, const struct perf_record *rec)
{
	uint64_t key[HBBP_STACK_KEY_WORDS], h;
	struct hbbp_sample_item it;
	struct hbbp_bundle_event *ev;
	uint64_t t = rec->sample.time;

	if (!(rec->sample.present & PERF_SAMPLE_TIME))
		return 0;
	hbbp_sample__digest(b->roles, b->nr_events, b->lbr_time, b->batch_slot, rec, &it);
	if (it.has_read)
		return 0;
	if (it.kind == HBBP_ITEM_LBR) {
		/* queued while there is room for all queued (see hbbp_driver__apply) */
		uint64_t *qk = hbbp_stack_cache__queue_key(&b->stacks);
		struct hbbp_stack_val *v;

		if (!hbbp_driver__stack_key(&it, it.raw, b->per_thread, qk ? qk : key))
			return 0;
		/* stacks that rarely repeat: the pass would resolve each of them anyway, after
		 * waiting for this part; it reads the rest itself */
		if (b->sstats.cached >= BUNDLE_PROBE &&
		    (double)b->stacks.nr_inserts > BUNDLE_MAX_NEW * (double)b->sstats.cached)
			return 0;
		h = hbbp_stack_cache__hash(qk ? qk : key);
		if (qk) {
			if (hbbp_stack_cache__queue_w(&b->stacks, h,
						      it.weight, (double)it.period, 1, it.batch))
				return -ENOMEM;
		} else if (hbbp_stack_cache__drain(&b->stacks)) {
			return -ENOMEM;
		} else {
			v = hbbp_stack_cache__get(&b->stacks, key, h);
			if (!v)
				return b->stacks.nr >= HBBP_STACK_CACHE_MAX ? 0 : -ENOMEM;
			v->period += it.weight;
			v->period_plain += (double)it.period;
			v->n++;
			v->bs.b[it.batch] += it.weight;	/* the weight, per batch */
		}
		/* counted once held (a refused stack is the pass's, and counted there) */
		hbbp_stack_stats__note(&b->sstats, h);
		b->sstats.cached++;
	} else if (it.kind == HBBP_ITEM_EBS) {
		key[0] = (uint64_t)it.pid << 32 | (b->per_thread ? it.tid : 0);
		key[1] = (uint64_t)(uint32_t)it.cpumode;
		key[2] = it.ip;
		key[3] = (uint64_t)it.evidx;
		if (hbbp_sum_queue__add(&b->ebsq, &b->ebs, key, (double)it.period, 1, it.batch))
			return -ENOMEM;
	}
	/* the counters of hbbp_driver__apply */
	b->nr_samples++;
	if (t < b->tmin)
		b->tmin = t;
	if (t > b->tmax)
		b->tmax = t;
	if (it.kind == HBBP_ITEM_BAD_EVENT) {
		b->nr_unused_samples++;
		return 1;
	}
	ev = &b->ev[it.evidx];
	ev->samples++;
	ev->zero_entries += it.zero_entries;
	switch (it.kind) {
	case HBBP_ITEM_EBS:
		ev->bs.b[it.batch] += (double)it.period;
		break;
	case HBBP_ITEM_LBR_SHORT:
		ev->stacks_short++;
		break;
	case HBBP_ITEM_LBR:
		ev->lbr_used++;
		ev->lbr_time += it.lbr_time;
		ev->lbr_fallback += it.lbr_fallback;
		ev->lbr_by_ip += it.lbr_by_ip;
		ev->bs.b[it.batch] += (double)it.period;	/* the periods (interval.h) */
		break;
	default:
		b->nr_unused_samples++;
		break;
	}
	return 1;
}

int hbbp_bundle__finish(struct hbbp_bundle *b)
{
	int err = hbbp_stack_cache__drain(&b->stacks);

	b->sstats.inserts = b->stacks.nr_inserts;
	return err ? err : hbbp_sum_queue__drain(&b->ebsq, &b->ebs);
}
