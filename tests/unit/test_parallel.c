/* Unit tests of util/parallel.c: parallel_for calls fn once for every item, never for an item
 * past nr, with worker numbers below the count it returns, and on more than one thread at a
 * time (two items that each wait for the other to start can only both finish when they run
 * together); a worker runs its function on another thread and join waits for it. The oracle
 * is a per-item call count and the threads' own ids.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "util/parallel.h"
#include "tests/harness.h"

struct count_ctx {
	size_t nr;
	unsigned int *calls;		/* per item, nr + 1: one past the end stays 0 */
	size_t *per_worker;		/* items done per worker number, 65 of them */
};

static void count_one(void *ctx, size_t item, unsigned int worker)
{
	struct count_ctx *c = ctx;

	__atomic_fetch_add(&c->calls[item], 1, __ATOMIC_RELAXED);
	c->per_worker[worker < 64 ? worker : 64]++;	/* a worker's own slot: no lock */
}

static void test_parallel_each_once(void)
{
	static const size_t nrs[] = { 0, 1, 2, 7, 1000 };
	static const unsigned int threads[] = { 0, 1, 2, 4, 64 };
	size_t a, b, i;

	for (a = 0; a < sizeof(nrs) / sizeof(nrs[0]); a++) {
		for (b = 0; b < sizeof(threads) / sizeof(threads[0]); b++) {
			size_t per_worker[65] = { 0 }, sum = 0;
			struct count_ctx c = { .nr = nrs[a], .per_worker = per_worker };
			unsigned int ran, want_max;

			c.calls = calloc(nrs[a] + 1, sizeof(*c.calls));
			CHECK(c.calls != NULL);
			if (!c.calls)
				return;
			ran = parallel_for(nrs[a], threads[b], count_one, &c);
			want_max = threads[b] ? threads[b] : 1;
			if (want_max > nrs[a])
				want_max = (unsigned int)nrs[a];
			CHECK(ran == want_max);	/* threads start on this machine */
			for (i = 0; i < nrs[a]; i++)
				CHECK(c.calls[i] == 1);
			CHECK(c.calls[nrs[a]] == 0);
			for (i = 0; i < 65; i++) {
				CHECK(i < ran || per_worker[i] == 0);
				sum += per_worker[i];
			}
			CHECK_EQ_U64(sum, nrs[a]);
			free(c.calls);
		}
	}
}

struct meet_ctx {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int arrived;
	unsigned int met;		/* items that saw the other arrive */
};

/* waits up to 10 s for the other item to start */
static void meet_one(void *ctx, size_t item, unsigned int worker)
{
	struct meet_ctx *m = ctx;
	struct timespec until;
	int err = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&m->lock);
	m->arrived++;
	pthread_cond_broadcast(&m->cond);
	while (m->arrived < 2 && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&m->cond, &m->lock, &until);
	if (m->arrived >= 2)
		m->met++;
	pthread_mutex_unlock(&m->lock);
}

static void test_parallel_concurrent(void)
{
	struct meet_ctx m = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

	CHECK(parallel_for(2, 2, meet_one, &m) == 2);
	CHECK(m.met == 2);
}

static void *note_thread(void *arg)
{
	pthread_t *self = arg;

	*self = pthread_self();
	return NULL;
}

static void test_worker(void)
{
	struct worker w = { 0 };
	pthread_t seen = pthread_self();

	worker__join(&w);		/* never started: nothing */
	CHECK(worker__start(&w, note_thread, &seen) == 0);
	worker__join(&w);
	CHECK(!pthread_equal(seen, pthread_self()));
	CHECK(!w.started);
	worker__join(&w);		/* joined already: nothing */
}

int main(void)
{
	RUN_TEST(test_parallel_each_once);
	RUN_TEST(test_parallel_concurrent);
	RUN_TEST(test_worker);
	return th_failed_tests ? 1 : 0;
}
