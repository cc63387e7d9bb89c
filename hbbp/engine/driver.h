/* The engine's record loop: the fast path behind the method's accumulators (struct
 * hbbp_accum, hbbp/method/method.h). It sums what the method defines, faster: a
 * direct-mapped cache of address lookups, identical LBR stacks summed by their raw addresses
 * in a stack cache (with a queue hiding its memory latency) and resolved once before the next
 * record that may change an address space, EBS sums through a sum queue, and the raw sums of
 * a segment read apart (a bundle, on another thread) merged where its samples belong.
 * Never prints; never opens files.
 * Depends on hbbp/method/method.h, hbbp/engine/stack_cache.h, hbbp/engine/sum_queue.h and the
 * reader's record structs.
 */
#ifndef HBBP_DRIVER_H
#define HBBP_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "hbbp/engine/stack_cache.h"
#include "hbbp/engine/stack_stats.h"
#include "hbbp/engine/stack_worker.h"
#include "hbbp/engine/sum_queue.h"
#include "hbbp/method/method.h"

/* Caches of address lookups, valid while no record that may change an address space
 * arrived (maps change only through records; gen counts them): the ranges of addresses
 * that resolve alike (ops->lookup_range: a segment of a map), direct-mapped by the 2 MiB
 * of address space they hold an address of, and behind them a direct-mapped cache of
 * single addresses (unmapped ones, and where ops has no lookup_range). */
#define HBBP_LOOKUP_CACHE 256
struct hbbp_lookup_slot {
	uint64_t addr;
	uint32_t gen, pid;
	int32_t cpumode;
	int rc;
	struct bbmap_loc loc;
};
#define HBBP_RANGE_CACHE 128
struct hbbp_range_slot {
	uint64_t lo, hi;		/* [lo, hi): addr resolves to dso at addr + delta */
	uint64_t delta;
	uint32_t gen, pid;
	int32_t cpumode;
	uint32_t dso_id;		/* loc.dso's in the resolved stack keys */
	struct bbmap_loc loc;		/* dso and map bounds (vaddr unused) */
};

struct hbbp_bundle;

struct hbbp_driver {
	struct hbbp_accum acc;		/* the method's state: what the pass computes */
	struct bbmap_session *s;	/* the address spaces */
	/* Sums kept per thread (pid, tid): true unless the result needs no thread (no pid, tid
	 * or comm key, filter or table; the caller decides before the first record). When
	 * false every sum goes to task 0/0, so the sums are bounded by the code that ran, not
	 * by the number of threads; the totals are the same. */
	bool per_thread;
	struct hbbp_range_slot rcache[HBBP_RANGE_CACHE];
	struct hbbp_lookup_slot lcache[HBBP_LOOKUP_CACHE];
	uint32_t lgen;			/* current generation (0 never valid) */
	uint64_t nr_lookups, nr_lookup_hits;	/* of driver_lookup (the ends of a stack found
						 * in the range of the end before: not counted) */
	struct hbbp_sum_queue ebsq;	/* sums on their way into acc.ebs (complete after finish) */
	/* Identical LBR stacks are summed before their entries are resolved: (pid<<32|tid,
	 * evidx | cpumode << 16 | n << 32, from/to of each of up to HBBP_STACK_CACHE_DEPTH
	 * entries) -> struct hbbp_stack_val. Flushed before any record that may change an
	 * address space, when full, and by hbbp_driver__flush / __finish. */
	struct hbbp_stack_cache stacks;
	/* the stacks seen, distinct, cached or not; and whether caching pays (the policy is
	 * AUTO unless the caller sets sstats.policy before the first record) */
	struct hbbp_stack_stats sstats;
	/* Identical resolved stacks summed before the accumulators sum them: stacks of one
	 * thread (of any thread without per_thread) with the same ends (dso, vaddr), entry
	 * flags and event: the stacks of several processes of one program, whatever their
	 * addresses, and the same stacks flushed apart from the cache above. Key:
	 * (pid<<32|tid or 0, evidx | n << 32, then each end packed in a word: its flags (the
	 * from end's), dso id, vaddr). Flushed when full and at the end (its keys do not
	 * depend on the address spaces); while the worker runs, it owns rstacks and rsstats,
	 * its statistics and policy. */
	struct hbbp_stack_cache rstacks;
	struct hbbp_stack_stats rsstats;
	struct hmap dso_ids;		/* dso -> its id (1 ..) in the keys of rstacks */
	struct bbmap_dso **id_dso;	/* id - 1 -> dso (RKEY_IDS, allocated once) */
	size_t nr_ids;
	uint64_t rs_unkeyed;		/* stacks whose ends did not fit a key */
	uint64_t merge_inserts;		/* cache entries made merging the bundle (not counted) */
	/* LBR stacks summed on a second thread (hbbp_driver__start_worker), or not started */
	struct hbbp_stack_worker worker;
	int flush_err;			/* error of a flush inside hbbp_driver__finish */
	uint64_t nr_record_errors;	/* address-space errors on non-sample records */
	struct hbbp_end *deep_ends;	/* the ends of a stack deeper than the caches */
	uint8_t *deep_flags;
	size_t alloc_deep_ends, alloc_deep_flags;
	/* the raw sums of a segment read apart (hbbp_driver__set_bundle), merged once */
	const struct hbbp_bundle *bundle;
	bool bundle_merged;
};

/* events[i] and roles[i] describe event i (see hbbp_accum__init). */
int hbbp_driver__init(struct hbbp_driver *d, const struct hbbp_code *code,
		      struct bbmap_session *s,
		      const struct perf_event_info *const *events,
		      const struct hbbp_event_role *roles, size_t nr_events);
void hbbp_driver__exit(struct hbbp_driver *d);
/* Sums the LBR stacks on a second thread from here on (their ends still resolved here).
 * 0, or an error: the stacks are then summed here. */
int hbbp_driver__start_worker(struct hbbp_driver *d);
/* Feeds one record (any type). Returns 0 or -ENOMEM; anomalies are counted, never fatal. */
int hbbp_driver__record(struct hbbp_driver *d, const struct perf_record *rec);
/* Processes the LBR stacks summed so far (see stacks). Returns 0 or -ENOMEM. */
int hbbp_driver__flush(struct hbbp_driver *d);
/* A sample item (hbbp_sample__digest) accumulated in record order; e: the item's nr branch
 * entries (it->raw, or a copy of them). record() on a sample is digest + apply. 0 or -ENOMEM. */
int hbbp_driver__apply(struct hbbp_driver *d, const struct hbbp_sample_item *it,
		       const struct perf_branch_entry *e);
/* The LBR stack cache key of an LBR item (see struct hbbp_driver.stacks); false when the
 * stack is not cached (deeper than the cache, an entry with flags, an event index > 0xffff).
 * Without per_thread the key holds the pid only: the stacks of a
 * process's threads are summed together. */
bool hbbp_driver__stack_key(const struct hbbp_sample_item *it, const struct perf_branch_entry *e,
			    bool per_thread, uint64_t *key);

/* The raw sums of the samples of a segment of the recording, read apart from the driver's
 * pass (by another thread, hbbp/engine/segment.c): LBR stacks in a stack cache and EBS IPs by
 * (thread, cpumode, ip, event), unresolved (hbbp/engine/bundle.c). The driver resolves them where
 * the segment's samples would have been delivered: before the first record from the
 * segment's end on that may change an address space (or at finish). That stands for the
 * samples themselves only when every such record read before the segment has a time <= the
 * segment's first sample time, and every one read after it a time >= its last: otherwise
 * the driver fails with -HBBP_EREDO and the pass must be run again in one part. */
struct hbbp_bundle_event {
	uint64_t samples, lbr_used, stacks_short, zero_entries;
	uint64_t lbr_time, lbr_fallback, lbr_by_ip;	/* method.md §5b counters */
	struct hbbp_bsum bs;		/* see hbbp_event_state.bs */
};
struct hbbp_bundle {
	struct hbbp_event_state *roles;	/* a copy of the events' roles (for hbbp_sample__digest):
					 * the driver's own share cache lines with counters its
					 * thread writes */
	size_t nr_events;
	const struct hbbp_lbr_time *lbr_time;	/* the accumulators' (read-only) */
	unsigned int batch_slot;	/* the driver's (hbbp_sample__batch) */
	struct hbbp_bundle_event *ev;	/* nr_events */
	struct hmap ebs;		/* (pid<<32|tid, cpumode, ip, evidx) -> hbbp_ebs_val */
	struct hbbp_sum_queue ebsq;	/* sums on their way into ebs (complete after finish) */
	struct hbbp_stack_cache stacks;
	struct hbbp_stack_stats sstats;	/* its stacks (always cached; the segment ends early
					 * where the cache does not pay) */
	uint64_t nr_samples, nr_unused_samples;
	bool per_thread;		/* the driver's */
	uint64_t tmin, tmax;		/* sample times (tmin > tmax: no sample) */
	uint64_t start, end;		/* file offsets: the segment's records are [start, end) */
};
int hbbp_bundle__init(struct hbbp_bundle *b, const struct hbbp_driver *d);
void hbbp_bundle__exit(struct hbbp_bundle *b);
/* Adds the sample rec (its time: rec->sample.time). Returns 1, 0 when the bundle cannot
 * stand for it (read values, a stack that is not cached, the cache full, or its hit rate so
 * low that the part read apart would not save the pass any work; the segment then ends
 * before it) or -ENOMEM. */
int hbbp_bundle__add(struct hbbp_bundle *b, const struct perf_record *rec);
/* Sums what hbbp_bundle__add has queued (0 or -ENOMEM): before the bundle is read or set. */
int hbbp_bundle__finish(struct hbbp_bundle *b);
/* From here on the driver stands for b's samples (kept by the caller until finish; NULL:
 * no bundle). */
void hbbp_driver__set_bundle(struct hbbp_driver *d, const struct hbbp_bundle *b);

/* Ends the pass: flushes (an error is kept in flush_err), sums multiplexing times per event
 * and sets the scales. */
void hbbp_driver__finish(struct hbbp_driver *d);

#endif
