/* Where the simulated program's modules were mapped: the executable and its interpreter
 * (loaded by qemu itself; placed from the end_code/entry lines of qemu's `-d page` log) and
 * every executable file mapping made through mmap (from qemu's `-strace` log lines, with an
 * fd table built from open/openat/close). Also reads ELF build-ids. Knows nothing of the
 * trace, the PMU or perf.data.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "samples/pmusim/pmusim.h"
#include "util/hbbp_err.h"
#include "util/grow.h"

#define SIM_PAGE 4096ULL

void sim_modules__init(struct sim_modules *m)
{
	memset(m, 0, sizeof(*m));
	m->pid = -1;
}

void sim_modules__exit(struct sim_modules *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	for (size_t i = 0; i < 1024; i++)
		free(m->fd_path[i]);
}

static int sim_modules__add(struct sim_modules *m, uint64_t start, uint64_t len, uint64_t pgoff,
			    uint32_t prot, const char *path)
{
	if (grow_one((void **)&m->v, &m->cap, sizeof(*m->v), m->n))
		return -ENOMEM;
	struct sim_module *mod = &m->v[m->n];
	memset(mod, 0, sizeof(*mod));
	mod->start = start;
	mod->len = len;
	mod->pgoff = pgoff;
	mod->prot = prot;
	mod->path = strdup(path);
	if (!mod->path)
		return -ENOMEM;
	int r = sim_elf__build_id(path, mod->build_id);
	mod->build_id_size = r > 0 ? (uint8_t)r : 0;
	m->n++;
	return 0;
}

const struct sim_module *sim_modules__find(const struct sim_modules *m, uint64_t addr)
{
	/* the latest mapping wins (later mmaps replace earlier ones) */
	for (size_t i = m->n; i-- > 0;)
		if (addr >= m->v[i].start && addr - m->v[i].start < m->v[i].len)
			return &m->v[i];
	return NULL;
}

/* "NAME  0xHEX" lines of qemu's page log */
static bool sim_parse_kv(const char *line, const char *key, uint64_t *val)
{
	size_t kl = strlen(key);
	if (strncmp(line, key, kl) || (line[kl] != ' ' && line[kl] != '\t'))
		return false;
	char *end;
	*val = strtoull(line + kl, &end, 16);
	return end != line + kl;
}

/* Splits "a,b,c" at top-level commas (quotes respected) into at most max fields. */
static int sim_split_args(char *s, char **f, int max)
{
	int n = 0;
	bool q = false;
	f[n++] = s;
	for (; *s; s++) {
		if (*s == '"')
			q = !q;
		else if (*s == ',' && !q && n < max) {
			*s = 0;
			f[n++] = s + 1;
		}
	}
	return n;
}

static void sim_modules__syscall(struct sim_modules *m, const char *call)
{
	/* call: "PID name(args) = ret..." */
	char buf[4096];
	snprintf(buf, sizeof(buf), "%s", call);
	char *sp = strchr(buf, ' ');
	if (!sp)
		return;
	*sp = 0;
	m->pid = (int32_t)strtol(buf, NULL, 10);
	char *name = sp + 1;
	char *lp = strchr(name, '(');
	char *eq = strstr(name, ") = ");
	if (!lp || !eq)
		return;
	*lp = 0;
	*eq = 0;
	char *args = lp + 1;
	const char *ret = eq + 4;
	if (!strncmp(ret, "-1 ", 3) || !strcmp(ret, "-1"))
		return;
	if (!strcmp(name, "clone") || !strcmp(name, "fork") || !strcmp(name, "vfork") ||
	    !strcmp(name, "clone3")) {
		m->forked = true;
		return;
	}
	char *f[8];
	int nf = sim_split_args(args, f, 8);
	if (!strcmp(name, "openat") || !strcmp(name, "open")) {
		const char *p = f[!strcmp(name, "openat") ? 1 : 0];
		if ((!strcmp(name, "openat") && nf < 2) || p[0] != '"')
			return;
		long fd = strtol(ret, NULL, 10);
		if (fd < 0 || fd >= 1024)
			return;
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s", p + 1);
		char *q = strrchr(path, '"');
		if (q)
			*q = 0;
		free(m->fd_path[fd]);
		m->fd_path[fd] = strdup(path);
	} else if (!strcmp(name, "close") && nf >= 1) {
		long fd = strtol(f[0], NULL, 10);
		if (fd >= 0 && fd < 1024) {
			free(m->fd_path[fd]);
			m->fd_path[fd] = NULL;
		}
	} else if (!strcmp(name, "mmap") && nf >= 6) {
		if (!strstr(f[2], "PROT_EXEC"))
			return;
		long fd = strtol(f[4], NULL, 10);
		if (fd < 0 || fd >= 1024 || !m->fd_path[fd])
			return;
		uint64_t len = strtoull(f[1], NULL, 0);
		uint64_t off = strtoull(f[5], NULL, 0);
		uint64_t start = strtoull(ret, NULL, 16);
		uint32_t prot = 4 | (strstr(f[2], "PROT_READ") ? 1 : 0) |
				(strstr(f[2], "PROT_WRITE") ? 2 : 0);
		sim_modules__add(m, start, (len + SIM_PAGE - 1) & ~(SIM_PAGE - 1), off, prot,
				 m->fd_path[fd]);
	}
}

static bool sim_is_syscall_start(const char *line)
{
	const char *p = line;
	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p != ' ')
		return false;
	p++;
	if (!((*p >= 'a' && *p <= 'z') || *p == '_'))
		return false;
	while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')
		p++;
	return *p == '(';
}

void sim_modules__line(struct sim_modules *m, const char *line)
{
	uint64_t v;
	if (sim_parse_kv(line, "end_code", &v)) {
		m->end_code = v;
		m->have_end_code = true;
		return;
	}
	if (sim_parse_kv(line, "entry", &v)) {
		m->entry = v;
		m->have_entry = true;
		return;
	}
	if (sim_is_syscall_start(line)) {
		if (strstr(line, ") = ")) {
			sim_modules__syscall(m, line);
			m->have_pending = false;
			return;
		}
		/* "...)page layout changed following mmap": the result comes later */
		snprintf(m->pending, sizeof(m->pending), "%s", line);
		char *cut = strstr(m->pending, "page layout changed");
		if (cut)
			*cut = 0;
		m->have_pending = true;
		return;
	}
	if (m->have_pending && !strncmp(line, " = ", 3)) {
		char buf[4096 + 64];
		snprintf(buf, sizeof(buf), "%s%s", m->pending, line);
		m->have_pending = false;
		sim_modules__syscall(m, buf);
	}
}

/* Executable PT_LOAD segments of an ELF file, and its interpreter path and entry. */
struct sim_elf_info {
	uint64_t entry;
	uint64_t x_end;		/* max(p_vaddr + p_filesz) over executable segments */
	char interp[PATH_MAX];
	struct { uint64_t vaddr, memsz, offset; uint32_t flags; } seg[16];
	int nseg;
};

static int sim_elf__info(const char *path, struct sim_elf_info *info)
{
	memset(info, 0, sizeof(*info));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	int err = -HBBP_EFORMAT;
	GElf_Ehdr eh;
	size_t nph;
	if (!e || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &nph))
		goto out;
	info->entry = eh.e_entry;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph))
			goto out;
		if (ph.p_type == PT_INTERP) {
			size_t sz;
			char *raw = elf_rawfile(e, &sz);
			if (raw && ph.p_offset < sz && ph.p_filesz < sizeof(info->interp) &&
			    ph.p_filesz <= sz - ph.p_offset) {
				memcpy(info->interp, raw + ph.p_offset, ph.p_filesz);
				info->interp[ph.p_filesz] = 0;
			}
		}
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			if (ph.p_vaddr + ph.p_filesz > info->x_end)
				info->x_end = ph.p_vaddr + ph.p_filesz;
			if (info->nseg < 16) {
				info->seg[info->nseg].vaddr = ph.p_vaddr;
				info->seg[info->nseg].memsz = ph.p_memsz;
				info->seg[info->nseg].offset = ph.p_offset;
				info->seg[info->nseg].flags = ph.p_flags;
				info->nseg++;
			}
		}
	}
	err = 0;
out:
	if (e)
		elf_end(e);
	close(fd);
	return err;
}

static int sim_modules__add_elf(struct sim_modules *m, const char *path,
				const struct sim_elf_info *info, uint64_t bias)
{
	for (int i = 0; i < info->nseg; i++) {
		uint64_t lo = (info->seg[i].vaddr + bias) & ~(SIM_PAGE - 1);
		uint64_t hi = (info->seg[i].vaddr + bias + info->seg[i].memsz + SIM_PAGE - 1) &
			      ~(SIM_PAGE - 1);
		uint32_t prot = 4 | ((info->seg[i].flags & PF_R) ? 1 : 0) |
				((info->seg[i].flags & PF_W) ? 2 : 0);
		int err = sim_modules__add(m, lo, hi - lo, info->seg[i].offset & ~(SIM_PAGE - 1),
					   prot, path);
		if (err)
			return err;
	}
	return 0;
}

int sim_modules__add_program(struct sim_modules *m, const char *prog)
{
	struct sim_elf_info pi, ii;
	int err = sim_elf__info(prog, &pi);
	if (err)
		return err;
	if (!m->have_end_code || !m->have_entry)
		return -HBBP_EFORMAT;
	uint64_t bias = m->end_code - pi.x_end;
	/* the interpreter and library mappings come first in the table, so add the program
	 * at the front by appending and rotating */
	size_t before = m->n;
	err = sim_modules__add_elf(m, prog, &pi, bias);
	if (err)
		return err;
	if (pi.interp[0] && !sim_elf__info(pi.interp, &ii)) {
		err = sim_modules__add_elf(m, pi.interp, &ii, m->entry - ii.entry);
		if (err)
			return err;
	}
	/* move the new entries before the mmap'd ones (they were mapped first) */
	size_t added = m->n - before;
	if (added && before) {
		struct sim_module *tmp = malloc(added * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		memcpy(tmp, m->v + before, added * sizeof(*tmp));
		memmove(m->v + added, m->v, before * sizeof(*tmp));
		memcpy(m->v, tmp, added * sizeof(*tmp));
		free(tmp);
	}
	return 0;
}

int sim_elf__build_id(const char *path, uint8_t id[20])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	int found = 0;
	Elf_Scn *scn = NULL;
	while (e && !found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + noff, "GNU", 4) &&
			    nh.n_descsz > 0 && nh.n_descsz <= 20) {
				memcpy(id, (const char *)d->d_buf + doff, nh.n_descsz);
				found = (int)nh.n_descsz;
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return found;
}
