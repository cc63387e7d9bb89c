/* Source lines of decoded instructions with libdw: the compilation unit from
 * dwarf_addrdie, the line record from dwarf_getsrc_die. The line table already names the
 * innermost source position, so code inlined from another function gets the inlined
 * function's file:line (not the call site's). Debug info comes from the separate debug
 * file when there is one, else from the module itself; none leaves srcfile NULL.
 * Knows nothing of perf.data or of blocks.
 */
#include <dwarf.h>
#include <stdio.h>

#include "bbmap/module_priv.h"
#include "util/hbbp_err.h"

static Dwarf *open_dwarf(Elf *e)
{
	Dwarf *dw;
	Dwarf_Off next;
	size_t hsize;

	if (!e)
		return NULL;
	dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	if (!dw)
		return NULL;
	if (dwarf_nextcu(dw, 0, &next, &hsize, NULL, NULL, NULL) != 0) {
		dwarf_end(dw);
		return NULL;
	}
	return dw;
}

int mod_srcline__open(struct bbmap_module *m)
{
	if (m->e_type == ET_REL)
		return -HBBP_EUNSUPP;	/* addresses here are file offsets, not DWARF's */
	m->dwarf = open_dwarf(m->dbg_elf);
	if (!m->dwarf)
		m->dwarf = open_dwarf(m->elf);
	return m->dwarf ? 0 : -HBBP_ENOTFOUND;
}

void mod_srcline__fill(const struct bbmap_module *m, struct mod_decoder *d,
		       struct bbmap_insn *insns, uint32_t n)
{
	Dwarf_Die cu;
	Dwarf_Addr lo = 1, hi = 0;	/* range known to be in cu */
	bool have_cu = false;
	const char *comp_dir = NULL;
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct bbmap_insn *in = &insns[i];
		Dwarf_Line *l;
		const char *src;
		int ln;

		if (in->flags & BBMAP_INSN_BAD)
			continue;
		if (!have_cu || in->addr < lo || in->addr >= hi) {
			have_cu = dwarf_addrdie(m->dwarf, in->addr, &cu) != NULL;
			if (!have_cu)
				continue;
			{
				Dwarf_Attribute at;

				/* Relative file names are relative to the CU's directory. */
				comp_dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &at));
			}
			lo = 1;
			hi = 0;
			{
				Dwarf_Addr base, s, e;
				ptrdiff_t off = 0;

				while ((off = dwarf_ranges(&cu, off, &base, &s, &e)) > 0)
					if (in->addr >= s && in->addr < e) {
						lo = s;
						hi = e;
						break;
					}
			}
		}
		l = dwarf_getsrc_die(&cu, in->addr);
		if (!l)
			continue;
		src = dwarf_linesrc(l, NULL, NULL);
		if (!src || dwarf_lineno(l, &ln) != 0 || ln <= 0)
			continue;
		if (src[0] != '/' && comp_dir) {
			char path[4096];

			if (snprintf(path, sizeof(path), "%s/%s", comp_dir, src) <
			    (int)sizeof(path)) {
				in->srcfile = mod_str__intern(d, path);
				in->line = (uint32_t)ln;
				continue;
			}
		}
		in->srcfile = mod_str__intern(d, src);
		in->line = (uint32_t)ln;
	}
}
