/* The rows of the mix (hbbp/pivot/mix.h): the thread blocks' counts summed by their keys'
 * values. A row is keyed by numbers, one word a key: an int key's value, a text key's name
 * interned (equal texts, one number); the names are formatted only when the table is made.
 * A row is finished (its interval set, its batch sums dropped) once nothing more can add to
 * it: a process at a time where the rows are keyed by the process and the counts hand the
 * thread blocks a process at a time (hbbp_counts__each_process), else after the last.
 * Depends on hbbp/pivot/mix_keys.h, util/hmap.h; never prints.
 */
#ifndef HBBP_MIX_ROWS_H
#define HBBP_MIX_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hbbp/pivot/mix_keys.h"
#include "util/hmap.h"

struct mix_row {
	double count;
	struct hbbp_bsum bx;		/* the count's estimate in each batch (the batches'
					 * counts times their role's ratio factor) */
	/* docs/METHOD-cycles.md: the cycles of its blocks with cycle data, their instructions
	 * (cyc_count; 0: no cycle data) and the cycles' estimate in each batch */
	double cycles, cyc_count;
	struct hbbp_bsum cx;
};

/* A finished row: its count and its 95% interval (method.md §10) */
struct mix_row_final {
	double count, lo, hi;
};

/* A finished row's cycles, their instructions and their interval (struct mix_row), after it
 * where the counts have cycle data */
struct mix_row_cycles {
	double cycles, cyc_count, cyc_lo, cyc_hi;
};

/* A row's block, after it (and its diagnostics) when a key is the block (HBBP_KEY_BLOCK):
 * the row's count over per_exec is the block's executions */
struct mix_row_block {
	size_t stamp;		/* the first thread block counted (+ 1) */
	uint32_t per_exec;	/* the row's instructions in one execution of the block */
	uint32_t length;	/* the block's instructions; 0 for a block without code */
};

/* A row's --diagnostics, after it in the map when they are asked */
struct mix_row_diag {
	double ebs_count, lbr_count;
	double lbr_count_plain;		/* lbr_count with the plain weight (method.md §5) */
	uint64_t ebs_samples, lbr_streams;
	size_t stamp;			/* the last thread block counted (+ 1) */
	unsigned sources;		/* one bit per enum hbbp_source but NONE */
	bool biased;
};

struct mix_rows {
	struct hmap map;		/* the keys' ids -> struct mix_row [, mix_row_diag]
					 * [, mix_row_block]: the rows being summed */
	/* the finished rows: the keys' ids, struct mix_row_final [, mix_row_cycles]
	 * [, mix_row_diag] [, mix_row_block], done_size bytes each; done_cyc, done_diag and
	 * done_blk where they are (0: none) */
	unsigned char *done;
	size_t nr_done, alloc_done, done_size, done_cyc, done_diag, done_blk;
	size_t nr_keys;
	bool by_process;		/* rows finished a process at a time */
	struct hmap names_idx;		/* a name (its bytes) -> its id */
	char **names;			/* name id -> text */
	size_t nr_names, alloc_names;
	bool diag;
	size_t blk_off;			/* where a row's struct mix_row_block is in the map's
					 * value; 0: none */
	double ratio_ebs[HBBP_BATCHES], ratio_lbr[HBBP_BATCHES];
	double widen;			/* the intervals' widening (struct hbbp_counts) */
	double filtered_out;		/* the count of the thread blocks the filters left out */
};

/* Sums the thread blocks of x->c that pass the filters into r's finished rows (initialized
 * here; free it with mix_rows__exit, also after an error). Reads the code's blocks, then
 * drops their instructions (and the code, with o->release_code; the accumulator's EBS sums
 * and streams, with o->release_sums). 0 or an error. */
int mix_rows__sum(struct mix_rows *r, const struct mix_ctx *x);
/* The rows' numbers in the table's order: the count as shown (hbbp_round_count), largest
 * first, then the keys (numbers by value, texts by strcmp). 0 or -ENOMEM. */
int mix_rows__order(const struct mix_rows *r, const struct hbbp_mix_opts *o, size_t *order);
void mix_rows__exit(struct mix_rows *r);

/* The finished rows: their number; row i's ids (one per key), its count and interval, (with
 * diag) its diagnostics and (with a block key) its block. */
static inline size_t mix_rows__nr(const struct mix_rows *r)
{
	return r->nr_done;
}
static inline const uint64_t *mix_rows__ids(const struct mix_rows *r, size_t i)
{
	return (const uint64_t *)(r->done + i * r->done_size);
}
static inline const struct mix_row_final *mix_rows__row(const struct mix_rows *r, size_t i)
{
	return (const struct mix_row_final *)(mix_rows__ids(r, i) + r->nr_keys);
}
static inline const struct mix_row_cycles *mix_rows__cycles(const struct mix_rows *r, size_t i)
{
	return r->done_cyc ? (const void *)(r->done + i * r->done_size + r->done_cyc) : NULL;
}
static inline const struct mix_row_diag *mix_rows__diag(const struct mix_rows *r, size_t i)
{
	return r->done_diag ? (const void *)(r->done + i * r->done_size + r->done_diag) : NULL;
}
static inline const struct mix_row_block *mix_rows__block(const struct mix_rows *r, size_t i)
{
	return r->done_blk ? (const void *)(r->done + i * r->done_size + r->done_blk) : NULL;
}

#endif
