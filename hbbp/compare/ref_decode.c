/* Names the addresses of a mix read back for `compare` by disassembling the module files with
 * bbmap, so that a reference's mnemonics and iclasses are spelled exactly as
 * `hbbp-convert --by mnemonic` / `--by iclass` spell them (bbmap's mnemonic verbatim); and
 * expands a `--by module,block` mix into per-instruction counts. Opened modules are cached
 * by path for the process (ref_decode__exit closes them). Only regular files are opened: the
 * paths come from the reference, which is untrusted.
 * Depends on bbmap/module.h, hbbp/compare/ref.h and libc.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bbmap/module.h"
#include "hbbp/compare/ref.h"
#include "util/hbbp_err.h"
#include "util/grow.h"

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
		if (bbmap_module__open(&e->m, path, NULL))
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

static const struct bbmap_insn *insn_at(const char *path, uint64_t vaddr,
					const struct bbmap_block **blkp);

bool ref_decode__insn_ok(const char *path, uint64_t vaddr)
{
	return insn_at(path, vaddr, NULL) != NULL;
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

static int col_of(const struct ref_mix *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->nr_cols; i++)
		if (!strcmp(m->cols[i], name))
			return (int)i;
	return -1;
}

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
		if (!strcmp(ref__basename(hint->ips[i].module), shortname))
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
	if (col_of(m, "block") < 0)
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

			if (!parse_block(key, name, sizeof(name), &start) ||
			    !(path = path_for(hint, name)) || !(mod = module_get(path))) {
				if (pass) {
					m->unresolved += agg.rows[r].count;
					m->nr_unresolved++;
				}
				continue;
			}
			if (!pass) {
				bbmap_module__add_leader(mod, start);
				continue;
			}
			if (bbmap_module__block_at(mod, start, &blk) || blk->start != start ||
			    !blk->nr_insns) {
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
