/* The instruction mix read back for `compare` (hbbp/compare/ref.h): building, format detection,
 * aggregation by key columns; and naming its addresses by disassembling the module files with
 * bbmap, so that a reference's mnemonics and iclasses are spelled exactly as
 * `hbbp-convert --by mnemonic` / `--by iclass` spell them (bbmap's mnemonic verbatim), and
 * expanding a `--by module,block` mix into per-instruction counts. Opened modules are cached
 * by path for the process (ref_decode__exit closes them). Only regular files are opened: the
 * paths come from the reference, which is untrusted. Format parsing lives in
 * hbbp/compare/ref_<format>.c.
 * Depends on bbmap/module.h, util and libc.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bbmap/module.h"
#include "hbbp/compare/ref.h"
#include "util/hbbp_err.h"
#include "util/grow.h"

#define KEY_SEP '\x1f'

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

int ref_mix__finish(struct ref_mix *m, int err, struct ref_mix **out)
{
	if (err) {
		ref_mix__delete(m);
		return err;
	}
	*out = m;
	return 0;
}

/* ---- detection ---- */

static bool has_ext(const char *path, const char *ext)
{
	size_t n = strlen(path), e = strlen(ext);

	return n > e && !strcmp(path + n - e, ext);
}

int ref_mix__read(const char *path, const char *value, struct ref_mix **out)
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
		return hbbp_basename(ip->module, false);
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
		if (i)
			*p++ = KEY_SEP;
		p = stpcpy(p, parts[i]);
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

/* ---- naming addresses ---- */

struct mod_entry {
	char *path;
	struct bbmap_module *m;		/* NULL: could not be opened */
};

static struct mod_entry *mods;
static size_t nr_mods;

static struct bbmap_module *module_get(const char *path)
{
	struct mod_entry *e;
	size_t i;

	for (i = 0; i < nr_mods; i++)
		if (!strcmp(mods[i].path, path))
			return mods[i].m;
	e = realloc(mods, (nr_mods + 1) * sizeof(*mods));
	if (!e)
		return NULL;
	mods = e;
	e = &mods[nr_mods];
	e->path = strdup(path);
	e->m = NULL;
	if (!e->path)
		return NULL;
	nr_mods++;
	if (*path == '/' || strchr(path, '/')) {
		struct stat st;

		/* a path named inside a reference is untrusted: a FIFO or device would block
		 * or never end, so only a regular file is opened */
		if (stat(path, &st))
			return NULL;
		if (!S_ISREG(st.st_mode)) {
			pr_warn("%s: named in the reference, but not a regular file: not read",
				path);
			return NULL;
		}
		if (bbmap_module__open_flags(&e->m, path, NULL, 0))
			e->m = NULL;
	}
	return e->m;
}

void ref_decode__exit(void)
{
	size_t i;

	for (i = 0; i < nr_mods; i++) {
		bbmap_module__delete(mods[i].m);
		free(mods[i].path);
	}
	free(mods);
	mods = NULL;
	nr_mods = 0;
}

int ref_decode__offset_to_vaddr(const char *path, uint64_t off, uint64_t *vaddr)
{
	struct bbmap_module *m = module_get(path);

	if (!m)
		return -HBBP_ENOTFOUND;
	return bbmap_module__offset_to_vaddr(m, off, vaddr);
}

int ref_decode__symbol_addr(const char *path, const char *name, uint64_t *vaddr)
{
	struct bbmap_module *m = module_get(path);

	if (!m)
		return -HBBP_ENOTFOUND;
	return bbmap_module__symbol_addr(m, name, vaddr);
}

/* The bbmap instruction at vaddr of module path, or NULL. */
static const struct bbmap_insn *insn_at(const char *path, uint64_t vaddr,
					const struct bbmap_block **blkp)
{
	struct bbmap_module *m = module_get(path);
	const struct bbmap_block *blk;
	uint32_t i;

	if (!m || bbmap_module__block_at(m, vaddr, &blk))
		return NULL;
	for (i = 0; i < blk->nr_insns; i++)
		if (blk->insns[i].addr == vaddr) {
			if (blkp)
				*blkp = blk;
			return &blk->insns[i];
		}
	return NULL;
}

bool ref_decode__insn_ok(const char *path, uint64_t vaddr)
{
	return insn_at(path, vaddr, NULL) != NULL;
}

int ref_decode__name_ips(struct ref_mix *m)
{
	size_t i;

	if (m->named)
		return 0;
	m->named = true;
	for (i = 0; i < m->nr_ips; i++) {
		struct ref_ip *ip = &m->ips[i];
		const struct bbmap_block *blk = NULL;
		const struct bbmap_insn *in = insn_at(ip->module, ip->addr, &blk);

		if (!in) {
			if (!ip->mnemonic) {
				m->unresolved += ip->count;
				m->nr_unresolved++;
			}
			continue;
		}
		if (!ip->mnemonic && !(ip->mnemonic = strdup(in->mnemonic ? in->mnemonic : "")))
			return -ENOMEM;
		if (!ip->iclass && in->iclass && !(ip->iclass = strdup(in->iclass)))
			return -ENOMEM;
		ip->category = bbmap_category_name(in->category);
		if (!ip->symbol && blk->sym && blk->sym->name &&
		    !(ip->symbol = strdup(blk->sym->name)))
			return -ENOMEM;
	}
	return 0;
}

/* ---- block rows to per-instruction counts ---- */

/* "short+0xSTART" -> short name (into buf) and start. */
static bool parse_block(const char *s, char *buf, size_t cap, uint64_t *start)
{
	const char *p = strrchr(s, '+');
	char *end;

	if (!p || p == s || (size_t)(p - s) >= cap || strncmp(p + 1, "0x", 2))
		return false;
	memcpy(buf, s, (size_t)(p - s));
	buf[p - s] = 0;
	errno = 0;
	*start = strtoull(p + 1, &end, 16);
	return !*end && !errno;
}

static const char *path_for(const struct ref_mix *hint, const char *shortname)
{
	size_t i;

	for (i = 0; hint && i < hint->nr_ips; i++)
		if (!strcmp(hbbp_basename(hint->ips[i].module, false), shortname))
			return hint->ips[i].module;
	return NULL;
}

int ref_mix__ips(struct ref_mix *m, const struct ref_mix *hint, struct ref_ip **out,
		 size_t *nr, bool *owned)
{
	static const char *const block_key[1] = { "block" };
	struct ref_ip *ips = NULL;
	struct ref_agg agg;
	size_t n = 0, cap = 0, r;
	int pass, err;
	char name[4096];

	*owned = false;
	if (m->nr_ips) {
		*out = m->ips;
		*nr = m->nr_ips;
		return 0;
	}
	if (col_index(m, "block") < 0)
		return -HBBP_ENOTFOUND;
	/* one count per block, whatever other keys split it */
	if ((err = ref_mix__aggregate(m, block_key, 1, &agg)))
		return err;
	/* pass 0 makes every block start a leader, pass 1 cuts the blocks */
	for (pass = 0; pass < 2; pass++) {
		for (r = 0; r < agg.nr; r++) {
			const char *key = agg.rows[r].key, *path;
			const struct bbmap_block *blk;
			struct bbmap_module *mod;
			uint64_t start;
			uint32_t i;
			bool found = parse_block(key, name, sizeof(name), &start) &&
				     (path = path_for(hint, name)) && (mod = module_get(path));

			if (!pass) {
				if (found)
					bbmap_module__add_leader(mod, start);
				continue;
			}
			if (!found || bbmap_module__block_at(mod, start, &blk) ||
			    blk->start != start || !blk->nr_insns) {
				m->unresolved += agg.rows[r].count;
				m->nr_unresolved++;
				continue;
			}
			for (i = 0; i < blk->nr_insns; i++) {
				if (grow_one((void **)&ips, &cap, sizeof(*ips), n)) {
					free(ips);
					ref_agg__exit(&agg);
					return -ENOMEM;
				}
				memset(&ips[n], 0, sizeof(ips[n]));
				ips[n].module = (char *)path;	/* borrowed from hint */
				ips[n].addr = blk->insns[i].addr;
				ips[n].count = agg.rows[r].count / blk->nr_insns;
				n++;
			}
		}
	}
	ref_agg__exit(&agg);
	*out = ips;
	*nr = n;
	*owned = true;
	return 0;
}
