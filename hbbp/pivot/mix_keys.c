/* The pivot keys (see hbbp/pivot/mix_keys.h): one descriptor each in `keys` below, with the
 * function giving its value at an instruction of a thread block; the names of dsos and of
 * missing values; and the filters, which match the values of the keys pid, comm, module and
 * symbol. Depends on hbbp/method/method.h and bbmap/insn_attr.h names; never prints.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/pivot/mix_keys.h"
#include "util/hbbp_err.h"

const char *mix__kind_marker(enum hbbp_block_kind k)
{
	switch (k) {
	case HBBP_BLK_NOCODE: return "[no code]";
	case HBBP_BLK_UNDECODED: return "[undecoded]";
	case HBBP_BLK_UNMAPPED: return "[unmapped]";
	default: return "";
	}
}

const char *mix__dso_full(const struct mix_ctx *x, const struct bbmap_dso *dso)
{
	const char *n;

	if (!dso)
		return "[unmapped]";
	n = x->ops->dso_name(x->ops->ctx, dso);
	return n ? n : "[unknown]";
}

/* A dso's short name, else its full name; "[unmapped]" for NULL. */
static const char *mix__dso_short(const struct mix_ctx *x, const struct bbmap_dso *dso)
{
	const char *n = dso && x->ops->dso_short_name ?
			x->ops->dso_short_name(x->ops->ctx, dso) : NULL;

	return n ? n : mix__dso_full(x, dso);
}

static bool dso_is_kernel(const struct mix_ctx *x, const struct bbmap_dso *dso)
{
	enum bbmap_dso_kind k;

	if (!dso || !x->ops->dso_kind)
		return false;
	k = x->ops->dso_kind(x->ops->ctx, dso);
	return k == DSO_KIND_KERNEL || k == DSO_KIND_KMODULE || k == DSO_KIND_KSYMBOL;
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

void mix__srcline(const struct bbmap_insn *in, char *out, size_t size)
{
	char path[4064];

	if (in && in->srcfile) {
		path_normalize(in->srcfile, path, sizeof(path));
		snprintf(out, size, "%s:%" PRIu32, path, in->line);
	} else {
		out[0] = 0;
	}
}

/* ---- the keys: one function each ---- */

/* The value of an instruction key at a block without code: the block's marker. */
static const char *no_insn(const struct key_at *at)
{
	return mix__kind_marker(at->b->kind);
}

static void key_pid(const struct key_at *at, struct key_val *v)
{
	v->num = at->t->pid;
}

/* a thread block's tid is its thread key: the tid under the thread's first name, another
 * number under each later one (hbbp_accum__thread_key) */
static void key_tid(const struct key_at *at, struct key_val *v)
{
	uint32_t tid;

	hbbp_accum__comm(at->x->d, at->t->pid, at->t->tid, &tid);
	v->num = tid;
}

static void key_comm(const struct key_at *at, struct key_val *v)
{
	const char *s = hbbp_accum__comm(at->x->d, at->t->pid, at->t->tid, NULL);

	v->text = s && *s ? s : MARK_UNKNOWN;
}

static void key_module(const struct key_at *at, struct key_val *v)
{
	v->text = mix__dso_short(at->x, at->b->dso);
}

static void key_symbol(const struct key_at *at, struct key_val *v)
{
	v->text = at->b->symname ? at->b->symname : MARK_UNKNOWN;
}

/* "module+0xSTART" */
static void key_block(const struct key_at *at, struct key_val *v)
{
	const struct hbbp_block *b = at->b;

	v->text = v->buf;
	if (b->kind == HBBP_BLK_UNMAPPED)
		v->text = "[unmapped]";
	else
		snprintf(v->buf, sizeof(v->buf), "%s+0x%" PRIx64, mix__dso_short(at->x, b->dso),
			 b->start);
}

static void key_srcline(const struct key_at *at, struct key_val *v)
{
	mix__srcline(at->in, v->buf, sizeof(v->buf));
	v->text = !at->in ? no_insn(at) : v->buf[0] ? v->buf : MARK_UNKNOWN;
}

static void key_mnemonic(const struct key_at *at, struct key_val *v)
{
	v->text = at->in ? at->in->mnemonic : no_insn(at);
	if (!v->text)
		v->text = MARK_UNKNOWN;
}

static void key_iclass(const struct key_at *at, struct key_val *v)
{
	v->text = at->in ? at->in->iclass : no_insn(at);
	if (!v->text)
		v->text = MARK_UNKNOWN;
}

static void key_isa(const struct key_at *at, struct key_val *v)
{
	v->text = at->in ? bbmap_isa_name(at->in->isa) : no_insn(at);
}

/* XED's ISA set as `disasm` prints it; none where there is none (Arm), INVALID for an
 * undecodable unit (as its isa, iclass and category) */
static void key_isa_set(const struct key_at *at, struct key_val *v)
{
	v->text = at->in ? bbmap_isa_set_name(at->in->isa_set) : no_insn(at);
	if (!*v->text)
		v->text = at->in && at->in->flags & BBMAP_INSN_BAD ? "INVALID" : MARK_NONE;
}

static void key_category(const struct key_at *at, struct key_val *v)
{
	v->text = at->in ? bbmap_category_name(at->in->category) : no_insn(at);
}

static void key_packing(const struct key_at *at, struct key_val *v)
{
	v->text = at->in ? bbmap_packing_name(at->in->packing) : no_insn(at);
}

/* the element type and size of the first operand shown that is not an immediate (i8 ..
 * i128, f16, bf16, f32, f64, f80; none where the decoder gives none) */
static void key_elem(const struct key_at *at, struct key_val *v)
{
	const char *s = at->in ? bbmap_elem_name(at->in->elem) : no_insn(at);

	v->text = *s ? s : MARK_NONE;
}

/* a number column: NULL without code */
static void key_width(const struct key_at *at, struct key_val *v)
{
	v->num = at->in ? at->in->width : KEY_NONE;
}

static void key_mem(const struct key_at *at, struct key_val *v)
{
	bool r = at->in && at->in->flags & BBMAP_INSN_MEM_READ;
	bool w = at->in && at->in->flags & BBMAP_INSN_MEM_WRITE;

	v->text = !at->in ? no_insn(at) : r && w ? "rw" : r ? "r" : w ? "w" : MARK_NONE;
}

static void key_taxonomy(const struct key_at *at, struct key_val *v)
{
	const struct hbbp_taxonomy *tax = at->x->o->taxonomy;

	v->text = !at->in ? no_insn(at) : tax ? tax->group(tax->ctx, at->in) : NULL;
	if (!v->text || !*v->text)
		v->text = MARK_NONE;	/* in no group */
}

static const struct hbbp_key keys[] = {
	{ "pid",	KEY_INT,  HBBP_KEY_THREAD,		key_pid, NULL },
	{ "tid",	KEY_INT,  HBBP_KEY_THREAD,		key_tid, NULL },
	{ "comm",	KEY_TEXT, HBBP_KEY_THREAD,		key_comm, NULL },
	{ "module",	KEY_TEXT, 0,				key_module, "dso" },
	{ "symbol",	KEY_TEXT, 0,				key_symbol, "sym" },
	{ "block",	KEY_TEXT, HBBP_KEY_BLOCK,		key_block, NULL },
	{ "srcline",	KEY_TEXT, HBBP_KEY_INSN | HBBP_KEY_LINES, key_srcline, NULL },
	{ "mnemonic",	KEY_TEXT, HBBP_KEY_INSN,		key_mnemonic, NULL },
	{ "iclass",	KEY_TEXT, HBBP_KEY_INSN,		key_iclass, NULL },
	{ "isa",	KEY_TEXT, HBBP_KEY_INSN,		key_isa, NULL },
	{ "isa_set",	KEY_TEXT, HBBP_KEY_INSN,		key_isa_set, NULL },
	{ "category",	KEY_TEXT, HBBP_KEY_INSN,		key_category, NULL },
	{ "packing",	KEY_TEXT, HBBP_KEY_INSN,		key_packing, NULL },
	{ "elem",	KEY_TEXT, HBBP_KEY_INSN,		key_elem, NULL },
	{ "width",	KEY_INT,  HBBP_KEY_INSN,		key_width, NULL },
	{ "mem",	KEY_TEXT, HBBP_KEY_INSN,		key_mem, NULL },
	{ NULL,		KEY_TEXT, HBBP_KEY_INSN,		key_taxonomy, NULL },
};
#define NR_KEYS (sizeof(keys) / sizeof(keys[0]))

/* The key named p[0, len), or NULL. */
static const struct hbbp_key *key_find(const char *p, size_t len, const char *taxonomy_column)
{
	size_t k;

	for (k = 0; k < NR_KEYS; k++) {
		const char *name = keys[k].name ? keys[k].name : taxonomy_column;

		if ((name && strlen(name) == len && !strncmp(p, name, len)) ||
		    (keys[k].alias && strlen(keys[k].alias) == len && !strncmp(p, keys[k].alias, len)))
			return &keys[k];
	}
	return NULL;
}

static void unknown_key(const char *p, size_t len, const char *taxonomy_column, char *err,
			size_t errlen)
{
	size_t k, n;

	n = (size_t)snprintf(err, errlen, "--by: unknown key '%.*s' (known:", (int)len, p);
	for (k = 0; k < NR_KEYS && n < errlen; k++) {
		const char *name = keys[k].name ? keys[k].name : taxonomy_column;

		if (name)
			n += (size_t)snprintf(err + n, errlen - n, "%s %s%s%s", k ? "," : "", name,
					      keys[k].alias ? "/" : "",
					      keys[k].alias ? keys[k].alias : "");
	}
	if (n < errlen)
		snprintf(err + n, errlen - n, ")");
}

int hbbp_mix__parse_keys(struct hbbp_mix_opts *o, const char *spec, const char *taxonomy_column,
			 char *err, size_t errlen)
{
	const char *p = spec;

	o->nr_keys = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		const struct hbbp_key *k = key_find(p, len, taxonomy_column);

		if (!len) {
			snprintf(err, errlen, "--by: empty key in '%s'", spec);
			return -HBBP_EUSAGE;
		}
		if (!k) {
			unknown_key(p, len, taxonomy_column, err, errlen);
			return -HBBP_EUSAGE;
		}
		if (o->nr_keys == HBBP_MAX_KEYS) {
			snprintf(err, errlen, "--by: more than %d keys", HBBP_MAX_KEYS);
			return -HBBP_EUSAGE;
		}
		o->keys[o->nr_keys++] = k;
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

unsigned hbbp_mix__needs(const struct hbbp_mix_opts *o)
{
	unsigned needs = 0;
	size_t i;

	for (i = 0; i < o->nr_keys; i++)
		needs |= o->keys[i]->needs;
	return needs;
}

const char *hbbp_mix__key_name(const struct hbbp_mix_opts *o, size_t i)
{
	const struct hbbp_key *k = o->keys[i];

	return k->name ? k->name : o->taxonomy ? o->taxonomy->column : "taxonomy";
}

/* ---- the filters ---- */

/* One element of a list: equal (also where it has * ? or [: '[kernel.kallsyms]'), or a shell
 * glob (fnmatch) when it has those. */
static bool elem_matches(const char *p, size_t len, const char *v)
{
	char pat[256];

	if (strlen(v) == len && !strncmp(p, v, len))
		return true;
	if (strcspn(p, "*?[") >= len || len >= sizeof(pat))
		return false;
	memcpy(pat, p, len);
	pat[len] = 0;
	return !fnmatch(pat, v, 0);
}

bool hbbp_mix__list_has(const char *list, const char *v)
{
	while (*list) {
		size_t len = strcspn(list, ",");

		if (elem_matches(list, len, v))
			return true;
		list += len + !!list[len];
	}
	return false;
}

enum { FILTER_PID, FILTER_COMM, FILTER_MODULE, FILTER_SYMBOL, NR_FILTERS };
static const char *const filter_opt[NR_FILTERS] = { "--pid", "--comm", "--module", "--symbol" };

static const char *filter_list(const struct hbbp_mix_opts *o, int which)
{
	const char *const lists[NR_FILTERS] = { o->pid, o->comm, o->module, o->symbol };

	return lists[which];
}

/* Whether an element of list (of filter `which`) matches thread block t: its pid, its comm,
 * its block's module (short or full name) or symbol. */
static bool filter_match(const struct mix_ctx *x, const struct hbbp_tblock *t, int which,
			 const char *list)
{
	const struct hbbp_block *b = &x->c->blocks[t->block];
	char num[16];
	const char *v;

	switch (which) {
	case FILTER_PID:
		snprintf(num, sizeof(num), "%" PRIu32, t->pid);
		return hbbp_mix__list_has(list, num);
	case FILTER_COMM:
		v = hbbp_accum__comm(x->d, t->pid, t->tid, NULL);
		return v && hbbp_mix__list_has(list, v);
	case FILTER_MODULE:
		return hbbp_mix__list_has(list, mix__dso_short(x, b->dso)) ||
		       hbbp_mix__list_has(list, mix__dso_full(x, b->dso));
	default:
		return b->symname && hbbp_mix__list_has(list, b->symname);
	}
}

bool hbbp_mix__filtered(const struct hbbp_mix_opts *o)
{
	return o->pid || o->comm || o->module || o->symbol || o->user_only || o->kernel_only;
}

bool mix__passes(const struct mix_ctx *x, const struct hbbp_tblock *t)
{
	const struct hbbp_block *b = &x->c->blocks[t->block];
	int which;

	for (which = 0; which < NR_FILTERS; which++)
		if (filter_list(x->o, which) && !filter_match(x, t, which, filter_list(x->o, which)))
			return false;
	if (x->o->user_only && (!b->dso || dso_is_kernel(x, b->dso)))
		return false;
	if (x->o->kernel_only && !dso_is_kernel(x, b->dso))
		return false;
	return true;
}

int hbbp_mix__unmatched(const struct hbbp_counts *c, struct hbbp_accum *d,
			const struct hbbp_code_ops *ops, const struct hbbp_mix_opts *o,
			int (*fn)(void *ctx, const char *option, const char *value), void *ctx)
{
	const struct mix_ctx x = { .c = c, .d = d, .ops = ops, .o = o };
	int which, err = 0;

	for (which = 0; which < NR_FILTERS && !err; which++) {
		const char *p = filter_list(o, which);

		while (p && *p && !err) {
			size_t len = strcspn(p, ","), i;
			char *v = strndup(p, len);	/* the element, as a list of one */
			bool found = false;

			if (!v)
				return -ENOMEM;
			for (i = 0; i < c->nr_tblocks && !found && len; i++) {
				struct hbbp_tblock tmp;
				const struct hbbp_tblock *tb = hbbp_counts__tblock(c, i, &tmp);

				found = tb->count > 0 && filter_match(&x, tb, which, v);
			}
			if (!found && len)
				err = fn(ctx, filter_opt[which], v);
			free(v);
			p += len + !!p[len];
		}
	}
	return err;
}
