/* Finding binaries for archived runs: the recorded paths do not exist here, so binaries
 * from the corpus are placed at test time in a build-id cache (perf buildid-cache and old
 * regular-file layouts), a --symfs tree, --binary overrides, search directories and a
 * /lib/modules tree. Checks refusal of a wrong build-id (and --ignore-build-id), stripped,
 * corrupt and missing binaries, the vDSO, and a small vmlinux / kcore built here with
 * as/ld for the KASLR slide. Load-bias and slide values are computed by hand from
 * `readelf -l` of the corpus files and the link addresses used below.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bbmap/session.h"
#include "tests/harness.h"
#include "util/hbbp_err.h"


#define U 2
#define K 1

static char tmp[256];
static char corpus[512];

/* recorded paths and build-ids of corpus binaries (readelf -n; perf buildid-list) */
static const char PROP_PATH[] = "/google/src/cloud/shenhan/autofdo2-fig/google3/devtools/"
				"crosstool/autofdo/testdata/propeller_sample.bin";
static const uint8_t PROP_ID[20] = { 0x04, 0xe6, 0xda, 0x50, 0xa6, 0x3d, 0x4b, 0x85, 0x9b,
	0x0b, 0xe7, 0xe2, 0x35, 0x93, 0x7c, 0xd5, 0xa7, 0x99, 0x6e, 0xcf };
static const char RO_PATH[] = "/usr/local/google/home/shenhan/copt2/libro_sample.so";
/* 8-byte id as perf 5.6 stored it: padded to 20 without a size */
static const uint8_t RO_ID[20] = { 0x9c, 0x9f, 0x8f, 0xbd, 0x0f, 0x96, 0x56, 0x18 };
static const char TB_PATH[] = "/export/hda3/tmp/test.binary";

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static bool have(const char *name)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", corpus, name);
	return access(p, R_OK) == 0;
}

static struct bbmap_session *session_with(const char *buildid_dir, const char *symfs,
					  bool ignore)
{
	struct bbmap_find_opts o = { .buildid_dir = buildid_dir, .symfs = symfs,
				     .ignore_build_id = ignore };
	struct bbmap_session *s = NULL;

	CHECK(bbmap_session__new(&s, &o) == 0);
	return s;
}

static struct bbmap_dso *lookup(struct bbmap_session *s, uint32_t pid, int mode,
				uint64_t addr, uint64_t *vaddr)
{
	struct bbmap_loc loc;

	if (bbmap_session__lookup(s, pid, mode, addr, &loc))
		return NULL;
	*vaddr = loc.vaddr;
	return loc.dso;
}

static const char *sym_at(struct bbmap_dso *d, uint64_t vaddr)
{
	struct bbmap_module *m = NULL;
	const struct bbmap_symbol *sym;

	if (bbmap_dso__module(d, &m) != DSO_OK || !m)
		return NULL;
	sym = bbmap_module__symbol_at(m, vaddr);
	return sym ? sym->name : NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, m = strlen(suffix);

	return s && n >= m && !strcmp(s + n - m, suffix);
}

/* perf buildid-cache layout: .build-id/xx/rest -> ../../<path>/<id> holding elf */
static void make_cache(const char *dir, const char *path, const char *hex, const char *file,
		       const char *member)
{
	CHECK(!sh("mkdir -p '%s/.build-id/%.2s' '%s%s/%s' && ln -sf '%s' '%s%s/%s/%s' && "
		  "ln -sfn '../..%s/%s' '%s/.build-id/%.2s/%s'",
		  dir, hex, dir, path, hex, file, dir, path, hex, member, path, hex, dir, hex,
		  hex + 2));
}

static void test_buildid_cache(void)
{
	char dir[512], file[1024];
	struct bbmap_session *s;
	struct bbmap_dso *d;
	uint64_t v = 0;

	snprintf(dir, sizeof(dir), "%s/cache", tmp);
	snprintf(file, sizeof(file), "%s/autofdo/propeller_sample_old.bin", corpus);
	make_cache(dir, PROP_PATH, "04e6da50a63d4b859b0be7e235937cd5a7996ecf", file, "elf");
	s = session_with(dir, NULL, false);
	CHECK(!bbmap_session__add_build_id(s, false, PROP_PATH, PROP_ID, 20));
	/* MMAP2 as recorded: [0x557f79215000(0x1000) @ 0x1000] r-xp */
	CHECK(!bbmap_session__mmap(s, U, 765267, 765267, 0x557f79215000, 0x1000, 0x1000,
				   PROP_PATH, NULL, 0, true));
	d = lookup(s, 765267, U, 0x557f79215123, &v);
	CHECK(d != NULL);
	if (!d)
		goto out;
	CHECK(bbmap_dso__module(d, NULL) == DSO_OK);
	CHECK(ends_with(bbmap_dso__path(d), "/elf"));
	CHECK(strstr(bbmap_dso__path(d), "/.build-id/04/e6da50a63d4b859b0be7e235937cd5a7996ecf"));
	/* offset 0x1123 lies in PT_LOAD off 0x1000 vaddr 0x1000 */
	CHECK_EQ_U64(v, 0x1123);
	CHECK(strstr(bbmap_dso__status_detail(d), "build-id cache") != NULL);
	bbmap_session__delete(s);
	/* "" disables the cache */
	s = session_with("", NULL, false);
	CHECK(!bbmap_session__add_build_id(s, false, PROP_PATH, PROP_ID, 20));
	CHECK(!bbmap_session__mmap(s, U, 1, 1, 0x557f79215000, 0x1000, 0x1000, PROP_PATH, NULL,
				   0, true));
	d = lookup(s, 1, U, 0x557f79215123, &v);
	CHECK(d && bbmap_dso__module(d, NULL) == DSO_MISSING);
	CHECK_EQ_U64(v, 0x1123);	/* the file offset when there is no binary */
	CHECK(d && strstr(bbmap_dso__status_detail(d), "04e6da50a63d4b859b0be7e235937cd5a7996ecf"));
out:
	bbmap_session__delete(s);
}

static void test_buildid_cache_short_id_regular_file(void)
{
	char dir[512], file[1024];
	struct bbmap_session *s;
	struct bbmap_dso *d;
	uint64_t v = 0;

	/* old cache layout: the link names the binary itself; the id is 8 bytes long */
	snprintf(dir, sizeof(dir), "%s/oldcache", tmp);
	snprintf(file, sizeof(file), "%s/autofdo/libro_sample.so", corpus);
	CHECK(!sh("mkdir -p '%s/.build-id/9c' && ln -sf '%s' '%s/.build-id/9c/9f8fbd0f965618'",
		  dir, file, dir));
	s = session_with(dir, NULL, false);
	/* the id comes in the MMAP2 record this time, padded to 20 */
	CHECK(!bbmap_session__mmap(s, U, 902132, 902132, 0x7fedfd030000, 0x1000, 0, RO_PATH,
				   RO_ID, 20, true));
	d = lookup(s, 902132, U, 0x7fedfd0306a0, &v);
	CHECK(d && bbmap_dso__module(d, NULL) == DSO_OK);
	/* offset 0x6a0 in PT_LOAD off 0x580 vaddr 0x1580: the load bias is 0x1000 */
	CHECK_EQ_U64(v, 0x16a0);
	CHECK(d && ends_with(bbmap_dso__path(d), "/.build-id/9c/9f8fbd0f965618"));
	bbmap_session__delete(s);
}

static void test_symfs_and_no_build_id(void)
{
	char symfs[512];
	struct bbmap_session *s;
	struct bbmap_dso *d;
	uint64_t v = 0;

	snprintf(symfs, sizeof(symfs), "%s/symfs", tmp);
	CHECK(!sh("mkdir -p '%s/export/hda3/tmp' '%s/usr/local/google/home/shenhan/copt2' && "
		  "ln -sf '%s/autofdo/test.binary' '%s%s' && "
		  "ln -sf '%s/autofdo/libro_sample.so' '%s%s'",
		  symfs, symfs, corpus, symfs, TB_PATH, corpus, symfs, RO_PATH));
	s = session_with("", symfs, false);
	/* test.binary has no build-id and the recording none: accepted by path */
	CHECK(!bbmap_session__mmap(s, U, 5, 5, 0x400000, 0xa000, 0, TB_PATH, NULL, 0, true));
	d = lookup(s, 5, U, 0x400500, &v);
	CHECK(d && bbmap_dso__module(d, NULL) == DSO_OK);
	CHECK_EQ_U64(v, 0x400500);
	CHECK(d && strstr(bbmap_dso__status_detail(d), "--symfs") != NULL);
	/* a recorded id with a file that matches, through symfs */
	CHECK(!bbmap_session__add_build_id(s, false, RO_PATH, RO_ID, 20));
	CHECK(!bbmap_session__mmap(s, U, 5, 5, 0x7fedfd030000, 0x1000, 0, RO_PATH, NULL, 0,
				   true));
	d = lookup(s, 5, U, 0x7fedfd0306a0, &v);
	CHECK(d && bbmap_dso__module(d, NULL) == DSO_OK);
	CHECK_EQ_U64(v, 0x16a0);
	bbmap_session__delete(s);
}

static void test_wrong_build_id(void)
{
	char symfs[512];
	struct bbmap_session *s;
	struct bbmap_dso *d;
	const char *det;
	uint64_t v = 0;

	snprintf(symfs, sizeof(symfs), "%s/symfs", tmp);
	CHECK(!sh("mkdir -p '%s/usr/local/google/home/shenhan/copt2' && "
		  "ln -sf '%s/autofdo/libro_sample.so' '%s%s'", symfs, corpus, symfs, RO_PATH));
	for (int ignore = 0; ignore < 2; ignore++) {
		s = session_with("", symfs, ignore);
		/* the recording says this path had propeller_sample's id */
		CHECK(!bbmap_session__add_build_id(s, false, RO_PATH, PROP_ID, 20));
		CHECK(!bbmap_session__mmap(s, U, 5, 5, 0x7fedfd030000, 0x1000, 0, RO_PATH, NULL,
					   0, true));
		d = lookup(s, 5, U, 0x7fedfd0306a0, &v);
		CHECK(d != NULL);
		if (!d) {
			bbmap_session__delete(s);
			continue;
		}
		det = bbmap_dso__status_detail(d);
		CHECK(det != NULL);
		if (!ignore) {
			CHECK(bbmap_dso__module(d, NULL) == DSO_BUILDID_MISMATCH);
			CHECK(bbmap_dso__path(d) == NULL);
			CHECK_EQ_U64(v, 0x6a0);		/* refused: the file offset */
			CHECK(det && strstr(det, "9c9f8fbd0f965618"));
			CHECK(det && strstr(det, "04e6da50a63d4b859b0be7e235937cd5a7996ecf"));
			CHECK(det && strstr(det, symfs));
			CHECK(det && strstr(det, "refused"));
		} else {
			CHECK(bbmap_dso__module(d, NULL) == DSO_OK);
			CHECK_EQ_U64(v, 0x16a0);
			CHECK(det && strstr(det, "accepted"));
		}
		bbmap_session__delete(s);
	}
}

static void test_overrides_and_search_dirs(void)
{
	char file[1024], sdir[512], badbin[1024];
	const char *dirs[2] = { sdir, NULL };
	struct bbmap_binary_override ov[2];
	struct bbmap_find_opts o = { .buildid_dir = "" };
	struct bbmap_session *s = NULL;
	struct bbmap_dso *d;
	uint64_t v = 0;

	snprintf(file, sizeof(file), "%s/autofdo/test.binary", corpus);
	snprintf(badbin, sizeof(badbin), "%s/autofdo/propeller_sample_old.bin", corpus);
	/* by basename */
	ov[0].name = "test.binary";
	ov[0].path = file;
	o.binaries = ov;
	o.nr_binaries = 1;
	CHECK(!bbmap_session__new(&s, &o));
	CHECK(!bbmap_session__mmap(s, U, 5, 5, 0x400000, 0xa000, 0, TB_PATH, NULL, 0, true));
	d = lookup(s, 5, U, 0x400500, &v);
	CHECK(d && bbmap_dso__module(d, NULL) == DSO_OK);
	CHECK(d && !strcmp(bbmap_dso__path(d), file));
	bbmap_session__delete(s);
	/* an override refused for its build-id falls through to the search directories */
	snprintf(sdir, sizeof(sdir), "%s/search", tmp);
	CHECK(!sh("mkdir -p '%s' && ln -sf '%s/autofdo/libro_sample.so' '%s/libro_sample.so'",
		  sdir, corpus, sdir));
	ov[0].name = RO_PATH;
	ov[0].path = badbin;
	o.search_dirs = dirs;
	CHECK(!bbmap_session__new(&s, &o));
	CHECK(!bbmap_session__add_build_id(s, false, RO_PATH, RO_ID, 8));
	CHECK(!bbmap_session__mmap(s, U, 5, 5, 0x7fedfd030000, 0x1000, 0, RO_PATH, NULL, 0,
				   true));
	d = lookup(s, 5, U, 0x7fedfd0306a0, &v);
	CHECK(d && bbmap_dso__module(d, NULL) == DSO_OK);
	CHECK(d && ends_with(bbmap_dso__path(d), "/search/libro_sample.so"));
	CHECK_EQ_U64(v, 0x16a0);
	bbmap_session__delete(s);
}

static void test_stripped_corrupt_missing(void)
{
	char symfs[512];
	struct bbmap_session *s;
	struct bbmap_dso *d;
	struct bbmap_module *m = NULL;
	uint64_t v = 0;

	snprintf(symfs, sizeof(symfs), "%s/symfs2", tmp);
	CHECK(!sh("mkdir -p '%s%s' && rmdir '%s%s' && "
		  "objcopy --strip-all '%s/autofdo/propeller_sample_old.bin' '%s%s' && "
		  "mkdir -p '%s/bad' && echo 'not an ELF file' > '%s/bad/trunc.so'",
		  symfs, PROP_PATH, symfs, PROP_PATH, corpus, symfs, PROP_PATH, symfs, symfs));
	s = session_with("", symfs, false);
	CHECK(!bbmap_session__add_build_id(s, false, PROP_PATH, PROP_ID, 20));
	CHECK(!bbmap_session__mmap(s, U, 5, 5, 0x557f79215000, 0x1000, 0x1000, PROP_PATH, NULL,
				   0, true));
	CHECK(!bbmap_session__mmap(s, U, 5, 5, 0x10000, 0x1000, 0, "/bad/trunc.so", NULL, 0,
				   true));
	CHECK(!bbmap_session__mmap(s, U, 5, 5, 0x20000, 0x1000, 0x3000, "/nowhere/lib.so", NULL,
				   0, true));
	/* stripped: build-id kept, code available, no symbols */
	d = lookup(s, 5, U, 0x557f79215123, &v);
	CHECK(d && bbmap_dso__module(d, &m) == DSO_OK && m);
	CHECK(m && !bbmap_module__has_symbols(m));
	CHECK(sym_at(d, v) == NULL);
	CHECK_EQ_U64(v, 0x1123);
	/* corrupt */
	d = lookup(s, 5, U, 0x10010, &v);
	CHECK(d && bbmap_dso__module(d, &m) == DSO_BAD && !m);
	CHECK(d && strstr(bbmap_dso__status_detail(d), "trunc.so"));
	CHECK_EQ_U64(v, 0x10);
	/* missing */
	d = lookup(s, 5, U, 0x20010, &v);
	CHECK(d && bbmap_dso__module(d, &m) == DSO_MISSING && !m);
	CHECK(d && strstr(bbmap_dso__status_detail(d), "/nowhere/lib.so"));
	CHECK(d && bbmap_dso__path(d) == NULL);
	CHECK_EQ_U64(v, 0x3010);
	bbmap_session__delete(s);
}

static void test_vdso_from_cache(void)
{
	char dir[512], file[1024];
	struct bbmap_session *s;
	struct bbmap_dso *d;
	uint64_t v = 0;

	/* any ELF stands in for a vDSO image: what matters is the cache layout */
	snprintf(dir, sizeof(dir), "%s/vcache", tmp);
	snprintf(file, sizeof(file), "%s/autofdo/libro_sample.so", corpus);
	CHECK(!sh("mkdir -p '%s/.build-id/9c' '%s/[vdso]/9c9f8fbd0f965618' && "
		  "ln -sf '%s' '%s/[vdso]/9c9f8fbd0f965618/vdso' && "
		  "ln -sfn '../../[vdso]/9c9f8fbd0f965618' '%s/.build-id/9c/9f8fbd0f965618'",
		  dir, dir, file, dir, dir));
	s = session_with(dir, NULL, false);
	CHECK(!bbmap_session__add_build_id(s, false, "[vdso]", RO_ID, 8));
	CHECK(!bbmap_session__mmap(s, U, 5, 5, 0x7ffd69752000, 0x2000, 0, "[vdso]", NULL, 0,
				   true));
	d = lookup(s, 5, U, 0x7ffd697526a0, &v);
	CHECK(d && bbmap_dso__kind(d) == DSO_KIND_VDSO);
	CHECK(d && bbmap_dso__module(d, NULL) == DSO_OK);
	CHECK(d && ends_with(bbmap_dso__path(d), "/vdso"));
	CHECK_EQ_U64(v, 0x16a0);
	bbmap_session__delete(s);
	/* not in the cache: missing, never the local vDSO */
	s = session_with("", NULL, false);
	CHECK(!bbmap_session__mmap(s, U, 5, 5, 0x7ffd69752000, 0x2000, 0, "[vdso]", RO_ID, 8,
				   true));
	d = lookup(s, 5, U, 0x7ffd697526a0, &v);
	CHECK(d && bbmap_dso__module(d, NULL) == DSO_MISSING);
	CHECK(d && strstr(bbmap_dso__status_detail(d), "build-id cache"));
	bbmap_session__delete(s);
}

static void test_kernel_module_tree(void)
{
	struct bbmap_find_opts o = { .buildid_dir = "", .osrelease = "6.1.0-test" };
	char symfs[512];
	struct bbmap_session *s = NULL;
	struct bbmap_dso *d;
	uint64_t v = 0;

	snprintf(symfs, sizeof(symfs), "%s/ksymfs", tmp);
	CHECK(!sh("mkdir -p '%s/lib/modules/6.1.0-test/kernel/fs/xy' && "
		  "cp '%s/autofdo/libro_sample.so' '%s/lib/modules/6.1.0-test/kernel/fs/xy/x-y.ko' && "
		  "touch '%s/lib/modules/6.1.0-test/kernel/fs/xy/zz.ko.xz'",
		  symfs, corpus, symfs, symfs));
	o.symfs = symfs;
	CHECK(!bbmap_session__new(&s, &o));
	CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffffc0100000, 0x5000, 0, "[x_y]",
				   NULL, 0, true));
	CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffffc0200000, 0x5000, 0,
				   "/lib/modules/6.1.0-test/kernel/fs/xy/zz.ko.xz", NULL, 0, true));
	d = lookup(s, 0, K, 0xffffffffc01006a0, &v);
	CHECK(d && bbmap_dso__kind(d) == DSO_KIND_KMODULE);
	CHECK(d && bbmap_dso__module(d, NULL) == DSO_OK);
	CHECK(d && ends_with(bbmap_dso__path(d), "/kernel/fs/xy/x-y.ko"));
	d = lookup(s, 0, K, 0xffffffffc0200010, &v);
	CHECK(d && bbmap_dso__module(d, NULL) == DSO_MISSING);
	CHECK(d && strstr(bbmap_dso__status_detail(d), "compressed"));
	CHECK_EQ_U64(v, 0x10);
	bbmap_session__delete(s);
}

/* A tiny "vmlinux": _text at 0xffffffff81000000, foo at +0x10, bar at +0x20. */
static bool make_vmlinux(const char *out, const char *text_addr)
{
	return !sh("cd '%s' && printf '%s' > k.s && as -o k.o k.s && "
		   "ld -o '%s' -Ttext=%s --build-id -e _text k.o",
		   tmp, ".text\\n.globl _text\\n_text: nop\\n.org 0x10\\n.globl foo\\n"
		   ".type foo,@function\\nfoo: nop\\nret\\n.size foo,2\\n.org 0x20\\n.globl bar\\n"
		   ".type bar,@function\\nbar: ret\\n.size bar,1\\n", out, text_addr);
}

static void test_vmlinux_slide_and_kcore(void)
{
	struct bbmap_find_opts o = { .buildid_dir = "" };
	char vmlinux[1024], kdir[512], kallsyms[600];
	struct bbmap_session *s = NULL;
	struct bbmap_dso *d;
	uint64_t v = 0;
	const uint8_t wrong[20] = { 1, 2, 3 };

	snprintf(vmlinux, sizeof(vmlinux), "%s/vmlinux", tmp);
	CHECK(make_vmlinux(vmlinux, "0xffffffff81000000"));
	o.vmlinux = vmlinux;
	CHECK(!bbmap_session__new(&s, &o));
	/* ran with _text at 0xffffffff9a000000: slide 0x19000000 */
	CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffff9a000000, 0x1000000,
				   0xffffffff9a000000, "[kernel.kallsyms]_text", NULL, 0, true));
	d = lookup(s, 0, K, 0xffffffff9a000011, &v);
	CHECK(d && bbmap_dso__module(d, NULL) == DSO_OK);
	CHECK_EQ_U64(v, 0xffffffff81000011);
	CHECK_STR(sym_at(d, v), "foo");
	d = lookup(s, 0, K, 0xffffffff9a000020, &v);
	CHECK_EQ_U64(v, 0xffffffff81000020);
	CHECK_STR(d ? sym_at(d, v) : NULL, "bar");
	bbmap_session__delete(s);

	/* a kernel build-id that differs from the vmlinux's: refused, kallsyms names used */
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms.k", tmp);
	CHECK(!sh("printf 'ffffffff9a000000 T _text\\nffffffff9a000010 T foo\\n' > '%s'",
		  kallsyms));
	o.kallsyms = kallsyms;
	CHECK(!bbmap_session__new(&s, &o));
	CHECK(!bbmap_session__add_build_id(s, true, "[kernel.kallsyms]", wrong, 20));
	CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffff9a000000, 0x1000000,
				   0xffffffff9a000000, "[kernel.kallsyms]_text", NULL, 0, true));
	d = lookup(s, 0, K, 0xffffffff9a000011, &v);
	CHECK(d && bbmap_dso__module(d, NULL) == DSO_NO_CODE);
	CHECK_EQ_U64(v, 0xffffffff9a000011);
	CHECK_STR(d ? bbmap_dso__symbol_name(d, v, NULL) : NULL, "foo");
	bbmap_session__delete(s);

	/* perf record with a vmlinux: the build-id table names the kernel by that path; found
	 * under --symfs and checked against the id `readelf -n` reads from the file */
	{
		uint8_t id[20];
		size_t n = 0;
		char hex[64] = "", symfs[512];
		FILE *p;

		snprintf(symfs, sizeof(symfs), "%s/vsymfs", tmp);
		CHECK(!sh("mkdir -p '%s/boot/x' && cp '%s/vmlinux' '%s/boot/x/vmlinux-rec'", symfs,
			  tmp, symfs));
		snprintf(vmlinux, sizeof(vmlinux), "readelf -n '%s/vmlinux' | "
			 "sed -n 's/.*Build ID: *//p'", tmp);
		p = popen(vmlinux, "r");
		CHECK(p && fgets(hex, sizeof(hex), p));
		if (p)
			pclose(p);
		for (n = 0; n < 20 && sscanf(hex + 2 * n, "%2hhx", &id[n]) == 1; n++)
			;
		CHECK(n >= 8);
		memset(&o, 0, sizeof(o));
		o.buildid_dir = "";
		o.symfs = symfs;
		CHECK(!bbmap_session__new(&s, &o));
		CHECK(!bbmap_session__add_build_id(s, true, "/boot/x/vmlinux-rec", id, n));
		CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffff9a000000, 0x1000000,
					   0xffffffff9a000000, "[kernel.kallsyms]_text", NULL, 0,
					   true));
		d = lookup(s, 0, K, 0xffffffff9a000011, &v);
		CHECK(d && bbmap_dso__module(d, NULL) == DSO_OK);
		CHECK(d && ends_with(bbmap_dso__path(d), "/boot/x/vmlinux-rec"));
		CHECK_EQ_U64(v, 0xffffffff81000011);
		bbmap_session__delete(s);
		/* the same with a different id: refused, and no code */
		id[0] ^= 0xff;
		CHECK(!bbmap_session__new(&s, &o));
		CHECK(!bbmap_session__add_build_id(s, true, "/boot/x/vmlinux-rec", id, n));
		CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffff9a000000, 0x1000000,
					   0xffffffff9a000000, "[kernel.kallsyms]_text", NULL, 0,
					   true));
		d = lookup(s, 0, K, 0xffffffff9a000011, &v);
		CHECK(d && bbmap_dso__module(d, NULL) == DSO_BUILDID_MISMATCH);
		CHECK(d && strstr(bbmap_dso__status_detail(d), "vmlinux-rec"));
		bbmap_session__delete(s);
	}

	/* kcore_dir: an image at run-time addresses, preferred over --vmlinux's slide */
	snprintf(kdir, sizeof(kdir), "%s/kcore_dir", tmp);
	CHECK(!sh("mkdir -p '%s' && cp '%s' '%s/kallsyms'", kdir, kallsyms, kdir));
	snprintf(vmlinux, sizeof(vmlinux), "%s/kcore", kdir);
	CHECK(make_vmlinux(vmlinux, "0xffffffff9a000000"));
	memset(&o, 0, sizeof(o));
	o.buildid_dir = "";
	o.kcore_dir = kdir;
	CHECK(!bbmap_session__new(&s, &o));
	CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffff9a000000, 0x1000000,
				   0xffffffff9a000000, "[kernel.kallsyms]_text", NULL, 0, true));
	d = lookup(s, 0, K, 0xffffffff9a000011, &v);
	CHECK(d && bbmap_dso__module(d, NULL) == DSO_OK);
	CHECK_EQ_U64(v, 0xffffffff9a000011);
	CHECK_STR(d ? sym_at(d, v) : NULL, "foo");
	CHECK_STR(d ? bbmap_dso__symbol_name(d, v, NULL) : NULL, "foo");
	CHECK(d && strstr(bbmap_dso__status_detail(d), "kcore_dir"));
	bbmap_session__delete(s);
}

int main(void)
{
	const char *t = getenv("TMPDIR"), *c = getenv("HBBP_CORPUS");

	char *abs = realpath(c && *c ? c : "../shared/perfdata", NULL);

	/* links made below need an absolute target */
	snprintf(corpus, sizeof(corpus), "%s", abs ? abs : "/nonexistent");
	free(abs);
	snprintf(tmp, sizeof(tmp), "%s/hbbp-sfind.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
#define RUN_IF(ok, fn) do { if (ok) RUN_TEST(fn); \
		else SKIP_TEST(#fn, "corpus binaries absent (set HBBP_CORPUS)"); } while (0)
	bool prop = have("autofdo/propeller_sample_old.bin"), ro = have("autofdo/libro_sample.so");
	bool tb = have("autofdo/test.binary");
	bool tools = !sh("command -v as >/dev/null && command -v ld >/dev/null && "
			 "command -v objcopy >/dev/null");

	RUN_IF(prop, test_buildid_cache);
	RUN_IF(ro, test_buildid_cache_short_id_regular_file);
	RUN_IF(tb && ro, test_symfs_and_no_build_id);
	RUN_IF(ro, test_wrong_build_id);
	RUN_IF(tb && ro && prop, test_overrides_and_search_dirs);
	RUN_IF(prop && tools, test_stripped_corrupt_missing);
	RUN_IF(ro, test_vdso_from_cache);
	RUN_IF(ro, test_kernel_module_tree);
	if (tools)
		RUN_TEST(test_vmlinux_slide_and_kcore);
	else
		SKIP_TEST("test_vmlinux_slide_and_kcore", "as/ld not installed");
	sh("rm -rf '%s'", tmp);
	return TEST_EXIT();
}
