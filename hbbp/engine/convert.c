/* The conversion pipeline: open the recording, feed every record to the method's driver
 * (address spaces through the bbmap session), attribute to blocks, build the mix and the
 * result tables. Chooses the run mode from the events' roles (method.md §2: a recording with
 * one usable role runs in that mode, with a warning).
 * Several inputs (convert__run_many) are converted up to -j at a time (util/parallel.h), one
 * input per thread with nothing shared but the read-only options, and handed back in input
 * order to the calling thread (which writes them).
 * Depends on the reader, bbmap, hbbp/engine/driver.h, hbbp/pivot/mix.h and the writers'
 * format table; returns errors and reports through hbbp_log only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "hbbp/engine/code_bbmap.h"
#include "hbbp/engine/convert.h"
#include "util/hbbp_err.h"
#include "util/parallel.h"

static int run_choose_method(struct convert_run *run, const struct convert_opts *o)
{
	bool has_ebs = false, has_lbr = false;
	size_t i;

	for (i = 0; i < run->nr_events; i++) {
		const struct perf_event_info *e = run->events[i];
		const struct hbbp_event_role *ro = &run->roles[i];

		if (ro->role == HBBP_ROLE_EBS)
			has_ebs = true;
		else if (ro->role == HBBP_ROLE_LBR && ro->branch_any)
			has_lbr = true;
		else if (e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK)
			pr_info("event '%s' is not an LBR source: %s", e->name ? e->name : "?",
				ro->reason ? ro->reason :
				(ro->branch_any ? "unused role" :
				 "its branch stack was not recorded with the all-branches filter"));
	}
	run->method = o->method;
	if (o->method == HBBP_METHOD_EBS && !has_ebs) {
		pr_err("%s: --method ebs: no instructions-retired event (use --ebs-event)", o->input);
		return -HBBP_EUNSUPP;
	}
	if (o->method == HBBP_METHOD_LBR && !has_lbr) {
		pr_err("%s: --method lbr: no event with an all-branches stack (perf record -b / "
		       "-j any)", o->input);
		return -HBBP_EUNSUPP;
	}
	if (!has_ebs && !has_lbr) {
		convert__no_event(run, o);
		return -HBBP_EUNSUPP;
	}
	if (o->method == HBBP_METHOD_HBBP && !has_ebs) {
		run->method = HBBP_METHOD_LBR;
		result__warn(run->res, "no instructions-retired (EBS) event: LBR-only counts; a "
			     "single-event recording such as 'cycles -b' weights IPs by time, so "
			     "only its branch stacks are used");
		pr_warn("no instructions-retired (EBS) event: running LBR-only");
	} else if (o->method == HBBP_METHOD_HBBP && !has_lbr) {
		run->method = HBBP_METHOD_EBS;
		result__warn(run->res, "no event with an all-branches LBR stack: EBS-only counts");
		pr_warn("no event with an all-branches LBR stack: running EBS-only");
	}
	return 0;
}

/* "recorded": when the recording started (UTC, ISO 8601), from the CLOCK_DATA feature
 * (wall-clock time of a point of the sample clock) and the first sample's time; without it
 * the file's modification time (the recording's end). "recorded_from" says which. */
static int run_meta_recorded(struct convert_run *run, const struct convert_opts *o)
{
	const struct perf_header_info *h = perf_reader__header(run->reader);
	char buf[32];
	const char *from;
	struct stat st;
	struct tm tm;
	time_t t;
	int err;

	if (h->clock_tod_ns && h->clock_ref_ns && h->first_sample_time) {
		int64_t d = (int64_t)(h->first_sample_time - h->clock_ref_ns);

		t = (time_t)(((int64_t)h->clock_tod_ns + d) / 1000000000);
		from = "clock_data";
	} else if (!h->is_pipe && strcmp(o->input, "-") && !stat(o->input, &st)) {
		t = st.st_mtime;
		from = "file_mtime";
	} else {
		return 0;
	}
	if (!gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return 0;
	err = result__meta_text(run->res, "recorded", buf);
	return err ? err : result__meta_text(run->res, "recorded_from", from);
}

static int run_meta(struct convert_run *run, const struct convert_opts *o)
{
	const struct perf_header_info *h = perf_reader__header(run->reader);
	const char *const header[][2] = {	/* the header's strings it has */
		{ "perf_version", h->version }, { "hostname", h->hostname },
		{ "osrelease", h->osrelease }, { "arch", h->arch }, { "cpudesc", h->cpudesc },
		{ "cmdline", h->cmdline },
	};
	char buf[4096];
	size_t i, len = 0;
	int err = result__meta_text(run->res, "file", o->input);

	err = err ? err : run_meta_recorded(run, o);
	for (i = 0; i < sizeof(header) / sizeof(header[0]); i++)
		if (header[i][1])
			err = err ? err : result__meta_text(run->res, header[i][0], header[i][1]);
	buf[0] = 0;
	for (i = 0; i < run->nr_events; i++) {
		const struct perf_event_info *e = run->events[i];
		int n = snprintf(buf + len, sizeof(buf) - len, "%s%s=%s/%s%llu", i ? "," : "",
				 e->name ? e->name : "?", hbbp_role_name(run->drv.acc.ev[i].role),
				 perf_evattr__freq(&e->attr) ? "freq=" : "period=",
				 (unsigned long long)e->attr.sample_period);

		if (n < 0 || (size_t)n >= sizeof(buf) - len)
			break;
		len += (size_t)n;
	}
	err = err ? err : result__meta_text(run->res, "events", buf);
	if (run->method != o->method)
		err = err ? err : result__meta_text(run->res, "method_requested",
						    hbbp_method_name(o->method));
	return err;
}

/* Source lines are read (DWARF, often zlib-compressed) only when an output shows them: the
 * srcline key, a listing, or a store's tables with --store lines. */
static bool run_wants_lines(const struct convert_opts *o)
{
	return o->all_tables || hbbp_mix__needs(&o->mix) & HBBP_KEY_LINES ||
	       (o->store_lines && writer_format_writes_table(o->format, "blocks"));
}

/* Whether the sums are kept per thread (struct hbbp_driver.per_thread): for a thread key or
 * filter, a listing, or a store's table by thread (thread_blocks) with --store threads.
 * Without, memory and time stay bounded by the code that ran however many threads and
 * processes the recording holds. */
static bool run_wants_threads(const struct convert_opts *o)
{
	return o->all_tables || o->mix.pid || o->mix.comm ||
	       hbbp_mix__needs(&o->mix) & HBBP_KEY_THREAD ||
	       (o->store_threads && writer_format_writes_table(o->format, "blocks"));
}

/* The address-space session of a conversion of r with the options o (binaries, search
 * paths, the recording's build-ids). 0 or a negative error (logged). */
static int run_new_session(struct bbmap_session **out, const struct perf_reader *r,
			   const struct convert_opts *o)
{
	const struct perf_header_info *h = perf_reader__header(r);
	struct bbmap_find_opts fo = o->find;
	size_t i;
	int err;

	fo.no_lines = !run_wants_lines(o);
	fo.no_operands = !o->all_tables;	/* only listings (annotate, report) show them */
	fo.lazy_insns = true;	/* the instructions of blocks that ran, decoded in full */
	if (!fo.kcore_dir)
		fo.kcore_dir = h->kcore_dir;
	if (!fo.osrelease)
		fo.osrelease = h->osrelease;
	fo.hostname = h->hostname;	/* with osrelease: made here? (/proc/kallsyms) */
	err = bbmap_session__new(out, &fo);
	if (err) {
		pr_err("cannot start the address-space session: %s", hbbp_strerror(err));
		return err;
	}
	for (i = 0; i < h->nr_build_ids; i++) {
		const struct perf_build_id_entry *b = &h->build_ids[i];

		bbmap_session__add_build_id(*out, b->cpumode == PERF_RECORD_MISC_KERNEL,
					    b->filename, b->id, b->size);
	}
	return 0;
}

static int run_pass(struct convert_run *run, const struct convert_opts *o)
{
	const struct perf_header_info *h = perf_reader__header(run->reader);
	const struct perf_record *rec;
	double size = h->file_size ? (double)h->file_size : 0;
	uint64_t n = 0;
	int ret, err = 0;

	if (o->progress)
		o->progress(o->progress_ctx, 0);
	while ((ret = perf_reader__next(run->reader, &rec)) > 0) {
		err = hbbp_driver__record(&run->drv, rec);
		if (err)
			break;
		if (o->progress && size > 0 && !(++n & 0xffff))
			o->progress(o->progress_ctx, (double)rec->file_offset / size);
	}
	if (!err && ret >= 0) {
		hbbp_driver__finish(&run->drv);
		err = run->drv.flush_err;
	}
	if (o->progress)
		o->progress(o->progress_ctx, 1);
	if (err) {
		pr_err("%s: %s", o->input, hbbp_strerror(err));
		return err;
	}
	if (ret < 0) {
		pr_err("%s", perf_reader__errmsg(run->reader));
		return ret;
	}
	return 0;
}

/* Whether the output is the mix alone (no table of blocks or threads is built). */
static bool run_mix_only(const struct convert_opts *o)
{
	return !o->all_tables && !writer_format_writes_table(o->format, "blocks");
}

/* Whether the tasks' shares are made a process at a time as the mix sums them
 * (hbbp_counts__each_process), never all kept: sums per thread for the mix alone, without a
 * filter (which lists what matched nothing from all of them). */
static bool run_by_process(const struct convert_run *run, const struct convert_opts *o)
{
	return run->drv.per_thread && run_mix_only(o) && !hbbp_mix__filtered(&o->mix);
}

/* The attribution (method.md §3-§6) in the method's steps, each of the accumulator's sums
 * freed once its step has read it (by_process, the EBS sums and streams once the mix's rows
 * have: release_sums)
 * and the sums per batch once the counts are set (the mix reads none of them;
 * keep_batch_sums keeps them): the peak memory of one at a time. */
static int run_attribution(struct convert_run *run, const struct convert_opts *o)
{
	struct hbbp_accum *a = &run->drv.acc;
	struct hbbp_counts *c = &run->counts;
	bool by_process = run_by_process(run, o);
	bool drop = !o->keep_batch_sums, drop_sums = drop && !by_process;
	int err = hbbp_counts__begin(c, a, run->method, o->cutoff, by_process);

	run->counts_ok = true;
	c->by_process_again = !drop;	/* the sums are kept for another look */
	err = err ? err : hbbp_counts__ebs(c, a);
	if (drop_sums)
		hmap__exit(&a->ebs);
	err = err ? err : hbbp_counts__streams(c, a);
	if (drop_sums)
		hmap__exit(&a->streams);
	err = err ? err : hbbp_counts__bias(c, a);
	if (drop)
		hmap__exit(&a->bias);
	err = err ? err : hbbp_counts__end(c, a);
	err = err ? err : hbbp_accum__add_counts(a, c);
	if (drop)
		hbbp_counts__drop_batch_sums(c);
	return err;
}

void convert__run_exit(struct convert_run *run)
{
	if (run->counts_ok)
		hbbp_counts__exit(&run->counts);
	if (run->drv_ok)
		hbbp_driver__exit(&run->drv);
	if (run->lbr_time_ok)
		hbbp_lbr_time__exit(&run->lbr_time);
	hbbp_lbr_defer__exit(&run->lbr_defer);
	result__delete(run->res);
	while (run->nr_notes)
		free(run->notes[--run->nr_notes]);
	free(run->notes);
	bbmap_session__delete(run->session);
	perf_reader__delete(run->reader);
	free(run->events);
	free(run->roles);
}

/* The LBR weight in modules with code and how much of it was attributed; the weight on bytes
 * the decoder does not know (shown, never silent). */
static int run_meta_weights(struct convert_run *run)
{
	double total, rejected;
	int err;

	convert__code_module_weight(run, &total, &rejected);
	err = result__meta_real(run->res, "lbr_weight_code_modules", hbbp_round_count(total));
	if (!err)
		err = result__meta_real(run->res, "lbr_weight_code_modules_attributed",
					hbbp_round_count(total - rejected));
	if (!err)
		err = result__meta_real(run->res, "undecodable_weight",
					hbbp_round_count(run->undecodable_weight));
	return err;
}

/* The events of the opened recording and their roles (method.md §2: decided once; events the
 * reader meets after open, in pipe mode, have none), the mode, the session and the driver.
 * 0 or an error (reported). */
static int run_prepare(struct convert_run *run, const struct convert_opts *o)
{
	const struct perf_header_info *h = perf_reader__header(run->reader);
	char msg[512];
	size_t i;
	int err;

	run->nr_events = perf_reader__nr_events(run->reader);
	run->events = calloc(run->nr_events + 1, sizeof(*run->events));
	run->roles = calloc(run->nr_events + 1, sizeof(*run->roles));
	if (!run->events || !run->roles)
		return -ENOMEM;
	for (i = 0; i < run->nr_events; i++)
		run->events[i] = perf_reader__event(run->reader, i);
	err = hbbp_roles__assign(run->reader, o->ebs_event, o->lbr_event, run->roles, msg,
				 sizeof(msg));
	if (err) {
		pr_err("%s", msg);
		return err;
	}
	err = run_choose_method(run, o);
	if (!err)
		err = run_new_session(&run->session, run->reader, o);
	if (err)
		return err;
	hbbp_code_bbmap__init(&run->code, &run->ops, run->session);
	err = hbbp_driver__init(&run->drv, &run->code, run->session, run->events, run->roles,
				run->nr_events);
	if (err)
		return err;
	run->drv_ok = true;
	run->drv.per_thread = run_wants_threads(o);
	run->drv.acc.no_throttle = o->no_throttle_correction;
	/* the samples' batches interleave over the recorded time span (interval.h) */
	run->drv.acc.batch_slot = hbbp_batch__slot(h->first_sample_time, h->last_sample_time);
	return convert__lbr_weighting(run, o);
}

/* The result tables of the computed counts and their metadata. 0 or an error (reported). */
static int run_result(struct convert_run *run, const struct convert_opts *o)
{
	struct hbbp_mix_opts mo = o->mix;
	double t;
	int err;

	err = run_meta(run, o);
	if (!err)
		err = convert__lbr_weighting_meta(run);
	if (!err) {
		/* read before the mix frees the code's blocks */
		run->undecodable_weight = convert__undecodable_weight(run, &run->undecodable_blocks);
		/* tables the output does not write are not built; with the mix alone, nothing
		 * reads the code after its rows */
		mo.mix_only = run_mix_only(o);
		mo.release_code = mo.mix_only;
		mo.block_cycles = o->all_tables;
		mo.lines = run_wants_lines(o);
		mo.threads = run->drv.per_thread;
		mo.release_sums = !o->keep_batch_sums;
		t = hbbp_now();
		err = hbbp_mix__build(run->res, &run->counts, &run->drv.acc, &run->ops, run->events,
				      perf_reader__stats(run->reader), &mo, &run->total);
		run->t_mix = hbbp_now() - t;
	}
	if (err) {
		pr_err("building the result failed: %s", hbbp_strerror(err));
		return err;
	}
	err = run_meta_weights(run);
	if (!err)	/* what the result lacks or is weighted by, said once (run_notes.c) */
		err = convert__notes(run, o);
	return err;
}

int convert__compute(struct convert_run *run, const struct convert_opts *o)
{
	/* sums of samples: their order does not matter */
	struct perf_reader_opts ro = { .samples_unordered = true };
	const char *errmsg = NULL;
	double t;
	size_t i;
	int err;

	hbbp_log_subject(o->input);	/* every message of this input names it (-j runs) */
	memset(run, 0, sizeof(*run));
	err = perf_reader__open(&run->reader, o->input, &ro, &errmsg);
	if (err) {
		pr_err("%s", errmsg ? errmsg : hbbp_strerror(err));
		return err;
	}
	err = result__new(&run->res);
	if (!err)
		err = run_prepare(run, o);
	if (err)
		return err;
	t = hbbp_now();
	err = run_pass(run, o);
	run->t_read = hbbp_now() - t;
	/* the reader's events may have moved (attributes met in a pipe grow its array) */
	for (i = 0; i < run->nr_events; i++)
		run->events[i] = perf_reader__event(run->reader, i);
	err = err ? err : convert__lbr_weighting_end(run);
	if (err)
		return err;
	run->nr_streams = run->drv.acc.streams.nr;
	t = hbbp_now();
	err = run_attribution(run, o);
	run->t_blocks = hbbp_now() - t;
	if (err) {
		pr_err("attribution failed: %s", hbbp_strerror(err));
		return err;
	}
	return run_result(run, o);
}

/* ---- several inputs, up to `jobs` at a time on util/parallel's workers ---- */

struct many {
	struct convert_opts *o;		/* per input of the round: o[k].input */
	struct convert_run *run;
	int *err;
};

static void many_compute(void *ctx, size_t k, unsigned int worker)
{
	struct many *m = ctx;

	m->err[k] = convert__compute(&m->run[k], &m->o[k]);
}

int convert__run_many(const struct convert_opts *o, const char *const *inputs, size_t nr,
		      unsigned jobs, convert_done_fn done, void *ctx)
{
	struct many m;
	size_t base, k, n;

	jobs = jobs && jobs < nr ? jobs : (unsigned)(nr ? nr : 1);
	m.o = calloc(jobs, sizeof(*m.o));
	m.run = calloc(jobs, sizeof(*m.run));
	m.err = calloc(jobs, sizeof(*m.err));
	if (!m.o || !m.run || !m.err) {
		free(m.o);
		free(m.run);
		free(m.err);
		return -ENOMEM;
	}
	if (jobs > 1)
		bbmap_module__threads_init();	/* libraries' globals, set before the threads */
	/* a round of up to jobs inputs at once, handed back in input order: at most jobs
	 * results are held */
	for (base = 0; base < nr; base += n) {
		n = nr - base < jobs ? nr - base : jobs;
		for (k = 0; k < n; k++) {
			m.o[k] = *o;
			m.o[k].input = inputs[base + k];
			if (jobs > 1)
				m.o[k].progress = NULL;
		}
		parallel_for(n, jobs, many_compute, &m);
		for (k = 0; k < n; k++) {
			done(ctx, base + k, &m.run[k], &m.o[k], m.err[k]);
			convert__run_exit(&m.run[k]);
		}
	}
	free(m.o);
	free(m.run);
	free(m.err);
	return 0;
}
