/* The cache of identical LBR stacks, summed by their raw addresses before any of them is
 * resolved: a fixed open-addressing index over a dense array of entries kept in insertion
 * order, so that a flush visits only the entries (in a deterministic order) and clearing
 * costs one store per entry. The memory is allocated once and reused across flushes.
 * Stacks may be queued for their lookup: the index slot and the entry of a queued stack are
 * loaded into the CPU cache while the next samples are read, and the stack is summed a few
 * stacks later, in the order it was queued. Sums and insertion order are those of adding each
 * stack at once; the queue only hides the memory latency of a cache that is mostly cold (the
 * records stream through the CPU caches in between).
 * Each entry also sums its periods per batch (hbbp/method/interval.h): the batch of each
 * stack added is given with it, so identical stacks of different batches share one entry.
 * Depends on libc and hbbp/method/interval.h.
 */
#ifndef HBBP_STACK_CACHE_H
#define HBBP_STACK_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "hbbp/method/interval.h"

#define HBBP_STACK_CACHE_DEPTH	32
#define HBBP_STACK_CACHE_MAX	16384	/* distinct stacks held (about 9 MB of keys) */
/* key: pid<<32|tid, evidx | cpumode << 16 | n << 32, then from/to of the n entries */
#define HBBP_STACK_KEY_WORDS	(2 + 2 * HBBP_STACK_CACHE_DEPTH)

#define HBBP_STACK_QUEUE	4	/* stacks in flight */

/* period: the stacks' summed weight (their periods, or with the time-weighted LBR estimate
 * period / D(Y) each, hbbp/method/lbr_time.h), bs the same per batch; period_plain: their
 * summed periods */
struct hbbp_stack_val { double period; uint64_t n; double period_plain; struct hbbp_bsum bs; };

struct hbbp_stack_cache {
	uint32_t *index;		/* 2 * MAX slots: entry number + 1, 0 empty */
	uint32_t *slot;			/* per entry: its index slot */
	uint64_t *keys;			/* per entry: HBBP_STACK_KEY_WORDS words */
	struct hbbp_stack_val *vals;	/* per entry */
	size_t nr;
	uint64_t nr_inserts;		/* entries made since init (cumulative over flushes) */
	uint64_t *qkeys;		/* HBBP_STACK_QUEUE keys of queued stacks */
	uint64_t qhash[HBBP_STACK_QUEUE];
	struct hbbp_stack_val qval[HBBP_STACK_QUEUE];	/* period and n (bs unused) */
	unsigned int qbatch[HBBP_STACK_QUEUE];		/* the batch of each queued stack */
	unsigned int qhead, qnr;	/* the oldest queued stack, how many */
};

void hbbp_stack_cache__init(struct hbbp_stack_cache *c);
void hbbp_stack_cache__exit(struct hbbp_stack_cache *c);
/* The hash of key (2 + 2n words, n = key[1] >> 32 <= DEPTH). */
uint64_t hbbp_stack_cache__hash(const uint64_t *key);
/* The value of key, inserted zeroed when absent; NULL when out of memory or full
 * (nr == HBBP_STACK_CACHE_MAX: flush first). Words of key past 2 + 2n are ignored. */
struct hbbp_stack_val *hbbp_stack_cache__get(struct hbbp_stack_cache *c, const uint64_t *key,
					     uint64_t hash);
/* The buffer to write the key of the next stack to queue into, or NULL when none may be
 * queued now: out of memory, or the cache could fill up before the queue is summed. The
 * caller then drains the queue and adds the stack with hbbp_stack_cache__get. */
uint64_t *hbbp_stack_cache__queue_key(struct hbbp_stack_cache *c);
/* Queues the stack written to the buffer of hbbp_stack_cache__queue_key (hash its hash), to
 * be summed (period, n, and period into batch batch) into its entry later. 0 or -ENOMEM. */
int hbbp_stack_cache__queue(struct hbbp_stack_cache *c, uint64_t hash, double period,
			    uint64_t n, unsigned int batch);
/* The same with a weight (period, also summed into batch batch) other than the summed
 * periods (period_plain). */
int hbbp_stack_cache__queue_w(struct hbbp_stack_cache *c, uint64_t hash, double period,
			      double period_plain, uint64_t n, unsigned int batch);
/* Sums the queued stacks into their entries: before nr, the keys or the values are read. */
int hbbp_stack_cache__drain(struct hbbp_stack_cache *c);
/* Entry i (0 <= i < nr) in insertion order. */
static inline const uint64_t *hbbp_stack_cache__key(const struct hbbp_stack_cache *c, size_t i)
{
	return c->keys + i * HBBP_STACK_KEY_WORDS;
}
/* Empties the cache (drained before), keeping its memory. */
void hbbp_stack_cache__clear(struct hbbp_stack_cache *c);

#endif
