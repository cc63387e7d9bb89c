/* One conversion, perf.data -> result tables, as hbbp-convert runs it: the options it takes,
 * the run (hbbp/engine/convert.c), the notes and figures it gives about itself
 * (hbbp/engine/run_notes.c, hbbp/engine/run_figures.c). It returns errors and results and
 * never prints: hbbp/cli writes the output, prints the summary and chooses the exit code.
 * Depends on the reader, bbmap, the method core and the writers.
 */
#ifndef HBBP_CONVERT_H
#define HBBP_CONVERT_H

#include <stdbool.h>
#include <stddef.h>

#include "bbmap/session.h"
#include "hbbp/engine/code_bbmap.h"
#include "hbbp/engine/driver.h"
#include "hbbp/pivot/mix.h"
#include "hbbp/pivot/report.h"
#include "reader/perf_reader.h"
#include "writers/writer.h"

/* Every field is the caller's to set (hbbp/cli/options.c holds the defaults). */
struct convert_opts {
	const char *input;
	enum writer_format format;	/* the output's: which tables and lines to build */
	enum hbbp_method method;
	unsigned cutoff;
	struct hbbp_mix_opts mix;	/* keys, filters, --top, --diagnostics */
	const char *ebs_event, *lbr_event;
	struct bbmap_find_opts find;	/* binaries, search paths, demangling */
	int lbr_weighting;		/* enum hbbp_lbr_weighting (--lbr-weighting) */
	bool no_throttle_correction;	/* --no-throttle-correction (method.md §7) */
	bool keep_batch_sums;		/* the counts' sums per batch (hbbp_counts.block_bs)
					 * and the accumulators' sums kept after the
					 * attribution (for comparisons) */
	bool store_threads, store_lines;	/* --store: a store keeps the sums per thread
						 * (thread_blocks), the source lines */
	bool all_tables;		/* build every result table and read source lines
					 * whatever the format (annotate, report) */
	/* Called with 0 before the first record, with the part of the file read every 65536
	 * records, with 1 after the last (NULL: not called). */
	void (*progress)(void *ctx, double fraction);
	void *progress_ctx;
};

/* A finished run. The fields up to `total` and the times are its results, for any reader;
 * the rest is the engine's own (read it through the functions below). */
struct convert_run {
	struct result *res;		/* the result tables, metadata and warnings */
	enum hbbp_method method;	/* the method used (the recording may allow less) */
	int lbr_weighting;		/* the LBR weight used (HBBP_LBR_WEIGHT_PLAIN/TIME) */
	double total;			/* the mix's total count */
	/* executed instructions on bytes the decoder does not know, and their blocks
	 * (convert__undecodable_weight, taken before the mix, which may free the code) */
	double undecodable_weight;
	uint64_t undecodable_blocks;
	/* what the result lacks or is weighted by, one sentence each (run_notes.c); also in
	 * the result's warnings */
	char **notes;
	size_t nr_notes;
	/* wall seconds of each step: the records read, the blocks and their counts, the
	 * result tables */
	double t_read, t_blocks, t_mix;

	struct perf_reader *reader;
	struct bbmap_session *session;
	struct hbbp_code code;		/* the code of the session as the method reaches it */
	struct hbbp_code_ops ops;	/* and as the mix does */
	struct hbbp_driver drv;
	struct hbbp_counts counts;
	const struct perf_event_info **events;
	struct hbbp_event_role *roles;	/* of events (method.md §2) */
	size_t nr_events;
	bool drv_ok, counts_ok;
	size_t nr_streams;		/* distinct streams accumulated (hbbp_accum.streams) */
	struct hbbp_lbr_time lbr_time;	/* its durations (method.md §5b) */
	struct hbbp_lbr_defer lbr_defer;	/* its stacks' weights until the pass ends */
	bool lbr_time_ok;		/* lbr_time initialised (the event counts time) */
};

/* Everything up to the result tables, in this process (no output written). Returns 0 or a
 * negative error (logged); convert__run_exit(run) after, whatever it returned. */
int convert__compute(struct convert_run *run, const struct convert_opts *o);
void convert__run_exit(struct convert_run *run);
/* Computes inputs[0..nr) with the options o (o->input is ignored), up to jobs at once (1: one
 * after the other in this thread), and calls done(ctx, i, run, oi, err) in this thread in
 * input order, with the options of that input and convert__compute's return; the run is
 * exited after. Returns 0 or -ENOMEM (nothing computed). */
typedef void (*convert_done_fn)(void *ctx, size_t i, struct convert_run *run,
				const struct convert_opts *oi, int err);
int convert__run_many(const struct convert_opts *o, const char *const *inputs, size_t nr,
		      unsigned jobs, convert_done_fn done, void *ctx);
/* The listing text of the instruction at module vaddr addr of the module recorded as module
 * (the modules table's name) in the run ctx (a struct convert_run): 0, or -HBBP_ENOTFOUND.
 * hbbp/engine/insn_text.c: the one place a listing asks the disassembler. */
int convert__insn_text(void *ctx, const char *module, uint64_t addr, char *buf, size_t len);
/* The report tables of a computed run into out (hbbp/pivot/report.h; ro->rs is set here). */
int convert__report(struct convert_run *run, struct result *out, struct report_opts *ro);

/* A decoded code block of a computed run with its two estimates (hbbp train). */
struct convert_block {
	const char *path, *name;	/* the module's file and recorded name */
	uint64_t start;			/* module vaddr */
	bool has_offset;		/* start lies in a loadable segment: */
	uint64_t offset;		/* ... its file offset */
	unsigned nr_insns;
	double ebs, lbr;		/* the EBS and LBR estimates of its count */
	bool has_ebs, has_lbr;		/* with EBS samples, with LBR streams */
};
/* Calls fn for each decoded code block of a module with a file; stops at fn's first error. */
int convert__code_blocks(const struct convert_run *run,
			 int (*fn)(void *ctx, const struct convert_block *b), void *ctx);

/* hbbp/engine/run_notes.c: the error of a recording with no usable event (its events, the
 * option to use); the notes of a finished run (run->notes and the result's warnings; 0 or
 * -ENOMEM); the unit of the EBS weight ("insns", "ns", "cycles", "period"). */
void convert__no_event(const struct convert_run *run, const struct convert_opts *o);
int convert__notes(struct convert_run *run, const struct convert_opts *o);
const char *convert__ebs_unit(const struct convert_run *run);
/* The unit of the mix's counts, as the texts say it: "instructions", or for an EBS-only run
 * weighted by another event "ns", "cycles" or "periods"; "mixed units" for the hybrid of
 * LBR instructions and such an event. */
const char *convert__count_unit(const struct convert_run *run);
/* Whether a mix table answers nothing: it has no row, or every row holds a no-code marker
 * ([no code], [undecoded], [unmapped]) in a key column: the keys asked for found no code. */
bool convert__mix_empty(const struct result_table *mix);
/* Why the run's result is empty and what to do, one sentence into buf: the events have no
 * sample; the filters pass none; a binary has another build-id (--ignore-build-id); code
 * not found (--binary, --symfs, --buildid-dir; --vmlinux for the kernel). */
void convert__empty_why(const struct convert_run *run, const struct convert_opts *o,
			char *buf, size_t size);

/* What the summary of a finished run shows (hbbp/engine/run_figures.c), as plain data: the
 * events' states and the stacks' figures are the run's own (the method's accumulator, the
 * driver), valid while the run is. */
struct convert_unresolved {
	const char *name;		/* the dso, "[unmapped]", or NULL */
	const char *status;		/* bbmap_dso_status_name, "" unmapped */
	double ebs, lbr;
};

struct convert_figures {
	size_t nr_events;
	const struct hbbp_event_state *ev;	/* per event (name NULL: unnamed) */
	uint64_t rejected[REJ__COUNT];		/* LBR streams not counted, by reason */
	double rejected_weight[REJ__COUNT];
	double lbr_weight_attributed, ebs_weight_attributed;
	double lbr_time_mean;			/* the recording's mean stream duration */
	double code_weight, code_rejected;	/* LBR weight touching modules with code */
	uint64_t lost_records, lost_events, lost_samples, throttled;
	size_t nr_unresolved;
	struct convert_unresolved *unresolved;	/* heaviest first */
	const struct hbbp_stack_stats *stacks;	/* the LBR stacks seen */
	double distinct_stacks;			/* of them distinct, estimated */
	size_t nr_streams;			/* distinct streams */
	bool per_thread;			/* sums kept per thread */
	size_t nr_blocks, nr_code_blocks;	/* blocks with data, decoded ones */
	bool no_cycles;				/* LBR streams counted, none with a cycle
						 * count (docs/METHOD-cycles.md) */
};

/* 0 or -ENOMEM; convert__figures_exit after. */
int convert__figures(const struct convert_run *run, struct convert_figures *f);
void convert__figures_exit(struct convert_figures *f);

/* The LBR weight of the run (hbbp/engine/lbr_weighting.c): after the driver is set up and
 * before the pass (the time-weighted estimate's weights wait for the end of the pass); then
 * after the pass, convert__lbr_weighting_end says which weight it was. */
int convert__lbr_weighting(struct convert_run *run, const struct convert_opts *o);
int convert__lbr_weighting_end(struct convert_run *run);
/* Its metadata (lbr_weighting, lbr_time_*) into run->res. */
int convert__lbr_weighting_meta(const struct convert_run *run);
/* LBR stream weight with an end in a dso whose code was found, and the part rejected. */
void convert__code_module_weight(const struct convert_run *run, double *total, double *rejected);
/* Executed instructions that are bytes the decoder does not know (bbmap's "(bad)", iclass
 * INVALID): their weight in the run's instruction count, and how many code blocks hold any. */
double convert__undecodable_weight(const struct convert_run *run, uint64_t *nr_blocks);

#endif
