/* Cycles per block (docs/METHOD-cycles.md, hbbp/method/cycles.h): the complete streams' recorded
 * durations, summed with the streams' weights, spread over their blocks by instructions.
 * Depends on hbbp/method/cycles.h and reader/perf_format.h only.
 */
#include <string.h>

#include "hbbp/method/cycles.h"
#include "reader/perf_format.h"

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
			 double weight, const struct hbbp_bsum *wbs, int only)
{
	double c = cyc[2 * k] / (double)(n - 1);
	unsigned int i;

	if (!(cyc[2 * k + 1] > 0))
		return false;
	v->c += c;
	v->w += cyc[2 * k + 1] / (double)(n - 1);
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
