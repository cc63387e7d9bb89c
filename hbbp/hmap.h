/* A flat open-addressing hash map with fixed-size keys (a few uint64_t words) and fixed-size
 * values stored inline, for the method's accumulators: no allocation per insert beyond the
 * amortised doubling of one array, and iteration by slot index.
 * Depends only on libc.
 */
#ifndef HBBP_HMAP_H
#define HBBP_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct hmap {
	size_t key_words;	/* key size in uint64_t words */
	size_t val_size;	/* value size in bytes (multiple of 8 recommended) */
	size_t slot_size;	/* 8 (used flag) + key + value, rounded to 8 */
	size_t cap;		/* power of two, 0 before the first insert */
	size_t nr;
	unsigned char *slots;
};

void hmap__init(struct hmap *h, size_t key_words, size_t val_size);
void hmap__exit(struct hmap *h);
/* Value for key, inserting a zeroed one when absent (*inserted says which). NULL when out of
 * memory. Pointers stay valid until the next insert. */
void *hmap__get(struct hmap *h, const uint64_t *key, int *inserted);
/* Value for key or NULL. */
void *hmap__find(const struct hmap *h, const uint64_t *key);
/* Iteration: slots 0..cap-1; returns the key of slot i (and its value) or NULL if empty. */
const uint64_t *hmap__slot(const struct hmap *h, size_t i, void **val);

#endif
