/* The reference accumulation (see hbbp/method/reference.h). Its stream weights are summed
 * one sample's share at a time, with their rounding errors kept (hbbp_accum.compensated).
 * Depends on hbbp/method/method.h only.
 */
#include <string.h>

#include "hbbp/method/reference.h"

/* method.md §4: the period goes to the instruction at the sample's IP. */
static int reference_ebs(struct hbbp_accum *a, const struct hbbp_sample_item *it)
{
	const struct hbbp_code_ops *ops = a->ops;
	struct bbmap_loc loc = { 0 };
	uint64_t key[4];
	bool mapped = !ops->lookup(ops->ctx, it->pid, it->cpumode, it->ip, &loc) && loc.dso;
	int err = hbbp_accum__ebs_key(a, it->pid, it->tid, it->evidx, mapped ? &loc : NULL,
				      (double)it->period, 1, key);

	return err ? err : hbbp_accum__sum(&a->ebs, key, (double)it->period, 1, it->batch);
}

/* method.md §5: the stack's streams, its ends resolved as the sample comes. */
static int reference_lbr(struct hbbp_accum *a, const struct hbbp_sample_item *it)
{
	struct hbbp_bsum bs;

	memset(&bs, 0, sizeof(bs));
	bs.b[it->batch < HBBP_BATCHES ? it->batch : 0] = (double)it->period;
	return hbbp_accum__lbr_stack(a, a->ops->lookup, a->ops->ctx, it->pid, it->tid,
				     it->cpumode, it->evidx, it->raw, it->nr, (double)it->period, 1,
				     &bs);
}

int hbbp_reference__record(struct hbbp_accum *a, const struct perf_record *rec)
{
	struct hbbp_sample_item it;
	int err;

	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		hbbp_sample__digest(a->ev, a->nr_events, rec, &it);
		it.batch = hbbp_sample__batch(rec, a->batch_slot);
		err = hbbp_accum__count_item(a, &it);
		if (err)
			return err;
		if (it.kind == HBBP_ITEM_EBS)
			return reference_ebs(a, &it);
		if (it.kind == HBBP_ITEM_LBR)
			return reference_lbr(a, &it);
		return 0;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
		hbbp_accum__lost(a, rec);
		return 0;
	case PERF_RECORD_READ:
		return hbbp_accum__read_value(a, rec->read.pid, rec->read.tid,
					      rec->has_sid ? rec->sid.cpu : 0, rec->evidx,
					      rec->read.time_enabled, rec->read.time_running);
	default:
		if (a->ops->record && a->ops->record(a->ops->ctx, rec))
			a->nr_record_errors++;
		return 0;
	}
}

void hbbp_reference__finish(struct hbbp_accum *a)
{
	hbbp_accum__compensate(a);
	hbbp_accum__scale(a);
}
