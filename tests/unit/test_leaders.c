/* Unit tests of hbbp/engine/leaders_threads.c against a recording double of add_leader: every leader
 * gathered reaches its own module exactly once, each module's leaders in the order they were
 * gathered, whatever the number of threads (1, 2, 4, more than there are modules); on several
 * threads no module is ever entered by two threads at once, and one thread alone works when
 * one is asked for.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "hbbp/engine/leaders_threads.h"
#include "tests/harness.h"
#include "util/hbbp_err.h"

#define NR_MODS	9
#define NR_LEADERS 6000

struct fake_mod {
	uint64_t got[NR_LEADERS];	/* the vaddrs add_leader received, in order */
	size_t nr;
	int busy;			/* threads inside add_leader for this module */
	int overlap;			/* times two were */
	pthread_t last;
};

static struct fake_mod mods[NR_MODS];
static pthread_t threads_seen[16];
static int nr_threads_seen;
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

static int rec_add_leader(void *ctx, struct bbmap_module *m, uint64_t vaddr)
{
	struct fake_mod *f = (struct fake_mod *)(void *)m;
	pthread_t self = pthread_self();
	int i, known = 0;
	volatile unsigned spin;

	(void)ctx;
	if (__atomic_add_fetch(&f->busy, 1, __ATOMIC_SEQ_CST) > 1)
		__atomic_add_fetch(&f->overlap, 1, __ATOMIC_SEQ_CST);
	for (spin = 0; spin < 200; spin++)	/* some work, as decoding would be */
		;
	if (f->nr < NR_LEADERS)
		f->got[f->nr++] = vaddr;
	if (!pthread_equal(f->last, self)) {
		f->last = self;
		pthread_mutex_lock(&seen_lock);
		for (i = 0; i < nr_threads_seen; i++)
			known |= pthread_equal(threads_seen[i], self);
		if (!known && nr_threads_seen < 16)
			threads_seen[nr_threads_seen++] = self;
		pthread_mutex_unlock(&seen_lock);
	}
	__atomic_sub_fetch(&f->busy, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* hbbp_leaders_add_fn over one of the doubles above, a leader at a time */
static int (*add_one)(void *ctx, struct bbmap_module *m, uint64_t vaddr);

static int add_list(struct bbmap_module *m, const uint64_t *vaddrs, size_t n, unsigned int threads)
{
	size_t i;
	int err = 0;

	(void)threads;
	for (i = 0; i < n; i++)
		if (add_one(NULL, m, vaddrs[i]) == -ENOMEM)
			err = -ENOMEM;
	return err;
}

static void test_leaders_threads(void)
{
	static uint64_t want[NR_MODS][NR_LEADERS];
	static const unsigned threads[] = { 1, 2, 4, 16 };
	size_t nwant[NR_MODS], k, t;
	uint64_t s = 88172645463325252ULL;

	for (t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
		struct hbbp_leaders l;
		size_t same = 0, total = 0, m, overlaps = 0;

		memset(mods, 0, sizeof(mods));
		memset(nwant, 0, sizeof(nwant));
		nr_threads_seen = 0;
		add_one = rec_add_leader;
		hbbp_leaders__init(&l);
		for (k = 0; k < NR_LEADERS; k++) {
			/* modules of very different sizes, leaders interleaved across them */
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			m = (s % 100) < 40 ? 0 : s % NR_MODS;
			want[m][nwant[m]++] = 0x400000 + k * 4;
			CHECK(!hbbp_leaders__add(&l, (struct bbmap_module *)(void *)&mods[m],
						 0x400000 + k * 4));
		}
		CHECK(l.nr <= NR_MODS);
		CHECK(!hbbp_leaders__apply(&l, add_list, threads[t]));
		for (m = 0; m < NR_MODS; m++) {
			total += mods[m].nr;
			same += mods[m].nr == nwant[m] &&
				!memcmp(mods[m].got, want[m], nwant[m] * sizeof(uint64_t));
			overlaps += (size_t)mods[m].overlap;
		}
		CHECK_EQ_U64(total, NR_LEADERS);
		CHECK_EQ_U64(same, NR_MODS);
		CHECK_EQ_U64(overlaps, 0);
		if (threads[t] == 1)
			CHECK_EQ_U64(nr_threads_seen, 1);
		else
			CHECK(nr_threads_seen >= 1 && nr_threads_seen <= (int)threads[t]);
		hbbp_leaders__exit(&l);
	}
}

/* add_leader fails: for want of memory on one leader of module 3 (the error reaches the
 * caller, on any number of threads, and the other leaders are still added), or because an
 * address is no instruction start (skipped: no error). */
static int fail_kind;

static int failing_add_leader(void *ctx, struct bbmap_module *m, uint64_t vaddr)
{
	struct fake_mod *f = (struct fake_mod *)(void *)m;

	(void)ctx;
	if (f == &mods[3] && vaddr == 0x3005)
		return fail_kind;
	__atomic_add_fetch(&f->nr, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static void test_leaders_errors(void)
{
	static const unsigned threads[] = { 1, 4 };
	static const int kinds[] = { -ENOMEM, -HBBP_ENOTFOUND };
	size_t t, k, m, i;

	for (k = 0; k < 2; k++) {
		for (t = 0; t < 2; t++) {
			struct hbbp_leaders l;
			size_t added = 0;

			memset(mods, 0, sizeof(mods));
			fail_kind = kinds[k];
			add_one = failing_add_leader;
			hbbp_leaders__init(&l);
			for (m = 0; m < NR_MODS; m++)
				for (i = 0; i < 10; i++)
					CHECK(!hbbp_leaders__add(&l, (struct bbmap_module *)(void *)&mods[m],
								 0x1000 * m + i));
			CHECK_EQ_U64((uint64_t)hbbp_leaders__apply(&l, add_list, threads[t]),
				     (uint64_t)(kinds[k] == -ENOMEM ? -ENOMEM : 0));
			CHECK_EQ_U64((uint64_t)hbbp_leaders__apply(&l, add_list, 1),
				     (uint64_t)(kinds[k] == -ENOMEM ? -ENOMEM : 0));
			for (m = 0; m < NR_MODS; m++)
				added += mods[m].nr;
			CHECK_EQ_U64(added, 2 * (NR_MODS * 10 - 1));
			hbbp_leaders__exit(&l);
		}
	}
}

int main(void)
{
	RUN_TEST(test_leaders_threads);
	RUN_TEST(test_leaders_errors);
	return TEST_EXIT();
}
