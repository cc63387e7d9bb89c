/* The engine's record loop: the fast path behind the method's accumulator (struct hbbp_accum,
 * hbbp/method/method.h). Every record in delivery order: those that may change an address
 * space go to the session (bbmap), samples to the accumulator through the three mechanisms
 * that pay on the realistic bench (bench/RESULTS.md):
 * - a cache of the address ranges that resolve alike, valid until the next record that may
 *   change an address space;
 * - the stack cache: identical LBR stacks summed by their raw addresses, resolved once
 *   before the next record that may change an address space (hbbp/engine/stack_cache.h);
 * - the accumulator's cells loaded ahead: each stack's stream and branch cells before the
 *   stack is summed, the EBS sums a few samples late (hbbp/engine/sum_queue.h); the records
 *   streaming through leave the accumulator's maps cold in the CPU caches.
 * Never prints; never opens files.
 * Depends on hbbp/method/method.h, bbmap/session.h, hbbp/engine/stack_cache.h,
 * hbbp/engine/sum_queue.h and the reader's record structs.
 */
#ifndef HBBP_DRIVER_H
#define HBBP_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "bbmap/session.h"
#include "hbbp/engine/stack_cache.h"
#include "hbbp/engine/sum_queue.h"
#include "hbbp/method/lbr_defer.h"
#include "hbbp/method/method.h"

/* The ranges of addresses that resolve alike (bbmap_session__lookup_range: a segment of a
 * map), direct-mapped by the 2 MiB of address space they hold an address of; valid while no
 * record that may change an address space arrived (gen counts them). */
#define HBBP_RANGE_CACHE 128
struct hbbp_range_slot {
	uint64_t lo, hi;		/* [lo, hi): addr resolves to dso at addr + delta */
	uint64_t delta;
	uint32_t gen, pid;
	int32_t cpumode;
	struct bbmap_loc loc;		/* dso and map bounds (vaddr unused) */
};

struct hbbp_driver {
	struct hbbp_accum acc;		/* the method's state: what the pass computes */
	struct bbmap_session *s;	/* the address spaces */
	/* Sums kept per thread (pid, tid): true unless the result needs no thread (no pid, tid
	 * or comm key, filter or table; the caller decides before the first record). When
	 * false every sum goes to task 0/0, so the sums are bounded by the code that ran, not
	 * by the number of threads; the totals are the same. */
	bool per_thread;
	struct hbbp_range_slot rcache[HBBP_RANGE_CACHE];
	uint32_t lgen;			/* current generation (0 never valid) */
	struct hbbp_sum_queue ebsq;	/* sums on their way into acc.ebs (complete after finish) */
	/* Identical LBR stacks summed before their entries are resolved: (pid<<32|tid (tid 0
	 * without per_thread), evidx | cpumode << 16 | n << 32, from/to of each of up to
	 * HBBP_STACK_CACHE_DEPTH entries) -> struct hbbp_stack_val. Flushed before any record
	 * that may change an address space, when full, and by hbbp_driver__finish. */
	struct hbbp_stack_cache stacks;
	struct hbbp_stack_stats sstats;	/* the stacks seen, distinct, cached or not */
	uint64_t nr_record_errors;	/* malformed address-space records, left out */
	int flush_err;			/* error of a flush inside hbbp_driver__finish */
	/* The time-weighted LBR estimate in one pass (hbbp/method/lbr_defer.h), or NULL: the
	 * stacks are summed with weight 0, their weights added by hbbp_driver__finish. */
	struct hbbp_lbr_defer *defer;
	struct hbbp_end *ends;		/* one stack's ends and flags (reused) */
	uint8_t *flags;
	double *cyc;			/* an uncached stack's cycle sums (reused) */
	/* per stream of one stack: its name in the durations (lbr_time.h), then its cell
	 * (struct hbbp_stack) */
	uint32_t *nums;
	size_t alloc_ends, alloc_flags, alloc_cyc, alloc_nums;
};

/* events[i] and roles[i] describe event i (see hbbp_accum__init); code: the method's code,
 * over session s. */
int hbbp_driver__init(struct hbbp_driver *d, const struct hbbp_code *code,
		      struct bbmap_session *s, const struct perf_event_info *const *events,
		      const struct hbbp_event_role *roles, size_t nr_events);
void hbbp_driver__exit(struct hbbp_driver *d);
/* Feeds one record (any type). Returns 0 or -ENOMEM; anomalies are counted, never fatal. */
int hbbp_driver__record(struct hbbp_driver *d, const struct perf_record *rec);
/* Ends the pass: sums what is cached or queued (an error is kept in flush_err), with defer
 * the stream durations finished and the LBR weights added, sums the multiplexing times per
 * event and sets the scales. */
void hbbp_driver__finish(struct hbbp_driver *d);

#endif
