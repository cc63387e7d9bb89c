/* LBR stacks summed on a second thread (see hbbp/engine/stack_worker.h): a ring of buffers
 * of records (header, resolved ends, the entries' flags); the pass hands each over when it
 * is full.
 * Depends on hbbp/method/method.h, util/grow.h and pthreads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hbbp/engine/stack_worker.h"
#include "util/grow.h"

/* A buffer is handed over when it holds this much. The ring holds 32 MiB: more than a flush
 * of the stack cache (16384 stacks) makes at once, so the pass goes on reading while the
 * worker sums it. Each buffer is a map of its own (cmd_convert.c: from 4 MiB), returned
 * to the kernel when the pass ends. */
#define BUF_BYTES	(4u << 20)
#define BUF_FIRST	(BUF_BYTES + (256u << 10))	/* allocated at once: a record over the
							 * limit fits without a move */

struct rec_head {
	uint64_t size;			/* bytes of the record, header included */
	uint64_t n, cnt;		/* n: entries, or a keyed stack's words */
	uint32_t pid, tid;
	int32_t evidx;			/* -1: a keyed stack */
	double period, period_plain;
	struct hbbp_bsum bs;
};

static size_t rec_size(uint64_t n)
{
	return sizeof(struct rec_head) + 2 * (size_t)n * sizeof(struct hbbp_end) +
	       (((size_t)n + 7) & ~(size_t)7);
}

static int sum_buf(struct hbbp_stack_worker *w, const struct hbbp_stack_buf *b)
{
	struct hbbp_accum *a = w->acc;
	size_t off = 0;
	int err = 0;

	while (off < b->len && !err) {
		const struct rec_head *h = (const void *)(b->p + off);
		const struct hbbp_end *locs = (const void *)(h + 1);
		const uint8_t *flags = (const void *)(locs + 2 * h->n);

		if (h->evidx < 0)
			err = w->key_fn(w->key_ctx, (const void *)(h + 1), h->n, h->period,
					h->period_plain, h->cnt, &h->bs);
		else
			err = hbbp_accum__lbr(a, h->pid, h->tid, h->evidx,
					      &(struct hbbp_stack){ h->n, flags, locs }, h->period,
					      h->period_plain, h->cnt, &h->bs);
		off += h->size;
	}
	return err;
}

static void *worker_main(void *arg)
{
	struct hbbp_stack_worker *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct hbbp_stack_buf *b;
		int err;

		while (!w->nr_full && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		if (!w->nr_full) {
			struct timespec ts;

			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
			w->cpu_s = (double)ts.tv_sec + ts.tv_nsec / 1e9;
			break;		/* stopped, and everything summed */
		}
		b = &w->bufs[w->work];
		pthread_mutex_unlock(&w->lock);
		err = w->err ? 0 : sum_buf(w, b);
		b->len = 0;
		pthread_mutex_lock(&w->lock);
		if (err && !w->err)
			w->err = err;
		w->work = (w->work + 1) % HBBP_STACK_BUFS;
		w->nr_full--;
		w->nr_bufs++;
		pthread_cond_signal(&w->room);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int hbbp_stack_worker__start(struct hbbp_stack_worker *w, struct hbbp_accum *acc,
			     hbbp_stack_key_fn *key_fn, void *key_ctx)
{
	memset(w, 0, sizeof(*w));
	w->acc = acc;
	w->key_fn = key_fn;
	w->key_ctx = key_ctx;
	if (pthread_mutex_init(&w->lock, NULL))
		return -ENOMEM;
	if (pthread_cond_init(&w->cond, NULL)) {
		pthread_mutex_destroy(&w->lock);
		return -ENOMEM;
	}
	if (pthread_cond_init(&w->room, NULL)) {
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
		return -ENOMEM;
	}
	if (pthread_create(&w->thread, NULL, worker_main, w)) {
		pthread_cond_destroy(&w->room);
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
		return -EAGAIN;
	}
	w->started = true;
	return 0;
}

/* Hands the fill buffer to the worker and moves to the next one, once it is free. */
static int hand_over(struct hbbp_stack_worker *w)
{
	int err;

	pthread_mutex_lock(&w->lock);
	w->nr_full++;
	pthread_cond_signal(&w->cond);
	while (w->nr_full == HBBP_STACK_BUFS)
		pthread_cond_wait(&w->room, &w->lock);
	err = w->err;
	pthread_mutex_unlock(&w->lock);
	w->fill = (w->fill + 1) % HBBP_STACK_BUFS;
	return err;
}

/* Room for a record of need bytes in the fill buffer (handed over first when full). */
static struct rec_head *reserve(struct hbbp_stack_worker *w, size_t need)
{
	struct hbbp_stack_buf *b = &w->bufs[w->fill];
	struct rec_head *h;

	if (b->len && b->len + need > BUF_BYTES) {
		if (hand_over(w))
			return NULL;
		b = &w->bufs[w->fill];
	}
	if (grow_array((void **)&b->p, &b->cap, 1,
		       b->len + need > BUF_FIRST ? b->len + need : BUF_FIRST, SIZE_MAX))
		return NULL;
	h = (struct rec_head *)(b->p + b->len);
	h->size = need;
	return h;
}

void *hbbp_stack_worker__reserve(struct hbbp_stack_worker *w, uint64_t n, uint8_t **flags,
				 struct hbbp_end **locs)
{
	struct rec_head *h = reserve(w, rec_size(n));

	if (!h)
		return NULL;
	*locs = (struct hbbp_end *)(h + 1);
	*flags = (uint8_t *)(*locs + 2 * n);
	return h;
}

void *hbbp_stack_worker__reserve_key(struct hbbp_stack_worker *w, size_t words,
				     uint64_t **key)
{
	struct rec_head *h = reserve(w, sizeof(*h) + words * sizeof(uint64_t));

	if (!h)
		return NULL;
	*key = (uint64_t *)(h + 1);
	return h;
}

int hbbp_stack_worker__commit(struct hbbp_stack_worker *w, void *slot, uint32_t pid,
			      uint32_t tid, int evidx, uint64_t n, double period,
			      double period_plain, uint64_t cnt, const struct hbbp_bsum *bs)
{
	struct rec_head *h = slot;

	h->n = n;
	h->cnt = cnt;
	h->pid = pid;
	h->tid = tid;
	h->evidx = evidx;
	h->period = period;
	h->period_plain = period_plain;
	h->bs = *bs;
	w->bufs[w->fill].len += h->size;
	return w->err;
}

int hbbp_stack_worker__wait(struct hbbp_stack_worker *w)
{
	int err = 0;

	if (!w->started)
		return 0;
	if (w->bufs[w->fill].len)
		err = hand_over(w);
	pthread_mutex_lock(&w->lock);
	while (w->nr_full)
		pthread_cond_wait(&w->room, &w->lock);
	if (!err)
		err = w->err;
	pthread_mutex_unlock(&w->lock);
	return err;
}

int hbbp_stack_worker__stop(struct hbbp_stack_worker *w)
{
	unsigned int i;
	int err;

	if (!w->started)
		return 0;
	err = hbbp_stack_worker__wait(w);
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->room);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	for (i = 0; i < HBBP_STACK_BUFS; i++) {
		free(w->bufs[i].p);
		w->bufs[i].p = NULL;
	}
	w->started = false;
	return err;
}
