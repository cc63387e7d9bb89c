/* The time-weighted LBR estimate in one pass (method.md §5b): a stack's weight period / D(Y)
 * needs the durations of streams seen anywhere in the recording, so the stacks are summed
 * with weight 0 as they come (their counts, plain weights, bias and leaders are final) and
 * what their weight goes to is kept: per stack, the accumulator's stream cell of each kept
 * stream or the reason it was rejected, and the dsos its streams touch; per sample, its
 * stack, IP, period and batch. Once every stack was seen, hbbp_lbr_defer__apply adds the
 * weights, stack by stack in the order they were summed, so every sum equals the one of a
 * second pass over the file (to the last bit). With the streams' cycle counts kept per sample,
 * the stream cells' cycle sums (hbbp/method/cycles.h) get the same weights.
 * Depends on hbbp/method/method.h, hbbp/method/lbr_time.h and reader/perf_reader.h only.
 */
#ifndef HBBP_LBR_DEFER_H
#define HBBP_LBR_DEFER_H

#include <stddef.h>
#include <stdint.h>

#include "hbbp/method/method.h"
#include "reader/perf_reader.h"

/* A sample whose stack is not summed yet: stack is the caller's number for it with this bit. */
#define HBBP_DEFER_PENDING	0x80000000u

struct hbbp_defer_stack {
	uint64_t start;			/* e[0].to: where the interrupted stream Y started */
	uint32_t pid;
	int32_t evidx;
	uint32_t n;			/* entries (n-1 streams) */
	uint32_t first_code, first_dso, nr_dso;
};
struct hbbp_defer_dso { struct bbmap_dso *dso; uint32_t total, rejected; };
/* first_cyc: where its n-1 streams' cycle counts start in cycles, HBBP_DEFER_NO_CYCLES: none */
struct hbbp_defer_sample { uint64_t ip, period; uint32_t stack, batch, first_cyc; };
#define HBBP_DEFER_NO_CYCLES	0xffffffffu

struct hbbp_lbr_defer {
	struct hbbp_lbr_time *t;	/* the durations, filled by the caller during the pass */
	int evidx;			/* the event whose stacks make the durations */
	struct hbbp_defer_stack *stacks;
	uint32_t *codes;		/* per stream: its cell in a->streams, or REJECTED | reason */
	struct hbbp_defer_dso *dsos;
	struct hbbp_defer_sample *samples;
	uint16_t *cycles;		/* per sample with cycle counts, per stream: e[k-1]'s */
	size_t nr_stacks, nr_codes, nr_dsos, nr_samples, first_pending, nr_cycles;
	size_t alloc_stacks, alloc_codes, alloc_dsos, alloc_samples, alloc_cycles;
};

void hbbp_lbr_defer__init(struct hbbp_lbr_defer *d, struct hbbp_lbr_time *t, int evidx);
void hbbp_lbr_defer__exit(struct hbbp_lbr_defer *d);
/* Stack s of process pid and event evidx, just summed by hbbp_accum__lbr with weight 0 (its
 * kept streams' cells in s->cell): what its weight goes to, as stack number d->nr_stacks.
 * 0 or -ENOMEM. */
int hbbp_lbr_defer__stack(struct hbbp_lbr_defer *d, const struct hbbp_stack *s, uint32_t pid,
			  int evidx, uint64_t start);
/* A sample of stack number `stack` (or HBBP_DEFER_PENDING | the caller's number), its
 * entries e[0..n) (for their cycle counts). 0 or -ENOMEM. */
int hbbp_lbr_defer__sample(struct hbbp_lbr_defer *d, uint32_t stack, uint64_t ip,
			   uint64_t period, unsigned int batch,
			   const struct perf_branch_entry *e, uint64_t n);
/* The pending samples since the last call get stack base + their number. */
void hbbp_lbr_defer__settle(struct hbbp_lbr_defer *d, size_t base);
/* Adds every stack's weight to a: period / D(Y) per sample with t finished and OK (its
 * counters into the events' lbr_time_*), else the plain weight period. 0 or -ENOMEM. */
int hbbp_lbr_defer__apply(struct hbbp_lbr_defer *d, struct hbbp_accum *a,
			  const struct hbbp_lbr_time *t);

#endif
