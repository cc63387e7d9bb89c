/* Chooses the LBR weight of a run (method.md §5 plain, §5b time-weighted) and, for the
 * time-weighted one, reads the recording once before the pass to learn the stream durations
 * (hbbp/method/lbr_time.h): the weight of a stack needs the mean duration of streams seen
 * anywhere in the recording, so it must be known before the first stack is summed. A pipe
 * cannot be read twice: then the plain weight, with a warning. Every way of falling back to
 * the plain weight is a warning naming the reason.
 * Depends on the reader, hbbp/method/lbr_time.h and hbbp/engine/convert.h; prints through
 * hbbp_log only.
 */
#include <errno.h>
#include <string.h>

#include "hbbp/engine/convert.h"
#include "reader/perf_format.h"
#include "util/hbbp_err.h"

const char *convert__lbr_weighting_name(int w)
{
	return w == HBBP_LBR_WEIGHT_TIME ? "time" : w == HBBP_LBR_WEIGHT_PLAIN ? "plain" : "auto";
}

/* Reads every stack of event evidx into t. */
static int lbr_time_read(struct hbbp_lbr_time *t, const char *path, int evidx,
			 const char *name, const struct perf_reader_opts *ro)
{
	struct perf_reader *r = NULL;
	const struct perf_record *rec;
	const char *errmsg = NULL;
	struct perf_reader_opts ro2 = *ro;
	int ret, err;

	err = perf_reader__open(&r, path, &ro2, &errmsg);

	if (err) {
		pr_err("%s", errmsg ? errmsg : hbbp_strerror(err));
		return err;
	}
	while ((ret = perf_reader__next(r, &rec)) > 0) {
		const struct perf_branch_entry *e = rec->sample.branches;
		uint64_t n = rec->sample.nr_branches;

		if (rec->type != PERF_RECORD_SAMPLE || rec->evidx != evidx || !e)
			continue;
		/* the 0/0 padding of a partly filled LBR, as hbbp_driver__digest drops it */
		while (n && !e[n - 1].from && !e[n - 1].to)
			n--;
		if (n < 2)
			continue;
		err = hbbp_lbr_time__add_stack(t, rec->sample.pid, e, n);
		if (err)
			break;
	}
	if (!err && ret < 0) {
		pr_err("%s", perf_reader__errmsg(r));
		err = ret;
	}
	perf_reader__delete(r);
	return err ? err : hbbp_lbr_time__finish(t);
}

int convert__lbr_weighting(struct convert_run *run, const struct convert_opts *o,
			   const struct perf_reader_opts *ro)
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
	if (perf_reader__header(run->reader)->is_pipe) {
		pr_warn("'%s' samples the branch stacks on time, but the time-weighted LBR "
			"estimate reads the input twice and a pipe cannot be: plain weight, "
			"biased toward code before slow code", name);
		return result__warn(run->res, "LBR stacks sampled on time weighted plain: the "
				    "input is a pipe (the time weight reads it twice)");
	}
	hbbp_lbr_time__init(&run->lbr_time);
	run->lbr_time_ok = true;
	err = lbr_time_read(&run->lbr_time, o->input, evidx, lbr->name, ro);
	if (err)
		return err;
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
	run->drv.acc.lbr_time = &run->lbr_time;
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
				convert__lbr_weighting_name(run->lbr_weighting));
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
