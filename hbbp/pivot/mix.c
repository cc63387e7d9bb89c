/* The instruction-mix pivot and the result tables (see hbbp/pivot/mix.h for the row markers).
 * Rows are aggregated in a hash keyed by the joined key values, sorted by count descending
 * then by the keys (numerically for pid/tid/width), so the output is deterministic.
 * With threads, the code blocks' instructions come from hbbp/pivot/mix_reader.h.
 * Depends on hbbp/method/method.h, bbmap/insn_attr.h names and writers/result.h; never prints.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/pivot/mix.h"
#include "hbbp/pivot/mix_reader.h"
#include "util/hbbp_err.h"
#include "writers/schema.h"
#include "util/grow.h"
#include "util/radix.h"

_Static_assert(SCHEMA_BATCHES == HBBP_BATCHES, "thread_blocks has a column per batch");
_Static_assert(SCHEMA_TB_BATCH0 + SCHEMA_BATCHES == SCHEMA_NR(schema_thread_blocks),
	       "the batch columns end thread_blocks");

#define SEP '\x1f'

static const char *const key_names[KEY__COUNT] = {
	[KEY_PID] = "pid", [KEY_TID] = "tid", [KEY_COMM] = "comm", [KEY_MODULE] = "module",
	[KEY_SYMBOL] = "symbol", [KEY_BLOCK] = "block", [KEY_SRCLINE] = "srcline",
	[KEY_MNEMONIC] = "mnemonic", [KEY_ICLASS] = "iclass", [KEY_ISA] = "isa",
	[KEY_CATEGORY] = "category", [KEY_PACKING] = "packing", [KEY_WIDTH] = "width",
	[KEY_MEM] = "mem", [KEY_TAXONOMY] = "taxonomy",
};

static bool key_is_int(enum hbbp_key k)
{
	return k == KEY_PID || k == KEY_TID || k == KEY_WIDTH;
}

int hbbp_mix__parse_keys(struct hbbp_mix_opts *o, const char *spec, const char *taxonomy_column,
			 char *err, size_t errlen)
{
	const char *p = spec;

	o->nr_keys = 0;
	while (*p) {
		size_t len = strcspn(p, ","), k;
		bool found = false;

		if (!len) {
			snprintf(err, errlen, "--by: empty key in '%s'", spec);
			return -HBBP_EUSAGE;
		}
		for (k = 0; k < KEY__COUNT && !found; k++) {
			const char *name = k == KEY_TAXONOMY ? taxonomy_column : key_names[k];

			if (name && strlen(name) == len && !strncmp(p, name, len)) {
				found = true;
				if (o->nr_keys == HBBP_MAX_KEYS) {
					snprintf(err, errlen, "--by: more than %d keys", HBBP_MAX_KEYS);
					return -HBBP_EUSAGE;
				}
				o->keys[o->nr_keys++] = (enum hbbp_key)k;
			}
		}
		if (!found) {
			snprintf(err, errlen, "--by: unknown key '%.*s' (known: pid, tid, comm, "
				 "module, symbol, block, srcline, mnemonic, iclass, isa, category, "
				 "packing, width, mem%s%s)", (int)len, p,
				 taxonomy_column ? ", " : "", taxonomy_column ? taxonomy_column : "");
			return -HBBP_EUSAGE;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	if (!o->nr_keys) {
		snprintf(err, errlen, "--by: no keys");
		return -HBBP_EUSAGE;
	}
	return 0;
}

/* One element of a filter list: equal, or a shell glob (fnmatch) when it has * ? or [. */
static bool elem_matches(const char *p, size_t len, const char *v)
{
	char pat[256];

	if (strcspn(p, "*?[") >= len)
		return strlen(v) == len && !strncmp(p, v, len);
	if (len >= sizeof(pat))
		return false;
	memcpy(pat, p, len);
	pat[len] = 0;
	return !fnmatch(pat, v, 0);
}

static bool list_has(const char *list, const char *v)
{
	const char *p = list;

	if (!list)
		return true;
	if (!v)
		return false;
	while (*p) {
		size_t len = strcspn(p, ",");

		if (elem_matches(p, len, v))
			return true;
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

/* ---- helpers over blocks and dsos ---- */

struct mix_ctx {
	const struct hbbp_counts *c;
	struct hbbp_accum *d;
	const struct hbbp_code_ops *ops;
	const struct hbbp_mix_opts *o;
	const struct perf_reader_stats *rs;	/* lost and throttled records */
	char *buf;			/* reusable key buffer */
	size_t len, alloc;
	double ratio_ebs[HBBP_BATCHES], ratio_lbr[HBBP_BATCHES];	/* mix_table's */
};

static const char *dso_short(const struct mix_ctx *x, const struct bbmap_dso *dso)
{
	const char *n;

	if (!dso)
		return "[unmapped]";
	n = x->ops->dso_short_name ? x->ops->dso_short_name(x->ops->ctx, dso) : NULL;
	if (!n)
		n = x->ops->dso_name(x->ops->ctx, dso);
	return n ? n : "[unknown]";
}

static const char *dso_full(const struct mix_ctx *x, const struct bbmap_dso *dso)
{
	const char *n;

	if (!dso)
		return "[unmapped]";
	n = x->ops->dso_name(x->ops->ctx, dso);
	return n ? n : "[unknown]";
}

static bool dso_is_kernel(const struct mix_ctx *x, const struct bbmap_dso *dso)
{
	enum bbmap_dso_kind k;

	if (!dso || !x->ops->dso_kind)
		return false;
	k = x->ops->dso_kind(x->ops->ctx, dso);
	return k == DSO_KIND_KERNEL || k == DSO_KIND_KMODULE || k == DSO_KIND_KSYMBOL;
}

/* The markers of missing values in key columns, one per kind (writers/SCHEMA.md): the code
 * was not found ([no code], [undecoded], [unmapped]: every instruction-level key of such
 * weight), the tool cannot tell ([unknown]: symbol, source line, command), the attribute
 * does not apply (none: no memory access, no packing, in no taxonomy group). */
#define MARK_UNKNOWN "[unknown]"
#define MARK_NONE "none"

static const char *kind_marker(enum hbbp_block_kind k)
{
	switch (k) {
	case HBBP_BLK_NOCODE: return "[no code]";
	case HBBP_BLK_UNDECODED: return "[undecoded]";
	case HBBP_BLK_UNMAPPED: return "[unmapped]";
	default: return "";
	}
}

static bool tblock_passes(const struct mix_ctx *x, const struct hbbp_tblock *t)
{
	const struct hbbp_mix_opts *o = x->o;
	const struct hbbp_block *b = &x->c->blocks[t->block];
	char num[16];

	if (o->pid) {
		snprintf(num, sizeof(num), "%" PRIu32, t->pid);
		if (!list_has(o->pid, num))
			return false;
	}
	if (o->comm && !list_has(o->comm, hbbp_accum__comm(x->d, t->pid, t->tid)))
		return false;
	if (o->module && !list_has(o->module, dso_short(x, b->dso)) &&
	    !list_has(o->module, dso_full(x, b->dso)))
		return false;
	if (o->symbol && !list_has(o->symbol, b->symname))
		return false;
	if (o->user_only && (!b->dso || dso_is_kernel(x, b->dso)))
		return false;
	if (o->kernel_only && !dso_is_kernel(x, b->dso))
		return false;
	return true;
}

/* Whether any filter tblock_passes reads is set (it may then refuse a thread block): the
 * two name the same options. */
static bool mix_filtered(const struct hbbp_mix_opts *o)
{
	return o->pid || o->comm || o->module || o->symbol || o->user_only || o->kernel_only;
}

static int buf_put(struct mix_ctx *x, const char *s)
{
	size_t l = strlen(s);

	if (x->len + l + 2 > x->alloc) {
		size_t n = (x->len + l + 2) * 2;
		char *nb = realloc(x->buf, n);

		if (!nb)
			return -ENOMEM;
		x->buf = nb;
		x->alloc = n;
	}
	memcpy(x->buf + x->len, s, l);
	x->len += l;
	x->buf[x->len++] = SEP;
	x->buf[x->len] = 0;
	return 0;
}

/* Lexical normalization of a DWARF path: "a/./b" -> "a/b", "a/x/../b" -> "a/b", "//" ->
 * "/" (a leading ".." of a relative path stays: nothing to go up from). */
static void path_normalize(const char *in, char *out, size_t size)
{
	size_t len = 0, seg[256], nseg = 0;
	const char *p = in;
	bool abs = *in == '/';

	if (!size)
		return;
	out[0] = 0;
	if (abs && size > 1) {
		out[len++] = '/';
		out[len] = 0;
	}
	while (*p) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (!n)
			break;
		if (n == 1 && p[0] == '.') {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.' && nseg &&
		    strncmp(out + seg[nseg - 1], "../", 3) && strcmp(out + seg[nseg - 1], "..")) {
			len = seg[--nseg];
			out[len] = 0;
			if (len > (abs ? 1u : 0u))
				out[--len] = 0;		/* the '/' before it */
			p += n;
			continue;
		}
		if (len > (abs ? 1u : 0u) && len + 1 < size)
			out[len++] = '/';
		if (nseg < sizeof(seg) / sizeof(seg[0]))
			seg[nseg++] = len;
		if (len + n >= size)
			n = size - 1 - len;
		memcpy(out + len, p, n);
		len += n;
		out[len] = 0;
		p += strcspn(p, "/");
	}
	if (!len && size > 1) {
		out[0] = '.';
		out[1] = 0;
	}
}

static void srcline_of(const struct bbmap_insn *in, char *out, size_t size)
{
	char path[4064];

	if (in && in->srcfile) {
		path_normalize(in->srcfile, path, sizeof(path));
		snprintf(out, size, "%s:%" PRIu32, path, in->line);
	} else {
		out[0] = 0;
	}
}

static const char *mem_of(const struct bbmap_insn *in)
{
	bool r = in->flags & BBMAP_INSN_MEM_READ, w = in->flags & BBMAP_INSN_MEM_WRITE;

	return r && w ? "rw" : r ? "r" : w ? "w" : MARK_NONE;
}

/* Builds the joined key of one instruction (in NULL: the pseudo instruction of a
 * pseudo block) of tblock t into x->buf. */
static int mix_key(struct mix_ctx *x, const struct hbbp_tblock *t, const struct bbmap_insn *in)
{
	const struct hbbp_block *b = &x->c->blocks[t->block];
	const char *marker = kind_marker(b->kind);
	char tmp[4096];
	size_t i;
	int err = 0;

	x->len = 0;
	for (i = 0; i < x->o->nr_keys && !err; i++) {
		const char *v = "";

		switch (x->o->keys[i]) {
		case KEY_PID:
			snprintf(tmp, sizeof(tmp), "%" PRIu32, t->pid);
			v = tmp;
			break;
		case KEY_TID:
			snprintf(tmp, sizeof(tmp), "%" PRIu32, t->tid);
			v = tmp;
			break;
		case KEY_COMM:
			v = hbbp_accum__comm(x->d, t->pid, t->tid);
			if (!v || !*v)
				v = MARK_UNKNOWN;
			break;
		case KEY_MODULE:
			v = dso_short(x, b->dso);
			break;
		case KEY_SYMBOL:
			v = b->symname ? b->symname : MARK_UNKNOWN;
			break;
		case KEY_BLOCK:
			if (b->kind == HBBP_BLK_UNMAPPED)
				v = "[unmapped]";
			else {
				snprintf(tmp, sizeof(tmp), "%s+0x%" PRIx64, dso_short(x, b->dso),
					 b->start);
				v = tmp;
			}
			break;
		case KEY_SRCLINE:
			srcline_of(in, tmp, sizeof(tmp));
			v = !in ? marker : tmp[0] ? tmp : MARK_UNKNOWN;
			break;
		case KEY_MNEMONIC:
			v = in ? (in->mnemonic ? in->mnemonic : MARK_UNKNOWN) : marker;
			break;
		case KEY_ICLASS:
			v = in ? (in->iclass ? in->iclass : MARK_UNKNOWN) : marker;
			break;
		case KEY_ISA:
			v = in ? bbmap_isa_name(in->isa) : marker;
			break;
		case KEY_CATEGORY:
			v = in ? bbmap_category_name(in->category) : marker;
			break;
		case KEY_PACKING:
			v = in ? bbmap_packing_name(in->packing) : marker;
			break;
		case KEY_WIDTH:		/* a number column: NULL without code */
			if (in) {
				snprintf(tmp, sizeof(tmp), "%u", (unsigned)in->width);
				v = tmp;
			}
			break;
		case KEY_MEM:
			v = in ? mem_of(in) : marker;
			break;
		case KEY_TAXONOMY:
			v = marker;
			if (in && x->o->taxonomy)
				v = x->o->taxonomy->group(x->o->taxonomy->ctx, in);
			if (!v || !*v)
				v = MARK_NONE;	/* in no group */
			break;
		case KEY__COUNT:
			break;
		}
		err = buf_put(x, v ? v : "");
	}
	return err;
}

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
double hbbp_round_share(double x)
{
	return round_sig(x, 6);
}

/* ---- the pivot ---- */

struct mix_row {
	char *key;
	double count, ebs_count, lbr_count;
	double count_shown;		/* count as written (hbbp_round_count): the sort key, so
					 * that the order does not depend on the sums' last bits */
	double lbr_count_plain;		/* lbr_count with the plain weight (method.md §5) */
	struct hbbp_bsum bx;		/* the count's estimate in each batch (the batches'
					 * counts times their role's ratio factor) */
	uint64_t ebs_samples, lbr_streams;
	size_t stamp;
	unsigned sources;
	bool biased;
};

#define SIG_WORDS_MAX	12	/* see mix_sig */

/* The rows of the instructions of one prefix (a block's part of the signature, the same
 * over a function's blocks, which mostly come one after the other): a small cache in front
 * of the map of signatures. */
#define LOCAL_SLOTS	64
struct mix_local_slot {
	uint64_t k[6];		/* the instruction's part of the signature */
	size_t row;
	uint32_t gen;
};
struct mix_local {
	uint64_t prefix[6];
	uint32_t gen;		/* slots of another generation are empty */
	struct mix_local_slot slot[LOCAL_SLOTS];
};

struct mix_rows {
	struct mix_row *v;
	size_t nr, alloc;
	struct hmap idx;	/* (h1, h2) -> row index + 1 */
	struct hmap sig;	/* signature (mix_sig, its words that the keys set) -> row index */
	size_t sig_keep[SIG_WORDS_MAX], nr_keep;
	struct mix_local local;
};

/* Two independent 64-bit hashes of s[0, len) in one pass, eight bytes at a time. */
static void str_hash2(const char *s, size_t len, uint64_t out[2])
{
	uint64_t a = 0x9e3779b97f4a7c15ULL ^ len, b = 0xc2b2ae3d27d4eb4fULL + len, w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		a = (a ^ w) * 0xff51afd7ed558ccdULL;
		b = (b ^ w) * 0xc4ceb9fe1a85ec53ULL;
		a ^= a >> 29;
		b ^= b >> 31;
	}
	if (i < len) {
		w = 0;
		memcpy(&w, s + i, len - i);
		a = (a ^ w) * 0xff51afd7ed558ccdULL;
		b = (b ^ w) * 0xc4ceb9fe1a85ec53ULL;
	}
	a ^= a >> 33;
	a *= 0x94d049bb133111ebULL;
	a ^= a >> 32;
	b ^= b >> 29;
	b *= 0xbf58476d1ce4e5b9ULL;
	b ^= b >> 32;
	out[0] = a;
	out[1] = b;
}

static struct mix_row *rows_get(struct mix_rows *r, const char *key, size_t len)
{
	uint64_t k[2], *slot;
	struct mix_row *row;

	str_hash2(key, len, k);
	for (;;) {
		slot = hmap__get(&r->idx, k, NULL);
		if (!slot)
			return NULL;
		if (!*slot)
			break;
		if (!strcmp(r->v[*slot - 1].key, key))
			return &r->v[*slot - 1];
		k[1]++;		/* collision of both hashes: probe the next key */
	}
	if (grow_one((void **)&r->v, &r->alloc, sizeof(*r->v), r->nr))
		return NULL;
	row = &r->v[r->nr];
	memset(row, 0, sizeof(*row));
	row->key = strdup(key);
	if (!row->key)
		return NULL;
	*slot = ++r->nr;
	return row;
}

/* The sources of a row's blocks, one bit per enum hbbp_source but NONE. */
static unsigned source_bit(enum hbbp_source s)
{
	return s == HBBP_SRC_NONE ? 0 : 1u << s;
}

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

/* What the key of an instruction (in NULL: a pseudo block's) of tblock t is made from (see
 * mix_key): its words for the keys asked, 0 for the others. Equal signatures make equal
 * keys, so a signature names its row without the key being built (struct mix_rows.sig);
 * equal keys may come from distinct signatures (a mnemonic spelled in two modules' string
 * tables), whose rows are then found by the key. */
#define SIG_WORDS	SIG_WORDS_MAX
static void mix_sig(const struct mix_ctx *x, const struct hbbp_tblock *t,
		    const struct bbmap_insn *in, uint64_t *sig)
{
	const struct hbbp_block *b = &x->c->blocks[t->block];
	const struct hbbp_mix_opts *o = x->o;
	size_t i;

	/* word by word: a memset of these 96 bytes is a rep stos, whose start costs more */
	sig[0] = sig[1] = sig[2] = sig[3] = sig[4] = 0;
	sig[5] = (uint64_t)b->kind | (uint64_t)!in << 8;
	sig[6] = sig[7] = sig[8] = sig[9] = sig[10] = sig[11] = 0;
	for (i = 0; i < o->nr_keys; i++) {
		switch (o->keys[i]) {
		case KEY_PID: sig[0] |= (uint64_t)t->pid << 32; break;
		case KEY_TID: sig[0] |= t->tid; break;
		case KEY_COMM: sig[1] = (uintptr_t)hbbp_accum__comm(x->d, t->pid, t->tid); break;
		case KEY_MODULE: sig[2] = (uintptr_t)b->dso; break;
		case KEY_SYMBOL: sig[3] = (uintptr_t)b->symname; break;
		case KEY_BLOCK: sig[2] = (uintptr_t)b->dso; sig[4] = b->start; break;
		case KEY_SRCLINE:
			sig[9] = in ? (uintptr_t)in->srcfile : 0;
			sig[10] = in ? in->line : 0;
			break;
		case KEY_MNEMONIC: sig[6] = in ? (uintptr_t)in->mnemonic : 0; break;
		case KEY_ICLASS: sig[7] = in ? (uintptr_t)in->iclass : 0; break;
		case KEY_ISA: sig[8] |= in ? in->isa : 0; break;
		case KEY_CATEGORY: sig[8] |= in ? (uint64_t)in->category << 8 : 0; break;
		case KEY_PACKING: sig[8] |= in ? (uint64_t)in->packing << 16 : 0; break;
		case KEY_WIDTH: sig[8] |= in ? (uint64_t)in->width << 24 : 0; break;
		case KEY_MEM:
			sig[8] |= in ? (uint64_t)(in->flags & (BBMAP_INSN_MEM_READ |
							      BBMAP_INSN_MEM_WRITE)) << 40 : 0;
			break;
		case KEY_TAXONOMY:
			sig[11] = in && o->taxonomy ?
				  (uintptr_t)o->taxonomy->group(o->taxonomy->ctx, in) : 0;
			break;
		case KEY__COUNT:
			break;
		}
	}
}

/* The words of mix_sig that the keys o asks for may set (the others stay 0). */
static void mix_sig_words(const struct hbbp_mix_opts *o, size_t *keep, size_t *nr)
{
	bool on[SIG_WORDS] = { [5] = true };
	size_t i;

	for (i = 0; i < o->nr_keys; i++) {
		switch (o->keys[i]) {
		case KEY_PID: case KEY_TID: on[0] = true; break;
		case KEY_COMM: on[1] = true; break;
		case KEY_MODULE: on[2] = true; break;
		case KEY_SYMBOL: on[3] = true; break;
		case KEY_BLOCK: on[2] = on[4] = true; break;
		case KEY_SRCLINE: on[9] = on[10] = true; break;
		case KEY_MNEMONIC: on[6] = true; break;
		case KEY_ICLASS: on[7] = true; break;
		case KEY_ISA: case KEY_CATEGORY: case KEY_PACKING: case KEY_WIDTH: case KEY_MEM:
			on[8] = true;
			break;
		case KEY_TAXONOMY: on[11] = true; break;
		case KEY__COUNT: break;
		}
	}
	*nr = 0;
	for (i = 0; i < SIG_WORDS; i++)
		if (on[i])
			keep[(*nr)++] = i;
}

/* The row of an instruction of t: by its signature, else by its key (made when absent). */
static struct mix_row *mix_row_of(struct mix_ctx *x, struct mix_rows *rows,
				  const struct hbbp_tblock *t, const struct bbmap_insn *in,
				  int *err)
{
	struct mix_local *lc = &rows->local;
	struct mix_local_slot *ls;
	uint64_t sig[SIG_WORDS], key[SIG_WORDS], *slot, h;
	struct mix_row *row;
	size_t i;
	int ins;

	mix_sig(x, t, in, sig);
	for (i = 0; i < rows->nr_keep; i++)
		key[i] = sig[rows->sig_keep[i]];
	if (memcmp(lc->prefix, sig, sizeof(lc->prefix)) || !lc->gen) {
		memcpy(lc->prefix, sig, sizeof(lc->prefix));
		lc->gen++;
	}
	h = (sig[6] ^ sig[7] * 3 ^ sig[8] * 5 ^ sig[9] * 7 ^ sig[10] * 9 ^ sig[11] * 11) *
	    0x9e3779b97f4a7c15ULL;
	ls = &lc->slot[h >> 58];
	if (ls->gen == lc->gen && !memcmp(ls->k, sig + 6, sizeof(ls->k)))
		return &rows->v[ls->row];
	slot = hmap__get(&rows->sig, key, &ins);
	if (!slot) {
		*err = -ENOMEM;
		return NULL;
	}
	if (ins) {
		*err = mix_key(x, t, in);
		if (*err)
			return NULL;
		row = rows_get(rows, x->buf, x->len);
		if (!row) {
			*err = -ENOMEM;
			return NULL;
		}
		*slot = (uint64_t)(row - rows->v);
	}
	memcpy(ls->k, sig + 6, sizeof(ls->k));
	ls->row = (size_t)*slot;
	ls->gen = lc->gen;
	return &rows->v[*slot];
}

static int mix_add(struct mix_ctx *x, struct mix_rows *rows, const struct hbbp_tblock *t,
		   size_t ti, const struct bbmap_insn *in)
{
	const struct hbbp_block *b = &x->c->blocks[t->block];
	struct mix_row *row;
	int err = 0;

	row = mix_row_of(x, rows, t, in, &err);
	if (!row)
		return err;
	row->count += t->count;
	{	/* hbbp_counts__batch_estimates, term by term */
		const double *r = hbbp_block__uses_lbr(b) ? x->ratio_lbr : x->ratio_ebs;
		unsigned int k;

		for (k = 0; k < HBBP_BATCHES; k++)
			row->bx.b[k] += t->count_bs.b[k] * r[k];
	}
	row->ebs_count += t->ebs_est;
	row->lbr_count += t->lbr_est;
	row->lbr_count_plain += b->kind == HBBP_BLK_CODE ? t->lbr_sum_plain : 0;
	if (row->stamp != ti + 1) {
		row->stamp = ti + 1;
		row->ebs_samples += t->ebs_samples;
		row->lbr_streams += t->lbr_streams;
		row->sources |= source_bit(b->source);
		row->biased |= b->biased;
	}
	return 0;
}

/* Compares joined keys segment by segment (numerically for integer keys). */
static int key_cmp(const char *a, const char *b, const struct hbbp_mix_opts *o)
{
	size_t i;

	for (i = 0; i < o->nr_keys; i++) {
		size_t la = strcspn(a, "\x1f"), lb = strcspn(b, "\x1f");
		int r;

		if (key_is_int(o->keys[i])) {
			long long va = la ? strtoll(a, NULL, 10) : -1;
			long long vb = lb ? strtoll(b, NULL, 10) : -1;

			r = va < vb ? -1 : va > vb;
		} else {
			r = memcmp(a, b, la < lb ? la : lb);
			if (!r)
				r = la < lb ? -1 : la > lb;
		}
		if (r)
			return r;
		a += la + (a[la] ? 1 : 0);
		b += lb + (b[lb] ? 1 : 0);
	}
	return 0;
}

/* qsort_r context of the ties of the mix rows' order: row indexes of equal counts shown,
 * sorted by key (a row is 240 bytes: sorting rows in place would copy them all into a
 * temporary array of the same size) */
struct row_sort {
	const struct mix_row *v;
	const struct hbbp_mix_opts *o;
	bool plain;		/* key_cmp is strcmp (rows_plain) */
};

static int row_key_cmp(const void *pa, const void *pb, void *arg)
{
	const struct row_sort *rs = arg;
	const char *a = rs->v[*(const size_t *)pa].key, *b = rs->v[*(const size_t *)pb].key;

	return rs->plain ? strcmp(a, b) : key_cmp(a, b, rs->o);
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

static bool rows_plain(const struct mix_rows *rows, const struct hbbp_mix_opts *o);

/* The rows' indexes in the table's order (count shown, largest first, then key): a radix
 * sort by count, then each run of equal counts sorted by key. 0 or -ENOMEM. */
static int rows_order(const struct mix_rows *rows, const struct hbbp_mix_opts *o,
		      size_t *order)
{
	struct row_sort rs = { .v = rows->v, .o = o, .plain = rows_plain(rows, o) };
	struct radix_item *it = malloc((rows->nr ? rows->nr : 1) * sizeof(*it));
	size_t i, a;

	if (!it)
		return -ENOMEM;
	for (i = 0; i < rows->nr; i++)
		it[i] = (struct radix_item){ count_desc(rows->v[i].count_shown), i };
	if (radix_sort(it, rows->nr)) {
		free(it);
		return -ENOMEM;
	}
	for (i = 0; i < rows->nr; i++)
		order[i] = (size_t)it[i].val;
	for (a = 0; a < rows->nr; a = i) {
		for (i = a + 1; i < rows->nr && it[i].key == it[a].key; i++)
			;
		if (i - a > 1)
			qsort_r(order + a, i - a, sizeof(*order), row_key_cmp, &rs);
	}
	free(it);
	return 0;
}

/* Whether key_cmp orders the rows' keys as strcmp does: with text keys only, whose bytes are
 * all above the separator (below every other byte, it ends a shorter segment first). */
static bool rows_plain(const struct mix_rows *rows, const struct hbbp_mix_opts *o)
{
	size_t i;

	for (i = 0; i < o->nr_keys; i++)
		if (key_is_int(o->keys[i]))
			return false;
	for (i = 0; i < rows->nr; i++) {
		const unsigned char *p;

		for (p = (const unsigned char *)rows->v[i].key; *p; p++)
			if (*p < SEP)
				return false;
	}
	return true;
}

#define MIX_DROP_BLOCKS	4096	/* blocks read between two drops of their instructions */

/* Whether each thread block passes the filters (*pass, NULL when none is set), for the
 * reader of the instructions (mix_reader.h). 0 or -ENOMEM. */
static int mix_pass(struct mix_ctx *x, bool **pass)
{
	const struct hbbp_counts *c = x->c;
	size_t i;

	*pass = NULL;
	if (!mix_filtered(x->o))
		return 0;
	*pass = malloc(c->nr_tblocks ? c->nr_tblocks : 1);
	if (!*pass)
		return -ENOMEM;
	for (i = 0; i < c->nr_tblocks; i++) {
		struct hbbp_tblock tmp;

		(*pass)[i] = tblock_passes(x, hbbp_counts__tblock_sums(c, i, &tmp));
	}
	return 0;
}

static int mix_table(struct result *res, struct mix_ctx *x, double *total_out)
{
	const struct hbbp_mix_opts *o = x->o;
	const struct hbbp_counts *c = x->c;
	struct mix_rows rows;
	struct result_table *t;
	const char *cols[HBBP_MAX_KEYS + 12];
	char colspec[HBBP_MAX_KEYS][128];
	size_t *order = NULL;
	size_t i, j, nc = 0, n, nr_read = 0;
	struct hbbp_mix_reader *rd = NULL;
	bool *pass = NULL;
	double total = 0;
	int err = 0;

	memset(&rows, 0, sizeof(rows));
	for (i = 0; i < HBBP_BATCHES; i++) {	/* hbbp_counts__batch_estimates' factors */
		x->ratio_ebs[i] = c->ratio ? c->ebs_ratio.b[i] : HBBP_BATCHES;
		x->ratio_lbr[i] = c->ratio ? c->lbr_ratio.b[i] : HBBP_BATCHES;
	}
	hmap__init(&rows.idx, 2, sizeof(uint64_t));
	mix_sig_words(o, rows.sig_keep, &rows.nr_keep);
	hmap__init(&rows.sig, rows.nr_keep, sizeof(uint64_t));
	/* with threads, the code blocks' instructions are decoded ahead on a thread of their own
	 * (mix_reader.h); else each here, dropped every MIX_DROP_BLOCKS */
	if (x->ops->fill_blocks && x->ops->drop_insns && x->ops->threads > 1 &&
	    x->o->read_blocks) {
		err = mix_pass(x, &pass);
		if (!err)
			err = hbbp_mix_reader__start(&rd, c, x->ops, pass, x->o->read_blocks);
		if (err && err != -ENOMEM)
			err = 0;	/* no thread: each block here, the same rows */
	}
	for (i = 0; i < c->nr_tblocks && !err; i++) {
		struct hbbp_tblock tmp;
		const struct hbbp_tblock *tb = hbbp_counts__tblock_sums(c, i, &tmp);
		const struct hbbp_block *b = &c->blocks[tb->block];
		const struct bbmap_block *blk;
		const struct bbmap_insn *insns;

		if (tb->count <= 0 || !(pass ? pass[i] : tblock_passes(x, tb)))
			continue;
		if (b->kind != HBBP_BLK_CODE) {
			err = mix_add(x, &rows, tb, i, NULL);
			continue;
		}
		if (rd) {
			err = hbbp_mix_reader__insns(rd, i, &insns);
		} else {
			err = x->ops->block_at(x->ops->ctx, b->mod, b->start, &blk);
			if (err || blk->start != b->start || blk->nr_insns != b->nr_insns ||
			    !blk->insns)
				err = -HBBP_EFORMAT;	/* the block map changed under us: a bug */
			else
				insns = blk->insns;
		}
		for (j = 0; j < b->nr_insns && !err; j++)
			err = mix_add(x, &rows, tb, i, &insns[j]);
		/* each block is read once here: its instructions need not stay */
		if (!rd && x->ops->drop_insns && !(++nr_read % MIX_DROP_BLOCKS))
			x->ops->drop_insns(x->ops->ctx);
	}
	hbbp_mix_reader__exit(rd);
	free(pass);
	if (x->ops->drop_insns)		/* the table is made from the rows alone */
		x->ops->drop_insns(x->ops->ctx);
	if (o->mix_only && o->release_code && x->ops->drop_code)	/* and its memory */
		x->ops->drop_code(x->ops->ctx);
	if (err)
		goto out;
	for (i = 0; i < rows.nr; i++) {
		total += rows.v[i].count;
		rows.v[i].count_shown = hbbp_round_count(rows.v[i].count);
	}
	hmap__exit(&rows.idx);	/* every row is made */
	hmap__exit(&rows.sig);
	grow_fit((void **)&rows.v, &rows.alloc, sizeof(*rows.v), rows.nr);
	order = malloc((rows.nr ? rows.nr : 1) * sizeof(*order));
	if (!order) {
		err = -ENOMEM;
		goto out;
	}
	err = rows_order(&rows, o, order);
	if (err)
		goto out;
	for (i = 0; i < o->nr_keys; i++) {
		const char *name = o->keys[i] == KEY_TAXONOMY && o->taxonomy ?
			o->taxonomy->column : key_names[o->keys[i]];

		snprintf(colspec[i], sizeof(colspec[i]), "%s:%s", name,
			 key_is_int(o->keys[i]) ? "int" : "text");
		cols[nc++] = colspec[i];
	}
	cols[nc++] = "count:real";
	cols[nc++] = "count_lo:real";
	cols[nc++] = "count_hi:real";
	cols[nc++] = "share:real";
	if (o->diagnostics) {
		cols[nc++] = "source:text";
		cols[nc++] = "ebs_count:real";
		cols[nc++] = "lbr_count:real";
		cols[nc++] = "ebs_samples:int";
		cols[nc++] = "lbr_streams:int";
		cols[nc++] = "biased:int";
		cols[nc++] = "lbr_count_plain:real";
	}
	err = result__add_table(res, "mix", cols, nc, &t);
	if (err)
		goto out;
	n = o->top && o->top < rows.nr ? o->top : rows.nr;
	err = result_table__reserve(t, n);
	for (i = 0; i < n && !err; i++) {
		struct mix_row *row = &rows.v[order[i]];
		struct result_cell *cell = result_table__add_row(t);
		const char *p = row->key;
		double lo, hi;

		if (!cell) {
			err = -ENOMEM;
			break;
		}
		/* the rows are read in the table's order, not in memory's: the ones ahead asked
		 * for (a row a few ahead, the key of a nearer one) */
		if (i + 8 < n)
			__builtin_prefetch(&rows.v[order[i + 8]]);
		if (i + 4 < n)
			__builtin_prefetch(rows.v[order[i + 4]].key);
		for (j = 0; j < o->nr_keys && !err; j++) {
			size_t l = strcspn(p, "\x1f");
			char v[4096];

			memcpy(v, p, l < sizeof(v) ? l : sizeof(v) - 1);
			v[l < sizeof(v) ? l : sizeof(v) - 1] = 0;
			if (key_is_int(o->keys[j])) {
				if (l)
					result_cell__int(&cell[j], strtoll(v, NULL, 10));
			} else {
				err = result_cell__text(t, &cell[j], v);
			}
			p += l + (p[l] ? 1 : 0);
		}
		free(row->key);		/* in the table now: the rows and the table peak together */
		row->key = NULL;
		hbbp_interval__estimates(row->count, row->bx.b, HBBP_BATCHES, &lo, &hi);
		result_cell__real(&cell[j++], hbbp_round_count(row->count));
		result_cell__real(&cell[j++], hbbp_round_count(lo));
		result_cell__real(&cell[j++], hbbp_round_count(hi));
		result_cell__real(&cell[j++], hbbp_round_share(total > 0 ? row->count / total : 0));
		if (o->diagnostics && !err) {
			err = result_cell__text(t, &cell[j++], source_name(row->sources));
			result_cell__real(&cell[j++], hbbp_round_count(row->ebs_count));
			result_cell__real(&cell[j++], hbbp_round_count(row->lbr_count));
			result_cell__int(&cell[j++], (int64_t)row->ebs_samples);
			result_cell__int(&cell[j++], (int64_t)row->lbr_streams);
			result_cell__int(&cell[j++], row->biased);
			result_cell__real(&cell[j++], hbbp_round_count(row->lbr_count_plain));
		}
	}
	if (total_out)
		*total_out = total;
out:
	free(order);
	for (i = 0; i < rows.nr; i++)
		free(rows.v[i].key);
	free(rows.v);
	hmap__exit(&rows.idx);
	hmap__exit(&rows.sig);
	return err;
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
	int r = strcmp(dso_full(x, a), dso_full(x, b));

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

static int ids_build(struct ids *ids, struct mix_ctx *x)
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
	for (i = 0; i < nb + x->d->unres.cap; i++) {
		struct bbmap_dso *dso;
		uint64_t key;
		int ins;

		if (i < nb) {
			dso = c->blocks[i].dso;
		} else {
			void *val;

			if (!hmap__slot(&x->d->unres, i - nb, &val))
				continue;
			dso = ((struct hbbp_unresolved *)val)->dso;
		}
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

static int table_modules(struct result *res, struct mix_ctx *x, const struct ids *ids)
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
		err = result_cell__text(t, &cell[1], dso_full(x, dso));
		if (!err && path)
			err = result_cell__text(t, &cell[2], path);
		if (!err && st == DSO_OK && m && x->ops->module_build_id &&
		    (bsz = x->ops->module_build_id(x->ops->ctx, m, &bid)) > 0) {
			char hex[41];
			size_t j;

			for (j = 0; j < bsz && j < 20; j++)
				snprintf(hex + 2 * j, 3, "%02x", bid[j]);
			err = result_cell__text(t, &cell[3], hex);
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

static int table_symbols(struct result *res, struct mix_ctx *x, struct ids *ids)
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

static int table_blocks(struct result *res, struct mix_ctx *x, const struct ids *ids)
{
	const struct hbbp_counts *c = x->c;
	struct result_table *t, *ti;
	size_t i, j;
	int err = result__add_table(res, "blocks", schema_blocks, SCHEMA_NR(schema_blocks), &t);

	if (!err)
		err = result__add_table(res, "instructions", schema_instructions,
					SCHEMA_NR(schema_instructions), &ti);
	for (i = 0; i < c->nr_blocks && !err; i++) {
		size_t bi = ids->block_order[i];
		const struct hbbp_block *b = &c->blocks[bi];
		const struct bbmap_block *blk = NULL;
		struct result_cell *cell;
		char src[4096];

		if (b->kind == HBBP_BLK_CODE &&
		    (x->ops->block_at(x->ops->ctx, b->mod, b->start, &blk) ||
		     blk->start != b->start))
			blk = NULL;
		cell = result_table__add_row(t);
		if (!cell)
			return -ENOMEM;
		result_cell__int(&cell[0], ids->block_id[bi]);
		if (ids->block_module[bi])
			result_cell__int(&cell[1], ids->block_module[bi]);
		if (ids->block_symbol[bi])
			result_cell__int(&cell[2], ids->block_symbol[bi]);
		result_cell__int(&cell[3], (int64_t)b->start);
		if (b->kind == HBBP_BLK_CODE) {
			result_cell__int(&cell[4], b->nr_insns);
			result_cell__int(&cell[5], (int64_t)(b->end - b->start));
		}
		srcline_of(blk && blk->nr_insns ? &blk->insns[0] : NULL, src, sizeof(src));
		if (b->kind != HBBP_BLK_CODE)
			snprintf(src, sizeof(src), "%s", kind_marker(b->kind));
		err = result_cell__text(t, &cell[6], src);
		result_cell__real(&cell[7], b->count);
		result_cell__real(&cell[8], b->count_lo);
		result_cell__real(&cell[9], b->count_hi);
		result_cell__real(&cell[10], b->ebs_est);
		result_cell__real(&cell[11], b->lbr_est);
		if (!err)
			err = result_cell__text(t, &cell[12], hbbp_source_name(b->source));
		result_cell__int(&cell[13], (int64_t)b->ebs_samples);
		result_cell__int(&cell[14], (int64_t)b->lbr_streams);
		result_cell__int(&cell[15], b->biased);
		result_cell__real(&cell[16], b->bias_share);
		for (j = 0; blk && j < blk->nr_insns && !err; j++) {
			const struct bbmap_insn *in = &blk->insns[j];
			struct result_cell *ic = result_table__add_row(ti);

			if (!ic)
				return -ENOMEM;
			result_cell__int(&ic[0], ids->block_id[bi]);
			if (ids->block_module[bi])
				result_cell__int(&ic[1], ids->block_module[bi]);
			result_cell__int(&ic[2], (int64_t)in->addr);
			result_cell__int(&ic[3], (int64_t)j);
			err = result_cell__text(ti, &ic[4], in->mnemonic ? in->mnemonic : "");
			if (!err)
				err = result_cell__text(ti, &ic[5], in->iclass ? in->iclass : "");
			if (!err)
				err = result_cell__text(ti, &ic[6], bbmap_isa_name(in->isa));
			if (!err)
				err = result_cell__text(ti, &ic[7], bbmap_category_name(in->category));
			if (!err)
				err = result_cell__text(ti, &ic[8], bbmap_packing_name(in->packing));
			if (!err)
				err = result_cell__text(ti, &ic[9], bbmap_elem_name(in->elem));
			result_cell__int(&ic[10], in->width);
			result_cell__int(&ic[11], !!(in->flags & BBMAP_INSN_MEM_READ));
			result_cell__int(&ic[12], !!(in->flags & BBMAP_INSN_MEM_WRITE));
			result_cell__int(&ic[13], in->nr_ops);
			result_cell__int(&ic[14], in->len);
			srcline_of(in, src, sizeof(src));
			if (!err)
				err = result_cell__text(ti, &ic[15], src);
		}
	}
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

static int table_thread_blocks(struct result *res, struct mix_ctx *x, const struct ids *ids)
{
	const struct hbbp_counts *c = x->c;
	size_t *order = calloc(c->nr_tblocks + 1, sizeof(size_t)), i, j, n = 0;
	struct result_table *t;
	struct sort_ctx sc;
	int err;

	if (!order)
		return -ENOMEM;
	for (i = 0; i < c->nr_tblocks; i++) {
		struct hbbp_tblock tmp;

		if (tblock_passes(x, hbbp_counts__tblock(c, i, &tmp)))
			order[n++] = i;
	}
	sc.x = x;
	sc.ids = ids;
	if (n)
		qsort_r(order, n, sizeof(size_t), tblock_cmp, &sc);
	err = result__add_table(res, "thread_blocks", schema_thread_blocks,
				SCHEMA_NR(schema_thread_blocks), &t);
	for (i = 0; i < n && !err; i++) {
		struct hbbp_tblock tmp;
		const struct hbbp_tblock *tb = hbbp_counts__tblock(c, order[i], &tmp);
		struct result_cell *cell = result_table__add_row(t);
		const char *comm = hbbp_accum__comm(x->d, tb->pid, tb->tid);
		double bx[HBBP_BATCHES];
		bool lbr;

		if (!cell) {
			err = -ENOMEM;
			break;
		}
		result_cell__int(&cell[0], tb->pid);
		result_cell__int(&cell[1], tb->tid);
		if (comm)
			err = result_cell__text(t, &cell[2], comm);
		result_cell__int(&cell[3], ids->block_id[tb->block]);
		result_cell__real(&cell[4], tb->count);
		result_cell__real(&cell[5], tb->count_lo);
		result_cell__real(&cell[6], tb->count_hi);
		result_cell__real(&cell[7], tb->ebs_est);
		result_cell__real(&cell[8], tb->lbr_est);
		/* the batch estimates over K: the views sum them and take their spread */
		lbr = hbbp_block__uses_lbr(&c->blocks[tb->block]);
		hbbp_counts__batch_estimates(c, lbr ? NULL : &tb->count_bs,
					     lbr ? &tb->count_bs : NULL, bx);
		for (j = 0; j < HBBP_BATCHES; j++)
			result_cell__real(&cell[SCHEMA_TB_BATCH0 + j], bx[j] / HBBP_BATCHES);
	}
	free(order);
	return err;
}

static int table_events(struct result *res, struct mix_ctx *x,
			const struct perf_event_info *const *events)
{
	struct result_table *t;
	size_t i;
	int err = result__add_table(res, "events", schema_events, SCHEMA_NR(schema_events), &t);

	for (i = 0; i < x->d->nr_events && !err; i++) {
		const struct perf_event_info *e = events[i];
		const struct hbbp_event_state *s = &x->d->ev[i];
		struct result_cell *cell = result_table__add_row(t);
		static const char *const roles[] = { "unused", "ebs", "lbr" };

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
			err = result_cell__text(t, &cell[9], (unsigned)s->role < 3 ? roles[s->role] :
						"?");
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

const struct hbbp_unresolved **hbbp_unresolved__weighted(const struct hbbp_accum *d,
							  size_t *nr)
{
	const struct hbbp_unresolved **v = calloc(d->unres.nr + 1, sizeof(*v));
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
	*nr = n;
	return v;
}

static int unres_name_cmp(const void *pa, const void *pb, void *arg)
{
	const struct hbbp_unresolved *a = *(const struct hbbp_unresolved *const *)pa;
	const struct hbbp_unresolved *b = *(const struct hbbp_unresolved *const *)pb;

	return strcmp(dso_full(arg, a->dso), dso_full(arg, b->dso));
}

/* "name ebs=W lbr=W; ..." for every dso with unresolved weight, sorted by name. */
static int meta_unresolved(struct result *res, const struct mix_ctx *x)
{
	size_t size = 0, i, n;
	const struct hbbp_unresolved **v = hbbp_unresolved__weighted(x->d, &n);
	char *buf = NULL;
	FILE *f;
	int err = 0;

	if (!v)
		return -ENOMEM;
	if (n)
		qsort_r(v, n, sizeof(*v), unres_name_cmp, (void *)x);
	f = open_memstream(&buf, &size);
	if (!f) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s ebs=%.17g lbr=%.17g", i ? "; " : "", dso_full(x, v[i]->dso),
			v[i]->ebs_weight, v[i]->lbr_weight);
	if (fclose(f))
		err = -ENOMEM;
	if (!err)
		err = result__meta_text(res, "unresolved_by_module", buf ? buf : "");
	free(buf);
	free(v);
	return err;
}

/* Method metadata: cutoff, method, samples used, rejections, lost/throttled, unresolved. */
static int mix_meta(struct result *res, struct mix_ctx *x)
{
	const struct hbbp_accum *d = x->d;
	const struct perf_reader_stats *rs = x->rs;
	const struct hbbp_unresolved *u;
	const uint64_t *ukey;
	uint64_t lost_records = rs->nr_records[PERF_RECORD_LOST];
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
	if (!err && (lost_records || rs->nr_lost_samples || rs->nr_throttle))
		err = result__warn(res, "samples were lost or throttled (%" PRIu64 " LOST records, "
				   "%" PRIu64 " lost samples, %" PRIu64 " THROTTLE records): the "
				   "estimate is biased", lost_records, rs->nr_lost_samples,
				   rs->nr_throttle);
	for (i = 0; i < d->nr_events && !err; i++)
		if (d->ev[i].role != HBBP_ROLE_UNUSED && d->ev[i].scale != 1.0)
			err = result__warn(res, "event '%s' was multiplexed (running %.1f%% of the "
					   "time): its estimates are scaled by %.4f",
					   d->ev[i].name ? d->ev[i].name : "?",
					   100.0 / d->ev[i].scale, d->ev[i].scale);
	return err;
}

int hbbp_mix__build(struct result *res, const struct hbbp_counts *c, struct hbbp_accum *d,
		    const struct perf_event_info *const *events,
		    const struct perf_reader_stats *rs, const struct hbbp_mix_opts *o,
		    double *total_out)
{
	struct mix_ctx x;
	struct ids ids;
	int err;

	memset(&x, 0, sizeof(x));
	x.c = c;
	x.d = d;
	x.ops = d->ops;
	x.o = o;
	x.rs = rs;
	memset(&ids, 0, sizeof(ids));
	err = mix_table(res, &x, total_out);
	if (!err)
		err = table_events(res, &x, events);
	if (o->mix_only)
		goto meta;
	if (!err)
		err = ids_build(&ids, &x);
	if (!err)
		err = table_modules(res, &x, &ids);
	if (!err)
		err = table_symbols(res, &x, &ids);
	if (!err)
		err = table_blocks(res, &x, &ids);
	if (!err)
		err = table_thread_blocks(res, &x, &ids);
meta:
	if (!err)
		err = mix_meta(res, &x);
	ids_free(&ids);
	free(x.buf);
	return err;
}

/* ---- filters that select nothing ---- */

static bool tblock_has(const struct mix_ctx *x, const struct hbbp_tblock *t, int which,
		       const char *p, size_t len)
{
	const struct hbbp_block *b = &x->c->blocks[t->block];
	char num[16];
	const char *v;

	switch (which) {
	case 0:
		snprintf(num, sizeof(num), "%" PRIu32, t->pid);
		return elem_matches(p, len, num);
	case 1:
		v = hbbp_accum__comm(x->d, t->pid, t->tid);
		return v && elem_matches(p, len, v);
	case 2:
		return elem_matches(p, len, dso_short(x, b->dso)) ||
		       elem_matches(p, len, dso_full(x, b->dso));
	default:
		return b->symname && elem_matches(p, len, b->symname);
	}
}

int hbbp_mix__unmatched(const struct hbbp_counts *c, struct hbbp_accum *d,
			const struct hbbp_mix_opts *o,
			int (*fn)(void *ctx, const char *option, const char *value), void *ctx)
{
	static const char *const opt[] = { "--pid", "--comm", "--module", "--symbol" };
	const char *lists[] = { o->pid, o->comm, o->module, o->symbol };
	struct mix_ctx x;
	int which, err = 0;

	memset(&x, 0, sizeof(x));
	x.c = c;
	x.d = d;
	x.ops = d->ops;
	x.o = o;
	for (which = 0; which < 4 && !err; which++) {
		const char *p = lists[which];

		while (p && *p && !err) {
			size_t len = strcspn(p, ","), i;
			bool found = false;

			for (i = 0; i < c->nr_tblocks && !found; i++) {
				struct hbbp_tblock tmp;
				const struct hbbp_tblock *tb = hbbp_counts__tblock(c, i, &tmp);

				found = tb->count > 0 && tblock_has(&x, tb, which, p, len);
			}
			if (!found && len) {
				char *v = strndup(p, len);

				if (!v)
					return -ENOMEM;
				err = fn(ctx, opt[which], v);
				free(v);
			}
			p += len;
			if (*p == ',')
				p++;
		}
	}
	return err;
}
