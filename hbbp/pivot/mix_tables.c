/* The result tables of the mix (see hbbp/pivot/mix.h): the mix itself from its rows
 * (hbbp/pivot/mix_rows.h), and the tables events, modules, symbols, blocks, instructions and
 * thread_blocks of writers/schema.h, with the method's metadata.
 * Depends on hbbp/pivot/mix_rows.h, hbbp/method/method.h, bbmap/insn_attr.h names and
 * writers/result.h; never prints.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/pivot/mix_rows.h"
#include "util/grow.h"
#include "util/hbbp_err.h"
#include "writers/schema.h"

_Static_assert(SCHEMA_BATCHES == HBBP_BATCHES, "thread_blocks has a column per batch");
_Static_assert(SCHEMA_TB_BATCH0 + SCHEMA_BATCHES == SCHEMA_NR(schema_thread_blocks),
	       "the batch columns end thread_blocks");
_Static_assert(SCHEMA_BLOCKS_BATCH0 + SCHEMA_BATCHES == SCHEMA_NR(schema_blocks),
	       "the batch columns end blocks");

/* ---- what an estimate carries ---- */

static double round_sig(double x, int digits)
{
	static const double p10[] = {	/* exact: what pow(10, k) gives for them */
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
		1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
	};
	double a = fabs(x), m;
	int k;

	if (!isfinite(x) || a == 0)
		return x;
	k = digits - 1 - (int)floor(log10(a));
	m = k >= 0 && k <= 22 ? p10[k] : pow(10, k);
	return round(x * m) / m;
}

/* A count estimated from samples has a few significant digits at best: integers from 1000
 * on, 4 significant digits below (13585699999.9992 -> 13585700000, 0.123456 -> 0.1235). */
double hbbp_round_count(double x)
{
	return fabs(x) >= 1000 ? round(x) : round_sig(x, 4);
}

/* Shares to 6 significant digits: they still sum to 1 within 1e-5 over any mix. */
static double hbbp_round_share(double x)
{
	return round_sig(x, 6);
}


/* ---- the mix ---- */

/* The names of the sources of a row's blocks (one bit per enum hbbp_source but NONE). */
static const char *source_name(unsigned bits)
{
	unsigned s;

	if (!bits)
		return "";
	for (s = HBBP_SRC_LBR; s <= HBBP_SRC_EBS_FALLBACK; s++)
		if (bits == 1u << s)
			return hbbp_source_name((enum hbbp_source)s);
	return "mixed";
}

/* The mix table: a column per key, the counts, the cycles (unset without cycle data: only the SQL
 * stores write them), with --diagnostics theirs. */
static int mix_columns(struct result *res, const struct hbbp_mix_opts *o, bool cyc,
		       struct result_table **t)
{
	static const char *const counts[] = {
		"count:real", "count_lo:real", "count_hi:real", "share:real",
	};
	static const char *const block[] = { "length:int", "executions:real" };
	static const char *const cycles[] = {
		"cycles:real", "cycles_lo:real", "cycles_hi:real", "ipc:real", "cycles_share:real",
	};
	static const char *const diag[] = {
		"source:text", "ebs_count:real", "lbr_count:real", "ebs_samples:int",
		"lbr_streams:int", "biased:int", "lbr_count_plain:real",
	};
	const char *cols[HBBP_MAX_KEYS + 21];
	char spec[HBBP_MAX_KEYS][128];
	size_t i, nc = 0, nk;
	int err;

	for (i = 0; i < o->nr_keys; i++) {
		snprintf(spec[i], sizeof(spec[i]), "%s:%s", hbbp_mix__key_name(o, i),
			 o->keys[i]->type == KEY_INT ? "int" : "text");
		cols[nc++] = spec[i];
	}
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		cols[nc++] = counts[i];
	nk = nc;
	for (i = 0; i < sizeof(cycles) / sizeof(cycles[0]); i++)
		cols[nc++] = cycles[i];
	for (i = 0; o->diagnostics && i < sizeof(diag) / sizeof(diag[0]); i++)
		cols[nc++] = diag[i];
	for (i = 0; (hbbp_mix__needs(o) & HBBP_KEY_BLOCK) && i < 2; i++)
		cols[nc++] = block[i];
	err = result__add_table(res, "mix", cols, nc, t);
	for (i = 0; !err && i < sizeof(cycles) / sizeof(cycles[0]); i++)
		(*t)->cols[nk + i].unset = !cyc;
	return err;
}

/* The mix table's rows, made as they are read (result_table__rows_from) from the summed rows
 * in the table's order: millions of rows are never held as cells. */
#define MIX_AHEAD	16	/* rows ahead of the one made whose memory is asked for */

struct mix_table {
	struct mix_rows rows;
	size_t *order;			/* the table's rows: their rows' numbers */
	size_t nr, nr_keys;		/* the table's rows, its keys */
	bool text[HBBP_MAX_KEYS];	/* key k is a name (its id's text) */
	bool diag;
	double total, total_cyc;	/* the shares' wholes (total_cyc < 0: no cycle data) */
};

static void mix_table__release(void *ctx)
{
	struct mix_table *m = ctx;

	mix_rows__exit(&m->rows);
	free(m->order);
	free(m);
}

/* The cycles cells of row (docs/METHOD-cycles.md) from cell c: empty where its blocks have no cycle
 * data; ipc over the instructions of its blocks with cycle data. The interval is the row's,
 * widened as the counts' (mix_rows.c: the cycles scale with the counts). */
static void cycles_cells(struct result_cell *c, const struct mix_row_cycles *row, double total)
{
	if (!(row->cyc_count > 0) || !(row->cycles > 0))
		return;
	result_cell__real(&c[0], hbbp_round_count(row->cycles));
	result_cell__real(&c[1], hbbp_round_count(row->cyc_lo));
	result_cell__real(&c[2], hbbp_round_count(row->cyc_hi));
	result_cell__real(&c[3], round_sig(row->cyc_count / row->cycles, 6));
	result_cell__real(&c[4], hbbp_round_share(total > 0 ? row->cycles / total : 0));
}

/* A text cell (NULL: empty); s is the caller's, kept until the row is written. */
static void text_cell(struct result_cell *c, const char *s)
{
	*c = (struct result_cell){ .type = RES_TEXT, .s = s ? s : "" };
}

/* The table's row r (result_fill_fn): the keys' values formatted (a name id's text), the
 * counts rounded. */
static void mix_fill(void *ctx, size_t r, struct result_cell *cell)
{
	const struct mix_table *m = ctx;
	const struct mix_rows *rows = &m->rows;
	size_t i = m->order[r], j;
	const uint64_t *ids = mix_rows__ids(rows, i);
	const struct mix_row_final *row = mix_rows__row(rows, i);
	const struct mix_row_diag *dg = mix_rows__diag(rows, i);
	const struct mix_row_block *bk = mix_rows__block(rows, i);

	/* the rows are read in the table's order, not in memory's: the one ahead asked (a row
	 * may span two cache lines) */
	if (r + MIX_AHEAD < m->nr) {
		const unsigned char *ahead = (const void *)mix_rows__ids(rows, m->order[r + MIX_AHEAD]);

		__builtin_prefetch(ahead);
		__builtin_prefetch(ahead + rows->done_size - 1);
	}
	for (j = 0; j < m->nr_keys; j++) {
		if (m->text[j])
			text_cell(&cell[j], rows->names[ids[j]]);
		else if (ids[j] != KEY_NONE)
			result_cell__int(&cell[j], (int64_t)ids[j]);
	}
	result_cell__real(&cell[j++], hbbp_round_count(row->count));
	result_cell__real(&cell[j++], hbbp_round_count(row->lo));
	result_cell__real(&cell[j++], hbbp_round_count(row->hi));
	result_cell__real(&cell[j++], hbbp_round_share(m->total > 0 ? row->count / m->total : 0));
	if (m->total_cyc >= 0)
		cycles_cells(&cell[j], mix_rows__cycles(rows, i), m->total_cyc);
	j += 5;
	if (m->diag) {
		text_cell(&cell[j++], source_name(dg->sources));
		result_cell__real(&cell[j++], hbbp_round_count(dg->ebs_count));
		result_cell__real(&cell[j++], hbbp_round_count(dg->lbr_count));
		result_cell__int(&cell[j++], (int64_t)dg->ebs_samples);
		result_cell__int(&cell[j++], (int64_t)dg->lbr_streams);
		result_cell__int(&cell[j++], dg->biased);
		result_cell__real(&cell[j++], hbbp_round_count(dg->lbr_count_plain));
	}
	if (bk && bk->length) {	/* empty without code: its count is not executions x length */
		result_cell__int(&cell[j], bk->length);
		result_cell__real(&cell[j + 1], hbbp_round_count(row->count / bk->per_exec));
	}
}

static int table_mix(struct result *res, const struct mix_ctx *x, double *total_out)
{
	const struct hbbp_mix_opts *o = x->o;
	struct mix_table *m = calloc(1, sizeof(*m));
	struct mix_rows *rows = m ? &m->rows : NULL;
	struct result_table *t = NULL;
	size_t i, nr;
	int err;

	if (!m)
		return -ENOMEM;
	err = mix_rows__sum(rows, x);
	m->nr_keys = o->nr_keys;
	for (i = 0; i < o->nr_keys; i++)
		m->text[i] = o->keys[i]->type == KEY_TEXT;
	m->diag = o->diagnostics;
	m->total_cyc = x->c->has_cycles ? 0 : -1;
	nr = mix_rows__nr(rows);
	for (i = 0; i < nr && !err; i++) {
		m->total += mix_rows__row(rows, i)->count;
		if (m->total_cyc >= 0)
			m->total_cyc += mix_rows__cycles(rows, i)->cycles;
	}
	if (total_out)
		*total_out = m->total;
	if (o->percentage == HBBP_SHARE_ABSOLUTE)	/* perf's: of every sample */
		m->total += rows->filtered_out;
	if (!err)
		m->order = malloc((nr ? nr : 1) * sizeof(*m->order));
	if (!err)
		err = m->order ? mix_rows__order(rows, o, m->order) : -ENOMEM;
	if (!err)
		err = mix_columns(res, o, m->total_cyc >= 0, &t);
	if (err) {
		mix_table__release(m);
		return err;
	}
	m->nr = o->top && o->top < nr ? o->top : nr;
	return result_table__rows_from(t, m->nr, mix_fill, mix_table__release, m);
}

/* ---- the other tables ---- */

struct ids {
	size_t *block_order;		/* blocks sorted */
	int64_t *block_id;		/* per block index */
	int64_t *block_module;		/* module id per block index (0: none) */
	int64_t *block_symbol;		/* symbol id per block index (0: none) */
	struct bbmap_dso **mods;	/* module_id - 1 -> dso */
	size_t nr_mods;
};

/* qsort_r context of the table sorts */
struct sort_ctx {
	const struct mix_ctx *x;
	const struct ids *ids;
};

static int dso_cmp(const void *pa, const void *pb, void *arg)
{
	const struct mix_ctx *x = ((const struct sort_ctx *)arg)->x;
	const struct bbmap_dso *a = *(struct bbmap_dso *const *)pa, *b = *(struct bbmap_dso *const *)pb;
	int r = strcmp(mix__dso_full(x, a), mix__dso_full(x, b));

	if (r)
		return r;
	return (uintptr_t)a < (uintptr_t)b ? -1 : (uintptr_t)a > (uintptr_t)b;
}

static int block_cmp(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *sc = arg;
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	const struct hbbp_block *a = &sc->x->c->blocks[ia], *b = &sc->x->c->blocks[ib];
	int64_t ma = sc->ids->block_module[ia], mb = sc->ids->block_module[ib];

	if (ma != mb)
		return ma < mb ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return 0;
}

static void ids_free(struct ids *ids)
{
	free(ids->block_order);
	free(ids->block_id);
	free(ids->block_module);
	free(ids->block_symbol);
	free(ids->mods);
}

static int ids_build(struct ids *ids, const struct mix_ctx *x)
{
	const struct hbbp_counts *c = x->c;
	struct hmap seen;
	struct sort_ctx sc;
	size_t i, nb = c->nr_blocks;
	int err = 0;

	memset(ids, 0, sizeof(*ids));
	ids->block_order = calloc(nb + 1, sizeof(size_t));
	ids->block_id = calloc(nb + 1, sizeof(int64_t));
	ids->block_module = calloc(nb + 1, sizeof(int64_t));
	ids->block_symbol = calloc(nb + 1, sizeof(int64_t));
	ids->mods = calloc(nb + x->d->unres.nr + 1, sizeof(*ids->mods));
	if (!ids->block_order || !ids->block_id || !ids->block_module || !ids->block_symbol ||
	    !ids->mods)
		return -ENOMEM;
	hmap__init(&seen, 1, sizeof(uint64_t));
	/* modules: every dso with a block or unresolved weight */
	for (i = 0; i < nb + x->d->unres.nr; i++) {
		struct bbmap_dso *dso = i < nb ? c->blocks[i].dso :
			((struct hbbp_unresolved *)hmap__val_at(&x->d->unres, i - nb))->dso;
		uint64_t key;
		int ins;

		if (!dso)
			continue;
		key = (uintptr_t)dso;
		if (!hmap__get(&seen, &key, &ins)) {
			err = -ENOMEM;
			goto out;
		}
		if (ins)
			ids->mods[ids->nr_mods++] = dso;
	}
	sc.x = x;
	sc.ids = ids;
	if (ids->nr_mods)
		qsort_r(ids->mods, ids->nr_mods, sizeof(*ids->mods), dso_cmp, &sc);
	for (i = 0; i < ids->nr_mods; i++) {
		uint64_t key = (uintptr_t)ids->mods[i];

		*(uint64_t *)hmap__find(&seen, &key) = i + 1;
	}
	for (i = 0; i < nb; i++) {
		uint64_t key = (uintptr_t)c->blocks[i].dso;
		const uint64_t *m = c->blocks[i].dso ? hmap__find(&seen, &key) : NULL;

		ids->block_module[i] = m ? (int64_t)*m : 0;
		ids->block_order[i] = i;
	}
	if (nb)
		qsort_r(ids->block_order, nb, sizeof(size_t), block_cmp, &sc);
	for (i = 0; i < nb; i++)
		ids->block_id[ids->block_order[i]] = (int64_t)i + 1;
out:
	hmap__exit(&seen);
	return err;
}

static int table_modules(struct result *res, const struct mix_ctx *x, const struct ids *ids)
{
	struct result_table *t;
	size_t i;
	int err = result__add_table(res, "modules", schema_modules, SCHEMA_NR(schema_modules), &t);

	for (i = 0; i < ids->nr_mods && !err; i++) {
		struct bbmap_dso *dso = ids->mods[i];
		struct result_cell *cell = result_table__add_row(t);
		struct bbmap_module *m = NULL;
		enum bbmap_dso_status st = x->ops->dso_module(x->ops->ctx, dso, &m);
		const char *path = x->ops->dso_path ? x->ops->dso_path(x->ops->ctx, dso) : NULL;
		const char *detail = x->ops->dso_status_detail ?
			x->ops->dso_status_detail(x->ops->ctx, dso) : NULL;
		static const char *const kinds[] = { "user", "kernel", "kmodule", "vdso", "jit",
						     "ksymbol", "anon" };
		enum bbmap_dso_kind k = x->ops->dso_kind ? x->ops->dso_kind(x->ops->ctx, dso) :
				       DSO_KIND_USER;
		const uint8_t *bid;
		size_t bsz;

		if (!cell)
			return -ENOMEM;
		result_cell__int(&cell[0], (int64_t)i + 1);
		err = result_cell__text(t, &cell[1], mix__dso_full(x, dso));
		if (!err && path)
			err = result_cell__text(t, &cell[2], path);
		if (!err && st == DSO_OK && m && x->ops->module_build_id &&
		    (bsz = x->ops->module_build_id(x->ops->ctx, m, &bid)) > 0) {
			char hex[41];

			err = result_cell__text(t, &cell[3], hbbp_build_id_hex(bid, bsz, hex));
		}
		if (!err)
			err = result_cell__text(t, &cell[4], (unsigned)k < 7 ? kinds[k] : "?");
		if (!err)
			err = result_cell__text(t, &cell[5], bbmap_dso_status_name(st));
		if (!err && detail)
			err = result_cell__text(t, &cell[6], detail);
	}
	return err;
}

struct sym_key { int64_t module; uint64_t start; const char *name; size_t block; };

static int sym_cmp(const void *pa, const void *pb)
{
	const struct sym_key *a = pa, *b = pb;

	if (a->module != b->module)
		return a->module < b->module ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int table_symbols(struct result *res, const struct mix_ctx *x, struct ids *ids)
{
	const struct hbbp_counts *c = x->c;
	struct sym_key *sk = calloc(c->nr_blocks + 1, sizeof(*sk));
	struct result_table *t;
	size_t i, n = 0;
	int64_t id = 0;
	int err;

	if (!sk)
		return -ENOMEM;
	for (i = 0; i < c->nr_blocks; i++) {
		if (!c->blocks[i].symname)
			continue;
		sk[n].module = ids->block_module[i];
		sk[n].start = c->blocks[i].sym_start;
		sk[n].name = c->blocks[i].symname;
		sk[n].block = i;
		n++;
	}
	if (n)
		qsort(sk, n, sizeof(*sk), sym_cmp);
	err = result__add_table(res, "symbols", schema_symbols, SCHEMA_NR(schema_symbols), &t);
	for (i = 0; i < n && !err; i++) {
		const struct hbbp_block *b = &c->blocks[sk[i].block];

		if (!i || sym_cmp(&sk[i], &sk[i - 1])) {
			struct result_cell *cell = result_table__add_row(t);

			if (!cell) {
				err = -ENOMEM;
				break;
			}
			id++;
			result_cell__int(&cell[0], id);
			if (sk[i].module)
				result_cell__int(&cell[1], sk[i].module);
			err = result_cell__text(t, &cell[2], sk[i].name);
			result_cell__int(&cell[3], (int64_t)sk[i].start);
			result_cell__int(&cell[4], (int64_t)b->sym_size);
		}
		ids->block_symbol[sk[i].block] = id;
	}
	free(sk);
	return err;
}

/* What the tables blocks, instructions, thread_blocks and block_cycles make their rows from,
 * as a writer reads them (a row at a time: nothing of the largest tables is held), or at
 * once for a listing that holds them; shared by the four tables, freed with the last. */
struct store {
	const struct hbbp_counts *c;
	const struct hbbp_accum *d;
	struct ids ids;
	const struct bbmap_block **code;	/* per block in order: its code, NULL: none */
	size_t *first;			/* per block in order: its first instruction row; [nb]:
					 * their number */
	size_t *tb_order;		/* thread_blocks' rows: thread block index */
	size_t at;			/* the block in order of the instruction row made last */
	unsigned refs;
	char src_block[4096], src_insn[4096];	/* the srcline of the row made last */
};

static void store__release(void *ctx)
{
	struct store *s = ctx;

	if (!s || --s->refs)
		return;
	ids_free(&s->ids);
	free(s->code);
	free(s->first);
	free(s->tb_order);
	free(s);
}

/* Table t's n rows made by fill from s: held (texts copied) or made as they are read. */
static int store__rows(struct result_table *t, size_t n, result_fill_fn fill, struct store *s,
		       bool held)
{
	size_t i, k;
	int err = 0;

	if (!held) {		/* s lives until the table's last reader is done */
		s->refs++;
		return result_table__rows_from(t, n, fill, store__release, s);
	}
	err = result_table__reserve(t, n);
	for (i = 0; i < n && !err; i++) {
		struct result_cell *cell = result_table__add_row(t);

		if (!cell) {
			err = -ENOMEM;
			break;
		}
		for (fill(s, i, cell), k = 0; !err && k < t->nr_cols; k++)
			if (cell[k].type == RES_TEXT)
				err = result_cell__text(t, &cell[k], cell[k].s);
	}
	return err;
}

/* The blocks' cycles, row for row with the table blocks (NULL without cycle data). */
static void fill_block_cycles(void *ctx, size_t row, struct result_cell *cell)
{
	const struct store *s = ctx;
	size_t bi = s->ids.block_order[row];
	const struct hbbp_block *b = &s->c->blocks[bi];
	double lo, hi;

	result_cell__int(&cell[0], s->ids.block_id[bi]);
	if (!(b->cyc.w > 0))
		return;
	result_cell__real(&cell[1], b->cyc.cycles);
	if (!s->c->block_cycles_bs)
		return;
	hbbp_interval__estimates(b->cyc.cycles, s->c->block_cycles_bs[bi].b, HBBP_BATCHES, &lo,
				 &hi);
	hbbp_interval__widen(b->cyc.cycles, s->c->widen, &lo, &hi);
	result_cell__real(&cell[2], lo);
	result_cell__real(&cell[3], hi);
}

static void fill_block(void *ctx, size_t row, struct result_cell *cell)
{
	struct store *s = ctx;
	const struct hbbp_counts *c = s->c;
	size_t bi = s->ids.block_order[row], j;
	const struct hbbp_block *b = &c->blocks[bi];
	const struct bbmap_block *blk = s->code[row];
	double bx[HBBP_BATCHES];
	bool lbr;

	result_cell__int(&cell[0], s->ids.block_id[bi]);
	if (s->ids.block_module[bi])
		result_cell__int(&cell[1], s->ids.block_module[bi]);
	if (s->ids.block_symbol[bi])
		result_cell__int(&cell[2], s->ids.block_symbol[bi]);
	result_cell__int(&cell[3], (int64_t)b->start);
	if (b->kind == HBBP_BLK_CODE) {
		result_cell__int(&cell[4], b->nr_insns);
		result_cell__int(&cell[5], (int64_t)(b->end - b->start));
	}
	mix__srcline(blk && blk->nr_insns ? &blk->insns[0] : NULL, s->src_block,
		     sizeof(s->src_block));
	text_cell(&cell[6], b->kind != HBBP_BLK_CODE ? mix__kind_marker(b->kind) : s->src_block);
	if (b->kind == HBBP_BLK_CODE) {	/* without code, the count is instructions */
		result_cell__real(&cell[7], b->count);
		result_cell__real(&cell[8], b->count_lo);
		result_cell__real(&cell[9], b->count_hi);
	}
	result_cell__real(&cell[10], b->ebs_est);
	result_cell__real(&cell[11], b->lbr_est);
	text_cell(&cell[12], hbbp_source_name(b->source));
	result_cell__int(&cell[13], (int64_t)b->ebs_samples);
	result_cell__int(&cell[14], (int64_t)b->lbr_streams);
	result_cell__int(&cell[15], b->biased);
	result_cell__real(&cell[16], b->bias_share);
	result_cell__real(&cell[17], b->count * (b->kind == HBBP_BLK_CODE ? b->nr_insns : 1));
	/* the batch estimates over K, as thread_blocks': what a pivot's interval needs */
	lbr = hbbp_block__uses_lbr(b);
	if (c->block_count_bs)
		hbbp_counts__batch_estimates(c, lbr ? NULL : &c->block_count_bs[bi],
					     lbr ? &c->block_count_bs[bi] : NULL, bx);
	for (j = 0; c->block_count_bs && j < HBBP_BATCHES; j++)
		result_cell__real(&cell[SCHEMA_BLOCKS_BATCH0 + j], bx[j] / HBBP_BATCHES);
}

/* Instruction row row: of the block in order at (rows are read in order, mostly). */
static void fill_insn(void *ctx, size_t row, struct result_cell *ic)
{
	struct store *s = ctx;
	size_t lo = 0, hi = s->c->nr_blocks, at = s->at, bi, j;
	const struct bbmap_insn *in;

	if (!(row >= s->first[at] && row < s->first[at + 1])) {
		while (lo + 1 < hi) {	/* the last block whose first row is at most row */
			size_t mid = lo + (hi - lo) / 2;

			if (s->first[mid] <= row)
				lo = mid;
			else
				hi = mid;
		}
		while (lo + 1 < s->c->nr_blocks && s->first[lo + 1] <= row)
			lo++;	/* past the blocks without instructions */
		s->at = at = lo;
	}
	bi = s->ids.block_order[at];
	j = row - s->first[at];
	in = &s->code[at]->insns[j];
	result_cell__int(&ic[0], s->ids.block_id[bi]);
	if (s->ids.block_module[bi])
		result_cell__int(&ic[1], s->ids.block_module[bi]);
	result_cell__int(&ic[2], (int64_t)in->addr);
	result_cell__int(&ic[3], (int64_t)j);
	text_cell(&ic[4], in->mnemonic);
	text_cell(&ic[5], in->iclass);
	text_cell(&ic[6], bbmap_isa_name(in->isa));
	text_cell(&ic[7], bbmap_category_name(in->category));
	text_cell(&ic[8], bbmap_packing_name(in->packing));
	text_cell(&ic[9], bbmap_elem_name(in->elem));
	result_cell__int(&ic[10], in->width);
	result_cell__int(&ic[11], !!(in->flags & BBMAP_INSN_MEM_READ));
	result_cell__int(&ic[12], !!(in->flags & BBMAP_INSN_MEM_WRITE));
	result_cell__int(&ic[13], in->nr_ops);
	result_cell__int(&ic[14], in->len);
	mix__srcline(in, s->src_insn, sizeof(s->src_insn));
	text_cell(&ic[15], s->src_insn);
	text_cell(&ic[16], bbmap_isa_set_name(in->isa_set));
}

/* The tables blocks and instructions; each block's code found first (and so the number of
 * instruction rows). */
static int table_blocks(struct result *res, const struct mix_ctx *x, struct store *s)
{
	const struct hbbp_counts *c = x->c;
	struct result_table *t, *ti;
	size_t i, nb = c->nr_blocks;
	int err = result__add_table(res, "blocks", schema_blocks, SCHEMA_NR(schema_blocks), &t);

	if (!err)
		err = result__add_table(res, "instructions", schema_instructions,
					SCHEMA_NR(schema_instructions), &ti);
	s->code = calloc(nb + 1, sizeof(*s->code));
	s->first = calloc(nb + 1, sizeof(*s->first));
	if (!err && (!s->code || !s->first))
		err = -ENOMEM;
	for (i = 0; i < nb && !err; i++) {
		const struct hbbp_block *b = &c->blocks[s->ids.block_order[i]];
		const struct bbmap_block *blk = NULL;

		if (b->kind == HBBP_BLK_CODE &&
		    !x->ops->block_at(x->ops->ctx, b->mod, b->start, &blk) && blk->start == b->start)
			s->code[i] = blk;
		s->first[i + 1] = s->first[i] + (s->code[i] ? s->code[i]->nr_insns : 0);
	}
	if (!err)
		err = store__rows(t, nb, fill_block, s, x->o->block_cycles);
	if (!err)
		err = store__rows(ti, s->first[nb], fill_insn, s, x->o->block_cycles);
	return err;
}

static int tblock_cmp(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *sc = arg;
	const struct ids *tb_ids = sc->ids;
	struct hbbp_tblock ta, tb;
	const struct hbbp_tblock *a = hbbp_counts__tblock(sc->x->c, *(const size_t *)pa, &ta);
	const struct hbbp_tblock *b = hbbp_counts__tblock(sc->x->c, *(const size_t *)pb, &tb);

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return tb_ids->block_id[a->block] < tb_ids->block_id[b->block] ? -1 :
	       tb_ids->block_id[a->block] > tb_ids->block_id[b->block];
}

static void fill_tblock(void *ctx, size_t row, struct result_cell *cell)
{
	const struct store *s = ctx;
	const struct hbbp_counts *c = s->c;
	struct hbbp_tblock tmp;
	const struct hbbp_tblock *tb = hbbp_counts__tblock(c, s->tb_order[row], &tmp);
	uint32_t tid;
	const char *comm = hbbp_accum__comm(s->d, tb->pid, tb->tid, &tid);
	double bx[HBBP_BATCHES];
	size_t j;
	bool lbr;

	result_cell__int(&cell[0], tb->pid);
	result_cell__int(&cell[1], tid);
	if (comm)
		text_cell(&cell[2], comm);
	result_cell__int(&cell[3], s->ids.block_id[tb->block]);
	result_cell__real(&cell[4], tb->count);
	result_cell__real(&cell[5], tb->count_lo);
	result_cell__real(&cell[6], tb->count_hi);
	result_cell__real(&cell[7], tb->ebs_est);
	result_cell__real(&cell[8], tb->lbr_est);
	/* the batch estimates over K: the views sum them and take their spread */
	lbr = hbbp_block__uses_lbr(&c->blocks[tb->block]);
	hbbp_counts__batch_estimates(c, lbr ? NULL : &tb->count_bs, lbr ? &tb->count_bs : NULL,
				     bx);
	for (j = 0; j < HBBP_BATCHES; j++)
		result_cell__real(&cell[SCHEMA_TB_BATCH0 + j], bx[j] / HBBP_BATCHES);
}

static int table_thread_blocks(struct result *res, const struct mix_ctx *x, struct store *s)
{
	const struct hbbp_counts *c = x->c;
	struct result_table *t;
	struct sort_ctx sc;
	size_t i, n = 0;
	int err;

	s->tb_order = calloc(c->nr_tblocks + 1, sizeof(size_t));
	if (!s->tb_order)
		return -ENOMEM;
	for (i = 0; i < c->nr_tblocks; i++) {
		struct hbbp_tblock tmp;

		if (mix__passes(x, hbbp_counts__tblock(c, i, &tmp)))
			s->tb_order[n++] = i;
	}
	sc.x = x;
	sc.ids = &s->ids;
	if (n)
		qsort_r(s->tb_order, n, sizeof(size_t), tblock_cmp, &sc);
	err = result__add_table(res, "thread_blocks", schema_thread_blocks,
				SCHEMA_NR(schema_thread_blocks), &t);
	return err ? err : store__rows(t, n, fill_tblock, s, x->o->block_cycles);
}
static int table_events(struct result *res, const struct mix_ctx *x,
			const struct perf_event_info *const *events)
{
	struct result_table *t;
	size_t i;
	int err = result__add_table(res, "events", schema_events, SCHEMA_NR(schema_events), &t);

	for (i = 0; i < x->d->nr_events && !err; i++) {
		const struct perf_event_info *e = events[i];
		const struct hbbp_event_state *s = &x->d->ev[i];
		struct result_cell *cell = result_table__add_row(t);

		if (!cell)
			return -ENOMEM;
		result_cell__int(&cell[0], (int64_t)i);
		err = result_cell__text(t, &cell[1], e->name ? e->name : "");
		result_cell__int(&cell[2], e->attr.type);
		result_cell__int(&cell[3], (int64_t)e->attr.config);
		result_cell__int(&cell[4], (int64_t)e->attr.sample_type);
		result_cell__int(&cell[5], (int64_t)e->attr.branch_sample_type);
		result_cell__int(&cell[6], (int64_t)e->attr.sample_period);
		result_cell__int(&cell[7], perf_evattr__freq(&e->attr));
		result_cell__int(&cell[8], perf_evattr__precise_ip(&e->attr));
		if (!err)
			err = result_cell__text(t, &cell[9], hbbp_role_name(s->role));
		if (!err && s->role_reason)
			err = result_cell__text(t, &cell[10], s->role_reason);
		result_cell__int(&cell[11], (int64_t)s->samples);
		result_cell__int(&cell[12], (int64_t)(e->nr_lost + e->nr_lost_samples));
		result_cell__int(&cell[13], (int64_t)e->nr_throttle);
		result_cell__int(&cell[14], (int64_t)s->time_enabled);
		result_cell__int(&cell[15], (int64_t)s->time_running);
	}
	return err;
}

/* A dso's recorded name as the tables show it: "[unmapped]" for none, "[unknown]" unnamed. */
static const char *unres_name(const struct hbbp_accum *d, const struct hbbp_unresolved *u)
{
	const char *n = u->dso ? d->code->dso_name(d->code->ctx, u->dso) : "[unmapped]";

	return n ? n : "[unknown]";
}

struct unres_order { const struct hbbp_accum *d; bool heaviest; };

static int unres_cmp(const void *pa, const void *pb, void *arg)
{
	const struct unres_order *o = arg;
	const struct hbbp_unresolved *a = *(const struct hbbp_unresolved *const *)pa;
	const struct hbbp_unresolved *b = *(const struct hbbp_unresolved *const *)pb;
	double wa = a->ebs_weight + a->lbr_weight, wb = b->ebs_weight + b->lbr_weight;

	if (o->heaviest && wa != wb)
		return wa > wb ? -1 : 1;
	return strcmp(unres_name(o->d, a), unres_name(o->d, b));
}

const struct hbbp_unresolved **hbbp_unresolved__weighted(const struct hbbp_accum *d,
							  bool heaviest, size_t *nr)
{
	const struct hbbp_unresolved **v = calloc(d->unres.nr + 1, sizeof(*v));
	struct unres_order o = { d, heaviest };
	const struct hbbp_unresolved *u;
	const uint64_t *key;
	size_t i, n = 0;

	*nr = 0;
	if (!v)
		return NULL;
	hmap__for_each(&d->unres, i, key, u) {
		if (u->ebs_weight > 0 || u->lbr_weight > 0)
			v[n++] = u;
	}
	if (n)
		qsort_r(v, n, sizeof(*v), unres_cmp, &o);
	*nr = n;
	return v;
}

/* "name ebs=W lbr=W; ..." for every dso with unresolved weight, sorted by name. */
static int meta_unresolved(struct result *res, const struct mix_ctx *x)
{
	size_t cap = 0, len = 0, i, n;
	const struct hbbp_unresolved **v = hbbp_unresolved__weighted(x->d, false, &n);
	char *buf = NULL;
	int err = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		const char *name = unres_name(x->d, v[i]);
		int w = snprintf(NULL, 0, "%s%s ebs=%.17g lbr=%.17g", i ? "; " : "", name,
				 v[i]->ebs_weight, v[i]->lbr_weight);

		err = w < 0 ? -EINVAL : grow_array((void **)&buf, &cap, 1, len + (size_t)w + 1,
						   (size_t)-1);
		if (!err)
			len += (size_t)snprintf(buf + len, cap - len, "%s%s ebs=%.17g lbr=%.17g",
						i ? "; " : "", name, v[i]->ebs_weight,
						v[i]->lbr_weight);
	}
	if (!err)
		err = result__meta_text(res, "unresolved_by_module", buf ? buf : "");
	free(buf);
	free(v);
	return err;
}

/* Method metadata: cutoff, method, samples used, rejections, lost/throttled, unresolved. */
static int mix_meta(struct result *res, const struct mix_ctx *x)
{
	const struct hbbp_accum *d = x->d;
	const struct perf_reader_stats *rs = x->rs;
	const struct hbbp_unresolved *u;
	const uint64_t *ukey;
	uint64_t lost_records = rs->nr_records[PERF_RECORD_LOST], throttled = rs->nr_throttle;
	uint64_t ebs_used = 0, lbr_used = 0, streams = 0;
	double unres_ebs = 0, unres_lbr = 0, sweight = 0;
	char key[64];
	size_t i;
	int err = 0;

	for (i = 0; i < d->nr_events; i++) {
		const struct hbbp_event_state *e = &d->ev[i];

		if (e->role == HBBP_ROLE_EBS)
			ebs_used += e->samples_used;
		if (e->role == HBBP_ROLE_LBR) {
			lbr_used += e->samples_used;
			streams += e->streams;
			sweight += e->stream_weight;
		}
	}
	hmap__for_each(&d->unres, i, ukey, u) {
		unres_ebs += u->ebs_weight;
		unres_lbr += u->lbr_weight;
	}
	err = err ? err : result__meta_text(res, "method", hbbp_method_name(x->c->method));
	err = err ? err : result__meta_int(res, "cutoff", x->c->cutoff);
	err = err ? err : result__meta_int(res, "ebs_samples_used", (int64_t)ebs_used);
	err = err ? err : result__meta_int(res, "lbr_samples_used", (int64_t)lbr_used);
	err = err ? err : result__meta_int(res, "lbr_streams", (int64_t)streams);
	err = err ? err : result__meta_real(res, "lbr_stream_weight", hbbp_round_count(sweight));
	err = err ? err : result__meta_real(res, "lbr_weight_attributed",
					    hbbp_round_count(x->c->lbr_weight_attributed));
	err = err ? err : result__meta_real(res, "ebs_weight_attributed",
					    hbbp_round_count(x->c->ebs_weight_attributed));
	for (i = 0; i < REJ__COUNT && !err; i++) {
		snprintf(key, sizeof(key), "streams_rejected_%s", hbbp_reject_name(i));
		err = result__meta_int(res, key, (int64_t)d->rejected[i]);
		snprintf(key, sizeof(key), "weight_rejected_%s", hbbp_reject_name(i));
		if (!err)
			err = result__meta_real(res, key, hbbp_round_count(d->rejected_weight[i]));
	}
	err = err ? err : result__meta_int(res, "lost_records", (int64_t)lost_records);
	err = err ? err : result__meta_int(res, "lost_events", (int64_t)rs->nr_lost);
	err = err ? err : result__meta_int(res, "lost_samples", (int64_t)rs->nr_lost_samples);
	err = err ? err : result__meta_int(res, "throttled", (int64_t)rs->nr_throttle);
	if (!err)
		err = meta_unresolved(res, x);
	err = err ? err : result__meta_real(res, "unresolved_ebs_weight", hbbp_round_count(unres_ebs));
	err = err ? err : result__meta_real(res, "unresolved_lbr_weight", hbbp_round_count(unres_lbr));
	err = err ? err : result__meta_int(res, "biased_branches",
					   (int64_t)x->c->nr_biased_branches);
	for (i = 0; i < d->nr_events; i++)	/* throttling corrected: no bias left to warn of */
		if (d->ev[i].throttle_scale != 1.0)
			throttled = 0;
	if (!err && (lost_records || rs->nr_lost_samples || throttled))
		err = result__warn(res, "samples were lost or throttled (%" PRIu64 " LOST records, "
				   "%" PRIu64 " lost samples, %" PRIu64 " THROTTLE records): the "
				   "estimate is biased", lost_records, rs->nr_lost_samples,
				   rs->nr_throttle);
	for (i = 0; i < d->nr_events && !err; i++) {
		const struct hbbp_event_state *e = &d->ev[i];
		double mux = e->scale / e->throttle_scale;

		if (e->role == HBBP_ROLE_UNUSED)
			continue;
		if (mux != 1.0)
			err = result__warn(res, "event '%s' was multiplexed (running %.1f%% of the "
					   "time): its estimates are scaled by %.4f",
					   e->name ? e->name : "?", 100.0 / mux, mux);
		if (!err && e->throttled_frac > 0)
			err = result__warn(res, "event '%s' was throttled %.2f%% of its sampled "
					   "span: its estimates are %s", e->name ? e->name : "?",
					   100.0 * e->throttled_frac, e->throttle_scale != 1.0 ?
					   "scaled by the factor throttle_scale_N, the intervals "
					   "widened by its uncertainty throttle_spread_N" :
					   "not scaled (--no-throttle-correction)");
		if (!err && e->throttled_frac > 0) {
			char mkey[48];

			snprintf(mkey, sizeof(mkey), "throttle_scale_%zu", i);
			err = result__meta_real(res, mkey, e->throttle_scale);
			snprintf(mkey, sizeof(mkey), "throttle_spread_%zu", i);
			err = err ? err : result__meta_real(res, mkey, e->throttle_spread);
		}
	}
	return err;
}

int hbbp_mix__build(struct result *res, const struct hbbp_counts *c, struct hbbp_accum *d,
		    const struct hbbp_code_ops *ops, const struct perf_event_info *const *events,
		    const struct perf_reader_stats *rs, const struct hbbp_mix_opts *o,
		    double *total_out)
{
	static const char *const cycle_cols[] = { "block_id:int", "cycles:real",
						  "cycles_lo:real", "cycles_hi:real" };
	const struct mix_ctx x = { .c = c, .d = d, .ops = ops, .o = o, .rs = rs };
	struct store *s = NULL;
	struct result_table *t;
	int err;

	err = table_mix(res, &x, total_out);
	if (!err)
		err = table_events(res, &x, events);
	if (o->mix_only)
		goto meta;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->c = c;
	s->d = d;
	s->refs = 1;
	err = ids_build(&s->ids, &x);
	if (!err)
		err = table_modules(res, &x, &s->ids);
	if (!err)
		err = table_symbols(res, &x, &s->ids);
	if (!err)
		err = table_blocks(res, &x, s);
	if (!err && o->threads)	/* sums kept per thread: asked for */
		err = table_thread_blocks(res, &x, s);
	if (!err && o->block_cycles && c->has_cycles) {
		err = result__add_table(res, "block_cycles", cycle_cols, 4, &t);
		err = err ? err : store__rows(t, c->nr_blocks, fill_block_cycles, s, true);
	}
	/* what a later pivot of the stored run can read */
	err = err ? err : result__meta_int(res, "stored_threads", o->threads);
	err = err ? err : result__meta_int(res, "stored_lines", o->lines);
meta:
	if (!err)
		err = mix_meta(res, &x);
	store__release(s);
	return err;
}
