/* Throttling as scaling (method.md §7; hbbp/method/throttle.h): the spans and throttled times
 * of each counter, and an event's factor from them.
 * Depends on hbbp/method/throttle.h and util/hmap.h only.
 */
#include <errno.h>
#include <string.h>

#include "hbbp/method/throttle.h"

/* per counter: first time seen, throttled since (0: sampling), throttled time so far */
struct ctr { uint64_t first, since, gap; };

void hbbp_throttle__init(struct hbbp_throttle *t)
{
	memset(t, 0, sizeof(*t));
	hmap__init(&t->ctr, 2, sizeof(struct ctr));
}

void hbbp_throttle__exit(struct hbbp_throttle *t)
{
	if (t)
		hmap__exit(&t->ctr);
}

static struct ctr *ctr_get(struct hbbp_throttle *t, int evidx, uint32_t cpu, uint64_t time)
{
	uint64_t key[2] = { (uint64_t)evidx, cpu };
	int inserted = 0;
	struct ctr *c = hmap__get(&t->ctr, key, &inserted);

	if (c && (inserted || time < c->first))
		c->first = time;
	return c;
}

int hbbp_throttle__sample(struct hbbp_throttle *t, int evidx, uint32_t cpu, uint64_t time)
{
	if (time > t->last)
		t->last = time;
	return ctr_get(t, evidx, cpu, time) ? 0 : -ENOMEM;
}

int hbbp_throttle__record(struct hbbp_throttle *t, int evidx, uint32_t cpu, uint64_t time,
			  bool on)
{
	struct ctr *c = ctr_get(t, evidx, cpu, time);

	if (!c)
		return -ENOMEM;
	hbbp_throttle__seen(t, time);
	if (on && !c->since)
		c->since = time ? time : 1;
	else if (!on && c->since) {
		if (time > c->since)
			c->gap += time - c->since;
		c->since = 0;
	}
	return 0;
}

double hbbp_throttle__factor(const struct hbbp_throttle *t, int evidx, double *frac)
{
	double span = 0, gap = 0;
	const uint64_t *key;
	struct ctr *c;
	size_t i;

	*frac = 0;
	hmap__for_each(&t->ctr, i, key, c) {
		uint64_t g = c->gap;

		if ((int)key[0] != evidx || t->last <= c->first)
			continue;
		if (c->since && t->last > c->since)	/* a trailing THROTTLE: to the end */
			g += t->last - c->since;
		span += (double)(t->last - c->first);
		gap += (double)g;
	}
	if (gap <= 0 || gap >= span)
		return 1.0;
	*frac = gap / span;
	return span / (span - gap);
}
