/* Throttling as scaling (method.md §7): between a THROTTLE and the next UNTHROTTLE record of a
 * counter nothing is sampled. Per counter (event, CPU) the span it sampled (its first sample
 * or record to the last time of the recording, an EXIT's too) and the time it was throttled (a
 * trailing THROTTLE runs to the end of the span); an event's factor is the summed spans over
 * the summed spans less the throttled time, as enabled over running for multiplexing.
 * Depends on util/hmap.h only.
 */
#ifndef HBBP_THROTTLE_H
#define HBBP_THROTTLE_H

#include <stdbool.h>
#include <stdint.h>

#include "util/hmap.h"

struct hbbp_throttle {
	struct hmap ctr;	/* (event, cpu) -> first time, throttled since (0: not), gap */
	uint64_t last;		/* the last time of the recording (any record) */
};

void hbbp_throttle__init(struct hbbp_throttle *t);
void hbbp_throttle__exit(struct hbbp_throttle *t);
/* A sample of event evidx on cpu at time, of period. 0 or -ENOMEM. */
int hbbp_throttle__sample(struct hbbp_throttle *t, int evidx, uint32_t cpu, uint64_t time,
			  uint64_t period);
/* Any other record at time: the spans run to the last time seen. */
static inline void hbbp_throttle__seen(struct hbbp_throttle *t, uint64_t time)
{
	if (time > t->last)
		t->last = time;
}
/* A THROTTLE (on) or UNTHROTTLE record of event evidx on cpu at time. 0 or -ENOMEM. */
int hbbp_throttle__record(struct hbbp_throttle *t, int evidx, uint32_t cpu, uint64_t time,
			  bool on);
/* Event evidx's factor span / (span - throttled) (1: never throttled), *frac the throttled
 * share of its span; *spread (when not NULL) how far, relative to it, the factor is from the
 * one that fills each gap at its counter's rate since its last UNTHROTTLE (the uncertainty
 * of assuming the program alike in and out of the gaps; 0 when never throttled). */
double hbbp_throttle__factor(const struct hbbp_throttle *t, int evidx, double *frac,
			     double *spread);

#endif
