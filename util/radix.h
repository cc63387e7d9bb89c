/* Sorting (key, value) pairs of 64-bit words by key: an LSD radix sort, 16 bits a pass (8 for
 * fewer than 65536 keys), the passes whose digit is the same in every key skipped; stable
 * (equal keys keep their order).
 * For large arrays whose keys are plain numbers, where qsort's comparisons through a
 * function would cost more than the moves.
 * Depends only on libc.
 */
#ifndef HBBP_RADIX_H
#define HBBP_RADIX_H

#include <stddef.h>
#include <stdint.h>

struct radix_item {
	uint64_t key, val;
};

/* Sorts a[0..n) by key. 0, or -ENOMEM (a is then unchanged). */
int radix_sort(struct radix_item *a, size_t n);
/* The indices of n records of nw words each (record i: words[i * stride .. + nw)) in the
 * order of their words compared one after the other (a stable sort a word at a time, the
 * last word first), into order[0..n). 0 or -ENOMEM. */
int radix_sort_words(const uint64_t *words, size_t stride, size_t nw, size_t n, size_t *order);
/* Sorts n records of `size` bytes at base by the uint64_t at byte offset key_off of each,
 * stably (records of equal keys keep their order, as glibc's qsort leaves them). 0, or
 * -ENOMEM (base is then unchanged). */
int radix_sort_records(void *base, size_t n, size_t size, size_t key_off);

#endif
