/* The result model of writers/result.h: run metadata, warnings and named tables of typed
 * cells. Rows grow geometrically (amortised O(1) appends, ~1e6 rows is routine); text cells
 * are interned in one string pool per result (util/hmap over arena chunks), so a million
 * rows naming the same few mnemonics, modules and symbols store each string once.
 * Cell pointers returned by result_table__add_row() stay valid only until the next
 * add_row() on the same table. A table too large to hold as cells (the mix of millions of
 * rows) is made a row at a time as it is read, by its producer's fill.
 * Depends on libc, util/grow.h and util/hmap.h.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writers/result.h"
#include "util/grow.h"
#include "util/hmap.h"

/* ---- string pool ---------------------------------------------------------------------- */

struct pool_chunk {
	struct pool_chunk *next;
	size_t used, size;
	char data[];
};

/* A string -> its pooled copy (util/hmap, keyed by the copy's bytes). */
struct result_strpool {
	struct pool_chunk *chunks;
	struct hmap map;		/* bytes -> const char * */
};

#define POOL_CHUNK_MIN (64 * 1024)

static int pool__new(struct result_strpool **out)
{
	struct result_strpool *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	hmap__init_bytes(&p->map, sizeof(const char *));
	*out = p;
	return 0;
}

static void pool__delete(struct result_strpool *p)
{
	struct pool_chunk *c, *next;

	if (!p)
		return;
	for (c = p->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	hmap__exit(&p->map);
	free(p);
}

static char *pool__alloc(struct result_strpool *p, size_t size)
{
	struct pool_chunk *c = p->chunks;

	if (!c || c->size - c->used < size) {
		size_t csize = size > POOL_CHUNK_MIN ? size : POOL_CHUNK_MIN;

		if (csize > SIZE_MAX - sizeof(*c))
			return NULL;
		c = malloc(sizeof(*c) + csize);
		if (!c)
			return NULL;
		c->size = csize;
		c->used = 0;
		/* A large string gets its own chunk behind the current one, which stays open. */
		if (p->chunks && size > POOL_CHUNK_MIN) {
			c->next = p->chunks->next;
			p->chunks->next = c;
		} else {
			c->next = p->chunks;
			p->chunks = c;
		}
	}
	c->used += size;
	return c->data + c->used - size;
}

/* Returns the pooled copy of s (one per distinct string) or NULL when out of memory. */
static const char *pool__intern(struct result_strpool *p, const char *s)
{
	size_t len = strlen(s);
	const char **v = hmap__find_bytes(&p->map, s, len);
	char *copy;

	if (v)
		return *v;
	copy = len < SIZE_MAX ? pool__alloc(p, len + 1) : NULL;
	v = copy ? hmap__get_bytes(&p->map, memcpy(copy, s, len + 1), len, NULL) : NULL;
	if (!v)
		return NULL;	/* the copy stays in the pool, unused */
	*v = copy;
	return copy;
}

/* ---- result ---------------------------------------------------------------------------- */

int result__new(struct result **out)
{
	struct result *r = calloc(1, sizeof(*r));
	int err;

	*out = NULL;	/* result__delete(NULL) does nothing: callers free on any path */
	if (!r)
		return -ENOMEM;
	err = pool__new(&r->pool);
	if (err) {
		free(r);
		return err;
	}
	*out = r;
	return 0;
}

static void table__delete(struct result_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr_cols; i++)
		free(t->cols[i].name);
	free(t->cols);
	free(t->cells);
	free(t->row_buf);
	if (t->release)
		t->release(t->fill_ctx);
	free(t->name);
	free(t);
}

void result__delete(struct result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_meta; i++)
		free(r->meta[i].key);
	free(r->meta);
	for (i = 0; i < r->nr_warnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	for (i = 0; i < r->nr_tables; i++)
		table__delete(r->tables[i]);
	free(r->tables);
	pool__delete(r->pool);
	free(r);
}

/* Meta keys are few: a linear search keeps insertion order; setting a key again replaces. */
static struct result_kv *result__meta_slot(struct result *r, const char *key)
{
	size_t i, alloc = r->nr_meta;
	struct result_kv *kv;

	if (!key || !*key)
		return NULL;
	for (i = 0; i < r->nr_meta; i++)
		if (!strcmp(r->meta[i].key, key))
			return &r->meta[i];
	/* alloc tracks nr_meta exactly: grow by one element through the doubling helper. */
	if (grow_array((void **)&r->meta, &alloc, sizeof(*r->meta), r->nr_meta + 1, SIZE_MAX))
		return NULL;
	kv = &r->meta[r->nr_meta];
	kv->key = strdup(key);
	if (!kv->key)
		return NULL;
	kv->val.type = RES_NULL;
	r->nr_meta++;
	return kv;
}

int result__meta_text(struct result *r, const char *key, const char *val)
{
	const char *s = NULL;
	struct result_kv *kv;

	if (val) {
		s = pool__intern(r->pool, val);
		if (!s)
			return -ENOMEM;
	}
	kv = result__meta_slot(r, key);
	if (!kv)
		return key && *key ? -ENOMEM : -EINVAL;
	kv->val.type = s ? RES_TEXT : RES_NULL;
	kv->val.s = s;
	return 0;
}

int result__meta_int(struct result *r, const char *key, int64_t val)
{
	struct result_kv *kv = result__meta_slot(r, key);

	if (!kv)
		return key && *key ? -ENOMEM : -EINVAL;
	result_cell__int(&kv->val, val);
	return 0;
}

int result__meta_real(struct result *r, const char *key, double val)
{
	struct result_kv *kv = result__meta_slot(r, key);

	if (!kv)
		return key && *key ? -ENOMEM : -EINVAL;
	result_cell__real(&kv->val, val);
	return 0;
}

int result__warn(struct result *r, const char *fmt, ...)
{
	size_t alloc = r->nr_warnings;
	va_list ap;
	char *msg;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	if (grow_array((void **)&r->warnings, &alloc, sizeof(*r->warnings),
		       r->nr_warnings + 1, SIZE_MAX)) {
		free(msg);
		return -ENOMEM;
	}
	r->warnings[r->nr_warnings++] = msg;
	return 0;
}

/* "name:type" -> name (malloc'd) and type; -EINVAL for a malformed spec. */
static int column__parse(const char *spec, struct result_column *col)
{
	const char *colon = spec ? strrchr(spec, ':') : NULL;
	const char *type;

	if (!colon || colon == spec)
		return -EINVAL;
	type = colon + 1;
	if (!strcmp(type, "int"))
		col->type = RES_INT;
	else if (!strcmp(type, "real"))
		col->type = RES_REAL;
	else if (!strcmp(type, "text"))
		col->type = RES_TEXT;
	else
		return -EINVAL;
	col->name = strndup(spec, (size_t)(colon - spec));
	return col->name ? 0 : -ENOMEM;
}

/* Adds table name of the nr columns cols ("name:type"), then the names and types of the
 * columns of src (NULL: none). */
static int table__add(struct result *r, const char *name, const char *const *cols, size_t nr,
		      const struct result_table *src, struct result_table **out)
{
	size_t nr_cols = nr + (src ? src->nr_cols : 0), alloc = r->nr_tables, i, j;
	struct result_table *t;
	int err = -ENOMEM;

	if (!name || !*name || !nr_cols || result__table(r, name))
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->pool = r->pool;
	t->name = strdup(name);
	t->cols = calloc(nr_cols, sizeof(*t->cols));
	if (!t->name || !t->cols)
		goto out_free;
	for (i = 0; i < nr_cols; i++) {
		struct result_column *c = &t->cols[i];

		if (i >= nr) {
			c->type = src->cols[i - nr].type;
			c->name = strdup(src->cols[i - nr].name);
		}
		err = i < nr ? column__parse(cols[i], c) : c->name ? 0 : -ENOMEM;
		if (err)
			goto out_free;
		t->nr_cols++;
		for (j = 0; j < i; j++)
			if (!strcmp(t->cols[j].name, t->cols[i].name)) {
				err = -EINVAL;
				goto out_free;
			}
	}
	err = -ENOMEM;
	if (grow_array((void **)&r->tables, &alloc, sizeof(*r->tables), r->nr_tables + 1, SIZE_MAX))
		goto out_free;
	r->tables[r->nr_tables++] = t;
	if (out)
		*out = t;
	return 0;

out_free:
	table__delete(t);
	return err;
}

int result__add_table(struct result *r, const char *name, const char *const *cols,
		      size_t nr_cols, struct result_table **out)
{
	return table__add(r, name, cols, nr_cols, NULL, out);
}

int result__add_table_from(struct result *r, const char *name, const char *first,
			   const struct result_table *src, struct result_table **out)
{
	return table__add(r, name, &first, first != NULL, src, out);
}

struct result_table *result__table(const struct result *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nr_tables; i++)
		if (!strcmp(r->tables[i]->name, name))
			return r->tables[i];
	return NULL;
}

int result_table__reserve(struct result_table *t, size_t rows)
{
	if (t->nr_cols > SIZE_MAX / sizeof(*t->cells))
		return -ENOMEM;
	return grow_array((void **)&t->cells, &t->alloc_rows, t->nr_cols * sizeof(*t->cells),
			  rows, SIZE_MAX);
}

struct result_cell *result_table__add_row(struct result_table *t)
{
	struct result_cell *row;

	/* rows of nr_cols cells: grown a row at a time, the row size overflow-checked */
	if (t->fill || t->nr_rows == SIZE_MAX || t->nr_cols > SIZE_MAX / sizeof(*t->cells) ||
	    grow_array((void **)&t->cells, &t->alloc_rows, t->nr_cols * sizeof(*t->cells),
		       t->nr_rows + 1, SIZE_MAX))
		return NULL;
	row = &t->cells[t->nr_rows * t->nr_cols];
	memset(row, 0, t->nr_cols * sizeof(*row));	/* RES_NULL == 0 */
	t->nr_rows++;
	return row;
}

int result_table__rows_from(struct result_table *t, size_t nr_rows, result_fill_fn fill,
			    void (*release)(void *ctx), void *ctx)
{
	t->release = release;
	t->fill_ctx = ctx;
	if (t->nr_rows || !(t->row_buf = calloc(t->nr_cols, sizeof(*t->row_buf))))
		return -ENOMEM;
	free(t->cells);
	t->cells = NULL;
	t->alloc_rows = 0;
	t->nr_rows = nr_rows;
	t->fill = fill;
	return 0;
}

struct result_cell *result_table__row(const struct result_table *t, size_t row)
{
	if (!t->fill)
		return &t->cells[row * t->nr_cols];
	memset(t->row_buf, 0, t->nr_cols * sizeof(*t->row_buf));	/* RES_NULL == 0 */
	t->fill(t->fill_ctx, row, t->row_buf);
	return t->row_buf;
}

void result_cell__int(struct result_cell *c, int64_t v)
{
	c->type = RES_INT;
	c->i = v;
}

void result_cell__real(struct result_cell *c, double v)
{
	c->type = RES_REAL;
	c->d = v;
}

double result_cell__num(const struct result_cell *c)
{
	return !c ? NAN : c->type == RES_REAL ? c->d : c->type == RES_INT ? (double)c->i : NAN;
}

int result_cell__text(struct result_table *t, struct result_cell *c, const char *s)
{
	const char *p;

	if (!s) {
		c->type = RES_NULL;
		c->s = NULL;
		return 0;
	}
	p = pool__intern(t->pool, s);
	if (!p)
		return -ENOMEM;
	c->type = RES_TEXT;
	c->s = p;
	return 0;
}

int result_table__col(const struct result_table *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nr_cols; i++)
		if (!strcmp(t->cols[i].name, name))
			return (int)i;
	return -1;
}
