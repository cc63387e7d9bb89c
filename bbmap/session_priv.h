/* Internals shared by the session files (session.c, addrspace.c, dso.c, dso_find.c,
 * kernel.c, perfmap.c): the map array of one address space, the dso object, and the name
 * tables used for dsos without code. Not part of the contract: only bbmap/ includes it.
 * Knows nothing of perf.data.
 */
#ifndef BBMAP_SESSION_PRIV_H
#define BBMAP_SESSION_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bbmap/module.h"
#include "bbmap/session.h"

#define BBMAP_BUILD_ID_MAX 20

/* One mapping [start, end) of an address space; file offset of start is pgoff. */
struct bbmap_map {
	uint64_t start, end, pgoff;
	struct bbmap_dso *dso;
};

/* Sorted, non-overlapping maps of one address space, with a last-hit cache. */
struct bbmap_maps {
	struct bbmap_map *v;
	size_t n, cap;
	size_t last;
};

/* Inserts nm. under=false: nm replaces the overlapped parts of older maps (perf's
 * maps__fixup_overlappings). under=true: nm only fills the gaps between existing maps. */
int bbmap_maps__insert(struct bbmap_maps *m, const struct bbmap_map *nm, bool under);
/* Removes [start, end) from every map (cut at the edges). */
int bbmap_maps__remove(struct bbmap_maps *m, uint64_t start, uint64_t end);
const struct bbmap_map *bbmap_maps__find(struct bbmap_maps *m, uint64_t addr);
int bbmap_maps__copy(struct bbmap_maps *dst, const struct bbmap_maps *src);
void bbmap_maps__clear(struct bbmap_maps *m);
void bbmap_maps__exit(struct bbmap_maps *m);

/* Names for code that has no binary: kallsyms, /tmp/perf-PID.map, KSYMBOL. Addresses are
 * run-time addresses; a symbol with size 0 runs to the next one. */
struct bbmap_namesym {
	uint64_t start, size;
	char *name;
};
struct bbmap_names {
	struct bbmap_namesym *v;
	size_t n, cap;
	bool sorted;
};
int bbmap_names__add(struct bbmap_names *t, uint64_t start, uint64_t size, const char *name);
const struct bbmap_namesym *bbmap_names__find(struct bbmap_names *t, uint64_t addr);
void bbmap_names__exit(struct bbmap_names *t);
/* /proc/kallsyms format ("ADDR TYPE NAME [module]"): text symbols only; module NULL: all
 * of them, else only those of that (normalised) module. */
int bbmap_names__load_kallsyms(struct bbmap_names *t, const char *path, const char *module);
/* Module name as perf and the kernel compare them: no ".ko*", '-' -> '_'. */
void bbmap_kernel__modname_normalise(char *name);
/* /tmp/perf-PID.map format ("START SIZE name", hex); flags: hbbp_open_file's. */
int bbmap_names__load_perfmap(struct bbmap_names *t, const char *path, unsigned int flags);

/* How a run-time address becomes a module address for a dso. */
enum bbmap_dso_addr {
	DSO_ADDR_FILE,		/* file offset (addr - start + pgoff), then the load segments */
	DSO_ADDR_RUNTIME,	/* the run-time address itself (kallsyms, kcore, perf map) */
	DSO_ADDR_KERNEL,	/* run-time address minus the KASLR slide (vmlinux) */
};

struct bbmap_dso {
	struct bbmap_session *session;
	char *name;			/* as recorded */
	const char *short_name;		/* points into name */
	enum bbmap_dso_kind kind;
	enum bbmap_dso_status status;
	bool kernel_side;		/* from a kernel-mode mmap */
	bool guest;
	uint8_t build_id[BBMAP_BUILD_ID_MAX];
	size_t build_id_size;		/* 0: the recording has none */
	uint32_t pid;			/* JIT perf map owner */
	char *path;			/* resolved binary */
	char *debug_path;
	char *detail;			/* why missing/refused, or how found */
	struct bbmap_module *mod;
	enum bbmap_dso_addr addr_mode;
	/* kernel image: reference symbol and its run-time address (0: hidden) */
	char *ref_sym;
	uint64_t ref_addr;
	int64_t slide;
	struct bbmap_names names;	/* for DSO_NO_CODE and kernel names */
	bool names_loaded;
	struct bbmap_dso *same_name;	/* the next dso of this name in the session */
};

/* Session internals the dso code needs. */
const struct bbmap_find_opts *bbmap_session__opts(const struct bbmap_session *s);
void bbmap_session__override_note(struct bbmap_session *s, size_t i, enum bbmap_override_use use,
				  const char *detail);
/* The kernel image path recorded in the build-id table (e.g. "/tmp/vmlinux"), or NULL. */
const char *bbmap_session__vmlinux_name(const struct bbmap_session *s);
/* bbmap_names__load_kallsyms, but a file refused once is not opened again: one warning
 * per file however many modules look in it. */
int bbmap_session__load_kallsyms(struct bbmap_session *s, struct bbmap_names *t,
				 const char *path, const char *module);
/* Counts a dso named by this machine's /proc/kallsyms (nr_host_kallsyms). */
void bbmap_session__count_host_kallsyms(struct bbmap_session *s);
/* Lazily built index of /lib/modules/<osrelease>: path of module name, or NULL. */
const char *bbmap_session__module_path(struct bbmap_session *s, const char *modname);

/* dso.c */
struct bbmap_dso *bbmap_dso__new(struct bbmap_session *s, const char *name, bool kernel_side,
				 bool guest, const uint8_t *id, size_t id_size);
void bbmap_dso__delete(struct bbmap_dso *d);
enum bbmap_dso_kind bbmap_dso__classify(const char *name, bool kernel_side);
void bbmap_dso__set_detail(struct bbmap_dso *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Run-time address in map -> module vaddr (or file offset / run-time address without code),
 * and the run-time addresses [*lo, *hi) of the map around addr whose module vaddr is theirs
 * plus the same amount (vaddr - addr). */
uint64_t bbmap_dso__map_vaddr_range(struct bbmap_dso *d, const struct bbmap_map *map,
				    uint64_t addr, uint64_t *lo, uint64_t *hi);
/* Build-ids equal up to trailing zero padding (perf pads ids without a size to 20). */
bool bbmap_build_id__equal(const uint8_t *a, size_t asz, const uint8_t *b, size_t bsz);

/* dso_find.c: finds and opens the binary of a user-space dso (also vDSO, JIT ELF). */
void bbmap_dso__find_user(struct bbmap_dso *d);
/* Tries one candidate file; returns 0 when accepted (d->mod, d->path set). Records a
 * refusal in d->status/d->detail. */
int bbmap_dso__try_file(struct bbmap_dso *d, const char *path, const char *debug_path,
			const char *how);
/* Build-id cache entry for the dso's id: the linked directory (or regular file) and the
 * file inside it named member ("elf", "kallsyms", "vdso"), or NULL. Caller frees. */
char *bbmap_dso__cache_file(const struct bbmap_dso *d, const char *member);

/* kernel.c: kernel image and modules. */
void bbmap_dso__find_kernel(struct bbmap_dso *d);
void bbmap_dso__find_kmodule(struct bbmap_dso *d);
/* The reference symbol of a kernel mmap name ("[kernel.kallsyms]_text" -> "_text"), or
 * NULL when name is not a kernel image map name. */
const char *bbmap_kernel__ref_symbol(const char *mmap_name, bool *is_guest);
/* slide = ref_addr - vmlinux value of the reference symbol (0 when ref_addr is 0). */
int64_t bbmap_kernel__slide(uint64_t ref_addr, uint64_t sym_value);

/* perfmap.c */
void bbmap_dso__find_perfmap(struct bbmap_dso *d);

#endif
