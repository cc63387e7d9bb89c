/* Sums of (key, period, count, batch) into a struct hmap whose values are { double period;
 * uint64_t n; struct hbbp_bsum bs; } (the EBS accumulators; the period also goes to its
 * batch's sum, hbbp/method/interval.h), taken a few adds after each add, in the order the
 * adds came: meanwhile the index cell and the entry of each key are loaded into the CPU
 * cache, which the records streaming through it leave cold. Sums and insertion order are
 * those of adding each at once; the map is complete after hbbp_sum_queue__drain.
 * Depends on util/hmap.h and hbbp/method/interval.h.
 */
#ifndef HBBP_SUM_QUEUE_H
#define HBBP_SUM_QUEUE_H

#include <stdint.h>

#include "hbbp/method/interval.h"
#include "util/hmap.h"

#define HBBP_SUM_QUEUE_DEPTH	4
#define HBBP_SUM_QUEUE_KEY_WORDS 4	/* keys of at most this many words */

struct hbbp_sum_queue {
	uint64_t key[HBBP_SUM_QUEUE_DEPTH][HBBP_SUM_QUEUE_KEY_WORDS];
	uint64_t hash[HBBP_SUM_QUEUE_DEPTH];
	double period[HBBP_SUM_QUEUE_DEPTH];
	uint64_t n[HBBP_SUM_QUEUE_DEPTH];
	unsigned int batch[HBBP_SUM_QUEUE_DEPTH];
	unsigned int head, nr;
};

/* An empty queue (all zero bytes is one too). */
void hbbp_sum_queue__init(struct hbbp_sum_queue *q);
/* Queues period and n for key (h->key_words words) of h, period into batch batch's sum.
 * 0 or -ENOMEM (of an earlier add). */
int hbbp_sum_queue__add(struct hbbp_sum_queue *q, struct hmap *h, const uint64_t *key,
			double period, uint64_t n, unsigned int batch);
/* Adds period, n and the batch sums bs for key at once, after the queued sums. */
int hbbp_sum_queue__add_sums(struct hbbp_sum_queue *q, struct hmap *h, const uint64_t *key,
			     double period, uint64_t n, const struct hbbp_bsum *bs);
/* Takes every queued sum into h. 0 or -ENOMEM. */
int hbbp_sum_queue__drain(struct hbbp_sum_queue *q, struct hmap *h);

#endif
