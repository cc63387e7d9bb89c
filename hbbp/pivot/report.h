/* The tables of one recording's HTML report (hbbp-convert report), gathered into one result
 * that writers/html_report.c draws: the run's metadata, warnings and events; unresolved
 * weight by module; the mix by category, ISA extension, vector width and mnemonic; the hot
 * functions, their own mix by category; the annotated listing of each (hbbp/pivot/annotate.h).
 * Every table is bounded (see struct report_opts), so the page's size does not grow with the
 * recording. The mix tables come from hbbp_mix__build with the run's counts (so they carry
 * whatever the mix carries: count_lo/count_hi when the method computes intervals).
 * Depends on hbbp/pivot/mix.h, hbbp/pivot/annotate.h and writers/result.h; never prints.
 */
#ifndef HBBP_REPORT_H
#define HBBP_REPORT_H

#include <stddef.h>

#include "hbbp/pivot/annotate.h"
#include "hbbp/pivot/mix.h"

struct report_opts {
	const struct hbbp_mix_opts *filters;	/* --comm, --pid, ... of the conversion */
	size_t top_functions;		/* functions listed, with their mix and listing (10) */
	size_t top_insns;		/* hottest instructions listed per function (200) */
	size_t top_mnemonics;		/* mnemonics charted; the rest as one "(other)" (30) */
	size_t top_modules;		/* modules with unresolved weight listed (20) */
	const struct perf_reader_stats *rs;	/* the run's reader counts (lost, throttled) */
	const struct hbbp_code_ops *ops;	/* the run's code */
};

/* Builds the report tables of one converted run into out (a new result): run_res is the
 * run's result (meta, warnings, events, blocks, ...), c and d its counts and accumulators. The
 * listing text comes through text/ctx (NULL: mnemonics). Tables: events, unresolved,
 * by_category, by_isa, by_width, by_mnemonic, functions, function_mix, annotate; the meta
 * keys report_top_functions, report_top_insns, report_top_mnemonics say the bounds used. */
int report__build(struct result *out, const struct result *run_res, const struct hbbp_counts *c,
		  struct hbbp_accum *d, const struct perf_event_info *const *events,
		  const struct report_opts *o, annotate_text_fn text, void *ctx);

#endif
