/* User taxonomy: parsing, first-match order, globs, prefix words, comments, errors. */
#include <stdlib.h>
#include <unistd.h>

#include "bbmap/taxonomy.h"
#include "tests/harness.h"
#include "util/hbbp_err.h"

static void test_match(void)
{
	struct bbmap_taxonomy *t;
	const char *text =
		"# latency classes\n"
		"long_latency: div idiv sqrt* vsqrt* fdiv*   # dividers\n"
		"sync: xadd lock* xchg\n"
		"\n"
		"simd_fp : *ps *pd\n"
		"long_latency: rdrand\n";

	CHECK_EQ_U64(bbmap_taxonomy__parse(&t, text, "t.txt"), 0);
	if (!t)
		return;
	CHECK_EQ_U64(bbmap_taxonomy__nr_groups(t), 3);
	CHECK_STR(bbmap_taxonomy__group_name(t, 0), "long_latency");
	CHECK_STR(bbmap_taxonomy__group_name(t, 2), "simd_fp");
	CHECK(bbmap_taxonomy__group_name(t, 3) == NULL);
	CHECK_STR(bbmap_taxonomy__group(t, "div"), "long_latency");
	CHECK_STR(bbmap_taxonomy__group(t, "sqrtsd"), "long_latency");
	CHECK_STR(bbmap_taxonomy__group(t, "vsqrtpd"), "long_latency");	/* first match wins */
	CHECK_STR(bbmap_taxonomy__group(t, "lock cmpxchg"), "sync");
	CHECK_STR(bbmap_taxonomy__group(t, "lock xadd"), "sync");
	CHECK_STR(bbmap_taxonomy__group(t, "xadd"), "sync");
	CHECK_STR(bbmap_taxonomy__group(t, "vaddps"), "simd_fp");
	CHECK_STR(bbmap_taxonomy__group(t, "ADDPD"), "simd_fp");		/* case-insensitive */
	CHECK_STR(bbmap_taxonomy__group(t, "rdrand"), "long_latency");
	CHECK_STR(bbmap_taxonomy__group(t, "mov"), "");
	CHECK_STR(bbmap_taxonomy__group(t, "divx"), "");			/* no implicit glob */
	CHECK_STR(bbmap_taxonomy__group(NULL, "div"), "");
	bbmap_taxonomy__delete(t);
}

static void test_errors(void)
{
	struct bbmap_taxonomy *t = (void *)1;

	CHECK_EQ_U64(bbmap_taxonomy__parse(&t, "ok: a\nno colon here\n", "bad.txt"),
		     -HBBP_EFORMAT);
	CHECK(t == NULL);
	CHECK_EQ_U64(bbmap_taxonomy__parse(&t, ": div\n", "bad.txt"), -HBBP_EFORMAT);
	CHECK_EQ_U64(bbmap_taxonomy__parse(&t, "two words: div\n", "bad.txt"), -HBBP_EFORMAT);
	CHECK_EQ_U64(bbmap_taxonomy__load(&t, "/nonexistent/taxonomy.txt"), -HBBP_ENOTFOUND);
	CHECK_EQ_U64(bbmap_taxonomy__parse(&t, "", "empty"), 0);
	CHECK_STR(bbmap_taxonomy__group(t, "div"), "");
	bbmap_taxonomy__delete(t);
}

static void test_load_file(void)
{
	char path[] = "/tmp/hbbp-tax.XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	struct bbmap_taxonomy *t = NULL;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	fputs("mem: mov* push pop\r\nbranch: j* call ret\n", f);
	fclose(f);
	CHECK_EQ_U64(bbmap_taxonomy__load(&t, path), 0);
	CHECK_STR(bbmap_taxonomy__group(t, "movzx"), "mem");
	CHECK_STR(bbmap_taxonomy__group(t, "pop"), "mem");		/* CRLF line endings */
	CHECK_STR(bbmap_taxonomy__group(t, "jne"), "branch");
	CHECK_STR(bbmap_taxonomy__group(t, "ret"), "branch");
	bbmap_taxonomy__delete(t);
	unlink(path);
}

int main(void)
{
	hbbp_log_set(NULL, NULL, HBBP_LOG_ERROR);
	RUN_TEST(test_match);
	RUN_TEST(test_errors);
	RUN_TEST(test_load_file);
	return TEST_EXIT();
}
