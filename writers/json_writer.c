/* JSON and JSON Lines writers, streamed (no document tree is built).
 *
 * JSON: one document
 *   {"format_version": 1, "meta": {...}, "warnings": [...],
 *    "events": [{...}, ...],        (only when the result has a table "events")
 *    "rows": [{...}, ...]}          (the table "mix"; [] when there is none)
 * with one row object per line. JSONL: the first line is a header object
 *   {"format_version": 1, "meta": {...}, "warnings": [...]}
 * and every further line is one row object of "mix" (so `tail -n +2` gives rows only).
 * Row objects map column names to values in column order. NULL, NaN and ±Inf are null;
 * integers are exact; reals use the shortest round-trip form. Strings are escaped by
 * util/json_escape.h (valid UTF-8 passed through, any other byte as \u00XX).
 * Depends on writers/writer_int.h, util/json_escape.h and libc.
 */
#include <errno.h>
#include <string.h>

#include "util/json_escape.h"
#include "writers/writer_int.h"
#include "writers/schema.h"

static const char *const json_tables[] = { "events", "mix", NULL };
static const char *const jsonl_tables[] = { "mix", NULL };

static void json__put(void *ctx, const char *s, size_t n)
{
	wbuf__put(ctx, s, n);
}

static void json__string(struct wbuf *out, const char *str)
{
	json_escape(str, json__put, out);
}

static void json__value(struct wbuf *out, const struct result_cell *c)
{
	char buf[40];
	size_t n;

	switch (c->type) {
	case RES_NULL:
		wbuf__puts(out, "null");
		break;
	case RES_INT:
		n = wfmt__int(buf, c->i);
		wbuf__put(out, buf, n);
		break;
	case RES_REAL:
		if (wfmt__real(buf, sizeof(buf), c->d))
			wbuf__puts(out, "null");
		else
			wbuf__puts(out, buf);
		break;
	case RES_TEXT:
		json__string(out, c->s);
		break;
	}
}

/* {"format_version": 1, "meta": {...}, "warnings": [...] without the closing brace. */
static void json__header(struct writer_ctx *w)
{
	const struct result *r = w->res;
	struct wbuf *out = w->out;
	char buf[24];
	size_t i;

	wbuf__puts(out, "{\"format_version\": ");
	wbuf__put(out, buf, wfmt__int(buf, SCHEMA_ROWS_VERSION));
	wbuf__puts(out, ", \"meta\": {");
	for (i = 0; i < r->nr_meta; i++) {
		if (i)
			wbuf__puts(out, ", ");
		json__string(out, r->meta[i].key);
		wbuf__puts(out, ": ");
		json__value(out, &r->meta[i].val);
	}
	wbuf__puts(out, "}, \"warnings\": [");
	for (i = 0; i < r->nr_warnings; i++) {
		if (i)
			wbuf__puts(out, ", ");
		json__string(out, r->warnings[i]);
	}
	wbuf__putc(out, ']');
}

static void json__object(struct writer_ctx *w, const struct result_table *t, size_t row)
{
	const struct result_cell *c = result_table__row(t, row);
	struct wbuf *out = w->out;
	size_t i;
	bool first = true;

	wbuf__putc(out, '{');
	for (i = 0; i < t->nr_cols; i++) {
		if (t->cols[i].unset)
			continue;
		if (!first)
			wbuf__puts(out, ", ");
		first = false;
		json__string(out, t->cols[i].name);
		wbuf__puts(out, ": ");
		json__value(out, &c[i]);
	}
	wbuf__putc(out, '}');
}

static int json__open(struct writer_ctx *w)
{
	json__header(w);
	return w->out->err;
}

static int json__begin(struct writer_ctx *w, const struct result_table *t)
{
	wbuf__puts(w->out, strcmp(t->name, "mix") ? ",\n\"events\": [" : ",\n\"rows\": [");
	return w->out->err;
}

static int json__row(struct writer_ctx *w, const struct result_table *t, size_t row)
{
	wbuf__puts(w->out, row ? ",\n" : "\n");
	json__object(w, t, row);
	return w->out->err;
}

static int json__end(struct writer_ctx *w, const struct result_table *t)
{
	wbuf__puts(w->out, t->nr_rows ? "\n]" : "]");
	return w->out->err;
}

static int json__close(struct writer_ctx *w, bool ok)
{
	if (!ok)
		return 0;
	if (!result__table(w->res, "mix"))
		wbuf__puts(w->out, ",\n\"rows\": []");
	wbuf__puts(w->out, "}\n");
	return wbuf__flush(w->out);
}

const struct writer_ops json_writer_ops = {
	.name = "json",
	.tables = json_tables,
	.open = json__open,
	.begin = json__begin,
	.row = json__row,
	.end = json__end,
	.close = json__close,
};

static int jsonl__open(struct writer_ctx *w)
{
	json__header(w);
	wbuf__puts(w->out, "}\n");
	return w->out->err;
}

static int jsonl__row(struct writer_ctx *w, const struct result_table *t, size_t row)
{
	json__object(w, t, row);
	wbuf__putc(w->out, '\n');
	return w->out->err;
}

const struct writer_ops jsonl_writer_ops = {
	.name = "jsonl",
	.tables = jsonl_tables,
	.open = jsonl__open,
	.row = jsonl__row,
	.close = writer__close_flush,
};
