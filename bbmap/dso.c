/* The dso object: one per (recorded filename, build-id). Its kind from the recorded name,
 * lazy resolution of its binary (dispatching to dso_find.c, kernel.c, perfmap.c), the
 * run-time address -> module vaddr conversion, and the name tables of dsos without code.
 * Knows nothing of perf.data.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/session_priv.h"
#include "util/hbbp_err.h"
#include "util/grow.h"
#include "util/bsearch.h"

#define NAMES_MAX (1u << 24)

const char *bbmap_dso_status_name(enum bbmap_dso_status st)
{
	switch (st) {
	case DSO_UNRESOLVED: return "unresolved";
	case DSO_OK: return "ok";
	case DSO_MISSING: return "missing";
	case DSO_BUILDID_MISMATCH: return "build-id mismatch";
	case DSO_NO_CODE: return "no code";
	case DSO_BAD: return "unreadable";
	}
	return "?";
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

enum bbmap_dso_kind bbmap_dso__classify(const char *name, bool kernel_side)
{
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	if (kernel_side) {
		if (hbbp_starts(name, "[kernel.kallsyms]") ||
		    hbbp_starts(name, "[guest.kernel.kallsyms"))
			return DSO_KIND_KERNEL;
		return DSO_KIND_KMODULE;
	}
	if (!strcmp(name, "[vdso]") || !strcmp(name, "[vdso32]") || !strcmp(name, "[vdsox32]"))
		return DSO_KIND_VDSO;
	if ((hbbp_starts(name, "/tmp/perf-") && ends_with(name, ".map")) ||
	    (hbbp_starts(base, "jitted-") && ends_with(base, ".so")))
		return DSO_KIND_JIT;
	if (name[0] == '[' || hbbp_starts(name, "//anon") || hbbp_starts(name, "/memfd:") ||
	    hbbp_starts(name, "/SYSV") || hbbp_starts(name, "/dev/zero") ||
	    hbbp_starts(name, "/anon_hugepage") || hbbp_starts(name, "/dev/") || !name[0])
		return DSO_KIND_ANON;
	return DSO_KIND_USER;
}

struct bbmap_dso *bbmap_dso__new(struct bbmap_session *s, const char *name, bool kernel_side,
				 bool guest, const uint8_t *id, size_t id_size)
{
	struct bbmap_dso *d = calloc(1, sizeof(*d));
	const char *slash;

	if (!d)
		return NULL;
	d->session = s;
	d->name = strdup(name);
	if (!d->name) {
		free(d);
		return NULL;
	}
	slash = strrchr(d->name, '/');
	d->short_name = slash && slash[1] ? slash + 1 : d->name;
	d->kernel_side = kernel_side;
	d->guest = guest;
	d->kind = bbmap_dso__classify(name, kernel_side);
	d->status = DSO_UNRESOLVED;
	d->addr_mode = DSO_ADDR_FILE;
	if (d->kind == DSO_KIND_KERNEL)
		d->addr_mode = DSO_ADDR_RUNTIME;
	if (d->kind == DSO_KIND_JIT && hbbp_starts(name, "/tmp/perf-"))
		d->addr_mode = DSO_ADDR_RUNTIME;
	if (id && id_size) {
		d->build_id_size = id_size > BBMAP_BUILD_ID_MAX ? BBMAP_BUILD_ID_MAX : id_size;
		memcpy(d->build_id, id, d->build_id_size);
	}
	return d;
}

void bbmap_dso__delete(struct bbmap_dso *d)
{
	if (!d)
		return;
	bbmap_module__delete(d->mod);
	bbmap_names__exit(&d->names);
	free(d->name);
	free(d->path);
	free(d->debug_path);
	free(d->detail);
	free(d->ref_sym);
	free(d);
}

void bbmap_dso__set_detail(struct bbmap_dso *d, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	free(d->detail);
	d->detail = msg;
}

const char *bbmap_dso__name(const struct bbmap_dso *d) { return d->name; }
const char *bbmap_dso__short_name(const struct bbmap_dso *d) { return d->short_name; }
enum bbmap_dso_kind bbmap_dso__kind(const struct bbmap_dso *d) { return d->kind; }
const char *bbmap_dso__path(const struct bbmap_dso *d) { return d->path; }
const char *bbmap_dso__status_detail(const struct bbmap_dso *d) { return d->detail; }

static void dso__resolve(struct bbmap_dso *d)
{
	switch (d->kind) {
	case DSO_KIND_KERNEL:
		bbmap_dso__find_kernel(d);
		break;
	case DSO_KIND_KMODULE:
		bbmap_dso__find_kmodule(d);
		break;
	case DSO_KIND_JIT:
		if (d->addr_mode == DSO_ADDR_RUNTIME)
			bbmap_dso__find_perfmap(d);
		else
			bbmap_dso__find_user(d);
		break;
	case DSO_KIND_KSYMBOL:
		d->status = DSO_NO_CODE;
		bbmap_dso__set_detail(d, "kernel symbol (BPF or out-of-line code): name only");
		break;
	case DSO_KIND_ANON:
		d->status = DSO_MISSING;
		bbmap_dso__set_detail(d, "%s: anonymous or special mapping, no file", d->name);
		break;
	case DSO_KIND_USER:
	case DSO_KIND_VDSO:
		bbmap_dso__find_user(d);
		break;
	}
	if (d->status == DSO_UNRESOLVED)
		d->status = DSO_MISSING;
	if (d->status != DSO_OK) {
		bbmap_module__delete(d->mod);
		d->mod = NULL;
	}
}

enum bbmap_dso_status bbmap_dso__module(struct bbmap_dso *d, struct bbmap_module **m)
{
	if (d->status == DSO_UNRESOLVED)
		dso__resolve(d);
	if (m)
		*m = d->status == DSO_OK ? d->mod : NULL;
	return d->status;
}

uint64_t bbmap_dso__map_vaddr_range(struct bbmap_dso *d, const struct bbmap_map *map,
				    uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	uint64_t off = addr - map->start + map->pgoff, vaddr, olo, ohi;

	*lo = map->start;
	*hi = map->end;
	bbmap_dso__module(d, NULL);
	switch (d->addr_mode) {
	case DSO_ADDR_RUNTIME:
		return addr;
	case DSO_ADDR_KERNEL:
		return addr - (uint64_t)d->slide;
	case DSO_ADDR_FILE:
		break;
	}
	if (d->status != DSO_OK)
		return off;	/* the file offset, over the whole map */
	if (bbmap_module__offset_range(d->mod, off, &vaddr, &olo, &ohi)) {
		*lo = addr;	/* in no segment: this address alone */
		*hi = addr + 1;
		return off;
	}
	/* olo <= off < ohi, and map->pgoff <= off: the map's part of [olo, ohi) */
	if (olo > map->pgoff)
		*lo = map->start + (olo - map->pgoff);
	if (ohi - map->pgoff < map->end - map->start)
		*hi = map->start + (ohi - map->pgoff);
	return vaddr;
}

const char *bbmap_dso__symbol_name(struct bbmap_dso *d, uint64_t vaddr, uint64_t *sym_start)
{
	const struct bbmap_namesym *ns;

	bbmap_dso__module(d, NULL);
	ns = bbmap_names__find(&d->names, vaddr);
	if (!ns)
		return NULL;
	if (sym_start)
		*sym_start = ns->start;
	return ns->name;
}

/* ---- build-ids ---- */

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

bool bbmap_build_id__equal(const uint8_t *a, size_t asz, const uint8_t *b, size_t bsz)
{
	size_t n = asz < bsz ? asz : bsz;

	if (!n || memcmp(a, b, n))
		return false;
	return asz > n ? all_zero(a + n, asz - n) : all_zero(b + n, bsz - n);
}

/* ---- name tables ---- */

int bbmap_names__add(struct bbmap_names *t, uint64_t start, uint64_t size, const char *name)
{
	if (t->n >= NAMES_MAX)
		return -HBBP_ELIMIT;
	if (grow_array((void **)&t->v, &t->cap, sizeof(*t->v), t->n + 1, NAMES_MAX))
		return -ENOMEM;
	t->v[t->n].name = strdup(name);
	if (!t->v[t->n].name)
		return -ENOMEM;
	t->v[t->n].start = start;
	t->v[t->n].size = size;
	t->n++;
	t->sorted = false;
	return 0;
}

static int namesym_cmp(const void *a, const void *b)
{
	const struct bbmap_namesym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* sized entries before unsized ones at the same address */
	return (y->size != 0) - (x->size != 0);
}

const struct bbmap_namesym *bbmap_names__find(struct bbmap_names *t, uint64_t addr)
{
	const struct bbmap_namesym *e;
	size_t lo;

	if (!t->n)
		return NULL;
	if (!t->sorted) {
		qsort(t->v, t->n, sizeof(*t->v), namesym_cmp);
		t->sorted = true;
	}
	lo = bsearch_count(t->n, mid, t->v[mid].start <= addr);	/* after the last <= addr */
	if (!lo)
		return NULL;
	e = &t->v[lo - 1];
	/* step back over same-address duplicates to the first (sized) one */
	while (e > t->v && e[-1].start == e->start)
		e--;
	if (e->size)
		return addr - e->start < e->size ? e : NULL;
	return e;	/* unsized: runs to the next symbol */
}

void bbmap_names__exit(struct bbmap_names *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
