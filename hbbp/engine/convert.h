/* One conversion, perf.data -> result tables -> output file, as hbbp-convert runs it:
 * options, the run (hbbp/engine/convert.c) and the stderr summary (hbbp/engine/summary.c).
 * Depends on the reader, bbmap, the method core and the writers.
 */
#ifndef HBBP_CONVERT_H
#define HBBP_CONVERT_H

#include <stdbool.h>
#include <stddef.h>

#include "bbmap/session.h"
#include "hbbp/engine/driver.h"
#include "hbbp/pivot/mix.h"
#include "reader/perf_reader.h"
#include "writers/writer.h"

struct convert_opts {
	const char *input;		/* default "perf.data" */
	const char *output;		/* NULL or "-": stdout */
	enum writer_format format;
	bool append;
	const char *label;		/* --label: runs.label of a database output */
	/* Every input of the command: the output must not be one of them (NULL: input). */
	const char *const *inputs;
	size_t nr_inputs;
	enum hbbp_method method;
	bool method_given;
	unsigned cutoff;
	struct hbbp_mix_opts mix;
	const char *by;			/* --by spec (parsed after the taxonomy is known) */
	const char *taxonomy_file;
	const char *ebs_event, *lbr_event;
	struct bbmap_find_opts find;
	struct bbmap_binary_override *binaries;
	size_t nr_binaries;
	bool quiet;
	bool progress;			/* stderr is a terminal */
	unsigned jobs;			/* threads for one input (>= 2: two parts at once) */
	uint64_t split_min;		/* records of a file from which it is read in two
					 * parts (hbbp/engine/segment.h); 0 never */
	int lbr_weighting;		/* enum hbbp_lbr_weighting (--lbr-weighting) */
	bool keep_batch_sums;		/* the counts' sums per batch (hbbp_counts.block_bs)
					 * and the accumulators' sums kept after the
					 * attribution (for comparisons) */
	bool all_tables;		/* build every result table and read source lines
					 * whatever the format (annotate, report) */
};

/* State of a finished run, for the summary. */
struct convert_run {
	struct perf_reader *reader;
	struct bbmap_session *session;
	struct hbbp_code_ops ops;
	unsigned int leader_threads;	/* threads adding block leaders (-j) */
	struct hbbp_driver drv;
	struct hbbp_counts counts;
	struct result *res;
	const struct perf_event_info **events;
	struct hbbp_event_role *roles;	/* of events (method.md §2) */
	size_t nr_events;
	enum hbbp_method method;
	double total;
	/* executed instructions on bytes the decoder does not know, and their blocks
	 * (convert__undecodable_weight, taken before the mix, which may free the code) */
	double undecodable_weight;
	uint64_t undecodable_blocks;
	bool drv_ok, counts_ok;
	bool two_parts;			/* the pass read the file in two parts */
	size_t nr_streams;		/* distinct streams accumulated (hbbp_accum.streams) */
	uint64_t part_samples;		/* ... of which this many samples apart */
	bool redo;			/* ... and must read it again in one */
	int lbr_weighting;		/* the LBR weight used (HBBP_LBR_WEIGHT_PLAIN/TIME) */
	struct hbbp_lbr_time lbr_time;	/* its durations (method.md §5b) */
	bool lbr_time_ok;		/* lbr_time initialised (the event counts time) */
	/* wall seconds of each step (--diagnostics): the records read, the blocks and their
	 * counts, the result tables, the output written */
	double t_read, t_blocks, t_mix, t_write;
};

/* The options of 'hbbp-convert FILE' without other arguments (CSV, the hybrid method at the
 * default cutoff, the default keys; input "perf.data"). 0, or -ENOMEM / -EINVAL when the
 * default keys cannot be set. */
int convert_opts__init(struct convert_opts *o);
/* Everything up to the result tables, in this process (no output written): run holds the
 * counts (run->counts, with run->ops to name their dsos) and the result. Returns an exit code;
 * convert__run_exit(run) after, whatever it returned. */
int convert__compute(struct convert_run *run, const struct convert_opts *o);
void convert__run_exit(struct convert_run *run);
/* The address-space session of a conversion of r with the options o (binaries, search
 * paths, the recording's build-ids). 0 or a negative error (reported). */
int convert__new_session(struct bbmap_session **out, const struct perf_reader *r,
			 const struct convert_opts *o);
/* Runs the conversion; returns an exit code (HBBP_EXIT_*), messages through hbbp_log. */
int convert__run(const struct convert_opts *o);
/* Converts inputs[0..nr) with the options o (o->input is ignored), up to jobs at once (1:
 * one after the other in this thread), writing each to o->output in input order; after the
 * first written run the others are appended (SQLite). Every input is tried; returns the
 * first failing exit code, else HBBP_EXIT_OK. */
int convert__run_many(const struct convert_opts *o, const char *const *inputs, size_t nr,
		      unsigned jobs);
/* The listing text of the instruction at module vaddr addr of the module recorded as module
 * (the modules table's name) in the run ctx (a struct convert_run): 0, or -HBBP_ENOTFOUND.
 * hbbp/engine/insn_text.c: the one place a listing asks the disassembler. */
int convert__insn_text(void *ctx, const char *module, uint64_t addr, char *buf, size_t len);
void convert__summary(const struct convert_run *run, const struct convert_opts *o);
/* hbbp/engine/run_notes.c: the error of a recording with no usable event (its events, the
 * option to use); the warnings of a finished run, on stderr and in the result (0 or -ENOMEM);
 * the unit of the EBS weight ("insns", "ns", "cycles", "period"). */
void convert__no_event(const struct convert_run *run, const struct convert_opts *o);
int convert__notes(struct convert_run *run, const struct convert_opts *o);
const char *convert__ebs_unit(const struct convert_run *run);
/* After several inputs: says how many failed (the first named) and what the output holds. */
void convert__many_done(const struct convert_opts *o, size_t nr, size_t nfailed,
			const char *first_failed, bool wrote);
/* The LBR weight of the run (hbbp/engine/lbr_weighting.c): after the driver is set up and
 * before the pass; reads the input once more for the time-weighted estimate. */
int convert__lbr_weighting(struct convert_run *run, const struct convert_opts *o,
			   const struct perf_reader_opts *ro);
/* Its metadata (lbr_weighting, lbr_time_*) into run->res. */
int convert__lbr_weighting_meta(const struct convert_run *run);
const char *convert__lbr_weighting_name(int w);	/* "time", "plain", "auto" */
void convert__progress(double fraction, bool done);
/* LBR stream weight with an end in a dso whose code was found, and the part rejected. */
void convert__code_module_weight(const struct convert_run *run, double *total, double *rejected);
/* Executed instructions that are bytes the decoder does not know (bbmap's "(bad)", iclass
 * INVALID): their weight in the run's instruction count, and how many code blocks hold any. */
double convert__undecodable_weight(const struct convert_run *run, uint64_t *nr_blocks);

#endif
