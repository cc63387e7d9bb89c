/* The queue of sums into an accumulator map (see hbbp/engine/sum_queue.h). Depends on util/hmap.h
 * and hbbp/method/interval.h. */
#include <errno.h>
#include <string.h>

#include "hbbp/engine/sum_queue.h"

struct sum_val { double period; uint64_t n; struct hbbp_bsum bs; };

void hbbp_sum_queue__init(struct hbbp_sum_queue *q)
{
	memset(q, 0, sizeof(*q));
}

/* Takes the oldest queued sum into h. */
static int queue_pop(struct hbbp_sum_queue *q, struct hmap *h)
{
	unsigned int i = q->head;
	struct sum_val *v = hmap__get_hashed(h, q->key[i], q->hash[i], NULL);

	if (!v)
		return -ENOMEM;
	v->period += q->period[i];
	v->n += q->n[i];
	v->bs.b[q->batch[i]] += q->period[i];
	q->head = (i + 1) % HBBP_SUM_QUEUE_DEPTH;
	q->nr--;
	return 0;
}

int hbbp_sum_queue__add(struct hbbp_sum_queue *q, struct hmap *h, const uint64_t *key,
			double period, uint64_t n, unsigned int batch)
{
	unsigned int i = (q->head + q->nr) % HBBP_SUM_QUEUE_DEPTH;

	if (batch >= HBBP_BATCHES)
		batch = 0;
	if (h->key_words > HBBP_SUM_QUEUE_KEY_WORDS) {	/* too long to queue: at once */
		struct sum_val *v;
		int err = hbbp_sum_queue__drain(q, h);

		if (err)
			return err;
		v = hmap__get(h, key, NULL);
		if (!v)
			return -ENOMEM;
		v->period += period;
		v->n += n;
		v->bs.b[batch] += period;
		return 0;
	}
	memcpy(q->key[i], key, h->key_words * sizeof(*key));
	q->hash[i] = hmap__hash(h, key);
	q->period[i] = period;
	q->n[i] = n;
	q->batch[i] = batch;
	hmap__prefetch(h, q->hash[i], 0);
	q->nr++;
	/* the previous add's cell was loaded one add ago: now its entry */
	if (q->nr >= 2)
		hmap__prefetch(h, q->hash[(i + HBBP_SUM_QUEUE_DEPTH - 1) % HBBP_SUM_QUEUE_DEPTH], 1);
	return q->nr == HBBP_SUM_QUEUE_DEPTH ? queue_pop(q, h) : 0;
}

int hbbp_sum_queue__drain(struct hbbp_sum_queue *q, struct hmap *h)
{
	while (q->nr) {
		int err = queue_pop(q, h);

		if (err)
			return err;
	}
	return 0;
}

int hbbp_sum_queue__add_sums(struct hbbp_sum_queue *q, struct hmap *h, const uint64_t *key,
			     double period, uint64_t n, const struct hbbp_bsum *bs)
{
	struct sum_val *v;
	int err = hbbp_sum_queue__drain(q, h);

	if (err)
		return err;
	v = hmap__get(h, key, NULL);
	if (!v)
		return -ENOMEM;
	v->period += period;
	v->n += n;
	hbbp_bsum__axpy(&v->bs, 1.0, bs);
	return 0;
}
