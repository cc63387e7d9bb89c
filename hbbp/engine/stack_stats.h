/* What the LBR stacks of a pass look like and whether summing identical ones first pays:
 * counts of stacks (cached, summed at once), an estimate of the distinct stacks
 * (HyperLogLog over the stack hashes: fixed memory, about 1.6% error), and the policy that
 * turns the stack cache off while its measured hit rate is low and probes it again now and
 * then. The sums are the same either way (up to the order of floating-point additions).
 * Depends on libc only.
 */
#ifndef HBBP_STACK_STATS_H
#define HBBP_STACK_STATS_H

#include <stdbool.h>
#include <stdint.h>

#define HBBP_HLL_BITS		12
#define HBBP_HLL_REGS		(1u << HBBP_HLL_BITS)
/* stacks per measurement window; below this hit rate the cache is turned off */
#define HBBP_STACK_WINDOW	32768u
#define HBBP_STACK_MIN_HITS	0.15
#define HBBP_STACK_OFF_WINDOWS	8u	/* windows off before the cache is tried again */

enum hbbp_stack_policy { HBBP_STACKS_AUTO, HBBP_STACKS_ALWAYS, HBBP_STACKS_NEVER };

struct hbbp_stack_stats {
	uint64_t stacks;		/* LBR stacks seen */
	uint64_t cached;		/* of which summed in the cache ... */
	uint64_t inserts;		/* ... where this many were new entries */
	uint64_t direct;		/* resolved at once (the cache off, or not cacheable) */
	uint64_t windows, windows_off;	/* measurement windows, and those with the cache off */
	enum hbbp_stack_policy policy;
	bool off;			/* the cache is off now */
	uint32_t win_left;		/* stacks left in the current window */
	uint32_t off_left;		/* windows left with the cache off */
	uint64_t win_cached, win_inserts;	/* at the window's start */
	uint8_t hll[HBBP_HLL_REGS];
};

void hbbp_stack_stats__init(struct hbbp_stack_stats *s, enum hbbp_stack_policy policy);
/* One stack (its hash): counted in the distinct estimate. */
void hbbp_stack_stats__note(struct hbbp_stack_stats *s, uint64_t hash);
/* Whether the next stack goes through the cache; inserts: the cache's entries made so far
 * (new entries, cumulative). Call once per cacheable stack, after __note. */
bool hbbp_stack_stats__use_cache(struct hbbp_stack_stats *s, uint64_t inserts);
/* Adds src's counts and sketch to dst (a part of the file read apart). */
void hbbp_stack_stats__merge(struct hbbp_stack_stats *dst, const struct hbbp_stack_stats *src);
/* The estimated number of distinct stacks. */
double hbbp_stack_stats__distinct(const struct hbbp_stack_stats *s);

#endif
