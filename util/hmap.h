/* The tool's one hash map: fixed-size keys (a few uint64_t words) or byte strings, and
 * fixed-size values stored inline. Entries live in one dense array in insertion order
 * behind an open-addressing index, so iteration order (and any sum taken over it) depends
 * on the order of the inserts only, never on key values such as pointers. No allocation per
 * insert beyond the amortised doubling of two arrays.
 * Depends only on libc.
 */
#ifndef HBBP_HMAP_H
#define HBBP_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct hmap {
	size_t key_words;	/* key size in uint64_t words */
	size_t val_size;	/* value size in bytes (multiple of 8 recommended) */
	size_t slot_size;	/* one entry: key + value, rounded to 8 */
	size_t cap;		/* index size, a power of two (0 before the first insert);
				 * bounds iteration: entries are 0..nr-1 < cap */
	size_t nr;
	unsigned char *slots;	/* nr entries in insertion order */
	size_t alloc;		/* entries allocated */
	uint32_t *index;	/* cap cells: entry number + 1, 0 empty */
	int bytes;		/* keys are byte strings: { pointer, length } */
};

void hmap__init(struct hmap *h, size_t key_words, size_t val_size);
void hmap__exit(struct hmap *h);
/* Empties h, keeping its memory for the entries that come next. */
void hmap__clear(struct hmap *h);
/* Value for key, inserting a zeroed one when absent (*inserted says which). NULL when out of
 * memory. Pointers stay valid until the next insert. */
void *hmap__get(struct hmap *h, const uint64_t *key, int *inserted);
/* The hash of key, for the two calls below. */
uint64_t hmap__hash(const struct hmap *h, const uint64_t *key);
/* hmap__get of a key whose hash is known. */
void *hmap__get_hashed(struct hmap *h, const uint64_t *key, uint64_t hash, int *inserted);
/* Loads the index cell of hash into the CPU cache (stage 0), or the entry that cell names
 * (stage 1, once the cell is there): a lookup a little later finds them in cache. */
void hmap__prefetch(const struct hmap *h, uint64_t hash, int stage);
/* Value for key or NULL. */
void *hmap__find(const struct hmap *h, const uint64_t *key);
/* Byte-string keys: a map made by hmap__init_bytes is keyed by (pointer, length), hashed
 * and compared by the bytes. The map keeps the pointer, not a copy: the bytes must live as
 * long as the entry (a copy the value owns, a name owned elsewhere). Its key words (for
 * iteration) are { (uintptr_t)pointer, length }. */
void hmap__init_bytes(struct hmap *h, size_t val_size);
void *hmap__get_bytes(struct hmap *h, const void *p, size_t len, int *inserted);
void *hmap__find_bytes(const struct hmap *h, const void *p, size_t len);

/* Entry i (< nr) of h: its key, its value. */
static inline const uint64_t *hmap__key_at(const struct hmap *h, size_t i)
{
	return (const uint64_t *)(h->slots + i * h->slot_size);
}
static inline void *hmap__val_at(const struct hmap *h, size_t i)
{
	return h->slots + i * h->slot_size + h->key_words * 8;
}

/* The one way to walk a map: every entry in insertion order, i its number, key its key words,
 * val a pointer to its value (any pointer type). The map must not be inserted into meanwhile. */
#define hmap__for_each(h, i, key, val)						\
	for ((i) = 0; (i) < (h)->nr &&						\
		      ((key) = hmap__key_at((h), (i)), (void)(key),			\
		       (val) = hmap__val_at((h), (i)), (void)(val), 1);		\
	     (i)++)

#endif
