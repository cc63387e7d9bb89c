/* LBR stack statistics and the stack cache's on/off policy (see hbbp/engine/stack_stats.h).
 * Depends on libc only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/engine/stack_stats.h"

void hbbp_stack_stats__init(struct hbbp_stack_stats *s, enum hbbp_stack_policy policy)
{
	memset(s, 0, sizeof(*s));
	s->policy = policy;
	s->off = policy == HBBP_STACKS_NEVER;
	s->win_left = HBBP_STACK_WINDOW;
}

void hbbp_stack_stats__note(struct hbbp_stack_stats *s, uint64_t hash)
{
	unsigned int i = (unsigned int)(hash >> (64 - HBBP_HLL_BITS));
	uint64_t w = hash << HBBP_HLL_BITS | (1ULL << (HBBP_HLL_BITS - 1));
	uint8_t rank = (uint8_t)(__builtin_clzll(w) + 1);

	s->stacks++;
	if (rank > s->hll[i])
		s->hll[i] = rank;
}

/* A window ended: its hit rate decides the next (auto policy). */
static void window_end(struct hbbp_stack_stats *s, uint64_t inserts)
{
	uint64_t cached = s->cached - s->win_cached, made = inserts - s->win_inserts;

	s->windows++;
	s->windows_off += s->off;
	if (s->off) {
		if (s->off_left && --s->off_left)
			goto next;
		s->off = false;		/* probe: one window with the cache */
	} else if (cached >= HBBP_STACK_WINDOW / 2 &&
		   (double)made > (1.0 - HBBP_STACK_MIN_HITS) * (double)cached) {
		s->off = true;
		s->off_left = HBBP_STACK_OFF_WINDOWS;
	}
next:
	s->win_cached = s->cached;
	s->win_inserts = inserts;
	s->win_left = HBBP_STACK_WINDOW;
}

bool hbbp_stack_stats__use_cache(struct hbbp_stack_stats *s, uint64_t inserts)
{
	if (s->policy == HBBP_STACKS_AUTO && !--s->win_left)
		window_end(s, inserts);
	if (s->off) {
		s->direct++;
		return false;
	}
	s->cached++;
	return true;
}

void hbbp_stack_stats__merge(struct hbbp_stack_stats *dst, const struct hbbp_stack_stats *src)
{
	unsigned int i;

	dst->stacks += src->stacks;
	dst->cached += src->cached;
	dst->inserts += src->inserts;
	dst->direct += src->direct;
	for (i = 0; i < HBBP_HLL_REGS; i++)
		if (src->hll[i] > dst->hll[i])
			dst->hll[i] = src->hll[i];
}

double hbbp_stack_stats__distinct(const struct hbbp_stack_stats *s)
{
	double m = HBBP_HLL_REGS, sum = 0, e;
	unsigned int i, zeros = 0;

	for (i = 0; i < HBBP_HLL_REGS; i++) {
		sum += ldexp(1.0, -(int)s->hll[i]);
		zeros += !s->hll[i];
	}
	e = 0.7213 / (1 + 1.079 / m) * m * m / sum;
	if (e <= 2.5 * m && zeros)
		e = m * log(m / zeros);	/* small counts: linear counting */
	if (e > (double)s->stacks)
		e = (double)s->stacks;
	return e;
}
