/* Unit tests of the accumulators' containers: util/hmap.c (every key inserted is found with
 * its own value, iteration gives the entries in insertion order whatever the keys, across
 * index growth) and hbbp/engine/stack_cache.c (identical stacks share one entry, words past the
 * stack are ignored, the cache refuses a new stack when full and is empty and reusable after
 * clear), and hbbp/engine/sum_queue.c (sums queued and drained give the entries, values and
 * insertion order of adding each one at once). The oracle is a plain array of
 * the inserted keys, or a container fed one item at a time. Byte-string keys: strings of
 * every length 0..40 (with NUL bytes inside) are found through a copy, never through a
 * prefix of themselves; the oracle is a linear search of the strings.
 */
#include <stdlib.h>
#include <string.h>

#include "util/hmap.h"
#include "hbbp/engine/stack_cache.h"
#include "hbbp/engine/sum_queue.h"
#include "tests/harness.h"

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_hmap_order(void)
{
	enum { N = 5000 };
	static uint64_t keys[N][3];
	struct hmap h;
	uint64_t s = 88172645463325252ULL;
	size_t i, pass, nr = 0;
	int ins;

	hmap__init(&h, 3, sizeof(uint64_t));
	for (i = 0; i < N; i++) {
		/* a third of the inserts repeat an earlier key */
		size_t j = (i % 3 == 2 && nr) ? rnd(&s) % nr : nr;
		uint64_t *v;

		if (j == nr) {
			keys[nr][0] = rnd(&s);
			keys[nr][1] = rnd(&s) & 0xff;
			keys[nr][2] = nr;
		}
		v = hmap__get(&h, keys[j], &ins);
		CHECK(v != NULL);
		if (!v)
			break;
		CHECK(ins == (j == nr));
		*v += j + 1;
		if (j == nr)
			nr++;
	}
	CHECK_EQ_U64(h.nr, nr);
	for (i = 0; i < h.nr; i++) {
		const uint64_t *k = hmap__key_at(&h, i);
		void *val = hmap__val_at(&h, i);

		CHECK(k && !memcmp(k, keys[i], sizeof(keys[i])));
		CHECK(val && *(uint64_t *)val % (i + 1) == 0 && *(uint64_t *)val >= i + 1);
		CHECK(hmap__find(&h, keys[i]) == val);
	}
	keys[0][2] = N + 1;	/* never inserted */
	CHECK(hmap__find(&h, keys[0]) == NULL);
	keys[0][2] = 0;
	/* emptied twice: with its index kept (most of it used), then freed (little used) */
	for (pass = 0; pass < 2; pass++) {
		hmap__clear(&h);
		CHECK(h.nr == 0 && hmap__find(&h, keys[0]) == NULL && hmap__find(&h, keys[1]) == NULL);
		for (i = 0; i < 10; i++) {
			uint64_t *v = hmap__get(&h, keys[i], &ins);

			CHECK(v && ins && *v == 0);
			if (v)
				*v = i + 7;
		}
		CHECK(h.nr == 10);
		for (i = 0; i < 10; i++) {
			uint64_t *v = hmap__find(&h, keys[i]);

			CHECK(v && *v == i + 7);
		}
		CHECK(hmap__find(&h, keys[10]) == NULL);
	}
	hmap__exit(&h);
}

static void stack_key(uint64_t *key, uint32_t pid, uint64_t n, uint64_t seed)
{
	uint64_t k;

	key[0] = (uint64_t)pid << 32 | pid;
	key[1] = 1 | n << 32;
	for (k = 0; k < n; k++) {
		key[2 + 2 * k] = 0x400000 + seed * 64 + k * 8;
		key[3 + 2 * k] = 0x400000 + seed * 64 + k * 8 + 4;
	}
}

static void test_hmap_bytes(void)
{
	enum { N = 3000 };
	static unsigned char strs[N][40];
	static size_t lens[N];
	unsigned char copy[41];
	struct hmap h;
	uint64_t s = 2463534242ULL;
	size_t i, j, nr = 0;
	int ins;

	hmap__init_bytes(&h, sizeof(size_t));
	for (i = 0; i < N; i++) {
		size_t *v, want = nr;

		lens[nr] = i % 41;
		for (j = 0; j < lens[nr]; j++)	/* few letters: many equal prefixes */
			strs[nr][j] = (unsigned char)(rnd(&s) % 3);
		for (j = 0; j < nr; j++)
			if (lens[j] == lens[nr] && !memcmp(strs[j], strs[nr], lens[nr]))
				want = j;
		memcpy(copy, strs[nr], lens[nr]);
		/* its prefix one byte shorter: found only when stored as such */
		if (lens[nr]) {
			for (j = 0; j < nr; j++)
				if (lens[j] + 1 == lens[nr] && !memcmp(strs[j], copy, lens[j]))
					break;
			CHECK(!hmap__find_bytes(&h, copy, lens[nr] - 1) == (j == nr));
		}
		v = hmap__get_bytes(&h, want == nr ? strs[nr] : copy, lens[nr], &ins);
		CHECK(v != NULL);
		if (!v)
			break;
		CHECK(ins == (want == nr));
		if (ins)
			*v = nr++;
		CHECK_EQ_U64(*v, want);
		CHECK(hmap__find_bytes(&h, copy, lens[want]) == v);
	}
	CHECK_EQ_U64(h.nr, nr);
	for (i = 0; i < nr; i++) {		/* through copies, in insertion order */
		const uint64_t *k = hmap__key_at(&h, i);
		size_t *v;

		memcpy(copy, strs[i], lens[i]);
		v = hmap__find_bytes(&h, copy, lens[i]);
		CHECK(v && *v == i);
		CHECK(k[0] == (uintptr_t)strs[i] && k[1] == lens[i]);
	}
	hmap__exit(&h);
}

static void test_stack_cache(void)
{
	struct hbbp_stack_cache c;
	uint64_t a[HBBP_STACK_KEY_WORDS], b[HBBP_STACK_KEY_WORDS];
	struct hbbp_stack_val *va, *vb;
	size_t i;

	hbbp_stack_cache__init(&c);
	memset(a, 0x11, sizeof(a));
	memset(b, 0x22, sizeof(b));
	stack_key(a, 7, 4, 1);
	stack_key(b, 7, 4, 1);	/* same stack, other garbage past 2 + 2n words */
	CHECK_EQ_U64(hbbp_stack_cache__hash(a), hbbp_stack_cache__hash(b));
	va = hbbp_stack_cache__get(&c, a, hbbp_stack_cache__hash(a));
	CHECK(va != NULL);
	if (va)
		va->n = 3;
	vb = hbbp_stack_cache__get(&c, b, hbbp_stack_cache__hash(b));
	CHECK(vb == va && vb && vb->n == 3);
	CHECK_EQ_U64(c.nr, 1);
	stack_key(b, 8, 4, 1);	/* another thread */
	CHECK(hbbp_stack_cache__get(&c, b, hbbp_stack_cache__hash(b)) != va);
	CHECK_EQ_U64(c.nr, 2);
	/* fill up: the next new stack is refused, known ones are still found */
	for (i = 2; i < HBBP_STACK_CACHE_MAX; i++) {
		stack_key(b, 9, 2 + i % 30, i);
		if (!hbbp_stack_cache__get(&c, b, hbbp_stack_cache__hash(b)))
			break;
	}
	CHECK_EQ_U64(c.nr, HBBP_STACK_CACHE_MAX);
	stack_key(b, 10, 3, 1);
	CHECK(hbbp_stack_cache__get(&c, b, hbbp_stack_cache__hash(b)) == NULL);
	CHECK(hbbp_stack_cache__get(&c, a, hbbp_stack_cache__hash(a)) == va);
	/* entries come in insertion order */
	CHECK(!memcmp(hbbp_stack_cache__key(&c, 0), a, 10 * sizeof(uint64_t)));
	hbbp_stack_cache__clear(&c);
	CHECK_EQ_U64(c.nr, 0);
	va = hbbp_stack_cache__get(&c, b, hbbp_stack_cache__hash(b));
	CHECK(va != NULL && c.nr == 1 && va->n == 0 && va->period == 0);
	hbbp_stack_cache__exit(&c);
}

struct sum { double period; uint64_t n; struct hbbp_bsum bs; };

static void test_sum_queue(void)
{
	struct hmap q, ref;
	struct hbbp_sum_queue sq = { .nr = 0 };
	uint64_t s = 0x9e3779b97f4a7c15ULL, key[4];
	size_t i, same = 0;

	hmap__init(&q, 4, sizeof(struct sum));
	hmap__init(&ref, 4, sizeof(struct sum));
	for (i = 0; i < 50000; i++) {
		/* 3000 keys, growing the index several times while sums are queued */
		uint64_t k = rnd(&s) % 3000;
		double period = (double)(rnd(&s) % 977) * (k % 3 ? 0.125 : 1e9);
		struct sum *v;

		key[0] = k << 32 | (k * 7 & 0xffff);
		key[1] = k % 5;
		key[2] = 0x400000 + k * 16;
		key[3] = k & 1;
		CHECK(!hbbp_sum_queue__add(&sq, &q, key, period, (unsigned int)(i % HBBP_BATCHES)));
		v = hmap__get(&ref, key, NULL);
		CHECK(v != NULL);
		if (v) {
			v->period += period;
			v->n++;
			v->bs.b[i % HBBP_BATCHES] += period;
		}
	}
	CHECK(sq.nr > 0);
	CHECK(!hbbp_sum_queue__drain(&sq, &q));
	CHECK_EQ_U64(sq.nr, 0);
	CHECK_EQ_U64(q.nr, ref.nr);
	for (i = 0; i < q.nr && i < ref.nr; i++) {
		void *vq = hmap__val_at(&q, i), *vr = hmap__val_at(&ref, i);
		const uint64_t *kq = hmap__key_at(&q, i), *kr = hmap__key_at(&ref, i);

		same += !memcmp(kq, kr, 4 * sizeof(uint64_t)) &&
			((struct sum *)vq)->period == ((struct sum *)vr)->period &&
			((struct sum *)vq)->n == ((struct sum *)vr)->n &&
			!memcmp(&((struct sum *)vq)->bs, &((struct sum *)vr)->bs,
				sizeof(struct hbbp_bsum));
	}
	CHECK_EQ_U64(same, ref.nr);
	hmap__exit(&q);
	hmap__exit(&ref);
}

int main(void)
{
	RUN_TEST(test_hmap_order);
	RUN_TEST(test_hmap_bytes);
	RUN_TEST(test_stack_cache);
	RUN_TEST(test_sum_queue);
	return TEST_EXIT();
}
