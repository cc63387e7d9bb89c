/* Names for PLT stubs, "<function>@plt", as objdump and perf show them. x86-64: each
 * 16-byte entry of .plt.sec (or of .plt after PLT0) holds a `jmp *disp32(%rip)` whose GOT
 * slot is matched with a .rela.plt relocation, whose symbol gives the name. AArch64: .plt
 * entries (16 bytes after a 32-byte PLT0) follow .rela.plt in order. Other architectures
 * get no PLT names (the stubs then take their .eh_frame range name). Every size and index
 * is checked: a malformed table gives no names, never an error. Knows nothing of perf.data.
 */
#include <stdlib.h>
#include <string.h>

#include "bbmap/module_priv.h"
#include "util/grow.h"

struct got_rel {
	uint64_t got;
	const char *name;
};

static int cmp_got(const void *a, const void *b)
{
	const struct got_rel *x = a, *y = b;

	return x->got < y->got ? -1 : x->got > y->got;
}

/* The .rela.plt relocations with their symbol names, in table order. */
static size_t read_relocs(struct bbmap_module *m, struct got_rel **out)
{
	Elf_Scn *scn, *symscn;
	GElf_Shdr sh, symsh;
	Elf_Data *d, *syms;
	size_t n, i, k = 0;

	*out = NULL;
	scn = mod_elf__section(m, ".rela.plt", &sh);
	if (!scn || sh.sh_type != SHT_RELA || !sh.sh_entsize)
		return 0;
	symscn = elf_getscn(m->elf, sh.sh_link);
	if (!symscn || !gelf_getshdr(symscn, &symsh) || symsh.sh_offset > m->image_size ||
	    symsh.sh_size > m->image_size - symsh.sh_offset)
		return 0;
	d = elf_getdata(scn, NULL);
	syms = elf_getdata(symscn, NULL);
	if (!d || !syms || !d->d_buf || !syms->d_buf)
		return 0;
	n = d->d_size / sh.sh_entsize;
	if (!n || n > 1u << 20)
		return 0;
	*out = calloc(n, sizeof(**out));
	if (!*out)
		return 0;
	for (i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym s;
		const char *name;
		char buf[512];

		if (!gelf_getrela(d, (int)i, &r) ||
		    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &s) ||
		    !(name = elf_strptr(m->elf, symsh.sh_link, s.st_name)) || !*name ||
		    strlen(name) + 5 > sizeof(buf))
			continue;
		memcpy(buf, name, strlen(name));
		memcpy(buf + strlen(name), "@plt", 5);
		(*out)[k].got = r.r_offset;
		(*out)[k].name = mod_str__intern(&m->dec, buf);
		if ((*out)[k].name)
			k++;
	}
	return k;
}

static int add(struct mod_plt *p, uint64_t addr, uint64_t size, const char *name)
{
	if (grow_one((void **)&p->e, &p->cap, sizeof(*p->e), p->nr))
		return -1;
	p->e[p->nr++] = (struct mod_plt_entry){ addr, size, name };
	return 0;
}

static void plt_x86_64(struct bbmap_module *m, struct got_rel *rel, size_t nrel,
		       struct mod_plt *p)
{
	GElf_Shdr sh;
	const uint8_t *b;
	uint64_t off, first = 16;

	if (mod_elf__section(m, ".plt.sec", &sh))
		first = 0;
	else if (!mod_elf__section(m, ".plt", &sh))
		return;
	if (sh.sh_type != SHT_PROGBITS)
		return;
	b = m->image + sh.sh_offset;
	qsort(rel, nrel, sizeof(*rel), cmp_got);
	for (off = first; off + 16 <= sh.sh_size; off += 16) {
		unsigned k;

		for (k = 0; k + 6 <= 16; k++) {
			int32_t disp;
			struct got_rel key, *hit;

			if (b[off + k] != 0xff || b[off + k + 1] != 0x25)
				continue;
			memcpy(&disp, b + off + k + 2, 4);
			key.got = sh.sh_addr + off + k + 6 + (uint64_t)(int64_t)disp;
			hit = bsearch(&key, rel, nrel, sizeof(*rel), cmp_got);
			if (hit && add(p, sh.sh_addr + off, 16, hit->name))
				return;
			break;
		}
	}
}

static void plt_aarch64(struct bbmap_module *m, struct got_rel *rel, size_t nrel,
			struct mod_plt *p)
{
	GElf_Shdr sh;
	size_t i;

	if (!mod_elf__section(m, ".plt", &sh) || sh.sh_type != SHT_PROGBITS)
		return;
	for (i = 0; i < nrel && 32 + (i + 1) * 16 <= sh.sh_size; i++)
		if (add(p, sh.sh_addr + 32 + i * 16, 16, rel[i].name))
			return;
}

void mod_elf__plt(struct bbmap_module *m, struct mod_plt *p)
{
	struct got_rel *rel;
	size_t nrel;

	memset(p, 0, sizeof(*p));
	if (m->e_type == ET_REL)
		return;
	nrel = read_relocs(m, &rel);
	if (nrel && m->arch == BBMAP_ARCH_X86_64)
		plt_x86_64(m, rel, nrel, p);
	else if (nrel && m->arch == BBMAP_ARCH_AARCH64)
		plt_aarch64(m, rel, nrel, p);
	free(rel);
}
