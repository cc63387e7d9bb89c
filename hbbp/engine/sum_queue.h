/* The EBS sums of the accumulator (struct hbbp_accum.ebs: key -> struct hbbp_ebs_val), each
 * taken a few samples after it came, in the order they came: meanwhile the index cell and
 * the entry of each key are loaded into the CPU cache, which the records streaming through
 * it leave cold. Sums and insertion order are those of adding each at once; the map is
 * complete after hbbp_sum_queue__drain.
 * Depends on util/hmap.h and hbbp/method/method.h.
 */
#ifndef HBBP_SUM_QUEUE_H
#define HBBP_SUM_QUEUE_H

#include <stdint.h>

#include "hbbp/method/method.h"

#define HBBP_SUM_QUEUE_DEPTH	4

struct hbbp_sum_queue {
	uint64_t key[HBBP_SUM_QUEUE_DEPTH][4];
	uint64_t hash[HBBP_SUM_QUEUE_DEPTH];
	double period[HBBP_SUM_QUEUE_DEPTH];
	unsigned int batch[HBBP_SUM_QUEUE_DEPTH];
	unsigned int head, nr;
};

/* Queues one sample's period for key (hbbp_accum__ebs_key) of h, also into batch batch's
 * sum. 0 or -ENOMEM (of an earlier add). An all-zero queue is empty. */
int hbbp_sum_queue__add(struct hbbp_sum_queue *q, struct hmap *h, const uint64_t *key,
			double period, unsigned int batch);
/* Takes every queued sum into h. 0 or -ENOMEM. */
int hbbp_sum_queue__drain(struct hbbp_sum_queue *q, struct hmap *h);

#endif
