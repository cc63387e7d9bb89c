/* A minimal stand-in for bbmap/module.c used by the session tests while the real module
 * code is not in the tree: libelf only, build-id note, PT_LOAD offset -> vaddr, symbol
 * table lookup (FUNC symbols; size 0 runs to the next). No disassembly. Included by one
 * test file per binary; define SESSION_TEST_REAL_MODULE to use the library's module.c.
 */
#ifndef TEST_SESSION_DOUBLE_H
#define TEST_SESSION_DOUBLE_H

#ifndef SESSION_TEST_REAL_MODULE
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bbmap/module.h"
#include "util/hbbp_err.h"

struct dbl_load { uint64_t off, vaddr, filesz; };

struct bbmap_module {
	char *path;
	uint8_t id[20];
	size_t id_size;
	struct dbl_load *load;
	size_t nr_load;
	struct bbmap_symbol *syms;	/* functions */
	size_t nr_syms;
	struct bbmap_symbol *all;	/* every defined symbol, for symbol_addr */
	size_t nr_all;
	enum bbmap_arch arch;
};

static int dbl_sym_cmp(const void *a, const void *b)
{
	const struct bbmap_symbol *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (y->size != 0) - (x->size != 0);
}

static void dbl_read_note(struct bbmap_module *m, Elf_Data *data)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4) && nh.n_descsz <= 20) {
			memcpy(m->id, (char *)data->d_buf + desc_off, nh.n_descsz);
			m->id_size = nh.n_descsz;
			return;
		}
	}
}

int bbmap_module__open(struct bbmap_module **out, const char *path, const char *debug_path)
{
	struct bbmap_module *m;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t i, nph;
	Elf *e;
	int fd;

	(void)debug_path;
	*out = NULL;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &nph)) {
		if (e)
			elf_end(e);
		close(fd);
		return -HBBP_EFORMAT;
	}
	m = calloc(1, sizeof(*m));
	m->path = strdup(path);
	m->arch = eh.e_machine == EM_X86_64 ? BBMAP_ARCH_X86_64 :
		  eh.e_machine == EM_386 ? BBMAP_ARCH_X86_32 :
		  eh.e_machine == EM_AARCH64 ? BBMAP_ARCH_AARCH64 : BBMAP_ARCH_UNKNOWN;
	m->load = calloc(nph + 1, sizeof(*m->load));
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		m->load[m->nr_load].off = ph.p_offset;
		m->load[m->nr_load].vaddr = ph.p_vaddr;
		m->load[m->nr_load].filesz = ph.p_filesz;
		m->nr_load++;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || !(data = elf_getdata(scn, NULL)))
			continue;
		if (sh.sh_type == SHT_NOTE && !m->id_size)
			dbl_read_note(m, data);
		if (sh.sh_type == SHT_SYMTAB ||
		    (sh.sh_type == SHT_DYNSYM && !m->nr_syms)) {
			size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0, k;

			if (sh.sh_type == SHT_SYMTAB) {
				for (k = 0; k < m->nr_syms; k++)
					free((char *)m->syms[k].name);
				free(m->syms);
				m->syms = NULL;
				m->nr_syms = 0;
			}
			m->syms = realloc(m->syms, (m->nr_syms + n + 1) * sizeof(*m->syms));
			for (k = 0; k < n; k++) {
				GElf_Sym s;
				const char *name;

				if (!gelf_getsym(data, (int)k, &s) || !s.st_value ||
				    s.st_shndx == SHN_UNDEF)
					continue;
				name = elf_strptr(e, sh.sh_link, s.st_name);
				if (!name || !*name)
					continue;
				if (sh.sh_type == SHT_SYMTAB) {
					m->all = realloc(m->all, (m->nr_all + 1) * sizeof(*m->all));
					m->all[m->nr_all].start = s.st_value;
					m->all[m->nr_all].size = s.st_size;
					m->all[m->nr_all].name = strdup(name);
					m->nr_all++;
				}
				if (GELF_ST_TYPE(s.st_info) != STT_FUNC &&
				    GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC)
					continue;
				m->syms[m->nr_syms].start = s.st_value;
				m->syms[m->nr_syms].size = s.st_size;
				m->syms[m->nr_syms].name = strdup(name);
				m->syms[m->nr_syms].from_eh_frame = false;
				m->nr_syms++;
			}
		}
	}
	if (m->nr_syms)
		qsort(m->syms, m->nr_syms, sizeof(*m->syms), dbl_sym_cmp);
	elf_end(e);
	close(fd);
	*out = m;
	return 0;
}

void bbmap_module__delete(struct bbmap_module *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nr_syms; i++)
		free((char *)m->syms[i].name);
	free(m->syms);
	for (i = 0; i < m->nr_all; i++)
		free((char *)m->all[i].name);
	free(m->all);
	free(m->load);
	free(m->path);
	free(m);
}

const char *bbmap_module__path(const struct bbmap_module *m) { return m->path; }
enum bbmap_arch bbmap_module__arch(const struct bbmap_module *m) { return m->arch; }
bool bbmap_module__has_symbols(const struct bbmap_module *m) { return m->nr_syms > 0; }
bool bbmap_module__has_lines(const struct bbmap_module *m) { (void)m; return false; }

size_t bbmap_module__build_id(const struct bbmap_module *m, const uint8_t **id)
{
	*id = m->id;
	return m->id_size;
}

int bbmap_module__offset_to_vaddr(const struct bbmap_module *m, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < m->nr_load; i++)
		if (off >= m->load[i].off && off - m->load[i].off < m->load[i].filesz) {
			*vaddr = off - m->load[i].off + m->load[i].vaddr;
			return 0;
		}
	return -HBBP_ENOTFOUND;
}

int bbmap_module__symbol_addr(const struct bbmap_module *m, const char *name, uint64_t *addr)
{
	size_t i;

	for (i = 0; i < m->nr_all; i++)
		if (!strcmp(m->all[i].name, name)) {
			*addr = m->all[i].start;
			return 0;
		}
	return -HBBP_ENOTFOUND;
}

const struct bbmap_symbol *bbmap_module__symbol_at(struct bbmap_module *m, uint64_t vaddr)
{
	size_t lo = 0, hi = m->nr_syms;
	const struct bbmap_symbol *s;

	while (lo < hi) {	/* last symbol starting at or below vaddr */
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &m->syms[lo - 1];
	while (s > m->syms && s[-1].start == s->start)
		s--;
	if (!s->size || vaddr - s->start < s->size)
		return s;
	return NULL;
}

int bbmap_module__add_leader(struct bbmap_module *m, uint64_t vaddr)
{
	(void)m;
	(void)vaddr;
	return -HBBP_EUNSUPP;
}

int bbmap_module__block_at(struct bbmap_module *m, uint64_t vaddr,
			   const struct bbmap_block **blk)
{
	(void)m;
	(void)vaddr;
	*blk = NULL;
	return -HBBP_EUNSUPP;
}

void bbmap_module__stats(const struct bbmap_module *m, struct bbmap_module_stats *st)
{
	(void)m;
	memset(st, 0, sizeof(*st));
}
#endif

#endif
