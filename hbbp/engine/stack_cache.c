/* The LBR stack cache (see hbbp/engine/stack_cache.h). Linear probing in a table of twice the
 * maximum number of entries, which never grows. Depends only on libc.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/engine/stack_cache.h"

#define NR_SLOTS	(2 * HBBP_STACK_CACHE_MAX)

void hbbp_stack_cache__init(struct hbbp_stack_cache *c)
{
	memset(c, 0, sizeof(*c));
}

void hbbp_stack_cache__exit(struct hbbp_stack_cache *c)
{
	if (!c)
		return;
	free(c->index);
	free(c->slot);
	free(c->keys);
	free(c->vals);
	free(c->qkeys);
	memset(c, 0, sizeof(*c));
}

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 29;
	return x;
}

/* Four independent multiply lanes: the words of a 32-deep stack hash in about as many
 * cycles as there are words. */
uint64_t hbbp_stack_cache__hash(const uint64_t *key)
{
	size_t n = 2 + 2 * (size_t)(key[1] >> 32), i;
	uint64_t a = 0x9e3779b97f4a7c15ULL, b = 0xbf58476d1ce4e5b9ULL;
	uint64_t c = 0x94d049bb133111ebULL, d = 0x2545f4914f6cdd1dULL;

	if (n > HBBP_STACK_KEY_WORDS)
		n = HBBP_STACK_KEY_WORDS;
	for (i = 0; i + 4 <= n; i += 4) {
		a = (a ^ key[i]) * 0xff51afd7ed558ccdULL;
		b = (b ^ key[i + 1]) * 0xc4ceb9fe1a85ec53ULL;
		c = (c ^ key[i + 2]) * 0xff51afd7ed558ccdULL;
		d = (d ^ key[i + 3]) * 0xc4ceb9fe1a85ec53ULL;
		a ^= a >> 29;
		b ^= b >> 31;
		c ^= c >> 29;
		d ^= d >> 31;
	}
	for (; i < n; i++)
		a = mix64(a ^ key[i]) * 0xff51afd7ed558ccdULL;
	return mix64(a ^ mix64(b ^ mix64(c ^ mix64(d))));
}

static int cache_alloc(struct hbbp_stack_cache *c)
{
	c->index = calloc(NR_SLOTS, sizeof(*c->index));
	c->slot = malloc(HBBP_STACK_CACHE_MAX * sizeof(*c->slot));
	c->keys = malloc((size_t)HBBP_STACK_CACHE_MAX * HBBP_STACK_KEY_WORDS * sizeof(uint64_t));
	c->vals = malloc(HBBP_STACK_CACHE_MAX * sizeof(*c->vals));
	c->qkeys = malloc(HBBP_STACK_QUEUE * HBBP_STACK_KEY_WORDS * sizeof(uint64_t));
	if (c->index && c->slot && c->keys && c->vals && c->qkeys)
		return 0;
	hbbp_stack_cache__exit(c);
	return -1;
}

struct hbbp_stack_val *hbbp_stack_cache__get(struct hbbp_stack_cache *c, const uint64_t *key,
					     uint64_t hash)
{
	size_t words = 2 + 2 * (size_t)(key[1] >> 32), i, e;
	uint64_t *k;

	if (words > HBBP_STACK_KEY_WORDS || (!c->index && cache_alloc(c)))
		return NULL;
	i = hash & (NR_SLOTS - 1);
	while ((e = c->index[i])) {
		k = c->keys + (e - 1) * HBBP_STACK_KEY_WORDS;
		if (k[1] == key[1] && !memcmp(k, key, words * sizeof(*k)))
			return &c->vals[e - 1];
		i = (i + 1) & (NR_SLOTS - 1);
	}
	if (c->nr >= HBBP_STACK_CACHE_MAX)
		return NULL;
	e = c->nr++;
	c->nr_inserts++;
	k = c->keys + e * HBBP_STACK_KEY_WORDS;
	memcpy(k, key, words * sizeof(*k));
	c->slot[e] = (uint32_t)i;
	c->index[i] = (uint32_t)(e + 1);
	memset(&c->vals[e], 0, sizeof(c->vals[e]));
	return &c->vals[e];
}

uint64_t *hbbp_stack_cache__queue_key(struct hbbp_stack_cache *c)
{
	/* every queued stack may be a new entry: all must find room */
	if (c->nr + c->qnr >= HBBP_STACK_CACHE_MAX || (!c->index && cache_alloc(c)))
		return NULL;
	return c->qkeys + (size_t)((c->qhead + c->qnr) % HBBP_STACK_QUEUE) * HBBP_STACK_KEY_WORDS;
}

/* Sums the oldest queued stack. */
static int queue_pop(struct hbbp_stack_cache *c)
{
	unsigned int q = c->qhead;
	struct hbbp_stack_val *v = hbbp_stack_cache__get(
		c, c->qkeys + (size_t)q * HBBP_STACK_KEY_WORDS, c->qhash[q]);

	if (!v)
		return -ENOMEM;
	v->period += c->qval[q].period;
	v->n += c->qval[q].n;
	v->period_plain += c->qval[q].period_plain;
	v->bs.b[c->qbatch[q]] += c->qval[q].period;	/* the weight, per batch */
	c->qhead = (q + 1) % HBBP_STACK_QUEUE;
	c->qnr--;
	return 0;
}

/* The entry a queued stack's first index slot names, loaded ahead of its lookup. */
static void queue_prefetch_entry(const struct hbbp_stack_cache *c, unsigned int q)
{
	const uint64_t *key = c->qkeys + (size_t)q * HBBP_STACK_KEY_WORDS;
	uint32_t e = c->index[c->qhash[q] & (NR_SLOTS - 1)];
	size_t bytes = (2 + 2 * (size_t)(key[1] >> 32)) * sizeof(uint64_t), off;
	const char *k;

	if (!e)
		return;
	k = (const char *)(c->keys + (size_t)(e - 1) * HBBP_STACK_KEY_WORDS);
	for (off = 0; off < bytes; off += 64)
		__builtin_prefetch(k + off);
	__builtin_prefetch(k + bytes - 1);
	__builtin_prefetch(&c->vals[e - 1]);
	__builtin_prefetch(&c->vals[e - 1].bs.b[c->qbatch[q]]);
}

int hbbp_stack_cache__queue(struct hbbp_stack_cache *c, uint64_t hash, double period,
			    uint64_t n, unsigned int batch)
{
	return hbbp_stack_cache__queue_w(c, hash, period, period, n, batch);
}

int hbbp_stack_cache__queue_w(struct hbbp_stack_cache *c, uint64_t hash, double period,
			      double period_plain, uint64_t n, unsigned int batch)
{
	unsigned int q = (c->qhead + c->qnr) % HBBP_STACK_QUEUE;

	c->qhash[q] = hash;
	c->qval[q].period = period;
	c->qval[q].n = n;
	c->qval[q].period_plain = period_plain;
	c->qbatch[q] = batch < HBBP_BATCHES ? batch : 0;
	__builtin_prefetch(&c->index[hash & (NR_SLOTS - 1)]);
	c->qnr++;
	/* the previous stack's slot was loaded one stack ago: now its entry */
	if (c->qnr >= 2)
		queue_prefetch_entry(c, (q + HBBP_STACK_QUEUE - 1) % HBBP_STACK_QUEUE);
	return c->qnr == HBBP_STACK_QUEUE ? queue_pop(c) : 0;
}

int hbbp_stack_cache__drain(struct hbbp_stack_cache *c)
{
	while (c->qnr) {
		int err = queue_pop(c);

		if (err)
			return err;
	}
	return 0;
}

void hbbp_stack_cache__clear(struct hbbp_stack_cache *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		c->index[c->slot[i]] = 0;
	c->nr = 0;
}
