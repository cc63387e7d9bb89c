/* The HBBP method (method.md §2-§7) as plain single-threaded functions: the accumulators of
 * EBS sample periods and LBR streams (hbbp/method/accum.c), attribution to basic blocks with
 * LBR-learned leaders, multiplexing scale, bias flags and the hybrid choice
 * (hbbp/method/blocks.c). Records reach the accumulators through the engine's record loop
 * (hbbp/engine/driver.h); the mix is built from them by hbbp/pivot/mix.c. An independent
 * second computation of method.md checks them (tests/tools/refmethod.c).
 *
 * The method sees code only through struct hbbp_code_ops (hbbp/engine/code_bbmap.c binds it to
 * a bbmap_session; unit tests bind it to test doubles), and perf.data only through the
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
#include "hbbp/method/lbr_time.h"
#include "hbbp/method/leaders.h"
#include "hbbp/method/roles.h"
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
	/* The same, and the addresses [*lo, *hi) around addr that resolve to the same dso and
	 * vaddr + (their address - addr) until the next record (NULL: not known). */
	int (*lookup_range)(void *ctx, uint32_t pid, int cpumode, uint64_t addr,
			    struct bbmap_loc *loc, uint64_t *lo, uint64_t *hi);
	enum bbmap_dso_status (*dso_module)(void *ctx, struct bbmap_dso *d, struct bbmap_module **m);
	int (*add_leader)(void *ctx, struct bbmap_module *m, uint64_t vaddr);
	/* add_leader for vaddrs[0..n) in order, the code decoded on up to `threads` threads
	 * (NULL: add_leader one by one); 0 or -ENOMEM. */
	int (*add_leaders)(void *ctx, struct bbmap_module *m, const uint64_t *vaddrs, size_t n,
			   unsigned int threads);
	int (*block_at)(void *ctx, struct bbmap_module *m, uint64_t vaddr,
			const struct bbmap_block **blk);
	/* Readies the instructions of the blocks at starts[0..n) for block_at, on up to
	 * `threads` threads (NULL: block_at decodes each); 0 or -ENOMEM. */
	int (*fill_blocks)(void *ctx, struct bbmap_module *m, const uint64_t *starts, size_t n,
			   unsigned int threads);
	unsigned int threads;	/* threads the calls above may use (-j) */
	/* The same where the attribution needs no instructions (insns may be NULL); NULL:
	 * block_at. */
	int (*block_span)(void *ctx, struct bbmap_module *m, uint64_t vaddr,
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
	/* The thread's name (last COMM for tid, else for its process), or NULL. */
	const char *(*thread_comm)(void *ctx, uint32_t pid, uint32_t tid);
	/* Adds the gathered leaders through add_leader (NULL: hbbp_leaders__apply_each); any
	 * other way must give the same result. actx: apply_ctx. 0 or -ENOMEM. */
	int (*apply_leaders)(void *actx, const struct hbbp_leaders *l,
			     const struct hbbp_code_ops *ops);
	void *apply_ctx;
	/* Frees the instructions block_at decoded so far (decoded again on request) and hands
	 * back the pages of the code's bytes they were read from; every insns pointer it gave
	 * becomes invalid. NULL: nothing to free. */
	void (*drop_insns)(void *ctx);
	/* Frees the blocks cut so far with their instructions: block_at may not be asked
	 * again (it would cut the code again without the leaders). NULL: nothing to free. */
	void (*drop_code)(void *ctx);
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

/* Every sum also kept per batch of the samples (bs, hbbp/method/interval.h): the spread of a
 * row's estimate over the batches gives its interval (method.md §10). */
struct hbbp_ebs_val { double period; uint64_t n; struct hbbp_bsum bs; };
/* weight: the streams' summed weight (period/(n-1) each, or with the time-weighted LBR
 * estimate period/((n-1) D(Y))), bs the same per batch; comp: the rounding error of weight's
 * sum when hbbp_accum.compensated (else 0); weight_plain: with the plain weight period/(n-1) */
struct hbbp_stream_val {
	double weight; uint64_t n; double comp; double weight_plain; struct hbbp_bsum bs;
};
/* target: the branch's target starts a block (§3: mapped, seen off the wrong path) */
struct hbbp_bias_val { uint64_t oldest, newest, all; double expected; uint64_t target; };

/* The method's accumulators (method.md §4, §5, §7), filled by whoever reads the records (the
 * engine's record loop, hbbp/engine/driver.h) and read by
 * the attribution (hbbp_counts__compute) and the result tables. */
struct hbbp_accum {
	const struct hbbp_code_ops *ops;
	unsigned int batch_slot;	/* hbbp_batch__slot's shift (interval.h; 0: hash) */
	size_t nr_events;
	struct hbbp_event_state *ev;
	struct hmap ebs;	/* (pid<<32|tid, dso, vaddr, ev) -> struct hbbp_ebs_val */
	struct hmap streams;	/* (pid<<32|tid, dso, to, from, ev) -> struct hbbp_stream_val */
	/* (dso_from, from, dso_to, to) -> struct hbbp_bias_val: every branch of the LBR data,
	 * an unmapped end 0/0: its slot counters (§5, mapped sources) and whether its target
	 * is a block leader (§3) */
	struct hmap bias;
	struct hmap unres;	/* (dso) -> struct hbbp_unresolved */
	struct hmap reads;	/* (pid<<32|tid, cpu, ev) -> last time_enabled, time_running */
	uint64_t rejected[REJ__COUNT];
	double rejected_weight[REJ__COUNT];
	/* Stream weights and rejected weights summed with their rounding errors kept apart
	 * (Neumaier), added in by hbbp_accum__compensate: for a caller that adds one sample's
	 * share at a time (the reference), whose plain sums would drift from the few adds of
	 * already summed stacks by about (adds x 1e-16). */
	bool compensated;
	/* Sums kept per thread (pid, tid): true unless the result needs no thread (no pid, tid
	 * or comm key, filter or table; the caller decides before the first record). When
	 * false every sum is keyed by thread 0/0, so the tables are bounded by the code that
	 * ran, not by the number of threads; the totals are the same. */
	bool per_thread;
	/* The attribution frees each sum by address (ebs, streams, bias) once it has read it
	 * (its memory goes to the blocks); the caller sets it when nothing reads them later. */
	bool release_sums;
	/* the time-weighted LBR estimate (method.md §5b): the stream durations (finished) whose
	 * D(Y) weighs each LBR sample (hbbp_lbr_time__weigh), or NULL for the plain weight;
	 * read-only while records are fed (a bundle's thread reads it too) */
	const struct hbbp_lbr_time *lbr_time;
	double rejected_comp[REJ__COUNT];
	uint64_t nr_samples, nr_unused_samples;
	uint64_t nr_record_errors;	/* code-ops errors on non-sample records */
	/* EBS samples at unmapped IPs and their periods: added to the unresolved accounting
	 * (unres, dso NULL) by hbbp_accum__scale, so that the samples never touch unres (an
	 * LBR summing thread owns it) */
	uint64_t ebs_unmapped_n;
	double ebs_unmapped_w;
	struct hbbp_unresolved *acct_last;	/* last hbbp_accum__dso_acct result, valid */
	size_t acct_nr;				/* while acct_nr == unres.nr (no insert since) */
	struct hbbp_end *locs;		/* reused per LBR stack: resolved from/to of each entry */
	size_t alloc_locs;
	uint8_t *flags;			/* ... and the flags of each (hbbp_lbr_entry_flags) */
	size_t alloc_flags;
};

/* events[i] and roles[i] describe event i (its name and role are copied; method.md §2: an
 * LBR role without the all-branches filter gives no valid streams and is made unused). */
int hbbp_accum__init(struct hbbp_accum *a, const struct hbbp_code_ops *ops,
		     const struct perf_event_info *const *events,
		     const struct hbbp_event_role *roles, size_t nr_events);
void hbbp_accum__exit(struct hbbp_accum *a);

/* What the sums need of a stack's raw entries besides their resolved ends: per entry k,
 * HBBP_ENTRY_WRONG (on the wrong path, method.md §5) and HBBP_ENTRY_BACK (k >= 1 and
 * e[k].to > e[k-1].from: the stream between them runs backward in run-time addresses). */
#define HBBP_ENTRY_WRONG	1
#define HBBP_ENTRY_BACK		2
void hbbp_lbr_entry_flags(const struct perf_branch_entry *e, uint64_t n, uint8_t *flags);

/* A branch end resolved (a struct bbmap_loc without its map): dso NULL when unmapped. */
struct hbbp_end {
	struct bbmap_dso *dso;
	uint64_t vaddr;
};

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

/* How an address is resolved for the accumulation (ops->lookup, or a cache in front of it):
 * 0 and *loc, or nonzero when unmapped. */
typedef int hbbp_lookup_fn(void *ctx, uint32_t pid, int cpumode, uint64_t addr,
			   struct bbmap_loc *loc);

/* A sample reduced to what the accumulation needs (method.md §2: its event's role; §5: an LBR
 * stack without its 0/0 padding). Reads only the events' roles. */
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
	uint32_t batch;		/* the sample's batch (hbbp_sample__batch) */
	const struct perf_branch_entry *raw;	/* LBR: the record's entries (newest first) */
	double weight;		/* LBR: the stack's weight: period, or period / D(Y) (§5b,
				 * hbbp_lbr_time__weigh) */
	uint8_t lbr_time;	/* LBR: weighted by D(Y) ... */
	uint8_t lbr_fallback;	/* ... the recording's mean duration */
	uint8_t lbr_by_ip;	/* ... of the streams holding the IP */
};
void hbbp_sample__digest(const struct hbbp_event_state *ev, size_t nr_events,
			 const struct perf_record *rec, struct hbbp_sample_item *it);
/* The batch of a sample (method.md §10, interval.h): its time slot when the recording's span
 * is known (slot: hbbp_batch__slot's shift), else a hash of its time or file offset, IP and
 * thread. The same however the file is read. */
unsigned int hbbp_sample__batch(const struct perf_record *rec, unsigned int slot);
/* Whether a branch entry is flagged wrong-path speculative (method.md §5: rejected). */
static inline bool hbbp_branch__spec_wrong(const struct perf_branch_entry *e)
{
	return PERF_BR_SPEC(e->flags) == PERF_BR_SPEC_WRONG_PATH;
}
/* The flags of entry k of e (see hbbp_lbr_entry_flags). */
static inline uint8_t hbbp_lbr_entry_flag(const struct perf_branch_entry *e, uint64_t k)
{
	return (uint8_t)((hbbp_branch__spec_wrong(&e[k]) ? HBBP_ENTRY_WRONG : 0) |
			 (k && e[k].to > e[k - 1].from ? HBBP_ENTRY_BACK : 0));
}

/* The per-sample counters of an item (samples, used, short stacks, padding, unused) and its
 * read values (method.md §7). 0 or -ENOMEM. */
int hbbp_accum__count_item(struct hbbp_accum *a, const struct hbbp_sample_item *it);
/* method.md §7: a cumulative (time_enabled, time_running) of event evidx on a thread/cpu. */
int hbbp_accum__read_value(struct hbbp_accum *a, uint32_t pid, uint32_t tid, uint32_t cpu,
			   int evidx, uint64_t enabled, uint64_t running);
/* method.md §4: n EBS samples of event evidx on thread pid/tid at ip, resolved to loc (NULL:
 * unmapped), their periods summing to period. Counts the sample as used or unresolved and
 * writes the key of a->ebs they are summed under to key[4]; the caller sums them into a->ebs
 * (hbbp_accum__sum, or later). 0 or -ENOMEM. */
int hbbp_accum__ebs_key(struct hbbp_accum *a, uint32_t pid, uint32_t tid, int evidx,
			const struct bbmap_loc *loc, double period, uint64_t n, uint64_t *key);
/* Adds (period, n) to the value of key in h (a map of struct hbbp_ebs_val), period to batch
 * batch's sum. 0 or -ENOMEM. */
int hbbp_accum__sum(struct hmap *h, const uint64_t *key, double period, uint64_t n,
		    unsigned int batch);
/* method.md §5: the stack e[0..n) (n >= 2, newest first) of thread pid/tid, seen cnt times
 * with periods summing to period (bs: per batch), its ends resolved through lookup: n-1
 * streams of weight period/(n-1) each, validated (rejections counted), accumulated per
 * (thread, dso, to, from); slot counters per branch for the bias flag; every entry's target
 * (but wrong-path ones) kept as a block leader (§3). 0 or -ENOMEM. */
int hbbp_accum__lbr_stack(struct hbbp_accum *a, hbbp_lookup_fn *lookup, void *lctx,
			  uint32_t pid, uint32_t tid, int cpumode, int evidx,
			  const struct perf_branch_entry *e, uint64_t n, double period, uint64_t cnt,
			  const struct hbbp_bsum *bs);
/* The same with the stacks' weights (period / D(Y) each, method.md §5b) summing to period
 * (bs: per batch) and their periods to period_plain: streams of weight period/(n-1), and
 * period_plain/(n-1) in the plain weight kept beside it. */
int hbbp_accum__lbr_stack_w(struct hbbp_accum *a, hbbp_lookup_fn *lookup, void *lctx,
			    uint32_t pid, uint32_t tid, int cpumode, int evidx,
			    const struct perf_branch_entry *e, uint64_t n, double period,
			    double period_plain, uint64_t cnt, const struct hbbp_bsum *bs);
/* hbbp_accum__lbr_stack_w in two steps, for a caller that resolves on one thread and sums on
 * another: the ends of e[0..n) resolved through lookup into locs[0..2n) (locs[2k]: from of
 * e[k], locs[2k+1]: its to); then the stack summed from them (touches only the streams,
 * bias, unresolved and rejection sums, and the events' stream counters). */
void hbbp_accum__lbr_resolve(hbbp_lookup_fn *lookup, void *lctx, uint32_t pid, int cpumode,
			     const struct perf_branch_entry *e, uint64_t n, struct hbbp_end *locs);
int hbbp_accum__lbr_sum(struct hbbp_accum *a, uint32_t pid, uint32_t tid, int evidx,
			const uint8_t *flags, uint64_t n, const struct hbbp_end *locs,
			double period, double period_plain, uint64_t cnt,
			const struct hbbp_bsum *bs);
/* Adds the kept rounding errors into the sums (see compensated). */
void hbbp_accum__compensate(struct hbbp_accum *a);
/* method.md §7: sums the read values per event and sets each event's scale. */
void hbbp_accum__scale(struct hbbp_accum *a);
/* The thread's comm (through the code ops), or NULL. */
const char *hbbp_accum__comm(const struct hbbp_accum *a, uint32_t pid, uint32_t tid);
int hbbp_accum__unresolved_add(struct hbbp_accum *a, struct bbmap_dso *dso, bool lbr,
			       uint64_t n, double weight);
/* The accounting entry of dso (NULL: unmapped), created on first use; NULL when out of memory.
 * Valid until the next call. */
struct hbbp_unresolved *hbbp_accum__dso_acct(struct hbbp_accum *a, struct bbmap_dso *dso);

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
};

struct hbbp_tblock {
	uint32_t pid, tid;
	size_t block;			/* index in hbbp_counts.blocks */
	double ebs_sum, lbr_sum;
	uint64_t ebs_samples, lbr_streams;
	double ebs_est, lbr_est, count;
	double lbr_sum_plain;		/* lbr_sum with the plain weight (method.md §5) */
	double count_lo, count_hi;	/* its 95% interval (method.md §10) */
	struct hbbp_bsum count_bs;	/* count per batch (the block's source in every batch) */
};

/* ebs_sum and lbr_sum of a block or thread block per batch: what its interval is computed
 * from (kept apart from the blocks, and only until hbbp_counts__drop_batch_sums) */
struct hbbp_batch_sums {
	struct hbbp_bsum ebs, lbr;
};

struct hbbp_counts {
	enum hbbp_method method;
	unsigned cutoff;
	struct hbbp_block *blocks;
	size_t nr_blocks, alloc_blocks;
	/* Thread blocks: read them through hbbp_counts__tblock. When the sums are not kept per
	 * thread and the batch sums are released (struct hbbp_accum.per_thread and
	 * .release_sums false and true), tblocks is NULL: thread block i is block i as thread
	 * 0/0, made on request from it and block_count_bs[i]. */
	struct hbbp_tblock *tblocks;
	size_t nr_tblocks, alloc_tblocks;
	struct hbbp_bsum *block_count_bs;	/* without tblocks: each block's count per batch */
	/* per block, per thread block (index for index): their sums per batch, NULL after
	 * hbbp_counts__drop_batch_sums; tblock_bs is NULL when the sums are not per thread
	 * (struct hbbp_accum.per_thread: one thread block per block, made from it) */
	struct hbbp_batch_sums *block_bs, *tblock_bs;
	size_t alloc_block_bs, alloc_tblock_bs;
	struct hmap bidx;		/* (dso, start, kind) -> block index + 1 */
	uint64_t last_key[3];		/* the bidx key found last, and its block index */
	long last_bi;
	struct hmap tidx;		/* (pid<<32|tid, block) -> tblock index + 1 */
	/* per block, while the sums per thread are attributed: the thread of its last thread
	 * block looked up and that one's index + 1 (0: none yet); freed after */
	struct hbbp_tb_hint { uint64_t thr; size_t last; } *tb_hint;
	size_t alloc_tb_hint;
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
 * Rejections found here are added to a->rejected. */
int hbbp_counts__compute(struct hbbp_counts *c, struct hbbp_accum *a, enum hbbp_method method,
			 unsigned cutoff);
void hbbp_counts__exit(struct hbbp_counts *c);
/* Frees the sums per batch (block_bs, tblock_bs) once the counts and intervals are set. */
void hbbp_counts__drop_batch_sums(struct hbbp_counts *c);
/* Thread block i < nr_tblocks: &c->tblocks[i], or (without tblocks) block i's, made in *tmp. */
const struct hbbp_tblock *hbbp_counts__tblock(const struct hbbp_counts *c, size_t i,
					      struct hbbp_tblock *tmp);
/* The same for a reader of its counts and sums only: a block's made in *tmp lacks the
 * interval (count_lo, count_hi: 0). */
const struct hbbp_tblock *hbbp_counts__tblock_sums(const struct hbbp_counts *c, size_t i,
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
