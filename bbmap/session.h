/* Address spaces over time and the binaries behind them.
 *
 * A bbmap_session follows the processes of a recording as its records are fed in, in order:
 * maps from MMAP/MMAP2 (inherited on FORK, dropped on COMM with exec, ended on EXIT), kernel
 * and module maps, KSYMBOL ranges. Each mapped file is a bbmap_dso, whose binary is found
 * lazily (build-id cache, --symfs, the recorded path, --binary NAME=PATH, separate debug
 * info; kernel: --vmlinux, kcore_dir, --kallsyms) and refused when its build-id differs from
 * the recording's. A lookup turns (pid, cpumode, address) into (dso, module vaddr).
 * Knows nothing of perf.data: the caller passes plain values.
 */
#ifndef BBMAP_SESSION_H
#define BBMAP_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bbmap/module.h"

struct bbmap_session;	/* opaque */
struct bbmap_dso;	/* opaque, owned by the session */

struct bbmap_binary_override {
	const char *name;	/* recorded path or its basename */
	const char *path;
};

struct bbmap_find_opts {
	const char *buildid_dir;	/* the build-id cache; NULL or "": none (hbbp-convert
					 * gives $PERF_BUILDID_DIR or ~/.debug) */
	const char *symfs;		/* prefix for recorded paths */
	const struct bbmap_binary_override *binaries;
	size_t nr_binaries;
	bool ignore_build_id;		/* accept files whose build-id differs */
	const char *vmlinux;
	const char *kallsyms;
	const char *kcore_dir;		/* <perf.data dir>/kcore_dir */
	const char *osrelease;		/* of the recording, for /lib/modules/<rel> */
	const char *hostname;		/* of the recording: with osrelease equal to this
					 * machine's (uname), /proc/kallsyms names the kernel
					 * when nothing else does and neither --vmlinux nor
					 * --kallsyms is given */
	const char *const *search_dirs;	/* extra directories searched by basename (NULL-ended) */
	bool no_lines;			/* source lines not wanted: skip reading DWARF */
	bool no_operands;		/* no instruction is listed: no operand text */
	bool lazy_insns;		/* few blocks are looked at: BBMAP_MODULE_LAZY_INSNS */
	enum bbmap_demangle { BBMAP_DEMANGLE_SHORT, BBMAP_DEMANGLE_FULL, BBMAP_DEMANGLE_NONE }
		demangle;		/* C++ names; short (as perf report) by default */
};

enum bbmap_dso_kind {
	DSO_KIND_USER,		/* a file mapped by a process */
	DSO_KIND_KERNEL,	/* [kernel.kallsyms] */
	DSO_KIND_KMODULE,	/* kernel module */
	DSO_KIND_VDSO,
	DSO_KIND_JIT,		/* /tmp/perf-PID.map or jitted-*.so */
	DSO_KIND_KSYMBOL,	/* BPF / out-of-line kernel code from KSYMBOL */
	DSO_KIND_ANON,		/* anonymous or special mapping with no file */
};

enum bbmap_dso_status {
	DSO_UNRESOLVED,		/* not looked for yet */
	DSO_OK,			/* binary found, code available */
	DSO_MISSING,		/* no file found */
	DSO_BUILDID_MISMATCH,	/* found, but its build-id differs (refused) */
	DSO_NO_CODE,		/* names only (kallsyms, perf map): rows say "no code" */
	DSO_BAD,		/* found but unreadable/corrupt */
};
const char *bbmap_dso_status_name(enum bbmap_dso_status st);

struct bbmap_loc {
	struct bbmap_dso *dso;		/* NULL: unmapped address */
	uint64_t vaddr;			/* module vaddr (or file offset when no binary);
					 * the run-time address for code named by run-time
					 * addresses: kernel via kcore or kallsyms only,
					 * KSYMBOL, /tmp/perf-PID.map JIT code */
	uint64_t map_start, map_end;	/* runtime range of the containing map */
};

int bbmap_session__new(struct bbmap_session **out, const struct bbmap_find_opts *opts);

/* What became of --binary override i (index into opts->binaries), for the run's warnings. */
enum bbmap_override_use {
	BBMAP_OVR_UNMATCHED,	/* no dso of that name was looked up (no sample in it) */
	BBMAP_OVR_REFUSED,	/* matched, not used: unreadable or another build-id (detail) */
	BBMAP_OVR_UNCHECKED,	/* used, but the file has no build-id to check (detail) */
	BBMAP_OVR_USED,		/* used, build-ids equal or none recorded */
};
enum bbmap_override_use bbmap_session__override_use(const struct bbmap_session *s, size_t i,
						     const char **detail);
void bbmap_session__delete(struct bbmap_session *s);

/* Build-ids from the recording (BUILD_ID feature, record 67): filename -> id. */
int bbmap_session__add_build_id(struct bbmap_session *s, bool kernel, const char *filename,
				const uint8_t *id, size_t size);

/* Record events, fed in delivery order. cpumode is PERF_RECORD_MISC_* & 7 (1 kernel, 2 user,
 * 4/5 guest). prot/flags are MMAP2's (0 for MMAP); exec=false maps are data maps and ignored
 * for code lookups. build_id may be NULL. */
int bbmap_session__mmap(struct bbmap_session *s, int cpumode, uint32_t pid, uint32_t tid,
			uint64_t start, uint64_t len, uint64_t pgoff, const char *filename,
			const uint8_t *build_id, size_t build_id_size, bool exec);
int bbmap_session__fork(struct bbmap_session *s, uint32_t pid, uint32_t ppid, uint32_t tid,
			uint32_t ptid);
int bbmap_session__comm(struct bbmap_session *s, uint32_t pid, uint32_t tid, const char *comm,
			bool exec);
int bbmap_session__exit(struct bbmap_session *s, uint32_t pid, uint32_t tid);
int bbmap_session__ksymbol(struct bbmap_session *s, uint64_t addr, uint32_t len,
			   const char *name, bool unregister);

/* Resolves a runtime address in process pid at the current point of the record stream.
 * cpumode selects kernel or user maps (kernel addresses of a user-mode sample are tried in the
 * kernel maps too). Returns 0 and fills loc, or -HBBP_ENOTFOUND (loc->dso NULL). */
int bbmap_session__lookup(struct bbmap_session *s, uint32_t pid, int cpumode, uint64_t addr,
			  struct bbmap_loc *loc);
/* The same, and on success the run-time addresses [*lo, *hi) around addr that resolve, until
 * the address space changes, to the same dso at vaddr + (their address - addr): a caller may
 * resolve them without asking again. */
int bbmap_session__lookup_range(struct bbmap_session *s, uint32_t pid, int cpumode,
				uint64_t addr, struct bbmap_loc *loc, uint64_t *lo, uint64_t *hi);

/* Counters for the summary (recoverable anomalies are counted, never fatal). */
struct bbmap_session_stats {
	uint64_t nr_lookups;		/* bbmap_session__lookup calls */
	uint64_t nr_unmapped;		/* lookups that found no map */
	uint64_t nr_kernel_fallback;	/* user-mode lookups resolved in the kernel maps */
	uint64_t nr_guest_unsupported;	/* guest user-space mmaps and lookups (not followed) */
	uint64_t nr_procs, nr_dsos;
	uint64_t nr_host_kallsyms;	/* kernel and modules named by this machine's
					 * /proc/kallsyms (the recording was made here) */
};
void bbmap_session__stats(const struct bbmap_session *s, struct bbmap_session_stats *st);

/* The key of thread pid/tid's name now (bbmap/session.c): tid while the thread has its
 * first name, another number for each later one. */
uint32_t bbmap_session__thread_key(const struct bbmap_session *s, uint32_t pid, uint32_t tid);
/* The name of thread key key of pid (else its process's name now), or NULL; *tid: the
 * thread's tid. */
const char *bbmap_session__comm_of(const struct bbmap_session *s, uint32_t pid, uint32_t key,
				   uint32_t *tid);

/* dsos */
const char *bbmap_dso__name(const struct bbmap_dso *d);		/* recorded filename */
const char *bbmap_dso__short_name(const struct bbmap_dso *d);	/* basename */
enum bbmap_dso_kind bbmap_dso__kind(const struct bbmap_dso *d);
/* Finds and opens the binary on first call. Returns the status; *m is NULL unless DSO_OK. */
enum bbmap_dso_status bbmap_dso__module(struct bbmap_dso *d, struct bbmap_module **m);
const char *bbmap_dso__path(const struct bbmap_dso *d);		/* resolved file, or NULL */
const char *bbmap_dso__status_detail(const struct bbmap_dso *d);	/* why missing/refused */
/* Symbol name for a dso without code (kallsyms, perf map), or NULL. */
const char *bbmap_dso__symbol_name(struct bbmap_dso *d, uint64_t vaddr, uint64_t *sym_start);
/* drop (bbmap_module__drop_pages, __drop_insns, __drop_code) on every module opened. */
void bbmap_session__drop(struct bbmap_session *s, void (*drop)(struct bbmap_module *m));
/* Iterate over all dsos (for summaries): returns NULL after the last. */
struct bbmap_dso *bbmap_session__dso(const struct bbmap_session *s, size_t i);

#endif
