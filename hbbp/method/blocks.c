/* Attribution of the accumulated samples to basic blocks (method.md §3-§7): stream targets
 * become block leaders, EBS periods land in the block containing their IP, each stream walks
 * the blocks from the one starting at its target through the one containing its source, the
 * multiplexing scale of each event is applied, branches seen in the oldest/newest stack slot
 * far more often than chance flag their blocks as biased, and the hybrid rule picks one
 * estimate per block. Weight that cannot be attributed is kept as pseudo blocks (EBS) or
 * counted as rejected (LBR), never dropped silently. Every sum is also kept per batch of the
 * samples, and the chosen source of each block (decided on all the samples) gives its count
 * in every batch: the spread over the batches is the count's 95% interval (method.md §10).
 * Depends on hbbp/method/method.h and hbbp/method/interval.h; reaches code only through
 * struct hbbp_code_ops.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/method/leaders.h"
#include "hbbp/method/method.h"
#include "util/hbbp_err.h"
#include "util/grow.h"
#include "util/radix.h"

struct mod_cache_val {
	struct bbmap_module *mod;
	uint64_t status;
};

struct walk_step {
	uint64_t start, end;
	uint32_t nr_insns;
	uint16_t end_flags;
	bool may_be_bad;
	long bi;			/* its block in the counts, or -1 before it is made */
	const char *symname;
	uint64_t sym_start, sym_size;
};

struct counts_ctx {
	struct hbbp_counts *c;
	struct hbbp_accum *a;
	const struct hbbp_code_ops *ops;
	struct hmap mods;		/* dso -> module */
	/* the blocks the last stream walked: the streams come sorted by target, and a walk
	 * from the same target goes through the same blocks as far as both go */
	struct walk_step *path;
	size_t alloc_path;
	struct bbmap_dso *path_dso;
	uint64_t path_to;
	size_t path_len;		/* steps of path valid for (path_dso, path_to) */
};

static struct bbmap_module *ctx_module(struct counts_ctx *x, struct bbmap_dso *dso)
{
	uint64_t key = (uintptr_t)dso;
	struct mod_cache_val *v;
	int ins;

	if (!dso)
		return NULL;
	v = hmap__get(&x->mods, &key, &ins);
	if (!v)
		return NULL;
	if (ins) {
		struct bbmap_module *m = NULL;
		enum bbmap_dso_status st = x->ops->dso_module(x->ops->ctx, dso, &m);

		v->status = st;
		v->mod = st == DSO_OK ? m : NULL;
	}
	return v->mod;
}

static long counts_block(struct hbbp_counts *c, enum hbbp_block_kind kind,
			 struct bbmap_dso *dso, struct bbmap_module *mod, uint64_t start,
			 uint64_t end, uint32_t nr_insns, const char *symname, uint64_t sym_start,
			 uint64_t sym_size)
{
	uint64_t key[3] = { (uintptr_t)dso, start, (uint64_t)kind };
	uint64_t *slot;
	struct hbbp_block *b;

	if (c->nr_blocks && c->last_key[0] == key[0] && c->last_key[1] == key[1] &&
	    c->last_key[2] == key[2])
		return c->last_bi;	/* the block of the sample or step before */
	slot = hmap__get(&c->bidx, key, NULL);
	if (!slot)
		return -ENOMEM;
	if (*slot) {
		memcpy(c->last_key, key, sizeof(key));
		return c->last_bi = (long)(*slot - 1);
	}
	if (grow_one((void **)&c->blocks, &c->alloc_blocks, sizeof(*c->blocks), c->nr_blocks) ||
	    grow_one((void **)&c->block_bs, &c->alloc_block_bs, sizeof(*c->block_bs),
		     c->nr_blocks))
		return -ENOMEM;
	memset(&c->block_bs[c->nr_blocks], 0, sizeof(*c->block_bs));
	b = &c->blocks[c->nr_blocks];
	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->dso = dso;
	b->mod = mod;
	b->start = start;
	b->end = end;
	b->nr_insns = nr_insns;
	b->symname = symname;
	b->sym_start = sym_start;
	b->sym_size = sym_size;
	b->source = HBBP_SRC_NONE;
	*slot = ++c->nr_blocks;
	memcpy(c->last_key, key, sizeof(key));
	return c->last_bi = (long)(c->nr_blocks - 1);
}

/* The (thread, block) share; the block remembers its last one (the sums come in key order,
 * thread first, so most lookups stop there). */
static struct hbbp_tblock *counts_tblock(struct hbbp_counts *c, uint64_t thr, size_t bi)
{
	uint64_t key[2] = { thr, bi };
	struct hbbp_tb_hint *b;
	uint64_t *slot;
	struct hbbp_tblock *t;

	if (bi >= c->alloc_tb_hint) {	/* the blocks' hints, zeroed as they grow */
		size_t had = c->alloc_tb_hint;

		if (grow_array((void **)&c->tb_hint, &c->alloc_tb_hint, sizeof(*c->tb_hint),
			       c->alloc_blocks > bi ? c->alloc_blocks : bi + 1, (size_t)-1))
			return NULL;
		memset(c->tb_hint + had, 0, (c->alloc_tb_hint - had) * sizeof(*c->tb_hint));
	}
	b = &c->tb_hint[bi];
	if (b->last && b->thr == thr)
		return &c->tblocks[b->last - 1];
	slot = hmap__get(&c->tidx, key, NULL);
	if (!slot)
		return NULL;
	b->thr = thr;
	if (*slot) {
		b->last = (size_t)*slot;
		return &c->tblocks[*slot - 1];
	}
	if (grow_one((void **)&c->tblocks, &c->alloc_tblocks, sizeof(*c->tblocks),
		     c->nr_tblocks) ||
	    grow_one((void **)&c->tblock_bs, &c->alloc_tblock_bs, sizeof(*c->tblock_bs),
		     c->nr_tblocks))
		return NULL;
	memset(&c->tblock_bs[c->nr_tblocks], 0, sizeof(*c->tblock_bs));
	t = &c->tblocks[c->nr_tblocks];
	memset(t, 0, sizeof(*t));
	t->pid = (uint32_t)(thr >> 32);
	t->tid = (uint32_t)thr;
	t->block = bi;
	*slot = ++c->nr_tblocks;
	b->last = c->nr_tblocks;
	return t;
}

/* The block at vaddr for the attribution, which needs no instructions (ops->block_span). */
static int span(const struct counts_ctx *x, struct bbmap_module *mod, uint64_t vaddr,
		const struct bbmap_block **blk)
{
	return x->ops->block_span ? x->ops->block_span(x->ops->ctx, mod, vaddr, blk) :
				    x->ops->block_at(x->ops->ctx, mod, vaddr, blk);
}

static void sym_of_block(const struct bbmap_block *blk, const char **name, uint64_t *start,
			 uint64_t *size)
{
	*name = blk->sym ? blk->sym->name : NULL;
	*start = blk->sym ? blk->sym->start : 0;
	*size = blk->sym ? blk->sym->size : 0;
}

/* One EBS accumulator entry -> its block (or pseudo block). */
static int counts_ebs(struct counts_ctx *x, const uint64_t *key, const struct hbbp_ebs_val *v)
{
	struct hbbp_counts *c = x->c;
	struct bbmap_dso *dso = (struct bbmap_dso *)(uintptr_t)key[1];
	uint64_t vaddr = key[2];
	double w = v->period * x->a->ev[key[3]].scale;
	struct bbmap_module *mod = ctx_module(x, dso);
	const struct bbmap_block *blk;
	struct hbbp_tblock *t;
	long bi;

	if (!dso) {
		bi = counts_block(c, HBBP_BLK_UNMAPPED, NULL, NULL, 0, 0, 0, NULL, 0, 0);
	} else if (!mod) {
		uint64_t sstart = 0;
		const char *name = x->ops->dso_symbol ?
			x->ops->dso_symbol(x->ops->ctx, dso, vaddr, &sstart) : NULL;

		if (!name)
			sstart = 0;
		bi = counts_block(c, HBBP_BLK_NOCODE, dso, NULL, sstart, sstart, 0, name, sstart,
				  0);
		if (hbbp_accum__unresolved_add(x->a, dso, false, v->n, w))
			return -ENOMEM;
	} else if (span(x, mod, vaddr, &blk)) {
		const struct bbmap_symbol *sym = x->ops->symbol_at ?
			x->ops->symbol_at(x->ops->ctx, mod, vaddr) : NULL;
		uint64_t sstart = sym ? sym->start : 0;

		bi = counts_block(c, HBBP_BLK_UNDECODED, dso, NULL, sstart, sstart, 0,
				  sym ? sym->name : NULL, sstart, sym ? sym->size : 0);
		if (hbbp_accum__unresolved_add(x->a, dso, false, v->n, w))
			return -ENOMEM;
	} else {
		const char *name;
		uint64_t ss, sz;

		sym_of_block(blk, &name, &ss, &sz);
		bi = counts_block(c, HBBP_BLK_CODE, dso, mod, blk->start, blk->end, blk->nr_insns,
				  name, ss, sz);
		if (bi >= 0)
			c->blocks[bi].may_be_bad = blk->may_be_bad;
		c->ebs_weight_attributed += w;
	}
	if (bi < 0)
		return (int)bi;
	c->blocks[bi].ebs_sum += w;
	c->blocks[bi].ebs_samples += v->n;
	hbbp_bsum__axpy(&c->block_bs[bi].ebs, x->a->ev[key[3]].scale, &v->bs);
	if (!x->a->per_thread)
		return 0;	/* one thread block per block, made from it at the end */
	t = counts_tblock(c, key[0], (size_t)bi);
	if (!t)
		return -ENOMEM;
	t->ebs_sum += w;
	t->ebs_samples += v->n;
	hbbp_bsum__axpy(&c->tblock_bs[t - c->tblocks].ebs, x->a->ev[key[3]].scale, &v->bs);
	return 0;
}

static int counts_reject(struct counts_ctx *x, enum hbbp_reject why, double w,
			 struct bbmap_dso *dso, uint64_t n, double raw)
{
	struct hbbp_unresolved *u = hbbp_accum__dso_acct(x->a, dso);

	if (!u)
		return -ENOMEM;
	u->lbr_rejected += raw;	/* unscaled, like lbr_total */
	x->a->rejected[why] += n;
	x->a->rejected_weight[why] += w;
	/* Weight in code we cannot see is also reported as unresolved, by dso. */
	if (why == REJ_NO_CODE || why == REJ_WALK_UNDECODED)
		return hbbp_accum__unresolved_add(x->a, dso, true, n, w);
	return 0;
}

/* One aggregated stream: walk the fall-through blocks from `to` to the one holding `from`
 * (the blocks the stream before walked from the same target are not looked up again). */
static int counts_stream(struct counts_ctx *x, const uint64_t *key,
			 const struct hbbp_stream_val *v)
{
	struct hbbp_counts *c = x->c;
	struct bbmap_dso *dso = (struct bbmap_dso *)(uintptr_t)key[1];
	uint64_t to = key[2], from = key[3], cur = to;
	double scale = x->a->ev[key[4]].scale, w = v->weight * scale;
	double wp = v->weight_plain * scale;
	struct bbmap_module *mod = ctx_module(x, dso);
	size_t nsteps = 0, known, i;
	bool found = false;
	int err = 0;

	known = x->path_dso == dso && x->path_to == to ? x->path_len : 0;
	x->path_dso = dso;
	x->path_to = to;
	x->path_len = 0;
	if (!mod)
		return counts_reject(x, REJ_NO_CODE, w, dso, v->n, v->weight);
	for (;;) {
		const struct bbmap_block *blk;
		struct walk_step *st;

		if (nsteps >= HBBP_MAX_WALK_BLOCKS) {
			err = counts_reject(x, REJ_WALK_BOUND, w, dso, v->n, v->weight);
			break;
		}
		if (nsteps < known) {
			st = &x->path[nsteps++];
		} else {
			if (span(x, mod, cur, &blk) || blk->end <= cur) {
				err = counts_reject(x, REJ_WALK_UNDECODED, w, dso, v->n, v->weight);
				break;
			}
			if (grow_one((void **)&x->path, &x->alloc_path, sizeof(*x->path), nsteps))
				return -ENOMEM;
			st = &x->path[nsteps++];
			st->start = blk->start;
			st->end = blk->end;
			st->nr_insns = blk->nr_insns;
			st->end_flags = blk->end_flags;
			st->may_be_bad = blk->may_be_bad;
			st->bi = -1;
			sym_of_block(blk, &st->symname, &st->sym_start, &st->sym_size);
		}
		if (from >= st->start && from < st->end) {
			found = true;
			break;
		}
		if ((st->end_flags & BBMAP_INSN_BRANCH) && !(st->end_flags & BBMAP_INSN_COND)) {
			pr_debug("stream 0x%" PRIx64 "..0x%" PRIx64 ": a jump before 0x%" PRIx64, to,
				 from, st->end);
			err = counts_reject(x, REJ_WALK_JUMP, w, dso, v->n, v->weight);
			break;
		}
		cur = st->end;
	}
	x->path_len = nsteps > known ? nsteps : known;
	if (!found)
		return err;	/* rejected (0), or out of memory */
	for (i = 0; i < nsteps; i++) {
		struct walk_step *st = &x->path[i];
		long bi = st->bi >= 0 ? st->bi :
			  counts_block(c, HBBP_BLK_CODE, dso, mod, st->start, st->end, st->nr_insns,
				       st->symname, st->sym_start, st->sym_size);
		struct hbbp_tblock *t;

		if (bi < 0)
			return (int)bi;
		st->bi = bi;
		c->blocks[bi].may_be_bad = st->may_be_bad;
		c->blocks[bi].lbr_sum += w;
		c->blocks[bi].lbr_sum_plain += wp;
		c->blocks[bi].lbr_streams += v->n;
		hbbp_bsum__axpy(&c->block_bs[bi].lbr, scale, &v->bs);
		if (!x->a->per_thread)
			continue;
		t = counts_tblock(c, key[0], (size_t)bi);
		if (!t)
			return -ENOMEM;
		t->lbr_sum += w;
		t->lbr_sum_plain += wp;
		t->lbr_streams += v->n;
		hbbp_bsum__axpy(&c->tblock_bs[t - c->tblocks].lbr, scale, &v->bs);
	}
	c->lbr_weight_attributed += w;
	return 0;
}

/* A branch end to mark (method.md §5): the block holding a biased branch's source (or
 * starting at its target) gets its share and flag. */
struct bias_mark {
	uint64_t dso, vaddr;
	double share;
	bool biased, containing;	/* the block holding vaddr, else the one starting there */
};

/* Items (dso, vaddr, value) sorted by dso then vaddr: two stable radix sorts, by vaddr then
 * by the dso's rank (any fixed order of the dsos serves). 0 or -ENOMEM. */
static int sort_by_place(struct radix_item *it, const uint64_t *dso, size_t n, struct hmap *rank)
{
	uint64_t last = 0, last_rank = 0;
	size_t i;
	int err = radix_sort(it, n);

	for (i = 0; i < n && !err; i++) {
		uint64_t d = dso[it[i].val];

		if (!i || d != last) {	/* runs of one dso: one lookup a run */
			uint64_t *r = hmap__find(rank, &d);

			last = d;
			last_rank = r ? *r : 0;
		}
		it[i].key = last_rank;
	}
	return err ? err : radix_sort(it, n);
}

/* The marks applied to the code blocks with counts, both sorted by address: the block of a
 * mark is the counts' block holding it (the code's block, which bounds it), when the code's
 * block holds it as an instruction start (a source inside a block is checked with span). */
static int apply_marks(struct counts_ctx *x, const struct bias_mark *mk, size_t nm)
{
	struct hbbp_counts *c = x->c;
	struct radix_item *bk = malloc((c->nr_blocks + 1) * sizeof(*bk));
	struct radix_item *mi = malloc((nm + 1) * sizeof(*mi));
	uint64_t *bdso = malloc((c->nr_blocks + 1) * sizeof(*bdso));
	uint64_t *mdso = malloc((nm + 1) * sizeof(*mdso));
	uint64_t checked_dso = 0, checked_vaddr = 0, last = 0;
	bool checked_ok = false;
	size_t nb = 0, i, j = 0;
	struct hmap rank;
	int err = 0;

	hmap__init(&rank, 1, sizeof(uint64_t));
	if (!bk || !mi || !bdso || !mdso) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < c->nr_blocks; i++) {
		if (c->blocks[i].kind != HBBP_BLK_CODE)
			continue;
		bdso[i] = (uintptr_t)c->blocks[i].dso;
		bk[nb++] = (struct radix_item){ c->blocks[i].start, i };
	}
	for (i = 0; i < nm; i++) {
		mdso[i] = mk[i].dso;
		mi[i] = (struct radix_item){ mk[i].vaddr, i };
	}
	for (i = 0; i < nb + nm && !err; i++) {	/* every dso a rank */
		uint64_t d = i < nb ? bdso[bk[i].val] : mdso[i - nb];
		int ins;
		uint64_t *r;

		if (i && d == last)
			continue;	/* the one before's */
		last = d;
		r = hmap__get(&rank, &d, &ins);
		if (!r)
			err = -ENOMEM;
		else if (ins)
			*r = rank.nr - 1;
	}
	if (!err)
		err = sort_by_place(bk, bdso, nb, &rank);
	if (!err)
		err = sort_by_place(mi, mdso, nm, &rank);
	for (i = 0; i < nm && !err; i++) {
		const struct bias_mark *m = &mk[mi[i].val];
		struct hbbp_block *b;

		/* the last block at or before the mark: of its dso (rank), at or before vaddr */
		while (j < nb && (bk[j].key < mi[i].key ||
				  (bk[j].key == mi[i].key && c->blocks[bk[j].val].start <= m->vaddr)))
			j++;
		if (!j || bk[j - 1].key != mi[i].key)
			continue;
		b = &c->blocks[bk[j - 1].val];
		if (m->vaddr >= b->end || (!m->containing && b->start != m->vaddr))
			continue;
		if (b->start != m->vaddr) {	/* inside the block: an instruction start? */
			const struct bbmap_block *blk;

			if (checked_dso != m->dso || checked_vaddr != m->vaddr) {
				checked_dso = m->dso;
				checked_vaddr = m->vaddr;
				checked_ok = !span(x, b->mod, m->vaddr, &blk);
			}
			if (!checked_ok)
				continue;
		}
		if (m->share > b->bias_share)
			b->bias_share = m->share;
		if (m->biased)
			b->biased = true;
	}
out:
	free(bk);
	free(mi);
	free(bdso);
	free(mdso);
	hmap__exit(&rank);
	return err;
}

/* Bias (method.md §5): per branch source, slot shares against the chance share; the marks
 * its ends give their blocks (*mk, *nm of them, malloc'd) and the biased branches counted.
 * Reads a's bias sums only. 0 or -ENOMEM. */
static int bias_marks(const struct hbbp_accum *a, struct bias_mark **mk_out, size_t *nm_out,
		      uint64_t *nr_biased)
{
	struct hmap per_from;
	const struct hbbp_bias_val *e;
	struct hbbp_bias_val *v;
	struct bias_mark *mk = NULL;
	const uint64_t *key;
	size_t i, nm = 0;
	int err = 0;

	*mk_out = NULL;
	*nm_out = 0;
	*nr_biased = 0;
	hmap__init(&per_from, 2, sizeof(struct hbbp_bias_val));
	hmap__for_each(&a->bias, i, key, e) {
		if (!key[0])
			continue;	/* a branch from unmapped code: a leader only */
		v = hmap__get(&per_from, key, NULL);
		if (!v) {
			err = -ENOMEM;
			goto out;
		}
		v->oldest += e->oldest;
		v->newest += e->newest;
		v->all += e->all;
		v->expected += e->expected;
	}
	hmap__for_each(&per_from, i, key, v) {
		if (!v->all)
			continue;
		/* Reuse `expected` as the biased flag holder: store the share, negative if not. */
		{
			double so = (double)v->oldest / (double)v->all;
			double sn = (double)v->newest / (double)v->all;
			double chance = v->expected / (double)v->all;
			double share = so > sn ? so : sn;
			bool biased = v->all >= HBBP_BIAS_MIN_OCC && share > HBBP_BIAS_FACTOR * chance;

			if (biased)
				(*nr_biased)++;
			v->expected = biased ? share : -share - 1.0;
		}
	}
	mk = malloc((2 * a->bias.nr + 1) * sizeof(*mk));
	if (!mk) {
		err = -ENOMEM;
		goto out;
	}
	hmap__for_each(&a->bias, i, key, e) {
		double share;
		bool biased;

		v = key[0] ? hmap__find(&per_from, key) : NULL;
		if (!v || !v->all)
			continue;
		biased = v->expected >= 0;
		share = biased ? v->expected : -(v->expected + 1.0);
		mk[nm++] = (struct bias_mark){ key[0], key[1], share, biased, true };
		if (key[2])
			mk[nm++] = (struct bias_mark){ key[2], key[3], share, biased, false };
	}
	*mk_out = mk;
	*nm_out = nm;
out:
	hmap__exit(&per_from);
	return err;
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

/* Deterministic iteration over an accumulator: slot indices sorted by key, with the dso pointer
 * (key word dso_word) replaced by the dso's rank by name, so sums of doubles are added in the
 * same order on every run (hash order depends on pointer values). The keys are copied, ranks
 * in place, into records sorted as they are: the comparison reads no map. */
static int dso_name_cmp(const void *pa, const void *pb, void *arg)
{
	const struct hbbp_code_ops *ops = arg;
	struct bbmap_dso *a = *(struct bbmap_dso *const *)pa, *b = *(struct bbmap_dso *const *)pb;
	const char *na = a ? ops->dso_name(ops->ctx, a) : "", *nb = b ? ops->dso_name(ops->ctx, b) : "";
	int r = strcmp(na ? na : "", nb ? nb : "");

	if (r)
		return r;
	return (uintptr_t)a < (uintptr_t)b ? -1 : (uintptr_t)a > (uintptr_t)b;
}

/* Returns the used slot indices of h in key order (*nr of them); NULL when out of memory.
 * The keys are copied into records of the words that differ between them (a thread word
 * when the sums are not per thread, an event word with one event, do not), with the dso
 * word replaced by the dso's rank by name, and the records radix-sorted. */
static size_t *sorted_slots(const struct hmap *h, size_t dso_word, const struct hbbp_code_ops *ops,
			    size_t *nr)
{
	size_t n = h->nr, kw = h->key_words, i, j, nk = 0, nd = 0, alloc_dsos = 0;
	size_t *idx = malloc((n + 1) * sizeof(*idx)), keep[8];
	struct bbmap_dso **dsos = NULL;
	uint64_t *recs = NULL, *r;
	bool differs[8] = { false };
	struct hmap rank;

	hmap__init(&rank, 1, sizeof(uint64_t));
	if (!idx || kw > 8)
		goto fail;
	for (i = 0; i < n; i++) {
		const uint64_t *key = hmap__key_at(h, i), *k0 = hmap__key_at(h, 0);
		uint64_t *v;
		int ins;

		for (j = 0; j < kw; j++)
			differs[j] |= key[j] != k0[j];
		v = hmap__get(&rank, &key[dso_word], &ins);
		if (!v || (ins && grow_one((void **)&dsos, &alloc_dsos, sizeof(*dsos), nd)))
			goto fail;
		if (ins)
			dsos[nd++] = (struct bbmap_dso *)(uintptr_t)key[dso_word];
	}
	if (nd)
		qsort_r(dsos, nd, sizeof(*dsos), dso_name_cmp, (void *)ops);
	for (i = 0; i < nd; i++) {
		uint64_t key = (uintptr_t)dsos[i];

		*(uint64_t *)hmap__find(&rank, &key) = i;
	}
	for (j = 0; j < kw; j++)
		if (differs[j])
			keep[nk++] = j;
	recs = malloc((n * nk + 1) * sizeof(*recs));
	if (!recs)
		goto fail;
	for (i = 0, r = recs; i < n; i++, r += nk) {
		const uint64_t *key = hmap__key_at(h, i);

		for (j = 0; j < nk; j++)
			r[j] = keep[j] == dso_word ? *(const uint64_t *)hmap__find(&rank, &key[dso_word]) :
				key[keep[j]];
	}
	if (radix_sort_words(recs, nk, nk, n, idx))
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

/* The count of block b per batch, from its (or a thread's share of its) per-batch sums, with
 * the source chosen for b: what hbbp_block__choose and the thread shares compute, batch by
 * batch. */
static void block_count_bs(const struct hbbp_block *b, const struct hbbp_bsum *ebs,
			   const struct hbbp_bsum *lbr, struct hbbp_bsum *out)
{
	memset(out, 0, sizeof(*out));
	if (hbbp_block__uses_lbr(b))
		hbbp_bsum__axpy(out, 1.0, lbr);
	else if (hbbp_source_is_ebs(b->source) && b->kind != HBBP_BLK_CODE)
		hbbp_bsum__axpy(out, 1.0, ebs);
	else if (hbbp_source_is_ebs(b->source) && b->nr_insns)
		hbbp_bsum__axpy(out, 1.0 / b->nr_insns, ebs);
}

bool hbbp_block__uses_lbr(const struct hbbp_block *b)
{
	return b->kind == HBBP_BLK_CODE && hbbp_source_is_lbr(b->source);
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

/* The ratio factors of each role (see struct hbbp_counts): its events' used periods per batch,
 * scaled for multiplexing as the estimates are. */
static void counts_ratio(struct hbbp_counts *c, const struct hbbp_accum *a)
{
	struct hbbp_bsum we, wl;
	size_t i;

	memset(&we, 0, sizeof(we));
	memset(&wl, 0, sizeof(wl));
	for (i = 0; i < a->nr_events; i++) {
		if (a->ev[i].role == HBBP_ROLE_EBS)
			hbbp_bsum__axpy(&we, a->ev[i].scale, &a->ev[i].bs);
		else if (a->ev[i].role == HBBP_ROLE_LBR)
			hbbp_bsum__axpy(&wl, a->ev[i].scale, &a->ev[i].bs);
	}
	hbbp_interval__ratio(&we, &c->ebs_ratio);
	hbbp_interval__ratio(&wl, &c->lbr_ratio);
	c->ratio = true;
}

/* A thread block's estimates, count and interval from its sums and count_bs (its block's
 * choice applied). */
/* A thread block's estimates and count from its sums (its interval: tblock_interval). */
static void tblock_counts(const struct hbbp_counts *c, struct hbbp_tblock *t)
{
	const struct hbbp_block *b = &c->blocks[t->block];
	bool lbr = hbbp_source_is_lbr(b->source), ebs = hbbp_source_is_ebs(b->source);

	if (b->kind == HBBP_BLK_CODE)
		t->ebs_est = b->nr_insns ? t->ebs_sum / b->nr_insns : 0;
	else
		t->ebs_est = t->ebs_sum;
	t->lbr_est = b->kind == HBBP_BLK_CODE ? t->lbr_sum : 0;
	t->count = lbr ? t->lbr_est : ebs ? t->ebs_est : 0;
}

/* ... and its interval (method.md §10), from its count per batch */
static void tblock_interval(const struct hbbp_counts *c, struct hbbp_tblock *t)
{
	bool use_lbr = hbbp_block__uses_lbr(&c->blocks[t->block]);
	double bx[HBBP_BATCHES];

	hbbp_counts__batch_estimates(c, use_lbr ? NULL : &t->count_bs, use_lbr ? &t->count_bs : NULL,
				     bx);
	hbbp_interval__estimates(t->count, bx, HBBP_BATCHES, &t->count_lo, &t->count_hi);
}

static void tblock_estimates(const struct hbbp_counts *c, struct hbbp_tblock *t)
{
	tblock_counts(c, t);
	tblock_interval(c, t);
}

/* Block i as thread 0/0, with the sums of the block. */
static void tblock_of_block(const struct hbbp_counts *c, size_t i, struct hbbp_tblock *t)
{
	const struct hbbp_block *b = &c->blocks[i];

	memset(t, 0, sizeof(*t));
	t->block = i;
	t->ebs_sum = b->ebs_sum;
	t->lbr_sum = b->lbr_sum;
	t->lbr_sum_plain = b->lbr_sum_plain;
	t->ebs_samples = b->ebs_samples;
	t->lbr_streams = b->lbr_streams;
}

const struct hbbp_tblock *hbbp_counts__tblock_sums(const struct hbbp_counts *c, size_t i,
						   struct hbbp_tblock *tmp)
{
	if (c->tblocks)
		return &c->tblocks[i];
	tblock_of_block(c, i, tmp);
	tmp->count_bs = c->block_count_bs[i];
	tblock_counts(c, tmp);
	return tmp;
}

const struct hbbp_tblock *hbbp_counts__tblock(const struct hbbp_counts *c, size_t i,
					      struct hbbp_tblock *tmp)
{
	if (c->tblocks)
		return &c->tblocks[i];
	hbbp_counts__tblock_sums(c, i, tmp);
	tblock_interval(c, tmp);
	return tmp;
}

/* Sums not kept per thread (struct hbbp_accum.per_thread): one thread block (thread 0/0) per
 * block with data, its sums the block's (its sums per batch are the block's: tblock_bs stays
 * NULL). */
static int counts_tblocks_from_blocks(struct hbbp_counts *c)
{
	size_t i;

	c->tblocks = calloc(c->nr_blocks ? c->nr_blocks : 1, sizeof(*c->tblocks));
	if (!c->tblocks)
		return -ENOMEM;
	c->alloc_tblocks = c->nr_blocks ? c->nr_blocks : 1;
	for (i = 0; i < c->nr_blocks; i++)
		tblock_of_block(c, i, &c->tblocks[c->nr_tblocks++]);
	return 0;
}

/* The same without the table: each block's count per batch, written over the first half of
 * block_bs (element i over bytes block i has read), which then shrinks to it. The thread
 * blocks are made on request (hbbp_counts__tblock): 80 bytes a block, not 176. */
static int counts_tblocks_virtual(struct hbbp_counts *c)
{
	struct hbbp_bsum *cb = (struct hbbp_bsum *)c->block_bs;
	size_t i;

	for (i = 0; i < c->nr_blocks; i++) {
		struct hbbp_bsum bs;

		block_count_bs(&c->blocks[i], &c->block_bs[i].ebs, &c->block_bs[i].lbr, &bs);
		cb[i] = bs;
	}
	c->block_count_bs = c->nr_blocks ? realloc(cb, c->nr_blocks * sizeof(*cb)) : cb;
	if (!c->block_count_bs)
		c->block_count_bs = cb;	/* kept as it was */
	c->block_bs = NULL;
	c->alloc_block_bs = 0;
	c->nr_tblocks = c->nr_blocks;
	return 0;
}

int hbbp_counts__compute(struct hbbp_counts *c, struct hbbp_accum *d, enum hbbp_method method,
			 unsigned cutoff)
{
	struct counts_ctx x;
	struct hbbp_leaders leaders;
	const uint64_t *tkey;
	const struct hbbp_bias_val *bval;
	struct hmap targets;	/* (dso, to) of the branches: each leader once */
	struct bias_mark *mk = NULL;
	size_t nm = 0;
	size_t i, n = 0, *order = NULL;
	int err = 0;

	memset(c, 0, sizeof(*c));
	c->method = method;
	c->cutoff = cutoff;
	hmap__init(&c->bidx, 3, sizeof(uint64_t));
	hmap__init(&c->tidx, 2, sizeof(uint64_t));
	memset(&x, 0, sizeof(x));
	x.c = c;
	x.a = d;
	x.ops = d->ops;
	hmap__init(&x.mods, 1, sizeof(struct mod_cache_val));

	/* 1. Every branch target of the LBR data is a block leader (method.md §3), before any
	 * block is looked at: gathered per module in the order first seen, then added module by
	 * module (hbbp/method/leaders.h). */
	hbbp_leaders__init(&leaders);
	hmap__init(&targets, 2, 0);
	hmap__for_each(&d->bias, i, tkey, bval) {
		uint64_t tk[2] = { tkey[2], tkey[3] };
		struct bbmap_module *mod;
		int fresh;

		if (!bval->target)
			continue;
		if (!hmap__get(&targets, tk, &fresh)) {
			err = -ENOMEM;
			break;
		}
		mod = fresh ? ctx_module(&x, (struct bbmap_dso *)(uintptr_t)tk[0]) : NULL;
		if (mod)
			err = hbbp_leaders__add(&leaders, mod, tk[1]);
		if (err)
			break;
	}
	hmap__exit(&targets);
	if (!err)
		err = x.ops->apply_leaders ?
		      x.ops->apply_leaders(x.ops->apply_ctx, &leaders, x.ops) :
		      hbbp_leaders__apply_each(&leaders, x.ops);
	hbbp_leaders__exit(&leaders);
	/* 2. EBS, 3. streams, each in key order, then the bias marks; each sorted or made once
	 * the sums before are freed (beside them, it would add to the step's peak memory) */
	if (!err) {
		order = sorted_slots(&d->ebs, 1, d->ops, &n);
		if (!order)
			err = -ENOMEM;
	}
	for (i = 0; i < n && !err; i++) {
		void *val;
		const uint64_t *key = hmap__slot(&d->ebs, order[i], &val);

		err = counts_ebs(&x, key, val);
	}
	free(order);
	if (d->release_sums)
		hmap__exit(&d->ebs);
	order = err ? NULL : sorted_slots(&d->streams, 1, d->ops, &n);
	if (!order && !err)
		err = -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		void *val;
		const uint64_t *key = hmap__slot(&d->streams, order[i], &val);

		err = counts_stream(&x, key, val);
	}
	free(order);
	if (d->release_sums)
		hmap__exit(&d->streams);
	if (!err)
		err = bias_marks(d, &mk, &nm, &c->nr_biased_branches);
	if (d->release_sums)		/* the marks hold what the blocks need of the bias */
		hmap__exit(&d->bias);
	if (!err)
		err = apply_marks(&x, mk, nm);
	free(mk);
	if (err)
		goto out;
	/* the blocks are all made: they live on, without room to grow */
	grow_fit((void **)&c->blocks, &c->alloc_blocks, sizeof(*c->blocks), c->nr_blocks);
	free(c->tb_hint);
	c->tb_hint = NULL;
	c->alloc_tb_hint = 0;
	/* 4. The hybrid choice per block, applied to every thread's share of it and to every
	 * batch of the samples (the choice is made once, on all of them; method.md §10). */
	counts_ratio(c, d);
	for (i = 0; i < c->nr_blocks; i++) {
		struct hbbp_block *b = &c->blocks[i];
		struct hbbp_bsum bs;
		double bx[HBBP_BATCHES];

		hbbp_block__choose(b, method, cutoff);
		block_count_bs(b, &c->block_bs[i].ebs, &c->block_bs[i].lbr, &bs);
		hbbp_counts__batch_estimates(c, hbbp_block__uses_lbr(b) ? NULL : &bs,
					     hbbp_block__uses_lbr(b) ? &bs : NULL, bx);
		hbbp_interval__estimates(b->count, bx, HBBP_BATCHES, &b->count_lo, &b->count_hi);
	}
	if (!d->per_thread && d->release_sums) {	/* block_bs is not kept: no table */
		err = counts_tblocks_virtual(c);
		goto out;
	}
	if (!d->per_thread)
		err = counts_tblocks_from_blocks(c);
	for (i = 0; i < c->nr_tblocks && !err; i++) {
		struct hbbp_tblock *t = &c->tblocks[i];
		const struct hbbp_batch_sums *tbs = c->tblock_bs ? &c->tblock_bs[i] :
						    &c->block_bs[t->block];

		block_count_bs(&c->blocks[t->block], &tbs->ebs, &tbs->lbr, &t->count_bs);
		tblock_estimates(c, t);
	}
out:
	hmap__exit(&x.mods);
	free(x.path);
	if (d->release_sums) {	/* the indexes serve the attribution only */
		hmap__exit(&c->bidx);
		hmap__exit(&c->tidx);
	}
	return err;
}

void hbbp_counts__drop_batch_sums(struct hbbp_counts *c)
{
	free(c->block_bs);
	free(c->tblock_bs);
	c->block_bs = c->tblock_bs = NULL;
	c->alloc_block_bs = c->alloc_tblock_bs = 0;
}

void hbbp_counts__exit(struct hbbp_counts *c)
{
	if (!c)
		return;
	hbbp_counts__drop_batch_sums(c);
	free(c->blocks);
	free(c->tblocks);
	free(c->block_count_bs);
	free(c->tb_hint);
	hmap__exit(&c->bidx);
	hmap__exit(&c->tidx);
	memset(c, 0, sizeof(*c));
}
