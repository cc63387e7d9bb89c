/* The time-weighted LBR estimate in one pass (hbbp/method/lbr_defer.h): what each stack's
 * weight goes to, kept while the stacks are summed with weight 0, and the weights added at
 * the end as hbbp_accum__lbr (hbbp/method/accum.c) adds them: the same sums in the same order.
 * Never prints; never opens files.
 * Depends on hbbp/method/lbr_defer.h, hbbp/method/method.h, reader/perf_format.h, util/grow.h
 * and util/hmap.h only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/method/lbr_defer.h"
#include "reader/perf_format.h"
#include "util/grow.h"

#define DEFER_REJECTED	0x80000000u	/* a code: the stream was rejected, for the reason below */

void hbbp_lbr_defer__init(struct hbbp_lbr_defer *d, struct hbbp_lbr_time *t, int evidx)
{
	memset(d, 0, sizeof(*d));
	d->t = t;
	d->evidx = evidx;
}

void hbbp_lbr_defer__exit(struct hbbp_lbr_defer *d)
{
	if (!d)
		return;
	free(d->stacks);
	free(d->codes);
	free(d->dsos);
	free(d->samples);
	free(d->cycles);
	memset(d, 0, sizeof(*d));
}

/* The dso d of stack st counted once more in its streams (a rejected one: rej). */
static int defer_dso(struct hbbp_lbr_defer *d, struct hbbp_defer_stack *st,
		     struct bbmap_dso *dso, bool rej)
{
	struct hbbp_defer_dso *x;
	uint32_t i;

	for (i = 0; i < st->nr_dso && d->dsos[st->first_dso + i].dso != dso; i++)
		;
	if (i == st->nr_dso) {
		if (grow_one((void **)&d->dsos, &d->alloc_dsos, sizeof(*d->dsos), d->nr_dsos))
			return -ENOMEM;
		x = d->dsos + st->first_dso;
		x[i].dso = dso;
		x[i].total = x[i].rejected = 0;
		st->nr_dso++;
		d->nr_dsos++;
	}
	x = d->dsos + st->first_dso;
	x[i].total++;
	x[i].rejected += rej;
	return 0;
}

int hbbp_lbr_defer__stack(struct hbbp_lbr_defer *d, const struct hbbp_stack *s, uint32_t pid,
			  int evidx, uint64_t start)
{
	struct hbbp_defer_stack *st;
	uint64_t k;

	if (d->nr_stacks >= HBBP_DEFER_PENDING ||
	    grow_one((void **)&d->stacks, &d->alloc_stacks, sizeof(*d->stacks), d->nr_stacks) ||
	    grow_array((void **)&d->codes, &d->alloc_codes, sizeof(*d->codes),
		       d->nr_codes + s->n - 1, (size_t)-1))
		return -ENOMEM;
	st = &d->stacks[d->nr_stacks++];
	st->start = start;
	st->pid = pid;
	st->evidx = evidx;
	st->n = (uint32_t)s->n;
	st->first_code = (uint32_t)d->nr_codes;
	st->first_dso = (uint32_t)d->nr_dsos;
	st->nr_dso = 0;
	for (k = 1; k < s->n; k++) {
		enum hbbp_reject r = hbbp_stack__stream_class(s, k);
		struct bbmap_dso *dto = s->ends[2 * k + 1].dso, *dfrom = s->ends[2 * (k - 1)].dso;

		d->codes[d->nr_codes++] = r == REJ__COUNT ? s->cell[k] : DEFER_REJECTED | r;
		/* as hbbp_accum__lbr's stream_dsos: either end's dso, once when both are one */
		if ((dto && defer_dso(d, st, dto, r != REJ__COUNT)) ||
		    (dfrom && dfrom != dto && defer_dso(d, st, dfrom, r != REJ__COUNT)))
			return -ENOMEM;
	}
	return 0;
}

int hbbp_lbr_defer__sample(struct hbbp_lbr_defer *d, uint32_t stack, uint64_t ip,
			   uint64_t period, unsigned int batch,
			   const struct perf_branch_entry *e, uint64_t n)
{
	struct hbbp_defer_sample *x;
	uint32_t first = HBBP_DEFER_NO_CYCLES;
	uint64_t k;

	for (k = 1; k < n && !PERF_BR_CYCLES(e[k - 1].flags); k++)
		;
	if (k < n) {	/* some stream's duration was recorded */
		if (d->nr_cycles + n > HBBP_DEFER_NO_CYCLES ||
		    grow_array((void **)&d->cycles, &d->alloc_cycles, sizeof(*d->cycles),
			       d->nr_cycles + n - 1, (size_t)-1))
			return -ENOMEM;
		first = (uint32_t)d->nr_cycles;
		for (k = 1; k < n; k++)
			d->cycles[d->nr_cycles++] = (uint16_t)PERF_BR_CYCLES(e[k - 1].flags);
	}

	if (grow_one((void **)&d->samples, &d->alloc_samples, sizeof(*d->samples),
		     d->nr_samples))
		return -ENOMEM;
	x = &d->samples[d->nr_samples++];
	x->ip = ip;
	x->period = period;
	x->stack = stack;
	x->batch = batch < HBBP_BATCHES ? batch : 0;
	x->first_cyc = first;
	return 0;
}

void hbbp_lbr_defer__settle(struct hbbp_lbr_defer *d, size_t base)
{
	size_t i;

	for (i = d->first_pending; i < d->nr_samples; i++)
		if (d->samples[i].stack & HBBP_DEFER_PENDING)
			d->samples[i].stack = (uint32_t)(base + (d->samples[i].stack &
								 ~HBBP_DEFER_PENDING));
	d->first_pending = d->nr_samples;
}

/* Stack st's weight (its cnt samples' weights summed, per batch bs; their cycle sums cyc as
 * hbbp_cycles__stack's, NULL without) added as hbbp_accum__lbr adds a stack's weight. */
static void defer_add(const struct hbbp_lbr_defer *d, struct hbbp_accum *a,
		      const struct hbbp_defer_stack *st, double weight, const struct hbbp_bsum *bs,
		      const double *cyc, uint64_t cnt)
{
	double w = weight / (double)(st->n - 1);
	struct hbbp_bsum wbs;
	uint32_t k, i;
	int only = -1;

	a->ev[st->evidx].stream_weight += weight;
	for (k = 0; k < HBBP_BATCHES; k++) {
		wbs.b[k] = bs->b[k] / (double)(st->n - 1);
		if (bs->b[k] != 0)
			only = only == -1 ? (int)k : -2;
	}
	for (k = 0; k + 1 < st->n; k++) {
		uint32_t code = d->codes[st->first_code + k];

		if (!(code & DEFER_REJECTED)) {
			struct hbbp_stream_val *v = hmap__val_at(&a->streams, code);

			v->weight += w;
			if (only >= 0)
				v->bs.b[only] += wbs.b[only];
			else
				hbbp_bsum__axpy(&v->bs, 1.0, &wbs);
			if (cyc && hbbp_cycles__stream(&v->cyc, cyc, k + 1, st->n, weight, w,
						       &wbs, only))
				a->cycles_streams += cnt;
			continue;
		}
		code &= ~DEFER_REJECTED;
		a->rejected_weight[code] += w;
		if (code == REJ_UNMAPPED)	/* the entry exists: no allocation */
			hbbp_accum__unresolved_add(a, NULL, true, 0, w);
	}
	for (i = 0; i < st->nr_dso; i++) {
		const struct hbbp_defer_dso *x = &d->dsos[st->first_dso + i];
		uint64_t key = (uintptr_t)x->dso;
		struct hbbp_unresolved *u = hmap__find(&a->unres, &key);

		for (k = 0; u && k < x->total; k++)
			u->lbr_total += w;
		for (k = 0; u && k < x->rejected; k++)
			u->lbr_rejected += w;
	}
}

int hbbp_lbr_defer__apply(struct hbbp_lbr_defer *d, struct hbbp_accum *a,
			  const struct hbbp_lbr_time *t)
{
	uint32_t *first = calloc(d->nr_stacks + 1, sizeof(*first));
	uint32_t *order = calloc(d->nr_samples ? d->nr_samples : 1, sizeof(*order));
	double *cyc = NULL;
	size_t i, j, alloc_cyc = 0;

	if (!first || !order) {
		free(first);
		free(order);
		return -ENOMEM;
	}
	/* the samples of each stack in their order (a stable counting sort) */
	for (i = 0; i < d->nr_samples; i++)	/* every sample is settled: none is left out */
		if (d->samples[i].stack < d->nr_stacks)
			first[d->samples[i].stack + 1]++;
	for (i = 0; i < d->nr_stacks; i++)
		first[i + 1] += first[i];
	for (i = 0; i < d->nr_samples; i++)
		if (d->samples[i].stack < d->nr_stacks)
			order[first[d->samples[i].stack]++] = (uint32_t)i;
	for (i = d->nr_stacks; i > 0; i--)
		first[i] = first[i - 1];
	first[0] = 0;
	for (i = 0; i < d->nr_stacks; i++) {
		const struct hbbp_defer_stack *st = &d->stacks[i];
		struct hbbp_event_state *ev = &a->ev[st->evidx];
		const struct hbbp_lbr_time_group *g = t ? hbbp_lbr_time__starts(t, st->pid,
									       st->start) : NULL;
		struct hbbp_bsum bs;
		double weight = 0;
		bool has_cyc = false;
		uint32_t k;

		memset(&bs, 0, sizeof(bs));
		for (j = first[i]; j < first[i + 1] && !has_cyc; j++)
			has_cyc = d->samples[order[j]].first_cyc != HBBP_DEFER_NO_CYCLES;
		if (has_cyc) {
			if (grow_array((void **)&cyc, &alloc_cyc, sizeof(*cyc), 2 * (size_t)st->n,
				       (size_t)-1)) {
				free(first);
				free(order);
				return -ENOMEM;
			}
			memset(cyc, 0, 2 * (size_t)st->n * sizeof(*cyc));
		}
		for (j = first[i]; j < first[i + 1]; j++) {
			const struct hbbp_defer_sample *x = &d->samples[order[j]];
			double w = (double)x->period;

			if (t) {	/* period / D(Y) */
				bool fb, by_ip;

				w /= hbbp_lbr_time__duration(t, g, st->start, x->ip, &fb, &by_ip);
				ev->lbr_time_stacks++;
				ev->lbr_time_fallback += fb;
				ev->lbr_time_by_ip += by_ip;
			}
			weight += w;
			bs.b[x->batch] += w;
			for (k = 1; x->first_cyc != HBBP_DEFER_NO_CYCLES && k < st->n; k++) {
				unsigned int c = d->cycles[x->first_cyc + k - 1];

				if (!c)	/* as hbbp_cycles__stack: not reported */
					continue;
				cyc[2 * k] += w * c;
				cyc[2 * k + 1] += w;
			}
		}
		defer_add(d, a, st, weight, &bs, has_cyc ? cyc : NULL, first[i + 1] - first[i]);
	}
	free(cyc);
	free(first);
	free(order);
	return 0;
}
