/* Session address spaces with hand-built record sequences: overlapping maps, fork, exec,
 * exit, threads, kernel and module maps, KSYMBOL, JIT perf maps, kallsyms names and the
 * KASLR slide arithmetic. Expected values are computed by hand in each test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bbmap/session.h"
#include "bbmap/session_priv.h"
#include "tests/harness.h"
#include "util/hbbp_err.h"


#define U 2	/* cpumode user */
#define K 1	/* cpumode kernel */

static char tmpdir[256];

static struct bbmap_session *new_session(const struct bbmap_find_opts *o)
{
	struct bbmap_find_opts def = { .buildid_dir = "" };
	struct bbmap_session *s = NULL;

	CHECK(bbmap_session__new(&s, o ? o : &def) == 0);
	return s;
}

static const char *dso_at(struct bbmap_session *s, uint32_t pid, int mode, uint64_t addr,
			  uint64_t *vaddr)
{
	struct bbmap_loc loc;

	if (bbmap_session__lookup(s, pid, mode, addr, &loc))
		return NULL;
	if (vaddr)
		*vaddr = loc.vaddr;
	return bbmap_dso__name(loc.dso);
}

static void test_overlap_replaces(void)
{
	struct bbmap_session *s = new_session(NULL);
	struct bbmap_loc loc;
	uint64_t v = 0;

	CHECK(!bbmap_session__mmap(s, U, 10, 10, 0x1000, 0x4000, 0, "/a", NULL, 0, true));
	CHECK(!bbmap_session__mmap(s, U, 10, 10, 0x2000, 0x1000, 0x100, "/b", NULL, 0, true));
	/* [0x1000,0x2000) /a, [0x2000,0x3000) /b, [0x3000,0x5000) /a with pgoff 0x2000 */
	CHECK_STR(dso_at(s, 10, U, 0x1800, &v), "/a");
	CHECK_EQ_U64(v, 0x800);		/* no binary: the file offset */
	CHECK_STR(dso_at(s, 10, U, 0x2800, &v), "/b");
	CHECK_EQ_U64(v, 0x900);
	CHECK_STR(dso_at(s, 10, U, 0x3800, &v), "/a");
	CHECK_EQ_U64(v, 0x2800);
	CHECK(!bbmap_session__lookup(s, 10, U, 0x4fff, &loc));
	CHECK_EQ_U64(loc.map_start, 0x3000);
	CHECK_EQ_U64(loc.map_end, 0x5000);
	CHECK(bbmap_session__lookup(s, 10, U, 0x5000, &loc) == -HBBP_ENOTFOUND);
	CHECK(loc.dso == NULL);
	CHECK(dso_at(s, 10, U, 0xfff, NULL) == NULL);
	/* a map covering several old ones removes them all */
	CHECK(!bbmap_session__mmap(s, U, 10, 10, 0x1800, 0x3000, 0, "/c", NULL, 0, true));
	CHECK_STR(dso_at(s, 10, U, 0x17ff, NULL), "/a");
	CHECK_STR(dso_at(s, 10, U, 0x2000, NULL), "/c");
	CHECK_STR(dso_at(s, 10, U, 0x47ff, NULL), "/c");
	CHECK_STR(dso_at(s, 10, U, 0x4800, &v), "/a");
	CHECK_EQ_U64(v, 0x3800);
	/* data maps do not take part in code lookups */
	CHECK(!bbmap_session__mmap(s, U, 10, 10, 0x9000, 0x1000, 0, "/data", NULL, 0, false));
	CHECK(dso_at(s, 10, U, 0x9000, NULL) == NULL);
	/* same name, one dso */
	CHECK(!bbmap_session__mmap(s, U, 10, 10, 0x20000, 0x1000, 0, "/a", NULL, 0, true));
	{
		size_t i, n = 0;

		for (i = 0; bbmap_session__dso(s, i); i++)
			n += !strcmp(bbmap_dso__name(bbmap_session__dso(s, i)), "/a");
		CHECK_EQ_U64(n, 1);
	}
	bbmap_session__delete(s);
}

/* The name of thread pid/tid now: the name of its key now. */
static const char *comm_now(const struct bbmap_session *s, uint32_t pid, uint32_t tid)
{
	uint32_t t;

	return bbmap_session__comm_of(s, pid, bbmap_session__thread_key(s, pid, tid), &t);
}

/* Every name a thread takes keeps its own key; the first name's key is the tid, so that a
 * sample before the first COMM takes that name (perf overrides its ":tid" placeholder). */
static void test_comm_timeline(void)
{
	struct bbmap_session *s = new_session(NULL);
	uint32_t k0, k1, k2, tid = 0;

	k0 = bbmap_session__thread_key(s, 10, 11);		/* no name yet */
	CHECK(!bbmap_session__comm(s, 10, 10, "sh", false));
	CHECK(!bbmap_session__fork(s, 10, 10, 11, 10));	/* a thread: the process's name */
	CHECK(bbmap_session__thread_key(s, 10, 11) == 11 && k0 == 11);
	CHECK(!bbmap_session__comm(s, 10, 11, "sed", true));
	k1 = bbmap_session__thread_key(s, 10, 11);
	CHECK(!bbmap_session__comm(s, 10, 11, "sed", false));	/* the same name again */
	CHECK(bbmap_session__thread_key(s, 10, 11) == k1);
	CHECK(!bbmap_session__comm(s, 10, 11, "awk", false));
	k2 = bbmap_session__thread_key(s, 10, 11);
	CHECK(k1 != 11 && k2 != 11 && k1 != k2);
	CHECK_STR(bbmap_session__comm_of(s, 10, 11, &tid), "sh");
	CHECK(tid == 11);
	CHECK_STR(bbmap_session__comm_of(s, 10, k1, &tid), "sed");
	CHECK(tid == 11);
	CHECK_STR(bbmap_session__comm_of(s, 10, k2, &tid), "awk");
	CHECK(tid == 11);
	CHECK_STR(bbmap_session__comm_of(s, 10, 10, &tid), "sh");
	/* a renamed key is its pid's only */
	CHECK(bbmap_session__comm_of(s, 99, k1, &tid) == NULL && tid == k1);
	bbmap_session__delete(s);
}

static void test_fork_exec_exit(void)
{
	struct bbmap_session *s = new_session(NULL);

	CHECK(!bbmap_session__comm(s, 100, 100, "parent", false));
	CHECK(!bbmap_session__mmap(s, U, 100, 100, 0x400000, 0x1000, 0, "/bin/p", NULL, 0, true));
	/* a thread shares the process's maps, also for maps added later */
	CHECK(!bbmap_session__fork(s, 100, 100, 101, 100));
	CHECK(!bbmap_session__mmap(s, U, 100, 101, 0x500000, 0x1000, 0, "/lib/t.so", NULL, 0,
				   true));
	CHECK_STR(dso_at(s, 100, U, 0x500010, NULL), "/lib/t.so");
	/* a child process inherits a copy */
	CHECK(!bbmap_session__fork(s, 200, 100, 200, 100));
	CHECK_STR(dso_at(s, 200, U, 0x400010, NULL), "/bin/p");
	CHECK_STR(dso_at(s, 200, U, 0x500010, NULL), "/lib/t.so");
	CHECK_STR(comm_now(s, 100, 101), "parent");
	/* ... and its parent's comm until it execs (perf's thread__set_comm on fork) */
	CHECK_STR(comm_now(s, 200, 200), "parent");
	CHECK(!bbmap_session__comm(s, 100, 100, "renamed", false));
	CHECK_STR(comm_now(s, 100, 100), "renamed");
	CHECK_STR(comm_now(s, 100, 101), "parent");	/* copied at its fork */
	CHECK_STR(comm_now(s, 200, 200), "parent");
	/* the child's new map is its own */
	CHECK(!bbmap_session__mmap(s, U, 200, 200, 0x600000, 0x1000, 0, "/lib/c.so", NULL, 0,
				   true));
	CHECK(dso_at(s, 100, U, 0x600010, NULL) == NULL);
	/* exec drops the old image; the new image's maps follow */
	CHECK(!bbmap_session__comm(s, 200, 200, "child", true));
	CHECK(dso_at(s, 200, U, 0x400010, NULL) == NULL);
	CHECK(dso_at(s, 200, U, 0x600010, NULL) == NULL);
	CHECK(!bbmap_session__mmap(s, U, 200, 200, 0x400000, 0x2000, 0, "/bin/q", NULL, 0, true));
	CHECK_STR(dso_at(s, 200, U, 0x401000, NULL), "/bin/q");
	CHECK_STR(dso_at(s, 100, U, 0x400010, NULL), "/bin/p");	/* parent untouched */
	CHECK_STR(comm_now(s, 200, 200), "child");
	CHECK_STR(comm_now(s, 200, 201), "child");	/* falls back to pid */
	/* a thread's exit ends nothing */
	CHECK(!bbmap_session__exit(s, 100, 101));
	CHECK_STR(dso_at(s, 100, U, 0x500010, NULL), "/lib/t.so");
	/* the group leader's exit ends the process: a reused pid starts from its parent */
	CHECK(!bbmap_session__exit(s, 100, 100));
	CHECK(!bbmap_session__fork(s, 100, 200, 100, 200));
	CHECK_STR(dso_at(s, 100, U, 0x401000, NULL), "/bin/q");
	CHECK(dso_at(s, 100, U, 0x500010, NULL) == NULL);
	/* after exit, an mmap without fork starts an empty address space */
	CHECK(!bbmap_session__exit(s, 200, 200));
	CHECK(!bbmap_session__mmap(s, U, 200, 200, 0x700000, 0x1000, 0, "/bin/r", NULL, 0, true));
	CHECK(dso_at(s, 200, U, 0x401000, NULL) == NULL);
	CHECK_STR(dso_at(s, 200, U, 0x700000, NULL), "/bin/r");
	/* fork from an unknown parent: empty */
	CHECK(!bbmap_session__fork(s, 300, 999, 300, 999));
	CHECK(dso_at(s, 300, U, 0x401000, NULL) == NULL);
	CHECK(comm_now(s, 300, 300) == NULL);
	bbmap_session__delete(s);
}

static void test_exit_keeps_late_samples(void)
{
	struct bbmap_session *s = new_session(NULL);

	CHECK(!bbmap_session__mmap(s, U, 7, 7, 0x1000, 0x1000, 0, "/x", NULL, 0, true));
	CHECK(!bbmap_session__exit(s, 7, 7));
	/* perf keeps a dead thread's maps for samples delivered after its EXIT */
	CHECK_STR(dso_at(s, 7, U, 0x1000, NULL), "/x");
	bbmap_session__delete(s);
}

static void test_kernel_maps(void)
{
	struct bbmap_session *s = new_session(NULL);
	struct bbmap_session_stats st;
	struct bbmap_loc loc;
	struct bbmap_dso *d;
	uint64_t v = 0;

	/* the kernel map is synthesized first and runs over the module area */
	CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffff9a000000, 0x66000000,
				   0xffffffff9a000000, "[kernel.kallsyms]_text", NULL, 0, true));
	CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffffc0100000, 0x5000, 0, "[xfs]",
				   NULL, 0, true));
	CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffffc0000000, 0x8000, 0,
				   "/lib/modules/6.1.0/kernel/fs/ext4.ko", NULL, 0, true));
	CHECK(!bbmap_session__lookup(s, 0, K, 0xffffffff9a001234, &loc));
	CHECK_STR(bbmap_dso__name(loc.dso), "[kernel.kallsyms]");
	CHECK(bbmap_dso__kind(loc.dso) == DSO_KIND_KERNEL);
	CHECK_EQ_U64(loc.vaddr, 0xffffffff9a001234);	/* no binary: run-time address */
	CHECK(bbmap_dso__module(loc.dso, NULL) == DSO_MISSING);
	CHECK(bbmap_dso__status_detail(loc.dso) != NULL);
	CHECK_STR(dso_at(s, 0, K, 0xffffffffc0100010, &v), "[xfs]");
	CHECK_EQ_U64(v, 0x10);
	CHECK_STR(dso_at(s, 0, K, 0xffffffffc0000010, NULL),
		  "/lib/modules/6.1.0/kernel/fs/ext4.ko");
	CHECK(!bbmap_session__lookup(s, 0, K, 0xffffffffc0000010, &loc));
	CHECK(bbmap_dso__kind(loc.dso) == DSO_KIND_KMODULE);
	CHECK_STR(bbmap_dso__short_name(loc.dso), "ext4.ko");
	CHECK_STR(dso_at(s, 0, K, 0xffffffffc0008000, NULL), "[kernel.kallsyms]");
	/* a module map seen before the kernel map is not covered by it */
	CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffffd0000000, 0x1000, 0, "[late]",
				   NULL, 0, true));
	CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffff9a000000, 0x66000000,
				   0xffffffff9a000000, "[kernel.kallsyms]_text", NULL, 0, true));
	CHECK_STR(dso_at(s, 0, K, 0xffffffffd0000000, NULL), "[late]");
	CHECK_STR(dso_at(s, 0, K, 0xffffffffc0100010, NULL), "[xfs]");
	/* user-mode samples at kernel addresses fall back to the kernel maps */
	CHECK_STR(dso_at(s, 55, U, 0xffffffff9a000010, NULL), "[kernel.kallsyms]");
	/* kernel-mode lookups never see user maps */
	CHECK(!bbmap_session__mmap(s, U, 55, 55, 0x1000, 0x1000, 0, "/u", NULL, 0, true));
	CHECK(dso_at(s, 55, K, 0x1000, NULL) == NULL);
	CHECK_STR(dso_at(s, 55, U, 0x1000, NULL), "/u");
	/* guest user mode is not supported: counted, not found */
	CHECK(!bbmap_session__mmap(s, 5, 77, 77, 0x1000, 0x1000, 0, "/g", NULL, 0, true));
	CHECK(bbmap_session__lookup(s, 77, 5, 0x1000, &loc) == -HBBP_ENOTFOUND);
	bbmap_session__stats(s, &st);
	CHECK_EQ_U64(st.nr_guest_unsupported, 2);
	CHECK_EQ_U64(st.nr_kernel_fallback, 1);
	CHECK_EQ_U64(st.nr_lookups, 11);
	CHECK_EQ_U64(st.nr_unmapped, 2);
	/* guest kernel maps are kept apart */
	CHECK(!bbmap_session__mmap(s, 4, 0, 0, 0xffffffff81000000, 0x1000000, 0xffffffff81000000,
				   "[guest.kernel.kallsyms]_text", NULL, 0, true));
	CHECK_STR(dso_at(s, 0, 4, 0xffffffff81000010, NULL), "[guest.kernel.kallsyms]");
	CHECK(dso_at(s, 0, K, 0xffffffff81000010, NULL) == NULL);
	CHECK(!bbmap_session__lookup(s, 0, 4, 0xffffffff81000010, &loc));
	CHECK(bbmap_dso__module(loc.dso, NULL) == DSO_MISSING);
	d = loc.dso;
	CHECK(strstr(bbmap_dso__status_detail(d), "guest") != NULL);
	bbmap_session__delete(s);
}

static void test_ksymbol(void)
{
	struct bbmap_session *s = new_session(NULL);
	struct bbmap_loc loc;
	uint64_t start = 0;

	CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffff81000000, 0x1000000,
				   0xffffffff81000000, "[kernel.kallsyms]_text", NULL, 0, true));
	CHECK(!bbmap_session__ksymbol(s, 0xffffffffc0400000, 0x80, "bpf_prog_6deef7357e7b4530_x",
				      false));
	CHECK(!bbmap_session__lookup(s, 0, K, 0xffffffffc0400010, &loc));
	CHECK(bbmap_dso__kind(loc.dso) == DSO_KIND_KSYMBOL);
	CHECK(bbmap_dso__module(loc.dso, NULL) == DSO_NO_CODE);
	CHECK_STR(bbmap_dso__symbol_name(loc.dso, loc.vaddr, &start),
		  "bpf_prog_6deef7357e7b4530_x");
	CHECK_EQ_U64(start, 0xffffffffc0400000);
	CHECK(bbmap_session__lookup(s, 0, K, 0xffffffffc0400080, &loc) == -HBBP_ENOTFOUND);
	CHECK(!bbmap_session__ksymbol(s, 0xffffffffc0400000, 0x80, "bpf_prog_6deef7357e7b4530_x",
				      true));
	CHECK(bbmap_session__lookup(s, 0, K, 0xffffffffc0400010, &loc) == -HBBP_ENOTFOUND);
	/* out-of-line code inside the kernel map cuts it */
	CHECK(!bbmap_session__ksymbol(s, 0xffffffff81100000, 0x1000, "kprobe_insn_page", false));
	CHECK_STR(dso_at(s, 0, K, 0xffffffff81100000, NULL), "kprobe_insn_page");
	CHECK_STR(dso_at(s, 0, K, 0xffffffff81101000, NULL), "[kernel.kallsyms]");
	bbmap_session__delete(s);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	CHECK(fclose(f) == 0);
}

static void test_kallsyms_names(void)
{
	struct bbmap_find_opts o = { .buildid_dir = "" };
	char path[512];
	struct bbmap_session *s;
	struct bbmap_loc loc;
	uint64_t start = 0;

	snprintf(path, sizeof(path), "%s/kallsyms", tmpdir);
	write_file(path, "ffffffff9a000000 T _text\n"
			 "ffffffff9a001000 T do_syscall_64\n"
			 "ffffffff9a001100 t helper_local\n"
			 "ffffffff9a002000 D some_data\n"
			 "ffffffff9a003000 T after_data\n"
			 "ffffffffc0100000 t xfs_foo\t[xfs]\n"
			 "ffffffffc0200000 t ext4_bar\t[ext_4]\n");
	o.kallsyms = path;
	s = new_session(&o);
	CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffff9a000000, 0x1000000,
				   0xffffffff9a000000, "[kernel.kallsyms]_text", NULL, 0, true));
	CHECK(!bbmap_session__lookup(s, 0, K, 0xffffffff9a001010, &loc));
	CHECK(bbmap_dso__module(loc.dso, NULL) == DSO_NO_CODE);
	CHECK_EQ_U64(loc.vaddr, 0xffffffff9a001010);
	CHECK_STR(bbmap_dso__symbol_name(loc.dso, loc.vaddr, &start), "do_syscall_64");
	CHECK_EQ_U64(start, 0xffffffff9a001000);
	CHECK_STR(bbmap_dso__symbol_name(loc.dso, 0xffffffff9a001100, NULL), "helper_local");
	/* data symbols are not functions: the text symbol before runs on */
	CHECK_STR(bbmap_dso__symbol_name(loc.dso, 0xffffffff9a002010, NULL), "helper_local");
	CHECK_STR(bbmap_dso__symbol_name(loc.dso, 0xffffffff9a003000, NULL), "after_data");
	CHECK(bbmap_dso__symbol_name(loc.dso, 0xffffffff99000000, NULL) == NULL);
	CHECK(strstr(bbmap_dso__status_detail(loc.dso), "names only") != NULL);
	/* a module with no .ko file: its names from kallsyms, at run-time addresses */
	CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffffc0100000, 0x4000, 0,
				   "/lib/modules/6.1/kernel/fs/xfs.ko.xz", NULL, 0, true));
	CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffffc0200000, 0x4000, 0,
				   "[ext-4]", NULL, 0, true));
	CHECK(!bbmap_session__lookup(s, 0, K, 0xffffffffc0100010, &loc));
	CHECK(bbmap_dso__module(loc.dso, NULL) == DSO_NO_CODE);
	CHECK_EQ_U64(loc.vaddr, 0xffffffffc0100010);
	CHECK_STR(bbmap_dso__symbol_name(loc.dso, loc.vaddr, &start), "xfs_foo");
	CHECK_EQ_U64(start, 0xffffffffc0100000);
	CHECK(!bbmap_session__lookup(s, 0, K, 0xffffffffc0200010, &loc));
	CHECK_STR(bbmap_dso__symbol_name(loc.dso, loc.vaddr, NULL), "ext4_bar");
	CHECK(!bbmap_session__mmap(s, K, 0xffffffff, 0, 0xffffffffc0300000, 0x4000, 0,
				   "[nosyms]", NULL, 0, true));
	CHECK(!bbmap_session__lookup(s, 0, K, 0xffffffffc0300010, &loc));
	CHECK(bbmap_dso__module(loc.dso, NULL) == DSO_MISSING);
	CHECK_EQ_U64(loc.vaddr, 0x10);
	bbmap_session__delete(s);
}

static void test_slide_arithmetic(void)
{
	bool guest = true;

	/* vmlinux links _text at 0xffffffff81000000; it ran at 0xffffffff9a000000 */
	CHECK_EQ_U64(bbmap_kernel__slide(0xffffffff9a000000, 0xffffffff81000000), 0x19000000);
	/* a run-time address minus the slide is the vmlinux address */
	CHECK_EQ_U64(0xffffffff9a123456ull -
		     (uint64_t)bbmap_kernel__slide(0xffffffff9a000000, 0xffffffff81000000),
		     0xffffffff81123456ull);
	/* a kernel loaded below its link address (negative slide) */
	CHECK(bbmap_kernel__slide(0xffffffff80200000, 0xffffffff81000000) == -0xe00000);
	/* kptr_restrict: pgoff 0 means no relocation is known */
	CHECK(bbmap_kernel__slide(0, 0xffffffff81000000) == 0);
	CHECK_STR(bbmap_kernel__ref_symbol("[kernel.kallsyms]_text", &guest), "_text");
	CHECK(!guest);
	CHECK_STR(bbmap_kernel__ref_symbol("[kernel.kallsyms]_stext", &guest), "_stext");
	CHECK_STR(bbmap_kernel__ref_symbol("[guest.kernel.kallsyms.1234]_text", &guest), "_text");
	CHECK(guest);
	CHECK(bbmap_kernel__ref_symbol("[xfs]", &guest) == NULL);
}

static void test_perfmap(void)
{
	struct bbmap_find_opts o = { .buildid_dir = "" };
	char path[512];
	struct bbmap_session *s;
	struct bbmap_loc loc;
	uint64_t start = 0;

	snprintf(path, sizeof(path), "%s/tmp", tmpdir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/tmp/perf-4242.map", tmpdir);
	write_file(path, "7f0000001000 40 Interpreter::run\n"
			 "7f0000001040 20 LFoo;::bar(int, long)\n"
			 "garbage line\n"
			 "7f0000002000 0 zero_size_ignored\n");
	o.symfs = tmpdir;
	s = new_session(&o);
	CHECK(!bbmap_session__mmap(s, U, 4242, 4242, 0x7f0000000000, 0x10000, 0, "//anon", NULL,
				   0, true));
	CHECK(!bbmap_session__mmap(s, U, 4243, 4243, 0x7f0000000000, 0x10000, 0, "//anon", NULL,
				   0, true));
	CHECK(!bbmap_session__lookup(s, 4242, U, 0x7f0000001050, &loc));
	CHECK_STR(bbmap_dso__name(loc.dso), "/tmp/perf-4242.map");
	CHECK(bbmap_dso__kind(loc.dso) == DSO_KIND_JIT);
	CHECK(bbmap_dso__module(loc.dso, NULL) == DSO_NO_CODE);
	CHECK_EQ_U64(loc.vaddr, 0x7f0000001050);
	CHECK_STR(bbmap_dso__symbol_name(loc.dso, loc.vaddr, &start), "LFoo;::bar(int, long)");
	CHECK_EQ_U64(start, 0x7f0000001040);
	CHECK_STR(bbmap_dso__symbol_name(loc.dso, 0x7f0000001000, NULL), "Interpreter::run");
	CHECK(bbmap_dso__symbol_name(loc.dso, 0x7f0000001060, NULL) == NULL);
	CHECK(bbmap_dso__symbol_name(loc.dso, 0x7f0000002000, NULL) == NULL);
	/* another process, no map file */
	CHECK(!bbmap_session__lookup(s, 4243, U, 0x7f0000001050, &loc));
	CHECK_STR(bbmap_dso__name(loc.dso), "/tmp/perf-4243.map");
	CHECK(bbmap_dso__module(loc.dso, NULL) == DSO_MISSING);
	CHECK(bbmap_dso__symbol_name(loc.dso, 0x7f0000001050, NULL) == NULL);
	bbmap_session__delete(s);
}

static void test_classify(void)
{
	CHECK(bbmap_dso__classify("/usr/lib/libc.so.6", false) == DSO_KIND_USER);
	CHECK(bbmap_dso__classify("[vdso]", false) == DSO_KIND_VDSO);
	CHECK(bbmap_dso__classify("[heap]", false) == DSO_KIND_ANON);
	CHECK(bbmap_dso__classify("[stack]", false) == DSO_KIND_ANON);
	CHECK(bbmap_dso__classify("[vsyscall]", false) == DSO_KIND_ANON);
	CHECK(bbmap_dso__classify("[uprobes]", false) == DSO_KIND_ANON);
	CHECK(bbmap_dso__classify("//anon", false) == DSO_KIND_ANON);
	CHECK(bbmap_dso__classify("/memfd:jit (deleted)", false) == DSO_KIND_ANON);
	CHECK(bbmap_dso__classify("/tmp/perf-12.map", false) == DSO_KIND_JIT);
	CHECK(bbmap_dso__classify("/home/u/.debug/jit/x/jitted-12-3.so", false) == DSO_KIND_JIT);
	CHECK(bbmap_dso__classify("[kernel.kallsyms]", true) == DSO_KIND_KERNEL);
	CHECK(bbmap_dso__classify("[xfs]", true) == DSO_KIND_KMODULE);
}

static void test_anon_status(void)
{
	struct bbmap_session *s = new_session(NULL);
	struct bbmap_loc loc;

	CHECK(!bbmap_session__mmap(s, U, 1, 1, 0x1000, 0x1000, 0, "[uprobes]", NULL, 0, true));
	CHECK(!bbmap_session__lookup(s, 1, U, 0x1000, &loc));
	CHECK(bbmap_dso__kind(loc.dso) == DSO_KIND_ANON);
	CHECK(bbmap_dso__module(loc.dso, NULL) == DSO_MISSING);
	CHECK(strstr(bbmap_dso__status_detail(loc.dso), "anonymous") != NULL);
	CHECK_EQ_U64(loc.vaddr, 0);
	bbmap_session__delete(s);
}

static void test_bad_values(void)
{
	struct bbmap_session *s = new_session(NULL);
	struct bbmap_loc loc;

	/* zero length, wrap-around end, empty name: no crash, defined results */
	CHECK(!bbmap_session__mmap(s, U, 1, 1, 0x1000, 0, 0, "/z", NULL, 0, true));
	CHECK(dso_at(s, 1, U, 0x1000, NULL) == NULL);
	CHECK(!bbmap_session__mmap(s, U, 1, 1, 0xfffffffffffff000, 0x2000, 0, NULL, NULL, 0,
				   true));
	CHECK(!bbmap_session__lookup(s, 1, U, 0xffffffffffffff00, &loc));
	CHECK(loc.map_end == UINT64_MAX);
	CHECK(!bbmap_session__ksymbol(s, 0x1000, 0, "empty", false));
	CHECK(bbmap_session__add_build_id(s, false, NULL, NULL, 0) < 0);
	CHECK(bbmap_session__lookup(s, 12345, U, 0x1000, &loc) == -HBBP_ENOTFOUND);
	bbmap_session__delete(s);
	bbmap_session__delete(NULL);
}

static void test_many_maps(void)
{
	struct bbmap_session *s = new_session(NULL);
	char name[32];
	uint32_t i;
	int bad = 0;

	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "/lib%u.so", i % 97);
		CHECK(!bbmap_session__mmap(s, U, 9, 9, 0x100000 + (uint64_t)i * 0x2000, 0x1000,
					   i * 0x1000, name, NULL, 0, true));
	}
	for (i = 0; i < 5000; i++) {
		uint64_t v = 0;
		const char *n = dso_at(s, 9, U, 0x100000 + (uint64_t)i * 0x2000 + 0x10, &v);

		snprintf(name, sizeof(name), "/lib%u.so", i % 97);
		bad += !n || strcmp(n, name) || v != i * 0x1000ull + 0x10;
		bad += dso_at(s, 9, U, 0x100000 + (uint64_t)i * 0x2000 + 0x1000, NULL) != NULL;
	}
	CHECK_EQ_U64(bad, 0);
	bbmap_session__delete(s);
}

int main(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/hbbp-session.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN_TEST(test_overlap_replaces);
	RUN_TEST(test_comm_timeline);
	RUN_TEST(test_fork_exec_exit);
	RUN_TEST(test_exit_keeps_late_samples);
	RUN_TEST(test_kernel_maps);
	RUN_TEST(test_ksymbol);
	RUN_TEST(test_kallsyms_names);
	RUN_TEST(test_slide_arithmetic);
	RUN_TEST(test_perfmap);
	RUN_TEST(test_classify);
	RUN_TEST(test_anon_status);
	RUN_TEST(test_bad_values);
	RUN_TEST(test_many_maps);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			fprintf(stderr, "cannot remove %s\n", tmpdir);
	}
	return TEST_EXIT();
}
