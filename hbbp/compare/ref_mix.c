/* The instruction mix read back for `compare` (hbbp/compare/ref.h): building, format detection,
 * aggregation by key columns. Format parsing lives in hbbp/ref_<format>.c; naming addresses
 * in hbbp/compare/ref_decode.c. Depends only on libc and util.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/compare/ref.h"
#include "util/hbbp_err.h"
#include "util/grow.h"

#define KEY_SEP '\x1f'

const char *ref__basename(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "";
}

int ref_mix__new(const char *path, const char *kind, const char *const *cols, size_t nr_cols,
		 struct ref_mix **out)
{
	struct ref_mix *m = calloc(1, sizeof(*m));
	size_t i;

	if (!m)
		return -ENOMEM;
	m->kind = kind;
	m->path = strdup(path);
	m->cols = calloc(nr_cols + 1, sizeof(char *));
	if (!m->path || !m->cols)
		goto out_nomem;
	m->nr_cols = nr_cols;
	for (i = 0; i < nr_cols; i++)
		if (!(m->cols[i] = strdup(cols[i])))
			goto out_nomem;
	*out = m;
	return 0;
out_nomem:
	ref_mix__delete(m);
	return -ENOMEM;
}

void ref_mix__delete(struct ref_mix *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; m->cols && i < m->nr_cols; i++)
		free(m->cols[i]);
	for (i = 0; i < m->nr_rows * m->nr_cols; i++)
		free(m->keys[i]);
	for (i = 0; i < m->nr_ips; i++) {
		free(m->ips[i].module);
		free(m->ips[i].mnemonic);
		free(m->ips[i].iclass);
		free(m->ips[i].symbol);
	}
	free(m->cols);
	free(m->keys);
	free(m->counts);
	free(m->ips);
	free(m->path);
	free(m->note);
	free(m);
}

int ref_mix__add_row(struct ref_mix *m, const char *const *keys, double count)
{
	size_t i;

	if (m->nr_rows == m->alloc_rows) {
		size_t kcap = m->alloc_rows, ccap = m->alloc_rows;
		size_t w = m->nr_cols ? m->nr_cols : 1;

		if (w > SIZE_MAX / sizeof(char *))
			return -HBBP_ELIMIT;
		/* keys (w per row) and counts grow to the same number of rows */
		if (grow_array((void **)&m->keys, &kcap, w * sizeof(char *), m->nr_rows + 1,
			       SIZE_MAX) ||
		    grow_array((void **)&m->counts, &ccap, sizeof(double), m->nr_rows + 1,
			       SIZE_MAX))
			return -ENOMEM;
		m->alloc_rows = kcap < ccap ? kcap : ccap;
	}
	for (i = 0; i < m->nr_cols; i++) {
		char *s = strdup(keys[i] ? keys[i] : "");

		if (!s) {
			while (i--)
				free(m->keys[m->nr_rows * m->nr_cols + i]);
			return -ENOMEM;
		}
		m->keys[m->nr_rows * m->nr_cols + i] = s;
	}
	m->counts[m->nr_rows++] = count;
	m->total += count;
	return 0;
}

int ref_mix__add_ip(struct ref_mix *m, const char *module, uint64_t addr, double count,
		    const char *mnemonic)
{
	struct ref_ip *ip;

	if (grow_one((void **)&m->ips, &m->alloc_ips, sizeof(*m->ips), m->nr_ips))
		return -ENOMEM;
	ip = &m->ips[m->nr_ips];
	memset(ip, 0, sizeof(*ip));
	ip->module = strdup(module ? module : "");
	ip->mnemonic = mnemonic ? strdup(mnemonic) : NULL;
	if (!ip->module || (mnemonic && !ip->mnemonic)) {
		free(ip->module);
		free(ip->mnemonic);
		return -ENOMEM;
	}
	ip->addr = addr;
	ip->count = count;
	m->nr_ips++;
	m->total += count;
	return 0;
}

int ref_mix__fopen(const char *path, const char *mode, FILE **f)
{
	int err;

	*f = fopen(path, mode);
	if (*f)
		return 0;
	err = -errno;
	pr_err("%s: cannot open: %s", path, strerror(-err));
	return err;
}

bool ref_mix__value_column(const char *name)
{
	static const char *const v[] = { "count", "count_lo", "count_hi", "share", "source",
					 "ebs_count", "lbr_count", "ebs_samples", "lbr_streams",
					 "biased", "bias_share", "cycles", "cycles_lo", "cycles_hi",
					 "ipc", "cycles_share" };
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!strcmp(name, v[i]))
			return true;
	return false;
}

int ref_mix__set_note(struct ref_mix *m, const char *note)
{
	char *s = strdup(note);

	if (!s)
		return -ENOMEM;
	free(m->note);
	m->note = s;
	return 0;
}

/* ---- detection ---- */

static bool has_ext(const char *path, const char *ext)
{
	size_t n = strlen(path), e = strlen(ext);

	return n > e && !strcmp(path + n - e, ext);
}

int ref_mix__read(const char *path, struct ref_mix **out)
{
	return ref_mix__read_value(path, "count", out);
}

int ref_mix__read_value(const char *path, const char *value, struct ref_mix **out)
{
	int (*read)(const char *, struct ref_mix **) = NULL;
	char head[4096];
	size_t n;
	FILE *f;
	int err = ref_mix__fopen(path, "rb", &f);

	if (err)
		return err;
	n = fread(head, 1, sizeof(head) - 1, f);
	fclose(f);
	head[n] = 0;
	if (n >= 16 && !memcmp(head, "SQLite format 3", 16))
		read = ref_sqlite__read;
	else if (strstr(head, "# callgrind format") || !strncmp(head, "version:", 8) ||
		 strstr(head, "\ncreator: callgrind") || !strncmp(head, "events:", 7))
		read = ref_callgrind__read;
	else if (strstr(head, "dynamic-counts") || strstr(head, "EMIT_GLOBAL_DYNAMIC_STATS") ||
		 strstr(head, "EMIT_DYNAMIC_STATS") || strstr(head, "EMIT_TOP_BLOCK_STATS") ||
		 strstr(head, "# Mix output version") || strstr(head, "Intel(R) SDE"))
		read = ref_sde__read;
	else if (head[strspn(head, " \t\r\n")] == '{' || has_ext(path, ".json") ||
		 has_ext(path, ".jsonl") || has_ext(path, ".ndjson"))
		read = ref_json__read;
	if (!read)
		return ref_csv__read(path, value, out);
	if (strcmp(value, "count")) {
		pr_err("%s: --value %s: read from CSV mixes only (ours, pmusim's truth)", path,
		       value);
		return -HBBP_EUSAGE;
	}
	return read(path, out);
}

/* ---- keys ---- */

static int col_index(const struct ref_mix *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->nr_cols; i++)
		if (!strcmp(m->cols[i], name))
			return (int)i;
	return -1;
}

static bool ip_key(const char *name)
{
	return !strcmp(name, "module") || !strcmp(name, "mnemonic") || !strcmp(name, "iclass") ||
	       !strcmp(name, "symbol") || !strcmp(name, "category");
}

bool ref_mix__has_key(const struct ref_mix *m, const char *name)
{
	return col_index(m, name) >= 0 || (m->nr_ips && ip_key(name));
}

static const char *ip_value(const struct ref_ip *ip, const char *name)
{
	const char *v = NULL;

	if (!strcmp(name, "module"))
		return ref__basename(ip->module);
	if (!strcmp(name, "mnemonic"))
		v = ip->mnemonic;
	else if (!strcmp(name, "iclass"))
		v = ip->iclass;
	else if (!strcmp(name, "symbol"))
		v = ip->symbol;
	else if (!strcmp(name, "category"))
		v = ip->category;
	return v ? v : "[unknown]";
}

static int agg_cmp(const void *pa, const void *pb)
{
	const struct ref_agg_row *a = pa, *b = pb;

	return strcmp(a->key, b->key);
}

static int join(char **out, const char *const *parts, size_t n)
{
	size_t i, len = 1;
	char *s, *p;

	for (i = 0; i < n; i++)
		len += strlen(parts[i]) + 1;
	s = malloc(len);
	if (!s)
		return -ENOMEM;
	p = s;
	for (i = 0; i < n; i++) {
		size_t l = strlen(parts[i]);

		if (i)
			*p++ = KEY_SEP;
		memcpy(p, parts[i], l);
		p += l;
	}
	*p = 0;
	*out = s;
	return 0;
}

void ref_agg__exit(struct ref_agg *a)
{
	size_t i;

	for (i = 0; i < a->nr; i++)
		free(a->rows[i].key);
	free(a->rows);
	memset(a, 0, sizeof(*a));
}

int ref_mix__aggregate(struct ref_mix *m, const char *const *keys, size_t nr_keys,
		       struct ref_agg *out)
{
	const char *parts[16];
	int idx[16];
	bool from_rows = true;
	size_t i, k, n, w;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (nr_keys == 0 || nr_keys > 16)
		return -HBBP_EUSAGE;
	for (k = 0; k < nr_keys; k++) {
		idx[k] = col_index(m, keys[k]);
		if (idx[k] < 0)
			from_rows = false;
	}
	if (from_rows && !m->nr_rows && m->nr_ips)
		from_rows = false;
	if (!from_rows) {
		for (k = 0; k < nr_keys; k++) {
			if (!m->nr_ips || !ip_key(keys[k])) {
				pr_err("%s: has no key column '%s' (%s)", m->path, keys[k],
				       m->kind);
				return -HBBP_ENOTFOUND;
			}
		}
		if ((err = ref_decode__name_ips(m)))
			return err;
	}
	n = from_rows ? m->nr_rows : m->nr_ips;
	out->rows = calloc(n + 1, sizeof(*out->rows));
	if (!out->rows)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		double c;

		for (k = 0; k < nr_keys; k++)
			parts[k] = from_rows ? m->keys[i * m->nr_cols + (size_t)idx[k]]
					     : ip_value(&m->ips[i], keys[k]);
		c = from_rows ? m->counts[i] : m->ips[i].count;
		err = join(&out->rows[out->nr].key, parts, nr_keys);
		if (!err) {
			out->rows[out->nr++].count = c;
			out->total += c;
		}
	}
	if (err) {
		ref_agg__exit(out);
		return err;
	}
	qsort(out->rows, out->nr, sizeof(*out->rows), agg_cmp);
	for (i = 0, w = 0; i < out->nr; i++) {
		if (w && !strcmp(out->rows[w - 1].key, out->rows[i].key)) {
			out->rows[w - 1].count += out->rows[i].count;
			free(out->rows[i].key);
		} else {
			out->rows[w++] = out->rows[i];
		}
	}
	out->nr = w;
	return 0;
}
