/* Reads a CSV instruction mix for `compare`: our own CSV output (key columns, count, share,
 * optional diagnostics columns), pmusim's --truth (mnemonic,count) and pmusim's
 * --truth-insns (module,offset,address,count,mnemonic: per-instruction counts).
 * RFC 4180 with a header row; quoted fields may hold commas, quotes and newlines.
 * Depends on hbbp/compare/ref.h and libc.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/compare/ref.h"
#include "util/hbbp_err.h"
#include "util/grow.h"

#define MAX_FIELDS 64
#define MAX_FIELD  65536

struct csv {
	FILE *f;
	const char *path;
	unsigned long line;	/* current line (1-based) */
	unsigned long rec_line;	/* line where the current record starts */
	char *buf;		/* all fields of a record, NUL-separated */
	size_t len, cap;
	size_t nr;
	size_t off[MAX_FIELDS];
};

static int csv_put(struct csv *c, int ch)
{
	if (c->len + 2 > (size_t)MAX_FIELD * 4)
		return -HBBP_ELIMIT;
	if (grow_array((void **)&c->buf, &c->cap, 1, c->len + 2, (size_t)MAX_FIELD * 4))
		return -ENOMEM;
	c->buf[c->len++] = (char)ch;
	return 0;
}

/* Reads one record; 1 on success, 0 at EOF, negative on error. */
static int csv_record(struct csv *c)
{
	int ch, err;
	bool quoted = false, was_quoted = false, any = false;

	c->len = 0;
	c->nr = 0;
	c->rec_line = c->line;
	c->off[c->nr++] = 0;
	for (;;) {
		ch = getc(c->f);
		if (ch == EOF) {
			if (quoted) {
				pr_err("%s:%lu: unterminated quoted field", c->path, c->rec_line);
				return -HBBP_EFORMAT;
			}
			if (!any)
				return 0;
			break;
		}
		any = true;
		if (quoted) {
			if (ch == '"') {
				int nx = getc(c->f);

				if (nx == '"') {
					if ((err = csv_put(c, '"')))
						return err;
					continue;
				}
				if (nx != EOF)
					ungetc(nx, c->f);
				quoted = false;
				continue;
			}
			if (ch == '\n')
				c->line++;
			if ((err = csv_put(c, ch)))
				return err;
			continue;
		}
		if (ch == '"' && !was_quoted && c->len == c->off[c->nr - 1]) {
			quoted = was_quoted = true;
			continue;
		}
		if (ch == '\r')
			continue;
		if (ch == '\n') {
			c->line++;
			break;
		}
		if (ch == ',') {
			if ((err = csv_put(c, 0)))
				return err;
			if (c->nr == MAX_FIELDS) {
				pr_err("%s:%lu: more than %d fields", c->path, c->rec_line,
				       MAX_FIELDS);
				return -HBBP_EFORMAT;
			}
			c->off[c->nr++] = c->len;
			was_quoted = false;
			continue;
		}
		if (was_quoted) {
			pr_err("%s:%lu: text after a closing quote", c->path, c->rec_line);
			return -HBBP_EFORMAT;
		}
		if ((err = csv_put(c, ch)))
			return err;
	}
	if ((err = csv_put(c, 0)))
		return err;
	return 1;
}

/* Field i; a cell our CSV writer defused for spreadsheets ('=..., '+..., '-..., '@...,
 * '<tab>..., '<CR>...: writers/SCHEMA.md) read back as the text it stands for. */
static const char *csv_field(const struct csv *c, size_t i)
{
	const char *f = c->buf + c->off[i];

	return f[0] == '\'' && f[1] && strchr("=+-@\t\r", f[1]) ? f + 1 : f;
}

static int parse_count(const struct csv *c, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v) || v < 0) {
		pr_err("%s:%lu: bad count '%s'", c->path, c->rec_line, s);
		return -HBBP_EFORMAT;
	}
	*out = v;
	return 0;
}

static int parse_u64(const struct csv *c, const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (!*s || *s == '-' || *end || errno) {
		pr_err("%s:%lu: bad address or offset '%s'", c->path, c->rec_line, s);
		return -HBBP_EFORMAT;
	}
	*out = v;
	return 0;
}

/* pmusim --truth-insns, with its cycles column under --truth-cycles */
static bool is_insns_header(const struct csv *c)
{
	static const char *const h[] = { "module", "offset", "address", "count", "mnemonic",
					 "cycles" };
	size_t i;

	if (c->nr != 5 && c->nr != 6)
		return false;
	for (i = 0; i < c->nr; i++)
		if (strcmp(csv_field(c, i), h[i]))
			return false;
	return true;
}

/* The rows of --truth-insns, the count read from field vi (3 the count, 5 the cycles). */
static int read_insns(struct csv *c, struct ref_mix *m, size_t vi)
{
	size_t nf = c->nr;
	unsigned long nofile = 0;
	int r, err = 0;

	while ((r = csv_record(c)) > 0) {
		uint64_t off, addr, vaddr;
		double cnt;

		if (c->nr == 1 && !*csv_field(c, 0))
			continue;
		if (c->nr != nf) {
			pr_err("%s:%lu: %zu fields, expected %zu", c->path, c->rec_line, c->nr, nf);
			return -HBBP_EFORMAT;
		}
		if ((err = parse_u64(c, csv_field(c, 1), &off)) ||
		    (err = parse_u64(c, csv_field(c, 2), &addr)) ||
		    (err = parse_count(c, csv_field(c, vi), &cnt)))
			return err;
		/* the file offset names the instruction whatever the load address was */
		if (ref_decode__offset_to_vaddr(csv_field(c, 0), off, &vaddr)) {
			vaddr = addr;
			nofile++;
		}
		if ((err = ref_mix__add_ip(m, csv_field(c, 0), vaddr, cnt, csv_field(c, 4))))
			return err;
		m->ips[m->nr_ips - 1].offset = off;
	}
	if (nofile)
		pr_warn("%s: %lu addresses in modules that cannot be opened: runtime addresses "
			"used", c->path, nofile);
	return r;
}

int ref_csv__read(const char *path, const char *value, struct ref_mix **out)
{
	struct csv c = { .path = path, .line = 1 };
	const char *cols[MAX_FIELDS], *keys[MAX_FIELDS];
	size_t i, nk = 0, ci = MAX_FIELDS;
	size_t kidx[MAX_FIELDS];
	struct ref_mix *m = NULL;
	int r, err;

	if ((err = ref_mix__fopen(path, "r", &c.f)))
		return err;
	r = csv_record(&c);
	if (r <= 0) {
		if (!r)
			pr_err("%s:1: empty file, expected a CSV header", path);
		err = r ? r : -HBBP_EFORMAT;
		goto out;
	}
	if (is_insns_header(&c)) {
		static const char *const none[1] = { NULL };
		size_t vi = strcmp(value, "count") ? 5 : 3;

		if (vi >= c.nr || strcmp(csv_field(&c, vi), value)) {
			pr_err("%s:1: no column '%s' (pmusim --truth-cycles writes cycles)", path,
			       value);
			err = -HBBP_EFORMAT;
			goto out;
		}
		err = ref_mix__new(path, "pmusim-insns", none, 0, &m);
		if (!err)
			err = read_insns(&c, m, vi);
		goto out;
	}
	for (i = 0; i < c.nr; i++) {
		size_t d;

		cols[i] = csv_field(&c, i);
		for (d = 0; d < i; d++)
			if (!strcmp(cols[d], cols[i])) {
				pr_err("%s:1: column '%s' appears twice in the header", path, cols[i]);
				err = -HBBP_EFORMAT;
				goto out;
			}
		if (!strcmp(cols[i], value))
			ci = i;
		else if (!ref_mix__value_column(cols[i])) {
			if (!*cols[i]) {
				pr_err("%s:1: empty column name", path);
				err = -HBBP_EFORMAT;
				goto out;
			}
			kidx[nk] = i;
			keys[nk++] = cols[i];
		}
	}
	if (ci == MAX_FIELDS || !nk) {
		pr_err("%s:1: not an instruction mix: the header needs key columns and '%s'",
		       path, value);
		err = -HBBP_EFORMAT;
		goto out;
	}
	{
		size_t nf = c.nr;
		const char *kind = (nf == 2 || (nf == 3 && !strcmp(cols[2], "cycles"))) &&
				   nk == 1 && !strcmp(keys[0], "mnemonic") ?
				   "pmusim-truth" : "csv";

		err = ref_mix__new(path, kind, keys, nk, &m);	/* the names copied */
		while (!err && (r = csv_record(&c)) > 0) {
			double cnt;

			if (c.nr == 1 && !*csv_field(&c, 0))
				continue;
			if (c.nr != nf) {
				pr_err("%s:%lu: %zu fields, the header has %zu", path, c.rec_line,
				       c.nr, nf);
				err = -HBBP_EFORMAT;
				break;
			}
			if (strcmp(value, "count") && !*csv_field(&c, ci))
				continue;	/* a row without cycle data: none to compare */
			if ((err = parse_count(&c, csv_field(&c, ci), &cnt)))
				break;
			for (i = 0; i < nk; i++)
				keys[i] = csv_field(&c, kidx[i]);
			err = ref_mix__add_row(m, keys, cnt);
		}
		if (!err && r < 0)
			err = r;
	}
out:
	if (c.f)
		fclose(c.f);
	free(c.buf);
	return ref_mix__finish(m, err, out);
}
