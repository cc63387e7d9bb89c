/* Decodes one region of an AArch64 or ARM module's code with capstone: one handle per
 * module and mode (opened on first use, detail on), one cs_malloc'd instruction, a
 * cs_disasm_iter loop. An undecodable unit (4 bytes; 2 in Thumb) becomes a BAD instruction,
 * is counted, and decoding goes on. Attributes come from insn_attr.c. x86 is decoded by
 * disasm_zydis.c. Knows nothing of perf.data, symbols or blocks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module_priv.h"
#include "util/hbbp_err.h"
#include "util/bsearch.h"

static int open_handle(const struct bbmap_module *m, struct mod_decoder *d, bool thumb, csh **h,
		       cs_insn **ci)
{
	cs_arch arch;
	cs_mode mode;

	*h = &d->cs[thumb];
	*ci = d->csi[thumb];
	if (d->cs_open[thumb])
		return 0;
	switch (m->arch) {
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
	*ci = d->csi[thumb] = cs_malloc(**h);
	if (!*ci) {
		cs_close(*h);
		return -ENOMEM;
	}
	d->cs_open[thumb] = true;
	return 0;
}

void mod_capstone__close(struct mod_decoder *d)
{
	int t;

	for (t = 0; t < 2; t++)
		if (d->cs_open[t]) {
			cs_free(d->csi[t], 1);
			cs_close(&d->cs[t]);
			d->cs_open[t] = false;
		}
}

static bool region_is_thumb(const struct bbmap_module *m, uint64_t start)
{
	size_t lo;

	if (m->arch != BBMAP_ARCH_ARM)
		return false;
	lo = bsearch_count(m->nr_syms, mid, m->syms[mid].start < start);
	return lo < m->nr_syms && m->syms[lo].start == start && (m->sym_state[lo] & 4);
}

int mod_capstone__region(const struct bbmap_module *m, struct mod_decoder *d,
			 struct mod_region *r, const uint8_t *code, struct mod_text_buf *text)
{
	size_t left = r->end - r->start;
	uint64_t addr = r->start;
	const char *bad_mn, *bad_ic;
	bool thumb = region_is_thumb(m, r->start);
	csh *h;
	cs_insn *ci;
	int err;

	err = open_handle(m, d, thumb, &h, &ci);
	if (err)
		return err;
	bad_mn = mod_str__intern(d, "(bad)");
	bad_ic = mod_str__intern(d, "INVALID");
	if (!bad_mn || !bad_ic)
		return -ENOMEM;
	while (left) {
		struct bbmap_insn *in;
		char iclass[64];
		size_t off;

		if (r->nr_insns == d->scr_cap && mod_disasm__grow(d, (size_t)r->nr_insns + 1))
			return -ENOMEM;
		in = &d->scr_insns[r->nr_insns];
		memset(in, 0, sizeof(*in));
		in->addr = addr;
		if (!cs_disasm_iter(*h, &code, &left, &addr, ci)) {
			/* Undecodable: one unit as BAD, counted, then go on. */
			size_t unit = m->arch == BBMAP_ARCH_ARM && thumb ? 2 : 4;

			if (unit > left) {
				unit = left;
				d->stats.bytes_cut += unit;
			}
			in->mnemonic = bad_mn;
			in->iclass = bad_ic;
			in->flags = BBMAP_INSN_BAD;
			in->len = (uint8_t)unit;
			d->stats.nr_bad++;
			d->stats.bytes_bad += unit;
			code += unit;
			left -= unit;
			addr += unit;
			off = mod_text__add(text, "");
		} else {
			iclass[0] = 0;
			if (m->arch == BBMAP_ARCH_AARCH64)
				insn_attr__arm64(*h, ci, in, iclass, sizeof(iclass));
			else
				insn_attr__arm(*h, ci, in, iclass, sizeof(iclass));
			in->len = (uint8_t)ci->size;
			in->mnemonic = mod_str__intern(d, ci->mnemonic);
			in->iclass = mod_str__intern(d, iclass);
			if (!in->mnemonic || !in->iclass)
				return -ENOMEM;
			off = mod_text__add(text, m->no_operands ? "" : ci->op_str);
		}
		if (off == (size_t)-1)
			return -ENOMEM;
		in->operands = (const char *)(uintptr_t)off;
		r->nr_insns++;
	}
	return 0;
}
