/* hbbp/train/learn.c: the model file format (hbbp/train/model.h) read back and refused when malformed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/harness.h"
#include "hbbp/train/model.h"
#include "util/hbbp_err.h"

static char path[] = "/tmp/test_model.XXXXXX";

static int load_text(const char *text, struct hbbp_model *m)
{
	char err[256];
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
	return hbbp_model__load(path, m, err, sizeof(err));
}

static void test_valid(void)
{
	struct hbbp_model m;

	CHECK(load_text("# comment\n\nhbbp-model 1\ncutoff 27\nruns 5\nblocks 4417\n"
			"lbr_closer 4389\nerror 2.8240\nerror_default 2.9720\n", &m) == 0);
	CHECK_EQ_U64(m.cutoff, 27);
	CHECK_EQ_U64(m.runs, 5);
	CHECK_EQ_U64(m.blocks, 4417);
	CHECK_EQ_U64(m.lbr_closer, 4389);
	CHECK_EQ_DBL(m.error, 2.824, 1e-9);
	CHECK_EQ_DBL(m.error_default, 2.972, 1e-9);
	CHECK(load_text("hbbp-model 1\r\ncutoff 0\r\n", &m) == 0);
	CHECK_EQ_U64(m.cutoff, 0);
	CHECK(m.error < 0);
}

static void test_roundtrip(void)
{
	struct hbbp_model m = { 33, 6, 4417, 4389, 2.824, 2.972 }, r;
	char err[256], text[1024];
	FILE *f = fopen(path, "w");

	CHECK(hbbp_model__text(&m, text, sizeof(text)) == 0);
	fputs(text, f);
	fclose(f);
	CHECK(hbbp_model__load(path, &r, err, sizeof(err)) == 0);
	CHECK_EQ_U64(r.cutoff, 33);
	CHECK_EQ_U64(r.runs, 6);
	CHECK_EQ_DBL(r.error_default, 2.972, 1e-4);
}

static void test_refused(void)
{
	struct hbbp_model m;
	char err[256], longline[400];

	CHECK(load_text("", &m) == -HBBP_EFORMAT);
	CHECK(load_text("hbbp-model 2\ncutoff 18\n", &m) == -HBBP_EFORMAT);
	CHECK(load_text("cutoff 18\nhbbp-model 1\n", &m) == -HBBP_EFORMAT);
	CHECK(load_text("hbbp-model 1\n", &m) == -HBBP_EFORMAT);		/* no cutoff */
	CHECK(load_text("hbbp-model 1\ncutoff -3\n", &m) == -HBBP_EFORMAT);
	CHECK(load_text("hbbp-model 1\ncutoff 18x\n", &m) == -HBBP_EFORMAT);
	CHECK(load_text("hbbp-model 1\ncutoff 100001\n", &m) == -HBBP_EFORMAT);
	CHECK(load_text("hbbp-model 1\ncutoff 99999999999999999999999\n", &m) == -HBBP_EFORMAT);
	CHECK(load_text("hbbp-model 1\ncutoff 18\ndepth 2\n", &m) == -HBBP_EFORMAT);
	CHECK(load_text("hbbp-model 1\ncutoff 18\nerror nan\n", &m) == -HBBP_EFORMAT);
	CHECK(load_text("hbbp-model 1\ncutoff\n", &m) == -HBBP_EFORMAT);
	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = 0;
	CHECK(load_text(longline, &m) == -HBBP_EFORMAT);
	CHECK(hbbp_model__load("/nonexistent/model", &m, err, sizeof(err)) < 0);
	CHECK(strstr(err, "/nonexistent/model") != NULL);
}

int main(void)
{
	int fd = mkstemp(path);

	if (fd < 0)
		return 1;
	close(fd);
	RUN_TEST(test_valid);
	RUN_TEST(test_roundtrip);
	RUN_TEST(test_refused);
	unlink(path);
	return TEST_EXIT();
}
