/* Attribution of the accumulated samples to basic blocks (method.md §3-§7, §10): stream targets
 * become block leaders, EBS periods land in the block containing their IP, each stream walks
 * the blocks from the one starting at its target through the one containing its source, the
 * multiplexing scale of each event is applied, branches seen in the oldest/newest stack slot
 * far more often than chance flag their blocks as biased, and the hybrid rule picks one
 * estimate per block. Weight that cannot be attributed is kept as pseudo blocks (EBS) or
 * counted as rejected (LBR), never dropped silently. Every sum is also kept per batch of the
 * samples, and the chosen source of each block (decided on all the samples) gives its count
 * in every batch: the spread over the batches is the count's 95% interval (method.md §10).
 * The sums are read in key order (dsos by name): every sum is taken in one order, however
 * the accumulator was filled. Per task, the shares of the blocks can instead be made one
 * process at a time once the blocks are summed (by_process: hbbp_counts__each_process), from
 * the block of each EBS sum and the blocks of each stream's walk kept as numbers, so that
 * they are never all held at once.
 * Depends on hbbp/method/method.h; reaches code only through struct hbbp_code.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/method/method.h"
#include "util/grow.h"
#include "util/hbbp_err.h"
#include "util/radix.h"

/* A block as the counts take it, copied from the code's. */
struct walk_step {
	uint64_t start, end;
	uint32_t nr_insns;
	bool may_be_bad;
	const char *symname;
	uint64_t sym_start, sym_size;
};

/* What the steps of the attribution share (struct hbbp_counts.make). */
struct counts_ctx {
	struct hbbp_counts *c;
	const struct hbbp_accum *a;	/* the accumulator of the step */
	const struct hbbp_code *code;
	struct hmap bidx;		/* (dso, start, kind) -> block index + 1 */
	struct hmap tidx;		/* (task, block) -> task block index + 1 */
	bool one_task;			/* every sum is of one task (or by_process): no task
					 * blocks while the blocks are summed */
	bool tasks_only;		/* the task blocks of one process are summed: the
					 * blocks are final */
	/* the task blocks being made (all of them, or by_process one process's) */
	struct hbbp_tblock *tb;
	struct hbbp_batch_sums *tb_bs;
	size_t nr_tb, alloc_tb, alloc_block_bs, alloc_tb_bs;
	/* by_process: the accumulator's EBS sums and streams in key order (task first), the
	 * block of each EBS sum (ebs_block[i] for order[0][i]) and the blocks of each stream's
	 * walk (walk_block[walk_end[j - 1] .. walk_end[j]) for order[1][j], none: rejected) */
	size_t *order[2], nr_order[2];
	uint32_t *ebs_block, *walk_block;
	size_t *walk_end;
	bool handed;			/* hbbp_counts__each_process ran: they are freed
					 * (unless by_process_again) */
	size_t nr_ebs_block, nr_walk_block, nr_walked;
	size_t alloc_ebs_block, alloc_walk_block, alloc_walk_end;
	struct walk_step *path;		/* the blocks of one stream's walk */
	size_t alloc_path;
};

static struct bbmap_module *ctx_module(const struct counts_ctx *x, struct bbmap_dso *dso)
{
	return dso ? x->code->module(x->code->ctx, dso) : NULL;
}

static void step_of_block(const struct bbmap_block *blk, struct walk_step *st)
{
	st->start = blk->start;
	st->end = blk->end;
	st->nr_insns = blk->nr_insns;
	st->may_be_bad = blk->may_be_bad;
	st->symname = blk->sym ? blk->sym->name : NULL;
	st->sym_start = blk->sym ? blk->sym->start : 0;
	st->sym_size = blk->sym ? blk->sym->size : 0;
}

/* The index of block (dso, st->start, kind), made from st on first use. */
static long counts_block(struct counts_ctx *x, enum hbbp_block_kind kind, struct bbmap_dso *dso,
			 struct bbmap_module *mod, const struct walk_step *st)
{
	uint64_t key[3] = { (uintptr_t)dso, st->start, (uint64_t)kind };
	struct hbbp_counts *c = x->c;
	uint64_t *slot = hmap__get(&x->bidx, key, NULL);
	struct hbbp_block *b;

	if (!slot)
		return -ENOMEM;
	if (*slot)
		return (long)(*slot - 1);
	if (grow_one((void **)&c->blocks, &c->alloc_blocks, sizeof(*c->blocks), c->nr_blocks) ||
	    grow_one((void **)&c->block_bs, &x->alloc_block_bs, sizeof(*c->block_bs),
		     c->nr_blocks))
		return -ENOMEM;
	memset(&c->block_bs[c->nr_blocks], 0, sizeof(*c->block_bs));
	b = &c->blocks[c->nr_blocks];
	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->dso = dso;
	b->mod = mod;
	b->start = st->start;
	b->end = st->end;
	b->nr_insns = st->nr_insns;
	b->symname = st->symname;
	b->sym_start = st->sym_start;
	b->sym_size = st->sym_size;
	b->source = HBBP_SRC_NONE;
	*slot = ++c->nr_blocks;
	return (long)(c->nr_blocks - 1);
}

/* The index of task's share of block bi, made on first use. */
static long counts_tblock(struct counts_ctx *x, uint64_t task, size_t bi)
{
	uint64_t key[2] = { task, bi };
	uint64_t *slot = hmap__get(&x->tidx, key, NULL);
	struct hbbp_tblock *t;

	if (!slot)
		return -ENOMEM;
	if (*slot)
		return (long)(*slot - 1);
	if (grow_one((void **)&x->tb, &x->alloc_tb, sizeof(*x->tb), x->nr_tb) ||
	    grow_one((void **)&x->tb_bs, &x->alloc_tb_bs, sizeof(*x->tb_bs), x->nr_tb))
		return -ENOMEM;
	memset(&x->tb_bs[x->nr_tb], 0, sizeof(*x->tb_bs));
	t = &x->tb[x->nr_tb];
	memset(t, 0, sizeof(*t));
	t->pid = (uint32_t)(task >> 32);
	t->tid = (uint32_t)task;
	t->block = bi;
	*slot = ++x->nr_tb;
	return (long)(x->nr_tb - 1);
}

/* Adds the sums of one accumulator entry of task (EBS, or LBR with its plain weight wp) to
 * block bi (not when tasks_only) and to the task's share of it (not when one_task): w scaled,
 * n samples or streams, bs per batch times scale. */
/* counts_add with a stream's durations cv (NULL: none) spread to the block by frac of its
 * instructions (docs/METHOD-cycles.md). */
static int counts_add_cycles(struct counts_ctx *x, uint64_t task, long bi, bool lbr, double w,
			     double wp, uint64_t n, const struct hbbp_bsum *bs, double scale,
			     const struct hbbp_cycles_val *cv, double frac)
{
	struct hbbp_counts *c = x->c;
	long ti = bi < 0 || x->one_task ? bi : counts_tblock(x, task, (size_t)bi);
	struct hbbp_block *b;
	struct hbbp_tblock *t;

	if (ti < 0)
		return (int)ti;
	b = &c->blocks[bi];
	if (x->tasks_only) {
		/* the block's sums are made */
	} else if (lbr) {
		b->lbr_sum += w;
		b->lbr_sum_plain += wp;
		b->lbr_streams += n;
		hbbp_bsum__axpy(&c->block_bs[bi].lbr, scale, bs);
		if (cv)
			hbbp_cycles__spread(&b->cyc, &c->block_bs[bi].cyc, cv, frac, scale);
	} else {
		b->ebs_sum += w;
		b->ebs_samples += n;
		hbbp_bsum__axpy(&c->block_bs[bi].ebs, scale, bs);
	}
	if (x->one_task)
		return 0;
	t = &x->tb[ti];
	if (lbr) {
		t->lbr_sum += w;
		t->lbr_sum_plain += wp;
		t->lbr_streams += n;
		hbbp_bsum__axpy(&x->tb_bs[ti].lbr, scale, bs);
		if (cv)
			hbbp_cycles__spread(&t->cyc, &x->tb_bs[ti].cyc, cv, frac, scale);
	} else {
		t->ebs_sum += w;
		t->ebs_samples += n;
		hbbp_bsum__axpy(&x->tb_bs[ti].ebs, scale, bs);
	}
	return 0;
}

static int counts_add(struct counts_ctx *x, uint64_t task, long bi, bool lbr, double w, double wp,
		      uint64_t n, const struct hbbp_bsum *bs, double scale)
{
	return counts_add_cycles(x, task, bi, lbr, w, wp, n, bs, scale, NULL, 0);
}

/* The unresolved accounting of dso in the counts, made on first use; NULL when out of memory. */
static struct hbbp_unresolved *counts_unres(struct counts_ctx *x, struct bbmap_dso *dso)
{
	uint64_t key = (uintptr_t)dso;
	struct hbbp_unresolved *u = hmap__get(&x->c->unres, &key, NULL);

	if (u)
		u->dso = dso;
	return u;
}

/* method.md §4: one EBS accumulator entry (task, dso, vaddr, event) -> its block, or its pseudo
 * block: a dso without code (by symbol), off decoded code (by symbol), no map. */
static int counts_ebs(struct counts_ctx *x, const uint64_t *key, const void *val)
{
	const struct hbbp_ebs_val *v = val;
	struct bbmap_dso *dso = (struct bbmap_dso *)(uintptr_t)key[1];
	double scale = x->a->ev[key[3]].scale, w = v->period * scale;
	struct bbmap_module *mod = ctx_module(x, dso);
	struct walk_step st = { 0 };
	enum hbbp_block_kind kind = HBBP_BLK_CODE;
	const struct bbmap_block *blk;
	struct hbbp_unresolved *u = NULL;
	long bi;

	if (!dso) {
		kind = HBBP_BLK_UNMAPPED;
	} else if (!mod) {
		kind = HBBP_BLK_NOCODE;
		st.symname = x->code->dso_symbol ?
			     x->code->dso_symbol(x->code->ctx, dso, key[2], &st.start) : NULL;
		st.start = st.end = st.sym_start = st.symname ? st.start : 0;
	} else if (x->code->block(x->code->ctx, mod, key[2], &blk)) {
		const struct bbmap_symbol *sym = x->code->symbol ?
			x->code->symbol(x->code->ctx, mod, key[2]) : NULL;

		kind = HBBP_BLK_UNDECODED;
		st.start = st.end = st.sym_start = sym ? sym->start : 0;
		st.symname = sym ? sym->name : NULL;
		st.sym_size = sym ? sym->size : 0;
	} else {
		step_of_block(blk, &st);
		x->c->ebs_weight_attributed += w;
	}
	if (kind == HBBP_BLK_NOCODE || kind == HBBP_BLK_UNDECODED) {
		u = counts_unres(x, dso);
		if (!u)
			return -ENOMEM;
		u->ebs_samples += v->n;
		u->ebs_weight += w;
	}
	bi = counts_block(x, kind, dso, kind == HBBP_BLK_CODE ? mod : NULL, &st);
	if (bi >= 0 && kind == HBBP_BLK_CODE)
		x->c->blocks[bi].may_be_bad = st.may_be_bad;
	if (bi >= 0 && x->c->by_process) {	/* for hbbp_counts__each_process */
		if (bi > (long)UINT32_MAX)
			return -ERANGE;
		if (grow_one((void **)&x->ebs_block, &x->alloc_ebs_block, sizeof(*x->ebs_block),
			     x->nr_ebs_block))
			return -ENOMEM;
		x->ebs_block[x->nr_ebs_block++] = (uint32_t)bi;
	}
	return counts_add(x, key[0], bi, false, w, 0, v->n, &v->bs, scale);
}

/* A stream (n of them, weight w scaled, raw unscaled) rejected by the attribution. */
static int counts_reject(struct counts_ctx *x, enum hbbp_reject why, double w,
			 struct bbmap_dso *dso, uint64_t n, double raw)
{
	struct hbbp_unresolved *u = counts_unres(x, dso);

	if (!u)
		return -ENOMEM;
	u->lbr_rejected += raw;	/* unscaled, like lbr_total */
	x->c->rejected[why] += n;
	x->c->rejected_weight[why] += w;
	/* Weight in code we cannot see is also reported as unresolved, by dso. */
	if (why == REJ_NO_CODE || why == REJ_WALK_UNDECODED) {
		u->lbr_streams += n;
		u->lbr_weight += w;
	}
	return 0;
}

/* method.md §5: the blocks of a stream, from the one starting at its target `to` through the
 * one holding its source `from`, into x->path (*nr of them). REJ__COUNT, why the stream is
 * rejected (a block ending in a jump, call or return before from; code not decoded; too many
 * blocks), or -ENOMEM. */
static int walk(struct counts_ctx *x, struct bbmap_module *mod, uint64_t to, uint64_t from,
		size_t *nr)
{
	const struct bbmap_block *blk;
	uint64_t cur = to;

	for (*nr = 0;; cur = blk->end) {
		if (*nr >= HBBP_MAX_WALK_BLOCKS)
			return REJ_WALK_BOUND;
		if (x->code->block(x->code->ctx, mod, cur, &blk) || blk->end <= cur)
			return REJ_WALK_UNDECODED;
		if (grow_one((void **)&x->path, &x->alloc_path, sizeof(*x->path), *nr))
			return -ENOMEM;
		step_of_block(blk, &x->path[(*nr)++]);
		if (from >= blk->start && from < blk->end)
			return REJ__COUNT;
		if ((blk->end_flags & BBMAP_INSN_BRANCH) && !(blk->end_flags & BBMAP_INSN_COND)) {
			pr_debug("stream 0x%" PRIx64 "..0x%" PRIx64 ": a jump before 0x%" PRIx64, to,
				 from, blk->end);
			return REJ_WALK_JUMP;
		}
	}
}

/* The weight of stream (key, v), scaled, to each of the nr blocks of its walk (x->path). 0 or
 * -ENOMEM. */
static int stream_blocks(struct counts_ctx *x, const uint64_t *key,
			 const struct hbbp_stream_val *v, struct bbmap_module *mod, size_t nr,
			 double scale)
{
	struct bbmap_dso *dso = (struct bbmap_dso *)(uintptr_t)key[1];
	double w = v->weight * scale, len = 0;
	size_t i;
	int r = 0;

	for (i = 0; i < nr; i++)
		len += x->path[i].nr_insns;
	if (x->c->by_process &&
	    grow_array((void **)&x->walk_block, &x->alloc_walk_block, sizeof(*x->walk_block),
		       x->nr_walk_block + nr, (size_t)-1))
		return -ENOMEM;
	for (i = 0; i < nr && !r; i++) {
		long bi = counts_block(x, HBBP_BLK_CODE, dso, mod, &x->path[i]);

		if (bi >= 0)
			x->c->blocks[bi].may_be_bad = x->path[i].may_be_bad;
		if (bi > (long)UINT32_MAX && x->c->by_process)
			return -ERANGE;
		if (bi >= 0 && x->c->by_process)
			x->walk_block[x->nr_walk_block++] = (uint32_t)bi;
		r = counts_add_cycles(x, key[0], bi, true, w, v->weight_plain * scale, v->n,
				      &v->bs, scale, len > 0 ? &v->cyc : NULL,
				      x->path[i].nr_insns / len);
	}
	x->c->lbr_weight_attributed += w;
	return r;
}

/* method.md §5: one stream (task, dso, to, from, event): its weight, scaled, to every block
 * of its walk. */
static int counts_stream(struct counts_ctx *x, const uint64_t *key, const void *val)
{
	const struct hbbp_stream_val *v = val;
	struct bbmap_dso *dso = (struct bbmap_dso *)(uintptr_t)key[1];
	double scale = x->a->ev[key[4]].scale, w = v->weight * scale;
	struct bbmap_module *mod = ctx_module(x, dso);
	size_t nr;
	int r = mod ? walk(x, mod, key[2], key[3], &nr) : REJ_NO_CODE;

	if (r < 0)
		return r;
	if (r != REJ__COUNT)
		r = counts_reject(x, r, w, dso, v->n, v->weight);
	else
		r = stream_blocks(x, key, v, mod, nr, scale);
	if (r < 0 || !x->c->by_process)
		return r;
	/* the stream's blocks (none: rejected) kept for hbbp_counts__each_process */
	if (grow_one((void **)&x->walk_end, &x->alloc_walk_end, sizeof(*x->walk_end), x->nr_walked))
		return -ENOMEM;
	x->walk_end[x->nr_walked++] = x->nr_walk_block;
	return 0;
}

/* The bias share and flag to the code block with counts holding vaddr (containing) or starting
 * at it. */
static void bias_mark(struct counts_ctx *x, uint64_t dso, uint64_t vaddr, bool containing,
		      double share, bool biased)
{
	struct bbmap_module *mod = ctx_module(x, (struct bbmap_dso *)(uintptr_t)dso);
	const struct bbmap_block *blk;
	uint64_t key[3] = { dso, vaddr, HBBP_BLK_CODE };
	const uint64_t *slot;
	struct hbbp_block *b;

	if (!mod || (containing && x->code->block(x->code->ctx, mod, vaddr, &blk)))
		return;
	if (containing)
		key[1] = blk->start;
	slot = hmap__find(&x->bidx, key);
	if (!slot)
		return;
	b = &x->c->blocks[*slot - 1];
	if (share > b->bias_share)
		b->bias_share = share;
	if (biased)
		b->biased = true;
}

/* Bias (method.md §5): per branch source, its shares of the oldest and of the newest slot
 * against the share chance gives it; the block holding the source and those starting at its
 * targets get the flag and the share. */
static int counts_bias(struct counts_ctx *x)
{
	const struct hbbp_accum *a = x->a;
	struct hmap per_from;	/* (dso, from) -> its sums over its targets; expected: share */
	const struct hbbp_bias_val *e;
	struct hbbp_bias_val *v;
	const uint64_t *key;
	size_t i;

	hmap__init(&per_from, 2, sizeof(struct hbbp_bias_val));
	hmap__for_each(&a->bias, i, key, e) {
		if (!key[0])
			continue;	/* a branch from unmapped code: a leader only */
		v = hmap__get(&per_from, key, NULL);
		if (!v) {
			hmap__exit(&per_from);
			return -ENOMEM;
		}
		v->oldest += e->oldest;
		v->newest += e->newest;
		v->all += e->all;
		v->expected += e->expected;
	}
	hmap__for_each(&per_from, i, key, v) {
		double so = (double)v->oldest / (double)v->all;
		double sn = (double)v->newest / (double)v->all;
		double chance = v->expected / (double)v->all;

		v->expected = so > sn ? so : sn;
		v->target = v->all >= HBBP_BIAS_MIN_OCC && v->expected > HBBP_BIAS_FACTOR * chance;
		x->c->nr_biased_branches += v->target;
		/* an unflagged share rounded as through -share - 1 and back, as the outputs have
		 * always shown it (1 ulp of 1 at most) */
		if (!v->target)
			v->expected = -((-v->expected - 1.0) + 1.0);
	}
	hmap__for_each(&a->bias, i, key, e) {
		v = key[0] ? hmap__find(&per_from, key) : NULL;
		if (!v)
			continue;
		bias_mark(x, key[0], key[1], true, v->expected, v->target);
		if (key[2])
			bias_mark(x, key[2], key[3], false, v->expected, v->target);
	}
	hmap__exit(&per_from);
	return 0;
}

const char *hbbp_source_name(enum hbbp_source s)
{
	switch (s) {
	case HBBP_SRC_NONE: return "";
	case HBBP_SRC_LBR: return "lbr";
	case HBBP_SRC_EBS: return "ebs";
	case HBBP_SRC_LBR_FALLBACK: return "lbr-fallback";
	case HBBP_SRC_EBS_FALLBACK: return "ebs-fallback";
	}
	return "";
}

/* method.md §6: LBR if length <= cutoff, else EBS; where the chosen source has no data but
 * the other has, the other (marked as a fallback, decision). LBR-only and EBS-only modes
 * take their source alone. */
enum hbbp_source hbbp_rule__choose(enum hbbp_method method, unsigned cutoff, uint32_t nr_insns,
				   bool has_ebs, bool has_lbr)
{
	switch (method) {
	case HBBP_METHOD_EBS:
		return has_ebs ? HBBP_SRC_EBS : HBBP_SRC_NONE;
	case HBBP_METHOD_LBR:
		return has_lbr ? HBBP_SRC_LBR : HBBP_SRC_NONE;
	case HBBP_METHOD_HBBP:
		break;
	}
	if (nr_insns <= cutoff)
		return has_lbr ? HBBP_SRC_LBR : has_ebs ? HBBP_SRC_EBS_FALLBACK : HBBP_SRC_NONE;
	return has_ebs ? HBBP_SRC_EBS : has_lbr ? HBBP_SRC_LBR_FALLBACK : HBBP_SRC_NONE;
}

/* method.md §4 (EBS: sum of periods / length), §5 (LBR: sum of stream weights), §6. */
void hbbp_block__choose(struct hbbp_block *b, enum hbbp_method method, unsigned cutoff)
{
	bool has_e = b->ebs_samples > 0, has_l = b->lbr_streams > 0;

	if (b->kind != HBBP_BLK_CODE) {
		/* Pseudo blocks: EBS periods are instructions; LBR cannot count them. */
		b->ebs_est = b->ebs_sum;
		b->lbr_est = 0;
		b->source = method != HBBP_METHOD_LBR && has_e ? HBBP_SRC_EBS : HBBP_SRC_NONE;
	} else {
		b->ebs_est = b->nr_insns ? b->ebs_sum / b->nr_insns : 0;
		b->lbr_est = b->lbr_sum;
		b->source = hbbp_rule__choose(method, cutoff, b->nr_insns, has_e, has_l);
	}
	b->count = hbbp_source_is_lbr(b->source) ? b->lbr_est :
		   hbbp_source_is_ebs(b->source) ? b->ebs_est : 0;
}

bool hbbp_block__uses_lbr(const struct hbbp_block *b)
{
	return b->kind == HBBP_BLK_CODE && hbbp_source_is_lbr(b->source);
}

/* The count of block b per batch, from its (or a task's share of its) per-batch sums, with the
 * source chosen for b: what hbbp_block__choose computes, batch by batch. */
static void block_count_bs(const struct hbbp_block *b, const struct hbbp_batch_sums *s,
			   struct hbbp_bsum *out)
{
	memset(out, 0, sizeof(*out));
	if (hbbp_block__uses_lbr(b))
		hbbp_bsum__axpy(out, 1.0, &s->lbr);
	else if (hbbp_source_is_ebs(b->source) && b->kind != HBBP_BLK_CODE)
		hbbp_bsum__axpy(out, 1.0, &s->ebs);
	else if (hbbp_source_is_ebs(b->source) && b->nr_insns)
		hbbp_bsum__axpy(out, 1.0 / b->nr_insns, &s->ebs);
}

void hbbp_counts__batch_estimates(const struct hbbp_counts *c, const struct hbbp_bsum *e,
				  const struct hbbp_bsum *l, double *x)
{
	unsigned int i;

	for (i = 0; i < HBBP_BATCHES; i++) {
		x[i] = 0;
		if (e)
			x[i] += e->b[i] * (c->ratio ? c->ebs_ratio.b[i] : HBBP_BATCHES);
		if (l)
			x[i] += l->b[i] * (c->ratio ? c->lbr_ratio.b[i] : HBBP_BATCHES);
	}
}

/* The interval (method.md §10) of a count from its count per batch bs under block b's source. */
static void count_interval(const struct hbbp_counts *c, const struct hbbp_block *b, double count,
			   const struct hbbp_bsum *bs, double *lo, double *hi)
{
	bool lbr = hbbp_block__uses_lbr(b);
	double bx[HBBP_BATCHES];

	hbbp_counts__batch_estimates(c, lbr ? NULL : bs, lbr ? bs : NULL, bx);
	hbbp_interval__estimates(count, bx, HBBP_BATCHES, lo, hi);
	hbbp_interval__widen(count, c->widen, lo, hi);
}

/* The ratio factors of each role (see struct hbbp_counts): its events' used periods per batch,
 * scaled for multiplexing as the estimates are. */
static void counts_ratio(struct hbbp_counts *c, const struct hbbp_accum *a)
{
	struct hbbp_bsum we, wl;
	size_t i;

	memset(&we, 0, sizeof(we));
	memset(&wl, 0, sizeof(wl));
	c->widen = 0;
	for (i = 0; i < a->nr_events; i++) {
		if (a->ev[i].role == HBBP_ROLE_EBS)
			hbbp_bsum__axpy(&we, a->ev[i].scale, &a->ev[i].bs);
		else if (a->ev[i].role == HBBP_ROLE_LBR)
			hbbp_bsum__axpy(&wl, a->ev[i].scale, &a->ev[i].bs);
		else
			continue;
		if (a->ev[i].throttle_spread > c->widen)
			c->widen = a->ev[i].throttle_spread;
	}
	hbbp_interval__ratio(&we, &c->ebs_ratio);
	hbbp_interval__ratio(&wl, &c->lbr_ratio);
	c->ratio = true;
}

/* A task's share t of a block under the block's source (chosen), from its sums s. */
static void tblock_choose(const struct hbbp_counts *c, struct hbbp_tblock *t,
			  const struct hbbp_batch_sums *s)
{
	const struct hbbp_block *b = &c->blocks[t->block];
	bool lbr = hbbp_source_is_lbr(b->source), ebs = hbbp_source_is_ebs(b->source);

	t->ebs_est = b->kind != HBBP_BLK_CODE ? t->ebs_sum :
		     b->nr_insns ? t->ebs_sum / b->nr_insns : 0;
	t->lbr_est = b->kind == HBBP_BLK_CODE ? t->lbr_sum : 0;
	t->count = lbr ? t->lbr_est : ebs ? t->ebs_est : 0;
	block_count_bs(b, s, &t->count_bs);
	count_interval(c, b, t->count, &t->count_bs, &t->count_lo, &t->count_hi);
	hbbp_cycles__finish(&t->cyc, t->count, &s->cyc, &t->cycles_bs);
}

/* method.md §6 and §10: each block's source, estimates, count and interval, then each task's
 * share of it under the block's source. 0 or -ENOMEM. */
static int counts_choose(struct hbbp_counts *c, const struct hbbp_accum *a)
{
	struct counts_ctx *x = c->make;
	struct hbbp_bsum bs;
	size_t i;

	counts_ratio(c, a);
	if (!x->one_task) {	/* the task blocks made are the counts' */
		c->tblocks = x->tb;
		c->tblock_bs = x->tb_bs;
		c->nr_tblocks = x->nr_tb;
		c->alloc_tblocks = x->alloc_tb;
		x->tb = NULL;
		x->tb_bs = NULL;
		x->nr_tb = x->alloc_tb = x->alloc_tb_bs = 0;
	}
	c->block_count_bs = malloc((c->nr_blocks + 1) * sizeof(*c->block_count_bs));
	c->block_cycles_bs = c->tblocks ? NULL :
			     malloc((c->nr_blocks + 1) * sizeof(*c->block_cycles_bs));
	if (!c->block_count_bs || (!c->tblocks && !c->block_cycles_bs))
		return -ENOMEM;
	if (!c->tblocks)
		c->nr_tblocks = c->nr_blocks;
	for (i = 0; i < c->nr_blocks; i++) {
		struct hbbp_block *b = &c->blocks[i];

		hbbp_block__choose(b, c->method, c->cutoff);
		block_count_bs(b, &c->block_bs[i], &bs);
		count_interval(c, b, b->count, &bs, &b->count_lo, &b->count_hi);
		c->block_count_bs[i] = bs;
		hbbp_cycles__finish(&b->cyc, b->count, &c->block_bs[i].cyc, &bs);
		if (!c->tblocks)
			c->block_cycles_bs[i] = bs;
		c->has_cycles |= b->cyc.w > 0;
	}
	for (i = 0; c->tblocks && i < c->nr_tblocks; i++)
		tblock_choose(c, &c->tblocks[i], &c->tblock_bs[i]);
	return 0;
}

const struct hbbp_tblock *hbbp_counts__tblock(const struct hbbp_counts *c, size_t i,
					      struct hbbp_tblock *tmp)
{
	const struct hbbp_block *b = &c->blocks[i];

	if (c->tblocks)
		return &c->tblocks[i];
	*tmp = (struct hbbp_tblock){
		.pid = (uint32_t)(c->task >> 32), .tid = (uint32_t)c->task, .block = i,
		.ebs_sum = b->ebs_sum, .lbr_sum = b->lbr_sum, .ebs_samples = b->ebs_samples,
		.lbr_streams = b->lbr_streams, .ebs_est = b->ebs_est, .lbr_est = b->lbr_est,
		.count = b->count, .lbr_sum_plain = b->lbr_sum_plain, .count_lo = b->count_lo,
		.count_hi = b->count_hi, .count_bs = c->block_count_bs[i], .cyc = b->cyc,
		.cycles_bs = c->block_cycles_bs[i],
	};
	return tmp;
}

/* Deterministic order over an accumulator's entries: keys compared word by word, the dso
 * pointer (key word dso_word) replaced by the dso's rank by name, so that sums of doubles
 * are added in the same order on every run (map order follows the inserts, which follow
 * how the records were read). */
static int dso_name_cmp(const void *pa, const void *pb, void *arg)
{
	const struct hbbp_code *code = arg;
	struct bbmap_dso *a = *(struct bbmap_dso *const *)pa, *b = *(struct bbmap_dso *const *)pb;
	const char *na = a ? code->dso_name(code->ctx, a) : "";
	const char *nb = b ? code->dso_name(code->ctx, b) : "";
	int r = strcmp(na ? na : "", nb ? nb : "");

	if (r)
		return r;
	return (uintptr_t)a < (uintptr_t)b ? -1 : (uintptr_t)a > (uintptr_t)b;
}

/* The entry indices of h in key order (*nr of them); NULL when out of memory. */
static size_t *sorted_slots(const struct hmap *h, size_t dso_word, const struct hbbp_code *code,
			    size_t *nr)
{
	size_t n = h->nr, kw = h->key_words, i, j, nd = 0, alloc_dsos = 0;
	size_t *idx = malloc((n + 1) * sizeof(*idx));
	uint64_t *recs = malloc((n * kw + 1) * sizeof(*recs));
	struct bbmap_dso **dsos = NULL;
	struct hmap rank;		/* dso -> its rank by name */

	hmap__init(&rank, 1, sizeof(uint64_t));
	for (i = 0; idx && recs && i < n; i++) {
		int ins;

		if (!hmap__get(&rank, &hmap__key_at(h, i)[dso_word], &ins) ||
		    (ins && grow_one((void **)&dsos, &alloc_dsos, sizeof(*dsos), nd)))
			goto fail;
		if (ins)
			dsos[nd++] = (struct bbmap_dso *)(uintptr_t)hmap__key_at(h, i)[dso_word];
	}
	if (!idx || !recs)
		goto fail;
	if (nd)
		qsort_r(dsos, nd, sizeof(*dsos), dso_name_cmp, (void *)code);
	for (i = 0; i < nd; i++) {
		uint64_t key = (uintptr_t)dsos[i];

		*(uint64_t *)hmap__find(&rank, &key) = i;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < kw; j++)
			recs[i * kw + j] = j == dso_word ?
				*(const uint64_t *)hmap__find(&rank, &hmap__key_at(h, i)[j]) :
				hmap__key_at(h, i)[j];
	if (radix_sort_words(recs, kw, kw, n, idx))
		goto fail;
	*nr = n;
	goto out;
fail:
	free(idx);
	idx = NULL;
out:
	free(recs);
	free(dsos);
	hmap__exit(&rank);
	return idx;
}

/* Each entry of h in key order through fn; by_process, the order is kept as x->order[which]
 * for hbbp_counts__each_process. */
static int counts_each(struct counts_ctx *x, const struct hmap *h, int which,
		       int (*fn)(struct counts_ctx *x, const uint64_t *key, const void *val))
{
	size_t i, n = 0, *order = sorted_slots(h, 1, x->code, &n);
	int err = order ? 0 : -ENOMEM;

	for (i = 0; i < n && !err; i++)
		err = fn(x, hmap__key_at(h, order[i]), hmap__val_at(h, order[i]));
	if (x->c->by_process && !err) {
		x->order[which] = order;
		x->nr_order[which] = n;
	} else {
		free(order);
	}
	return err;
}

/* method.md §3: every branch target of the LBR data starts a block, before any block is looked
 * at: gathered per module in the order first seen, then added to the code. */
static int counts_leaders(struct counts_ctx *x)
{
	const struct hbbp_bias_val *v;
	struct hbbp_leaders leaders;
	struct hmap targets;	/* (dso, to) of the branches: each leader once */
	const uint64_t *key;
	size_t i;
	int err = 0;

	hbbp_leaders__init(&leaders);
	hmap__init(&targets, 2, 0);
	hmap__for_each(&x->a->bias, i, key, v) {
		uint64_t tk[2] = { key[2], key[3] };
		struct bbmap_module *mod;
		int fresh;

		if (!v->target)
			continue;
		if (!hmap__get(&targets, tk, &fresh)) {
			err = -ENOMEM;
			break;
		}
		mod = fresh ? ctx_module(x, (struct bbmap_dso *)(uintptr_t)tk[0]) : NULL;
		if (mod)
			err = hbbp_leaders__add(&leaders, mod, tk[1]);
		if (err)
			break;
	}
	hmap__exit(&targets);
	if (!err)
		err = x->code->add_leaders(x->code->ctx, &leaders);
	hbbp_leaders__exit(&leaders);
	return err;
}

/* Whether every sum of a is of one task (then *task). */
static bool one_task(const struct hbbp_accum *a, uint64_t *task)
{
	const struct hmap *h[2] = { &a->ebs, &a->streams };
	size_t i, k;

	*task = a->ebs.nr ? hmap__key_at(&a->ebs, 0)[0] :
		a->streams.nr ? hmap__key_at(&a->streams, 0)[0] : 0;
	for (k = 0; k < 2; k++)
		for (i = 0; i < h[k]->nr; i++)
			if (hmap__key_at(h[k], i)[0] != *task)
				return false;
	return true;
}

/* The shared state of c's steps, with a as the accumulator of this step. */
static struct counts_ctx *ctx_of(struct hbbp_counts *c, const struct hbbp_accum *a)
{
	c->make->a = a;
	c->make->code = a->code;
	return c->make;
}

int hbbp_counts__begin(struct hbbp_counts *c, const struct hbbp_accum *a,
		       enum hbbp_method method, unsigned cutoff, bool by_process)
{
	memset(c, 0, sizeof(*c));
	c->method = method;
	c->cutoff = cutoff;
	c->by_process = by_process;
	hmap__init(&c->unres, 1, sizeof(struct hbbp_unresolved));
	c->make = calloc(1, sizeof(*c->make));
	if (!c->make)
		return -ENOMEM;
	c->make->c = c;
	hmap__init(&c->make->bidx, 3, sizeof(uint64_t));
	hmap__init(&c->make->tidx, 2, sizeof(uint64_t));
	c->make->one_task = one_task(a, &c->task) || by_process;
	return counts_leaders(ctx_of(c, a));
}

int hbbp_counts__ebs(struct hbbp_counts *c, const struct hbbp_accum *a)
{
	return counts_each(ctx_of(c, a), &a->ebs, 0, counts_ebs);
}

int hbbp_counts__streams(struct hbbp_counts *c, const struct hbbp_accum *a)
{
	return counts_each(ctx_of(c, a), &a->streams, 1, counts_stream);
}

int hbbp_counts__bias(struct hbbp_counts *c, const struct hbbp_accum *a)
{
	return counts_bias(ctx_of(c, a));
}

/* The indexes of the steps go. */
static void counts_made(struct hbbp_counts *c)
{
	if (!c->make)
		return;
	hmap__exit(&c->make->bidx);
	hmap__exit(&c->make->tidx);
	free(c->make->path);
	free(c->make->tb);
	free(c->make->tb_bs);
	free(c->make->order[0]);
	free(c->make->order[1]);
	free(c->make->ebs_block);
	free(c->make->walk_block);
	free(c->make->walk_end);
	free(c->make);
	c->make = NULL;
}

int hbbp_counts__end(struct hbbp_counts *c, const struct hbbp_accum *a)
{
	int err = counts_choose(c, a);

	if (!c->by_process)	/* else hbbp_counts__each_process reads them */
		counts_made(c);
	/* the blocks are all made: they live on, without room to grow */
	grow_fit((void **)&c->blocks, &c->alloc_blocks, sizeof(*c->blocks), c->nr_blocks);
	return err;
}

/* The process (pid) of entry i of x's order which in a's map of that order. */
static uint32_t order_pid(const struct counts_ctx *x, const struct hbbp_accum *a, int which,
			  size_t i)
{
	const struct hmap *h = which ? &a->streams : &a->ebs;

	return (uint32_t)(hmap__key_at(h, x->order[which][i])[0] >> 32);
}

/* EBS sum i of x->order[0] to its task's share of its block (as counts_ebs adds it). */
static int task_ebs(struct counts_ctx *x, size_t i)
{
	const uint64_t *key = hmap__key_at(&x->a->ebs, x->order[0][i]);
	const struct hbbp_ebs_val *v = hmap__val_at(&x->a->ebs, x->order[0][i]);
	double scale = x->a->ev[key[3]].scale;

	return counts_add(x, key[0], x->ebs_block[i], false, v->period * scale, 0, v->n, &v->bs,
			  scale);
}

/* Stream j of x->order[1] to its task's share of each block of its walk (as counts_stream). */
static int task_stream(struct counts_ctx *x, size_t j)
{
	const uint64_t *key = hmap__key_at(&x->a->streams, x->order[1][j]);
	const struct hbbp_stream_val *v = hmap__val_at(&x->a->streams, x->order[1][j]);
	double scale = x->a->ev[key[4]].scale, w = v->weight * scale, len = 0;
	size_t k, first = j ? x->walk_end[j - 1] : 0;
	int err = 0;

	for (k = first; k < x->walk_end[j]; k++)
		len += x->c->blocks[x->walk_block[k]].nr_insns;
	for (k = first; k < x->walk_end[j] && !err; k++)
		err = counts_add_cycles(x, key[0], x->walk_block[k], true, w,
					v->weight_plain * scale, v->n, &v->bs, scale,
					len > 0 ? &v->cyc : NULL,
					x->c->blocks[x->walk_block[k]].nr_insns / len);
	return err;
}

int hbbp_counts__each_process(const struct hbbp_counts *c, const struct hbbp_accum *a,
			      int (*fn)(void *ctx, size_t first, const struct hbbp_tblock *t,
					const struct hbbp_batch_sums *bs, size_t n),
			      void *ctx)
{
	struct counts_ctx *x = c->make;
	size_t i = 0, j = 0, first = 0, k;
	int err = 0;

	if (!x || !c->by_process || x->handed || x->nr_ebs_block != x->nr_order[0] ||
	    x->nr_walked != x->nr_order[1])
		return -EINVAL;
	x->a = a;
	x->code = a->code;
	x->tasks_only = true;
	x->one_task = false;
	while (!err && (i < x->nr_order[0] || j < x->nr_order[1])) {
		uint32_t pid = i < x->nr_order[0] ? order_pid(x, a, 0, i) : UINT32_MAX;

		if (j < x->nr_order[1] && order_pid(x, a, 1, j) < pid)
			pid = order_pid(x, a, 1, j);
		/* the process's task blocks in the order the whole run would make them: its
		 * EBS sums, then its streams */
		hmap__clear(&x->tidx);
		x->nr_tb = 0;
		for (; !err && i < x->nr_order[0] && order_pid(x, a, 0, i) == pid; i++)
			err = task_ebs(x, i);
		for (; !err && j < x->nr_order[1] && order_pid(x, a, 1, j) == pid; j++)
			err = task_stream(x, j);
		for (k = 0; !err && k < x->nr_tb; k++)
			tblock_choose(c, &x->tb[k], &x->tb_bs[k]);
		err = err ? err : fn(ctx, first, x->tb, x->tb_bs, x->nr_tb);
		first += x->nr_tb;
	}
	x->tasks_only = false;
	x->one_task = true;
	if (c->by_process_again)
		return err;
	/* what only this needed goes */
	x->handed = true;
	for (k = 0; k < 2; k++) {
		free(x->order[k]);
		x->order[k] = NULL;
	}
	free(x->ebs_block);
	free(x->walk_block);
	free(x->walk_end);
	free(x->tb);
	free(x->tb_bs);
	x->ebs_block = x->walk_block = NULL;
	x->walk_end = NULL;
	x->tb = NULL;
	x->tb_bs = NULL;
	return err;
}

int hbbp_counts__compute(struct hbbp_counts *c, const struct hbbp_accum *a,
			 enum hbbp_method method, unsigned cutoff)
{
	int err = hbbp_counts__begin(c, a, method, cutoff, false);

	err = err ? err : hbbp_counts__ebs(c, a);
	err = err ? err : hbbp_counts__streams(c, a);
	err = err ? err : hbbp_counts__bias(c, a);
	return err ? err : hbbp_counts__end(c, a);
}

int hbbp_accum__add_counts(struct hbbp_accum *a, const struct hbbp_counts *c)
{
	const struct hbbp_unresolved *v;
	const uint64_t *key;
	size_t i;

	for (i = 0; i < REJ__COUNT; i++) {
		a->rejected[i] += c->rejected[i];
		a->rejected_weight[i] += c->rejected_weight[i];
	}
	hmap__for_each(&c->unres, i, key, v) {
		struct hbbp_unresolved *u = hmap__get(&a->unres, key, NULL);

		if (!u)
			return -ENOMEM;
		u->dso = v->dso;
		u->ebs_samples += v->ebs_samples;
		u->ebs_weight += v->ebs_weight;
		u->lbr_streams += v->lbr_streams;
		u->lbr_weight += v->lbr_weight;
		u->lbr_rejected += v->lbr_rejected;
	}
	return 0;
}

void hbbp_counts__drop_batch_sums(struct hbbp_counts *c)
{
	free(c->block_bs);
	free(c->tblock_bs);
	c->block_bs = c->tblock_bs = NULL;
}

void hbbp_counts__exit(struct hbbp_counts *c)
{
	if (!c)
		return;
	hbbp_counts__drop_batch_sums(c);
	free(c->blocks);
	free(c->tblocks);
	free(c->block_count_bs);
	free(c->block_cycles_bs);
	hmap__exit(&c->unres);
	counts_made(c);
	memset(c, 0, sizeof(*c));
}
