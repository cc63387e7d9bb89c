/* The one-screen summary hbbp-convert prints on stderr after a conversion (events and
 * roles, samples used, streams rejected by reason, lost/throttled, unresolved weight by
 * dso, weight on undecodable bytes, the top of the mix) and the progress bar for long runs on a terminal.
 * Reads the finished run only; depends on hbbp/engine/convert.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/engine/convert.h"

void convert__progress(double fraction, bool done)
{
	int i, w = 40, fill;

	if (fraction < 0)
		fraction = 0;
	if (fraction > 1)
		fraction = 1;
	fill = (int)(fraction * w);
	fputs("\r[", stderr);
	for (i = 0; i < w; i++)
		fputc(i < fill ? '#' : ' ', stderr);
	fprintf(stderr, "] %3d%%", (int)(fraction * 100));
	if (done)
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

static int unres_cmp(const void *pa, const void *pb)
{
	const struct hbbp_unresolved *a = *(struct hbbp_unresolved *const *)pa;
	const struct hbbp_unresolved *b = *(struct hbbp_unresolved *const *)pb;
	double wa = a->ebs_weight + a->lbr_weight, wb = b->ebs_weight + b->lbr_weight;

	return wa > wb ? -1 : wa < wb;
}

static void summary_unresolved(const struct convert_run *run)
{
	const struct hbbp_accum *d = &run->drv.acc;
	double lbr_total = 0, ebs_total = 0;
	size_t i, n;
	const struct hbbp_unresolved **v = hbbp_unresolved__weighted(d, &n);

	if (!v)
		return;
	for (i = 0; i < d->nr_events; i++) {
		if (d->ev[i].role == HBBP_ROLE_LBR)
			lbr_total += d->ev[i].stream_weight;
	}
	ebs_total = run->counts.ebs_weight_attributed;
	for (i = 0; i < n; i++)
		ebs_total += v[i]->ebs_weight;
	if (n)
		qsort(v, n, sizeof(*v), unres_cmp);
	if (n)
		fprintf(stderr, "unresolved (no code for these addresses):\n");
	for (i = 0; i < n && i < 8; i++) {
		const char *name = v[i]->dso ? run->ops.dso_name(run->ops.ctx, v[i]->dso) :
				   "[unmapped]";
		struct bbmap_module *m = NULL;
		const char *st = v[i]->dso ?
			bbmap_dso_status_name(run->ops.dso_module(run->ops.ctx, v[i]->dso, &m)) : "";

		fprintf(stderr, "  %-40s %-10s EBS %.0f %s (%.1f%%)  LBR %.0f (%.1f%% of stream "
			"weight)\n", name ? name : "?", st, v[i]->ebs_weight, convert__ebs_unit(run),
			ebs_total > 0 ? 100 * v[i]->ebs_weight / ebs_total : 0, v[i]->lbr_weight,
			lbr_total > 0 ? 100 * v[i]->lbr_weight / lbr_total : 0);
	}
	if (n > 8)
		fprintf(stderr, "  ... and %zu more\n", n - 8);
	free(v);
}

/* The time-weighted LBR estimate (method.md §5b), when it was used. */
static void summary_lbr_weighting(const struct convert_run *run)
{
	const struct hbbp_accum *d = &run->drv.acc;
	size_t i;

	if (run->lbr_weighting != HBBP_LBR_WEIGHT_TIME)
		return;
	for (i = 0; i < d->nr_events; i++) {
		const struct hbbp_event_state *e = &d->ev[i];

		if (e->role != HBBP_ROLE_LBR)
			continue;
		fprintf(stderr, "  LBR weight: time (method.md §5b, stacks sampled on time; "
			"--lbr-weighting plain for period/(n-1)): %" PRIu64 " stacks by the mean "
			"duration of the streams from their interrupted stream's start (%" PRIu64
			" of them refined by the IP), %" PRIu64 " by the recording's mean stream "
			"duration %.1f cycles (no stream from that start); plain weight %.4g\n",
			e->lbr_time_stacks, e->lbr_time_by_ip, e->lbr_time_fallback,
			run->lbr_time.st.mean, e->stream_weight_plain);
	}
}

/* LBR stream weight with an end in a module whose code was found, and how much of it was
 * attributed to blocks (the rest was rejected; see the reasons above). */
static void summary_code_modules(const struct convert_run *run)
{
	double total, rejected;

	convert__code_module_weight(run, &total, &rejected);
	if (total > 0)
		fprintf(stderr, "  LBR weight touching modules with code: %.4g, %.2f%% of it attributed\n",
			total, 100 * (total - rejected) / total);
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
		const struct hbbp_tblock *tb = hbbp_counts__tblock_sums(c, i, &tmp);
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

/* --diagnostics: how the LBR stacks repeat, whether summing identical ones first paid, and
 * the distinct streams they hold (what the accumulation's size grows with). */
static void summary_stacks(const struct convert_run *run)
{
	const struct hbbp_stack_stats *st = &run->drv.sstats;
	double distinct = hbbp_stack_stats__distinct(st);
	uint64_t n = st->stacks;

	if (!n)
		return;
	fprintf(stderr, "  LBR stacks: %" PRIu64 ", %.0f distinct (%.1f%%, estimated); stack cache ",
		n, distinct, 100 * distinct / (double)n);
	if (st->cached)
		fprintf(stderr, "%.1f%% hits ", 100.0 * (double)(st->cached - st->inserts) /
			(double)st->cached);
	if (!st->direct)
		fprintf(stderr, "(on)");
	else if (!st->cached)
		fprintf(stderr, "(off)");
	else
		fprintf(stderr, "(off for %.1f%% of the stacks)", 100.0 * (double)st->direct /
			(double)n);
	fprintf(stderr, "; streams %zu distinct%s\n", run->nr_streams,
		run->drv.acc.per_thread ? " (per thread)" : "");
	st = &run->drv.rsstats;
	if (st->stacks)
		fprintf(stderr, "  resolved stacks: %" PRIu64 ", %.1f%% summed with an identical one "
			"first (%s)\n", st->stacks, st->cached ? 100.0 * (double)(st->cached -
			st->inserts) / (double)st->stacks : 0.0, !st->direct ? "on" : !st->cached ?
			"off" : "partly off");
}

void convert__summary(const struct convert_run *run, const struct convert_opts *o)
{
	const struct hbbp_accum *d = &run->drv.acc;
	const struct perf_reader_stats *rs = perf_reader__stats(run->reader);
	const struct result_table *mix = result__table(run->res, "mix");
	double sweight = 0, rej = 0;
	size_t i, j;

	fprintf(stderr, "%s: method %s", o->input, hbbp_method_name(run->method));
	if (run->method == HBBP_METHOD_HBBP)
		fprintf(stderr, " (LBR for blocks of <= %u instructions, else EBS)", o->cutoff);
	if (run->method != HBBP_METHOD_LBR && strcmp(convert__ebs_unit(run), "insns"))
		fprintf(stderr, ", EBS weighted by %s", !strcmp(convert__ebs_unit(run), "period") ?
			"the event's period" : "time");
	fputc('\n', stderr);
	for (i = 0; i < d->nr_events; i++) {
		const struct hbbp_event_state *e = &d->ev[i];
		const struct perf_event_info *ei = run->events[i];

		fprintf(stderr, "  event %zu %-32s %-6s %" PRIu64 " samples", i,
			ei->name ? ei->name : "?", hbbp_role_name(e->role), e->samples);
		if (e->role == HBBP_ROLE_EBS)
			fprintf(stderr, ", %" PRIu64 " resolved", e->samples_used);
		if (e->role == HBBP_ROLE_LBR) {
			fprintf(stderr, ", %" PRIu64 " stacks, %" PRIu64 " streams", e->samples_used,
				e->streams);
			sweight += e->stream_weight;
		}
		if (e->scale != 1.0)
			fprintf(stderr, ", multiplexed x%.3f", e->scale);
		if (e->role == HBBP_ROLE_UNUSED && e->role_reason)
			fprintf(stderr, " (%s)", e->role_reason);
		fputc('\n', stderr);
	}
	if (o->mix.diagnostics) {
		size_t nb_code = 0;

		summary_stacks(run);
		/* what the attribution's and the mix's memory grows with, beside the streams */
		for (i = 0; i < run->counts.nr_blocks; i++)
			nb_code += run->counts.blocks[i].kind == HBBP_BLK_CODE;
		fprintf(stderr, "  blocks with data: %zu (%zu in decoded code)\n",
			run->counts.nr_blocks, nb_code);
		fprintf(stderr, "  time: read %.2f s, blocks %.2f s, mix %.2f s, write %.2f s "
			"(wall)\n", run->t_read, run->t_blocks, run->t_mix, run->t_write);
	}
	for (i = 0; i < REJ__COUNT; i++)
		rej += d->rejected_weight[i];
	if (sweight > 0) {
		fprintf(stderr, "  LBR stream weight %.4g: %.2f%% attributed to blocks",
			sweight, 100 * run->counts.lbr_weight_attributed / sweight);
		if (rej > 0) {
			fprintf(stderr, "; rejected:");
			for (i = 0; i < REJ__COUNT; i++)
				if (d->rejected[i])
					fprintf(stderr, " %s %" PRIu64 " (%.2f%%)", hbbp_reject_name(i),
						d->rejected[i], 100 * d->rejected_weight[i] / sweight);
		}
		fputc('\n', stderr);
	}
	summary_lbr_weighting(run);
	summary_code_modules(run);
	if (rs->nr_records[PERF_RECORD_LOST] || rs->nr_lost_samples || rs->nr_throttle)
		fprintf(stderr, "  warning: %" PRIu64 " LOST records (%" PRIu64 " events), %" PRIu64
			" lost samples, %" PRIu64 " THROTTLE records: the estimate is biased\n",
			rs->nr_records[PERF_RECORD_LOST], rs->nr_lost, rs->nr_lost_samples,
			rs->nr_throttle);
	summary_unresolved(run);
	{
		uint64_t nb = run->undecodable_blocks;
		double uw = run->undecodable_weight;

		if (uw > 0)
			fprintf(stderr, "  warning: %.6g executed instructions (%.2f%% of the total) are "
				"undecodable bytes, in %" PRIu64 " blocks: mnemonic \"(bad)\", iclass "
				"INVALID\n", uw, run->total > 0 ? 100 * uw / run->total : 0, nb);
	}
	if (!mix)
		return;
	fprintf(stderr, "top of the mix (%zu rows, total %.0f%s%s; share, count [95%% interval]):\n",
		mix->nr_rows, run->total,
		run->method == HBBP_METHOD_EBS && strcmp(convert__ebs_unit(run), "insns") ? " " : "",
		run->method == HBBP_METHOD_EBS && strcmp(convert__ebs_unit(run), "insns") ?
		convert__ebs_unit(run) : "");
	/* perf report's layout: share, count, then the keys */
	for (i = 0; i < mix->nr_rows && i < 10; i++) {
		const struct result_cell *c = &mix->cells[i * mix->nr_cols];
		double count = 0, share = 0, lo = 0, hi = 0;

		for (j = 0; j < mix->nr_cols; j++) {
			if (!strcmp(mix->cols[j].name, "count") && c[j].type == RES_REAL)
				count = c[j].d;
			else if (!strcmp(mix->cols[j].name, "share") && c[j].type == RES_REAL)
				share = c[j].d;
			else if (!strcmp(mix->cols[j].name, "count_lo") && c[j].type == RES_REAL)
				lo = c[j].d;
			else if (!strcmp(mix->cols[j].name, "count_hi") && c[j].type == RES_REAL)
				hi = c[j].d;
		}
		fprintf(stderr, "  %6.2f%%  %14.*f [%.*f, %.*f] ", 100 * share, count >= 1000 ? 0 : 3,
			count, lo >= 1000 ? 0 : 3, lo, hi >= 1000 ? 0 : 3, hi);
		for (j = 0; j < mix->nr_cols && j < o->mix.nr_keys; j++) {
			if (c[j].type == RES_TEXT)
				fprintf(stderr, " %s", c[j].s);
			else if (c[j].type == RES_INT)
				fprintf(stderr, " %" PRId64, c[j].i);
		}
		fputc('\n', stderr);
	}
}
