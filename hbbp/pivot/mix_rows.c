/* The rows of the mix (see hbbp/pivot/mix_rows.h). A key is valued where its value can
 * change: once a thread block (a key of the thread), once a block instruction (a key of the
 * instruction) or once a block (the others); a block's values are kept from its first thread
 * block on. A text value is interned by its text: one text, one id. A row is then one probe
 * of the map of rows by its ids.
 * Depends on hbbp/pivot/mix_keys.h, util/hmap.h, util/grow.h, util/radix.h; never prints.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/pivot/mix_rows.h"
#include "util/grow.h"
#include "util/hbbp_err.h"
#include "util/radix.h"

#define MIX_DROP_BLOCKS	4096	/* blocks read between two drops of their instructions */

/* The id of name s in r->names, added when new. 0 or -ENOMEM. */
static int names_intern(struct mix_rows *r, const char *s, uint64_t *id)
{
	size_t len = strlen(s);
	uint64_t *v = hmap__find_bytes(&r->names_idx, s, len);
	char *copy;

	if (v) {
		*id = *v;
		return 0;
	}
	if (grow_one((void **)&r->names, &r->alloc_names, sizeof(*r->names), r->nr_names))
		return -ENOMEM;
	copy = strdup(s);
	v = copy ? hmap__get_bytes(&r->names_idx, copy, len, NULL) : NULL;
	if (!v) {
		free(copy);
		return -ENOMEM;
	}
	r->names[r->nr_names] = copy;
	*v = *id = r->nr_names++;
	return 0;
}

/* The keys of one class: their indexes in the mix's keys */
struct key_class {
	size_t idx[HBBP_MAX_KEYS], nr;
};

/* The state of one summing */
struct summing {
	struct mix_rows *r;
	const struct mix_ctx *x;
	struct key_class thr, blk, ins;	/* the keys of the thread, block, instruction */
	uint64_t ids[HBBP_MAX_KEYS];	/* the row's, key by key */
	/* per block valued: blk.nr ids, then ins.nr ids for each instruction (for one with no
	 * code: its markers) */
	uint64_t *vals;
	size_t nr_vals, alloc_vals;
	size_t *valued;			/* per block: 1 + its first in vals, 0: not valued */
	size_t nr_read;			/* code blocks read */
};

/* The ids of the keys of class k at at into out[0, k->nr). 0 or -ENOMEM. */
static int keys_ids(struct summing *s, const struct key_class *k, const struct key_at *at,
		    uint64_t *out)
{
	struct key_val v;
	size_t i;

	for (i = 0; i < k->nr; i++) {
		const struct hbbp_key *key = s->x->o->keys[k->idx[i]];

		key->value(at, &v);
		if (key->type == KEY_INT)
			out[i] = v.num;
		else if (names_intern(s->r, v.text, &out[i]))
			return -ENOMEM;
	}
	return 0;
}

/* The row's ids of the keys of class k: v[0, k->nr). */
static void ids_set(struct summing *s, const struct key_class *k, const uint64_t *v)
{
	size_t i;

	for (i = 0; i < k->nr; i++)
		s->ids[k->idx[i]] = v[i];
}

/* The sources of a row's blocks, one bit per enum hbbp_source but NONE. */
static unsigned source_bit(enum hbbp_source src)
{
	return src == HBBP_SRC_NONE ? 0 : 1u << src;
}

/* Adds thread block ti (t, its block b) n times to the row of s->ids (n instructions). */
static int row_add(struct summing *s, const struct hbbp_tblock *t, size_t ti,
		   const struct hbbp_block *b, size_t n)
{
	struct mix_rows *r = s->r;
	const double *ratio = hbbp_block__uses_lbr(b) ? r->ratio_lbr : r->ratio_ebs;
	struct mix_row *row;
	struct mix_row_diag *dg;
	unsigned int k;

	if (!n)
		return 0;
	row = hmap__get(&r->map, s->ids, NULL);
	if (!row)
		return -ENOMEM;
	dg = (struct mix_row_diag *)(row + 1);
	if (r->blk_off) {
		struct mix_row_block *bk = (void *)((char *)row + r->blk_off);

		if (!bk->stamp) {
			bk->stamp = ti + 1;
			bk->length = b->kind == HBBP_BLK_CODE ? b->nr_insns : 0;
		}
		if (bk->stamp == ti + 1)
			bk->per_exec += (uint32_t)n;
	}
	for (; n; n--) {
		row->count += t->count;
		for (k = 0; k < HBBP_BATCHES; k++)	/* hbbp_counts__batch_estimates */
			row->bx.b[k] += t->count_bs.b[k] * ratio[k];
		if (t->cyc.w > 0 && b->nr_insns) {	/* one instruction's: its block's / length */
			row->cycles += t->cyc.cycles / b->nr_insns;
			row->cyc_count += t->count;
			for (k = 0; k < HBBP_BATCHES; k++)	/* spread from LBR streams */
				row->cx.b[k] += t->cycles_bs.b[k] * r->ratio_lbr[k] / b->nr_insns;
		}
		if (!r->diag)
			continue;
		dg->ebs_count += t->ebs_est;
		dg->lbr_count += t->lbr_est;
		dg->lbr_count_plain += b->kind == HBBP_BLK_CODE ? t->lbr_sum_plain : 0;
		if (dg->stamp != ti + 1) {	/* once a thread block */
			dg->stamp = ti + 1;
			dg->ebs_samples += t->ebs_samples;
			dg->lbr_streams += t->lbr_streams;
			dg->sources |= source_bit(b->source);
			dg->biased |= b->biased;
		}
	}
	return 0;
}

/* The instructions valued at block b: each of a code block's, one for a block with no code
 * (the instruction keys' markers), none without instruction keys. */
static size_t nr_valued(const struct summing *s, const struct hbbp_block *b)
{
	return !s->ins.nr ? 0 : b->kind == HBBP_BLK_CODE ? b->nr_insns : 1;
}

/* The ids of the keys of block b and of its instructions, met at thread block t, appended
 * to s->vals: the block's, the number of distinct ids of its instructions, then each of
 * those and how many of the block's instructions have them (a row is probed once for
 * them: its sums are added to in the same order). 0 or an error. */
static int block_values(struct summing *s, const struct hbbp_tblock *t,
			const struct hbbp_block *b)
{
	const struct hbbp_code_ops *ops = s->x->ops;
	struct key_at at = { s->x, t, b, NULL };
	const struct bbmap_block *blk = NULL;
	size_t j, k, m = nr_valued(s, b), n = s->nr_vals, w = s->ins.nr + 1;
	uint64_t ids[HBBP_MAX_KEYS], *v, *nr_distinct;
	int err = 0;

	if (grow_array((void **)&s->vals, &s->alloc_vals, sizeof(*s->vals),
		       n + s->blk.nr + 1 + m * w, (size_t)-1))
		return -ENOMEM;
	err = keys_ids(s, &s->blk, &at, s->vals + n);
	n += s->blk.nr;
	nr_distinct = &s->vals[n++];
	*nr_distinct = 0;
	if (!err && m && b->kind == HBBP_BLK_CODE &&
	    (ops->block_at(ops->ctx, b->mod, b->start, &blk) || blk->start != b->start ||
	     blk->nr_insns != b->nr_insns || !blk->insns))
		err = -HBBP_EFORMAT;	/* the block map changed under us: a bug */
	for (j = 0; j < m && !err; j++) {
		at.in = blk ? &blk->insns[j] : NULL;
		err = keys_ids(s, &s->ins, &at, ids);
		for (k = 0, v = nr_distinct + 1; k < *nr_distinct; k++, v += w)
			if (!memcmp(v, ids, s->ins.nr * sizeof(*ids)))
				break;
		if (k == *nr_distinct) {	/* new: its ids, counted below */
			memcpy(v, ids, s->ins.nr * sizeof(*ids));
			v[s->ins.nr] = 0;
			++*nr_distinct;
			n += w;
		}
		v[s->ins.nr]++;
	}
	/* each block is read once here: its instructions need not stay */
	if (blk && ops->drop_insns && !(++s->nr_read % MIX_DROP_BLOCKS))
		ops->drop_insns(ops->ctx);
	s->valued[t->block] = s->nr_vals + 1;
	s->nr_vals = n;
	return err;
}

/* Adds thread block ti (t) to the rows. */
static int sum_tblock(struct summing *s, size_t ti, const struct hbbp_tblock *t)
{
	const struct hbbp_block *b = &s->x->c->blocks[t->block];
	const struct key_at at = { s->x, t, b, NULL };
	uint64_t thr[HBBP_MAX_KEYS];
	const uint64_t *v;
	size_t j, m;
	int err = keys_ids(s, &s->thr, &at, thr);

	if (!err && !s->valued[t->block])
		err = block_values(s, t, b);
	if (err)
		return err;
	ids_set(s, &s->thr, thr);
	v = s->vals + s->valued[t->block] - 1;
	ids_set(s, &s->blk, v);
	if (!s->ins.nr)		/* every instruction in one row */
		return row_add(s, t, ti, b, b->kind == HBBP_BLK_CODE ? b->nr_insns : 1);
	v += s->blk.nr;
	for (j = 0, m = *v++; j < m && !err; j++, v += s->ins.nr + 1) {
		ids_set(s, &s->ins, v);
		err = row_add(s, t, ti, b, v[s->ins.nr]);
	}
	return err;
}

/* Adds thread block ti (t) to the rows when it passes the filters; else its count to the
 * count left out. */
static int sum_counted(struct summing *s, size_t ti, const struct hbbp_tblock *t)
{
	const struct hbbp_block *b = &s->x->c->blocks[t->block];

	if (t->count > 0 && mix__passes(s->x, t))
		return sum_tblock(s, ti, t);
	if (t->count > 0)
		s->r->filtered_out += t->count *
				      (b->kind == HBBP_BLK_CODE ? (double)b->nr_insns : 1);
	return 0;
}

/* The rows of r->map finished (their intervals) and appended to r->done in the map's order;
 * the map emptied. 0 or -ENOMEM. */
static int rows_finish(struct mix_rows *r)
{
	size_t i, n = r->map.nr, vsize = r->map.val_size,
	       tail = vsize - sizeof(struct mix_row);	/* diagnostics, block */

	if (grow_array((void **)&r->done, &r->alloc_done, r->done_size, r->nr_done + n,
		       (size_t)-1))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct mix_row *row = hmap__val_at(&r->map, i);
		unsigned char *d = r->done + r->nr_done++ * r->done_size;
		uint64_t *ids = (uint64_t *)d;
		struct mix_row_final *f = (struct mix_row_final *)(ids + r->nr_keys);
		struct mix_row_cycles *cy = (struct mix_row_cycles *)(d + r->done_cyc);

		memcpy(ids, hmap__key_at(&r->map, i), r->nr_keys * sizeof(uint64_t));
		f->count = row->count;
		hbbp_interval__estimates(row->count, row->bx.b, HBBP_BATCHES, &f->lo, &f->hi);
		hbbp_interval__widen(row->count, r->widen, &f->lo, &f->hi);
		if (r->done_cyc) {
			cy->cycles = row->cycles;
			cy->cyc_count = row->cyc_count;
			hbbp_interval__estimates(row->cycles, row->cx.b, HBBP_BATCHES, &cy->cyc_lo,
						 &cy->cyc_hi);
			hbbp_interval__widen(row->cycles, r->widen, &cy->cyc_lo, &cy->cyc_hi);
		}
		memcpy(d + r->done_size - tail, row + 1, tail);
	}
	hmap__clear(&r->map);
	return 0;
}

/* hbbp_counts__each_process's: the n thread blocks t of one process, first the thread blocks
 * before them; its rows finished when they are keyed by the process. */
static int sum_process(void *ctx, size_t first, const struct hbbp_tblock *t,
		       const struct hbbp_batch_sums *bs, size_t n)
{
	struct summing *s = ctx;
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++)
		err = sum_counted(s, first + i, &t[i]);
	return err || !s->r->by_process ? err : rows_finish(s->r);
}

/* Whether a key of o is the process: no row holds two processes' counts. */
static bool keyed_by_process(const struct hbbp_mix_opts *o)
{
	size_t i;

	for (i = 0; i < o->nr_keys; i++)
		if (o->keys[i]->name && !strcmp(o->keys[i]->name, "pid"))
			return true;
	return false;
}

int mix_rows__sum(struct mix_rows *r, const struct mix_ctx *x)
{
	const struct hbbp_mix_opts *o = x->o;
	const struct hbbp_counts *c = x->c;
	struct summing s = { .r = r, .x = x };
	size_t i;
	int err = 0;

	memset(r, 0, sizeof(*r));
	r->diag = o->diagnostics;
	r->nr_keys = o->nr_keys;
	r->widen = c->widen;
	r->by_process = c->by_process && keyed_by_process(o);
	r->done_size = o->nr_keys * sizeof(uint64_t) + sizeof(struct mix_row_final);
	if (c->has_cycles) {
		r->done_cyc = r->done_size;
		r->done_size += sizeof(struct mix_row_cycles);
	}
	if (r->diag) {
		r->done_diag = r->done_size;
		r->done_size += sizeof(struct mix_row_diag);
	}
	if (hbbp_mix__needs(o) & HBBP_KEY_BLOCK) {
		r->blk_off = sizeof(struct mix_row) + (r->diag ? sizeof(struct mix_row_diag) : 0);
		r->done_blk = r->done_size;
		r->done_size += sizeof(struct mix_row_block);
	}
	hmap__init(&r->map, o->nr_keys, sizeof(struct mix_row) +
		   (r->diag ? sizeof(struct mix_row_diag) : 0) +
		   (r->blk_off ? sizeof(struct mix_row_block) : 0));
	hmap__init_bytes(&r->names_idx, sizeof(uint64_t));
	for (i = 0; i < HBBP_BATCHES; i++) {	/* hbbp_counts__batch_estimates' factors */
		r->ratio_ebs[i] = c->ratio ? c->ebs_ratio.b[i] : HBBP_BATCHES;
		r->ratio_lbr[i] = c->ratio ? c->lbr_ratio.b[i] : HBBP_BATCHES;
	}
	for (i = 0; i < o->nr_keys; i++) {
		struct key_class *k = o->keys[i]->needs & HBBP_KEY_THREAD ? &s.thr :
				      o->keys[i]->needs & HBBP_KEY_INSN ? &s.ins : &s.blk;

		k->idx[k->nr++] = i;
	}
	s.valued = calloc(c->nr_blocks ? c->nr_blocks : 1, sizeof(*s.valued));
	if (!s.valued)
		err = -ENOMEM;
	if (!err && c->by_process)
		err = hbbp_counts__each_process(c, x->d, sum_process, &s);
	for (i = 0; i < c->nr_tblocks && !err && !c->by_process; i++) {
		struct hbbp_tblock tmp;

		err = sum_counted(&s, i, hbbp_counts__tblock(c, i, &tmp));
	}
	if (o->release_sums) {	/* every thread block is summed */
		hmap__exit(&x->d->ebs);
		hmap__exit(&x->d->streams);
	}
	err = err ? err : rows_finish(r);
	free(s.valued);
	free(s.vals);
	if (x->ops->drop_insns)		/* the table is made from the rows alone */
		x->ops->drop_insns(x->ops->ctx);
	if (o->mix_only && o->release_code && x->ops->drop_code)	/* and its memory */
		x->ops->drop_code(x->ops->ctx);
	hmap__exit(&r->names_idx);	/* every name is made */
	return err;
}

/* A key of count x whose order as an unsigned number is x's, largest first. */
static uint64_t count_desc(double x)
{
	uint64_t b;

	if (x == 0)
		x = 0;		/* -0.0 as 0.0 */
	memcpy(&b, &x, sizeof(b));
	b = b >> 63 ? ~b : b | 1ull << 63;	/* increasing with x */
	return ~b;
}

static int name_cmp(const void *pa, const void *pb, void *arg)
{
	char *const *names = arg;

	return strcmp(names[*(const size_t *)pa], names[*(const size_t *)pb]);
}

/* Each name's rank in strcmp order (a calloc'd array), or NULL when out of memory. */
static uint64_t *names_rank(const struct mix_rows *r)
{
	size_t *idx = malloc((r->nr_names ? r->nr_names : 1) * sizeof(*idx)), i;
	uint64_t *rank = malloc((r->nr_names ? r->nr_names : 1) * sizeof(*rank));

	if (!idx || !rank) {
		free(idx);
		free(rank);
		return NULL;
	}
	for (i = 0; i < r->nr_names; i++)
		idx[i] = i;
	qsort_r(idx, r->nr_names, sizeof(*idx), name_cmp, r->names);
	for (i = 0; i < r->nr_names; i++)
		rank[idx[i]] = i;
	free(idx);
	return rank;
}

int mix_rows__order(const struct mix_rows *r, const struct hbbp_mix_opts *o, size_t *order)
{
	size_t n = mix_rows__nr(r), w = o->nr_keys + 1, i, k;
	uint64_t *words = malloc((n ? n : 1) * w * sizeof(*words));
	uint64_t *rank = names_rank(r);
	int err = -ENOMEM;

	if (words && rank) {
		for (i = 0; i < n; i++) {
			const uint64_t *ids = mix_rows__ids(r, i);
			uint64_t *wd = words + i * w;

			wd[0] = count_desc(hbbp_round_count(mix_rows__row(r, i)->count));
			for (k = 0; k < o->nr_keys; k++)	/* KEY_NONE + 1: 0, first */
				wd[k + 1] = o->keys[k]->type == KEY_INT ? ids[k] + 1 : rank[ids[k]];
		}
		err = radix_sort_words(words, w, w, n, order);
	}
	free(words);
	free(rank);
	return err;
}

void mix_rows__exit(struct mix_rows *r)
{
	size_t i;

	hmap__exit(&r->map);
	hmap__exit(&r->names_idx);
	free(r->done);
	r->done = NULL;
	r->nr_done = r->alloc_done = 0;
	for (i = 0; i < r->nr_names; i++)
		free(r->names[i]);
	free(r->names);
	r->names = NULL;
	r->nr_names = r->alloc_names = 0;
}
