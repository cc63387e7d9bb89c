/* The cache of identical LBR stacks, summed by their raw addresses before any of them is
 * resolved: a fixed open-addressing index over a dense array of entries kept in insertion
 * order, so that a flush visits only the entries (in a deterministic order) and clearing
 * costs one store per entry. The memory is allocated once and reused across flushes.
 * Each entry also sums its periods per batch (hbbp/method/interval.h): the batch of each
 * stack added is given with it, so identical stacks of different batches share one entry.
 * Also what the stacks of a pass look like, for --diagnostics: counts of stacks (summed in
 * the cache, or resolved at once) and an estimate of the distinct stacks (HyperLogLog over
 * the stack hashes: fixed memory, about 1.6% error).
 * Depends on libc and hbbp/method/interval.h.
 */
#ifndef HBBP_STACK_CACHE_H
#define HBBP_STACK_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "hbbp/method/interval.h"

#define HBBP_STACK_CACHE_DEPTH	32
#ifndef HBBP_STACK_CACHE_MAX		/* the fuzz build holds fewer: small inputs fill it */
#define HBBP_STACK_CACHE_MAX	16384	/* distinct stacks held (about 9 MB of keys) */
#endif
/* key: pid<<32|tid, evidx | cpumode << 16 | n << 32, then from/to of the n entries */
#define HBBP_STACK_KEY_WORDS	(2 + 2 * HBBP_STACK_CACHE_DEPTH)

/* period: the stacks' summed weight (their periods, or with the time-weighted LBR estimate
 * period / D(Y) each, hbbp/method/lbr_time.h), bs the same per batch; period_plain: their
 * summed periods */
struct hbbp_stack_val { double period; uint64_t n; double period_plain; struct hbbp_bsum bs; };

struct hbbp_stack_cache {
	uint32_t *index;		/* 2 * MAX slots: entry number + 1, 0 empty */
	uint32_t *slot;			/* per entry: its index slot */
	uint64_t *keys;			/* per entry: HBBP_STACK_KEY_WORDS words */
	struct hbbp_stack_val *vals;	/* per entry */
	/* per entry: DEPTH cycle sums and DEPTH weights (hbbp_cycles__row_add); NULL until a
	 * stack with a cycle count comes */
	double *cyc, *pres;
	/* per entry: DEPTH names of its streams in the duration statistics (hbbp_lbr_time__ends),
	 * made by the caller with the entry */
	uint32_t *ends;
	size_t nr;
	uint64_t nr_inserts;		/* entries made since init (cumulative over flushes) */
};

void hbbp_stack_cache__init(struct hbbp_stack_cache *c);
void hbbp_stack_cache__exit(struct hbbp_stack_cache *c);
/* The hash of key (2 + 2n words, n = key[1] >> 32 <= DEPTH). */
uint64_t hbbp_stack_cache__hash(const uint64_t *key);
/* The value of key, inserted zeroed when absent; NULL when out of memory or full
 * (nr == HBBP_STACK_CACHE_MAX: flush first). Words of key past 2 + 2n are ignored. */
struct hbbp_stack_val *hbbp_stack_cache__get(struct hbbp_stack_cache *c, const uint64_t *key,
					     uint64_t hash);
/* Entry i (0 <= i < nr) in insertion order. */
static inline const uint64_t *hbbp_stack_cache__key(const struct hbbp_stack_cache *c, size_t i)
{
	return c->keys + i * HBBP_STACK_KEY_WORDS;
}
/* The cycle sums of value v (hbbp_cycles__row_add: n of them, zeroed on insert) and its
 * weights; NULL before hbbp_stack_cache__cycles. */
static inline double *hbbp_stack_cache__cyc(const struct hbbp_stack_cache *c,
					    const struct hbbp_stack_val *v)
{
	return c->cyc ? c->cyc + (size_t)(v - c->vals) * HBBP_STACK_CACHE_DEPTH : NULL;
}
static inline double *hbbp_stack_cache__pres(const struct hbbp_stack_cache *c,
					     const struct hbbp_stack_val *v)
{
	return c->pres + (size_t)(v - c->vals) * HBBP_STACK_CACHE_DEPTH;
}
/* The stream names of value v. */
static inline uint32_t *hbbp_stack_cache__end_ids(const struct hbbp_stack_cache *c,
						  const struct hbbp_stack_val *v)
{
	return c->ends + (size_t)(v - c->vals) * HBBP_STACK_CACHE_DEPTH;
}
/* Makes the cycle sums (the entries so far had no cycle count): 0 or -1. */
int hbbp_stack_cache__cycles(struct hbbp_stack_cache *c);
/* Empties the cache, keeping its memory. */
void hbbp_stack_cache__clear(struct hbbp_stack_cache *c);

#define HBBP_HLL_BITS		12
#define HBBP_HLL_REGS		(1u << HBBP_HLL_BITS)

struct hbbp_stack_stats {
	uint64_t stacks;		/* LBR stacks seen */
	uint64_t cached;		/* of which summed in the cache ... */
	uint64_t inserts;		/* ... where this many were new entries */
	uint64_t direct;		/* resolved at once (not cacheable) */
	uint8_t hll[HBBP_HLL_REGS];
};

/* One stack (its hash): counted in the distinct estimate. */
void hbbp_stack_stats__note(struct hbbp_stack_stats *s, uint64_t hash);
/* The estimated number of distinct stacks. */
double hbbp_stack_stats__distinct(const struct hbbp_stack_stats *s);

#endif
