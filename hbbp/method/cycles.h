/* Cycles per block from the branch entries' cycle counts (docs/METHOD-cycles.md): entry e[k-1]'s count
 * is the recorded duration of the complete stream e[k].to .. e[k-1].from (k >= 1); each
 * complete stream's duration is spread over its blocks in proportion to their instructions,
 * weighed as the stream's LBR count is (period / (n-1), or the time weight of §5b). A block's
 * cycles per execution is its spread cycles over the weight of its streams with a recorded
 * duration; its cycles, that times its count. The newest, interrupted stream (e[0].to .. the
 * sample's IP) is never a duration sample. A count of 0 means "not reported": the stream adds
 * no duration and no weight. Batch sums as the counts have (method.md §10).
 * Depends on reader/perf_format.h and hbbp/method/interval.h only.
 */
#ifndef HBBP_CYCLES_H
#define HBBP_CYCLES_H

#include <stdbool.h>
#include <stdint.h>

#include "hbbp/method/interval.h"
#include "reader/perf_reader.h"

/* A stream's durations: c the sum of weight * cycles over its instances with a recorded
 * duration, w the sum of their weights, bs c per batch. */
struct hbbp_cycles_val { double c, w; struct hbbp_bsum bs; };

/* A block's (or a task's share of it): c its spread cycles, w the weight of its streams with a
 * recorded duration (both scaled as the LBR sums), cycles its estimate (c / w * count, after
 * hbbp_cycles__finish). w 0: no cycle data, the block has no cycles (absent, not zero). */
struct hbbp_block_cycles { double c, w, cycles; };

/* Whether some stream of the stack e[0..n) has a recorded duration. */
bool hbbp_cycles__any(const struct perf_branch_entry *e, uint64_t n);
/* Adds a stack e[0..n) of weight `weight` to cyc[2..2n): cyc[2k] += weight * e[k-1].cycles
 * and cyc[2k+1] += weight for each k >= 1 whose count was reported. */
void hbbp_cycles__stack(const struct perf_branch_entry *e, uint64_t n, double weight,
			double *cyc);
/* The compact sums of identical stacks (a row of n doubles, zeroed before the first): row[k]
 * the sum of weight * e[k-1].cycles (k >= 1); while row[0] is 0 every stack added had all its
 * counts, and each stream's weight with a duration is the stacks' summed weight; at the first
 * stack without one, row[0] becomes 1 and pres[1..n) holds each stream's own weight from then
 * on. Adds a stack of weight `weight`, `before` the summed weight of the ones before it. */
void hbbp_cycles__row_add(double *row, double *pres, const struct perf_branch_entry *e,
			  uint64_t n, double weight, double before);
/* A row's sums (with pres, and the stacks' summed weight) as hbbp_cycles__stack's cyc. */
void hbbp_cycles__row_sums(const double *row, const double *pres, uint64_t n, double weight,
			   double *cyc);
/* Stream k >= 1 of stacks of n entries whose summed cycle sums are cyc (hbbp_cycles__stack)
 * and summed weight `weight` (w = weight / (n-1), per batch wbs of the stream, all in batch
 * only when only >= 0): its share (1 / (n-1)) added to v. Whether it had a recorded
 * duration. */
bool hbbp_cycles__stream(struct hbbp_cycles_val *v, const double *cyc, uint64_t k, uint64_t n,
			 double weight, double w, const struct hbbp_bsum *wbs, int only);
/* A stream's durations v spread to a block holding frac of its instructions, scaled by the
 * event's scale: into b and per batch into bs. */
void hbbp_cycles__spread(struct hbbp_block_cycles *b, struct hbbp_bsum *bs,
			 const struct hbbp_cycles_val *v, double frac, double scale);
/* b's cycles for its count, and its cycles per batch out from its spread cycles per batch
 * cbs (out zero without cycle data). */
void hbbp_cycles__finish(struct hbbp_block_cycles *b, double count, const struct hbbp_bsum *cbs,
			 struct hbbp_bsum *out);

#endif
