/* Open-addressing hash map with fixed-size keys and inline values (see hbbp/hmap.h).
 * Linear probing, load factor <= 1/2, capacity doubles. Depends only on libc.
 */
#include <stdlib.h>
#include <string.h>

#include "hbbp/hmap.h"

void hmap__init(struct hmap *h, size_t key_words, size_t val_size)
{
	memset(h, 0, sizeof(*h));
	h->key_words = key_words;
	h->val_size = val_size;
	h->slot_size = 8 + key_words * 8 + ((val_size + 7) & ~(size_t)7);
}

void hmap__exit(struct hmap *h)
{
	if (!h)
		return;
	free(h->slots);
	h->slots = NULL;
	h->cap = h->nr = 0;
}

static uint64_t hmap_hash(const uint64_t *key, size_t n)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= key[i] + 0x9e3779b97f4a7c15ULL + (x << 6) + (x >> 2);
		x *= 0xbf58476d1ce4e5b9ULL;
		x ^= x >> 31;
	}
	x ^= x >> 29;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 32;
	return x;
}

static unsigned char *slot_at(const struct hmap *h, size_t i)
{
	return h->slots + i * h->slot_size;
}

static int hmap_grow(struct hmap *h)
{
	size_t ncap = h->cap ? h->cap * 2 : 64, i, j;
	unsigned char *ns;

	if (ncap > SIZE_MAX / h->slot_size)
		return -1;
	ns = calloc(ncap, h->slot_size);
	if (!ns)
		return -1;
	for (i = 0; i < h->cap; i++) {
		unsigned char *s = slot_at(h, i);

		if (!*(uint64_t *)s)
			continue;
		j = hmap_hash((const uint64_t *)(s + 8), h->key_words) & (ncap - 1);
		while (*(uint64_t *)(ns + j * h->slot_size))
			j = (j + 1) & (ncap - 1);
		memcpy(ns + j * h->slot_size, s, h->slot_size);
	}
	free(h->slots);
	h->slots = ns;
	h->cap = ncap;
	return 0;
}

void *hmap__find(const struct hmap *h, const uint64_t *key)
{
	size_t i, kb = h->key_words * 8;

	if (!h->cap)
		return NULL;
	i = hmap_hash(key, h->key_words) & (h->cap - 1);
	for (;;) {
		unsigned char *s = slot_at(h, i);

		if (!*(uint64_t *)s)
			return NULL;
		if (!memcmp(s + 8, key, kb))
			return s + 8 + kb;
		i = (i + 1) & (h->cap - 1);
	}
}

void *hmap__get(struct hmap *h, const uint64_t *key, int *inserted)
{
	size_t i, kb = h->key_words * 8;
	unsigned char *s;

	if (inserted)
		*inserted = 0;
	if ((h->nr + 1) * 2 > h->cap && hmap_grow(h))
		return NULL;
	i = hmap_hash(key, h->key_words) & (h->cap - 1);
	for (;;) {
		s = slot_at(h, i);
		if (!*(uint64_t *)s)
			break;
		if (!memcmp(s + 8, key, kb))
			return s + 8 + kb;
		i = (i + 1) & (h->cap - 1);
	}
	*(uint64_t *)s = 1;
	memcpy(s + 8, key, kb);
	memset(s + 8 + kb, 0, h->slot_size - 8 - kb);
	h->nr++;
	if (inserted)
		*inserted = 1;
	return s + 8 + kb;
}

const uint64_t *hmap__slot(const struct hmap *h, size_t i, void **val)
{
	unsigned char *s;

	if (i >= h->cap)
		return NULL;
	s = slot_at(h, i);
	if (!*(uint64_t *)s)
		return NULL;
	if (val)
		*val = s + 8 + h->key_words * 8;
	return (const uint64_t *)(s + 8);
}
