/* Cycles per block (docs/METHOD-cycles.md, hbbp/method/cycles.h): the complete streams' recorded
 * durations, summed with the streams' weights, spread over their blocks by instructions.
 * Depends on hbbp/method/cycles.h and reader/perf_format.h only.
 */
#include <string.h>

#include "hbbp/method/cycles.h"
#include "reader/perf_format.h"

bool hbbp_cycles__any(const struct perf_branch_entry *e, uint64_t n)
{
	uint64_t k;

	for (k = 1; k < n; k++)
		if (PERF_BR_CYCLES(e[k - 1].flags))
			return true;
	return false;
}

void hbbp_cycles__row_add(double *row, double *pres, const struct perf_branch_entry *e,
			  uint64_t n, double weight, double before)
{
	uint64_t k = 1, j;
	unsigned c;

	if (!row[0]) {
		for (; k < n && (c = PERF_BR_CYCLES(e[k - 1].flags)); k++)
			row[k] += weight * c;
		if (k == n)	/* all counts: the stacks' weight is every stream's */
			return;
		for (j = 1; j < n; j++)	/* the first stack without all its counts */
			pres[j] = j < k ? before + weight : before;
		row[0] = 1;
	}
	for (; k < n; k++) {
		c = PERF_BR_CYCLES(e[k - 1].flags);
		if (!c)
			continue;	/* not reported */
		row[k] += weight * c;
		pres[k] += weight;
	}
}

void hbbp_cycles__row_sums(const double *row, const double *pres, uint64_t n, double weight,
			   double *cyc)
{
	uint64_t k;

	for (k = 1; k < n; k++) {
		cyc[2 * k] = row[k];
		cyc[2 * k + 1] = row[0] ? pres[k] : weight;
	}
}

void hbbp_cycles__stack(const struct perf_branch_entry *e, uint64_t n, double weight,
			double *cyc)
{
	uint64_t k;

	for (k = 1; k < n; k++) {
		unsigned c = PERF_BR_CYCLES(e[k - 1].flags);	/* e[k].to .. e[k-1].from */

		if (!c)
			continue;	/* not reported */
		cyc[2 * k] += weight * c;
		cyc[2 * k + 1] += weight;
	}
}

bool hbbp_cycles__stream(struct hbbp_cycles_val *v, const double *cyc, uint64_t k, uint64_t n,
			 double weight, double w, const struct hbbp_bsum *wbs, int only)
{
	double c;
	unsigned int i;

	if (!(cyc[2 * k + 1] > 0))
		return false;
	c = cyc[2 * k] / (double)(n - 1);
	v->c += c;
	v->w += cyc[2 * k + 1] == weight ? w : cyc[2 * k + 1] / (double)(n - 1);
	if (only >= 0)
		v->bs.b[only] += c;
	else if (weight > 0)	/* stacks of several batches: their mean duration in each */
		for (i = 0; i < HBBP_BATCHES; i++)
			v->bs.b[i] += wbs->b[i] * (cyc[2 * k] / weight);
	return true;
}

void hbbp_cycles__spread(struct hbbp_block_cycles *b, struct hbbp_bsum *bs,
			 const struct hbbp_cycles_val *v, double frac, double scale)
{
	if (!(v->w > 0))
		return;
	b->c += v->c * frac * scale;
	b->w += v->w * scale;
	hbbp_bsum__axpy(bs, frac * scale, &v->bs);
}

void hbbp_cycles__finish(struct hbbp_block_cycles *b, double count, const struct hbbp_bsum *cbs,
			 struct hbbp_bsum *out)
{
	memset(out, 0, sizeof(*out));
	b->cycles = 0;
	if (!(b->w > 0))
		return;
	b->cycles = b->c / b->w * count;
	hbbp_bsum__axpy(out, count / b->w, cbs);
}
