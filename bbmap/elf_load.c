/* The ELF view of a module: architecture, build-id, PT_LOAD segments, code ranges
 * (executable sections, or PF_X segments for section-less core images such as kcore),
 * function symbols from .symtab/.dynsym (and from a separate debug file), and the
 * separate debug file itself (explicit path, /usr/lib/debug/.build-id, .gnu_debuglink).
 * Every ELF is untrusted: each gelf_* and elf_strptr result is checked, every range is
 * checked against the file size, and a corrupt file gives -HBBP_EFORMAT, never a crash.
 * Knows nothing of perf.data or of disassembly.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bbmap/module_priv.h"
#include "util/hbbp_err.h"
#include "util/grow.h"
#include "util/bsearch.h"
#include "util/open_file.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

#define MAX_SYMBOLS (16u << 20)

/* A candidate symbol before sorting and deduplication. */
struct cand_sym {
	uint64_t start, size;
	const char *name;
	int rank;			/* tie-breaker: .symtab, then .dynsym, then debug file */
	bool thumb, weak, global;
};

/* Warns "PATH: message" and gives -HBBP_EFORMAT: the file is corrupt. */
#define elf_bad(m, fmt, ...) (pr_warn("%s: " fmt, (m)->path, __VA_ARGS__), -HBBP_EFORMAT)

static bool range_in_file(const struct bbmap_module *m, uint64_t off, uint64_t size)
{
	return off <= m->image_size && size <= m->image_size - off;
}

static size_t note_build_id(Elf_Data *data, uint8_t *id, size_t cap)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (off < data->d_size && (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    name_off + 4 <= data->d_size &&
		    !memcmp((const char *)data->d_buf + name_off, "GNU", 4) &&
		    nh.n_descsz > 0 && nh.n_descsz <= cap && desc_off <= data->d_size &&
		    nh.n_descsz <= data->d_size - desc_off) {
			memcpy(id, (const char *)data->d_buf + desc_off, nh.n_descsz);
			return nh.n_descsz;
		}
		off = next;
	}
	return 0;
}

/* Build-id from SHT_NOTE sections, else from PT_NOTE segments. */
static size_t elf_build_id(Elf *elf, size_t file_size, uint8_t *id, size_t cap)
{
	Elf_Scn *scn = NULL;
	size_t n, i, got;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		if (sh.sh_offset > file_size || sh.sh_size > file_size - sh.sh_offset)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf && (got = note_build_id(d, id, cap)) > 0)
			return got;
	}
	if (elf_getphdrnum(elf, &n) != 0)
		return 0;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		if (ph.p_offset > file_size || ph.p_filesz > file_size - ph.p_offset)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (d && d->d_buf && (got = note_build_id(d, id, cap)) > 0)
			return got;
	}
	return 0;
}

static enum bbmap_arch arch_of(GElf_Half machine)
{
	switch (machine) {
	case EM_X86_64:	return BBMAP_ARCH_X86_64;
	case EM_386:	return BBMAP_ARCH_X86_32;
	case EM_AARCH64:return BBMAP_ARCH_AARCH64;
	case EM_ARM:	return BBMAP_ARCH_ARM;
	default:	return BBMAP_ARCH_UNKNOWN;
	}
}

static int add_code(struct bbmap_module *m, size_t *cap, uint64_t vaddr, uint64_t size,
		    uint64_t off)
{
	if (!size)
		return 0;
	if (grow_one((void **)&m->code, cap, sizeof(*m->code), m->nr_code))
		return -ENOMEM;
	m->code[m->nr_code++] = (struct mod_code_range){ vaddr, size, off };
	return 0;
}

static int cmp_code(const void *a, const void *b)
{
	const struct mod_code_range *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static int load_segments(struct bbmap_module *m)
{
	size_t n, i;

	if (elf_getphdrnum(m->elf, &n) != 0)
		return elf_bad(m, "program headers: %s", elf_errmsg(-1));
	if (n > 65536)
		return -HBBP_EFORMAT;
	m->segs = calloc(n ? n : 1, sizeof(*m->segs));
	if (!m->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(m->elf, (int)i, &ph))
			return elf_bad(m, "program header %zu: %s", i, elf_errmsg(-1));
		if (ph.p_type != PT_LOAD)
			continue;
		if (!range_in_file(m, ph.p_offset, ph.p_filesz))
			return elf_bad(m, "PT_LOAD at offset 0x%" PRIx64 " size 0x%" PRIx64
				       " extends past the end of the file", ph.p_offset,
				       ph.p_filesz);
		m->segs[m->nr_segs++] = (struct mod_load_seg){ ph.p_vaddr, ph.p_offset,
							       ph.p_filesz, ph.p_memsz };
	}
	return 0;
}

/* Executable sections; PF_X PT_LOAD segments when the file has no sections (kcore). */
static int load_code(struct bbmap_module *m)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0, i, shnum = 0;
	int err;

	if (elf_getshdrnum(m->elf, &shnum) != 0)
		return elf_bad(m, "section headers: %s", elf_errmsg(-1));
	while ((scn = elf_nextscn(m->elf, scn)) != NULL) {
		GElf_Shdr sh;
		uint64_t vaddr;

		if (!gelf_getshdr(scn, &sh))
			return elf_bad(m, "section header: %s", elf_errmsg(-1));
		if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		if (!range_in_file(m, sh.sh_offset, sh.sh_size))
			return elf_bad(m, "section at offset 0x%" PRIx64 " size 0x%" PRIx64
				       " extends past the end of the file", sh.sh_offset,
				       sh.sh_size);
		/* Relocatable objects (.ko): sections all start at 0; their file offset is
		 * their address in this module's address space. */
		vaddr = m->e_type == ET_REL ? sh.sh_offset : sh.sh_addr;
		err = add_code(m, &cap, vaddr, sh.sh_size, sh.sh_offset);
		if (err)
			return err;
	}
	if (!m->nr_code) {
		size_t n;

		if (elf_getphdrnum(m->elf, &n) != 0)
			return -HBBP_EFORMAT;
		for (i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(m->elf, (int)i, &ph))
				return -HBBP_EFORMAT;
			if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
				continue;
			err = add_code(m, &cap, ph.p_vaddr, ph.p_filesz, ph.p_offset);
			if (err)
				return err;
		}
	}
	if (m->nr_code)
		qsort(m->code, m->nr_code, sizeof(*m->code), cmp_code);
	/* Overlapping ranges would make addresses ambiguous: trim each to the next start. */
	for (i = 0; i + 1 < m->nr_code; i++)
		if (m->code[i].vaddr + m->code[i].size > m->code[i + 1].vaddr)
			m->code[i].size = m->code[i + 1].vaddr - m->code[i].vaddr;
	return 0;
}

const struct mod_code_range *mod_elf__code_range(const struct bbmap_module *m, uint64_t vaddr)
{
	size_t lo = bsearch_count(m->nr_code, mid, m->code[mid].vaddr <= vaddr);

	if (lo == 0)
		return NULL;
	if (vaddr - m->code[lo - 1].vaddr < m->code[lo - 1].size)
		return &m->code[lo - 1];
	return NULL;
}

/* Function symbols of one symbol table of elf (the main file or the debug file). */
static int collect_syms(struct bbmap_module *m, Elf *elf, size_t file_size, Elf_Scn *scn,
			const GElf_Shdr *sh, int rank_base, struct cand_sym **v, size_t *nr,
			size_t *cap)
{
	Elf_Data *d;
	size_t count, i, entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);

	if (!entsize || sh->sh_entsize != entsize)
		return -HBBP_EFORMAT;
	if (sh->sh_offset > file_size || sh->sh_size > file_size - sh->sh_offset)
		return -HBBP_EFORMAT;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf)
		return elf_bad(m, "symbol table: %s", elf_errmsg(-1));
	count = d->d_size / entsize;
	for (i = 1; i < count; i++) {
		GElf_Sym s;
		GElf_Shdr ssh;
		Elf_Scn *sscn;
		const char *name;
		int type, bind;
		uint64_t start;

		if (!gelf_getsym(d, (int)i, &s))
			return -HBBP_EFORMAT;
		type = GELF_ST_TYPE(s.st_info);
		bind = GELF_ST_BIND(s.st_info);
		if (s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE)
			continue;
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    !(type == STT_NOTYPE && bind != STB_LOCAL))
			continue;
		sscn = elf_getscn(elf, s.st_shndx);
		if (!sscn || !gelf_getshdr(sscn, &ssh) || !(ssh.sh_flags & SHF_EXECINSTR))
			continue;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (!name || !*name || name[0] == '$')
			continue;
		start = s.st_value;
		if (m->e_type == ET_REL)
			start += ssh.sh_offset;
		if (*nr >= MAX_SYMBOLS)
			return -HBBP_ELIMIT;
		if (grow_one((void **)v, cap, sizeof(**v), *nr))
			return -ENOMEM;
		(*v)[*nr] = (struct cand_sym){
			.start = m->e_machine == EM_ARM ? start & ~1ull : start,
			.size = s.st_size, .name = name,
			.rank = rank_base + (bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2) +
				(type == STT_NOTYPE ? 4 : 0) + (s.st_size ? 0 : 8),
			.thumb = m->e_machine == EM_ARM && (start & 1),
			.weak = bind == STB_WEAK, .global = bind == STB_GLOBAL,
		};
		(*nr)++;
	}
	return 0;
}

static int syms_of(struct bbmap_module *m, Elf *elf, size_t file_size, bool dynsym_too,
		   int rank_base, struct cand_sym **v, size_t *nr, size_t *cap)
{
	Elf_Scn *scn = NULL;
	int err;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return -HBBP_EFORMAT;
		if (sh.sh_type == SHT_SYMTAB ||
		    (dynsym_too && sh.sh_type == SHT_DYNSYM)) {
			err = collect_syms(m, elf, file_size, scn, &sh,
					   rank_base + (sh.sh_type == SHT_DYNSYM ? 16 : 0),
					   v, nr, cap);
			if (err == -ENOMEM || err == -HBBP_ELIMIT)
				return err;
			if (err)
				pr_warn("%s: unreadable symbol table skipped", m->path);
		}
	}
	return 0;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* Among symbols at one address, the name kept is the one perf shows (its
 * choose_best_symbol): non-zero size, then non-weak, then global, then fewer leading
 * underscores, then the longer name; then .symtab over .dynsym, by name. */
static int cmp_cand(const void *a, const void *b)
{
	const struct cand_sym *x = a, *y = b;
	size_t ux, uy, lx, ly;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (!x->size != !y->size)
		return !x->size ? 1 : -1;
	if (x->weak != y->weak)
		return x->weak ? 1 : -1;
	if (x->global != y->global)
		return x->global ? -1 : 1;
	ux = leading_underscores(x->name);
	uy = leading_underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx > ly ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(x->name, y->name);
}

static int load_symbols(struct bbmap_module *m)
{
	struct cand_sym *v = NULL;
	size_t nr = 0, cap = 0, i, out;
	int err;

	err = syms_of(m, m->elf, m->image_size, true, 0, &v, &nr, &cap);
	if (!err && m->dbg_elf) {
		size_t dsz = 0;

		elf_rawfile(m->dbg_elf, &dsz);
		err = syms_of(m, m->dbg_elf, dsz, false, 32, &v, &nr, &cap);
	}
	if (err)
		goto out;
	{
		struct mod_plt plt;

		/* PLT stubs, ranked below every real symbol at the same address. */
		mod_elf__plt(m, &plt);
		for (i = 0; i < plt.nr; i++) {
			if (grow_one((void **)&v, &cap, sizeof(*v), nr)) {
				free(plt.e);
				err = -ENOMEM;
				goto out;
			}
			v[nr++] = (struct cand_sym){ .start = plt.e[i].addr, .size = plt.e[i].size,
						     .name = plt.e[i].name, .rank = 64, .weak = true };
		}
		free(plt.e);
	}
	if (nr)		/* by address, each address's best first (qsort takes no NULL) */
		qsort(v, nr, sizeof(*v), cmp_cand);
	m->syms = calloc(nr ? nr : 1, sizeof(*m->syms));
	m->sym_state = calloc(nr ? nr : 1, 1);
	if (!m->syms || !m->sym_state) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0, out = 0; i < nr; i++) {
		if (out && m->syms[out - 1].start == v[i].start)
			continue;	/* alias: the best-ranked name was kept */
		m->syms[out] = (struct bbmap_symbol){ .start = v[i].start, .size = v[i].size,
						      .name = v[i].name };
		m->sym_state[out] = v[i].thumb ? 4 : 0;
		out++;
	}
	m->nr_syms = out;
	/* Zero-size symbols extend to the next symbol, within their code range. */
	for (i = 0; i < m->nr_syms; i++) {
		const struct mod_code_range *cr;
		uint64_t end;

		if (m->syms[i].size)
			continue;
		cr = mod_elf__code_range(m, m->syms[i].start);
		if (!cr)
			continue;
		end = cr->vaddr + cr->size;
		if (i + 1 < m->nr_syms && m->syms[i + 1].start < end)
			end = m->syms[i + 1].start;
		m->syms[i].size = end - m->syms[i].start;
	}
out:
	free(v);
	return err;
}

/* Opens a debug file candidate; keeps it (0) when it is ELF and its build-id agrees, else a
 * negative code (-HBBP_EREFUSED: hbbp_open_file said why). */
static int try_debug(struct bbmap_module *m, const char *p)
{
	int fd;
	Elf *e;
	uint8_t id[64];
	size_t n, sz = 0;

	if (!p || !strcmp(p, m->path))
		return -HBBP_ENOTFOUND;
	fd = hbbp_open_file(p, 0, HBBP_OPEN_ELF_MAX, NULL);
	if (fd < 0)
		return fd;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !elf_rawfile(e, &sz)) {
		if (e)
			elf_end(e);
		close(fd);
		return -HBBP_EFORMAT;
	}
	n = elf_build_id(e, sz, id, sizeof(id));
	if (m->build_id_size && n && (n != m->build_id_size || memcmp(id, m->build_id, n))) {
		pr_warn("%s: debug file '%s' has another build-id: ignored", m->path, p);
		elf_end(e);
		close(fd);
		return -HBBP_EFORMAT;
	}
	m->dbg_fd = fd;
	m->dbg_elf = e;
	m->debug_file = strdup(p);
	return 0;
}

static const char *debuglink_name(struct bbmap_module *m)
{
	GElf_Shdr sh;
	Elf_Scn *scn = mod_elf__section(m, ".gnu_debuglink", &sh);
	Elf_Data *d = scn && sh.sh_type == SHT_PROGBITS ? elf_getdata(scn, NULL) : NULL;
	const char *nm;

	if (!d || !d->d_buf || !d->d_size || !memchr(d->d_buf, 0, d->d_size))
		return NULL;
	nm = d->d_buf;
	return *nm && !strchr(nm, '/') ? nm : NULL;
}

/* Formats a path; false when it does not fit. */
static bool __attribute__((format(printf, 2, 3))) path_fmt(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	return n >= 0 && n < PATH_MAX;
}

static void find_debug(struct bbmap_module *m, const char *debug_path)
{
	char buf[PATH_MAX], dir[PATH_MAX];
	const char *link, *slash;
	size_t i, n;

	if (debug_path) {
		int err = try_debug(m, debug_path);

		if (err && err != -HBBP_EREFUSED)	/* a refusal was its own warning */
			pr_warn("%s: debug file '%s' not usable", m->path, debug_path);
		return;
	}
	if (m->build_id_size >= 2) {
		n = (size_t)snprintf(buf, sizeof(buf), "/usr/lib/debug/.build-id/%02x/",
				     m->build_id[0]);
		for (i = 1; i < m->build_id_size && n + 3 < sizeof(buf); i++)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%02x", m->build_id[i]);
		if (n + 7 < sizeof(buf)) {
			memcpy(buf + n, ".debug", 7);
			if (!try_debug(m, buf))
				return;
		}
	}
	link = debuglink_name(m);
	if (!link)
		return;
	slash = strrchr(m->path, '/');
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - m->path), m->path);
	else
		snprintf(dir, sizeof(dir), ".");
	if (path_fmt(buf, "%s/%s", dir, link) && !try_debug(m, buf))
		return;
	if (path_fmt(buf, "%s/.debug/%s", dir, link) && !try_debug(m, buf))
		return;
	if (path_fmt(buf, "/usr/lib/debug%s%s/%s", dir[0] == '/' ? "" : "/", dir, link))
		try_debug(m, buf);
}

/* The program and section header tables must lie inside the file (libelf would otherwise
 * silently show a file without sections). */
static int check_tables(struct bbmap_module *m, const GElf_Ehdr *eh)
{
	size_t shnum = 0, phnum = 0;

	if (elf_getshdrnum(m->elf, &shnum) != 0 || elf_getphdrnum(m->elf, &phnum) != 0)
		return elf_bad(m, "ELF header: %s", elf_errmsg(-1));
	/* libelf drops a section table it cannot read: judge by the header's own counts. */
	if (eh->e_shnum)
		shnum = eh->e_shnum;
	if (eh->e_phnum != PN_XNUM)
		phnum = eh->e_phnum;
	if (shnum && (!eh->e_shentsize || eh->e_shoff > m->image_size ||
		      shnum > (m->image_size - eh->e_shoff) / eh->e_shentsize))
		return elf_bad(m, "section headers at 0x%" PRIx64 " extend past the end of the"
			       " file", (uint64_t)eh->e_shoff);
	if (phnum && (!eh->e_phentsize || eh->e_phoff > m->image_size ||
		      phnum > (m->image_size - eh->e_phoff) / eh->e_phentsize))
		return elf_bad(m, "program headers at 0x%" PRIx64 " extend past the end of the"
			       " file", (uint64_t)eh->e_phoff);
	return 0;
}

int mod_elf__load(struct bbmap_module *m, const char *debug_path)
{
	GElf_Ehdr eh;
	const char *raw;
	int err;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -HBBP_EUNSUPP;
	m->fd = hbbp_open_file(m->path, 0, HBBP_OPEN_ELF_MAX, NULL);
	if (m->fd < 0) {
		err = m->fd;
		if (err != -HBBP_EREFUSED)	/* a refusal has said why */
			pr_warn("%s: cannot open: %s", m->path, hbbp_strerror(err));
		return err == -ENOENT ? -HBBP_ENOTFOUND : err;
	}
	m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	if (!m->elf || elf_kind(m->elf) != ELF_K_ELF) {
		int e = elf_errno();	/* 0 when libelf read the file but found no ELF magic */

		return elf_bad(m, "not an ELF file%s%s", e ? ": " : " (no ELF header)",
			       e ? elf_errmsg(e) : "");
	}
	if (!gelf_getehdr(m->elf, &eh))
		return elf_bad(m, "ELF header: %s", elf_errmsg(-1));
	raw = elf_rawfile(m->elf, &m->image_size);
	if (!raw)
		return elf_bad(m, "%s", elf_errmsg(-1));
	/* The bytes are read through a map of our own: read-only and private, so that its pages
	 * can be handed back when decoding is done (bbmap_module__drop_pages); libelf's, if
	 * that fails. */
	m->own_map = mmap(NULL, m->image_size, PROT_READ, MAP_PRIVATE, m->fd, 0);
	if (m->own_map == MAP_FAILED)
		m->own_map = NULL;
	m->image = m->own_map ? (const uint8_t *)m->own_map : (const uint8_t *)raw;
	m->e_type = eh.e_type;
	m->e_machine = eh.e_machine;
	m->arch = arch_of(eh.e_machine);
	err = check_tables(m, &eh);
	if (err)
		return err;
	m->build_id_size = elf_build_id(m->elf, m->image_size, m->build_id, sizeof(m->build_id));
	err = load_segments(m);
	if (!err)
		err = load_code(m);
	if (err)
		return err;
	find_debug(m, debug_path);
	err = load_symbols(m);
	if (err)
		return err;
	m->cfi = dwarf_getcfi_elf(m->elf);	/* NULL without .eh_frame: fine */
	return 0;
}

void mod_elf__unload(struct bbmap_module *m)
{
	if (m->cfi)
		dwarf_cfi_end(m->cfi);
	if (m->dbg_elf)
		elf_end(m->dbg_elf);
	if (m->dbg_fd >= 0)
		close(m->dbg_fd);
	if (m->elf)
		elf_end(m->elf);
	if (m->own_map)
		munmap(m->own_map, m->image_size);
	if (m->fd >= 0)
		close(m->fd);
	free(m->segs);
	free(m->code);
	free(m->syms);
	free(m->sym_state);
	free(m->debug_file);
}

Elf_Scn *mod_elf__section(const struct bbmap_module *m, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(m->elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(m->elf, scn)) != NULL) {
		const char *nm;

		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
			continue;
		nm = elf_strptr(m->elf, shstrndx, sh->sh_name);
		if (nm && !strcmp(nm, name))
			return sh->sh_offset <= m->image_size &&
			       sh->sh_size <= m->image_size - sh->sh_offset ? scn : NULL;
	}
	return NULL;
}

/* Any defined symbol of that name in the symbol tables (aliases included), by scanning:
 * used rarely (kernel relocation symbols such as _text and _stext share an address). */
static int find_name(const struct bbmap_module *m, Elf *elf, const char *name, uint64_t *addr)
{
	Elf_Scn *scn = NULL;
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, count;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !entsize || sh.sh_entsize != entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		count = d->d_size / entsize;
		for (i = 1; i < count; i++) {
			GElf_Sym sym;
			const char *nm;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			nm = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!nm || strcmp(nm, name))
				continue;
			*addr = sym.st_value;
			if (m->e_type == ET_REL && sym.st_shndx < SHN_LORESERVE) {
				GElf_Shdr ssh;
				Elf_Scn *sscn = elf_getscn(elf, sym.st_shndx);

				if (sscn && gelf_getshdr(sscn, &ssh))
					*addr += ssh.sh_offset;
			}
			return 0;
		}
	}
	return -HBBP_ENOTFOUND;
}

int mod_elf__symbol_addr(const struct bbmap_module *m, const char *name, uint64_t *addr)
{
	if (!find_name(m, m->elf, name, addr))
		return 0;
	if (m->dbg_elf && !find_name(m, m->dbg_elf, name, addr))
		return 0;
	return -HBBP_ENOTFOUND;
}
