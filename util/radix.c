/* LSD radix sort of (key, value) pairs (see util/radix.h). Depends only on libc. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/radix.h"

#define DIGIT_BITS	16
#define DIGITS		(1u << DIGIT_BITS)

int radix_sort(struct radix_item *a, size_t n)
{
	struct radix_item *tmp, *src = a, *dst;
	size_t *count, i;
	unsigned int shift;
	uint64_t diff = 0;

	if (n < 2)
		return 0;
	for (i = 1; i < n; i++)
		diff |= a[i].key ^ a[0].key;	/* the bits that differ between keys */
	if (!diff)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	count = malloc(DIGITS * sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return -ENOMEM;
	}
	dst = tmp;
	for (shift = 0; shift < 64; shift += DIGIT_BITS) {
		size_t sum = 0;

		if (!((diff >> shift) & (DIGITS - 1)))
			continue;	/* the same digit in every key */
		memset(count, 0, DIGITS * sizeof(*count));
		for (i = 0; i < n; i++)
			count[(src[i].key >> shift) & (DIGITS - 1)]++;
		for (i = 0; i < DIGITS; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i].key >> shift) & (DIGITS - 1)]++] = src[i];
		{
			struct radix_item *t = src;

			src = dst;
			dst = t;
		}
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	free(tmp);
	free(count);
	return 0;
}

int radix_sort_words(const uint64_t *words, size_t stride, size_t nw, size_t n, size_t *order)
{
	struct radix_item *it = malloc((n ? n : 1) * sizeof(*it));
	size_t i, w;
	int err = 0;

	if (!it)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		it[i].val = i;
	for (w = nw; w-- > 0 && !err;) {
		for (i = 0; i < n; i++)
			it[i].key = words[it[i].val * stride + w];
		err = radix_sort(it, n);
	}
	for (i = 0; i < n && !err; i++)
		order[i] = (size_t)it[i].val;
	free(it);
	return err;
}
