/* The one-screen summary hbbp-convert prints on stderr after a conversion (events and
 * roles, samples used, streams rejected by reason, lost/throttled, unresolved weight by
 * dso, weight on undecodable bytes, the top of the mix) and the progress bar for long runs
 * on a terminal. Prints what the engine hands back: the run's results and its figures
 * (convert__figures), the recorded strings escaped (hbbp_escape), the counts in their unit
 * (convert__count_unit). Depends on hbbp/engine/convert.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hbbp/cli/options.h"
#include "util/hbbp_err.h"

static void progress_bar(double fraction, bool done)
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

void cli_progress(void *ctx, double fraction)
{
	struct cli_args *a = ctx;

	if (fraction <= 0) {		/* the pass starts */
		a->t0 = hbbp_now();
		a->shown = false;
	} else if (fraction >= 1) {	/* ... and ends */
		if (a->shown)
			progress_bar(1.0, true);
		a->shown = false;
	} else if (a->shown || hbbp_now() - a->t0 > 1.0) {
		progress_bar(fraction, false);
		a->shown = true;
	}
}

/* s with its control characters escaped, in buf (at most 256 bytes shown) */
#define ESC(buf, s)	(hbbp_escape(buf, sizeof(buf), s), buf)

static void summary_unresolved(const struct convert_figures *f, const char *ebs_unit)
{
	double lbr_total = 0, ebs_total = f->ebs_weight_attributed;
	size_t i, n = f->nr_unresolved;

	for (i = 0; i < f->nr_events; i++)
		if (f->ev[i].role == HBBP_ROLE_LBR)
			lbr_total += f->ev[i].stream_weight;
	for (i = 0; i < n; i++)
		ebs_total += f->unresolved[i].ebs;
	if (n)
		fprintf(stderr, "unresolved (no code for these addresses):\n");
	for (i = 0; i < n && i < 8; i++) {
		const struct convert_unresolved *u = &f->unresolved[i];
		char name[256];

		fprintf(stderr, "  %-40s %-10s EBS %.0f %s (%.1f%%)  LBR %.0f (%.1f%% of stream "
			"weight)\n", ESC(name, u->name ? u->name : "?"), u->status, u->ebs,
			ebs_unit, ebs_total > 0 ? 100 * u->ebs / ebs_total : 0, u->lbr,
			lbr_total > 0 ? 100 * u->lbr / lbr_total : 0);
	}
	if (n > 8)
		fprintf(stderr, "  ... and %zu more\n", n - 8);
}

/* The time-weighted LBR estimate (method.md §5b), when it was used. */
static void summary_lbr_weighting(const struct convert_run *run, const struct convert_figures *f)
{
	size_t i;

	if (run->lbr_weighting != HBBP_LBR_WEIGHT_TIME)
		return;
	for (i = 0; i < f->nr_events; i++) {
		const struct hbbp_event_state *e = &f->ev[i];

		if (e->role != HBBP_ROLE_LBR)
			continue;
		fprintf(stderr, "  LBR weight: time (method.md §5b, stacks sampled on time; "
			"--lbr-weighting plain for period/(n-1)): %" PRIu64 " stacks by the mean "
			"duration of the streams from their interrupted stream's start (%" PRIu64
			" of them refined by the IP), %" PRIu64 " by the recording's mean stream "
			"duration %.1f cycles (no stream from that start); plain weight %.4g\n",
			e->lbr_time_stacks, e->lbr_time_by_ip, e->lbr_time_fallback,
			f->lbr_time_mean, e->stream_weight_plain);
	}
}

/* --diagnostics: how the LBR stacks repeat, whether summing identical ones first paid, the
 * distinct streams they hold (what the accumulation's size grows with), the blocks with
 * data (what the attribution's and the mix's memory grows with) and the times. */
static void summary_diagnostics(const struct convert_run *run, const struct convert_figures *f,
				double t_write)
{
	const struct hbbp_stack_stats *st = f->stacks;
	uint64_t n = st->stacks;

	if (n) {
		fprintf(stderr, "  LBR stacks: %" PRIu64 ", %.0f distinct (%.1f%%, estimated); "
			"stack cache ", n, f->distinct_stacks, 100 * f->distinct_stacks / (double)n);
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
		fprintf(stderr, "; streams %zu distinct%s\n", f->nr_streams,
			f->per_thread ? " (per thread)" : "");
	}
	fprintf(stderr, "  blocks with data: %zu (%zu in decoded code)\n", f->nr_blocks,
		f->nr_code_blocks);
	fprintf(stderr, "  time: read %.2f s, blocks %.2f s, mix %.2f s, write %.2f s (wall)\n",
		run->t_read, run->t_blocks, run->t_mix, t_write);
}

static void summary_events(const struct convert_run *run, const struct convert_opts *o,
			   const struct convert_figures *f, const char *unit)
{
	char name[256];
	size_t i;

	fprintf(stderr, "%s: method %s", ESC(name, o->input), hbbp_method_name(run->method));
	if (run->method == HBBP_METHOD_HBBP)
		fprintf(stderr, " (LBR for blocks of <= %u instructions, else EBS)", o->cutoff);
	if (run->method != HBBP_METHOD_LBR && strcmp(unit, "insns"))
		fprintf(stderr, ", EBS weighted by %s", !strcmp(unit, "period") ?
			"the event's period" : "time");
	fputc('\n', stderr);
	for (i = 0; i < f->nr_events; i++) {
		const struct hbbp_event_state *e = &f->ev[i];

		fprintf(stderr, "  event %zu %-32s %-6s %" PRIu64 " samples", i,
			ESC(name, e->name ? e->name : "?"),
			hbbp_role_name(e->role), e->samples);
		if (e->role == HBBP_ROLE_EBS)
			fprintf(stderr, ", %" PRIu64 " resolved", e->samples_used);
		if (e->role == HBBP_ROLE_LBR)
			fprintf(stderr, ", %" PRIu64 " stacks, %" PRIu64 " streams", e->samples_used,
				e->streams);
		if (e->scale != e->throttle_scale)
			fprintf(stderr, ", multiplexed x%.3f", e->scale / e->throttle_scale);
		if (e->throttled_frac > 0)
			fprintf(stderr, ", throttled %.2f%% of its span: %s x%.4f",
				100.0 * e->throttled_frac, e->throttle_scale != 1.0 ? "scaled" :
				"not scaled (--no-throttle-correction), would be",
				1.0 / (1.0 - e->throttled_frac));
		if (e->throttle_spread > 0)
			fprintf(stderr, ", intervals +-%.2f%%", 100.0 * e->throttle_spread);
		if (e->role == HBBP_ROLE_UNUSED && e->role_reason)
			fprintf(stderr, " (%s)", e->role_reason);
		fputc('\n', stderr);
	}
}

static void summary_streams(const struct convert_figures *f)
{
	double sweight = 0, rej = 0;
	size_t i;

	for (i = 0; i < f->nr_events; i++)
		if (f->ev[i].role == HBBP_ROLE_LBR)
			sweight += f->ev[i].stream_weight;
	for (i = 0; i < REJ__COUNT; i++)
		rej += f->rejected_weight[i];
	if (sweight <= 0)
		return;
	fprintf(stderr, "  LBR stream weight %.4g: %.2f%% attributed to blocks", sweight,
		100 * f->lbr_weight_attributed / sweight);
	if (rej > 0) {
		fprintf(stderr, "; rejected:");
		for (i = 0; i < REJ__COUNT; i++)
			if (f->rejected[i])
				fprintf(stderr, " %s %" PRIu64 " (%.2f%%)", hbbp_reject_name(i),
					f->rejected[i], 100 * f->rejected_weight[i] / sweight);
	}
	fputc('\n', stderr);
}

/* perf report's layout: share, count, then the keys */
static void summary_top(const struct convert_run *run, const struct convert_opts *o)
{
	const struct result_table *mix = result__table(run->res, "mix");
	const char *unit = convert__count_unit(run);
	bool unit_shown = strcmp(unit, "instructions");
	size_t i, j;

	if (!mix)
		return;
	fprintf(stderr, "top of the mix (%zu rows, total %.0f%s%s; share%s, count [95%% "
		"interval]):\n", mix->nr_rows, run->total, unit_shown ? " " : "",
		unit_shown ? unit : "", !hbbp_mix__filtered(&o->mix) ? "" :
		o->mix.percentage == HBBP_SHARE_ABSOLUTE ? " of every sample" : " of the rows kept");
	for (i = 0; i < mix->nr_rows && i < 10; i++) {
		const struct result_cell *c = result_table__row(mix, i);
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
			char key[256];

			if (c[j].type == RES_TEXT)
				fprintf(stderr, " %s", ESC(key, c[j].s));
			else if (c[j].type == RES_INT)
				fprintf(stderr, " %" PRId64, c[j].i);
		}
		fputc('\n', stderr);
	}
}

void cli_summary(const struct convert_run *run, const struct convert_opts *o, double t_write)
{
	const char *unit = convert__ebs_unit(run), *count_unit = convert__count_unit(run);
	struct convert_figures f;
	uint64_t throttled;
	size_t i;

	if (convert__figures(run, &f)) {
		pr_err("%s: out of memory for the summary", o->input);
		return;
	}
	summary_events(run, o, &f, unit);
	if (o->mix.diagnostics)
		summary_diagnostics(run, &f, t_write);
	summary_streams(&f);
	summary_lbr_weighting(run, &f);
	if (f.no_cycles)
		fprintf(stderr, "  no cycle counts in the branch entries (recorded before Skylake, "
			"on AMD or with --no-lbr-cycles): no cycles columns\n");
	else if (run->counts.has_cycles && (hbbp_mix__needs(&o->mix) & HBBP_KEY_INSN))
		fprintf(stderr, "  cycles: measured per block, spread evenly over a block's "
			"instructions: rows below a block do not show one instruction slower than "
			"its neighbours\n");
	if (f.code_weight > 0)
		fprintf(stderr, "  LBR weight touching modules with code: %.4g, %.2f%% of it "
			"attributed\n", f.code_weight, 100 * (f.code_weight - f.code_rejected) /
			f.code_weight);
	throttled = f.throttled;
	for (i = 0; i < f.nr_events; i++)	/* throttling corrected: no bias left to warn of */
		if (f.ev[i].throttle_scale != 1.0)
			throttled = 0;
	if (f.lost_records || f.lost_samples || throttled)
		fprintf(stderr, "  warning: %" PRIu64 " LOST records (%" PRIu64 " events), %" PRIu64
			" lost samples, %" PRIu64 " THROTTLE records: the estimate is biased\n",
			f.lost_records, f.lost_events, f.lost_samples, f.throttled);
	summary_unresolved(&f, unit);
	if (run->undecodable_weight > 0)
		fprintf(stderr, "  warning: %.6g %s%s (%.2f%% of the total) are undecodable "
			"bytes, in %" PRIu64 " blocks: mnemonic \"(bad)\", iclass INVALID\n",
			run->undecodable_weight, strcmp(count_unit, "instructions") ? "" :
			"executed ", count_unit, run->total > 0 ?
			100 * run->undecodable_weight / run->total : 0, run->undecodable_blocks);
	summary_top(run, o);
	convert__figures_exit(&f);
}
