/* Hash map with fixed-size or byte-string keys and inline values (see util/hmap.h): a dense
 * entry array in insertion order and a linear-probing index of entry numbers, load factor
 * <= 1/2, both doubling. Depends only on libc.
 */
#include <stdlib.h>
#include <string.h>

#include "util/hmap.h"
#include "util/grow.h"

void hmap__init(struct hmap *h, size_t key_words, size_t val_size)
{
	memset(h, 0, sizeof(*h));
	h->key_words = key_words;
	h->val_size = val_size;
	h->slot_size = key_words * 8 + ((val_size + 7) & ~(size_t)7);
}

void hmap__init_bytes(struct hmap *h, size_t val_size)
{
	hmap__init(h, 2, val_size);
	h->bytes = 1;
}

void hmap__exit(struct hmap *h)
{
	if (!h)
		return;
	free(h->slots);
	free(h->index);
	h->slots = NULL;
	h->index = NULL;
	h->cap = h->nr = h->alloc = 0;
}

void hmap__clear(struct hmap *h)
{
	if (h->nr * 8 < h->cap) {	/* little of it used: the index goes (its clearing would
					 * cost more than the entries it held) */
		free(h->index);
		h->index = NULL;
		h->cap = 0;
	} else if (h->cap) {
		memset(h->index, 0, h->cap * sizeof(*h->index));
	}
	h->nr = 0;
}

/* 64 x 64 -> 128-bit product, folded (wyhash's "mum"): the words of a key are multiplied
 * in pairs, independently, so that the multiplications of one key overlap in the CPU */
static inline uint64_t mum(uint64_t a, uint64_t b)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128 r = (unsigned __int128)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
	uint64_t ha = a >> 32, la = (uint32_t)a, hb = b >> 32, lb = (uint32_t)b;
	uint64_t hh = ha * hb, hl = ha * lb, lh = la * hb, ll = la * lb;
	uint64_t mid = (ll >> 32) + (uint32_t)hl + (uint32_t)lh;

	return (ll & 0xffffffffu) ^ (mid << 32) ^ (hh + (hl >> 32) + (lh >> 32) + (mid >> 32));
#endif
}

static const uint64_t seed[8] = {
	0xa0761d6478bd642fULL, 0xe7037ed1a0b428dbULL, 0x8ebc6af09c88c6e3ULL,
	0x589965cc75374cc3ULL, 0x1d8e4e27c47d124fULL, 0x9e3779b97f4a7c15ULL,
	0xbf58476d1ce4e5b9ULL, 0x94d049bb133111ebULL,
};

static uint64_t hmap_hash(const uint64_t *key, size_t n)
{
	uint64_t x = seed[0] ^ n;
	size_t i;

	for (i = 0; i + 2 <= n; i += 2)
		x ^= mum(key[i] ^ seed[i & 7], key[i + 1] ^ seed[(i + 1) & 7]);
	if (i < n)
		x ^= mum(key[i] ^ seed[i & 7], seed[5]);
	return mum(x ^ seed[6], seed[7]);
}

/* a byte string, 16 bytes at a time, its length mixed in first */
static uint64_t bytes_hash(const unsigned char *p, size_t n)
{
	uint64_t x = seed[0] ^ n, a = 0, b = 0;

	for (; n >= 16; p += 16, n -= 16) {
		memcpy(&a, p, 8);
		memcpy(&b, p + 8, 8);
		x = mum(a ^ seed[1], b ^ x);
	}
	a = b = 0;
	if (n >= 8) {
		memcpy(&a, p, 8);
		p += 8;
		n -= 8;
	}
	if (n)
		memcpy(&b, p, n);
	return mum(mum(a ^ seed[2], b ^ seed[3] ^ x) ^ seed[6], seed[7]);
}

/* the hash of a key: its words, or the bytes its words point to */
static inline uint64_t key_hash(const uint64_t *key, size_t n, int bytes)
{
	if (bytes)
		return bytes_hash((const unsigned char *)(uintptr_t)key[0], (size_t)key[1]);
	return hmap_hash(key, n);
}

/* keys are a few words: compared inline, the first (most distinct) word first; byte
 * strings by length, then bytes */
static inline int key_eq(const unsigned char *s, const uint64_t *key, size_t n, int bytes)
{
	const uint64_t *k = (const uint64_t *)(const void *)s;
	size_t i;

	if (bytes)
		return k[1] == key[1] && (k[0] == key[0] ||
			!memcmp((const void *)(uintptr_t)k[0], (const void *)(uintptr_t)key[0],
				(size_t)key[1]));
	for (i = 0; i < n; i++)
		if (k[i] != key[i])
			return 0;
	return 1;
}

static unsigned char *entry_at(const struct hmap *h, size_t i)
{
	return h->slots + i * h->slot_size;
}

/* doubles the index (rebuilt from the entries) */
static int hmap_grow_index(struct hmap *h)
{
	size_t ncap = h->cap ? h->cap * 2 : 64, i, j;
	uint32_t *ni;

	if (ncap > (size_t)UINT32_MAX || ncap > SIZE_MAX / sizeof(*ni))
		return -1;
	ni = calloc(ncap, sizeof(*ni));
	if (!ni)
		return -1;
	for (i = 0; i < h->nr; i++) {
		j = key_hash((const uint64_t *)entry_at(h, i), h->key_words, h->bytes) &
		    (ncap - 1);
		while (ni[j])
			j = (j + 1) & (ncap - 1);
		ni[j] = (uint32_t)(i + 1);
	}
	free(h->index);
	h->index = ni;
	h->cap = ncap;
	return 0;
}

static int hmap_grow_entries(struct hmap *h)
{
	return grow_array((void **)&h->slots, &h->alloc, h->slot_size, h->nr + 1, SIZE_MAX) ? -1 : 0;
}

/* The value of key, or NULL; bytes is a constant at each call: the word maps' loop has
 * no test for it */
static inline void *lookup(const struct hmap *h, const uint64_t *key, uint64_t hash, int bytes)
{
	size_t i, kb = h->key_words * 8;
	uint32_t e;

	if (!h->cap)
		return NULL;
	i = hash & (h->cap - 1);
	while ((e = h->index[i])) {
		unsigned char *s = entry_at(h, e - 1);

		if (key_eq(s, key, h->key_words, bytes))
			return s + kb;
		i = (i + 1) & (h->cap - 1);
	}
	return NULL;
}

void *hmap__find(const struct hmap *h, const uint64_t *key)
{
	return lookup(h, key, hmap_hash(key, h->key_words), 0);
}

uint64_t hmap__hash(const struct hmap *h, const uint64_t *key)
{
	return hmap_hash(key, h->key_words);
}

void hmap__prefetch(const struct hmap *h, uint64_t hash, int stage)
{
	const uint32_t *cell;

	if (!h->cap)
		return;
	cell = &h->index[hash & (h->cap - 1)];
	if (!stage)
		__builtin_prefetch(cell);
	else if (*cell)
		__builtin_prefetch(entry_at(h, *cell - 1));
}

void *hmap__get(struct hmap *h, const uint64_t *key, int *inserted)
{
	return hmap__get_hashed(h, key, hmap_hash(key, h->key_words), inserted);
}

/* The value of key, inserted zeroed when absent */
static inline void *insert(struct hmap *h, const uint64_t *key, uint64_t hash, int bytes,
			   int *inserted)
{
	size_t i, kb = h->key_words * 8;
	unsigned char *s;
	uint32_t e;

	if (inserted)
		*inserted = 0;
	if ((h->nr + 1) * 2 > h->cap && hmap_grow_index(h))
		return NULL;
	i = hash & (h->cap - 1);
	while ((e = h->index[i])) {
		s = entry_at(h, e - 1);
		if (key_eq(s, key, h->key_words, bytes))
			return s + kb;
		i = (i + 1) & (h->cap - 1);
	}
	if (h->nr == h->alloc && hmap_grow_entries(h))
		return NULL;
	s = entry_at(h, h->nr);
	memcpy(s, key, kb);
	memset(s + kb, 0, h->slot_size - kb);
	h->index[i] = (uint32_t)(h->nr + 1);
	h->nr++;
	if (inserted)
		*inserted = 1;
	return s + kb;
}

void *hmap__get_hashed(struct hmap *h, const uint64_t *key, uint64_t hash, int *inserted)
{
	return insert(h, key, hash, 0, inserted);
}

void *hmap__get_bytes(struct hmap *h, const void *p, size_t len, int *inserted)
{
	const uint64_t key[2] = { (uintptr_t)p, len };

	return insert(h, key, bytes_hash(p, len), 1, inserted);
}

void *hmap__find_bytes(const struct hmap *h, const void *p, size_t len)
{
	const uint64_t key[2] = { (uintptr_t)p, len };

	return lookup(h, key, bytes_hash(p, len), 1);
}
