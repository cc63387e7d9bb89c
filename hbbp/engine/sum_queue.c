/* The EBS sum queue (see hbbp/engine/sum_queue.h).
 * Depends on hbbp/engine/sum_queue.h only.
 */
#include <errno.h>
#include <string.h>

#include "hbbp/engine/sum_queue.h"

static int queue_pop(struct hbbp_sum_queue *q, struct hmap *h)
{
	unsigned int i = q->head;
	struct hbbp_ebs_val *v = hmap__get_hashed(h, q->key[i], q->hash[i], NULL);

	if (!v)
		return -ENOMEM;
	v->period += q->period[i];
	v->n++;
	v->bs.b[q->batch[i]] += q->period[i];
	q->head = (i + 1) % HBBP_SUM_QUEUE_DEPTH;
	q->nr--;
	return 0;
}

int hbbp_sum_queue__add(struct hbbp_sum_queue *q, struct hmap *h, const uint64_t *key,
			double period, unsigned int batch)
{
	unsigned int i = (q->head + q->nr) % HBBP_SUM_QUEUE_DEPTH;

	memcpy(q->key[i], key, sizeof(q->key[i]));
	q->hash[i] = hmap__hash(h, key);
	q->period[i] = period;
	q->batch[i] = batch < HBBP_BATCHES ? batch : 0;
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
