/* bbmap_module: the public side of bbmap/module.h. Owns the module object and its cache,
 * symbol lookup (with lazy demangling and .eh_frame pseudo symbols), the load-bias
 * translation, and the lazily decoded regions with their basic blocks (method.md §3):
 * a block ends after any control transfer and starts at a symbol start, a direct branch
 * target, the instruction after a control transfer, or a leader added by the caller.
 * ELF parsing lives in elf_load.c, decoding in disasm_region.c. Knows nothing of
 * perf.data.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bbmap/module_priv.h"
#include "util/hbbp_err.h"
#include "util/grow.h"
#include "util/bsearch.h"

#define WINDOW (64u * 1024)		/* code decoded around an address with no function */

/* ---- interned strings ---- */

const char *mod_str__intern(struct mod_decoder *d, const char *s)
{
	size_t len = strlen(s);
	char **v = hmap__find_bytes(d->strs, s, len), *copy;

	if (v)
		return *v;
	copy = malloc(len + 1);
	v = copy ? hmap__get_bytes(d->strs, memcpy(copy, s, len + 1), len, NULL) : NULL;
	if (!v) {
		free(copy);
		return NULL;
	}
	*v = copy;
	return copy;
}

void mod_module__init(struct bbmap_module *m)
{
	hmap__init_bytes(&m->strs, sizeof(char *));
	memset(&m->dec, 0, sizeof(m->dec));
	m->dec.strs = &m->strs;
}

void mod_module__exit(struct bbmap_module *m)
{
	const uint64_t *key;
	char **v;
	size_t i;

	mod_decoder__exit(&m->dec);
	hmap__for_each(&m->strs, i, key, v)
		free(*v);
	hmap__exit(&m->strs);
}

/* ---- open / delete ---- */

int bbmap_module__open_flags(struct bbmap_module **out, const char *path, const char *debug_path,
			     unsigned flags)
{
	struct bbmap_module *m;
	int err;

	*out = NULL;
	if (!path)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->fd = m->dbg_fd = -1;
	mod_module__init(m);
	m->path = strdup(path);
	if (!m->path) {
		err = -ENOMEM;
		goto out_free;
	}
	err = mod_elf__load(m, debug_path);
	if (err)
		goto out_free;
	m->demangle_flags = flags & (BBMAP_MODULE_DEMANGLE_SHORT | BBMAP_MODULE_NO_DEMANGLE);
	m->no_operands = flags & BBMAP_MODULE_NO_OPERANDS;
	m->lazy_insns = flags & BBMAP_MODULE_LAZY_INSNS;
	if (!(flags & BBMAP_MODULE_NO_DEMANGLE))
		mod_demangle__init(m);
	if (!(flags & BBMAP_MODULE_NO_LINES))
		mod_srcline__open(m);	/* inflating .debug_* costs: only when asked */
	*out = m;
	return 0;
out_free:
	bbmap_module__delete(m);
	return err;
}

/* The memory of a lazy region's filled blocks (their insns pointers become invalid). */
static void region_free_chunks(struct mod_region *r)
{
	while (r->chunks) {
		struct mod_chunk *c = r->chunks;

		r->chunks = c->next;
		free(c);
	}
}

static void region_free(struct mod_region *r)
{
	if (!r)
		return;
	region_free_chunks(r);
	free(r->offs);
	free(r->insns);
	free(r->blocks);
	free(r->text);
	free(r);
}

void bbmap_module__delete(struct bbmap_module *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nr_regions; i++)
		region_free(m->regions[i]);
	free(m->regions);
	for (i = 0; i < m->nr_fde_syms; i++)
		free(m->fde_syms[i]);
	free(m->fde_syms);
	free(m->fdes);
	for (i = 0; i < m->nr_syms; i++)
		if (m->sym_state[i] & 2)
			free((char *)m->syms[i].name);
	mod_module__exit(m);
	if (m->dwarf)
		dwarf_end(m->dwarf);
	mod_demangle__exit(m);
	mod_elf__unload(m);
	free(m->path);
	free(m);
}

enum bbmap_arch bbmap_module__arch(const struct bbmap_module *m) { return m->arch; }

size_t bbmap_module__build_id(const struct bbmap_module *m, const uint8_t **id)
{
	if (id)
		*id = m->build_id_size ? m->build_id : NULL;
	return m->build_id_size;
}

bool bbmap_module__has_symbols(const struct bbmap_module *m) { return m->nr_syms > 0; }
bool bbmap_module__has_lines(const struct bbmap_module *m) { return m->dwarf != NULL; }

void bbmap_module__stats(const struct bbmap_module *m, struct bbmap_module_stats *st)
{
	*st = m->dec.stats;
}

/* ---- addresses and symbols ---- */

int bbmap_module__offset_to_vaddr(const struct bbmap_module *m, uint64_t off, uint64_t *vaddr)
{
	uint64_t lo, hi;

	return bbmap_module__offset_range(m, off, vaddr, &lo, &hi);
}

int bbmap_module__offset_range(const struct bbmap_module *m, uint64_t off, uint64_t *vaddr,
			       uint64_t *lo, uint64_t *hi)
{
	size_t i, j, found = m->nr_segs;

	/* The load bias: a file offset maps to p_vaddr + (off - p_offset) of the first PT_LOAD
	 * segment holding it. Relocatable objects have no segments: their "addresses" are
	 * file offsets (see elf_load.c). */
	for (i = 0; i < m->nr_segs; i++) {
		const struct mod_load_seg *s = &m->segs[i];

		if (off >= s->offset && off - s->offset < (s->filesz ? s->filesz : s->memsz)) {
			*vaddr = s->vaddr + (off - s->offset);
			*lo = s->offset;
			*hi = s->offset + (s->filesz ? s->filesz : s->memsz);
			found = i;
			break;
		}
	}
	if (found == m->nr_segs) {
		if (m->e_type != ET_REL || off >= m->image_size)
			return -HBBP_ENOTFOUND;
		*vaddr = off;
		*lo = 0;
		*hi = m->image_size;
	}
	/* the offsets of an earlier segment (ET_REL: of any) translate by its own amount */
	for (j = 0; j < found; j++) {
		const struct mod_load_seg *s = &m->segs[j];
		uint64_t e = s->offset + (s->filesz ? s->filesz : s->memsz);

		if (e <= off && e > *lo)
			*lo = e;
		else if (s->offset > off && s->offset < *hi)
			*hi = s->offset;
	}
	return 0;
}

int bbmap_module__vaddr_to_offset(const struct bbmap_module *m, uint64_t vaddr, uint64_t *off)
{
	size_t i;

	for (i = 0; i < m->nr_segs; i++) {
		const struct mod_load_seg *s = &m->segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*off = s->offset + (vaddr - s->vaddr);
			return 0;
		}
	}
	if (m->e_type == ET_REL && vaddr < m->image_size) {
		*off = vaddr;
		return 0;
	}
	return -HBBP_ENOTFOUND;
}

static const struct bbmap_symbol *sym_name_ready(struct bbmap_module *m, size_t i)
{
	if (!(m->sym_state[i] & 1)) {
		char *d;

		m->sym_state[i] |= 1;
		if (m->syms[i].name[0] == '_' && m->syms[i].name[1] == 'Z' &&
		    (d = mod_demangle(m, m->syms[i].name)) != NULL) {
			m->syms[i].name = d;
			m->sym_state[i] |= 2;
		}
	}
	return &m->syms[i];
}

size_t bbmap_module__nr_symbols(const struct bbmap_module *m) { return m->nr_syms; }

const struct bbmap_symbol *bbmap_module__symbol(struct bbmap_module *m, size_t idx)
{
	return idx < m->nr_syms ? sym_name_ready(m, idx) : NULL;
}

int bbmap_module__symbol_addr(const struct bbmap_module *m, const char *name, uint64_t *addr)
{
	size_t i;

	if (!mod_elf__symbol_addr(m, name, addr))
		return 0;
	/* A demangled name. */
	for (i = 0; i < m->nr_syms; i++)
		if (!strcmp(m->syms[i].name, name)) {
			*addr = m->syms[i].start;
			return 0;
		}
	return -HBBP_ENOTFOUND;
}

/* Index of the last symbol starting at or before vaddr, or -1. */
static long sym_floor(const struct bbmap_module *m, uint64_t vaddr)
{
	return (long)bsearch_count(m->nr_syms, mid, m->syms[mid].start <= vaddr) - 1;
}

static const struct bbmap_symbol *fde_sym_at(struct bbmap_module *m, uint64_t vaddr)
{
	size_t lo = bsearch_count(m->nr_fde_syms, mid, m->fde_syms[mid]->start <= vaddr);
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr start, end;
	uint64_t fs, fe;
	struct bbmap_symbol *s;
	char name[32];

	if (lo && vaddr - m->fde_syms[lo - 1]->start < m->fde_syms[lo - 1]->size)
		return m->fde_syms[lo - 1];
	switch (mod_elf__fde_range(m, vaddr, &fs, &fe)) {
	case 0:			/* the whole function of the FDE */
		start = fs;
		end = fe;
		break;
	case -EOPNOTSUPP:	/* no table: libdw's row (a part of the function) */
		if (!m->cfi || dwarf_cfi_addrframe(m->cfi, vaddr, &frame) != 0)
			return NULL;
		if (dwarf_frame_info(frame, &start, &end, NULL) < 0 || end <= start ||
		    vaddr < start || vaddr >= end) {
			free(frame);
			return NULL;
		}
		free(frame);
		break;
	default:
		return NULL;
	}
	if (end <= start || vaddr < start || vaddr >= end)
		return NULL;
	if (grow_one((void **)&m->fde_syms, &m->alloc_fde_syms, sizeof(*m->fde_syms),
		     m->nr_fde_syms))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	snprintf(name, sizeof(name), "sub_%" PRIx64, (uint64_t)start);
	s->start = start;
	s->size = end - start;
	s->name = mod_str__intern(&m->dec, name);
	s->from_eh_frame = true;
	if (!s->name) {
		free(s);
		return NULL;
	}
	memmove(&m->fde_syms[lo + 1], &m->fde_syms[lo],
		(m->nr_fde_syms - lo) * sizeof(*m->fde_syms));
	m->fde_syms[lo] = s;
	m->nr_fde_syms++;
	m->dec.stats.nr_fde_syms++;
	return s;
}

const struct bbmap_symbol *bbmap_module__symbol_at(struct bbmap_module *m, uint64_t vaddr)
{
	long i = sym_floor(m, vaddr);

	if (i >= 0 && vaddr - m->syms[i].start < m->syms[i].size)
		return sym_name_ready(m, (size_t)i);
	return fde_sym_at(m, vaddr);
}

/* ---- regions ---- */

/* Index of the first region with start > vaddr. */
static size_t region_upper(const struct bbmap_module *m, uint64_t vaddr)
{
	return bsearch_count(m->nr_regions, mid, m->regions[mid]->start <= vaddr);
}

static struct mod_region *region_of(const struct bbmap_module *m, uint64_t vaddr)
{
	size_t i = region_upper(m, vaddr);

	if (i && vaddr < m->regions[i - 1]->end)
		return m->regions[i - 1];
	return NULL;
}

/* Index of the instruction starting at vaddr in r, or -1. */
static long insn_index(const struct mod_region *r, uint64_t vaddr)
{
	uint64_t off = vaddr - r->start;
	size_t i;

	if (r->offs) {
		if (vaddr < r->start || off > UINT32_MAX)
			return -1;
		i = bsearch_count(r->nr_insns, mid, r->offs[mid] < off);
		return i < r->nr_insns && r->offs[i] == off ? (long)i : -1;
	}
	i = bsearch_count(r->nr_insns, mid, r->insns[mid].addr < vaddr);
	return i < r->nr_insns && r->insns[i].addr == vaddr ? (long)i : -1;
}

/* Index of the block containing vaddr in r, or -1. */
static long block_index(const struct mod_region *r, uint64_t vaddr)
{
	size_t lo = bsearch_count(r->nr_blocks, mid, r->blocks[mid].start <= vaddr);

	if (lo && vaddr < r->blocks[lo - 1].end)
		return (long)lo - 1;
	return -1;
}

static bool any_bad(const struct bbmap_insn *in, uint32_t n)
{
	uint32_t k;

	for (k = 0; k < n; k++)
		if (in[k].flags & BBMAP_INSN_BAD)
			return true;
	return false;
}

/* Splits the block of r containing the instruction at vaddr so that one starts there.
 * 0 when split or already a leader, -HBBP_ENOTFOUND when vaddr is no instruction start. */
static int region_split(struct bbmap_module *m, struct mod_region *r, uint64_t vaddr)
{
	long bi = block_index(r, vaddr), ii;
	struct bbmap_block *b;
	uint32_t first;

	if (bi < 0 || (ii = insn_index(r, vaddr)) < 0) {
		m->dec.stats.nr_leaders_misaligned++;
		return -HBBP_ENOTFOUND;
	}
	if (r->blocks[bi].start == vaddr)
		return 0;
	if (grow_one((void **)&r->blocks, &r->alloc_blocks, sizeof(*r->blocks), r->nr_blocks))
		return -ENOMEM;
	memmove(&r->blocks[bi + 2], &r->blocks[bi + 1],
		(r->nr_blocks - (size_t)bi - 1) * sizeof(*r->blocks));
	r->nr_blocks++;
	b = &r->blocks[bi];
	first = r->offs ? (uint32_t)insn_index(r, b->start) : (uint32_t)(b->insns - r->insns);
	b[1] = *b;
	b[0].end = vaddr;
	b[0].end_flags = 0;	/* an instruction after a control transfer starts a block */
	b[0].nr_insns = (uint32_t)ii - first;
	b[1].start = vaddr;
	b[1].insns = b->insns ? b->insns + b[0].nr_insns : NULL;	/* lazy: not filled yet */
	b[1].nr_insns -= b[0].nr_insns;
	if (b[0].insns) {	/* exact where the instructions are at hand, else kept */
		b[0].may_be_bad = any_bad(b[0].insns, b[0].nr_insns);
		b[1].may_be_bad = any_bad(b[1].insns, b[1].nr_insns);
	}
	m->dec.stats.nr_blocks++;
	m->dec.stats.nr_leaders++;
	return 0;
}

static void mark(const struct mod_region *r, uint8_t *leader, uint64_t vaddr,
		 struct mod_decoder *d)
{
	long i;

	if (vaddr < r->start || vaddr >= r->end)
		return;
	i = insn_index(r, vaddr);
	if (i >= 0)
		leader[i] = 1;
	else
		d->stats.nr_leaders_misaligned++;
}

/* Cuts a freshly decoded region into blocks (their symbols not set: region_attach_syms),
 * counted in d's stats. */
static int region_cut_blocks(const struct bbmap_module *m, struct mod_decoder *d,
			     struct mod_region *r)
{
	uint8_t *leader = calloc(r->nr_insns ? r->nr_insns : 1, 1);
	uint32_t i, nb = 0;

	if (!leader)
		return -ENOMEM;
	if (r->nr_insns)
		leader[0] = 1;
	for (i = 0; i < r->nr_insns; i++) {
		const struct bbmap_insn *in = &r->insns[i];

		if ((in->flags & BBMAP_INSN_BRANCH) && i + 1 < r->nr_insns)
			leader[i + 1] = 1;
		if (!(in->flags & BBMAP_INSN_HAS_TARGET))
			continue;
		/* Only targets inside the function (method.md §3); jumps into other functions
		 * are left to the LBR leaders, so blocks never depend on decoding order. */
		mark(r, leader, in->target, d);
	}
	{
		long f = sym_floor(m, r->start);
		size_t j = f < 0 ? 0 : (size_t)f;

		for (; j < m->nr_syms && m->syms[j].start < r->end; j++)
			if (m->syms[j].start >= r->start)
				mark(r, leader, m->syms[j].start, d);
	}
	for (i = 0; i < r->nr_insns; i++)
		nb += leader[i];
	r->blocks = calloc(nb ? nb : 1, sizeof(*r->blocks));
	if (!r->blocks) {
		free(leader);
		return -ENOMEM;
	}
	r->alloc_blocks = nb ? nb : 1;
	for (i = 0; i < r->nr_insns; i++) {
		struct bbmap_block *b;

		if (leader[i]) {
			b = &r->blocks[r->nr_blocks++];
			b->start = r->insns[i].addr;
			b->insns = &r->insns[i];
			b->nr_insns = 0;
		}
		b = &r->blocks[r->nr_blocks - 1];
		b->nr_insns++;
		b->end = r->insns[i].addr + r->insns[i].len;
		b->end_flags = r->insns[i].flags & BBMAP_INSN_BRANCH ?
			       r->insns[i].flags & BBMAP_INSN_TRANSFER_MASK : 0;
		b->may_be_bad |= !!(r->insns[i].flags & BBMAP_INSN_BAD);
	}
	d->stats.nr_blocks += r->nr_blocks;
	free(leader);
	return 0;
}

/* Sets the symbol of each block of a new region (demangles names, makes .eh_frame
 * pseudo symbols). */
static void region_attach_syms(struct bbmap_module *m, struct mod_region *r)
{
	uint32_t i;

	for (i = 0; i < r->nr_blocks; i++)
		r->blocks[i].sym = bbmap_module__symbol_at(m, r->blocks[i].start);
}

/* Chooses [start, end) to decode for vaddr: its function (symbol or FDE range) clipped to
 * the code range, else a window of at most WINDOW bytes after the previous symbol. Never
 * overlaps a decoded region. */
static int region_bounds(struct bbmap_module *m, uint64_t vaddr, uint64_t *start, uint64_t *end,
		       uint64_t *soft_max)
{
	const struct mod_code_range *cr = mod_elf__code_range(m, vaddr);
	const struct bbmap_symbol *sym;
	uint64_t cs, ce, s, e;
	size_t ri;

	if (!cr)
		return -HBBP_ENOTFOUND;
	cs = cr->vaddr;
	ce = cr->vaddr + cr->size;
	sym = bbmap_module__symbol_at(m, vaddr);
	if (sym) {
		s = sym->start > cs ? sym->start : cs;
		e = sym->start + sym->size < ce && sym->start + sym->size > sym->start ?
			sym->start + sym->size : ce;
	} else {
		long i = sym_floor(m, vaddr);

		m->dec.stats.nr_windows++;
		s = cs;
		if (i >= 0 && m->syms[i].start + m->syms[i].size > s &&
		    m->syms[i].start + m->syms[i].size <= vaddr)
			s = m->syms[i].start + m->syms[i].size;
		if (vaddr - s > WINDOW)
			s = vaddr;	/* too far from any known boundary: start at vaddr */
		e = ce;
		if ((size_t)(i + 1) < m->nr_syms && m->syms[i + 1].start < e)
			e = m->syms[i + 1].start;
		/* nor into the functions .eh_frame describes around it */
		mod_elf__fde_gap(m, vaddr, &s, &e);
		if (e - vaddr > WINDOW) {
			/* a cut at no known boundary: the last instruction may run past it */
			*soft_max = e;
			e = vaddr + WINDOW;
		}
	}
	ri = region_upper(m, vaddr);
	if (ri && m->regions[ri - 1]->end > s)
		s = m->regions[ri - 1]->end;
	if (ri < m->nr_regions && m->regions[ri]->start < e)
		e = m->regions[ri]->start;
	if (ri < m->nr_regions && m->regions[ri]->start < *soft_max)
		*soft_max = m->regions[ri]->start;
	if (*soft_max <= e)
		*soft_max = 0;
	if (s > vaddr || e <= vaddr)
		return -HBBP_ENOTFOUND;
	*start = s;
	*end = e;
	return 0;
}

/* Outlines a new lazy region and cuts it into blocks, their symbols not set. */
static int region_outline(const struct bbmap_module *m, struct mod_decoder *d, struct mod_region *r)
{
	uint32_t i;
	int err = mod_disasm__scratch(m, d, r, NULL);

	if (err)
		return err;
	r->offs = malloc((r->nr_insns ? r->nr_insns : 1) * sizeof(*r->offs));
	if (!r->offs)
		return -ENOMEM;
	for (i = 0; i < r->nr_insns; i++)
		r->offs[i] = (uint32_t)(d->scr_insns[i].addr - r->start);
	r->insns = d->scr_insns;	/* for region_cut_blocks only */
	err = region_cut_blocks(m, d, r);
	r->insns = NULL;
	for (i = 0; i < r->nr_blocks; i++)
		r->blocks[i].insns = NULL;
	return err;
}

/* n bytes from the region's chunks (aligned for any type), or NULL. */
static void *region_alloc(struct mod_region *r, size_t n)
{
	struct mod_chunk *c = r->chunks;
	size_t a = sizeof(max_align_t);

	n = (n + a - 1) / a * a;
	if (!c || c->cap - c->used < n) {
		/* the first fits the block; then doubling (most regions fill a few blocks) */
		size_t cap = c ? (c->cap < 32768 ? 2 * c->cap : 65536) : n;

		if (cap < n)
			cap = n;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = r->chunks;
		c->used = 0;
		c->cap = cap;
		r->chunks = c;
	}
	c->used += n;
	return (char *)c->data + c->used - n;
}

/* Decodes a lazy region's block in full if it is not (the counters as they were: the
 * outline counted these instructions already), with its source lines: 0 or an error. */
static int region_fill(const struct bbmap_module *m, struct mod_decoder *d, struct mod_region *r,
		     struct bbmap_block *b)
{
	struct mod_region t = { .start = b->start, .end = b->end };
	struct bbmap_module_stats st = d->stats;
	struct mod_text_buf text = { 0 };
	struct bbmap_insn *insns;
	char *tx;
	uint32_t i;
	int err;

	if (b->insns || !r->offs)
		return 0;
	err = mod_disasm__scratch(m, d, &t, &text);
	d->stats = st;
	if (err)
		return err;
	if (t.nr_insns != b->nr_insns || t.end != b->end)
		return -HBBP_EFORMAT;	/* the outline and the full decoding disagree */
	insns = region_alloc(r, t.nr_insns * sizeof(*insns) + text.len);
	if (!insns)
		return -ENOMEM;
	tx = (char *)(insns + t.nr_insns);
	memcpy(insns, d->scr_insns, t.nr_insns * sizeof(*insns));
	memcpy(tx, text.p, text.len);
	for (i = 0; i < t.nr_insns; i++)
		insns[i].operands = tx + (uintptr_t)insns[i].operands;
	if (m->dwarf)
		mod_srcline__fill(m, d, insns, t.nr_insns);
	b->insns = insns;
	return 0;
}

/* A region with the bounds of vaddr, not decoded (NULL: *err says why). */
static struct mod_region *region_new(struct bbmap_module *m, uint64_t vaddr, int *err)
{
	struct mod_region *r;
	uint64_t s, e, soft_max = 0;

	*err = region_bounds(m, vaddr, &s, &e, &soft_max);
	if (*err)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		*err = -ENOMEM;
		return NULL;
	}
	r->start = s;
	r->end = e;
	r->soft_end_max = soft_max;
	return r;
}

/* Into m's sorted regions (counted): 0 or -ENOMEM. */
static int region_insert(struct bbmap_module *m, struct mod_region *r)
{
	size_t ri;

	if (grow_one((void **)&m->regions, &m->alloc_regions, sizeof(*m->regions),
		     m->nr_regions))
		return -ENOMEM;
	ri = region_upper(m, r->start);
	memmove(&m->regions[ri + 1], &m->regions[ri], (m->nr_regions - ri) * sizeof(*m->regions));
	m->regions[ri] = r;
	m->nr_regions++;
	m->dec.stats.nr_regions++;
	return 0;
}

/* Whether regions are outlined (BBMAP_MODULE_LAZY_INSNS on x86). */
static bool region_lazy(const struct bbmap_module *m)
{
	return m->lazy_insns && mod_disasm__can_outline(m);
}

/* Decodes the region of vaddr, sets its blocks' symbols and inserts it: 0 or an error. */
static int region_decode(struct bbmap_module *m, uint64_t vaddr, struct mod_region **out)
{
	struct mod_region *r;
	int err;

	r = region_new(m, vaddr, &err);
	if (!r)
		return err;
	if (region_lazy(m)) {
		err = region_outline(m, &m->dec, r);
	} else {
		err = mod_disasm__region(m, &m->dec, r);
		if (!err) {
			if (m->dwarf)
				mod_srcline__fill(m, &m->dec, r->insns, r->nr_insns);
			err = region_cut_blocks(m, &m->dec, r);
		}
	}
	if (!err)
		region_attach_syms(m, r);
	if (!err)
		err = region_insert(m, r);
	if (err) {
		region_free(r);
		return err;
	}
	*out = r;
	return 0;
}

static int region_for(struct bbmap_module *m, uint64_t vaddr, struct mod_region **out)
{
	*out = region_of(m, vaddr);
	if (*out)
		return 0;
	return region_decode(m, vaddr, out);
}

/* The region, block and instruction of vaddr (decoding on demand): 0, or -HBBP_ENOTFOUND
 * when vaddr is no instruction start of the decoded code (*ii is found when want_ii, or
 * when vaddr is not its block's start). */
static int locate_ii(struct bbmap_module *m, uint64_t vaddr, struct mod_region **r, long *bi,
		     long *ii, bool want_ii)
{
	int err = region_for(m, vaddr, r);

	*bi = *ii = -1;
	if (err)
		return err;
	*bi = block_index(*r, vaddr);
	if (*bi < 0)
		return -HBBP_ENOTFOUND;
	if ((*r)->blocks[*bi].start == vaddr && !want_ii)
		return 0;	/* a block's start is an instruction's */
	*ii = insn_index(*r, vaddr);
	return *ii < 0 ? -HBBP_ENOTFOUND : 0;
}

static int locate(struct bbmap_module *m, uint64_t vaddr, struct mod_region **r, long *bi)
{
	long ii;

	return locate_ii(m, vaddr, r, bi, &ii, false);
}

int bbmap_module__blocks_from(struct bbmap_module *m, uint64_t vaddr,
			      const struct bbmap_block **blks, size_t *n)
{
	struct mod_region *r;
	size_t i;
	long bi;
	int err;

	*blks = NULL;
	*n = 0;
	err = locate(m, vaddr, &r, &bi);
	if (err)
		return err;
	for (i = (size_t)bi; i < r->nr_blocks; i++) {
		err = region_fill(m, &m->dec, r, &r->blocks[i]);
		if (err)
			return err;
	}
	*blks = &r->blocks[bi];
	*n = r->nr_blocks - (size_t)bi;
	return 0;
}

int bbmap_module__block_at(struct bbmap_module *m, uint64_t vaddr,
			   const struct bbmap_block **blk)
{
	struct mod_region *r;
	long bi;
	int err = locate(m, vaddr, &r, &bi);

	*blk = NULL;
	if (!err)
		err = region_fill(m, &m->dec, r, &r->blocks[bi]);
	if (!err)
		*blk = &r->blocks[bi];
	return err;
}

int bbmap_module__block_span(struct bbmap_module *m, uint64_t vaddr,
			     const struct bbmap_block **blk)
{
	struct mod_region *r;
	long bi;
	int err = locate(m, vaddr, &r, &bi);

	*blk = err ? NULL : &r->blocks[bi];
	return err;
}

int bbmap_module__insn_at(struct bbmap_module *m, uint64_t vaddr, const struct bbmap_insn **in)
{
	struct mod_region *r;
	const struct bbmap_block *b;
	long bi, ii;
	int err = locate_ii(m, vaddr, &r, &bi, &ii, true);

	*in = NULL;
	if (!err)
		err = region_fill(m, &m->dec, r, &r->blocks[bi]);
	if (err)
		return err;
	b = &r->blocks[bi];
	*in = &b->insns[ii - insn_index(r, b->start)];
	return 0;
}

int bbmap_module__insn_text(struct bbmap_module *m, uint64_t vaddr, char *buf, size_t n)
{
	const struct bbmap_insn *in;
	int err = bbmap_module__insn_at(m, vaddr, &in);

	if (err)
		return err;
	snprintf(buf, n, "%s%s%s", in->mnemonic ? in->mnemonic : "",
		 in->operands && *in->operands ? " " : "", in->operands ? in->operands : "");
	return 0;
}

int bbmap_module__add_leader(struct bbmap_module *m, uint64_t vaddr)
{
	struct mod_region *r;
	int err = region_for(m, vaddr, &r);

	if (err)
		return err;
	return region_split(m, r, vaddr);
}


size_t bbmap_module__nr_code_ranges(const struct bbmap_module *m) { return m->nr_code; }

int bbmap_module__code_range(const struct bbmap_module *m, size_t idx, uint64_t *start,
			     uint64_t *end)
{
	if (idx >= m->nr_code)
		return -HBBP_ENOTFOUND;
	*start = m->code[idx].vaddr;
	*end = m->code[idx].vaddr + m->code[idx].size;
	return 0;
}

void bbmap_module__drop_insns(struct bbmap_module *m)
{
	size_t i;
	uint32_t j;

	for (i = 0; i < m->nr_regions; i++) {
		struct mod_region *r = m->regions[i];

		if (!r->offs || !r->chunks)
			continue;
		region_free_chunks(r);
		for (j = 0; j < r->nr_blocks; j++)
			r->blocks[j].insns = NULL;
	}
}

void bbmap_module__drop_pages(struct bbmap_module *m)
{
	/* clean pages of a read-only file map: touched again, they are read from the file */
	if (m->own_map && m->image_size)
		madvise(m->own_map, m->image_size, MADV_DONTNEED);
}

void bbmap_module__drop_code(struct bbmap_module *m)
{
	size_t i;

	for (i = 0; i < m->nr_regions; i++)
		region_free(m->regions[i]);
	m->nr_regions = 0;
	mod_decoder__drop_scratch(&m->dec);
}

void bbmap_module__forget_code(struct bbmap_module *m)
{
	size_t i;

	if (!m->nr_regions)
		return;
	for (i = 0; i + 1 < m->nr_regions; i++)
		region_free(m->regions[i]);
	m->regions[0] = m->regions[m->nr_regions - 1];
	m->nr_regions = 1;
}
