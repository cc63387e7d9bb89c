/* Chooses the LBR weight of a run (method.md §5 plain, §5b time-weighted). The time weight of
 * a stack needs the durations of streams seen anywhere in the recording: the pass learns them
 * while it sums the stacks, and their weights are added at its end (hbbp/method/lbr_defer.h),
 * so a pipe is time-weighted too. Every way of falling back to the plain weight is a warning
 * naming the reason.
 * Depends on the reader, hbbp/method/lbr_time.h, hbbp/method/lbr_defer.h and
 * hbbp/engine/convert.h; prints through hbbp_log only.
 */
#include <errno.h>
#include <string.h>

#include "hbbp/engine/convert.h"
#include "reader/perf_format.h"
#include "util/hbbp_err.h"

/* "time", "plain", "auto" */
static const char *weighting_name(int w)
{
	return w == HBBP_LBR_WEIGHT_TIME ? "time" : w == HBBP_LBR_WEIGHT_PLAIN ? "plain" : "auto";
}

int convert__lbr_weighting(struct convert_run *run, const struct convert_opts *o)
{
	const struct perf_event_info *lbr = NULL;
	const char *name;
	bool is_time;
	int evidx = -1, err;
	size_t i;

	run->lbr_weighting = HBBP_LBR_WEIGHT_PLAIN;
	if (run->method == HBBP_METHOD_EBS)
		return 0;
	for (i = 0; i < run->nr_events; i++)
		if (run->roles[i].role == HBBP_ROLE_LBR && run->roles[i].branch_any) {
			lbr = run->events[i];
			evidx = (int)i;
			break;
		}
	if (!lbr)
		return 0;
	name = lbr->name ? lbr->name : "?";
	is_time = hbbp_lbr_time__event_is_time(lbr);
	if (o->lbr_weighting == HBBP_LBR_WEIGHT_PLAIN ||
	    (o->lbr_weighting == HBBP_LBR_WEIGHT_AUTO && !is_time)) {
		if (is_time) {
			pr_warn("'%s' samples the branch stacks on time: --lbr-weighting plain "
				"keeps the bias toward code before slow code (method.md §5b)", name);
			err = result__warn(run->res, "LBR stacks of '%s' sampled on time, weighted "
					   "plain (--lbr-weighting plain): biased toward code "
					   "before slow code", name);
			if (err)
				return err;
		}
		return 0;
	}
	if (!is_time)
		pr_warn("--lbr-weighting time: '%s' does not count time; its stacks are weighted "
			"by stream duration all the same", name);
	hbbp_lbr_time__init(&run->lbr_time);
	run->lbr_time_ok = true;
	hbbp_lbr_defer__init(&run->lbr_defer, &run->lbr_time, evidx);
	run->drv.defer = &run->lbr_defer;
	return 0;
}

int convert__lbr_weighting_end(struct convert_run *run)
{
	const struct perf_event_info *lbr;
	const char *name;

	if (!run->drv.defer)
		return 0;
	hbbp_lbr_defer__exit(&run->lbr_defer);	/* its weights are added */
	run->drv.defer = NULL;
	lbr = run->events[run->lbr_defer.evidx];
	name = lbr->name ? lbr->name : "?";
	if (run->lbr_time.status != HBBP_LBR_TIME_OK) {
		const struct hbbp_lbr_time_stats *st = &run->lbr_time.st;

		pr_warn("'%s' samples the branch stacks on time, and %s (%llu of %llu streams "
			"with a count, %llu saturated): the time bias cannot be corrected, plain "
			"weight (method.md §5b)", name,
			hbbp_lbr_time__status_name(run->lbr_time.status),
			(unsigned long long)st->timed, (unsigned long long)st->streams,
			(unsigned long long)st->saturated);
		return result__warn(run->res, "LBR stacks of '%s' sampled on time and %s: the "
				    "time bias cannot be corrected (plain weight)", name,
				    hbbp_lbr_time__status_name(run->lbr_time.status));
	}
	run->lbr_weighting = HBBP_LBR_WEIGHT_TIME;
	if (lbr->attr.type == PERF_TYPE_SOFTWARE) {
		/* cpu-clock, task-clock: the period is in nanoseconds, D(Y) in cycles */
		pr_warn("'%s' counts nanoseconds, the stream durations are cycles: the LBR counts "
			"are scaled by the clock rate (cycles per ns); their shares are not", name);
		return result__warn(run->res, "LBR counts of '%s' (nanoseconds) scaled by the clock "
				    "rate: time weight in cycles; shares unaffected", name);
	}
	return 0;
}

int convert__lbr_weighting_meta(const struct convert_run *run)
{
	const struct hbbp_event_state *ev = NULL;
	size_t i;
	int err;

	if (!run->lbr_time_ok)
		return 0;
	for (i = 0; i < run->drv.acc.nr_events; i++)
		if (run->drv.acc.ev[i].role == HBBP_ROLE_LBR)
			ev = &run->drv.acc.ev[i];
	err = result__meta_text(run->res, "lbr_weighting",
				weighting_name(run->lbr_weighting));
	if (!err && run->lbr_weighting == HBBP_LBR_WEIGHT_TIME && ev) {
		err = result__meta_int(run->res, "lbr_time_stacks", (int64_t)ev->lbr_time_stacks);
		if (!err)
			err = result__meta_int(run->res, "lbr_time_fallback_stacks",
					       (int64_t)ev->lbr_time_fallback);
		if (!err)
			err = result__meta_real(run->res, "lbr_time_mean_stream_cycles",
						run->lbr_time.st.mean);
	}
	return err;
}
