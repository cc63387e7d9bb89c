/* The time-weighted LBR estimate (method.md §5b): when the stacks were sampled on a time event
 * (cycles, ref-cycles, cpu-clock, task-clock, ...) a stack is caught in proportion to how
 * long the stream it interrupted (Y, starting at e[0].to) lasted, so each of its streams
 * weighs period / ((n-1) * D(Y)) executions, D(Y) the mean recorded duration (the branch
 * entries' cycle counts) of the complete streams of the recording that start where Y started
 * and, where some of them contain the sample's IP, of those. Where no complete stream starts
 * there: the recording's mean stream duration (the fallback, counted by the caller).
 * Decision (which mean): over the streams from Y's start, the arithmetic mean: a sample falls
 * in each instance X in proportion to dur(X), so the expected weight of the class is
 * sum dur(X) / D = the number of instances when D is their mean duration. Over the streams
 * that contain the IP, the harmonic mean (1/D the mean of 1/dur): given that the sample fell
 * at the IP, each stream holding the IP is equally likely per instance (the time spent at
 * the IP is the same in each), so the weight must be E[1/dur]; the arithmetic mean there
 * under-counts the streams that end soon after the IP when longer ones share the start
 * (measured with pmusim's exact truth: absolute counts 2.2% off with it, 0.5% with the
 * harmonic mean, shares the same or better).
 * Usage: every LBR stack of the recording is added once (hbbp_lbr_time__add, its streams
 * named by hbbp_lbr_time__ends: the names hold for every stack of the process with the same
 * addresses and wrong-path flags), then
 * hbbp_lbr_time__finish, then any number of hbbp_lbr_time__duration calls (read-only).
 * Depends on reader/perf_reader.h (branch entries, event attrs) and util/hmap.h only (the .c
 * file also on hbbp/method/method.h for the sample item).
 */
#ifndef HBBP_LBR_TIME_H
#define HBBP_LBR_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reader/perf_reader.h"
#include "util/hmap.h"

enum hbbp_lbr_weighting {
	HBBP_LBR_WEIGHT_AUTO = 0,	/* time when the event counts time and entries have cycles */
	HBBP_LBR_WEIGHT_PLAIN,		/* period / (n-1) (method.md §5) */
	HBBP_LBR_WEIGHT_TIME,		/* period / ((n-1) * D(Y)) (method.md §5b) */
};

/* Why the time weight is not used although the event counts time (HBBP_LBR_TIME_OK: it is). */
enum hbbp_lbr_time_status {
	HBBP_LBR_TIME_OK = 0,
	HBBP_LBR_TIME_NO_CYCLES,	/* no branch entry carries a cycle count */
	HBBP_LBR_TIME_SATURATED,	/* most cycle counts are saturated (0xffff): absurd */
};

/* A share of saturated cycle counts above this makes the counts unusable. */
#define HBBP_LBR_TIME_MAX_SATURATED	0.5
#define HBBP_LBR_CYCLES_MAX		0xffffu	/* the 16-bit field's saturated value */

struct hbbp_lbr_time_stats {
	uint64_t streams;		/* complete streams seen (n-1 per stack) */
	uint64_t timed;			/* of which with a cycle count (used for the means) */
	uint64_t saturated;		/* with cycles 0xffff */
	double mean;			/* the recording's mean stream duration, cycles */
};

struct hbbp_lbr_time {
	struct hmap ends;		/* (pid, start, end) -> struct hbbp_lbr_time_sum */
	struct hmap starts;		/* (pid, start) -> struct hbbp_lbr_time_group (after finish) */
	struct hbbp_lbr_time_end *sorted;	/* ends sorted by (pid, start, end), with suffix sums */
	double sum;			/* all timed streams */
	enum hbbp_lbr_time_status status;
	struct hbbp_lbr_time_stats st;
};

void hbbp_lbr_time__init(struct hbbp_lbr_time *t);
void hbbp_lbr_time__exit(struct hbbp_lbr_time *t);
/* The names of the n-1 streams of stack e[0..n) (newest first, 0/0 padding removed) of
 * process pid in ids[0..n-1): the stream e[k].to .. e[k-1].from is ids[k-1], NO_END for one
 * whose duration is not used (backward, on the wrong path). 0 or -ENOMEM. */
#define HBBP_LBR_TIME_NO_END	0xffffffffu
int hbbp_lbr_time__ends(struct hbbp_lbr_time *t, uint32_t pid, const struct perf_branch_entry *e,
			uint64_t n, uint32_t *ids);
/* One stack e[0..n), its streams named ids (hbbp_lbr_time__ends of the same entries). */
void hbbp_lbr_time__add(struct hbbp_lbr_time *t, const struct perf_branch_entry *e, uint64_t n,
			const uint32_t *ids);
/* Ends the statistics; sets t->status. 0 or -ENOMEM. */
int hbbp_lbr_time__finish(struct hbbp_lbr_time *t);
/* The complete streams of process pid from `start` (NULL: none), after a finish. */
struct hbbp_lbr_time_group;
const struct hbbp_lbr_time_group *hbbp_lbr_time__starts(const struct hbbp_lbr_time *t,
							 uint32_t pid, uint64_t start);
/* D(Y) in cycles (>= 1) for a stack whose newest entry's target is `start` (g: the streams
 * from there, hbbp_lbr_time__starts), sampled at ip (see the decision above); *fallback: the
 * recording's mean was used (no complete stream starts there); *by_ip: the IP refinement was
 * used. Only after a finish with status OK. */
double hbbp_lbr_time__duration(const struct hbbp_lbr_time *t, const struct hbbp_lbr_time_group *g,
			       uint64_t start, uint64_t ip, bool *fallback, bool *by_ip);
/* Whether event e counts time (cycles, ref-cycles, bus-cycles, cpu-clock, task-clock, the
 * raw unhalted-cycles events), so that §5b applies to its stacks. */
bool hbbp_lbr_time__event_is_time(const struct perf_event_info *e);
/* "no cycle counts in the branch entries", ... */
const char *hbbp_lbr_time__status_name(enum hbbp_lbr_time_status s);

#endif
