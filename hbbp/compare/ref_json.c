/* Reads our JSON and JSON Lines outputs as an instruction mix for `compare`: every row field
 * except count, share and the diagnostics columns is a key column. The file is read line by
 * line, each line's text bound as a parameter of SQLite's JSON functions (json_each,
 * json_extract, json_type), in the layouts writers/json_writer.c writes:
 *  - JSON Lines: a header object on the first line, then one row object per line;
 *  - JSON: the header's lines up to one ending in "rows": [ (or "rows": []}), then one row
 *    object per line, each but the last followed by a comma, then ]}.
 * Errors name the file and the line. Memory: the header's lines and one more line, at most
 * MAX_LINE bytes each, and SQLite's parse of one of them, besides the mix.
 * Depends on hbbp/compare/ref.h, sqlite3 and libc.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/compare/ref.h"
#include "util/grow.h"
#include "util/hbbp_err.h"
#include "writers/schema.h"

#define MAX_LINE   (64u << 20)
#define MAX_FIELDS 64

struct jr {
	const char *path;
	FILE *f;
	unsigned long line;
	char *buf;		/* the line read last (the header's lines), NUL-terminated */
	size_t len, cap;
	sqlite3 *db;
	sqlite3_stmt *head;	/* an object's type, its format_version's type and JSON */
	sqlite3_stmt *fields;	/* a row's fields: name, type, value */
	struct ref_mix *m;
	size_t nk;
	char *keys[MAX_FIELDS];	/* key column names, from the first row */
};

static int jerr(struct jr *j, const char *what)
{
	pr_err("%s:%lu: %s", j->path, j->line, what);
	return -HBBP_EFORMAT;
}

/* Reads the next line into j->buf without its newline (after what it holds and a newline
 * when keep): 1, 0 at the end of the file, or an error. */
static int jline(struct jr *j, bool keep)
{
	size_t start = keep ? j->len + 1 : 0;
	int c;

	if (grow_array((void **)&j->buf, &j->cap, 1, start + 1, (size_t)-1))
		return -ENOMEM;
	if (keep)
		j->buf[j->len] = '\n';
	j->len = start;
	j->line++;
	while ((c = getc_unlocked(j->f)) != EOF && c != '\n') {
		if (!c || j->len >= MAX_LINE)
			return jerr(j, c ? "longer than 64 MiB" : "a NUL byte");
		if (grow_one((void **)&j->buf, &j->cap, 1, j->len + 1))
			return -ENOMEM;
		j->buf[j->len++] = (char)c;
	}
	j->buf[j->len] = '\0';
	if (ferror(j->f)) {
		pr_err("%s: %s", j->path, strerror(errno));
		return -EIO;
	}
	if (c == EOF && j->len == start) {
		j->line--;
		return 0;
	}
	return 1;
}

/* The length of buf[0..n) without its trailing blanks. */
static size_t jtrim(const char *buf, size_t n)
{
	while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\t' || buf[n - 1] == '\r'))
		n--;
	return n;
}

/* One row object, text[0..n) (a line). */
static int jrow(struct jr *j, const char *text, size_t n)
{
	sqlite3_stmt *st = j->fields;
	char *names[MAX_FIELDS], *vals[MAX_FIELDS];
	bool nulls[MAX_FIELDS];
	const char *keys[MAX_FIELDS];
	size_t nf = 0, i, k;
	double count = NAN;
	int rc = SQLITE_DONE, err = 0;

	if (text[strspn(text, " \t")] != '{' || !n || text[n - 1] != '}')
		return jerr(j, "expected a row object, one per line");
	sqlite3_bind_text(st, 1, text, (int)n, SQLITE_STATIC);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);
		bool key = !ref_mix__value_column(name);	/* only keys' text is read */
		const char *val = key ? (const char *)sqlite3_column_text(st, 2) : NULL;

		if (nf == MAX_FIELDS)
			err = jerr(j, "too many fields in a row");
		else if (!strcmp(type, "object") || !strcmp(type, "array"))
			err = jerr(j, "expected a value");
		for (i = 0; !err && i < nf; i++)
			if (!strcmp(names[i], name))
				err = jerr(j, "a row names a column twice");
		if (!err && !strcmp(name, "count")) {
			count = sqlite3_column_double(st, 2);
			if ((strcmp(type, "integer") && strcmp(type, "real")) || !isfinite(count) ||
			    count < 0)
				err = jerr(j, "bad count");
		}
		if (err)
			break;
		nulls[nf] = !strcmp(type, "null");
		names[nf] = strdup(name);
		vals[nf++] = key ? strdup(val ? val : "") : NULL;
		if (!names[nf - 1] || (key && !vals[nf - 1]))
			err = -ENOMEM;
	}
	if (!err && rc != SQLITE_DONE)
		err = jerr(j, sqlite3_errmsg(j->db));
	sqlite3_reset(st);
	if (!err && isnan(count))
		err = jerr(j, "row without a count");
	if (!err && !j->m) {
		/* the first row names the key columns */
		for (i = 0; !err && i < nf; i++)
			if (!ref_mix__value_column(names[i]) && j->nk < MAX_FIELDS &&
			    !(j->keys[j->nk++] = strdup(names[i])))
				err = -ENOMEM;
		if (!err && !j->nk)
			err = jerr(j, "rows have no key columns");
		if (!err)
			err = ref_mix__new(j->path, "json", (const char *const *)j->keys, j->nk,
					   &j->m);
	}
	for (k = 0; !err && k < j->nk; k++) {
		for (i = 0; i < nf && strcmp(names[i], j->keys[k]); i++)
			;
		if (i == nf)
			err = jerr(j, "row lacks a key column of the first row");
		else if (nulls[i])
			err = jerr(j, "a key column is null");
		else
			keys[k] = vals[i];
	}
	if (!err)
		err = ref_mix__add_row(j->m, keys, count);
	for (i = 0; i < nf; i++) {
		free(names[i]);
		free(vals[i]);
	}
	return err;
}

/* A header object: its format version; *rows: it holds the rows (a whole document). 1: text
 * is no JSON object. */
static int jheader(struct jr *j, const char *text, size_t n, bool *rows)
{
	sqlite3_stmt *st = j->head;
	const char *type, *v;
	int err = 1;

	sqlite3_bind_text(st, 1, text, (int)n, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW ||
	    strcmp((const char *)sqlite3_column_text(st, 0), "object"))
		goto out;
	/* a version this reader does not know is refused, not guessed at (2 added count_lo
	 * and count_hi, which compare does not read) */
	type = (const char *)sqlite3_column_text(st, 2);
	v = (const char *)sqlite3_column_text(st, 3);
	if (type && (strcmp(type, "integer") || atoll(v) < 1 || atoll(v) > SCHEMA_ROWS_VERSION)) {
		pr_err("%s: format version %s is not supported (this tool reads 1 to %d)", j->path,
		       v, SCHEMA_ROWS_VERSION);
		err = -HBBP_EUNSUPP;
		goto out;
	}
	*rows = sqlite3_column_type(st, 1) != SQLITE_NULL;
	err = 0;
out:
	sqlite3_reset(st);
	return err;
}

/* A document's header from its first line in j->buf: its lines up to one ending in
 * "rows": [ (*done: "rows": []}, the whole document). */
static int jdocument(struct jr *j, bool *done)
{
	size_t n, k, open;
	bool rows;
	int r;

	for (;;) {
		n = jtrim(j->buf, j->len);
		*done = n >= 2 && !memcmp(j->buf + n - 2, "]}", 2);
		open = *done ? jtrim(j->buf, n - 2) : n;
		k = open && j->buf[open - 1] == '[' ? jtrim(j->buf, open - 1) : 0;
		if (k && j->buf[k - 1] == ':')
			k = jtrim(j->buf, k - 1);
		if (k >= 6 && !memcmp(j->buf + k - 6, "\"rows\"", 6))
			break;
		r = jline(j, true);
		if (r <= 0)
			return r < 0 ? r : jerr(j, "no \"rows\": [ line: not JSON Lines, nor a JSON"
						" document with one row per line");
	}
	if (grow_array((void **)&j->buf, &j->cap, 1, open + 3, (size_t)-1))
		return -ENOMEM;
	memcpy(j->buf + open, "]}", 3);		/* the rows come later, if any */
	r = jheader(j, j->buf, open + 2, &rows);
	return r == 1 ? jerr(j, "the lines up to \"rows\" are no JSON object") : r;
}

/* The file: a header, then rows, one per line (a document's each followed by a comma but
 * the last, then "]}"). */
static int jread(struct jr *j)
{
	bool doc = false, done = false, comma = false, first = true;
	size_t n;
	int r;

	while ((r = jline(j, false)) > 0 && !jtrim(j->buf, j->len))
		;
	if (!j->line)
		j->line = 1;
	if (r <= 0)
		return r < 0 ? r : jerr(j, "expected a JSON object");
	r = jheader(j, j->buf, j->len, &done);
	if (r == 1) {
		doc = true;
		r = jdocument(j, &done);
	} else if (!r && done) {
		r = jerr(j, "a whole document on one line: compare reads one row per line, as"
			 " hbbp-convert writes them");
	}
	while (!r && (r = jline(j, false)) > 0) {
		n = jtrim(j->buf, j->len);
		r = 0;
		if (!n)
			continue;
		if (done) {
			r = jerr(j, "text after the document");
		} else if (doc && n == 2 && !memcmp(j->buf, "]}", 2)) {
			done = true;
			if (comma)
				r = jerr(j, "expected a row after ','");
		} else if (doc && !first && !comma) {
			r = jerr(j, "expected ','");
		} else {
			comma = doc && j->buf[n - 1] == ',';
			r = jrow(j, j->buf, comma ? n - 1 : n);
			first = false;
		}
	}
	if (r < 0)
		return r;
	return doc && !done ? jerr(j, "expected ']}'") : 0;
}

int ref_json__read(const char *path, struct ref_mix **out)
{
	struct jr j = { .path = path };
	size_t i;
	int err = ref_mix__fopen(path, "rb", &j.f);

	if (err)
		return err;
	if (sqlite3_open_v2(":memory:", &j.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) ||
	    sqlite3_prepare_v2(j.db, "SELECT json_type($1), json_type($1, '$.rows'),"
			       " json_type($1, '$.format_version'),"
			       " json_quote(json_extract($1, '$.format_version'))", -1, &j.head,
			       NULL) ||
	    sqlite3_prepare_v2(j.db, "SELECT key, type, atom FROM json_each($1)", -1, &j.fields,
			       NULL)) {
		pr_err("%s: %s", path, sqlite3_errmsg(j.db));
		err = -ENOMEM;
	}
	if (!err)
		err = jread(&j);
	if (!err && !j.m)
		err = ref_mix__new(path, "json", (const char *const *)(const char *[]){ "mnemonic" },
				   1, &j.m);
	for (i = 0; i < j.nk; i++)
		free(j.keys[i]);
	sqlite3_finalize(j.head);
	sqlite3_finalize(j.fields);
	sqlite3_close(j.db);
	fclose(j.f);
	free(j.buf);
	return ref_mix__finish(j.m, err, out);
}
