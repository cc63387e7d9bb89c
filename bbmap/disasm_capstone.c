/* Decodes one region of a module's code with capstone: one handle per module and mode
 * (opened on first use, detail on), one cs_malloc'd instruction, a cs_disasm_iter loop.
 * An undecodable byte becomes a 1-byte BAD instruction, is counted, and decoding goes on.
 * Attributes come from insn_attr.c. Knows nothing of perf.data, symbols or blocks.
 */
#include <errno.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module_priv.h"
#include "util/hbbp_err.h"

void bbmap_module__threads_init(void)
{
	/* add eax, 1: x86 with detail sorts capstone's table of registers named in mnemonics
	 * on first use (X86Mapping.c, a static flag): done here, not by two threads at once */
	static const uint8_t add_eax[] = { 0x05, 0x01, 0x00, 0x00, 0x00 };
	cs_insn *insn;
	csh h;

	elf_version(EV_CURRENT);
	cs_support(CS_ARCH_ALL);	/* fills capstone's architecture tables, once */
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return;
	if (cs_option(h, CS_OPT_DETAIL, CS_OPT_ON) == CS_ERR_OK) {
		size_t n = cs_disasm(h, add_eax, sizeof(add_eax), 0, 1, &insn);

		if (n)
			cs_free(insn, n);
	}
	cs_close(&h);
}

static int open_handle(struct bbmap_module *m, bool thumb, csh **h, cs_insn **ci)
{
	cs_arch arch;
	cs_mode mode;
	bool *is_open = thumb ? &m->cs_thumb_open : &m->cs_open;

	*h = thumb ? &m->cs_thumb : &m->cs;
	*ci = thumb ? m->csi_thumb : m->csi;
	if (*is_open)
		return 0;
	switch (m->arch) {
	case BBMAP_ARCH_X86_64:	arch = CS_ARCH_X86; mode = CS_MODE_64; break;
	case BBMAP_ARCH_X86_32:	arch = CS_ARCH_X86; mode = CS_MODE_32; break;
	case BBMAP_ARCH_AARCH64:arch = CS_ARCH_ARM64; mode = CS_MODE_ARM; break;
	case BBMAP_ARCH_ARM:	arch = CS_ARCH_ARM; mode = thumb ? CS_MODE_THUMB : CS_MODE_ARM; break;
	default:
		return -HBBP_EUNSUPP;
	}
	if (cs_open(arch, mode, *h) != CS_ERR_OK) {
		pr_err("%s: capstone: cannot open a decoder for this architecture", m->path);
		return -HBBP_EUNSUPP;
	}
	if (cs_option(**h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
		cs_close(*h);
		return -HBBP_EUNSUPP;
	}
	*ci = cs_malloc(**h);
	if (!*ci) {
		cs_close(*h);
		return -ENOMEM;
	}
	if (thumb)
		m->csi_thumb = *ci;
	else
		m->csi = *ci;
	*is_open = true;
	return 0;
}

void mod_disasm__close(struct bbmap_module *m)
{
	if (m->cs_open) {
		cs_free(m->csi, 1);
		cs_close(&m->cs);
	}
	if (m->cs_thumb_open) {
		cs_free(m->csi_thumb, 1);
		cs_close(&m->cs_thumb);
	}
	m->cs_open = m->cs_thumb_open = false;
	free(m->scr_insns);
	free(m->scr_text);
	m->scr_insns = NULL;
	m->scr_text = NULL;
}

static bool region_is_thumb(const struct bbmap_module *m, uint64_t start)
{
	size_t lo = 0, hi = m->nr_syms;

	if (m->arch != BBMAP_ARCH_ARM)
		return false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nr_syms && m->syms[lo].start == start && (m->sym_state[lo] & 4);
}

static int grow_scratch(struct bbmap_module *m, size_t cap)
{
	struct bbmap_insn *p = realloc(m->scr_insns, cap * sizeof(*p));

	if (!p)
		return -ENOMEM;
	m->scr_insns = p;
	m->scr_cap = cap;
	return 0;
}

struct text_buf {
	char *p;
	size_t len, cap;
};

/* Appends s and returns its offset, or (size_t)-1 on allocation failure. */
static size_t text_add(struct text_buf *t, const char *s)
{
	size_t n = strlen(s) + 1, off = t->len;

	if (t->len + n > t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 4096;
		char *p;

		while (nc < t->len + n)
			nc *= 2;
		p = realloc(t->p, nc);
		if (!p)
			return (size_t)-1;
		t->p = p;
		t->cap = nc;
	}
	memcpy(t->p + off, s, n);
	t->len += n;
	return off;
}

static uint64_t groups_key(const cs_detail *d)
{
	uint64_t k = d->groups_count;
	uint8_t i;

	for (i = 0; i < d->groups_count; i++)
		k = k * 1099511628211ull + d->groups[i] + 1;
	return k;
}

static size_t memo_slot(const struct mod_attr_cache *c, const char *mn, unsigned id, uint64_t g)
{
	size_t i = (((uintptr_t)mn >> 4) * 31 + id * 131 + g) & (c->cap - 1);

	while (c->slots[i].mnemonic &&
	       (c->slots[i].mnemonic != mn || c->slots[i].id != id || c->slots[i].groups != g))
		i = (i + 1) & (c->cap - 1);
	return i;
}

/* x86 attributes, with the per-mnemonic part computed once per module. */
static int x86_attrs(struct bbmap_module *m, csh h, const cs_insn *ci, struct bbmap_insn *in)
{
	struct mod_attr_cache *c = &m->attr;
	const char *mn = mod_str__intern(m, ci->mnemonic);
	uint64_t g = groups_key(ci->detail);
	struct mod_attr_memo *e;
	char iclass[64];
	size_t i;

	if (!mn)
		return -ENOMEM;
	if (c->nr * 2 >= c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 512, j;
		struct mod_attr_memo *old = c->slots;
		size_t oc = c->cap;

		c->slots = calloc(nc, sizeof(*c->slots));
		if (!c->slots) {
			c->slots = old;
			return -ENOMEM;
		}
		c->cap = nc;
		for (j = 0; j < oc; j++)
			if (old[j].mnemonic)
				c->slots[memo_slot(c, old[j].mnemonic, old[j].id, old[j].groups)] =
					old[j];
		free(old);
	}
	i = memo_slot(c, mn, ci->id, g);
	e = &c->slots[i];
	if (e->mnemonic) {
		in->isa = e->isa;
		in->category = e->category;
		in->packing = e->packing;
		in->elem = e->elem;
		insn_attr__x86(h, ci, in, iclass, sizeof(iclass), false);
		in->iclass = e->iclass;
	} else {
		iclass[0] = 0;
		insn_attr__x86(h, ci, in, iclass, sizeof(iclass), true);
		in->iclass = mod_str__intern(m, iclass);
		if (!in->iclass)
			return -ENOMEM;
		*e = (struct mod_attr_memo){ .mnemonic = mn, .iclass = in->iclass, .groups = g,
					     .id = ci->id, .isa = in->isa,
					     .category = in->category, .packing = in->packing,
					     .elem = in->elem };
		c->nr++;
	}
	in->mnemonic = mn;
	return 0;
}

int mod_disasm__region(struct bbmap_module *m, struct mod_region *r)
{
	const struct mod_code_range *cr = mod_elf__code_range(m, r->start);
	const uint8_t *code;
	size_t left, cap, i;
	uint64_t addr;
	struct text_buf text = { 0 };
	const char *bad_mn, *bad_ic, *unk_mn;
	bool thumb = region_is_thumb(m, r->start);
	csh *h;
	cs_insn *ci;
	int err;

	if (!cr || r->end <= r->start || r->end - cr->vaddr > cr->size)
		return -HBBP_ENOTFOUND;
	err = open_handle(m, thumb, &h, &ci);
	if (err)
		return err;
	bad_mn = mod_str__intern(m, "(bad)");
	bad_ic = mod_str__intern(m, "INVALID");
	unk_mn = mod_str__intern(m, "(unknown)");
	if (!bad_mn || !bad_ic || !unk_mn)
		return -ENOMEM;
	code = m->image + cr->file_off + (r->start - cr->vaddr);
	left = r->end - r->start;
	addr = r->start;
	/* Decode into the module's scratch buffers (reused, already touched), then keep exact
	 * copies: decoding touches as little fresh memory as possible. */
	text.p = m->scr_text;
	text.cap = m->scr_text_cap;
	cap = m->scr_cap;
	if (cap < left / 4 + 16) {
		cap = left / 4 + 16;
		if (grow_scratch(m, cap)) {
			err = -ENOMEM;
			goto out;
		}
	}
	while (left) {
		struct bbmap_insn *in;
		char iclass[64];
		size_t off;

		if (r->nr_insns == m->scr_cap && grow_scratch(m, m->scr_cap * 2)) {
			err = -ENOMEM;
			goto out;
		}
		in = &m->scr_insns[r->nr_insns];
		memset(in, 0, sizeof(*in));
		in->addr = addr;
		if (!cs_disasm_iter(*h, &code, &left, &addr, ci)) {
			/* Undecodable: one unit (1 byte; 2 or 4 on ARM) as BAD, then go on. */
			size_t unit = m->arch == BBMAP_ARCH_AARCH64 ? 4 :
				      m->arch == BBMAP_ARCH_ARM ? (thumb ? 2 : 4) : 1;
			size_t xl = 0;

			/* x86 instructions newer than capstone 4 keep their length, so the
			 * stream stays in step; they are named "(unknown)". */
			if (m->arch == BBMAP_ARCH_X86_64 || m->arch == BBMAP_ARCH_X86_32)
				xl = mod_x86__length(code, left, m->arch == BBMAP_ARCH_X86_64);
			if (xl) {
				unit = xl;
				in->mnemonic = unk_mn;
				in->iclass = unk_mn;
				in->isa = ISA_UNKNOWN;
				m->stats.nr_unknown++;
			} else {
				if (unit > left)
					unit = left;
				in->mnemonic = bad_mn;
				in->iclass = bad_ic;
				in->flags = BBMAP_INSN_BAD;
				m->stats.nr_bad++;
			}
			in->len = (uint8_t)unit;
			code += unit;
			left -= unit;
			addr += unit;
			off = text_add(&text, "");
		} else {
			iclass[0] = 0;
			switch (m->arch) {
			case BBMAP_ARCH_X86_64:
			case BBMAP_ARCH_X86_32:
				err = x86_attrs(m, *h, ci, in);
				if (err)
					goto out;
				break;
			case BBMAP_ARCH_AARCH64:
				insn_attr__arm64(*h, ci, in, iclass, sizeof(iclass));
				break;
			default:
				insn_attr__arm(*h, ci, in, iclass, sizeof(iclass));
				break;
			}
			in->len = (uint8_t)ci->size;
			if (!in->mnemonic)
				in->mnemonic = mod_str__intern(m, ci->mnemonic);
			if (!in->iclass)
				in->iclass = mod_str__intern(m, iclass);
			off = text_add(&text, ci->op_str);
			if (!in->mnemonic || !in->iclass) {
				err = -ENOMEM;
				goto out;
			}
		}
		if (off == (size_t)-1) {
			err = -ENOMEM;
			goto out;
		}
		/* An offset into text until text stops moving. */
		in->operands = (const char *)(uintptr_t)off;
		r->nr_insns++;
	}
	r->insns = malloc((r->nr_insns ? r->nr_insns : 1) * sizeof(*r->insns));
	r->text = malloc(text.len ? text.len : 1);
	if (!r->insns || !r->text) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(r->insns, m->scr_insns, r->nr_insns * sizeof(*r->insns));
	memcpy(r->text, text.p, text.len);
	for (i = 0; i < r->nr_insns; i++)
		r->insns[i].operands = r->text + (uintptr_t)r->insns[i].operands;
	m->stats.bytes_decoded += r->end - r->start;
	m->stats.nr_insns += r->nr_insns;
	err = 0;
out:
	m->scr_text = text.p;
	m->scr_text_cap = text.cap;
	return err;
}
