/* Resolution against stock perf: for corpus recordings perf can read and whose binaries
 * are in the corpus, `perf script --show-mmap-events --show-task-events` (an independent
 * decoder) gives the mmap/comm/fork/exit records and the sample IPs in delivery order;
 * they are fed to a session, and every sample must resolve to the dso and symbol perf
 * reports. The recorded paths do not exist here, so both sides find the binaries through
 * a --symfs tree, then through a build-id cache directory made at test time (the
 * archived-run case). Skips when perf or the corpus is absent.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bbmap/session.h"
#include "tests/harness.h"
#include "util/hbbp_err.h"


#define KERNEL_SPACE 0x8000000000000000ull

struct bin {
	const char *file;	/* in the corpus */
	const char *recorded;	/* path in the recording */
};

struct rec_case {
	const char *recording;
	struct bin bins[2];
};

static const char HS[] = "/home/milian/projects/kdab/rnd/hotspot";

static const struct rec_case cases[] = {
	{ "autofdo/propeller_sample.perfdata", { { "autofdo/propeller_sample_old.bin",
	  "/google/src/cloud/shenhan/autofdo2-fig/google3/devtools/crosstool/autofdo/testdata/"
	  "propeller_sample.bin" } } },
	{ "autofdo/ro_sample.perf", { { "autofdo/libro_sample.so",
	  "/usr/local/google/home/shenhan/copt2/libro_sample.so" } } },
	{ "autofdo/test.lbr", { { "autofdo/test.binary", "/export/hda3/tmp/test.binary" } } },
	{ "hotspot/cpp-recursion__perf.data", { { "hotspot/cpp-recursion__a.out",
	  "@/tests/test-clients/cpp-recursion/a.out" } } },
	{ "perfparser/vector_static_gcc__perf.data", { {
	  "perfparser/vector_static_gcc__vector_static_gcc_v9.1.0",
	  "@/3rdparty/perfparser/tests/auto/perfdata/vector_static_gcc/vector_static_gcc_v9.1.0" } } },
	{ "perfparser/vector_static_clang__perf.data", { {
	  "perfparser/vector_static_clang__vector_static_clang_v8.0.1",
	  "/tmp/vector_static_clang_v8.0.1" } } },
	{ "perfparser/fork_static_gcc__perf.data.zstd", { { "perfparser/fork_static_gcc__fork",
	  "@/3rdparty/perfparser/tests/auto/perfdata/fork_static_gcc/fork" } } },
	{ "perfparser/parallel_static_gcc__perf.data.zstd", { {
	  "perfparser/parallel_static_gcc__parallel_static_gcc",
	  "@/3rdparty/perfparser/tests/manual/clients/parallel_static_gcc" } } },
};

static char tmp[256], corpus[512];

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static void recorded_path(const struct bin *b, char *buf, size_t size)
{
	if (b->recorded[0] == '@')
		snprintf(buf, size, "%s%s", HS, b->recorded + 1);
	else
		snprintf(buf, size, "%s", b->recorded);
}

static size_t parse_hex_id(const char *hex, uint8_t *id)
{
	size_t n = 0;

	while (n < 20 && isxdigit((unsigned char)hex[0]) && isxdigit((unsigned char)hex[1])) {
		unsigned v;

		sscanf(hex, "%2x", &v);
		id[n++] = (uint8_t)v;
		hex += 2;
	}
	return n;
}

/* Feeds the recording's BUILD_ID table as perf buildid-list prints it. */
static void feed_build_ids(struct bbmap_session *s, const char *rec)
{
	char cmd[1200], *line = NULL;
	size_t cap = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "perf buildid-list -i '%s/%s' 2>/dev/null", corpus, rec);
	p = popen(cmd, "r");
	if (!p)
		return;
	while (getline(&line, &cap, p) > 0) {
		uint8_t id[20];
		char *sp = strchr(line, ' ');
		size_t n = parse_hex_id(line, id);

		if (!sp || !n)
			continue;
		sp[strcspn(sp, "\n")] = '\0';
		sp++;
		bbmap_session__add_build_id(s, sp[0] == '[' && strcmp(sp, "[vdso]"), sp, id, n);
	}
	free(line);
	pclose(p);
}

static int misc_cpumode(const char *misc)
{
	if (strchr(misc, 'K'))
		return 1;
	if (strchr(misc, 'U'))
		return 2;
	if (strchr(misc, 'H'))
		return 3;
	if (strchr(misc, 'G'))
		return 4;
	if (strchr(misc, 'g'))
		return 5;
	return 0;
}

struct stats {
	unsigned samples, dso_ok, sym_checked, sym_ok, fallback, mismatches;
	unsigned nm, objdump, eh_frame;
	unsigned events;
};

static void feed_event(struct bbmap_session *s, const char *ev, int cpumode, struct stats *st)
{
	uint64_t start, len, pgoff;
	int pid, tid, ppid, ptid;
	const char *p;

	st->events++;
	if (!strncmp(ev, "PERF_RECORD_MMAP", 16)) {
		bool mmap2 = ev[16] == '2';
		uint8_t id[20];
		size_t idn = 0;
		const char *lt;
		bool exec;

		p = ev + (mmap2 ? 17 : 16);
		if (sscanf(p, " %d/%d: [%" SCNx64 "(%" SCNx64 ") @ %" SCNx64, &pid, &tid, &start,
			   &len, &pgoff) != 5)
			return;
		lt = strchr(p, '<');
		p = strstr(p, "]: ");
		if (!p)
			return;
		if (lt && lt < p)
			idn = parse_hex_id(lt + 1, id);
		p += 3;
		if (mmap2) {
			exec = p[2] == 'x';
			p += 5;
		} else {
			exec = p[0] == 'x';
			p += 2;
		}
		bbmap_session__mmap(s, cpumode, (uint32_t)pid, (uint32_t)tid, start, len, pgoff, p,
				    idn ? id : NULL, idn, exec);
	} else if (!strncmp(ev, "PERF_RECORD_COMM", 16)) {
		bool exec = !strncmp(ev + 16, " exec", 5);
		const char *c = strchr(ev, ':') + 2;
		const char *colon = strrchr(c, ':');
		char comm[64];

		if (!colon || sscanf(colon + 1, "%d/%d", &pid, &tid) != 2)
			return;
		snprintf(comm, sizeof(comm), "%.*s", (int)(colon - c), c);
		bbmap_session__comm(s, (uint32_t)pid, (uint32_t)tid, comm, exec);
	} else if (sscanf(ev, "PERF_RECORD_FORK(%d:%d):(%d:%d)", &pid, &tid, &ppid, &ptid) == 4) {
		bbmap_session__fork(s, (uint32_t)pid, (uint32_t)ppid, (uint32_t)tid,
				    (uint32_t)ptid);
	} else if (sscanf(ev, "PERF_RECORD_EXIT(%d:%d):(%d:%d)", &pid, &tid, &ppid, &ptid) == 4) {
		bbmap_session__exit(s, (uint32_t)pid, (uint32_t)tid);
	}
}

/* `nm -S` of one file, cached for the last file asked */
struct nm_sym {
	uint64_t start, size;
	char *name;
};
static struct {
	char *path;
	struct nm_sym *v;
	size_t n;
} nm_cache;

static int nm_cmp(const void *a, const void *b)
{
	const struct nm_sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void nm_load(const char *path)
{
	char cmd[2048], *line = NULL, name[1024];
	size_t cap = 0, i;
	FILE *p;

	if (nm_cache.path && !strcmp(nm_cache.path, path))
		return;
	for (i = 0; i < nm_cache.n; i++)
		free(nm_cache.v[i].name);
	free(nm_cache.v);
	free(nm_cache.path);
	memset(&nm_cache, 0, sizeof(nm_cache));
	nm_cache.path = strdup(path);
	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return;
	while (getline(&line, &cap, p) > 0) {
		uint64_t a, sz = 0;
		char t;

		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %1023s", &a, &sz, &t, name) != 4) {
			sz = 0;
			if (sscanf(line, "%" SCNx64 " %c %1023s", &a, &t, name) != 3)
				continue;
		}
		if (!strchr("tTwWiI", t))
			continue;
		nm_cache.v = realloc(nm_cache.v, (nm_cache.n + 1) * sizeof(*nm_cache.v));
		nm_cache.v[nm_cache.n].start = a;
		nm_cache.v[nm_cache.n].size = sz;
		nm_cache.v[nm_cache.n].name = strdup(name);
		nm_cache.n++;
	}
	free(line);
	pclose(p);
	if (nm_cache.n)
		qsort(nm_cache.v, nm_cache.n, sizeof(*nm_cache.v), nm_cmp);
}

/* nm's symbol sym covers vaddr: [start, start+size), or up to the next symbol when size 0 */
static bool nm_covers(const char *path, const char *sym, uint64_t vaddr)
{
	size_t i, j;

	nm_load(path);
	for (i = 0; i < nm_cache.n; i++) {
		const struct nm_sym *e = &nm_cache.v[i];

		if (strcmp(e->name, sym) || e->start > vaddr)
			continue;
		if (e->size) {
			if (vaddr - e->start < e->size)
				return true;
			continue;
		}
		for (j = i + 1; j < nm_cache.n && nm_cache.v[j].start <= e->start; j++)
			;
		if (j == nm_cache.n || vaddr < nm_cache.v[j].start)
			return true;
	}
	return false;
}

/* objdump -d labels the instruction at vaddr <sym> or <sym+0x..> */
static bool objdump_label_is(const char *file, uint64_t vaddr, const char *sym)
{
	char cmd[2048], *line = NULL, want1[600], want2[600];
	size_t cap = 0;
	bool found = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d --start-address=%#" PRIx64 " --stop-address=%#"
		 PRIx64 " '%s' 2>/dev/null", vaddr, vaddr + 1, file);
	snprintf(want1, sizeof(want1), "<%s>:", sym);
	snprintf(want2, sizeof(want2), "<%s+0x", sym);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (getline(&line, &cap, p) > 0)
		if (strstr(line, want1) || strstr(line, want2))
			found = true;
	free(line);
	pclose(p);
	return found;
}

static void check_sample(struct bbmap_session *s, uint32_t pid, int cpumode, uint64_t ip,
			 const char *psym, const char *pdso, struct stats *st)
{
	struct bbmap_module *m = NULL;
	struct bbmap_loc loc;
	const char *ours;
	int err = bbmap_session__lookup(s, pid, cpumode, ip, &loc);

	st->samples++;
	if (!strcmp(pdso, "[unknown]")) {
		if (err) {
			st->dso_ok++;
		} else if (cpumode == 2 && ip >= KERNEL_SPACE) {
			st->fallback++;	/* ours tries the kernel maps; perf does not */
		} else {
			st->mismatches++;
			fprintf(stderr, "  %" PRIx64 ": perf [unknown], ours %s\n", ip,
				bbmap_dso__name(loc.dso));
		}
		return;
	}
	if (err || strcmp(bbmap_dso__name(loc.dso), pdso)) {
		st->mismatches++;
		fprintf(stderr, "  pid %u %" PRIx64 ": perf dso %s, ours %s\n", pid, ip, pdso,
			err ? "(none)" : bbmap_dso__name(loc.dso));
		return;
	}
	st->dso_ok++;
	if (bbmap_dso__kind(loc.dso) == DSO_KIND_KERNEL ||
	    bbmap_dso__kind(loc.dso) == DSO_KIND_KMODULE)
		return;		/* perf may name kernel code from this machine's kallsyms */
	ours = NULL;
	if (bbmap_dso__module(loc.dso, &m) == DSO_OK) {
		const struct bbmap_symbol *sym = bbmap_module__symbol_at(m, loc.vaddr);

		ours = sym ? sym->name : NULL;
	}
	st->sym_checked++;
	if (!strcmp(psym, "[unknown]") ? ours == NULL : (ours && !strcmp(ours, psym))) {
		st->sym_ok++;
		return;
	}
	if (!strcmp(psym, "[unknown]")) {
		/* perf does not use .eh_frame ranges in stripped code */
		const struct bbmap_symbol *sym = bbmap_module__symbol_at(m, loc.vaddr);

		if (sym && sym->from_eh_frame) {
			st->eh_frame++;
			st->sym_ok++;
			return;
		}
	} else if (bbmap_dso__path(loc.dso)) {
		/* names differ (aliases, demangling, symbol sizes): the vaddr is right when
		 * nm's range of perf's symbol covers it, or objdump labels it so (name@plt) */
		if (nm_covers(bbmap_dso__path(loc.dso), psym, loc.vaddr)) {
			st->nm++;
			st->sym_ok++;
			return;
		}
		if (objdump_label_is(bbmap_dso__path(loc.dso), loc.vaddr, psym)) {
			st->objdump++;
			st->sym_ok++;
			return;
		}
	}
	st->mismatches++;
	fprintf(stderr, "  %" PRIx64 " in %s (vaddr %#" PRIx64 ", %s): perf %s, ours %s\n", ip,
		pdso, loc.vaddr, bbmap_dso_status_name(bbmap_dso__module(loc.dso, NULL)), psym,
		ours ? ours : "(none)");
}

/* Replays one perf script run into a session; returns false when perf could not read. */
static bool replay(const char *rec, const char *perf_opts, struct bbmap_session *s,
		   struct stats *st)
{
	char cmd[2048], *line = NULL;
	size_t cap = 0;
	FILE *p;
	int rc;

	snprintf(cmd, sizeof(cmd), "PERF_BUILDID_DIR='%s/empty' perf %s -G -i '%s/%s' "
		 "--show-mmap-events --show-task-events -F pid,tid,ip,misc,sym,dso --no-demangle "
		 "2>/dev/null", tmp, perf_opts, corpus, rec);
	p = popen(cmd, "r");
	if (!p)
		return false;
	while (getline(&line, &cap, p) > 0) {
		char misc[16] = "", *q, *ev, *open, *end;
		int pid, tid, n = 0;
		uint64_t ip;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, " %d/%d%n", &pid, &tid, &n) != 2)
			continue;
		q = line + n;
		ev = strstr(q, "PERF_RECORD_");
		/* misc letters, if any, come before the event or the ip */
		q += strspn(q, " ");
		if (strspn(q, "KUHGgMExSp") && q[strspn(q, "KUHGgMExSp")] == ' ' &&
		    (ev || !isxdigit((unsigned char)q[0]) || strchr("KUHGgMxSp", q[0]))) {
			size_t k = strspn(q, "KUHGgMExSp");

			snprintf(misc, sizeof(misc), "%.*s", (int)k, q);
			q += k;
		}
		if (ev) {
			feed_event(s, ev, misc_cpumode(misc), st);
			continue;
		}
		ip = strtoull(q, &end, 16);
		if (end == q)
			continue;
		open = strrchr(end, '(');
		if (!open || line[strlen(line) - 1] != ')')
			continue;
		line[strlen(line) - 1] = '\0';
		end += strspn(end, " ");
		if (open > end && open[-1] == ' ')
			open[-1] = '\0';
		check_sample(s, (uint32_t)pid, misc_cpumode(misc), ip, end, open + 1, st);
	}
	free(line);
	rc = pclose(p);
	return rc == 0 && st->samples > 0;
}

static void run_case(const struct rec_case *c, bool use_cache)
{
	char symfs[512], cache[512], path[1024], opts[1200] = "";
	struct bbmap_find_opts o = { 0 };
	struct bbmap_session *s = NULL;
	struct stats st = { 0 };
	size_t i;

	snprintf(symfs, sizeof(symfs), "%s/symfs", tmp);
	snprintf(cache, sizeof(cache), "%s/cache", tmp);
	for (i = 0; i < 2 && c->bins[i].file; i++) {
		char id[64] = "";
		FILE *p;

		recorded_path(&c->bins[i], path, sizeof(path));
		sh("mkdir -p \"$(dirname '%s%s')\" && ln -sf '%s/%s' '%s%s'", symfs, path, corpus,
		   c->bins[i].file, symfs, path);
		snprintf(opts, sizeof(opts), "readelf -n '%s/%s' 2>/dev/null | "
			 "sed -n 's/.*Build ID: *//p'", corpus, c->bins[i].file);
		p = popen(opts, "r");
		if (p) {
			if (!fgets(id, sizeof(id), p))
				id[0] = '\0';
			pclose(p);
		}
		id[strcspn(id, "\n")] = '\0';
		if (strlen(id) > 2)	/* perf buildid-cache layout */
			sh("mkdir -p '%s/.build-id/%.2s' '%s%s/%s' && ln -sf '%s/%s' '%s%s/%s/elf' && "
			   "ln -sfn '../..%s/%s' '%s/.build-id/%.2s/%s'", cache, id, cache, path, id,
			   corpus, c->bins[i].file, cache, path, id, path, id, cache, id, id + 2);
		/* perf without build-id sizes names short ids padded to 40 digits */
		if (strlen(id) > 2 && strlen(id) < 40)
			sh("ln -sfn '../..%s/%s' '%s/.build-id/%.2s/%s%0*d'", path, id, cache, id,
			   id + 2, (int)(40 - strlen(id)), 0);
	}
	if (use_cache) {
		/* a global perf option: goes before the command */
		snprintf(opts, sizeof(opts), "--buildid-dir '%s' script", cache);
		o.buildid_dir = cache;
	} else {
		snprintf(opts, sizeof(opts), "script --symfs '%s'", symfs);
		snprintf(path, sizeof(path), "%s/empty", tmp);
		o.buildid_dir = path;
		o.symfs = symfs;
	}
	CHECK(bbmap_session__new(&s, &o) == 0);
	feed_build_ids(s, c->recording);
	if (!replay(c->recording, opts, s, &st)) {
		printf("SKIP %s (%s): perf cannot read it here\n", c->recording,
		       use_cache ? "build-id cache" : "symfs");
		bbmap_session__delete(s);
		return;
	}
	fprintf(stderr, "%s (%s): %u samples, %u events, dso agree %u, symbols checked %u "
		"agree %u (names differ but nm ranges agree %u, objdump labels %u, .eh_frame ranges "
		"perf lacks %u), user-mode kernel-address fallbacks %u, mismatches %u\n",
		c->recording, use_cache ? "build-id cache" : "symfs", st.samples, st.events,
		st.dso_ok, st.sym_checked, st.sym_ok, st.nm, st.objdump, st.eh_frame, st.fallback,
		st.mismatches);
	CHECK_EQ_U64(st.mismatches, 0);
	CHECK(st.dso_ok + st.fallback == st.samples);
	CHECK(st.sym_checked > 0);
	printf("%s %s (%s): %u samples, %u symbols agree with perf\n",
	       st.mismatches ? "FAIL" : "PASS", c->recording,
	       use_cache ? "build-id cache" : "symfs", st.samples, st.sym_ok);
	bbmap_session__delete(s);
}

int main(void)
{
	const char *t = getenv("TMPDIR"), *c = getenv("HBBP_CORPUS");
	char *abs = realpath(c && *c ? c : "../shared/perfdata", NULL);
	size_t i;

	if (!abs || sh("command -v perf >/dev/null 2>&1")) {
		printf("SKIP test_session_perf: %s\n", abs ? "perf not installed" : "corpus absent");
		free(abs);
		return 0;
	}
	snprintf(corpus, sizeof(corpus), "%s", abs);
	free(abs);
	snprintf(tmp, sizeof(tmp), "%s/hbbp-sperf.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	sh("mkdir -p '%s/empty'", tmp);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int before = th_failed_checks;

		run_case(&cases[i], false);
		run_case(&cases[i], true);
		if (th_failed_checks != before)
			th_failed_tests++;
	}
	sh("rm -rf '%s'", tmp);
	nm_load("");
	free(nm_cache.path);
	return TEST_EXIT();
}
