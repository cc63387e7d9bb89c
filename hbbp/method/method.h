/* The HBBP method (method.md §2-§7, §10) as plain functions over a plain accumulator: what one
 * sample or stack adds to the sums (hbbp/method/accum.c: EBS periods per instruction, LBR
 * streams per (dso, target, source), slot counters per branch, read values), and the
 * attribution of the sums to basic blocks (hbbp/method/blocks.c: leaders, EBS, the stream
 * walk, bias, the hybrid rule, the intervals). Every sum is kept per task (pid, tid) as the
 * caller names it: a caller that needs no task passes 0/0 and the sums are bounded by the code.
 *
 * The method sees code through struct hbbp_code only and perf.data through the reader's
 * record structs; it never opens files and never prints. Whatever makes a conversion fast
 * belongs to the caller (hbbp/engine/), behind struct hbbp_code and around these calls, so
 * that these files read as method.md does; an independent second computation of method.md
 * checks them (tests/tools/refmethod.c).
 */
#ifndef HBBP_METHOD_H
#define HBBP_METHOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bbmap/module.h"
#include "bbmap/session.h"
#include "hbbp/method/cycles.h"
#include "hbbp/method/interval.h"
#include "hbbp/method/lbr_time.h"
#include "hbbp/method/leaders.h"
#include "hbbp/method/roles.h"
#include "hbbp/method/throttle.h"
#include "reader/perf_reader.h"
#include "util/hmap.h"

#define HBBP_DEFAULT_CUTOFF	18
#define HBBP_MAX_STREAM_BYTES	(1u << 20)	/* method.md §5: a stream longer than 1 MiB is bogus */
#define HBBP_MAX_WALK_BLOCKS	65536		/* a block walk longer than this is rejected */
/* Bias flag (method.md §5, decision): a branch seen in >= HBBP_BIAS_MIN_OCC stack slots whose
 * share of oldest-slot (or newest-slot) occurrences exceeds HBBP_BIAS_FACTOR times the share
 * expected by chance (the mean of 1/n over its occurrences; 1/n for stacks of n entries). */
#define HBBP_BIAS_MIN_OCC	8
#define HBBP_BIAS_FACTOR	2.0

/* What the method asks of the code (the caller resolves the samples' run-time addresses to
 * (dso, module vaddr) itself); ctx is passed back to every call. */
struct hbbp_code {
	void *ctx;
	/* The module of a dso whose code is known, else NULL. */
	struct bbmap_module *(*module)(void *ctx, struct bbmap_dso *dso);
	/* method.md §3: each list's leaders added to its module (a leader that is no instruction
	 * start is skipped), before any block is asked for; 0 or -ENOMEM. */
	int (*add_leaders)(void *ctx, const struct hbbp_leaders *l);
	/* The block holding vaddr: its bounds, length, last instruction's flags, symbol (its
	 * instructions are not needed); nonzero when vaddr is off decoded code. */
	int (*block)(void *ctx, struct bbmap_module *m, uint64_t vaddr,
		     const struct bbmap_block **blk);
	const struct bbmap_symbol *(*symbol)(void *ctx, struct bbmap_module *m, uint64_t vaddr);
	/* The name of a symbol in a dso without code (kallsyms, perf map), or NULL. */
	const char *(*dso_symbol)(void *ctx, struct bbmap_dso *d, uint64_t vaddr, uint64_t *start);
	const char *(*dso_name)(void *ctx, const struct bbmap_dso *d);	/* recorded name */
	/* The name of task pid/key (the name its thread had then, else its process's), or NULL,
	 * and the thread's tid in *tid (a renamed thread's tasks have keys of their own). */
	const char *(*comm)(void *ctx, uint32_t pid, uint32_t key, uint32_t *tid);
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
	enum hbbp_role role;
	const char *role_reason;	/* why this role (hbbp/method/roles.h) */
	bool branch_any;
	const char *name;
	uint64_t samples;		/* samples of this event seen */
	uint64_t samples_used;		/* EBS: resolved IPs; LBR: stacks with >= 2 entries */
	uint64_t stacks_short;		/* LBR samples whose stack has < 2 entries */
	uint64_t zero_entries;		/* 0/0 padding entries dropped from stacks */
	uint64_t streams;		/* LBR streams seen (n-1 per stack) */
	double stream_weight;		/* their total weight */
	double stream_weight_plain;	/* ... with the plain weight period/(n-1) */
	/* time-weighted LBR (method.md §5b): stacks weighted by D(Y), of which with the
	 * recording's mean duration (fallback) and with the IP refinement */
	uint64_t lbr_time_stacks, lbr_time_fallback, lbr_time_by_ip;
	uint64_t time_enabled, time_running;	/* summed over the counters read (READ) */
	double scale;			/* enabled / running, 1 when not multiplexed, times ... */
	double throttle_scale;		/* ... span / (span - throttled time) (§7), 1 when not
					 * throttled or not corrected */
	double throttled_frac;		/* the throttled share of its sampled span */
	double throttle_spread;		/* the factor's uncertainty, relative (throttle.h) */
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
	double lbr_weight_err;		/* its rounding error while the records are summed */
	double lbr_total;		/* stream weight with an end in this dso */
	double lbr_rejected;		/* of which rejected (any reason) */
};

/* Every sum also kept per batch of the samples (bs, hbbp/method/interval.h): the spread of a
 * row's estimate over the batches gives its interval (method.md §10). */
struct hbbp_ebs_val { double period; uint64_t n; struct hbbp_bsum bs; };
/* weight: the streams' summed weight (period/(n-1) each, or with the time-weighted LBR
 * estimate period/((n-1) D(Y))), bs the same per batch; weight_plain: with the plain weight
 * period/(n-1) */
struct hbbp_stream_val { double weight; uint64_t n; double weight_plain; struct hbbp_bsum bs;
			 struct hbbp_cycles_val cyc; };
/* target: the branch's target starts a block (§3: mapped, seen off the wrong path) */
struct hbbp_bias_val { uint64_t oldest, newest, all; double expected; uint64_t target; };

/* The method's accumulator (method.md §4, §5, §7): filled by the record loop (the engine,
 * hbbp/engine/driver.h), read by the attribution (hbbp_counts__compute) and the result
 * tables. A task key is pid << 32 | tid. */
struct hbbp_accum {
	const struct hbbp_code *code;
	unsigned int batch_slot;	/* hbbp_batch__slot's shift (interval.h; 0: hash) */
	size_t nr_events;
	struct hbbp_event_state *ev;
	struct hmap ebs;	/* (task, dso, vaddr, ev) -> struct hbbp_ebs_val */
	struct hmap streams;	/* (task, dso, to, from, ev) -> struct hbbp_stream_val */
	/* (dso_from, from, dso_to, to) -> struct hbbp_bias_val: every branch of the LBR data,
	 * an unmapped end 0/0: its slot counters (§5, mapped sources) and whether its target
	 * is a block leader (§3) */
	struct hmap bias;
	struct hmap unres;	/* (dso) -> struct hbbp_unresolved */
	struct hmap reads;	/* (task, cpu, ev) -> last time_enabled, time_running */
	struct hbbp_throttle throttle;	/* the counters' throttled times (§7) */
	bool no_throttle;	/* the caller's: leave the estimates unscaled for throttling */
	uint64_t rejected[REJ__COUNT];
	double rejected_weight[REJ__COUNT];
	uint64_t nr_samples, nr_unused_samples;
	/* EBS samples at unmapped IPs and their periods, added to the unresolved accounting
	 * (unres, dso NULL) by hbbp_accum__scale: after the streams' entries */
	uint64_t ebs_unmapped_n;
	double ebs_unmapped_w;
	uint64_t cycles_streams;	/* kept streams whose duration was recorded (cycles.h) */
};

/* events[i] and roles[i] describe event i (its name and role are copied; method.md §2: an
 * LBR role without the all-branches filter gives no valid streams and is made unused). */
int hbbp_accum__init(struct hbbp_accum *a, const struct hbbp_code *code,
		     const struct perf_event_info *const *events,
		     const struct hbbp_event_role *roles, size_t nr_events);
void hbbp_accum__exit(struct hbbp_accum *a);

/* A branch end resolved (a struct bbmap_loc without its map): dso NULL when unmapped. */
struct hbbp_end {
	struct bbmap_dso *dso;
	uint64_t vaddr;
};

/* An LBR stack as the streams need it (method.md §5): n entries (newest first), their ends
 * resolved (ends[2k]: e[k].from, ends[2k+1]: e[k].to) and flags per entry: HBBP_ENTRY_WRONG
 * (on the wrong path) and HBBP_ENTRY_BACK (k >= 1 and e[k].to > e[k-1].from: the stream
 * between them runs backward in run-time addresses). hash, where the caller has them (else
 * NULL): hash[2k] the hmap hash of branch k's key in the accumulator's bias map, hash[2k+1]
 * that of stream k's (k >= 1) in its streams map (hbbp_accum__branch_key, __stream_key). */
#define HBBP_ENTRY_WRONG	1
#define HBBP_ENTRY_BACK		2
struct hbbp_stack {
	uint64_t n;
	const uint8_t *flags;
	const struct hbbp_end *ends;
	const uint64_t *hash;
	/* the streams' recorded durations (hbbp/method/cycles.h): cyc[2k], cyc[2k+1] for stream
	 * k >= 1, summed over the cnt stacks; NULL: none recorded */
	const double *cyc;
	/* where the caller wants them (else NULL): set by hbbp_accum__lbr, cell[k] the entry
	 * number in the streams map of kept stream k >= 1 */
	uint32_t *cell;
};

/* Whether a branch entry is flagged wrong-path speculative (method.md §5: rejected). */
static inline bool hbbp_branch__spec_wrong(const struct perf_branch_entry *e)
{
	return PERF_BR_SPEC(e->flags) == PERF_BR_SPEC_WRONG_PATH;
}
/* The flags of entry k of e (see struct hbbp_stack). */
static inline uint8_t hbbp_lbr_entry_flag(const struct perf_branch_entry *e, uint64_t k)
{
	return (uint8_t)((hbbp_branch__spec_wrong(&e[k]) ? HBBP_ENTRY_WRONG : 0) |
			 (k && e[k].to > e[k - 1].from ? HBBP_ENTRY_BACK : 0));
}
/* cpumode for a branch end (method.md §9): the kernel half of the address space goes to the
 * kernel maps. */
static inline int hbbp_branch_cpumode(int sample_cpumode, uint64_t addr)
{
	bool kernel = addr >> 63;

	if (sample_cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
	    sample_cpumode == PERF_RECORD_MISC_GUEST_USER)
		return kernel ? PERF_RECORD_MISC_GUEST_KERNEL : PERF_RECORD_MISC_GUEST_USER;
	return kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
}
/* A sample reduced to what the accumulation needs (method.md §2: its event's role; §5: an LBR
 * stack without its 0/0 padding; §5b: its weight; §10: its batch). */
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
	uint32_t batch;		/* the sample's batch (method.md §10) */
	const struct perf_branch_entry *raw;	/* LBR: the record's entries (newest first) */
	double weight;		/* LBR: the stack's weight, its period (§5b: the time weight
				 * period / D(Y) comes at the end, hbbp/method/lbr_defer.h) */
};
/* The item of sample rec: its kind by its event's role in ev[0..nr_events), its batch (slot:
 * hbbp_batch__slot's shift). */
void hbbp_sample__digest(const struct hbbp_event_state *ev, size_t nr_events, unsigned int slot,
			 const struct perf_record *rec, struct hbbp_sample_item *it);

/* The per-sample counters of an item (samples, used, short stacks, padding, unused) and its
 * read values (method.md §7). 0 or -ENOMEM. */
int hbbp_accum__count_item(struct hbbp_accum *a, const struct hbbp_sample_item *it);
/* method.md §7: a cumulative (time_enabled, time_running) of event evidx on a task/cpu. */
int hbbp_accum__read_value(struct hbbp_accum *a, uint32_t pid, uint32_t tid, uint32_t cpu,
			   int evidx, uint64_t enabled, uint64_t running);
/* method.md §4: n EBS samples of event evidx of task pid/tid at an IP resolved to loc (NULL
 * or no dso: unmapped), their periods summing to period, per batch bs. 0 or -ENOMEM. */
int hbbp_accum__ebs(struct hbbp_accum *a, uint32_t pid, uint32_t tid, int evidx,
		    const struct bbmap_loc *loc, double period, uint64_t n,
		    const struct hbbp_bsum *bs);
/* How the accumulator keys the sums of stack s: branch k in a->bias (false: both its ends
 * unmapped, no entry), the stream e[k].to .. e[k-1].from (k >= 1) of task and event evidx in
 * a->streams (false: the stream is rejected, no entry). */
bool hbbp_accum__branch_key(const struct hbbp_stack *s, uint64_t k, uint64_t *key);
bool hbbp_accum__stream_key(const struct hbbp_stack *s, uint64_t k, uint64_t task, int evidx,
			    uint64_t *key);
/* method.md §5: whether the stream e[k].to .. e[k-1].from of s (k >= 1) is kept (REJ__COUNT)
 * or why not. */
enum hbbp_reject hbbp_stack__stream_class(const struct hbbp_stack *s, uint64_t k);
/* hbbp_accum__ebs without the sum: the samples counted, the key of a->ebs their sums go to
 * into key[0..4), for a caller that sums them itself into a struct hbbp_ebs_val. */
void hbbp_accum__ebs_key(struct hbbp_accum *a, uint32_t pid, uint32_t tid, int evidx,
			 const struct bbmap_loc *loc, double period, uint64_t n, uint64_t *key);
/* method.md §5: cnt stacks s of task pid/tid (n >= 2), their weights (period, or period /
 * D(Y) each, §5b) summing to weight (per batch bs) and their periods to period: n-1 streams
 * of weight weight/(n-1) each (period/(n-1) in the plain weight kept beside it), validated
 * (rejections counted), summed per (task, dso, to, from, event); slot counters per branch
 * for the bias flag; every entry's target (but wrong-path ones) kept as a block leader (§3).
 * 0 or -ENOMEM. */
int hbbp_accum__lbr(struct hbbp_accum *a, uint32_t pid, uint32_t tid, int evidx,
		    const struct hbbp_stack *s, double weight, double period, uint64_t cnt,
		    const struct hbbp_bsum *bs);
/* method.md §7: sums the read values per event and sets each event's scale: enabled over
 * running, times its throttle factor (a->throttle) unless a->no_throttle. */
void hbbp_accum__scale(struct hbbp_accum *a);
/* The comm of task pid/key (through the code), or NULL; the thread's tid in *tid (may be
 * NULL): a task's tid is the thread key of its name (the tid under its first). */
const char *hbbp_accum__comm(const struct hbbp_accum *a, uint32_t pid, uint32_t key,
			     uint32_t *tid);
/* Adds weight to dso's (NULL: unmapped) unresolved EBS (lbr false) or LBR accounting. */
int hbbp_accum__unresolved_add(struct hbbp_accum *a, struct bbmap_dso *dso, bool lbr,
			       uint64_t n, double weight);

/* ---- blocks.c ---- */

/* The estimate chosen for a block (method.md §6). */
enum hbbp_source {
	HBBP_SRC_NONE,		/* no data for the method */
	HBBP_SRC_LBR,
	HBBP_SRC_EBS,
	HBBP_SRC_LBR_FALLBACK,	/* EBS chosen but without data: LBR */
	HBBP_SRC_EBS_FALLBACK,	/* LBR chosen but without data: EBS */
};
/* "", "lbr", "ebs", "lbr-fallback", "ebs-fallback" (the outputs' source column). */
const char *hbbp_source_name(enum hbbp_source s);
static inline bool hbbp_source_is_lbr(enum hbbp_source s)
{
	return s == HBBP_SRC_LBR || s == HBBP_SRC_LBR_FALLBACK;
}
static inline bool hbbp_source_is_ebs(enum hbbp_source s)
{
	return s == HBBP_SRC_EBS || s == HBBP_SRC_EBS_FALLBACK;
}
/* The hybrid rule (method.md §6), written once: the source of a code block of nr_insns
 * instructions with EBS data (has_ebs) and LBR data (has_lbr) under method and cutoff. Used
 * by the attribution (hbbp_block__choose) and by train. */
enum hbbp_source hbbp_rule__choose(enum hbbp_method method, unsigned cutoff, uint32_t nr_insns,
				   bool has_ebs, bool has_lbr);

enum hbbp_block_kind {
	HBBP_BLK_CODE,		/* a decoded basic block */
	HBBP_BLK_NOCODE,	/* EBS weight in a dso without code, per symbol (or whole dso) */
	HBBP_BLK_UNDECODED,	/* EBS weight in a module with code but off decoded code */
	HBBP_BLK_UNMAPPED,	/* EBS weight at addresses in no map */
};

/* One per block with data (152 bytes: the counts hold one per block that ran, and live
 * through the mix; the small fields share a word) */
struct hbbp_block {
	struct bbmap_dso *dso;		/* NULL for UNMAPPED */
	struct bbmap_module *mod;	/* NULL unless CODE */
	uint64_t start, end;		/* module vaddrs; pseudo blocks: symbol start (or 0) */
	uint32_t nr_insns;
	enum hbbp_block_kind kind : 8;
	enum hbbp_source source : 8;	/* which estimate count is */
	bool biased;
	bool may_be_bad;		/* CODE: may hold an undecodable unit (its bbmap block's
					 * flag, final once the leaders are applied) */
	const char *symname;		/* symbol name or NULL */
	uint64_t sym_start, sym_size;
	double ebs_sum, lbr_sum;	/* scaled sum of periods / of stream weights */
	uint64_t ebs_samples, lbr_streams;
	double ebs_est, lbr_est;	/* BBEC estimates (pseudo blocks: ebs_est = instructions) */
	double lbr_sum_plain;		/* lbr_sum with the plain weight (method.md §5) */
	double count;			/* chosen estimate (0: no data for the chosen method) */
	double count_lo, count_hi;	/* its 95% interval (method.md §10) */
	double bias_share;		/* highest oldest/newest-slot share of its branches */
	struct hbbp_block_cycles cyc;	/* its cycles (cycles.h); cyc.w 0: no cycle data */
};

/* A task's share of a block */
struct hbbp_tblock {
	uint32_t pid, tid;
	size_t block;			/* index in hbbp_counts.blocks */
	double ebs_sum, lbr_sum;
	uint64_t ebs_samples, lbr_streams;
	double ebs_est, lbr_est, count;
	double lbr_sum_plain;		/* lbr_sum with the plain weight (method.md §5) */
	double count_lo, count_hi;	/* its 95% interval (method.md §10) */
	struct hbbp_bsum count_bs;	/* count per batch (the block's source in every batch) */
	struct hbbp_block_cycles cyc;	/* its cycles (cycles.h); cyc.w 0: no cycle data */
	struct hbbp_bsum cycles_bs;	/* cyc.cycles per batch (hbbp_cycles__batch) */
};

/* ebs_sum and lbr_sum of a block or task block per batch: what its interval is computed from */
struct hbbp_batch_sums {
	struct hbbp_bsum ebs, lbr, cyc;	/* cyc: the spread cycles (cycles.h) */
};

struct hbbp_counts {
	enum hbbp_method method;
	unsigned cutoff;
	struct hbbp_block *blocks;
	size_t nr_blocks, alloc_blocks;
	/* The tasks' shares: read them through hbbp_counts__tblock. Where every sum is of one
	 * task (the engine passes 0/0 when the output names none), the share of a block is the
	 * whole block: tblocks is NULL, nr_tblocks nr_blocks and task that task (pid << 32 |
	 * tid). block_count_bs: each block's count per batch. */
	struct hbbp_tblock *tblocks;
	size_t nr_tblocks, alloc_tblocks;
	uint64_t task;
	/* The tasks' shares made a process at a time (hbbp_counts__each_process) and never
	 * all kept: tblocks is NULL and the one-task view holds the blocks' sums. The
	 * caller's (after hbbp_counts__begin): hbbp_counts__each_process may be asked more
	 * than once (it then keeps what it reads). */
	bool by_process, by_process_again;
	struct hbbp_bsum *block_count_bs, *block_cycles_bs;
	bool has_cycles;		/* some block has cycle data (cycles.h) */
	/* per block, per task block (index for index): their sums per batch, NULL after
	 * hbbp_counts__drop_batch_sums */
	struct hbbp_batch_sums *block_bs, *tblock_bs;
	uint64_t nr_biased_branches;
	double lbr_weight_attributed;	/* scaled stream weight walked successfully */
	double ebs_weight_attributed;	/* scaled period landing in decoded blocks */
	/* What the attribution could not attribute: streams rejected by reason, weight in code
	 * it cannot see by dso (-> struct hbbp_unresolved); hbbp_accum__add_counts adds them to
	 * the accumulator's accounting. */
	uint64_t rejected[REJ__COUNT];
	double rejected_weight[REJ__COUNT];
	struct hmap unres;
	/* Per batch, the factor from a batch's sum to the estimate of the whole (interval.h):
	 * the role's total weight over the batch's (the PMU counts every event, so the periods
	 * of all samples sum to a known total); HBBP_BATCHES where no factor (ratio false). */
	bool ratio;
	struct hbbp_bsum ebs_ratio, lbr_ratio;
	/* How much wider, relative to the count, every interval is for throttling: the largest
	 * throttle_spread of the events used (method.md §7) */
	double widen;
	struct counts_ctx *make;	/* the steps' indexes (hbbp/method/blocks.c), until end */
};

/* Attribution (method.md §3-§6, §10), reading a only: the leaders from the stream targets,
 * EBS and stream attribution, bias, the hybrid choice and the intervals. */
int hbbp_counts__compute(struct hbbp_counts *c, const struct hbbp_accum *a,
			 enum hbbp_method method, unsigned cutoff);
/* The same in its steps, in this order (a caller may free each sum of a once its step has
 * read it; by_process, the EBS sums and streams once hbbp_counts__each_process has): the
 * leaders (§3), the EBS sums (§4), the streams (§5), the bias (§5: a->bias), the choice and
 * the intervals (§6, §10: the events' scales and batches). 0 or -ENOMEM; after an error,
 * hbbp_counts__exit. */
int hbbp_counts__begin(struct hbbp_counts *c, const struct hbbp_accum *a,
		       enum hbbp_method method, unsigned cutoff, bool by_process);
int hbbp_counts__ebs(struct hbbp_counts *c, const struct hbbp_accum *a);
int hbbp_counts__streams(struct hbbp_counts *c, const struct hbbp_accum *a);
int hbbp_counts__bias(struct hbbp_counts *c, const struct hbbp_accum *a);
int hbbp_counts__end(struct hbbp_counts *c, const struct hbbp_accum *a);
void hbbp_counts__exit(struct hbbp_counts *c);
/* by_process (after hbbp_counts__end, a's EBS sums and streams still there): the tasks' shares
 * of the blocks a process at a time, in pid order, each process's in the order the counts
 * would keep them: fn(ctx, first, t, bs, n) with its n task blocks t and their sums per
 * batch bs, first the number handed before them; stops at fn's first error. The memory of
 * one process's shares at a time. Once (it frees what it read of the counts) unless
 * c->by_process_again. 0 or an error. */
int hbbp_counts__each_process(const struct hbbp_counts *c, const struct hbbp_accum *a,
			      int (*fn)(void *ctx, size_t first, const struct hbbp_tblock *t,
					const struct hbbp_batch_sums *bs, size_t n),
			      void *ctx);
/* Adds what c could not attribute (rejections, unresolved weight) to a's accounting. 0 or
 * -ENOMEM. */
int hbbp_accum__add_counts(struct hbbp_accum *a, const struct hbbp_counts *c);
/* Frees the sums per batch (block_bs, tblock_bs) once the counts and intervals are set. */
void hbbp_counts__drop_batch_sums(struct hbbp_counts *c);
/* Task block i < nr_tblocks: &c->tblocks[i], or (one task) block i's, made in *tmp. */
const struct hbbp_tblock *hbbp_counts__tblock(const struct hbbp_counts *c, size_t i,
					      struct hbbp_tblock *tmp);
/* The batch estimates x[0..HBBP_BATCHES) of a count summed per batch as e (from blocks
 * counted by EBS; NULL: none) and l (by LBR; NULL: none): each batch's sum times its role's
 * ratio factor (interval.h). */
void hbbp_counts__batch_estimates(const struct hbbp_counts *c, const struct hbbp_bsum *e,
				  const struct hbbp_bsum *l, double *x);
/* Whether b's count comes from LBR streams (after hbbp_block__choose). */
bool hbbp_block__uses_lbr(const struct hbbp_block *b);
/* Sets a block's estimates (method.md §4, §5) and applies the hybrid rule (§6) to it. */
void hbbp_block__choose(struct hbbp_block *b, enum hbbp_method method, unsigned cutoff);

#endif
