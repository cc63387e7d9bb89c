/* LSD radix sort of (key, value) pairs (see util/radix.h). Depends only on libc. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/radix.h"

/* 16 bits a pass; 8 below 65536 keys, where the counts of 16 bits would cost more to clear
 * and scan (and more cache) than the keys themselves */
#define BIG_DIGIT_BITS	16
#define SMALL_DIGIT_BITS	8
#define SMALL_N		(1u << 16)

int radix_sort(struct radix_item *a, size_t n)
{
	struct radix_item *tmp, *src = a, *dst;
	unsigned int bits = n < SMALL_N ? SMALL_DIGIT_BITS : BIG_DIGIT_BITS, shift;
	size_t digits = (size_t)1 << bits, mask = digits - 1, *count, i;
	uint64_t diff = 0;

	if (n < 2)
		return 0;
	for (i = 1; i < n; i++)
		diff |= a[i].key ^ a[0].key;	/* the bits that differ between keys */
	if (!diff)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	count = malloc(digits * sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return -ENOMEM;
	}
	dst = tmp;
	for (shift = 0; shift < 64; shift += bits) {
		size_t sum = 0;

		if (!((diff >> shift) & mask))
			continue;	/* the same digit in every key */
		memset(count, 0, digits * sizeof(*count));
		for (i = 0; i < n; i++)
			count[(src[i].key >> shift) & mask]++;
		for (i = 0; i < digits; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i].key >> shift) & mask]++] = src[i];
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

int radix_sort_records(void *base, size_t n, size_t size, size_t key_off)
{
	struct radix_item *it;
	unsigned char *b = base, *tmp;
	size_t i;

	if (n < 2)
		return 0;
	it = malloc(n * sizeof(*it));
	tmp = malloc(n * size);
	for (i = 0; it && i < n; i++) {	/* (the key of record i, i), sorted */
		memcpy(&it[i].key, b + i * size + key_off, sizeof(it[i].key));
		it[i].val = i;
	}
	if (!it || !tmp || radix_sort(it, n)) {
		free(it);
		free(tmp);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		memcpy(tmp + i * size, b + it[i].val * size, size);
	memcpy(b, tmp, n * size);
	free(it);
	free(tmp);
	return 0;
}
