/* JIT code names from /tmp/perf-PID.map (lines "START SIZE name", hex, run-time
 * addresses), written by JIT runtimes for perf. These give names only (DSO_NO_CODE); the
 * ELF images of `perf inject --jit` (jitted-PID-N.so) are ordinary user dsos. Looked for
 * under --symfs first, then as recorded; the recorded one (in /tmp, which every user may
 * write) only when it and its name are owned by this user or root, as perf requires.
 * Knows nothing of perf.data.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bbmap/session_priv.h"
#include "util/hbbp_err.h"
#include "util/open_file.h"

#define PERFMAP_LINE_MAX 8192

int bbmap_names__load_perfmap(struct bbmap_names *t, const char *path, unsigned int flags)
{
	char line[PERFMAP_LINE_MAX];
	uint64_t nread = 0;
	int err = 0;
	FILE *f = hbbp_open_text(path, flags, &err);

	if (!f)
		return err;
	while (fgets(line, sizeof(line), f) && (nread += strlen(line)) <= HBBP_OPEN_TEXT_MAX) {
		unsigned long long start, size;
		char *p = line, *end, *name;
		size_t n;

		start = strtoull(p, &end, 16);
		if (end == p || (*end != ' ' && *end != '\t'))
			continue;
		p = end;
		size = strtoull(p, &end, 16);
		if (end == p || (*end != ' ' && *end != '\t'))
			continue;
		name = end + strspn(end, " \t");
		n = strcspn(name, "\r\n");
		name[n] = '\0';
		if (!n || !size || start + size < start)
			continue;
		err = bbmap_names__add(t, start, size, name);
		if (err)
			break;
	}
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	return err;
}

static bool perfmap__load(struct bbmap_dso *d, const char *path, unsigned int flags,
			  const char *how)
{
	int err = bbmap_names__load_perfmap(&d->names, path, flags);

	if (err) {
		bbmap_names__exit(&d->names);
		if (err != -ENOENT) {
			d->status = DSO_BAD;
			bbmap_dso__set_detail(d, "%s: cannot read (%s): %s", path, how,
					      hbbp_strerror(err));
		}
		return false;
	}
	d->names_loaded = true;
	d->status = DSO_NO_CODE;
	free(d->path);
	d->path = strdup(path);
	bbmap_dso__set_detail(d, "%s (%s): JIT names only, no code", path, how);
	return true;
}

void bbmap_dso__find_perfmap(struct bbmap_dso *d)
{
	const struct bbmap_find_opts *o = bbmap_session__opts(d->session);
	char *path;

	if (o->symfs && *o->symfs && asprintf(&path, "%s%s", o->symfs, d->name) >= 0) {
		bool ok = perfmap__load(d, path, 0, "--symfs");

		free(path);
		if (ok)
			return;
	}
	if (perfmap__load(d, d->name, HBBP_OPEN_OWNED, "recorded path"))
		return;
	if (d->status == DSO_UNRESOLVED) {
		d->status = DSO_MISSING;
		bbmap_dso__set_detail(d, "%s: JIT map file not found", d->name);
	}
}
