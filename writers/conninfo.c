/* The secrets of a PostgreSQL connection string kept out of every message (writers/SCHEMA.md,
 * PostgreSQL): conninfo__mask() shows a connection string with its secrets as "***", or masks
 * them in a text that may quote them (libpq's messages, metadata). Secrets are the values of
 * the keywords password, passfile and sslpassword, and the password of a URI's
 * user:password@, in the two forms libpq reads:
 *  - a URI (postgresql://, postgres://): the user information ends at the first '@' before a
 *    '/' (else, a '/' in a password, at the last '@' before the query); query parameters
 *    are key=value separated by '&', keys and values percent-encoded;
 *  - keyword = value pairs separated by white space, a value single-quoted or not, with
 *    backslash escapes; a dbname that is itself a connection string is masked as one.
 * A secret is masked as written and as libpq reads it (decoded, unquoted). A keyword string
 * that libpq cannot parse is not shown at all (libpq's message about it may quote any part),
 * a string with neither a scheme nor '=' holds no secret. Depends on libc only.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writers/writer.h"

#define MASK "***"
#define MAX_SECRETS 32

static const char *const secret_keys[] = { "password", "passfile", "sslpassword" };

struct secrets {
	size_t nr;
	char *s[MAX_SECRETS];		/* the secrets as written and as read */
	size_t nr_spans;
	size_t span[MAX_SECRETS][2];	/* [start, end) of each secret in the string */
	bool malformed;			/* not shown, nor anything about it */
};

static void secrets__exit(struct secrets *k)
{
	size_t i;

	for (i = 0; i < k->nr; i++)
		free(k->s[i]);
}

/* s[0..n) is a secret; at [start, end) of the string when span */
static void secrets__add(struct secrets *k, const char *s, size_t n, bool span, size_t start)
{
	if (span && k->nr_spans < MAX_SECRETS) {
		k->span[k->nr_spans][0] = start;
		k->span[k->nr_spans][1] = start + n;
		k->nr_spans++;
	}
	if (!n)
		return;
	if (k->nr == MAX_SECRETS || !(k->s[k->nr] = strndup(s, n)))
		k->malformed = true;	/* cannot keep it: show nothing */
	else
		k->nr++;
}

static bool is_secret_key(const char *key, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(secret_keys) / sizeof(secret_keys[0]); i++)
		if (strlen(secret_keys[i]) == n && !memcmp(secret_keys[i], key, n))
			return true;
	return false;
}

static size_t uri_prefix(const char *s)
{
	if (!strncmp(s, "postgresql://", 13))
		return 13;
	return !strncmp(s, "postgres://", 11) ? 11 : 0;
}

static void secrets__find(struct secrets *k, const char *s, size_t base);

/* A value (as libpq reads it) of key: a secret, or a dbname that is a connection string. */
static void secrets__value(struct secrets *k, const char *key, size_t klen, const char *raw,
			   size_t rlen, const char *val, size_t start)
{
	if (is_secret_key(key, klen)) {
		secrets__add(k, raw, rlen, true, start);
		secrets__add(k, val, strlen(val), false, 0);
	} else if (klen == 6 && !memcmp(key, "dbname", 6)) {
		struct secrets in = { 0 };
		size_t i;

		secrets__find(&in, val, 0);
		if (in.nr || in.malformed)	/* its secrets are ours; the whole value hidden */
			secrets__add(k, raw, rlen, true, start);
		for (i = 0; i < in.nr; i++)
			secrets__add(k, in.s[i], strlen(in.s[i]), false, 0);
		k->malformed |= in.malformed;
		secrets__exit(&in);
	}
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* s[0..n) percent-decoded into out (n + 1 bytes) */
static void uri_decode(char *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			*out++ = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else {
			*out++ = s[i];
		}
	}
	*out = 0;
}

static void secrets__uri(struct secrets *k, const char *s, size_t base)
{
	const char *p = s + uri_prefix(s), *at, *colon, *q, *end;
	char *key = NULL, *val = NULL;

	for (at = p; *at && *at != '@' && *at != '/'; at++)
		;
	if (*at != '@') {		/* a '/' in the password: the last '@' before the query */
		for (q = p, at = NULL; *q && *q != '?'; q++)
			if (*q == '@')
				at = q;
	}
	if (at && (colon = memchr(p, ':', (size_t)(at - p)))) {
		val = malloc((size_t)(at - colon));
		if (!val) {
			k->malformed = true;
			return;
		}
		uri_decode(val, colon + 1, (size_t)(at - colon - 1));
		secrets__add(k, colon + 1, (size_t)(at - colon - 1), true,
			     base + (size_t)(colon + 1 - s));
		secrets__add(k, val, strlen(val), false, 0);
		free(val);
	}
	/* from the first '?', which libpq may also read as part of the user information */
	for (p = strchr(p, '?'); p && *p; p = *end ? end + 1 : end) {
		const char *eq;

		p += *p == '?';
		end = p + strcspn(p, "&");
		eq = memchr(p, '=', (size_t)(end - p));
		if (!eq)
			continue;
		key = malloc((size_t)(eq - p) + 1);
		val = malloc((size_t)(end - eq));
		if (key && val) {
			uri_decode(key, p, (size_t)(eq - p));
			uri_decode(val, eq + 1, (size_t)(end - eq - 1));
			secrets__value(k, key, strlen(key), eq + 1, (size_t)(end - eq - 1), val,
				       base + (size_t)(eq + 1 - s));
		} else {
			k->malformed = true;
		}
		free(key);
		free(val);
	}
}

/* keyword = value pairs, as libpq's conninfo_parse() reads them */
static void secrets__keywords(struct secrets *k, const char *s, size_t base)
{
	const char *cp = s;
	char *val = malloc(strlen(s) + 1);

	if (!val) {
		k->malformed = true;
		return;
	}
	while (*cp && !k->malformed) {
		const char *key, *kend, *raw;
		size_t n = 0;

		if (isspace((unsigned char)*cp)) {
			cp++;
			continue;
		}
		for (key = cp; *cp && *cp != '=' && !isspace((unsigned char)*cp); cp++)
			;
		kend = cp;
		while (isspace((unsigned char)*cp))
			cp++;
		if (*cp != '=') {
			k->malformed = true;
			break;
		}
		for (cp++; isspace((unsigned char)*cp); cp++)
			;
		raw = cp;
		if (*cp == '\'') {
			for (cp++; *cp && *cp != '\''; cp++) {
				if (*cp == '\\' && cp[1])
					cp++;
				val[n++] = *cp;
			}
			if (*cp != '\'')
				k->malformed = true;
			else
				cp++;
		} else {
			for (; *cp && !isspace((unsigned char)*cp); cp++) {
				if (*cp == '\\' && cp[1])
					cp++;
				val[n++] = *cp;
			}
		}
		val[n] = 0;
		secrets__value(k, key, (size_t)(kend - key), raw, (size_t)(cp - raw), val,
			       base + (size_t)(raw - s));
	}
	free(val);
}

static void secrets__find(struct secrets *k, const char *s, size_t base)
{
	if (uri_prefix(s))
		secrets__uri(k, s, base);
	else if (strchr(s, '='))
		secrets__keywords(k, s, base);
}

/* text with every occurrence of a secret as MASK (the longest first where two start at one
 * place) */
static char *mask_text(const struct secrets *k, const char *text)
{
	size_t len = strlen(text), cap = len + 1, n = 0, i, j, m = strlen(MASK);
	char *out = malloc(cap);

	for (i = 0; out && i < len;) {
		size_t best = 0;

		for (j = 0; j < k->nr; j++) {
			size_t sl = strlen(k->s[j]);

			if (sl > best && !strncmp(text + i, k->s[j], sl))
				best = sl;
		}
		if (n + m + 1 > cap) {
			char *o = realloc(out, cap = 2 * cap + m);

			if (!o) {
				free(out);
				return NULL;
			}
			out = o;
		}
		if (best) {
			memcpy(out + n, MASK, m);
			n += m;
			i += best;
		} else {
			out[n++] = text[i++];
		}
	}
	if (out)
		out[n] = 0;
	return out;
}

/* conninfo with its secrets' spans as MASK */
static char *mask_spans(struct secrets *k, const char *conninfo)
{
	size_t len = strlen(conninfo), n = 0, at = 0, i, j, t[2];
	char *out = malloc(len + k->nr_spans * strlen(MASK) + 1);

	if (!out)
		return NULL;
	for (i = 1; i < k->nr_spans; i++)	/* by start (a URI's query may come first) */
		for (j = i; j && k->span[j - 1][0] > k->span[j][0]; j--) {
			memcpy(t, k->span[j], sizeof(t));
			memcpy(k->span[j], k->span[j - 1], sizeof(t));
			memcpy(k->span[j - 1], t, sizeof(t));
		}
	for (i = 0; i < k->nr_spans; i++) {
		size_t a = k->span[i][0], b = k->span[i][1];

		if (a < at) {	/* overlaps the one masked before */
			at = b > at ? b : at;
			continue;
		}
		memcpy(out + n, conninfo + at, a - at);
		n += a - at;
		memcpy(out + n, MASK, strlen(MASK));
		n += strlen(MASK);
		at = b;
	}
	memcpy(out + n, conninfo + at, len - at + 1);
	return out;
}

char *conninfo__mask(const char *conninfo, const char *text)
{
	struct secrets k = { 0 };
	char *out;

	secrets__find(&k, conninfo, 0);
	if (k.malformed)
		out = strdup(text ? "(a message about the connection string, not shown: it may"
			     " quote a password)" : "(the connection string, not shown)");
	else
		out = text ? mask_text(&k, text) : mask_spans(&k, conninfo);
	secrets__exit(&k);
	return out;
}
