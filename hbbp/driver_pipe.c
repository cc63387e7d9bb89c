/* The two-thread pass (see hbbp/driver_pipe.h). Digested samples are packed into batches of
 * BATCH bytes (the item's fixed part, then a copy of its branch entries); full batches
 * go to the worker in a FIFO, processed ones come back to a free list. One mutex and one
 * condition variable per batch handoff; none per sample.
 * Depends on hbbp/method.h and pthreads.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/driver_pipe.h"

#define NR_BATCHES	4
#define BATCH		(256u << 10)
#define ITEM_FIXED	sizeof(struct hbbp_sample_item)
#define ENTRY		sizeof(struct perf_branch_entry)

struct hbbp_pipe {
	struct hbbp_driver *d;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned char *buf[NR_BATCHES];
	size_t len[NR_BATCHES];
	int full[NR_BATCHES];		/* FIFO of full batches */
	size_t full_head, nr_full;
	int free_list[NR_BATCHES];
	size_t nr_free;
	int cur;			/* batch being filled by the reading thread */
	bool busy;			/* the worker holds a batch */
	bool stop;
	int err;			/* first error of the worker */
};

static void pipe_free(struct hbbp_pipe *p)
{
	size_t i;

	for (i = 0; i < NR_BATCHES; i++)
		free(p->buf[i]);
	free(p);
}

static int pipe_process(struct hbbp_pipe *p, const unsigned char *b, size_t len)
{
	size_t off = 0;
	int err = 0;

	while (off < len && !err) {
		const struct hbbp_sample_item *it = (const void *)(b + off);

		err = hbbp_driver__apply(p->d, it, (const void *)(b + off + ITEM_FIXED));
		off += ITEM_FIXED + it->nr * ENTRY;
	}
	return err;
}

static void *pipe_worker(void *arg)
{
	struct hbbp_pipe *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		int b;
		int err = 0;

		while (!p->nr_full && !p->stop)
			pthread_cond_wait(&p->cond, &p->lock);
		if (!p->nr_full)
			break;
		b = p->full[p->full_head];
		p->full_head = (p->full_head + 1) % NR_BATCHES;
		p->nr_full--;
		p->busy = true;
		if (!p->err) {
			pthread_mutex_unlock(&p->lock);
			err = pipe_process(p, p->buf[b], p->len[b]);
			pthread_mutex_lock(&p->lock);
			if (err && !p->err)
				p->err = err;
		}
		p->len[b] = 0;
		p->free_list[p->nr_free++] = b;
		p->busy = false;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int hbbp_pipe__start(struct hbbp_pipe **out, struct hbbp_driver *d)
{
	struct hbbp_pipe *p = calloc(1, sizeof(*p));
	int i;

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->d = d;
	for (i = 0; i < NR_BATCHES; i++) {
		p->buf[i] = malloc(BATCH);
		if (!p->buf[i]) {
			pipe_free(p);
			return -ENOMEM;
		}
		if (i)
			p->free_list[p->nr_free++] = i;
	}
	p->cur = 0;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	if (pthread_create(&p->thread, NULL, pipe_worker, p)) {
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
		pipe_free(p);
		return -EAGAIN;
	}
	*out = p;
	return 0;
}

/* hands the current batch to the worker and takes a free one (waiting for it) */
static int pipe_submit(struct hbbp_pipe *p)
{
	int err;

	pthread_mutex_lock(&p->lock);
	if (p->len[p->cur]) {
		p->full[(p->full_head + p->nr_full) % NR_BATCHES] = p->cur;
		p->nr_full++;
		pthread_cond_broadcast(&p->cond);
		while (!p->nr_free)
			pthread_cond_wait(&p->cond, &p->lock);
		p->cur = p->free_list[--p->nr_free];
	}
	err = p->err;
	pthread_mutex_unlock(&p->lock);
	return err;
}

/* waits until the worker has processed everything submitted and is idle */
static int pipe_drain(struct hbbp_pipe *p)
{
	int err = pipe_submit(p);

	pthread_mutex_lock(&p->lock);
	while (p->nr_full || p->busy)
		pthread_cond_wait(&p->cond, &p->lock);
	err = err ? err : p->err;
	pthread_mutex_unlock(&p->lock);
	return err;
}

int hbbp_pipe__record(struct hbbp_pipe *p, const struct perf_record *rec)
{
	struct hbbp_sample_item it;
	unsigned char *dst;
	size_t n;
	int err;

	if (rec->type != PERF_RECORD_SAMPLE) {
		err = pipe_drain(p);
		return err ? err : hbbp_driver__record(p->d, rec);
	}
	hbbp_driver__digest(p->d, rec, &it);
	/* the entries travel with the item: at most 64 KiB (the record's size bounds them) */
	n = ITEM_FIXED + it.nr * ENTRY;
	if (n > BATCH) {
		err = pipe_drain(p);
		return err ? err : hbbp_driver__apply(p->d, &it, it.raw);
	}
	if (p->len[p->cur] + n > BATCH && (err = pipe_submit(p)))
		return err;
	dst = p->buf[p->cur] + p->len[p->cur];
	it.raw = NULL;	/* the worker gets the copy that follows */
	memcpy(dst, &it, ITEM_FIXED);
	if (it.nr)
		memcpy(dst + ITEM_FIXED, rec->sample.branches, it.nr * ENTRY);
	p->len[p->cur] += n;
	return 0;
}

int hbbp_pipe__stop(struct hbbp_pipe *p)
{
	int err;

	if (!p)
		return 0;
	err = pipe_drain(p);
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	pipe_free(p);
	return err;
}
