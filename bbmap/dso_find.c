/* Finding the binary of a user-space dso, in this order: a --binary NAME=PATH override,
 * the build-id cache (<dir>/.build-id/xx/rest -> the linked directory's elf/debug/vdso
 * or the linked regular file: perf buildid-cache and perf archive layouts), --symfs DIR +
 * recorded path, the recorded path itself, extra directories by basename. A file whose
 * build-id differs from the recording's is refused unless ignore_build_id; separate debug
 * info (.gnu_debuglink, /usr/lib/debug/.build-id) is left to bbmap_module__open. Knows
 * nothing of perf.data.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bbmap/session_priv.h"
#include "util/hbbp_err.h"

/* A name that leads somewhere: opening it says whether it is a file that may be read
 * (hbbp_open_file warns when it is not). */
static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static bool tail_zero(const uint8_t *id, size_t from, size_t size)
{
	for (; from < size; from++)
		if (id[from])
			return false;
	return true;
}

/* One link <dir>/.build-id/xx/rest for an id printed at size bytes. */
static char *cache_lookup(const char *dir, const uint8_t *id, size_t size, const char *member)
{
	char hex[2 * BBMAP_BUILD_ID_MAX + 1], *link = NULL, *file = NULL;
	uint8_t padded[BBMAP_BUILD_ID_MAX] = { 0 };

	memcpy(padded, id, size < BBMAP_BUILD_ID_MAX ? size : BBMAP_BUILD_ID_MAX);
	hbbp_build_id_hex(padded, size, hex);
	if (asprintf(&link, "%s/.build-id/%.2s/%s", dir, hex, hex + 2) < 0)
		return NULL;
	if (is_dir(link)) {
		if (asprintf(&file, "%s/%s", link, member) < 0 || !exists(file)) {
			free(file);
			file = NULL;
		}
		free(link);
		return file;
	}
	if (exists(link) && strcmp(member, "debug"))
		return link;	/* old caches link the file itself */
	free(link);
	return NULL;
}

char *bbmap_dso__cache_file(const struct bbmap_dso *d, const char *member)
{
	const char *dir = bbmap_session__opts(d->session)->buildid_dir;
	static const size_t sizes[] = { 20, 16, 8 };
	char *file;
	size_t i;

	if (!dir || !*dir || !d->build_id_size)
		return NULL;
	file = cache_lookup(dir, d->build_id, d->build_id_size, member);
	/* perf pads ids recorded without a size to 20 bytes: try the shorter and padded forms */
	for (i = 0; !file && i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (sizes[i] != d->build_id_size &&
		    tail_zero(d->build_id, sizes[i], d->build_id_size))
			file = cache_lookup(dir, d->build_id, sizes[i], member);
	return file;
}

int bbmap_dso__try_file(struct bbmap_dso *d, const char *path, const char *debug_path,
			const char *how)
{
	const struct bbmap_find_opts *o = bbmap_session__opts(d->session);
	char rec[2 * BBMAP_BUILD_ID_MAX + 1], got[2 * BBMAP_BUILD_ID_MAX + 1];
	struct bbmap_module *m = NULL;
	const uint8_t *fid = NULL;
	size_t fsz;
	int err;

	if (!exists(path))
		return -ENOENT;
	err = bbmap_module__open_flags(&m, path, debug_path,
				       (o->no_lines ? BBMAP_MODULE_NO_LINES : 0) |
				       (o->no_operands ? BBMAP_MODULE_NO_OPERANDS : 0) |
				       (o->lazy_insns ? BBMAP_MODULE_LAZY_INSNS : 0) |
				       (o->demangle == BBMAP_DEMANGLE_SHORT ? BBMAP_MODULE_DEMANGLE_SHORT :
					o->demangle == BBMAP_DEMANGLE_NONE ? BBMAP_MODULE_NO_DEMANGLE : 0));
	if (err) {
		if (d->status != DSO_BUILDID_MISMATCH) {
			d->status = DSO_BAD;
			bbmap_dso__set_detail(d, "%s: cannot read (%s): %s", path, how,
					      hbbp_strerror(err));
		}
		return err;
	}
	fsz = bbmap_module__build_id(m, &fid);
	if (d->build_id_size && fsz &&
	    !bbmap_build_id__equal(d->build_id, d->build_id_size, fid, fsz)) {
		hbbp_build_id_hex(d->build_id, d->build_id_size, rec);
		hbbp_build_id_hex(fid, fsz, got);
		if (!o->ignore_build_id) {
			d->status = DSO_BUILDID_MISMATCH;
			bbmap_dso__set_detail(d, "%s: build-id %s differs from the recording's %s "
					      "for %s (refused; --ignore-build-id accepts it)",
					      path, got, rec, d->name);
			bbmap_module__delete(m);
			return -HBBP_EBUILDID;
		}
		bbmap_dso__set_detail(d, "%s (%s): build-id %s differs from the recording's %s, "
				      "accepted (ignore build-id)", path, how, got, rec);
	} else if (d->build_id_size && !fsz) {
		bbmap_dso__set_detail(d, "%s (%s): file has no build-id, accepted by path",
				      path, how);
	} else {
		bbmap_dso__set_detail(d, "%s (%s)", path, how);
	}
	free(d->path);
	d->path = strdup(path);
	if (debug_path) {
		free(d->debug_path);
		d->debug_path = strdup(debug_path);
	}
	d->mod = m;
	d->status = DSO_OK;
	return 0;
}

/* The recorded name without perf's " (deleted)" suffix. */
static char *recorded_path(const struct bbmap_dso *d)
{
	static const char del[] = " (deleted)";
	char *p = strdup(d->name);
	size_t n;

	if (p && (n = strlen(p)) > sizeof(del) - 1 && !strcmp(p + n - (sizeof(del) - 1), del))
		p[n - (sizeof(del) - 1)] = '\0';
	return p;
}

static int try_joined(struct bbmap_dso *d, const char *dir, const char *name, const char *how)
{
	char *path;
	int err;

	if (asprintf(&path, "%s%s%s", dir, name[0] == '/' ? "" : "/", name) < 0)
		return -ENOMEM;
	err = bbmap_dso__try_file(d, path, NULL, how);
	free(path);
	return err;
}

static bool try_overrides(struct bbmap_dso *d)
{
	const struct bbmap_find_opts *o = bbmap_session__opts(d->session);
	size_t i;

	for (i = 0; i < o->nr_binaries; i++) {
		const struct bbmap_binary_override *b = &o->binaries[i];

		if (!b->name || !b->path)
			continue;
		if (strcmp(b->name, d->name) && strcmp(b->name, d->short_name))
			continue;
		if (!bbmap_dso__try_file(d, b->path, NULL, "--binary")) {
			bool unchecked = d->build_id_size && !bbmap_module__build_id(d->mod, NULL);

			bbmap_session__override_note(d->session, i, unchecked ? BBMAP_OVR_UNCHECKED :
						     BBMAP_OVR_USED, unchecked ? d->detail : NULL);
			return true;
		}
		bbmap_session__override_note(d->session, i, BBMAP_OVR_REFUSED, d->detail);
	}
	return false;
}

void bbmap_dso__find_user(struct bbmap_dso *d)
{
	const struct bbmap_find_opts *o = bbmap_session__opts(d->session);
	char hex[2 * BBMAP_BUILD_ID_MAX + 1] = "none";
	char *file, *dbg, *path;
	size_t i;

	if (try_overrides(d))
		return;
	file = bbmap_dso__cache_file(d, d->kind == DSO_KIND_VDSO ? "vdso" : "elf");
	if (file) {
		dbg = bbmap_dso__cache_file(d, "debug");
		i = bbmap_dso__try_file(d, file, dbg, "build-id cache");
		free(file);
		free(dbg);
		if (!i)
			return;
	}
	if (d->build_id_size)
		hbbp_build_id_hex(d->build_id, d->build_id_size, hex);
	if (d->kind == DSO_KIND_VDSO) {
		if (d->status == DSO_UNRESOLVED) {
			d->status = DSO_MISSING;
			bbmap_dso__set_detail(d, "%s: not in the build-id cache '%s' (build-id %s)",
					      d->name, o->buildid_dir, hex);
		}
		return;
	}
	path = recorded_path(d);
	if (!path)
		return;
	if (o->symfs && *o->symfs && !try_joined(d, o->symfs, path, "--symfs"))
		goto out;
	if (path[0] == '/' && !bbmap_dso__try_file(d, path, NULL, "recorded path"))
		goto out;
	for (i = 0; o->search_dirs && o->search_dirs[i]; i++)
		if (!try_joined(d, o->search_dirs[i], d->short_name, "search directory"))
			goto out;
	if (d->status == DSO_UNRESOLVED) {
		d->status = DSO_MISSING;
		bbmap_dso__set_detail(d, "%s: not found (build-id %s; build-id cache '%s'%s%s, "
				      "recorded path)", d->name, hex, o->buildid_dir,
				      o->symfs ? ", symfs " : "", o->symfs ? o->symfs : "");
	}
out:
	free(path);
}
