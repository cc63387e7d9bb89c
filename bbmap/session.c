/* The session: processes, their address spaces and their threads' names over time, the
 * kernel maps, the dso table, and the lookup of (pid, cpumode, address) -> (dso, module
 * vaddr). Records are fed in delivery order by the caller as plain values; this file knows
 * nothing of perf.data. Finding binaries lives in dso*.c, kernel.c and perfmap.c.
 */
#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bbmap/session_priv.h"
#include "util/hbbp_err.h"
#include "util/grow.h"
#include "util/hmap.h"

#define CPUMODE_KERNEL 1
#define CPUMODE_USER 2
#define CPUMODE_HYPERVISOR 3
#define CPUMODE_GUEST_KERNEL 4
#define CPUMODE_GUEST_USER 5

#define MODIDX_MAX (1u << 20)	/* module files indexed under /lib/modules/<rel> */
#define MODIDX_DEPTH 16

#define KERNEL_PID 0xffffffffu	/* machine pid -1: host kernel maps */
/* User-mode addresses at or above this are tried in the kernel maps (x86-64, AArch64). */
#define KERNEL_SPACE_START 0x8000000000000000ull

/* ---- thread names ---- */

/* The names of the recording's threads over time, as perf's thread model keeps them (each
 * thread's list of comms): every name a thread takes (COMM, exec, the name a fork inherits),
 * in record order. A sample is attributed to the name its thread has when the sample comes
 * (records are fed in time order), through a thread key: the tid itself while the thread
 * has its first name, else a key of its own for each later name (COMM_KEY_RENAMED | its
 * number), so that the sums of one thread under two names stay apart.
 */
#define COMM_KEY_RENAMED 0x80000000u

struct comm_name {
	uint32_t pid, tid;
	char *name;
};

struct comm_timeline {
	struct hmap threads;		/* pid << 32 | tid -> struct comm_thread */
	struct comm_name *names;	/* every name taken, in record order */
	size_t nr, cap;
};

/* a thread's first name and its name now: indexes into names */
struct comm_thread {
	uint32_t first, now;
};

static void comm_timeline__init(struct comm_timeline *ct)
{
	memset(ct, 0, sizeof(*ct));
	hmap__init(&ct->threads, 1, sizeof(struct comm_thread));
}

static void comm_timeline__exit(struct comm_timeline *ct)
{
	size_t i;

	for (i = 0; i < ct->nr; i++)
		free(ct->names[i].name);
	free(ct->names);
	hmap__exit(&ct->threads);
	memset(ct, 0, sizeof(*ct));
}

static const struct comm_thread *timeline__thread(const struct comm_timeline *ct, uint32_t pid,
						  uint32_t tid)
{
	const uint64_t key = (uint64_t)pid << 32 | tid;

	return hmap__find(&ct->threads, &key);
}

/* Thread pid/tid is called name from now on. 0 or -ENOMEM. */
static int comm_timeline__set(struct comm_timeline *ct, uint32_t pid, uint32_t tid,
			      const char *name)
{
	const uint64_t key = (uint64_t)pid << 32 | tid;
	const struct comm_thread *old = timeline__thread(ct, pid, tid);
	struct comm_thread *t;
	char *dup;

	if (!name)
		name = "";
	if (old && !strcmp(ct->names[old->now].name, name))
		return 0;		/* the same name again: nothing to tell apart */
	dup = strdup(name);
	if (!dup || grow_array((void **)&ct->names, &ct->cap, sizeof(*ct->names), ct->nr + 1,
			       COMM_KEY_RENAMED - 1)) {
		free(dup);
		return -ENOMEM;
	}
	t = hmap__get(&ct->threads, &key, NULL);
	if (!t) {
		free(dup);
		return -ENOMEM;
	}
	ct->names[ct->nr] = (struct comm_name){ .pid = pid, .tid = tid, .name = dup };
	t->now = (uint32_t)ct->nr;
	if (!old)
		t->first = t->now;
	ct->nr++;
	return 0;
}

/* The thread's name now, or NULL when it has none. */
static const char *comm_timeline__now(const struct comm_timeline *ct, uint32_t pid, uint32_t tid)
{
	const struct comm_thread *t = timeline__thread(ct, pid, tid);

	return t ? ct->names[t->now].name : NULL;
}

/* The key of the thread's name now (see above): tid unless the thread was renamed. */
static uint32_t comm_timeline__key(const struct comm_timeline *ct, uint32_t pid, uint32_t tid)
{
	const struct comm_thread *t = timeline__thread(ct, pid, tid);

	return !t || t->now == t->first ? tid : COMM_KEY_RENAMED | t->now;
}

/* The name of thread key key of pid (and its thread's tid in *tid), or NULL (*tid = key)
 * for a thread without a name. */
static const char *comm_timeline__name(const struct comm_timeline *ct, uint32_t pid,
				       uint32_t key, uint32_t *tid)
{
	const struct comm_thread *t = timeline__thread(ct, pid, key);
	uint32_t i = key & ~COMM_KEY_RENAMED;

	*tid = key;
	if (t)		/* a tid: the thread's first name */
		return ct->names[t->first].name;
	if (!(key & COMM_KEY_RENAMED) || i >= ct->nr || ct->names[i].pid != pid)
		return NULL;
	*tid = ct->names[i].tid;
	return ct->names[i].name;
}

struct proc {
	uint32_t pid;
	bool exited;
	struct bbmap_maps maps;
};

struct modindex_ent {
	char *name;		/* normalised: '-' -> '_', no ".ko*" */
	char *path;
};

struct bbmap_session {
	struct bbmap_find_opts opts;
	char *buildid_dir;
	struct bbmap_binary_override *binaries;
	struct {			/* what became of each --binary */
		int use;		/* enum bbmap_override_use */
		char *detail;		/* first refusal or caveat, owned */
	} *ovr;
	char **search_dirs;
	struct hmap procs;	/* pid -> struct proc * */
	struct comm_timeline comms;	/* every thread's names over time */
	struct proc *last_proc;
	struct bbmap_maps kmaps, guest_kmaps;
	struct bbmap_dso **dsos;
	size_t nr_dsos, cap_dsos;
	struct hmap dso_by_name;	/* name -> the first dso of that name (then same_name) */
	struct {			/* BUILD_ID feature: filename -> id */
		char *name;
		bool kernel;
		uint8_t id[BBMAP_BUILD_ID_MAX];
		size_t size;
	} *bids;
	size_t nr_bids, cap_bids;
	struct modindex_ent *modidx;
	size_t nr_modidx, cap_modidx;
	bool modidx_built;
	struct bbmap_session_stats stats;
	char *vmlinux_name;	/* kernel image path from the recording's build-id table */
	char **refused;		/* kallsyms files refused (their warning said it once) */
	size_t nr_refused;
};

/* ---- session ---- */

static int session__copy_opts(struct bbmap_session *s, const struct bbmap_find_opts *o)
{
	size_t i, n = 0;

	if (o)
		s->opts = *o;
	s->buildid_dir = strdup(s->opts.buildid_dir ? s->opts.buildid_dir : "");
	if (!s->buildid_dir)
		return -ENOMEM;
	s->opts.buildid_dir = s->buildid_dir;
	/* the strings stay the caller's; the arrays are copied */
	if (s->opts.nr_binaries) {
		s->binaries = calloc(s->opts.nr_binaries, sizeof(*s->binaries));
		if (!s->binaries)
			return -ENOMEM;
		memcpy(s->binaries, s->opts.binaries, s->opts.nr_binaries * sizeof(*s->binaries));
		s->opts.binaries = s->binaries;
		s->ovr = calloc(s->opts.nr_binaries, sizeof(*s->ovr));
		if (!s->ovr)
			return -ENOMEM;
	}
	if (s->opts.search_dirs) {
		while (s->opts.search_dirs[n])
			n++;
		s->search_dirs = calloc(n + 1, sizeof(*s->search_dirs));
		if (!s->search_dirs)
			return -ENOMEM;
		for (i = 0; i < n; i++)
			s->search_dirs[i] = (char *)s->opts.search_dirs[i];
		s->opts.search_dirs = (const char *const *)s->search_dirs;
	}
	return 0;
}

int bbmap_session__new(struct bbmap_session **out, const struct bbmap_find_opts *opts)
{
	struct bbmap_session *s = calloc(1, sizeof(*s));
	int err;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	hmap__init(&s->procs, 1, sizeof(struct proc *));
	comm_timeline__init(&s->comms);
	hmap__init_bytes(&s->dso_by_name, sizeof(struct bbmap_dso *));
	err = session__copy_opts(s, opts);
	if (err) {
		bbmap_session__delete(s);
		return err;
	}
	*out = s;
	return 0;
}

void bbmap_session__delete(struct bbmap_session *s)
{
	const uint64_t *key;
	struct proc **p;
	size_t i;

	if (!s)
		return;
	hmap__for_each(&s->procs, i, key, p) {
		bbmap_maps__exit(&(*p)->maps);
		free(*p);
	}
	hmap__exit(&s->procs);
	comm_timeline__exit(&s->comms);
	bbmap_maps__exit(&s->kmaps);
	bbmap_maps__exit(&s->guest_kmaps);
	for (i = 0; i < s->nr_dsos; i++)
		bbmap_dso__delete(s->dsos[i]);
	free(s->dsos);
	hmap__exit(&s->dso_by_name);
	for (i = 0; i < s->nr_bids; i++)
		free(s->bids[i].name);
	free(s->bids);
	for (i = 0; i < s->nr_modidx; i++) {
		free(s->modidx[i].name);
		free(s->modidx[i].path);
	}
	free(s->modidx);
	free(s->buildid_dir);
	free(s->vmlinux_name);
	for (i = 0; i < s->nr_refused; i++)
		free(s->refused[i]);
	free(s->refused);
	for (i = 0; s->ovr && i < s->opts.nr_binaries; i++)
		free(s->ovr[i].detail);
	free(s->ovr);
	free(s->binaries);
	free(s->search_dirs);
	free(s);
}

const struct bbmap_find_opts *bbmap_session__opts(const struct bbmap_session *s)
{
	return &s->opts;
}

/* ---- build-ids and dsos ---- */

/* A kernel-side build-id entry that names neither "[...]" nor a .ko file is the kernel
 * image under the path perf recorded it with (perf record with a vmlinux). */
static bool name_is_kernel_image_path(const char *name)
{
	static const char *const ko[] = { ".ko", ".ko.gz", ".ko.xz", ".ko.zst" };
	size_t n = strlen(name), i;

	if (name[0] == '[' || !n)
		return false;
	for (i = 0; i < sizeof(ko) / sizeof(ko[0]); i++)
		if (n >= strlen(ko[i]) && !strcmp(name + n - strlen(ko[i]), ko[i]))
			return false;
	return true;
}

const char *bbmap_session__vmlinux_name(const struct bbmap_session *s)
{
	return s->vmlinux_name;
}

int bbmap_session__load_kallsyms(struct bbmap_session *s, struct bbmap_names *t,
				 const char *path, const char *module)
{
	char **v, *dup;
	size_t i;
	int err;

	for (i = 0; i < s->nr_refused; i++)
		if (!strcmp(s->refused[i], path))
			return -HBBP_EREFUSED;
	err = bbmap_names__load_kallsyms(t, path, module);
	if (err != -HBBP_EREFUSED)
		return err;
	v = realloc(s->refused, (s->nr_refused + 1) * sizeof(*v));
	dup = v ? strdup(path) : NULL;
	if (v)
		s->refused = v;
	if (dup)
		s->refused[s->nr_refused++] = dup;
	return err;
}

void bbmap_session__count_host_kallsyms(struct bbmap_session *s)
{
	s->stats.nr_host_kallsyms++;
}

int bbmap_session__add_build_id(struct bbmap_session *s, bool kernel, const char *filename,
				const uint8_t *id, size_t size)
{
	size_t i;

	if (!filename || !id || !size)
		return -EINVAL;
	if (kernel && name_is_kernel_image_path(filename)) {
		char *dup = strdup(filename);
		int err;

		if (!dup)
			return -ENOMEM;
		free(s->vmlinux_name);
		s->vmlinux_name = dup;
		err = bbmap_session__add_build_id(s, true, "[kernel.kallsyms]", id, size);
		if (err)
			return err;
	}
	if (size > BBMAP_BUILD_ID_MAX)
		size = BBMAP_BUILD_ID_MAX;
	for (i = 0; i < s->nr_bids; i++)
		if (s->bids[i].kernel == kernel && !strcmp(s->bids[i].name, filename))
			break;
	if (i == s->nr_bids) {
		if (grow_one((void **)&s->bids, &s->cap_bids, sizeof(*s->bids), s->nr_bids))
			return -ENOMEM;
		s->bids[i].name = strdup(filename);
		if (!s->bids[i].name)
			return -ENOMEM;
		s->bids[i].kernel = kernel;
		s->nr_bids++;
	}
	memcpy(s->bids[i].id, id, size);
	s->bids[i].size = size;
	/* a dso created before its id was known, not looked for yet, takes it */
	for (i = 0; i < s->nr_dsos; i++) {
		struct bbmap_dso *d = s->dsos[i];

		if (!d->build_id_size && d->status == DSO_UNRESOLVED &&
		    d->kernel_side == kernel && !strcmp(d->name, filename)) {
			memcpy(d->build_id, id, size);
			d->build_id_size = size;
		}
	}
	return 0;
}

static bool session__feature_build_id(const struct bbmap_session *s, const char *name,
				      bool kernel, const uint8_t **id, size_t *size)
{
	size_t i;

	for (i = 0; i < s->nr_bids; i++)
		if (s->bids[i].kernel == kernel && !strcmp(s->bids[i].name, name)) {
			*id = s->bids[i].id;
			*size = s->bids[i].size;
			return true;
		}
	/* older perf filed modules and the kernel under the other cpumode */
	for (i = 0; i < s->nr_bids; i++)
		if (!strcmp(s->bids[i].name, name)) {
			*id = s->bids[i].id;
			*size = s->bids[i].size;
			return true;
		}
	return false;
}

static struct bbmap_dso *session__find_dso(struct bbmap_session *s, const char *name,
					   bool kernel_side, bool guest, uint32_t pid,
					   const uint8_t *id, size_t size)
{
	struct bbmap_dso **first = hmap__find_bytes(&s->dso_by_name, name, strlen(name)), *d;

	for (d = first ? *first : NULL; d; d = d->same_name) {
		if (d->kernel_side != kernel_side || d->guest != guest)
			continue;
		if (size && d->build_id_size && !bbmap_build_id__equal(d->build_id,
			d->build_id_size, id, size))
			continue;
		return d;
	}
	return NULL;
}

/* Adds d to the name index, after the dsos of the same name. */
static int session__index_dso(struct bbmap_session *s, struct bbmap_dso *d)
{
	struct bbmap_dso **p = hmap__get_bytes(&s->dso_by_name, d->name, strlen(d->name), NULL);

	if (!p)
		return -ENOMEM;
	while (*p)
		p = &(*p)->same_name;
	*p = d;
	return 0;
}

static struct bbmap_dso *session__findnew_dso(struct bbmap_session *s, const char *name,
					      bool kernel_side, bool guest, uint32_t pid,
					      const uint8_t *id, size_t size)
{
	struct bbmap_dso *d;

	if (!size || !id)
		session__feature_build_id(s, name, kernel_side, &id, &size);
	if (!id)
		size = 0;
	d = session__find_dso(s, name, kernel_side, guest, pid, id, size);
	if (d) {
		if (!d->build_id_size && size && d->status == DSO_UNRESOLVED) {
			memcpy(d->build_id, id, size > BBMAP_BUILD_ID_MAX ? BBMAP_BUILD_ID_MAX : size);
			d->build_id_size = size > BBMAP_BUILD_ID_MAX ? BBMAP_BUILD_ID_MAX : size;
		}
		return d;
	}
	if (grow_one((void **)&s->dsos, &s->cap_dsos, sizeof(*s->dsos), s->nr_dsos))
		return NULL;
	d = bbmap_dso__new(s, name, kernel_side, guest, id, size);
	if (!d)
		return NULL;
	d->pid = pid;
	if (session__index_dso(s, d)) {
		bbmap_dso__delete(d);
		return NULL;
	}
	s->dsos[s->nr_dsos++] = d;
	return d;
}

void bbmap_session__drop(struct bbmap_session *s, void (*drop)(struct bbmap_module *m))
{
	size_t i;

	for (i = 0; i < s->nr_dsos; i++)
		if (s->dsos[i]->mod)
			drop(s->dsos[i]->mod);
}

struct bbmap_dso *bbmap_session__dso(const struct bbmap_session *s, size_t i)
{
	return i < s->nr_dsos ? s->dsos[i] : NULL;
}

/* ---- processes ---- */

static struct proc *session__proc_of(const struct bbmap_session *s, uint32_t pid)
{
	const uint64_t key = pid;
	struct proc **p = hmap__find(&s->procs, &key);

	return p ? *p : NULL;
}

static struct proc *session__proc(struct bbmap_session *s, uint32_t pid, bool create)
{
	struct proc *p;

	if (s->last_proc && s->last_proc->pid == pid)
		return s->last_proc;
	p = session__proc_of(s, pid);
	if (!p && create) {
		const uint64_t key = pid;
		struct proc **slot;

		p = calloc(1, sizeof(*p));
		slot = p ? hmap__get(&s->procs, &key, NULL) : NULL;
		if (!slot) {
			free(p);
			return NULL;
		}
		p->pid = pid;
		*slot = p;
	}
	if (p)
		s->last_proc = p;
	return p;
}

/* An mmap name that means anonymous memory (perf's is_anon_memory / is_no_dso_memory). */
static bool name_is_anon_exec(const char *name)
{
	return !strcmp(name, "//anon") || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/anon_hugepage", 14);
}

static int session__kernel_mmap(struct bbmap_session *s, int cpumode, uint64_t start,
				 uint64_t end, uint64_t pgoff, const char *filename,
				 const uint8_t *build_id, size_t build_id_size)
{
	bool guest = cpumode == CPUMODE_GUEST_KERNEL, guest_name = false;
	struct bbmap_maps *kmaps = guest ? &s->guest_kmaps : &s->kmaps;
	const char *ref = bbmap_kernel__ref_symbol(filename, &guest_name);
	struct bbmap_map map = { .start = start, .end = end };

	if (ref) {
		/* the kernel image: pgoff is the run-time address of the reference symbol */
		const char *kname = guest_name ? "[guest.kernel.kallsyms]" : "[kernel.kallsyms]";

		map.dso = session__findnew_dso(s, kname, true, guest, 0, build_id, build_id_size);
		if (!map.dso)
			return -ENOMEM;
		if (!map.dso->ref_sym || map.dso->status == DSO_UNRESOLVED) {
			free(map.dso->ref_sym);
			map.dso->ref_sym = strdup(*ref ? ref : "_text");
			if (!map.dso->ref_sym)
				return -ENOMEM;
			map.dso->ref_addr = pgoff;
		}
		map.pgoff = start;	/* offsets are run-time addresses for the kernel */
		return bbmap_maps__insert(kmaps, &map, true);
	}
	map.dso = session__findnew_dso(s, filename, true, guest, 0, build_id, build_id_size);
	if (!map.dso)
		return -ENOMEM;
	map.pgoff = pgoff;
	return bbmap_maps__insert(kmaps, &map, false);
}

int bbmap_session__mmap(struct bbmap_session *s, int cpumode, uint32_t pid, uint32_t tid,
			uint64_t start, uint64_t len, uint64_t pgoff, const char *filename,
			const uint8_t *build_id, size_t build_id_size, bool exec)
{
	struct bbmap_map map = { .start = start, .pgoff = pgoff };
	char jitname[64];
	struct proc *p;

	cpumode &= 7;
	if (!filename)
		filename = "";
	if (len == 0)
		return 0;	/* zero-length maps (old perf under kptr_restrict) carry nothing */
	map.end = start + len < start ? UINT64_MAX : start + len;
	if (cpumode == CPUMODE_KERNEL || cpumode == CPUMODE_GUEST_KERNEL ||
	    (cpumode == CPUMODE_HYPERVISOR && (pid == KERNEL_PID || pid == 0)))
		return session__kernel_mmap(s, cpumode, map.start, map.end, pgoff, filename,
					    build_id, build_id_size);
	if (cpumode == CPUMODE_GUEST_USER) {
		s->stats.nr_guest_unsupported++;
		return 0;
	}
	if (!exec)
		return 0;	/* data maps play no part in code lookups */
	p = session__proc(s, pid, true);
	if (!p)
		return -ENOMEM;
	if (p->exited) {	/* a reused pid without FORK: start afresh */
		bbmap_maps__clear(&p->maps);
		p->exited = false;
	}
	if (name_is_anon_exec(filename)) {
		/* JIT code: perf names it after the process's /tmp/perf-PID.map */
		snprintf(jitname, sizeof(jitname), "/tmp/perf-%u.map", (unsigned)pid);
		filename = jitname;
		map.pgoff = start;	/* perf-map addresses are run-time addresses */
	}
	map.dso = session__findnew_dso(s, filename, false, false, pid, build_id, build_id_size);
	if (!map.dso)
		return -ENOMEM;
	return bbmap_maps__insert(&p->maps, &map, false);
}

int bbmap_session__fork(struct bbmap_session *s, uint32_t pid, uint32_t ppid, uint32_t tid,
			uint32_t ptid)
{
	struct proc *child, *parent;
	const char *pcomm = comm_timeline__now(&s->comms, ppid, ptid);

	if (!pcomm)
		pcomm = comm_timeline__now(&s->comms, ppid, ppid);
	/* a child keeps its parent's comm until it execs (perf's thread__set_comm on fork) */
	if (pcomm && !comm_timeline__now(&s->comms, pid, tid)) {
		int err = comm_timeline__set(&s->comms, pid, tid, pcomm);

		if (err)
			return err;
	}
	if (pid == ppid) {		/* a new thread shares its process's maps */
		child = session__proc(s, pid, true);
		return child ? 0 : -ENOMEM;
	}
	child = session__proc(s, pid, true);
	if (!child)
		return -ENOMEM;
	child->exited = false;
	parent = session__proc_of(s, ppid);
	if (!parent) {
		bbmap_maps__clear(&child->maps);
		return 0;
	}
	return bbmap_maps__copy(&child->maps, &parent->maps);
}

int bbmap_session__comm(struct bbmap_session *s, uint32_t pid, uint32_t tid, const char *comm,
			bool exec)
{
	int err = comm_timeline__set(&s->comms, pid, tid, comm);

	if (err)
		return err;
	if (exec) {
		/* exec replaces the image: the new program's mmaps follow */
		struct proc *p = session__proc(s, pid, true);

		if (!p)
			return -ENOMEM;
		bbmap_maps__clear(&p->maps);
		p->exited = false;
	}
	return 0;
}

int bbmap_session__exit(struct bbmap_session *s, uint32_t pid, uint32_t tid)
{
	struct proc *p;

	if (pid != tid)
		return 0;	/* a thread ended; the process lives on */
	p = session__proc_of(s, pid);
	if (p)
		p->exited = true;	/* maps kept for samples delivered late, like perf */
	return 0;
}

int bbmap_session__ksymbol(struct bbmap_session *s, uint64_t addr, uint32_t len,
			   const char *name, bool unregister)
{
	struct bbmap_map map = { .start = addr, .pgoff = addr };

	if (!len)
		return 0;
	map.end = addr + len < addr ? UINT64_MAX : addr + len;
	if (unregister)
		return bbmap_maps__remove(&s->kmaps, map.start, map.end);
	map.dso = session__findnew_dso(s, name && *name ? name : "[ksymbol]", true, false, 0,
				       NULL, 0);
	if (!map.dso)
		return -ENOMEM;
	map.dso->kind = DSO_KIND_KSYMBOL;
	map.dso->addr_mode = DSO_ADDR_RUNTIME;
	if (bbmap_names__add(&map.dso->names, addr, len, map.dso->name))
		return -ENOMEM;
	map.dso->names_loaded = true;
	return bbmap_maps__insert(&s->kmaps, &map, false);
}

int bbmap_session__lookup(struct bbmap_session *s, uint32_t pid, int cpumode, uint64_t addr,
			  struct bbmap_loc *loc)
{
	uint64_t lo, hi;

	return bbmap_session__lookup_range(s, pid, cpumode, addr, loc, &lo, &hi);
}

int bbmap_session__lookup_range(struct bbmap_session *s, uint32_t pid, int cpumode,
				uint64_t addr, struct bbmap_loc *loc, uint64_t *lo, uint64_t *hi)
{
	const struct bbmap_map *map = NULL;
	bool fallback = false;
	struct proc *p;

	memset(loc, 0, sizeof(*loc));
	s->stats.nr_lookups++;
	switch (cpumode & 7) {
	case CPUMODE_KERNEL:
	case CPUMODE_HYPERVISOR:
		map = bbmap_maps__find(&s->kmaps, addr);
		break;
	case CPUMODE_GUEST_KERNEL:
		map = bbmap_maps__find(&s->guest_kmaps, addr);
		break;
	case CPUMODE_GUEST_USER:
		s->stats.nr_guest_unsupported++;
		s->stats.nr_unmapped++;
		return -HBBP_ENOTFOUND;
	default:
		p = session__proc(s, pid, false);
		if (p)
			map = bbmap_maps__find(&p->maps, addr);
		if (!map && addr >= KERNEL_SPACE_START) {
			map = bbmap_maps__find(&s->kmaps, addr);
			s->stats.nr_kernel_fallback += map != NULL;
			fallback = true;
		}
		break;
	}
	if (!map) {
		s->stats.nr_unmapped++;
		return -HBBP_ENOTFOUND;
	}
	loc->dso = map->dso;
	loc->map_start = map->start;
	loc->map_end = map->end;
	loc->vaddr = bbmap_dso__map_vaddr_range(map->dso, map, addr, lo, hi);
	if (fallback) {		/* the process's maps were asked first: this address alone */
		*lo = addr;
		*hi = addr + 1;
	}
	return 0;
}

void bbmap_session__stats(const struct bbmap_session *s, struct bbmap_session_stats *st)
{
	*st = s->stats;
	st->nr_procs = s->procs.nr;
	st->nr_dsos = s->nr_dsos;
}

uint32_t bbmap_session__thread_key(const struct bbmap_session *s, uint32_t pid, uint32_t tid)
{
	return comm_timeline__key(&s->comms, pid, tid);
}

const char *bbmap_session__comm_of(const struct bbmap_session *s, uint32_t pid, uint32_t key,
				   uint32_t *tid)
{
	const char *c = comm_timeline__name(&s->comms, pid, key, tid);

	return c ? c : comm_timeline__now(&s->comms, pid, pid);
}

/* ---- /lib/modules index ---- */

static int modidx__add(struct bbmap_session *s, const char *path, const char *base)
{
	struct modindex_ent *e;

	if (s->nr_modidx >= MODIDX_MAX)
		return -HBBP_ELIMIT;
	if (grow_array((void **)&s->modidx, &s->cap_modidx, sizeof(*s->modidx), s->nr_modidx + 1,
		       MODIDX_MAX))
		return -ENOMEM;
	e = &s->modidx[s->nr_modidx];
	e->name = strdup(base);
	e->path = strdup(path);
	if (!e->name || !e->path) {
		free(e->name);
		free(e->path);
		return -ENOMEM;
	}
	bbmap_kernel__modname_normalise(e->name);
	s->nr_modidx++;
	return 0;
}

/* Walks dir (not following symlinked directories) collecting *.ko* files. */
static int modidx__walk(struct bbmap_session *s, const char *dir, int depth)
{
	struct dirent *de;
	DIR *d;
	int err = 0;

	if (depth > MODIDX_DEPTH)
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		char *path;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
			err = -ENOMEM;
			break;
		}
		if (!lstat(path, &st)) {
			if (S_ISDIR(st.st_mode))
				err = modidx__walk(s, path, depth + 1);
			else if (strstr(de->d_name, ".ko"))
				err = modidx__add(s, path, de->d_name);
		}
		free(path);
	}
	closedir(d);
	return err;
}

const char *bbmap_session__module_path(struct bbmap_session *s, const char *modname)
{
	char *want;
	const char *found = NULL;
	size_t i;

	if (!s->modidx_built) {
		char dir[4096];
		const char *rel = s->opts.osrelease;

		s->modidx_built = true;
		if (rel && *rel && !strchr(rel, '/')) {
			snprintf(dir, sizeof(dir), "%s/lib/modules/%s",
				 s->opts.symfs ? s->opts.symfs : "", rel);
			modidx__walk(s, dir, 0);
		}
	}
	want = strdup(modname);
	if (!want)
		return NULL;
	bbmap_kernel__modname_normalise(want);
	for (i = 0; i < s->nr_modidx && !found; i++)
		if (!strcmp(s->modidx[i].name, want))
			found = s->modidx[i].path;
	free(want);
	return found;
}

/* ---- what became of the --binary overrides ---- */

void bbmap_session__override_note(struct bbmap_session *s, size_t i, enum bbmap_override_use use,
				  const char *detail)
{
	if (!s->ovr || i >= s->opts.nr_binaries)
		return;
	/* USED wins over a caveat, a caveat over a refusal, anything over UNMATCHED */
	if ((int)use > s->ovr[i].use)
		s->ovr[i].use = (int)use;
	if (detail && !s->ovr[i].detail)
		s->ovr[i].detail = strdup(detail);	/* out of memory: no detail */
}

enum bbmap_override_use bbmap_session__override_use(const struct bbmap_session *s, size_t i,
						     const char **detail)
{
	if (detail)
		*detail = NULL;
	if (!s->ovr || i >= s->opts.nr_binaries)
		return BBMAP_OVR_UNMATCHED;
	if (detail)
		*detail = s->ovr[i].detail;
	return (enum bbmap_override_use)s->ovr[i].use;
}
