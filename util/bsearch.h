/* The one binary search over the tool's sorted arrays: bsearch_count(n, i, below) is the
 * number of leading elements of 0..n-1 for which `below`, an expression of the index i,
 * holds (it holds for a prefix of them and not for the rest): where a binary search
 * partitions the array, C++'s partition_point. An expression expanded where it is used:
 * the lookups that use it run for every sample. A GNU C statement expression.
 * Depends only on libc.
 */
#ifndef HBBP_BSEARCH_H
#define HBBP_BSEARCH_H

#include <stddef.h>

#define bsearch_count(n, i, below) ({					\
	size_t bs_lo_ = 0, bs_hi_ = (n);				\
									\
	while (bs_lo_ < bs_hi_) {					\
		size_t i = bs_lo_ + (bs_hi_ - bs_lo_) / 2;		\
									\
		if (below)						\
			bs_lo_ = i + 1;					\
		else							\
			bs_hi_ = i;					\
	}								\
	bs_lo_;								\
})

#endif
