/* Function ranges from .eh_frame: the sorted table of .eh_frame_hdr (each FDE's initial
 * location) and each FDE's own address range, read once per module. They name code that no
 * symbol covers ("sub_<start>") with the whole function: libdw's dwarf_cfi_addrframe gives
 * only the range of one row of the call frame table (a prologue's pushes end a row). Only
 * the encodings every x86-64 and AArch64 toolchain writes are read (table: datarel sdata4;
 * FDE: pcrel sdata4 start and 4-byte range, checked against the table); anything else leaves
 * the table empty and the caller falls back to libdw's rows. Every offset is checked against
 * the file. Knows nothing of perf.data or disassembly.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module_priv.h"
#include "util/radix.h"
#include "util/bsearch.h"

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct mod_fde *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* A symbol says where a function starts; an FDE whose range holds a symbol's start past its
 * own start is not one function (glibc's __restore_rt has its FDE start one byte early, in
 * the padding before it): such FDEs are dropped and the symbols are used. Returns the count
 * kept. */
static size_t drop_split_by_symbols(const struct bbmap_module *m, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		/* the first symbol starting after the FDE's start */
		size_t lo = bsearch_count(m->nr_syms, mid, m->syms[mid].start <= m->fdes[i].start);

		if (lo < m->nr_syms && m->syms[lo].start < m->fdes[i].end)
			continue;
		m->fdes[k++] = m->fdes[i];
	}
	return k;
}

/* Fills m->fdes once; false when the file has no table this reads (fall back). */
static bool fde_table(struct bbmap_module *m)
{
	GElf_Shdr hdr, eh;
	const uint8_t *h;
	uint32_t count, i;
	size_t n = 0;

	if (m->fde_state)
		return m->fde_state == 1;
	m->fde_state = 2;
	if (m->e_type == ET_REL || !mod_elf__section(m, ".eh_frame_hdr", &hdr) ||
	    !mod_elf__section(m, ".eh_frame", &eh) || hdr.sh_size < 12)
		return false;
	h = m->image + hdr.sh_offset;
	/* version 1; eh_frame_ptr any 4-byte form; fde_count udata4; table datarel sdata4 */
	if (h[0] != 1 || (h[1] & 0x0f) != 0x0b || h[2] != 0x03 || h[3] != 0x3b)
		return false;
	count = rd32(h + 8);
	if (!count || count > (hdr.sh_size - 12) / 8)
		return false;
	m->fdes = calloc(count, sizeof(*m->fdes));
	if (!m->fdes)
		return false;
	for (i = 0; i < count; i++) {
		const uint8_t *e = h + 12 + (size_t)i * 8;
		uint64_t start = hdr.sh_addr + (uint64_t)(int64_t)(int32_t)rd32(e);
		uint64_t fde = hdr.sh_addr + (uint64_t)(int64_t)(int32_t)rd32(e + 4);
		uint64_t off = fde - eh.sh_addr, pcb;
		const uint8_t *f;

		/* the FDE: length, CIE pointer, pc_begin (pcrel sdata4), pc_range (4 bytes) */
		if (fde < eh.sh_addr || off > eh.sh_size || eh.sh_size - off < 16)
			continue;
		f = m->image + eh.sh_offset + off;
		if (rd32(f) == 0xffffffffu || rd32(f) < 12 || rd32(f + 4) == 0)
			continue;
		pcb = fde + 8 + (uint64_t)(int64_t)(int32_t)rd32(f + 8);
		if (pcb != start || !rd32(f + 12))
			continue;	/* another encoding: not this entry */
		m->fdes[n].start = start;
		m->fdes[n].end = start + rd32(f + 12);
		n++;
	}
	if (!n) {
		free(m->fdes);
		m->fdes = NULL;
		return false;
	}
	/* by start, equal starts in the table's order (stable; qsort without the memory) */
	if (radix_sort_records(m->fdes, n, sizeof(*m->fdes), offsetof(struct mod_fde, start)))
		qsort(m->fdes, n, sizeof(*m->fdes), fde_cmp);
	m->nr_fdes = drop_split_by_symbols(m, n);
	for (i = 0; i < m->nr_fdes; i++)
		m->fdes[i].max_end = i && m->fdes[i - 1].max_end > m->fdes[i].end ?
				     m->fdes[i - 1].max_end : m->fdes[i].end;
	m->fde_state = 1;
	return true;
}

/* The number of FDEs starting at or before vaddr (the table is sorted by start). */
static size_t fdes_upto(const struct bbmap_module *m, uint64_t vaddr)
{
	return bsearch_count(m->nr_fdes, mid, m->fdes[mid].start <= vaddr);
}

int mod_elf__fde_range(struct bbmap_module *m, uint64_t vaddr, uint64_t *start, uint64_t *end)
{
	size_t lo;

	if (!fde_table(m))
		return -EOPNOTSUPP;
	lo = fdes_upto(m, vaddr);
	/* the innermost (latest starting) FDE holding vaddr */
	while (lo > 0) {
		const struct mod_fde *f = &m->fdes[lo - 1];

		if (vaddr < f->end) {
			*start = f->start;
			*end = f->end;
			return 0;
		}
		if (lo < 2 || m->fdes[lo - 2].end <= vaddr)
			break;
		lo--;
	}
	return -ENOENT;
}

void mod_elf__fde_gap(struct bbmap_module *m, uint64_t vaddr, uint64_t *s, uint64_t *e)
{
	size_t lo, i;

	if (!fde_table(m))
		return;
	lo = fdes_upto(m, vaddr);
	if (lo < m->nr_fdes && m->fdes[lo].start < *e)
		*e = m->fdes[lo].start;
	/* the nearest earlier FDE ending in (*s, vaddr]; none once no earlier one ends past *s */
	for (i = lo; i > 0 && m->fdes[i - 1].max_end > *s; i--)
		if (m->fdes[i - 1].end <= vaddr && m->fdes[i - 1].end > *s) {
			*s = m->fdes[i - 1].end;
			break;
		}
}
