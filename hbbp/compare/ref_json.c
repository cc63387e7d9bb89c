/* Reads our JSON (one document with "rows": [...]) and JSON Lines (a header object, then one
 * row object per line) outputs as an instruction mix for `compare`: every row field except
 * count, share and the diagnostics columns is a key column. A small strict JSON parser;
 * errors name the file and line.
 * Depends on hbbp/compare/ref.h and libc.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/compare/ref.h"
#include "util/hbbp_err.h"
#include "writers/schema.h"

#define MAX_JSON   (1ULL << 32)
#define MAX_DEPTH  64
#define MAX_FIELDS 64

struct jp {
	const char *path;
	const char *s, *p, *end;
	struct ref_mix *m;
	size_t nk;
	char *keys[MAX_FIELDS];	/* key column names, from the first row */
};

static int jerr(struct jp *j, const char *what)
{
	unsigned long line = 1;
	const char *q;

	for (q = j->s; q < j->p && q < j->end; q++)
		line += *q == '\n';
	pr_err("%s:%lu: %s", j->path, line, what);
	return -HBBP_EFORMAT;
}

static void ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool eat(struct jp *j, char c)
{
	ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

static void utf8(char *o, size_t *n, unsigned cp)
{
	if (cp < 0x80)
		o[(*n)++] = (char)cp;
	else if (cp < 0x800) {
		o[(*n)++] = (char)(0xc0 | cp >> 6);
		o[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		o[(*n)++] = (char)(0xe0 | cp >> 12);
		o[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[(*n)++] = (char)(0x80 | (cp & 0x3f));
	}
}

/* A string token into a new buffer. \u00XX escapes of our writer (raw bytes) come back as
 * the byte when below 0x100 only if they were not valid UTF-8; we keep code points as
 * UTF-8, which is what the writer's valid input was. */
static int jstring(struct jp *j, char **out)
{
	const char *q;
	char *o;
	size_t n = 0;

	if (!eat(j, '"'))
		return jerr(j, "expected a string");
	for (q = j->p; q < j->end && *q != '"'; q++)
		if (*q == '\\')
			q++;
	if (q >= j->end)
		return jerr(j, "unterminated string");
	o = malloc((size_t)(q - j->p) * 2 + 1);
	if (!o)
		return -ENOMEM;
	while (j->p < q) {
		char c = *j->p++;

		if ((unsigned char)c < 0x20) {
			free(o);
			return jerr(j, "control character in a string");
		}
		if (c != '\\') {
			o[n++] = c;
			continue;
		}
		c = *j->p++;
		switch (c) {
		case '"': case '\\': case '/': o[n++] = c; break;
		case 'n': o[n++] = '\n'; break;
		case 't': o[n++] = '\t'; break;
		case 'r': o[n++] = '\r'; break;
		case 'b': o[n++] = '\b'; break;
		case 'f': o[n++] = '\f'; break;
		case 'u': {
			unsigned cp = 0;
			int i;

			for (i = 0; i < 4; i++) {
				char h = j->p < q ? *j->p++ : 0;

				cp <<= 4;
				if (h >= '0' && h <= '9')
					cp |= (unsigned)(h - '0');
				else if ((h | 0x20) >= 'a' && (h | 0x20) <= 'f')
					cp |= (unsigned)((h | 0x20) - 'a' + 10);
				else {
					free(o);
					return jerr(j, "bad \\u escape");
				}
			}
			utf8(o, &n, cp);
			break;
		}
		default:
			free(o);
			return jerr(j, "bad escape in a string");
		}
	}
	j->p = q + 1;
	o[n] = 0;
	*out = o;
	return 0;
}

/* A scalar as text ("" for null) and whether it was a number. */
static int jscalar(struct jp *j, char **out, bool *number)
{
	const char *q;

	ws(j);
	*number = false;
	if (j->p < j->end && *j->p == '"')
		return jstring(j, out);
	for (q = j->p; q < j->end && (strchr("+-.eE", *q) || (*q >= '0' && *q <= '9') ||
				      (*q >= 'a' && *q <= 'z')); q++)
		;
	if (q == j->p)
		return jerr(j, "expected a value");
	*out = strndup(j->p, (size_t)(q - j->p));
	if (!*out)
		return -ENOMEM;
	if (!strcmp(*out, "null") || !strcmp(*out, "true") || !strcmp(*out, "false")) {
		if (!strcmp(*out, "null"))
			**out = 0;
	} else {
		char *e;

		errno = 0;
		strtod(*out, &e);
		if (*e || errno) {
			free(*out);
			return jerr(j, "bad number");
		}
		*number = true;
	}
	j->p = q;
	return 0;
}

static int jskip(struct jp *j, int depth)
{
	char *s;
	bool num;
	int err;

	if (depth > MAX_DEPTH)
		return jerr(j, "nesting too deep");
	if (eat(j, '{')) {
		if (eat(j, '}'))
			return 0;
		do {
			if ((err = jstring(j, &s)))
				return err;
			free(s);
			if (!eat(j, ':'))
				return jerr(j, "expected ':'");
			if ((err = jskip(j, depth + 1)))
				return err;
		} while (eat(j, ','));
		return eat(j, '}') ? 0 : jerr(j, "expected '}'");
	}
	if (eat(j, '[')) {
		if (eat(j, ']'))
			return 0;
		do {
			if ((err = jskip(j, depth + 1)))
				return err;
		} while (eat(j, ','));
		return eat(j, ']') ? 0 : jerr(j, "expected ']'");
	}
	if ((err = jscalar(j, &s, &num)))
		return err;
	free(s);
	return 0;
}

/* One row object. */
static int jrow(struct jp *j)
{
	char *names[MAX_FIELDS], *vals[MAX_FIELDS];
	bool nulls[MAX_FIELDS];
	const char *keys[MAX_FIELDS];
	size_t n = 0, i, k;
	double count = NAN;
	bool num;
	int err = 0;

	if (!eat(j, '{'))
		return jerr(j, "expected a row object");
	if (!eat(j, '}')) {
		do {
			if (n == MAX_FIELDS) {
				err = jerr(j, "too many fields in a row");
				break;
			}
			if ((err = jstring(j, &names[n])))
				break;
			if (!eat(j, ':')) {
				free(names[n]);
				err = jerr(j, "expected ':'");
				break;
			}
			ws(j);
			nulls[n] = j->end - j->p >= 4 && !strncmp(j->p, "null", 4);
			if ((err = jscalar(j, &vals[n], &num))) {
				free(names[n]);
				break;
			}
			for (i = 0; i < n && !err; i++)
				if (!strcmp(names[i], names[n]))
					err = jerr(j, "a row names a column twice");
			if (err) {
				free(names[n]);
				free(vals[n]);
				break;
			}
			if (!strcmp(names[n], "count")) {
				count = num ? strtod(vals[n], NULL) : NAN;
				if (!num || !isfinite(count) || count < 0)
					err = jerr(j, "bad count");
			}
			n++;
		} while (!err && eat(j, ','));
		if (!err && !eat(j, '}'))
			err = jerr(j, "expected '}'");
	}
	if (!err && isnan(count))
		err = jerr(j, "row without a count");
	if (!err && !j->m) {
		/* the first row names the key columns; j->keys takes those names over */
		for (i = 0; i < n; i++)
			if (!ref_mix__value_column(names[i]) && j->nk < MAX_FIELDS) {
				j->keys[j->nk++] = names[i];
				names[i] = strdup(names[i]);
				if (!names[i])
					err = -ENOMEM;
			}
		if (!err && !j->nk)
			err = jerr(j, "rows have no key columns");
		else if (!err)
			err = ref_mix__new(j->path, "json", (const char *const *)j->keys, j->nk,
					   &j->m);
	}
	for (k = 0; !err && k < j->nk; k++) {
		keys[k] = NULL;
		for (i = 0; i < n; i++)
			if (!strcmp(names[i], j->keys[k])) {
				keys[k] = vals[i];
				if (nulls[i])
					err = jerr(j, "a key column is null");
			}
		if (!err && !keys[k])
			err = jerr(j, "row lacks a key column of the first row");
	}
	if (!err)
		err = ref_mix__add_row(j->m, keys, count);
	for (i = 0; i < n; i++) {
		free(names[i]);
		free(vals[i]);
	}
	return err;
}

static int jdocument(struct jp *j)
{
	char *name;
	int err;
	bool rows = false;

	if (!eat(j, '{'))
		return jerr(j, "expected a JSON object");
	if (eat(j, '}'))
		return jerr(j, "no \"rows\"");
	do {
		if ((err = jstring(j, &name)))
			return err;
		if (!eat(j, ':')) {
			free(name);
			return jerr(j, "expected ':'");
		}
		if (!strcmp(name, "rows")) {
			rows = true;
			if (!eat(j, '[')) {
				free(name);
				return jerr(j, "\"rows\" is not an array");
			}
			if (!eat(j, ']')) {
				do {
					if ((err = jrow(j))) {
						free(name);
						return err;
					}
				} while (eat(j, ','));
				if (!eat(j, ']')) {
					free(name);
					return jerr(j, "expected ']'");
				}
			}
		} else if ((err = jskip(j, 1))) {
			free(name);
			return err;
		}
		free(name);
	} while (eat(j, ','));
	if (!eat(j, '}'))
		return jerr(j, "expected '}'");
	return rows ? 0 : jerr(j, "no \"rows\"");
}

int ref_json__read(const char *path, struct ref_mix **out)
{
	struct jp j = { .path = path };
	char *buf = NULL;
	size_t n = 0, cap = 0, i;
	FILE *f;
	int err = ref_mix__fopen(path, "rb", &f);

	if (err)
		return err;
	for (;;) {
		size_t r;

		if (n + 65536 + 1 > cap) {
			char *b;

			cap = cap ? cap * 2 : 131072;
			if (cap > MAX_JSON) {
				err = -HBBP_ELIMIT;
				pr_err("%s: larger than %llu bytes", path, MAX_JSON);
				break;
			}
			if (!(b = realloc(buf, cap))) {
				err = -ENOMEM;
				break;
			}
			buf = b;
		}
		r = fread(buf + n, 1, 65536, f);
		n += r;
		if (r < 65536)
			break;
	}
	fclose(f);
	if (err)
		goto out;
	buf[n] = 0;
	j.s = j.p = buf;
	j.end = buf + n;
	ws(&j);
	{
		/* our documents start with "format_version": a version this reader does not
		 * know is refused, not guessed at */
		const char *v = strstr(j.p, "\"format_version\"");
		const char *nl = memchr(j.p, '\n', (size_t)(j.end - j.p));

		if (v && (!nl || v < nl)) {
			char *e;
			long ver;

			v += strlen("\"format_version\"");
			while (*v == ' ' || *v == ':')
				v++;
			ver = strtol(v, &e, 10);
			/* 2 added count_lo and count_hi, which compare does not read */
			if (e == v || ver < 1 || ver > SCHEMA_FORMAT_VERSION) {
				pr_err("%s: format version %.*s is not supported (this tool reads 1 to %d)",
				       path, (int)strcspn(v, ",}\n"), v, SCHEMA_FORMAT_VERSION);
				err = -HBBP_EUNSUPP;
				goto out;
			}
		}
	}
	{
		/* JSON Lines: the header object then one row object per line */
		const char *nl = memchr(j.p, '\n', (size_t)(j.end - j.p));
		bool lines = nl && nl + 1 < j.end && strstr(j.p, "\"rows\"") == NULL;

		if (lines) {
			if ((err = jskip(&j, 0)))
				goto out;
			while (!err && (ws(&j), j.p < j.end))
				err = jrow(&j);
		} else {
			err = jdocument(&j);
			ws(&j);
			if (!err && j.p < j.end)
				err = jerr(&j, "text after the document");
		}
	}
	if (!err && !j.m)
		err = ref_mix__new(path, "json", (const char *const *)(const char *[]){ "mnemonic" },
				   1, &j.m);
out:
	for (i = 0; i < j.nk; i++)
		free(j.keys[i]);
	free(buf);
	if (err) {
		ref_mix__delete(j.m);
		return err;
	}
	*out = j.m;
	return 0;
}
