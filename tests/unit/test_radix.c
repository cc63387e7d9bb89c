/* Unit test of util/radix.c against qsort: (key, value) pairs sorted by key, equal keys in
 * their first order (the values number the items in input order, so a stable sort gives
 * pairs sorted by (key, value)), on keys of several shapes: all 64 bits random, a few
 * distinct keys (many ties), keys differing only in their high or low bits, one key,
 * already sorted and reversed; and records of several words sorted word by word, ties in
 * input order; and records of many bytes sorted by a key inside them (radix_sort_records).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/radix.h"
#include "tests/harness.h"

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int by_key_then_val(const void *pa, const void *pb)
{
	const struct radix_item *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->val < b->val ? -1 : a->val > b->val;
}

static uint64_t some_key(unsigned shape, size_t i, size_t n, uint64_t *s)
{
	switch (shape) {
	case 0: return rnd(s);
	case 1: return rnd(s) % 7;
	case 2: return rnd(s) << 48;
	case 3: return rnd(s) & 0xff;
	case 4: return 42;
	case 5: return i;
	default: return n - i;
	}
}

static void test_radix_against_qsort(void)
{
	static const size_t sizes[] = { 0, 1, 2, 3, 17, 1000, 70000 };
	uint64_t s = 0x9e3779b97f4a7c15ull;
	unsigned shape;
	size_t k, i, bad = 0, runs = 0;

	for (shape = 0; shape < 7; shape++) {
		for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			size_t n = sizes[k];
			struct radix_item *a = malloc((n + 1) * sizeof(*a));
			struct radix_item *b = malloc((n + 1) * sizeof(*b));

			CHECK(a && b);
			if (!a || !b) {
				free(a);
				free(b);
				return;
			}
			for (i = 0; i < n; i++) {
				a[i].key = some_key(shape, i, n, &s);
				a[i].val = i;
			}
			memcpy(b, a, n * sizeof(*a));
			CHECK(radix_sort(a, n) == 0);
			qsort(b, n, sizeof(*b), by_key_then_val);
			bad += n && memcmp(a, b, n * sizeof(*a)) != 0;
			runs++;
			free(a);
			free(b);
		}
	}
	CHECK(runs == 49);
	CHECK(bad == 0);
}

/* records of 3 words, compared word by word (the records' indices break ties: stable) */
static const uint64_t *cmp_words;

static int by_words(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb, w;

	for (w = 0; w < 3; w++)
		if (cmp_words[a * 4 + w] != cmp_words[b * 4 + w])
			return cmp_words[a * 4 + w] < cmp_words[b * 4 + w] ? -1 : 1;
	return a < b ? -1 : a > b;
}

static void test_radix_words(void)
{
	enum { N = 30000 };
	static uint64_t words[N * 4];
	static size_t got[N], want[N];
	uint64_t s = 12345;
	size_t i;

	for (i = 0; i < N; i++) {
		words[i * 4] = rnd(&s) % 5;		/* a rank */
		words[i * 4 + 1] = rnd(&s) % 300 + (rnd(&s) & 1 ? 0xffffffff81000000ull : 0);
		words[i * 4 + 2] = rnd(&s) % 4;
		words[i * 4 + 3] = rnd(&s);	/* not a key word */
	}
	for (i = 0; i < N; i++)
		want[i] = i;
	cmp_words = words;
	qsort(want, N, sizeof(*want), by_words);
	CHECK(radix_sort_words(words, 4, 3, N, got) == 0);
	CHECK(memcmp(got, want, sizeof(got)) == 0);
}

/* records of 40 bytes, the key at byte 8, a tag naming each record's input place: sorted by
 * key, ties in input order, the other bytes carried along (as qsort by (key, tag) gives) */
struct rec {
	uint32_t tag;
	char pad[4];
	uint64_t key;
	char name[24];
};

static int by_key_then_tag(const void *pa, const void *pb)
{
	const struct rec *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->tag < b->tag ? -1 : a->tag > b->tag;
}

static void test_radix_records(void)
{
	static const size_t sizes[] = { 0, 1, 5, 4096, 70000 };
	uint64_t s = 777;
	size_t k, i, bad = 0;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		struct rec *a = calloc(n + 1, sizeof(*a)), *b = calloc(n + 1, sizeof(*b));

		CHECK(a && b);
		if (!a || !b) {
			free(a);
			free(b);
			return;
		}
		for (i = 0; i < n; i++) {
			a[i].tag = (uint32_t)i;
			a[i].key = k % 2 ? rnd(&s) % 50 : 0x7f0000000000ull + (rnd(&s) & 0xffff0);
			snprintf(a[i].name, sizeof(a[i].name), "r%zu", i);
		}
		memcpy(b, a, n * sizeof(*a));
		CHECK(radix_sort_records(a, n, sizeof(*a), offsetof(struct rec, key)) == 0);
		qsort(b, n, sizeof(*b), by_key_then_tag);
		bad += n && memcmp(a, b, n * sizeof(*a)) != 0;
		free(a);
		free(b);
	}
	CHECK(bad == 0);
}

int main(void)
{
	RUN_TEST(test_radix_against_qsort);
	RUN_TEST(test_radix_words);
	RUN_TEST(test_radix_records);
	return TEST_EXIT();
}
