/* Throttling as scaling (method.md §7; hbbp/method/throttle.h): the spans and throttled times
 * of each counter, and an event's factor from them.
 * Depends on hbbp/method/throttle.h and util/hmap.h only.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "hbbp/method/throttle.h"

/* per counter: first time seen, throttled since (0: sampling), throttled time so far; the
 * stretch sampled since the last UNTHROTTLE (its start and periods), its rate when the counter
 * was throttled, and the periods that rate puts into the gaps */
struct ctr {
	uint64_t first, since, gap, run_start;
	double run_period, rate, periods, missing;
};

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

int hbbp_throttle__sample(struct hbbp_throttle *t, int evidx, uint32_t cpu, uint64_t time,
			  uint64_t period)
{
	struct ctr *c = ctr_get(t, evidx, cpu, time);

	if (!c)
		return -ENOMEM;
	if (time > t->last)
		t->last = time;
	if (!c->run_start)
		c->run_start = c->first ? c->first : 1;
	c->run_period += (double)period;
	c->periods += (double)period;
	return 0;
}

int hbbp_throttle__record(struct hbbp_throttle *t, int evidx, uint32_t cpu, uint64_t time,
			  bool on)
{
	struct ctr *c = ctr_get(t, evidx, cpu, time);

	if (!c)
		return -ENOMEM;
	hbbp_throttle__seen(t, time);
	if (on && !c->since) {
		c->since = time ? time : 1;
		c->rate = c->run_start && c->since > c->run_start ?
			  c->run_period / (double)(c->since - c->run_start) : 0;
	} else if (!on && c->since) {
		if (time > c->since) {
			c->gap += time - c->since;
			c->missing += c->rate * (double)(time - c->since);
		}
		c->since = 0;
		c->run_start = time;
		c->run_period = 0;
	}
	return 0;
}

double hbbp_throttle__factor(const struct hbbp_throttle *t, int evidx, double *frac,
			     double *spread)
{
	double span = 0, gap = 0, periods = 0, missing = 0;
	const uint64_t *key;
	struct ctr *c;
	size_t i;

	*frac = 0;
	if (spread)
		*spread = 0;
	hmap__for_each(&t->ctr, i, key, c) {
		uint64_t g = c->gap;

		if ((int)key[0] != evidx || t->last <= c->first)
			continue;
		missing += c->missing;
		if (c->since && t->last > c->since) {	/* a trailing THROTTLE: to the end */
			g += t->last - c->since;
			missing += c->rate * (double)(t->last - c->since);
		}
		periods += c->periods;
		span += (double)(t->last - c->first);
		gap += (double)g;
	}
	if (gap <= 0 || gap >= span)
		return 1.0;
	*frac = gap / span;
	/* the gaps filled at each counter's rate just before it was throttled, against the
	 * span's average rate: how far the two readings of the gaps' content part */
	if (spread && periods > 0)
		*spread = fabs((periods + missing) / periods * (span - gap) / span - 1.0);
	return span / (span - gap);
}
