/* The HBBP method core (method.md §2-§7): one pass over the records accumulating EBS sample
 * periods and LBR streams in hash tables (hbbp/engine/driver.c), then attribution to basic blocks
 * with LBR-learned leaders, multiplexing scale, bias flags and the hybrid choice
 * (hbbp/method/blocks.c), then the instruction-mix pivot and the result tables (hbbp/pivot/mix.c).
 *
 * The core sees code only through struct hbbp_code_ops (hbbp/engine/code_bbmap.c binds it to a
 * bbmap_session; unit tests bind it to test doubles), and perf.data only through the
 * reader's record structs, so it never opens files itself. It never prints.
 */
#ifndef HBBP_METHOD_H
#define HBBP_METHOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bbmap/module.h"
#include "bbmap/session.h"
#include "hbbp/method/interval.h"
#include "util/hmap.h"
#include "hbbp/engine/stack_cache.h"
#include "hbbp/engine/sum_queue.h"
#include "reader/perf_reader.h"

#define HBBP_DEFAULT_CUTOFF	18
#define HBBP_MAX_STREAM_BYTES	(1u << 20)	/* method.md §5: a stream longer than 1 MiB is bogus */
#define HBBP_MAX_WALK_BLOCKS	65536		/* a block walk longer than this is rejected */
/* Bias flag (method.md §5, decision): a branch seen in >= HBBP_BIAS_MIN_OCC stack slots whose
 * share of oldest-slot (or newest-slot) occurrences exceeds HBBP_BIAS_FACTOR times the share
 * expected by chance (the mean of 1/n over its occurrences; 1/n for stacks of n entries). */
#define HBBP_BIAS_MIN_OCC	8
#define HBBP_BIAS_FACTOR	2.0

/* How the core reaches code. ctx is passed back to every call. */
struct hbbp_code_ops {
	void *ctx;
	/* Non-sample records (MMAP, MMAP2, COMM, FORK, EXIT, KSYMBOL, ...) in delivery order. */
	int (*record)(void *ctx, const struct perf_record *rec);
	/* Runtime address -> (dso, module vaddr); -HBBP_ENOTFOUND when unmapped. */
	int (*lookup)(void *ctx, uint32_t pid, int cpumode, uint64_t addr, struct bbmap_loc *loc);
	enum bbmap_dso_status (*dso_module)(void *ctx, struct bbmap_dso *d, struct bbmap_module **m);
	int (*add_leader)(void *ctx, struct bbmap_module *m, uint64_t vaddr);
	int (*block_at)(void *ctx, struct bbmap_module *m, uint64_t vaddr,
			const struct bbmap_block **blk);
	const struct bbmap_symbol *(*symbol_at)(void *ctx, struct bbmap_module *m, uint64_t vaddr);
	/* Name of a symbol in a dso without code (kallsyms, perf map), or NULL. */
	const char *(*dso_symbol)(void *ctx, struct bbmap_dso *d, uint64_t vaddr, uint64_t *start);
	const char *(*dso_name)(void *ctx, const struct bbmap_dso *d);	/* recorded name */
	const char *(*dso_short_name)(void *ctx, const struct bbmap_dso *d);
	enum bbmap_dso_kind (*dso_kind)(void *ctx, const struct bbmap_dso *d);
	const char *(*dso_path)(void *ctx, const struct bbmap_dso *d);		/* or NULL */
	const char *(*dso_status_detail)(void *ctx, const struct bbmap_dso *d);	/* or NULL */
	size_t (*module_build_id)(void *ctx, const struct bbmap_module *m, const uint8_t **id);
	/* Threads that may call add_leader at once, each on modules no other thread touches
	 * (0 or 1: the caller's thread only). */
	unsigned int leader_threads;
};

enum hbbp_method { HBBP_METHOD_HBBP, HBBP_METHOD_EBS, HBBP_METHOD_LBR };
const char *hbbp_method_name(enum hbbp_method m);	/* "hbbp", "ebs", "lbr" */

/* Why a stream (or its weight) was not counted. */
enum hbbp_reject {
	REJ_BACKWARD,		/* to > from */
	REJ_UNMAPPED,		/* an end resolves to no map */
	REJ_CROSS_MODULE,	/* ends in different dsos */
	REJ_TOO_LONG,		/* from - to > 1 MiB */
	REJ_SPECULATIVE,	/* an entry flagged wrong-path speculative */
	REJ_NO_CODE,		/* dso without code (binary missing, names only, refused) */
	REJ_WALK_JUMP,		/* walk met an unconditional transfer before reaching from */
	REJ_WALK_UNDECODED,	/* walk left decoded code */
	REJ_WALK_BOUND,		/* walk longer than HBBP_MAX_WALK_BLOCKS */
	REJ__COUNT
};
const char *hbbp_reject_name(enum hbbp_reject r);	/* "to>from", "unmapped", ... */

struct hbbp_event_state {
	enum perf_role role;
	bool branch_any;
	const char *name;
	uint64_t samples;		/* samples of this event seen */
	uint64_t samples_used;		/* EBS: resolved IPs; LBR: stacks with >= 2 entries */
	uint64_t stacks_short;		/* LBR samples whose stack has < 2 entries */
	uint64_t zero_entries;		/* 0/0 padding entries dropped from stacks */
	uint64_t streams;		/* LBR streams seen (n-1 per stack) */
	double stream_weight;		/* their total weight */
	uint64_t lost, throttled;	/* LOST / THROTTLE records naming this event */
	uint64_t time_enabled, time_running;	/* summed over threads (READ) */
	double scale;			/* enabled / running, 1 when not multiplexed */
	struct hbbp_bsum bs;		/* periods of its used samples (EBS, LBR stacks) per batch */
};

/* Per-dso (NULL: unmapped) accounting: weight that could not be attributed to code, and
 * the LBR stream weight touching the dso (an end in it) with how much of it was rejected. */
struct hbbp_unresolved {
	struct bbmap_dso *dso;
	uint64_t ebs_samples;
	double ebs_weight;		/* unresolved instructions (sum of periods) */
	uint64_t lbr_streams;
	double lbr_weight;		/* unresolved stream weight */
	double lbr_total;		/* stream weight with an end in this dso */
	double lbr_rejected;		/* of which rejected (any reason) */
};

/* A direct-mapped cache of address lookups: valid while no non-sample record arrived and the
 * samples come from the same pid (maps change only through records). */
#define HBBP_LOOKUP_CACHE 256
struct hbbp_lookup_slot {
	uint64_t addr;
	uint32_t gen;
	int32_t cpumode;
	int rc;
	struct bbmap_loc loc;
};

struct hbbp_driver {
	const struct hbbp_code_ops *ops;
	unsigned int batch_slot;	/* hbbp_batch__slot's shift (method/interval.h; 0: hash) */
	struct hbbp_lookup_slot lcache[HBBP_LOOKUP_CACHE];
	uint32_t lgen;			/* current generation (0 never valid) */
	uint32_t lpid;			/* pid the generation belongs to */
	uint64_t nr_lookups, nr_lookup_hits;
	size_t nr_events;
	struct hbbp_event_state *ev;
	struct hmap ebs;	/* (pid<<32|tid, dso, vaddr, ev) -> struct hbbp_ebs_val */
	struct hbbp_sum_queue ebsq;	/* sums on their way into ebs (complete after finish) */
	struct hmap streams;	/* (pid<<32|tid, dso, to, from, ev) -> struct hbbp_stream_val */
	struct hmap bias;	/* (dso_from, from, dso_to, to) -> struct hbbp_bias_val */
	struct hmap unres;	/* (dso) -> struct hbbp_unresolved */
	struct hmap reads;	/* (pid<<32|tid, ev) -> last time_enabled, time_running */
	struct hmap comms;	/* (tid) -> index in comm[] */
	char **comm;
	size_t nr_comm, alloc_comm;
	uint64_t rejected[REJ__COUNT];
	double rejected_weight[REJ__COUNT];
	uint64_t nr_lost_records, nr_lost, nr_lost_samples, nr_throttle;
	uint64_t nr_samples, nr_unused_samples;
	uint64_t nr_record_errors;	/* session errors on non-sample records */
	struct hbbp_unresolved *acct_cache;	/* last dso_acct result, valid while acct_nr */
	size_t acct_nr;				/* == unres.nr (no insert since) */
	struct bbmap_loc *locs;		/* reused per LBR stack: resolved from/to of each entry */
	size_t alloc_locs;
	/* Identical LBR stacks are summed before their entries are resolved: (pid<<32|tid,
	 * evidx | cpumode << 16 | n << 32, from/to of each of up to HBBP_STACK_CACHE_DEPTH
	 * entries) -> struct hbbp_stack_val. Flushed before any record that may change an
	 * address space, when full, and by hbbp_driver__flush / __finish. */
	struct hbbp_stack_cache stacks;
	int flush_err;			/* error of a flush inside hbbp_driver__finish */
	/* the raw sums of a segment read apart (hbbp_driver__set_bundle), merged once */
	const struct hbbp_bundle *bundle;
	bool bundle_merged;
};

/* Every sum also kept per batch of the samples (bs, hbbp/method/interval.h): the spread of a
 * row's estimate over the batches gives its interval. */
struct hbbp_ebs_val { double period; uint64_t n; struct hbbp_bsum bs; };
struct hbbp_stream_val { double weight; uint64_t n; struct hbbp_bsum bs; };
struct hbbp_bias_val { uint64_t oldest, newest, all; double expected; };

/* events[i] describes event i (its role, branch_any and name are copied). */
int hbbp_driver__init(struct hbbp_driver *d, const struct hbbp_code_ops *ops,
		      const struct perf_event_info *const *events, size_t nr_events);
void hbbp_driver__exit(struct hbbp_driver *d);
/* Feeds one record (any type). Returns 0 or -ENOMEM; anomalies are counted, never fatal. */
int hbbp_driver__record(struct hbbp_driver *d, const struct perf_record *rec);
/* Processes the LBR stacks summed so far (see stacks). Returns 0 or -ENOMEM. */
int hbbp_driver__flush(struct hbbp_driver *d);
/* A sample reduced to what the accumulation needs (hbbp_driver__digest, which reads only
 * the events' roles and may run in another thread than the driver), then accumulated
 * (hbbp_driver__apply, in record order). record() on a sample is digest + apply. */
enum hbbp_item_kind {
	HBBP_ITEM_BAD_EVENT,	/* no event of the recording: counted as unused */
	HBBP_ITEM_UNUSED,	/* event with neither role */
	HBBP_ITEM_EBS,
	HBBP_ITEM_LBR_SHORT,	/* fewer than 2 entries after the 0/0 padding */
	HBBP_ITEM_LBR,		/* nr entries at raw */
};
struct hbbp_sample_item {
	uint32_t kind;		/* enum hbbp_item_kind */
	int32_t evidx;
	uint32_t pid, tid, cpu;
	int32_t cpumode;
	uint64_t ip, period;
	uint64_t time_enabled, time_running;
	uint64_t has_read;
	uint64_t zero_entries;	/* 0/0 entries dropped */
	uint64_t nr;		/* LBR: entries after the padding */
	uint32_t batch;		/* the sample's batch (hbbp_batch__of) */
	const struct perf_branch_entry *raw;	/* LBR: the record's entries (newest first) */
};
void hbbp_driver__digest(const struct hbbp_driver *d, const struct perf_record *rec,
			 struct hbbp_sample_item *it);
/* e: the item's nr branch entries (it->raw, or a copy of them). Returns 0 or -ENOMEM. */
int hbbp_driver__apply(struct hbbp_driver *d, const struct hbbp_sample_item *it,
		       const struct perf_branch_entry *e);
/* The LBR stack cache key of an LBR item (see struct hbbp_driver.stacks); false when the
 * stack is not cached (deeper than the cache, an entry with flags, an event index > 0xffff). */
bool hbbp_driver__stack_key(const struct hbbp_sample_item *it, const struct perf_branch_entry *e,
			    uint64_t *key);

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
	struct hbbp_bsum bs;		/* see hbbp_event_state.bs */
};
struct hbbp_bundle {
	struct hbbp_driver *roles;	/* a copy of the driver's event roles alone (for
					 * hbbp_driver__digest): the driver's own share cache
					 * lines with counters its thread writes */
	struct hbbp_bundle_event *ev;	/* d->nr_events */
	struct hmap ebs;		/* (pid<<32|tid, cpumode, ip, evidx) -> hbbp_ebs_val */
	struct hbbp_sum_queue ebsq;	/* sums on their way into ebs (complete after finish) */
	struct hbbp_stack_cache stacks;
	uint64_t nr_samples, nr_unused_samples;
	uint64_t tmin, tmax;		/* sample times (tmin > tmax: no sample) */
	uint64_t start, end;		/* file offsets: the segment's records are [start, end) */
};
int hbbp_bundle__init(struct hbbp_bundle *b, const struct hbbp_driver *d);
void hbbp_bundle__exit(struct hbbp_bundle *b);
/* Adds the sample rec (its time: rec->sample.time). Returns 1, 0 when the bundle cannot
 * stand for it (read values, a stack that is not cached, the cache full; the segment then
 * ends before it) or -ENOMEM. */
int hbbp_bundle__add(struct hbbp_bundle *b, const struct perf_record *rec);
/* Sums what hbbp_bundle__add has queued (0 or -ENOMEM): before the bundle is read or set. */
int hbbp_bundle__finish(struct hbbp_bundle *b);
/* From here on the driver stands for b's samples (kept by the caller until finish; NULL:
 * no bundle). */
void hbbp_driver__set_bundle(struct hbbp_driver *d, const struct hbbp_bundle *b);

/* Ends the pass: flushes (an error is kept in flush_err), sums multiplexing times per event
 * and sets the scales. */
void hbbp_driver__finish(struct hbbp_driver *d);
/* Last COMM seen for tid (else pid), or NULL. */
const char *hbbp_driver__comm(const struct hbbp_driver *d, uint32_t pid, uint32_t tid);
int hbbp_driver__unresolved_add(struct hbbp_driver *d, struct bbmap_dso *dso, bool lbr,
				uint64_t n, double weight);
/* The accounting entry of dso (NULL: unmapped), created on first use; NULL when out of memory.
 * Valid until the next call. */
struct hbbp_unresolved *hbbp_driver__dso_acct(struct hbbp_driver *d, struct bbmap_dso *dso);

/* ---- blocks.c ---- */

enum hbbp_block_kind {
	HBBP_BLK_CODE,		/* a decoded basic block */
	HBBP_BLK_NOCODE,	/* EBS weight in a dso without code, per symbol (or whole dso) */
	HBBP_BLK_UNDECODED,	/* EBS weight in a module with code but off decoded code */
	HBBP_BLK_UNMAPPED,	/* EBS weight at addresses in no map */
};

struct hbbp_block {
	enum hbbp_block_kind kind;
	struct bbmap_dso *dso;		/* NULL for UNMAPPED */
	struct bbmap_module *mod;	/* NULL unless CODE */
	uint64_t start, end;		/* module vaddrs; pseudo blocks: symbol start (or 0) */
	uint32_t nr_insns;
	const char *symname;		/* symbol name or NULL */
	uint64_t sym_start, sym_size;
	double ebs_sum, lbr_sum;	/* scaled sum of periods / of stream weights */
	uint64_t ebs_samples, lbr_streams;
	double ebs_est, lbr_est;	/* BBEC estimates (pseudo blocks: ebs_est = instructions) */
	double count;			/* chosen estimate (0: no data for the chosen method) */
	double count_lo, count_hi;	/* its 95% interval (method.md §10) */
	struct hbbp_bsum ebs_bs, lbr_bs;	/* ebs_sum, lbr_sum per batch */
	const char *source;		/* "lbr", "ebs", "lbr-fallback", "ebs-fallback", "" */
	bool biased;
	double bias_share;		/* highest oldest/newest-slot share of its branches */
};

struct hbbp_tblock {
	uint32_t pid, tid;
	size_t block;			/* index in hbbp_counts.blocks */
	double ebs_sum, lbr_sum;
	uint64_t ebs_samples, lbr_streams;
	double ebs_est, lbr_est, count;
	double count_lo, count_hi;	/* its 95% interval (method.md §10) */
	struct hbbp_bsum ebs_bs, lbr_bs;	/* ebs_sum, lbr_sum per batch */
	struct hbbp_bsum count_bs;	/* count per batch (the block's source in every batch) */
};

struct hbbp_counts {
	enum hbbp_method method;
	unsigned cutoff;
	struct hbbp_block *blocks;
	size_t nr_blocks, alloc_blocks;
	struct hbbp_tblock *tblocks;
	size_t nr_tblocks, alloc_tblocks;
	struct hmap bidx;		/* (dso, start, kind) -> block index + 1 */
	struct hmap tidx;		/* (pid<<32|tid, block) -> tblock index + 1 */
	uint64_t nr_biased_branches;
	double lbr_weight_attributed;	/* scaled stream weight walked successfully */
	double ebs_weight_attributed;	/* scaled period landing in decoded blocks */
	/* Per batch, the factor from a batch's sum to the estimate of the whole (interval.h):
	 * the role's total weight over the batch's (the PMU counts every event, so the periods
	 * of all samples sum to a known total); HBBP_BATCHES where no factor (ratio false). */
	bool ratio;
	struct hbbp_bsum ebs_ratio, lbr_ratio;
};

/* Attribution: leaders from stream targets, EBS and stream attribution, bias, hybrid choice.
 * Rejections found here are added to d->rejected. */
int hbbp_counts__compute(struct hbbp_counts *c, struct hbbp_driver *d, enum hbbp_method method,
			 unsigned cutoff);
void hbbp_counts__exit(struct hbbp_counts *c);
/* The batch estimates x[0..HBBP_BATCHES) of a count summed per batch as e (from blocks
 * counted by EBS; NULL: none) and l (by LBR; NULL: none): each batch's sum times its role's
 * ratio factor (interval.h). */
void hbbp_counts__batch_estimates(const struct hbbp_counts *c, const struct hbbp_bsum *e,
				  const struct hbbp_bsum *l, double *x);
/* Whether b's count comes from LBR streams (after hbbp_block__choose). */
bool hbbp_block__uses_lbr(const struct hbbp_block *b);
/* Applies the hybrid rule to one block (exposed for tests). */
void hbbp_block__choose(struct hbbp_block *b, enum hbbp_method method, unsigned cutoff);

#endif
