/* Per-instruction counts of functions (hbbp-convert annotate, the report's listings), built
 * from a conversion's result tables (writers/schema.h: modules, symbols, blocks,
 * instructions): every instruction of a block ran the block's count times, with the block's
 * 95% interval (its count_lo/count_hi columns, when the result has them) and its chosen
 * source and bias flag. Blocks that overlap at an address add up there.
 * Depends on writers/result.h and libc; the instruction text comes through a callback (the
 * disassembler is the caller's); never prints.
 */
#ifndef HBBP_ANNOTATE_H
#define HBBP_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "writers/result.h"

struct annotate_insn {
	uint64_t addr;
	unsigned len;			/* bytes (0: unknown) */
	double count;
	double lo, hi;			/* 95% interval; NaN when the result has none */
	const char *mnemonic;		/* the result's strings */
	char *text;			/* mnemonic and operands (owned) */
	const char *srcline;		/* "file:line", or NULL */
	bool block_start;		/* a block starts here: the fields below are its */
	uint64_t block_addr;		/* start of the block the instruction is in */
	const char *source;		/* "lbr", "ebs", "lbr-fallback", "ebs-fallback", "" */
	bool biased;
	unsigned block_len;		/* instructions of the block */
	double block_cycles;		/* the block's cycles, all its executions (table
					 * block_cycles); NaN: none */
};

struct annotate_func {
	const char *module;		/* short name (as the mix's module key) */
	const char *module_name;	/* recorded file name */
	const char *symbol;
	uint64_t start, size;
	double count;			/* sum of the instructions' counts */
	size_t nr_insns;		/* listed (at most opts.max_insns) */
	size_t nr_insns_all;		/* instructions with counts before the cut */
	double count_cut;		/* count of the instructions cut */
	struct annotate_insn *insns;	/* by address */
};

struct annotate {
	size_t nr_funcs;
	struct annotate_func *funcs;	/* hottest first, or in the order asked */
	bool has_intervals;		/* the result's blocks have count_lo/count_hi */
	bool has_cycles;		/* some listed block has cycles */
	double total;			/* count of every instruction of the result */
	size_t nr_candidates;		/* functions with counts passing the filters */
};

struct annotate_opts {
	const char *const *symbols;	/* names to list, or globs (NULL: the hottest) */
	size_t nr_symbols;
	const char *module;		/* comma-separated short or full names or globs; NULL:
					 * any */
	size_t top;			/* functions when no names are given (0: 5) */
	size_t max_insns;		/* instructions per function, hottest kept (0: all) */
};

/* The text of the instruction at addr of the module recorded as module_name: 0, or an
 * error (the mnemonic is used then). */
typedef int (*annotate_text_fn)(void *ctx, const char *module_name, uint64_t addr, char *buf,
				size_t len);

/* Builds the listings from res (which must hold the tables modules, symbols, blocks and
 * instructions: -HBBP_ENOTFOUND otherwise). text may be NULL (mnemonics only). */
int annotate__build(struct annotate **out, const struct result *res,
		    const struct annotate_opts *o, annotate_text_fn text, void *ctx);
void annotate__delete(struct annotate *a);
/* Adds the table name to res: module, symbol, address, count, count_lo, count_hi,
 * instruction, block, source, srcline (and biased, 1 when the block's LBR count is biased,
 * with with_bias), one row per listed instruction (count_lo/count_hi NULL when the result
 * has no intervals). */
int annotate__table(const struct annotate *a, struct result *res, const char *name,
		    bool with_bias);
/* Whether name is pattern, or matches it as a shell glob when it has * ? or [ (as the
 * conversion's --symbol and --module filters match). */
bool annotate__name_matches(const char *pattern, const char *name);

#endif
