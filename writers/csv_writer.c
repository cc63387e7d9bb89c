/* CSV writer (RFC 4180) for the table "mix": a header row of the column names, then one
 * record per row in the order the producer gave (never reordered here).
 * Choices: records end with LF (not CRLF; RFC 4180 readers such as Python's csv module,
 * pandas, spreadsheets and sqlite3 .import accept both); a field is quoted when it contains
 * a comma, a double quote, CR or LF, or leading/trailing space, and quotes are doubled; an
 * empty string is written as "" and NULL as an empty field (the PostgreSQL convention);
 * integers are exact; reals use the shortest round-trip decimal form; NaN is NULL and infinities are written inf and -inf. Bytes of text are
 * written as they are (UTF-8 in, UTF-8 out), except that a text cell a spreadsheet would
 * evaluate (one that begins with = + - @, a tab or CR) is quoted with a single quote
 * before it, as OWASP's "CSV Injection" advises; numbers are never changed. Depends on writers/writer_int.h and libc.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/hbbp_err.h"
#include "writers/writer_int.h"

static const char *const csv_tables[] = { "mix", NULL };

size_t writer__csv_field(char *dst, const char *s, size_t n)
{
	bool formula = n && strchr("=+-@\t\r", s[0]);	/* a spreadsheet would evaluate it */
	char *p = dst;
	size_t i;

	for (i = 0; i < n && s[i] != ',' && s[i] != '"' && s[i] != '\r' && s[i] != '\n'; i++)
		;
	if (i == n && n && !formula && s[0] != ' ' && s[n - 1] != ' ') {
		memcpy(dst, s, n);
		return n;
	}
	*p++ = '"';
	if (formula)
		*p++ = '\'';
	for (i = 0; i < n; i++) {
		if (s[i] == '"')
			*p++ = '"';
		*p++ = s[i];
	}
	*p++ = '"';
	return (size_t)(p - dst);
}

static void csv__text(struct wbuf *out, const char *s)
{
	size_t n = strlen(s);
	char *p;

	if (n > (sizeof(out->buf) - 3) / 2) {	/* longer than the buffer holds quoted */
		p = n < SIZE_MAX / 2 - 2 ? malloc(2 * n + 3) : NULL;
		if (p)
			wbuf__put(out, p, writer__csv_field(p, s, n));
		else if (!out->err)
			out->err = -ENOMEM;
		free(p);
		return;
	}
	p = wbuf__room(out, 2 * n + 3);
	if (p)
		out->len += writer__csv_field(p, s, n);
}

static void csv__cell(struct wbuf *out, const struct result_cell *c)
{
	char buf[40];
	size_t n;

	switch (c->type) {
	case RES_NULL:
		break;
	case RES_INT:
		n = wfmt__int(buf, c->i);
		wbuf__put(out, buf, n);
		break;
	case RES_REAL:
		if (!wfmt__real(buf, sizeof(buf), c->d))
			wbuf__puts(out, buf);
		else if (c->d > 0)
			wbuf__puts(out, "inf");
		else if (c->d < 0)
			wbuf__puts(out, "-inf");
		break;
	case RES_TEXT:
		csv__text(out, c->s);
		break;
	}
}

static int csv__open(struct writer_ctx *w)
{
	if (!result__table(w->res, "mix"))
		return writer__fail(w, -EINVAL, "the result has no table \"mix\" to write as CSV");
	return 0;
}

/* The header row (c NULL: the column names) or a row of cells c. */
static int csv__line(struct writer_ctx *w, const struct result_table *t,
		     const struct result_cell *c)
{
	size_t i;
	bool first = true;

	for (i = 0; i < t->nr_cols; i++) {
		if (t->cols[i].unset)
			continue;
		if (!first)
			wbuf__putc(w->out, ',');
		first = false;
		if (c)
			csv__cell(w->out, &c[i]);
		else
			csv__text(w->out, t->cols[i].name);
	}
	wbuf__putc(w->out, '\n');
	return w->out->err;
}

static int csv__begin(struct writer_ctx *w, const struct result_table *t)
{
	return csv__line(w, t, NULL);
}

static int csv__row(struct writer_ctx *w, const struct result_table *t, size_t row)
{
	return csv__line(w, t, result_table__row(t, row));
}

const struct writer_ops csv_writer_ops = {
	.name = "csv",
	.tables = csv_tables,
	.open = csv__open,
	.begin = csv__begin,
	.row = csv__row,
	.close = writer__close_flush,
};
