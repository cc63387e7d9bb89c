/* What a finished run gives its readers beyond the result tables: the figures of the summary
 * hbbp-convert prints on stderr (events and roles, samples used, streams rejected by reason,
 * lost/throttled, unresolved weight by dso, the stack caches) as plain data, the weight on
 * undecodable bytes and in modules with code, the code blocks with their estimates (train)
 * and the report tables. Reads the finished run only; never prints.
 * Depends on hbbp/engine/convert.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/engine/convert.h"

/* The dsos with unresolved weight, heaviest first. */
static int figures_unresolved(const struct convert_run *run, struct convert_figures *f)
{
	const struct hbbp_unresolved **v = hbbp_unresolved__weighted(&run->drv.acc, true,
								     &f->nr_unresolved);
	size_t i;

	if (!v)
		return -ENOMEM;
	f->unresolved = calloc(f->nr_unresolved + 1, sizeof(*f->unresolved));
	if (!f->unresolved) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < f->nr_unresolved; i++) {
		struct convert_unresolved *u = &f->unresolved[i];
		struct bbmap_module *m = NULL;

		u->name = v[i]->dso ? run->ops.dso_name(run->ops.ctx, v[i]->dso) : "[unmapped]";
		u->status = v[i]->dso ? bbmap_dso_status_name(run->ops.dso_module(run->ops.ctx,
							      v[i]->dso, &m)) : "";
		u->ebs = v[i]->ebs_weight;
		u->lbr = v[i]->lbr_weight;
	}
	free(v);
	return 0;
}

int convert__figures(const struct convert_run *run, struct convert_figures *f)
{
	const struct hbbp_accum *d = &run->drv.acc;
	const struct perf_reader_stats *rs = perf_reader__stats(run->reader);
	size_t i;

	memset(f, 0, sizeof(*f));
	f->ev = d->ev;
	f->nr_events = d->nr_events;
	memcpy(f->rejected, d->rejected, sizeof(f->rejected));
	memcpy(f->rejected_weight, d->rejected_weight, sizeof(f->rejected_weight));
	f->lbr_weight_attributed = run->counts.lbr_weight_attributed;
	f->ebs_weight_attributed = run->counts.ebs_weight_attributed;
	f->no_cycles = !run->counts.has_cycles && f->lbr_weight_attributed > 0;
	f->lbr_time_mean = run->lbr_time_ok ? run->lbr_time.st.mean : 0;
	convert__code_module_weight(run, &f->code_weight, &f->code_rejected);
	f->lost_records = rs->nr_records[PERF_RECORD_LOST];
	f->lost_events = rs->nr_lost;
	f->lost_samples = rs->nr_lost_samples;
	f->throttled = rs->nr_throttle;
	f->stacks = &run->drv.sstats;
	f->distinct_stacks = hbbp_stack_stats__distinct(&run->drv.sstats);
	f->nr_streams = run->nr_streams;
	f->per_thread = run->drv.per_thread;
	f->nr_blocks = run->counts.nr_blocks;
	for (i = 0; i < run->counts.nr_blocks; i++)
		f->nr_code_blocks += run->counts.blocks[i].kind == HBBP_BLK_CODE;
	return figures_unresolved(run, f);
}

void convert__figures_exit(struct convert_figures *f)
{
	free(f->unresolved);
	memset(f, 0, sizeof(*f));
}

void convert__code_module_weight(const struct convert_run *run, double *total, double *rejected)
{
	const struct hbbp_accum *d = &run->drv.acc;
	const struct hbbp_unresolved *u;
	const uint64_t *key;
	size_t i;

	*total = *rejected = 0;
	hmap__for_each(&d->unres, i, key, u) {
		struct bbmap_module *m = NULL;

		if (!u->dso || run->ops.dso_module(run->ops.ctx, u->dso, &m) != DSO_OK)
			continue;
		*total += u->lbr_total;
		*rejected += u->lbr_rejected;
	}
}

double convert__undecodable_weight(const struct convert_run *run, uint64_t *nr_blocks)
{
	const struct hbbp_counts *c = &run->counts;
	double w = 0;
	size_t i;
	uint32_t j;

	*nr_blocks = 0;
	for (i = 0; i < c->nr_tblocks; i++) {
		struct hbbp_tblock tmp;
		const struct hbbp_tblock *tb = hbbp_counts__tblock(c, i, &tmp);
		const struct hbbp_block *b = &c->blocks[tb->block];
		const struct bbmap_block *blk;
		bool any = false;

		if (tb->count <= 0 || b->kind != HBBP_BLK_CODE)
			continue;
		/* most blocks hold no undecodable byte: the flag the counts took from the block
		 * map, without looking the block up again */
		if (!b->may_be_bad)
			continue;
		if (run->ops.block_at(run->ops.ctx, b->mod, b->start, &blk) || !blk->insns)
			continue;
		for (j = 0; j < blk->nr_insns; j++)
			if (blk->insns[j].flags & BBMAP_INSN_BAD) {
				w += tb->count;
				any = true;
			}
		*nr_blocks += any;
	}
	return w;
}

int convert__code_blocks(const struct convert_run *run,
			 int (*fn)(void *ctx, const struct convert_block *b), void *ctx)
{
	const struct hbbp_code_ops *ops = &run->ops;
	size_t i;
	int err;

	for (i = 0; i < run->counts.nr_blocks; i++) {
		const struct hbbp_block *b = &run->counts.blocks[i];
		struct convert_block cb;

		if (b->kind != HBBP_BLK_CODE || !b->nr_insns)
			continue;
		memset(&cb, 0, sizeof(cb));
		cb.path = ops->dso_path(ops->ctx, b->dso);
		cb.name = ops->dso_name(ops->ctx, b->dso);
		if (!cb.path || !cb.name)
			continue;
		cb.start = b->start;
		cb.has_offset = !bbmap_module__vaddr_to_offset(b->mod, b->start, &cb.offset);
		cb.nr_insns = b->nr_insns;
		cb.ebs = b->ebs_est;
		cb.lbr = b->lbr_est;
		cb.has_ebs = b->ebs_samples > 0;
		cb.has_lbr = b->lbr_streams > 0;
		err = fn(ctx, &cb);
		if (err)
			return err;
	}
	return 0;
}

int convert__report(struct convert_run *run, struct result *out, struct report_opts *ro)
{
	ro->rs = perf_reader__stats(run->reader);
	ro->ops = &run->ops;
	return report__build(out, run->res, &run->counts, &run->drv.acc, run->events, ro,
			     convert__insn_text, run);
}
