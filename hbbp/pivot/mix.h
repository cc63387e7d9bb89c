/* The instruction-mix pivot (method.md §1) and the result tables of writers/schema.h, built
 * from the per-(thread, block) counts of hbbp/method/blocks.c, the code read through struct
 * hbbp_code_ops below: every instruction of a block ran count(block) times. Rows for weight
 * that has no code are kept with marker values:
 *   mnemonic/iclass "[no code]"    EBS weight in a dso whose binary is missing, refused
 *                                  (build-id mismatch) or names-only (kallsyms, perf map)
 *   mnemonic/iclass "[undecoded]"  EBS weight in a binary at an address off decoded code
 *   module/mnemonic "[unmapped]"   EBS weight at addresses no map covered
 *   symbol "[unknown]"             code (or no-code weight) no symbol covers
 * Their count is the sum of EBS periods (instructions); LBR cannot count them.
 * The pivot keys are hbbp/pivot/mix_keys.c, the rows hbbp/pivot/mix_rows.c, the tables
 * hbbp/pivot/mix_tables.c. Depends on hbbp/method/method.h and writers/result.h; never prints.
 */
#ifndef HBBP_MIX_H
#define HBBP_MIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hbbp/method/method.h"
#include "writers/result.h"

/* A pivot key (hbbp/pivot/mix_keys.c: one descriptor each). */
struct hbbp_key;

/* What the keys of a mix read beyond the blocks (hbbp_mix__needs). */
#define HBBP_KEY_THREAD	(1u << 0)	/* the thread: the sums kept per thread */
#define HBBP_KEY_INSN	(1u << 1)	/* each instruction of a block (no thread) */
#define HBBP_KEY_LINES	(1u << 2)	/* source lines (DWARF) */
#define HBBP_KEY_BLOCK	(1u << 3)	/* one block a row: its length and executions shown */

#define HBBP_MAX_KEYS 16

enum { HBBP_SHARE_ABSOLUTE, HBBP_SHARE_RELATIVE };	/* struct hbbp_mix_opts.percentage */
#define HBBP_DEFAULT_KEYS "module,symbol,mnemonic"

/* What the mix reads of the code (hbbp/engine/code_bbmap.c binds it to a bbmap session, unit
 * tests to doubles); ctx is passed back to every call. */
struct hbbp_code_ops {
	void *ctx;
	enum bbmap_dso_status (*dso_module)(void *ctx, struct bbmap_dso *d, struct bbmap_module **m);
	int (*block_at)(void *ctx, struct bbmap_module *m, uint64_t vaddr,
			const struct bbmap_block **blk);
	const char *(*dso_name)(void *ctx, const struct bbmap_dso *d);	/* recorded name */
	const char *(*dso_short_name)(void *ctx, const struct bbmap_dso *d);
	enum bbmap_dso_kind (*dso_kind)(void *ctx, const struct bbmap_dso *d);
	const char *(*dso_path)(void *ctx, const struct bbmap_dso *d);		/* or NULL */
	const char *(*dso_status_detail)(void *ctx, const struct bbmap_dso *d);	/* or NULL */
	size_t (*module_build_id)(void *ctx, const struct bbmap_module *m, const uint8_t **id);
	/* Frees the instructions block_at decoded so far (decoded again on request) and hands
	 * back the pages of the code's bytes they were read from; every insns pointer it gave
	 * becomes invalid. NULL: nothing to free. */
	void (*drop_insns)(void *ctx);
	/* Frees the blocks cut so far with their instructions: block_at may not be asked
	 * again (it would cut the code again without the leaders). NULL: nothing to free. */
	void (*drop_code)(void *ctx);
};

/* A user taxonomy column (--taxonomy FILE): group name of an instruction, or NULL. */
struct hbbp_taxonomy {
	const char *column;		/* column name */
	const char *(*group)(void *ctx, const struct bbmap_insn *in);
	void *ctx;
};

struct hbbp_mix_opts {
	const struct hbbp_key *keys[HBBP_MAX_KEYS];
	size_t nr_keys;
	size_t top;			/* 0: all rows */
	const char *comm, *module, *symbol, *pid;	/* comma-separated lists, NULL: any */
	bool user_only, kernel_only;
	/* the share's whole: HBBP_SHARE_ABSOLUTE every thread block's count, the rows the
	 * filters leave out included (perf report's default), HBBP_SHARE_RELATIVE the rows' */
	int percentage;
	bool diagnostics;
	const struct hbbp_taxonomy *taxonomy;	/* NULL: no taxonomy column */
	bool lines;			/* source lines were read (stored_lines of the metadata) */
	bool threads;			/* c's sums are per thread: the table thread_blocks */
	bool mix_only;			/* only the tables mix and events (for an output that
					 * writes no other) */
	bool block_cycles;		/* with the blocks, the table block_cycles (row for row:
					 * each block's cycles, docs/METHOD-cycles.md) where the
					 * recording has cycle counts; for annotate and report,
					 * which read the tables: their rows are held (else the
					 * blocks' tables make them as a writer reads them) */
	bool release_code;		/* mix_only, and the caller asks no block of the code
					 * after: its blocks are freed once the rows are summed,
					 * before the table is made (ops->drop_code) */
	bool release_sums;		/* the caller reads no EBS sum or stream of the
					 * accumulator after the mix: they are freed once the
					 * rows are summed */
};

/* Parses "--by" keys into opts (the taxonomy column name is accepted as a key when
 * taxonomy_column is not NULL). Returns 0 or -HBBP_EUSAGE with a message in err. */
int hbbp_mix__parse_keys(struct hbbp_mix_opts *o, const char *spec, const char *taxonomy_column,
			 char *err, size_t errlen);
/* Whether any of the filters --pid, --comm, --module, --symbol, --user-only, --kernel-only
 * is set. */
bool hbbp_mix__filtered(const struct hbbp_mix_opts *o);
/* Whether an element of the comma-separated list matches v: equal (also where it has * ? or
 * [: '[kernel.kallsyms]'), or a shell glob (fnmatch) when it has those. */
bool hbbp_mix__list_has(const char *list, const char *v);
/* The HBBP_KEY_* flags of the keys of o, or'ed. */
unsigned hbbp_mix__needs(const struct hbbp_mix_opts *o);
/* The column name of key i of o ("pid", ..., the taxonomy's column). */
const char *hbbp_mix__key_name(const struct hbbp_mix_opts *o, size_t i);
/* The rounding of the mix's counts (writers/SCHEMA.md, "Numbers"): integers from 1000 on and
 * 4 significant digits below (shares: 6, mix_tables.c). */
double hbbp_round_count(double x);

/* The dsos of d with unresolved EBS or LBR weight by name ("[unmapped]" for none), or
 * heaviest first (EBS + LBR weight), then by name: a calloc'd array of *nr pointers into d
 * (free it; the entries stay d's), or NULL when out of memory. */
const struct hbbp_unresolved **hbbp_unresolved__weighted(const struct hbbp_accum *d,
							  bool heaviest, size_t *nr);

/* Calls fn for each element of the --pid/--comm/--module/--symbol lists of o that no thread
 * block with a count matches (a filter that selects nothing); stops at fn's first error. */
int hbbp_mix__unmatched(const struct hbbp_counts *c, struct hbbp_accum *d,
			const struct hbbp_code_ops *ops, const struct hbbp_mix_opts *o,
			int (*fn)(void *ctx, const char *option, const char *value), void *ctx);

/* Builds the "mix" table and the tables events, modules, symbols, blocks, instructions (not
 * with o->mix_only), thread_blocks (also only with o->threads) into res,
 * plus the method's metadata (with those tables: stored_threads, stored_lines). events: the
 * recording's events (d->nr_events of them); rs: the reader's counts of LOST, LOST_SAMPLES
 * and THROTTLE records (method.md §2). total_out, if not NULL, gets the total count of the
 * mix rows before --top. Filters apply to mix and thread_blocks; the other tables are
 * complete. Without o->block_cycles, blocks, instructions and thread_blocks make each row
 * from c, d and the code as it is read: they must outlive res's writing. */
int hbbp_mix__build(struct result *res, const struct hbbp_counts *c, struct hbbp_accum *d,
		    const struct hbbp_code_ops *ops, const struct perf_event_info *const *events,
		    const struct perf_reader_stats *rs, const struct hbbp_mix_opts *o,
		    double *total_out);

#endif
