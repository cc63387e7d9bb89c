/* The LBR stack cache and the stacks' statistics (see hbbp/engine/stack_cache.h). Linear
 * probing in a table of twice the maximum number of entries, which never grows.
 * Depends on libc.
 */
#include <math.h>
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
	free(c->cyc);
	free(c->pres);
	free(c->ends);
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
	c->ends = malloc((size_t)HBBP_STACK_CACHE_MAX * HBBP_STACK_CACHE_DEPTH * sizeof(*c->ends));
	if (c->index && c->slot && c->keys && c->vals && c->ends)
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
	if (c->cyc)
		memset(hbbp_stack_cache__cyc(c, &c->vals[e]), 0, (words - 2) / 2 * sizeof(*c->cyc));
	return &c->vals[e];
}

int hbbp_stack_cache__cycles(struct hbbp_stack_cache *c)
{
	size_t i;

	c->cyc = calloc((size_t)HBBP_STACK_CACHE_MAX * HBBP_STACK_CACHE_DEPTH, sizeof(*c->cyc));
	c->pres = calloc((size_t)HBBP_STACK_CACHE_MAX * HBBP_STACK_CACHE_DEPTH, sizeof(*c->pres));
	if (!c->cyc || !c->pres) {
		free(c->cyc);
		free(c->pres);
		c->cyc = c->pres = NULL;
		return -1;
	}
	for (i = 0; i < c->nr; i++)	/* their stacks had no count: no stream's weight */
		c->cyc[i * HBBP_STACK_CACHE_DEPTH] = 1;
	return 0;
}

void hbbp_stack_cache__clear(struct hbbp_stack_cache *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		c->index[c->slot[i]] = 0;
	c->nr = 0;
}

void hbbp_stack_stats__note(struct hbbp_stack_stats *s, uint64_t hash)
{
	unsigned int i = (unsigned int)(hash >> (64 - HBBP_HLL_BITS));
	uint64_t w = hash << HBBP_HLL_BITS | (1ULL << (HBBP_HLL_BITS - 1));
	uint8_t rank = (uint8_t)(__builtin_clzll(w) + 1);

	s->stacks++;
	if (rank > s->hll[i])
		s->hll[i] = rank;
}

double hbbp_stack_stats__distinct(const struct hbbp_stack_stats *s)
{
	double m = HBBP_HLL_REGS, sum = 0, e;
	unsigned int i, zeros = 0;

	for (i = 0; i < HBBP_HLL_REGS; i++) {
		sum += ldexp(1.0, -(int)s->hll[i]);
		zeros += !s->hll[i];
	}
	e = 0.7213 / (1 + 1.079 / m) * m * m / sum;
	if (e <= 2.5 * m && zeros)
		e = m * log(m / zeros);	/* small counts: linear counting */
	if (e > (double)s->stacks)
		e = (double)s->stacks;
	return e;
}
