/* The mix's instructions read ahead on a thread (see hbbp/pivot/mix_reader.h): two batches,
 * the thread filling one while the table reads the other, handed over under a lock.
 * Depends on hbbp/method/method.h, util/grow.h, util/radix.h and pthreads.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/pivot/mix_reader.h"
#include "util/grow.h"
#include "util/hbbp_err.h"
#include "util/radix.h"

struct read_batch {
	struct bbmap_insn *insns;	/* the blocks' instructions, in thread block order */
	size_t nr, alloc;
	size_t from, until;		/* its thread blocks: [from, until) */
	int err;			/* met reading it (then the last batch read) */
	bool ready;			/* read, not yet handed back by the table */
};

/* A block to decode: its module's address first, the sort key that groups them */
struct read_fill {
	uint64_t mod_key;
	struct bbmap_module *mod;
	uint64_t start;
};

struct hbbp_mix_reader {
	const struct hbbp_counts *c;
	const struct hbbp_code_ops *ops;
	const bool *pass;
	size_t batch;			/* blocks a batch */
	struct read_batch b[2];
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t tid;
	bool stop;			/* the table asks the thread to end */
	bool done;			/* the thread has ended */
	/* the table's side */
	unsigned int cur;		/* the batch it reads */
	bool holding;			/* b[cur] is ready and being read */
	size_t pos;			/* b[cur]'s next instruction */
	/* the thread's scratch */
	struct read_fill *fill;
	uint64_t *starts;
};

/* Whether thread block i is read; *bl its block. */
static bool tblock_read(const struct hbbp_mix_reader *r, size_t i, const struct hbbp_block **bl)
{
	struct hbbp_tblock tmp;
	const struct hbbp_tblock *tb = hbbp_counts__tblock_sums(r->c, i, &tmp);

	*bl = &r->c->blocks[tb->block];
	return tb->count > 0 && (*bl)->kind == HBBP_BLK_CODE && (!r->pass || r->pass[i]);
}

/* The next batch from thread block `from` on into s: decoded on the ops' threads, copied,
 * dropped from the block map. 0 or an error. */
static int batch_read(struct hbbp_mix_reader *r, struct read_batch *s, size_t from)
{
	const struct hbbp_code_ops *ops = r->ops;
	size_t i, j, k = 0, a, b;
	int err = 0;

	s->nr = 0;
	s->from = from;
	for (i = from; i < r->c->nr_tblocks && k < r->batch; i++) {
		const struct hbbp_block *bl;

		if (tblock_read(r, i, &bl))
			r->fill[k++] = (struct read_fill){ (uintptr_t)bl->mod, bl->mod, bl->start };
	}
	s->until = i;
	/* grouped by module, in their order (stable) */
	if (radix_sort_records(r->fill, k, sizeof(*r->fill), offsetof(struct read_fill, mod_key)))
		return -ENOMEM;
	for (a = 0; a < k && !err; a = b) {
		for (b = a; b < k && r->fill[b].mod == r->fill[a].mod; b++)
			r->starts[b - a] = r->fill[b].start;
		err = ops->fill_blocks(ops->ctx, r->fill[a].mod, r->starts, b - a, ops->threads);
	}
	for (i = from; i < s->until && !err; i++) {
		const struct hbbp_block *bl;
		const struct bbmap_block *blk;

		if (!tblock_read(r, i, &bl))
			continue;
		err = ops->block_at(ops->ctx, bl->mod, bl->start, &blk);
		if (!err && (blk->start != bl->start || blk->nr_insns != bl->nr_insns || !blk->insns))
			err = -HBBP_EFORMAT;	/* the block map changed under us: a bug */
		if (!err && grow_array((void **)&s->insns, &s->alloc, sizeof(*s->insns),
				       s->nr + blk->nr_insns, (size_t)-1))
			err = -ENOMEM;
		if (err)
			break;
		memcpy(s->insns + s->nr, blk->insns, blk->nr_insns * sizeof(*s->insns));
		for (j = 0; j < blk->nr_insns; j++)	/* in the block map's memory: dropped */
			s->insns[s->nr + j].operands = NULL;
		s->nr += blk->nr_insns;
	}
	ops->drop_insns(ops->ctx);
	return err;
}

static void *reader_main(void *arg)
{
	struct hbbp_mix_reader *r = arg;
	size_t from = 0;
	unsigned int k = 0;
	bool stop;

	for (;;) {
		struct read_batch *s = &r->b[k];
		int err;

		pthread_mutex_lock(&r->lock);
		while (s->ready && !r->stop)
			pthread_cond_wait(&r->cond, &r->lock);
		stop = r->stop;
		pthread_mutex_unlock(&r->lock);
		if (stop || from >= r->c->nr_tblocks)
			break;
		err = batch_read(r, s, from);
		pthread_mutex_lock(&r->lock);
		s->err = err;
		s->ready = true;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
		if (err)
			break;
		from = s->until;
		k ^= 1;
	}
	pthread_mutex_lock(&r->lock);
	r->done = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static void reader_free(struct hbbp_mix_reader *r)
{
	free(r->b[0].insns);
	free(r->b[1].insns);
	free(r->fill);
	free(r->starts);
	free(r);
}

int hbbp_mix_reader__start(struct hbbp_mix_reader **out, const struct hbbp_counts *c,
			   const struct hbbp_code_ops *ops, const bool *pass, size_t batch)
{
	struct hbbp_mix_reader *r = calloc(1, sizeof(*r));
	int err;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->c = c;
	r->ops = ops;
	r->pass = pass;
	r->batch = batch && batch < HBBP_MIX_READ_BLOCKS ? batch : HBBP_MIX_READ_BLOCKS;
	r->fill = malloc(r->batch * sizeof(*r->fill));
	r->starts = malloc(r->batch * sizeof(*r->starts));
	if (!r->fill || !r->starts) {
		reader_free(r);
		return -ENOMEM;
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	err = pthread_create(&r->tid, NULL, reader_main, r);
	if (err) {
		pthread_mutex_destroy(&r->lock);
		pthread_cond_destroy(&r->cond);
		reader_free(r);
		return -err;
	}
	*out = r;
	return 0;
}

int hbbp_mix_reader__insns(struct hbbp_mix_reader *r, size_t i, const struct bbmap_insn **insns)
{
	struct read_batch *s = &r->b[r->cur];
	struct hbbp_tblock tmp;
	size_t n = r->c->blocks[hbbp_counts__tblock_sums(r->c, i, &tmp)->block].nr_insns;

	if (r->holding && i >= s->until) {	/* read through: handed back to the thread */
		pthread_mutex_lock(&r->lock);
		s->ready = false;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
		r->holding = false;
		r->cur ^= 1;
		s = &r->b[r->cur];
	}
	if (!r->holding) {
		pthread_mutex_lock(&r->lock);
		while (!s->ready && !r->done)
			pthread_cond_wait(&r->cond, &r->lock);
		pthread_mutex_unlock(&r->lock);
		if (!s->ready)
			return -HBBP_EFORMAT;	/* asked past what the thread reads: a bug */
		if (s->err)
			return s->err;
		r->holding = true;
		r->pos = 0;
	}
	if (i < s->from || i >= s->until || n > s->nr - r->pos)
		return -HBBP_EFORMAT;		/* not the next block read: a bug */
	*insns = s->insns + r->pos;
	r->pos += n;
	return 0;
}

void hbbp_mix_reader__exit(struct hbbp_mix_reader *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->tid, NULL);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
	reader_free(r);
}
