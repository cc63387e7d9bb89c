/* Kernel image and kernel modules: finding their code and names, and the KASLR slide.
 * Kernel order: --vmlinux, kcore_dir (kcore + kallsyms: the text that ran), build-id cache
 * (elf), the vmlinux path the recording names (under --symfs, then as is), vmlinux
 * candidates (perf's list, with the recording's osrelease; only when the recording has a
 * kernel build-id to check them against), then names only from --kallsyms,
 * kcore_dir/kallsyms, the cache's kallsyms or, last, this machine's /proc/kallsyms when the
 * recording was made here (DSO_NO_CODE). Modules: --binary, kcore, build-id cache, the
 * recorded path, /lib/modules/<osrelease>, then names only from the same kallsyms files.
 * Knows nothing of perf.data.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bbmap/session_priv.h"
#include "util/hbbp_err.h"
#include "util/open_file.h"

#define KALLSYMS_LINE_MAX 4096

/* This machine's kernel symbols, at the addresses of this boot */
static const char host_kallsyms[] = "/proc/kallsyms";

const char *bbmap_kernel__ref_symbol(const char *mmap_name, bool *is_guest)
{
	static const char host[] = "[kernel.kallsyms]", guest[] = "[guest.kernel.kallsyms";
	const char *end;

	*is_guest = false;
	if (!strncmp(mmap_name, host, sizeof(host) - 1))
		return mmap_name + sizeof(host) - 1;
	if (strncmp(mmap_name, guest, sizeof(guest) - 1))
		return NULL;
	end = strchr(mmap_name, ']');	/* "[guest.kernel.kallsyms.<pid>]_text" too */
	if (!end)
		return NULL;
	*is_guest = true;
	return end + 1;
}

int64_t bbmap_kernel__slide(uint64_t ref_addr, uint64_t sym_value)
{
	if (!ref_addr)
		return 0;	/* kptr_restrict hid the address: no relocation known */
	return (int64_t)(ref_addr - sym_value);
}

int bbmap_names__load_kallsyms(struct bbmap_names *t, const char *path, const char *module)
{
	char line[KALLSYMS_LINE_MAX], name[KALLSYMS_LINE_MAX], mod[KALLSYMS_LINE_MAX];
	uint64_t nread = 0;
	int err = 0;
	FILE *f = hbbp_open_text(path, 0, &err);

	if (!f)
		return err;
	/* /proc/kallsyms tells no size: what is read is bounded here */
	while (fgets(line, sizeof(line), f) && (nread += strlen(line)) <= HBBP_OPEN_TEXT_MAX) {
		unsigned long long addr;
		char type;
		int n;

		mod[0] = '\0';
		n = sscanf(line, "%llx %c %4095s [%4095[^]]]", &addr, &type, name, mod);
		if (n < 3 || !addr || !strchr("tTwW", type))
			continue;
		if (module) {
			bbmap_kernel__modname_normalise(mod);
			if (strcmp(mod, module))
				continue;
		}
		err = bbmap_names__add(t, addr, 0, name);
		if (err)
			break;
	}
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	return err;
}

void bbmap_kernel__modname_normalise(char *name)
{
	char *p = strstr(name, ".ko");

	if (p)
		*p = '\0';
	for (p = name; *p; p++)
		if (*p == '-')
			*p = '_';
}

/* Uses the opened vmlinux: the slide from the reference symbol. */
static void kernel__use_vmlinux(struct bbmap_dso *d)
{
	uint64_t val;

	d->addr_mode = DSO_ADDR_KERNEL;
	d->slide = 0;
	if (d->ref_addr && d->ref_sym &&
	    !bbmap_module__symbol_addr(d->mod, d->ref_sym, &val))
		d->slide = bbmap_kernel__slide(d->ref_addr, val);
}

static void kernel__load_names(struct bbmap_dso *d, const char *path, const char *how)
{
	bbmap_names__exit(&d->names);
	if (bbmap_session__load_kallsyms(d->session, &d->names, path, NULL) || !d->names.n) {
		bbmap_names__exit(&d->names);
		return;
	}
	d->names_loaded = true;
	if (d->status != DSO_OK) {
		d->status = DSO_NO_CODE;
		d->addr_mode = DSO_ADDR_RUNTIME;
		bbmap_dso__set_detail(d, "%s: names only from %s (%s), no code", d->name, path,
				      how);
	}
}

/* Whether the recording was made on this machine running this kernel (hostname and
 * release as uname tells them), with no kernel file given: /proc/kallsyms may name it. */
static bool kernel__recorded_here(const struct bbmap_find_opts *o)
{
	struct utsname u;

	return !o->vmlinux && !o->kallsyms && o->hostname && o->osrelease && !uname(&u) &&
	       !strcmp(u.nodename, o->hostname) && !strcmp(u.release, o->osrelease);
}

/* Names at run-time addresses of this boot fit the recording when its reference symbol
 * (_text) is where the recording saw it (0: hidden, nothing to compare); else the kernel
 * was booted again since, at another address (KASLR). */
static bool kernel__same_boot(const struct bbmap_dso *d, uint64_t *here)
{
	size_t i;

	for (i = 0; d->ref_addr && d->ref_sym && i < d->names.n; i++)
		if (!strcmp(d->names.v[i].name, d->ref_sym)) {
			*here = d->names.v[i].start;
			return *here == d->ref_addr;
		}
	return true;
}

/* The last resort: this machine's /proc/kallsyms, said in the run's notes. */
static void kernel__host_names(struct bbmap_dso *d)
{
	uint64_t here = 0;

	kernel__load_names(d, host_kallsyms, "this machine's: the recording was made here");
	if (!d->names_loaded)
		return;
	if (kernel__same_boot(d, &here)) {
		bbmap_session__count_host_kallsyms(d->session);
		return;
	}
	bbmap_names__exit(&d->names);
	d->names_loaded = false;
	d->status = DSO_MISSING;
	bbmap_dso__set_detail(d, "%s: %s has %s at %#" PRIx64 ", the recording at %#" PRIx64
			      " (booted again since)", d->name, host_kallsyms, d->ref_sym, here,
			      d->ref_addr);
}

static bool kernel__try_candidates(struct bbmap_dso *d, const struct bbmap_find_opts *o)
{
	/* perf's vmlinux_path: prefix, then the osrelease and a suffix when suffix is set */
	static const char *const cand[][2] = {
		{ "vmlinux", NULL }, { "/boot/vmlinux", NULL }, { "/boot/vmlinux-", "" },
		{ "/usr/lib/debug/boot/vmlinux-", "" }, { "/lib/modules/", "/build/vmlinux" },
		{ "/usr/lib/debug/lib/modules/", "/vmlinux" },
		{ "/usr/lib/debug/boot/vmlinux-", ".debug" },
	};
	const char *rel = o->osrelease;
	size_t i;

	if (!d->build_id_size)
		return false;	/* nothing to check a local file against */
	for (i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		char name[1024], *path;
		int ok;

		if (cand[i][1]) {
			if (!rel || !*rel || strchr(rel, '/'))
				continue;
			snprintf(name, sizeof(name), "%s%s%s", cand[i][0], rel, cand[i][1]);
		} else {
			snprintf(name, sizeof(name), "%s", cand[i][0]);
		}
		if (asprintf(&path, "%s%s", o->symfs ? o->symfs : "", name) < 0)
			return false;
		ok = !bbmap_dso__try_file(d, path, NULL, "vmlinux candidate");
		free(path);
		if (ok)
			return true;
	}
	return false;
}

void bbmap_dso__find_kernel(struct bbmap_dso *d)
{
	const struct bbmap_find_opts *o = bbmap_session__opts(d->session);
	char *file, *path = NULL;
	const char *rec;
	char hex[2 * BBMAP_BUILD_ID_MAX + 1] = "none";

	if (d->guest) {
		d->status = DSO_MISSING;
		bbmap_dso__set_detail(d, "%s: guest kernels are not supported", d->name);
		return;
	}
	if (o->vmlinux && !bbmap_dso__try_file(d, o->vmlinux, NULL, "--vmlinux")) {
		kernel__use_vmlinux(d);
		if (o->kallsyms)
			kernel__load_names(d, o->kallsyms, "--kallsyms");
		return;
	}
	if (o->kcore_dir && *o->kcore_dir) {
		if (asprintf(&path, "%s/kcore", o->kcore_dir) < 0)
			return;
		if (!bbmap_dso__try_file(d, path, NULL, "kcore_dir")) {
			d->addr_mode = DSO_ADDR_RUNTIME;	/* kcore p_vaddr are run-time */
			free(path);
			if (asprintf(&path, "%s/kallsyms", o->kcore_dir) >= 0)
				kernel__load_names(d, path, "kcore_dir");
			free(path);
			return;
		}
		free(path);
		path = NULL;
	}
	file = bbmap_dso__cache_file(d, "elf");
	if (file) {
		size_t n = strlen(file);

		if (n > 4 && !strcmp(file + n - 4, "/elf") &&
		    !bbmap_dso__try_file(d, file, NULL, "build-id cache")) {
			kernel__use_vmlinux(d);
			free(file);
			return;
		}
		free(file);
	}
	/* the vmlinux the recording named, under --symfs, then as is (checked by build-id) */
	if ((rec = bbmap_session__vmlinux_name(d->session)) && rec[0] == '/') {
		if (o->symfs && *o->symfs && asprintf(&path, "%s%s", o->symfs, rec) >= 0) {
			int err = bbmap_dso__try_file(d, path, NULL, "--symfs, recorded vmlinux");

			free(path);
			path = NULL;
			if (!err) {
				kernel__use_vmlinux(d);
				return;
			}
		}
		if (d->build_id_size &&
		    !bbmap_dso__try_file(d, rec, NULL, "recorded vmlinux path")) {
			kernel__use_vmlinux(d);
			return;
		}
	}
	if (kernel__try_candidates(d, o)) {
		kernel__use_vmlinux(d);
		return;
	}
	/* names only */
	if (o->kallsyms)
		kernel__load_names(d, o->kallsyms, "--kallsyms");
	if (!d->names_loaded && o->kcore_dir && *o->kcore_dir &&
	    asprintf(&path, "%s/kallsyms", o->kcore_dir) >= 0) {
		kernel__load_names(d, path, "kcore_dir");
		free(path);
	}
	if (!d->names_loaded && (file = bbmap_dso__cache_file(d, "kallsyms"))) {
		kernel__load_names(d, file, "build-id cache");
		free(file);
	}
	if (!d->names_loaded && kernel__recorded_here(o))
		kernel__host_names(d);
	if (d->status == DSO_OK || d->status == DSO_NO_CODE)
		return;
	if (d->build_id_size)
		hbbp_build_id_hex(d->build_id, d->build_id_size, hex);
	if (d->status == DSO_UNRESOLVED) {
		d->status = DSO_MISSING;
		bbmap_dso__set_detail(d, "%s: no vmlinux, kcore or kallsyms found (build-id %s)",
				      d->name, hex);
	}
	d->addr_mode = DSO_ADDR_RUNTIME;
}

/* Module name of a module map: "[xfs]" -> "xfs", "/lib/.../x-y.ko.xz" -> "x-y.ko.xz". */
static void kmodule__name(const struct bbmap_dso *d, char *buf, size_t size)
{
	const char *n = d->name;

	if (n[0] == '[') {
		snprintf(buf, size, "%.*s", (int)strcspn(n + 1, "]"), n + 1);
		return;
	}
	snprintf(buf, size, "%s", d->short_name);
}

/* Names only: the module's entries of --kallsyms, kcore_dir/kallsyms or, when the
 * recording was made here, /proc/kallsyms (run-time addresses). */
static bool kmodule__names(struct bbmap_dso *d, const struct bbmap_find_opts *o,
			   const char *mod)
{
	char want[256], *path = NULL;
	const char *src = o->kallsyms;

	snprintf(want, sizeof(want), "%s", mod);
	bbmap_kernel__modname_normalise(want);
	if (!src && o->kcore_dir && *o->kcore_dir) {
		if (asprintf(&path, "%s/kallsyms", o->kcore_dir) < 0)
			return false;
		src = path;
	}
	if (!src && kernel__recorded_here(o))
		src = host_kallsyms;
	if (!src || bbmap_session__load_kallsyms(d->session, &d->names, src, want) ||
	    !d->names.n) {
		bbmap_names__exit(&d->names);
		free(path);
		return false;
	}
	d->names_loaded = true;
	d->status = DSO_NO_CODE;
	d->addr_mode = DSO_ADDR_RUNTIME;
	bbmap_dso__set_detail(d, "%s: names only from %s, no code", d->name, src);
	if (src == host_kallsyms)
		bbmap_session__count_host_kallsyms(d->session);
	free(path);
	return true;
}

static bool is_compressed_ko(const char *name)
{
	size_t n = strlen(name);

	return (n > 6 && !strcmp(name + n - 6, ".ko.xz")) ||
	       (n > 6 && !strcmp(name + n - 6, ".ko.gz")) ||
	       (n > 7 && !strcmp(name + n - 7, ".ko.zst"));
}

void bbmap_dso__find_kmodule(struct bbmap_dso *d)
{
	const struct bbmap_find_opts *o = bbmap_session__opts(d->session);
	char mod[256], *file, *path;
	const char *found;
	size_t i;

	for (i = 0; i < o->nr_binaries; i++) {
		const struct bbmap_binary_override *b = &o->binaries[i];

		if (b->name && b->path && (!strcmp(b->name, d->name) ||
		    !strcmp(b->name, d->short_name)) &&
		    !bbmap_dso__try_file(d, b->path, NULL, "--binary"))
			return;
	}
	if (o->kcore_dir && *o->kcore_dir &&
	    asprintf(&path, "%s/kcore", o->kcore_dir) >= 0) {
		int err = bbmap_dso__try_file(d, path, NULL, "kcore_dir");

		free(path);
		if (!err) {
			d->addr_mode = DSO_ADDR_RUNTIME;
			return;
		}
	}
	file = bbmap_dso__cache_file(d, "elf");
	if (file) {
		int err = bbmap_dso__try_file(d, file, NULL, "build-id cache");

		free(file);
		if (!err)
			return;
	}
	if (d->name[0] == '/' && !is_compressed_ko(d->name)) {
		if (o->symfs && *o->symfs && asprintf(&path, "%s%s", o->symfs, d->name) >= 0) {
			int err = bbmap_dso__try_file(d, path, NULL, "--symfs");

			free(path);
			if (!err)
				return;
		}
		if (!bbmap_dso__try_file(d, d->name, NULL, "recorded path"))
			return;
	}
	kmodule__name(d, mod, sizeof(mod));
	found = bbmap_session__module_path(d->session, mod);
	if (found && !is_compressed_ko(found) &&
	    !bbmap_dso__try_file(d, found, NULL, "/lib/modules"))
		return;
	if (d->status == DSO_UNRESOLVED && kmodule__names(d, o, mod))
		return;
	if (d->status == DSO_UNRESOLVED) {
		d->status = DSO_MISSING;
		bbmap_dso__set_detail(d, "%s: kernel module not found (build-id cache, "
				      "/lib/modules/%s; compressed .ko files are not read)",
				      d->name, o->osrelease ? o->osrelease : "?");
	}
}
