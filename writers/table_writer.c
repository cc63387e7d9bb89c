/* The table format (-f table, the default when stdout is a terminal): the table "mix" as
 * aligned text in the manner of `perf report --stdio`, to be read, not parsed (CSV is for
 * that). '#' header lines, then one line per row in the producer's order: the share as a
 * percentage (perf's Overhead), the count, its 95% interval [count_lo, count_hi], the key
 * columns, then any other column (--diagnostics). Numbers are written as CSV writes them
 * (the result's rounding), NULL as '-'.
 * The numbers and the keys fit 80 columns (the other columns follow): numbers are never cut;
 * a key column is as wide as its widest value, and while they would pass 80 columns the
 * widest key column is narrowed, down to 8 characters. A value longer than its column keeps
 * its first characters and ends with "..", or, a path (starting with '/'), keeps its last
 * characters and starts with "..". Text is measured in UTF-8 characters, with control
 * characters shown as \xNN (hbbp_escape).
 * Depends on writers/writer_int.h, util/hbbp_err.h and libc.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hbbp_err.h"
#include "writers/writer_int.h"

#define TABLE_WIDTH	80
#define KEY_MIN_WIDTH	8
#define CELL_MAX	512	/* bytes of a cell shown (escaped); longer text is cut */

static const char *const table_tables[] = { "mix", NULL };

enum field_kind { FIELD_SHARE, FIELD_COUNT, FIELD_INTERVAL, FIELD_KEY, FIELD_OTHER };

/* A column of the text: a column of the table, or the interval made of two. */
struct field {
	enum field_kind kind;
	size_t col, col_hi;		/* the table's columns (col_hi: the interval's end) */
	const char *name;
	size_t width;			/* in characters */
};

struct table_state {
	struct field *f;
	size_t nr;
};

/* Characters of UTF-8 text (its bytes that do not continue a sequence). */
static size_t text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void fmt_number(char *buf, size_t size, const struct result_cell *c)
{
	if (c->type == RES_INT)
		wfmt__int(buf, c->i);
	else if (c->type != RES_REAL || wfmt__real(buf, size, c->d))
		snprintf(buf, size, c->type == RES_REAL ? (c->d > 0 ? "inf" : "-inf") : "-");
}

/* The text of field f of the row of cells c into buf (CELL_MAX bytes). */
static void fmt_field(const struct result_cell *c, const struct field *f, char *buf)
{
	char lo[40], hi[40];

	switch (f->kind) {
	case FIELD_SHARE:
		if (c[f->col].type == RES_REAL)
			snprintf(buf, CELL_MAX, "%.2f%%", 100 * c[f->col].d);
		else
			fmt_number(buf, CELL_MAX, &c[f->col]);
		return;
	case FIELD_INTERVAL:
		fmt_number(lo, sizeof(lo), &c[f->col]);
		fmt_number(hi, sizeof(hi), &c[f->col_hi]);
		snprintf(buf, CELL_MAX, "[%s, %s]", lo, hi);
		return;
	default:
		if (c[f->col].type == RES_TEXT)
			hbbp_escape(buf, CELL_MAX, c[f->col].s);
		else
			fmt_number(buf, CELL_MAX, &c[f->col]);
	}
}

static bool left_aligned(const struct field *f)
{
	return f->kind == FIELD_KEY || f->kind == FIELD_OTHER || f->kind == FIELD_INTERVAL;
}

/* Writes s in width characters: padded (unless last), or cut with "..": a path keeps its
 * end, other text its start. */
static void put_cell(struct wbuf *out, const char *s, size_t width, bool left, bool last)
{
	size_t n = text_width(s), i;

	if (n > width && s[0] == '/') {
		for (i = strlen(s), n = 0; i > 0 && n < width - 2; i--)
			n += ((unsigned char)s[i - 1] & 0xc0) != 0x80;
		wbuf__puts(out, "..");
		wbuf__puts(out, s + i);
		return;
	}
	if (n > width) {
		for (i = 0, n = 0; s[i] && n < width - 2; i++)
			n += ((unsigned char)s[i + 1] & 0xc0) != 0x80;
		wbuf__put(out, s, i);
		wbuf__puts(out, "..");
		return;
	}
	for (i = n; !left && i < width; i++)
		wbuf__putc(out, ' ');
	wbuf__puts(out, s);
	for (i = n; left && !last && i < width; i++)
		wbuf__putc(out, ' ');
}

static int table__open(struct writer_ctx *w)
{
	if (!result__table(w->res, "mix"))
		return writer__fail(w, -EINVAL, "the result has no table \"mix\" to write as a"
				    " table");
	w->priv = calloc(1, sizeof(struct table_state));
	return w->priv ? 0 : -ENOMEM;
}

/* The fields of t in their order: share, count, interval, then the other columns. */
static int table__fields(struct table_state *st, const struct result_table *t)
{
	int share = result_table__col(t, "share"), count = result_table__col(t, "count");
	int lo = result_table__col(t, "count_lo"), hi = result_table__col(t, "count_hi");
	size_t i;

	st->f = calloc(t->nr_cols + 1, sizeof(*st->f));
	if (!st->f)
		return -ENOMEM;
	if (share >= 0)
		st->f[st->nr++] = (struct field){ FIELD_SHARE, (size_t)share, 0, "Overhead", 0 };
	if (count >= 0)
		st->f[st->nr++] = (struct field){ FIELD_COUNT, (size_t)count, 0, "count", 0 };
	if (lo >= 0 && hi >= 0)
		st->f[st->nr++] = (struct field){ FIELD_INTERVAL, (size_t)lo, (size_t)hi,
						  "95% interval", 0 };
	for (i = 0; i < t->nr_cols; i++) {
		bool in_interval = lo >= 0 && hi >= 0 && ((int)i == lo || (int)i == hi);

		if ((int)i == share || (int)i == count || in_interval || t->cols[i].unset)
			continue;
		st->f[st->nr++] = (struct field){ count < 0 || (int)i < count ? FIELD_KEY :
						  FIELD_OTHER, i, 0, t->cols[i].name, 0 };
	}
	return 0;
}

/* Each field as wide as its widest text, then the widest key narrowed while the numbers and
 * keys are wider than TABLE_WIDTH; the header and its dotted line. */
static int table__begin(struct writer_ctx *w, const struct result_table *t)
{
	struct table_state *st = w->priv;
	char buf[CELL_MAX];
	size_t i, r, line = 0;
	int err = table__fields(st, t);

	if (err)
		return err;
	for (i = 0; i < st->nr; i++)
		st->f[i].width = text_width(st->f[i].name) + (i ? 0 : 2);	/* "# " */
	for (r = 0; r < t->nr_rows; r++) {
		const struct result_cell *c = result_table__row(t, r);

		for (i = 0; i < st->nr; i++) {
			fmt_field(c, &st->f[i], buf);
			if (text_width(buf) > st->f[i].width)
				st->f[i].width = text_width(buf);
		}
	}
	for (i = 0; i < st->nr; i++)
		if (st->f[i].kind != FIELD_OTHER)
			line += st->f[i].width + (i ? 2 : 0);
	while (line > TABLE_WIDTH) {
		struct field *widest = NULL;

		for (i = 0; i < st->nr; i++)
			if (st->f[i].kind == FIELD_KEY && st->f[i].width > KEY_MIN_WIDTH &&
			    (!widest || st->f[i].width > widest->width))
				widest = &st->f[i];
		if (!widest)
			break;
		widest->width--;
		line--;
	}
	for (r = 0; r < 2; r++) {
		for (i = 0; i < st->nr; i++) {
			const struct field *f = &st->f[i];

			wbuf__puts(w->out, i ? "  " : "# ");
			if (!r) {
				put_cell(w->out, f->name, f->width - (i ? 0 : 2), left_aligned(f),
					 i + 1 == st->nr);
			} else {
				size_t k;

				for (k = i ? 0 : 2; k < f->width; k++)
					wbuf__putc(w->out, '.');
			}
		}
		wbuf__putc(w->out, '\n');
	}
	wbuf__puts(w->out, "#\n");
	return w->out->err;
}

static int table__row(struct writer_ctx *w, const struct result_table *t, size_t row)
{
	const struct table_state *st = w->priv;
	const struct result_cell *c = result_table__row(t, row);
	char buf[CELL_MAX];
	size_t i;

	for (i = 0; i < st->nr; i++) {
		if (i)
			wbuf__puts(w->out, "  ");
		fmt_field(c, &st->f[i], buf);
		put_cell(w->out, buf, st->f[i].width, left_aligned(&st->f[i]), i + 1 == st->nr);
	}
	wbuf__putc(w->out, '\n');
	return w->out->err;
}

static int table__close(struct writer_ctx *w, bool ok)
{
	struct table_state *st = w->priv;

	if (st)
		free(st->f);
	free(st);
	w->priv = NULL;
	return writer__close_flush(w, ok);
}

const struct writer_ops table_writer_ops = {
	.name = "table",
	.tables = table_tables,
	.open = table__open,
	.begin = table__begin,
	.row = table__row,
	.close = table__close,
};
