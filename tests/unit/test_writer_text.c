/* Unit tests of the CSV, JSON and JSONL writers against hand-written expected bytes:
 * RFC 4180 quoting, NULL vs empty, exact integers, shortest round-trip reals, JSON string
 * escaping (control characters, valid UTF-8 passed through, invalid bytes as \u00XX),
 * NaN/Inf, the documented document layout, and that no temporary file is left behind.
 * The shortest real is also checked against its definition (the first of printf's %.15g,
 * %.16g, %.17g that strtod reads back) on a million doubles of several shapes.
 */
#include <dirent.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/harness.h"
#include "writers/writer.h"
#include "writers/writer_int.h"

static char dir[64];

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Number of directory entries other than . and .. */
static int dir_entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static struct result *build(void)
{
	static const char *const cols[] = { "module:text", "mnemonic:text", "n:int",
					    "count:real" };
	static const char *const ev_cols[] = { "event_id:int", "name:text" };
	struct result *r;
	struct result_table *t, *ev;
	struct result_cell *c;

	if (result__new(&r))
		return NULL;
	result__meta_text(r, "file", "a \"b\".data");
	result__meta_int(r, "cutoff", 18);
	result__meta_real(r, "scale", 0.1);
	result__warn(r, "lost 3\tsamples");
	result__add_table(r, "events", ev_cols, 2, &ev);
	c = result_table__add_row(ev);
	result_cell__int(&c[0], 0);
	result_cell__text(ev, &c[1], "instructions:u");
	result__add_table(r, "mix", cols, 4, &t);
	c = result_table__add_row(t);
	result_cell__text(t, &c[0], "lib,c.so");
	result_cell__text(t, &c[1], "mov");
	result_cell__int(&c[2], INT64_MIN);
	result_cell__real(&c[3], 0.1);
	c = result_table__add_row(t);
	result_cell__text(t, &c[0], "say \"hi\"\nnext");
	result_cell__text(t, &c[1], "");
	result_cell__int(&c[2], INT64_MAX);
	result_cell__real(&c[3], HUGE_VAL);	/* +Inf */
	c = result_table__add_row(t);
	result_cell__text(t, &c[0], "h\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");	/* héé€😀 */
	/* c[1] stays NULL */
	result_cell__int(&c[2], 0);
	result_cell__real(&c[3], 2.0 / 3);
	c = result_table__add_row(t);
	result_cell__text(t, &c[0], "bad\xff\xc3(\xed\xa0\x80\x01\x7f\\");
	result_cell__text(t, &c[1], " sp");
	result_cell__int(&c[2], -1);
	result_cell__real(&c[3], NAN);
	return r;
}

static void test_writer_csv_bytes(void)
{
	static const char expect[] =
		"module,mnemonic,n,count\n"
		"\"lib,c.so\",mov,-9223372036854775808,0.1\n"
		"\"say \"\"hi\"\"\nnext\",\"\",9223372036854775807,inf\n"
		"h\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80,,0,0.6666666666666666\n"
		"bad\xff\xc3(\xed\xa0\x80\x01\x7f\\,\" sp\",-1,\n";
	struct result *r = build();
	char path[128], *got;

	snprintf(path, sizeof(path), "%s/out.csv", dir);
	CHECK(r != NULL);
	CHECK(writer_format_from_path(path) == WRITER_CSV);
	CHECK(writer__write(r, path, WRITER_CSV, NULL) == 0);
	got = slurp(path);
	CHECK_STR(got, expect);
	CHECK(dir_entries() == 1);
	free(got);
	unlink(path);
	result__delete(r);
}

/* Cells a spreadsheet would evaluate (OWASP, "CSV Injection"): text beginning with = + - @,
 * tab or CR gets a single quote before it, inside the quotes; text with those elsewhere and
 * numbers (negative ones too) are written as they are. */
static void test_writer_csv_formula(void)
{
	static const char *const cols[] = { "module:text", "n:int", "count:real" };
	static const char *const text[] = { "=1+2", "+x", "-bash", "@SUM(A1)", "\tx", "\rx",
					     "a=b", "-", "\"=q\"" };
	static const char expect[] =
		"module,n,count\n"
		"\"'=1+2\",-5,-0.5\n"
		"\"'+x\",-5,-0.5\n"
		"\"'-bash\",-5,-0.5\n"
		"\"'@SUM(A1)\",-5,-0.5\n"
		"\"'\tx\",-5,-0.5\n"
		"\"'\rx\",-5,-0.5\n"
		"a=b,-5,-0.5\n"
		"\"'-\",-5,-0.5\n"
		"\"\"\"=q\"\"\",-5,-0.5\n";
	struct result *r = NULL;
	struct result_table *t = NULL;
	struct result_cell *c;
	char path[128], *got;
	size_t i;

	CHECK(!result__new(&r) && !result__add_table(r, "mix", cols, 3, &t));
	for (i = 0; t && i < sizeof(text) / sizeof(text[0]); i++) {
		c = result_table__add_row(t);
		result_cell__text(t, &c[0], text[i]);
		result_cell__int(&c[1], -5);
		result_cell__real(&c[2], -0.5);
	}
	snprintf(path, sizeof(path), "%s/f.csv", dir);
	CHECK(writer__write(r, path, WRITER_CSV, NULL) == 0);
	got = slurp(path);
	CHECK_STR(got, expect);
	free(got);
	unlink(path);
	result__delete(r);
}

static void test_writer_json_bytes(void)
{
	static const char expect[] =
		"{\"format_version\": 2, \"meta\": {\"file\": \"a \\\"b\\\".data\", "
		"\"cutoff\": 18, \"scale\": 0.1}, \"warnings\": [\"lost 3\\tsamples\"],\n"
		"\"events\": [\n"
		"{\"event_id\": 0, \"name\": \"instructions:u\"}\n"
		"],\n"
		"\"rows\": [\n"
		"{\"module\": \"lib,c.so\", \"mnemonic\": \"mov\", \"n\": -9223372036854775808, "
		"\"count\": 0.1},\n"
		"{\"module\": \"say \\\"hi\\\"\\nnext\", \"mnemonic\": \"\", "
		"\"n\": 9223372036854775807, \"count\": null},\n"
		"{\"module\": \"h\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\", \"mnemonic\": null, "
		"\"n\": 0, \"count\": 0.6666666666666666},\n"
		"{\"module\": \"bad\\u00ff\\u00c3(\\u00ed\\u00a0\\u0080\\u0001\\u007f\\\\\", "
		"\"mnemonic\": \" sp\", \"n\": -1, \"count\": null}\n"
		"]}\n";
	static const char expect_l[] =
		"{\"format_version\": 2, \"meta\": {\"file\": \"a \\\"b\\\".data\", "
		"\"cutoff\": 18, \"scale\": 0.1}, \"warnings\": [\"lost 3\\tsamples\"]}\n"
		"{\"module\": \"lib,c.so\", \"mnemonic\": \"mov\", \"n\": -9223372036854775808, "
		"\"count\": 0.1}\n"
		"{\"module\": \"say \\\"hi\\\"\\nnext\", \"mnemonic\": \"\", "
		"\"n\": 9223372036854775807, \"count\": null}\n"
		"{\"module\": \"h\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\", \"mnemonic\": null, "
		"\"n\": 0, \"count\": 0.6666666666666666}\n"
		"{\"module\": \"bad\\u00ff\\u00c3(\\u00ed\\u00a0\\u0080\\u0001\\u007f\\\\\", "
		"\"mnemonic\": \" sp\", \"n\": -1, \"count\": null}\n";
	struct result *r = build();
	char path[128], *got;

	snprintf(path, sizeof(path), "%s/out.json", dir);
	CHECK(writer__write(r, path, writer_format_from_path(path), NULL) == 0);
	got = slurp(path);
	CHECK_STR(got, expect);
	free(got);
	unlink(path);
	snprintf(path, sizeof(path), "%s/out.jsonl", dir);
	CHECK(writer__write(r, path, writer_format_from_name("jsonl"), NULL) == 0);
	got = slurp(path);
	CHECK_STR(got, expect_l);
	free(got);
	unlink(path);
	CHECK(dir_entries() == 0);
	result__delete(r);
}

/* Reals: shortest form that reads back exactly, and no locale decimal comma even when the
 * process locale has one. */
static void test_writer_reals(void)
{
	static const char *const cols[] = { "x:real" };
	static const double vals[] = { 0.1, 1.0 / 3, 1e-310, 123456789012345678.0, -2.5, 1e21,
				       3.0, -42.0, 999999999999999.0, 1e15 };
	/* Python's repr() gives the same strings, except 1e-310: the search for the shortest
	 * form starts at 15 digits, which a subnormal does not need (it still reads back). */
	static const char expect[] = "x\n0.1\n0.3333333333333333\n9.99999999999997e-311\n"
				     "1.2345678901234568e+17\n-2.5\n1e+21\n3\n-42\n"
				     "999999999999999\n1e+15\n";
	struct result *r;
	struct result_table *t;
	char path[128], *got;
	size_t i, bad = 0;

	CHECK(result__new(&r) == 0);
	CHECK(result__add_table(r, "mix", cols, 1, &t) == 0);
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		result_cell__real(result_table__add_row(t), vals[i]);
	/* A locale with a decimal comma, if the machine has one: output must not change. */
	setlocale(LC_NUMERIC, "de_DE.UTF-8");
	snprintf(path, sizeof(path), "%s/r.csv", dir);
	CHECK(writer__write(r, path, WRITER_CSV, NULL) == 0);
	got = slurp(path);
	CHECK_STR(got, expect);
	/* Every value reads back to the same double. */
	setlocale(LC_NUMERIC, "C");
	for (i = 0; got && i < sizeof(vals) / sizeof(vals[0]); i++) {
		char *line = got;
		size_t k;

		for (k = 0; k <= i && line; k++)
			line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
		if (!line || strtod(line, NULL) != vals[i])
			bad++;
	}
	CHECK(bad == 0);
	free(got);
	unlink(path);
	result__delete(r);
}

/* The definition: the first of %.15g, %.16g and %.17g that reads back as v. */
static void shortest_by_printf(char *buf, size_t size, double v)
{
	int p;

	for (p = 15; p < 17; p++) {
		snprintf(buf, size, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			return;
	}
	snprintf(buf, size, "%.17g", v);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

/* A double of one of several shapes: any bit pattern, a count with a fraction, a decimal
 * with 15-17 digits (some ending in 5 or 50: halfway cases of the rounding), its neighbours
 * one ulp away, a power of ten, a power of two, a number of nines. */
static double some_double(unsigned shape)
{
	char dec[64];
	uint64_t u = rng();
	double v;

	switch (shape % 9) {
	case 0:
		memcpy(&v, &u, sizeof(v));
		return v;
	case 1:
		return (double)(u % 100000000000ull) / (double)(1 + rng() % 100000);
	case 2:
	case 3: {
		int digits = 15 + (int)(rng() % 3), e = (int)(rng() % 60) - 30;
		uint64_t m = rng() % 100000000000000000ull;

		snprintf(dec, sizeof(dec), "%.*llu", digits, (unsigned long long)m);
		dec[digits] = 0;
		if (shape % 7 == 3)
			dec[digits - 1] = '5', dec[digits - 2] = (char)(rng() & 1 ? '0' : dec[digits - 2]);
		snprintf(dec + digits, sizeof(dec) - (size_t)digits, "e%d", e);
		v = strtod(dec, NULL);
		return rng() & 1 ? nextafter(v, INFINITY) : rng() & 1 ? nextafter(v, 0) : v;
	}
	case 4:
		return pow(10, (double)(int)(rng() % 600) - 300) * (rng() & 1 ? 1 : -1);
	case 5:		/* a power of two (its lower neighbour is closer) or just below one */
		v = ldexp(1.0, (int)(rng() % 2000) - 1000);
		return rng() & 1 ? nextafter(v, 0) : v;
	case 6:
		v = 1 - pow(10, -(double)(1 + rng() % 17));
		return v * pow(10, (double)(int)(rng() % 40) - 20);
	case 7: {	/* a decimal of 1-15 digits, as counts, shares and intervals are */
		int digits = 1 + (int)(rng() % 15), e = (int)(rng() % 60) - 20;

		snprintf(dec, sizeof(dec), "%.*llue%d", digits,
			 (unsigned long long)(rng() % 1000000000000000ull), e);
		return strtod(dec, NULL);
	}
	default:	/* a share: a ratio rounded to 6 digits as the mix rounds it */
		v = (double)(rng() % 1000000000) / (double)(1 + rng() % 1000000000000ull);
		if (v == 0)
			return 0.5;
		u = (uint64_t)pow(10, 5 - (int)floor(log10(v)));
		return round(v * (double)u) / (double)u;
	}
}

static void test_writer_reals_shortest(void)
{
	char got[64], want[64];
	size_t i, n = 0, bad = 0;

	setlocale(LC_NUMERIC, "C");
	for (i = 0; i < 1000000; i++) {
		double v = some_double((unsigned)i);

		if (!isfinite(v) || v == 0 || (v == (double)(int64_t)v && fabs(v) < 1e15))
			continue;	/* "0", integers and non-finite values take other paths */
		n++;
		CHECK(wfmt__real(got, sizeof(got), v) == 0);
		shortest_by_printf(want, sizeof(want), v);
		if (strcmp(got, want) && bad++ < 5)
			printf("  %.17g: got %s, printf %s\n", v, got, want);
	}
	CHECK(n > 800000);
	CHECK(bad == 0);
}

static void test_writer_errors(void)
{
	struct result *r = build();
	struct writer_opts app = { .append = true };
	char path[160];

	snprintf(path, sizeof(path), "%s/no/such/dir/out.csv", dir);
	CHECK(writer__write(r, path, WRITER_CSV, NULL) == -ENOENT);
	snprintf(path, sizeof(path), "%s/out.csv", dir);
	CHECK(writer__write(r, path, WRITER_NONE, NULL) == -EINVAL);
	CHECK(writer__write(r, path, WRITER_CSV, &app) < 0);
	CHECK(writer__write(r, "-", WRITER_SQLITE, NULL) < 0);
	CHECK(writer_format_from_path("x.db") == WRITER_SQLITE);
	CHECK(writer_format_from_path("x.sqlite") == WRITER_SQLITE);
	CHECK(writer_format_from_path("x.JSON") == WRITER_JSON);
	CHECK(writer_format_from_path("dir.csv/x") == WRITER_NONE);
	CHECK(writer_format_from_path("x.txt") == WRITER_NONE);
	CHECK(writer_format_from_name("jsonl") == WRITER_JSONL);
	CHECK(dir_entries() == 0);
	result__delete(r);
}

/* A result without a "mix" table: JSON has empty rows, CSV refuses (nothing created). */
static void test_writer_no_mix(void)
{
	struct result *r;
	char path[128], *got;

	CHECK(result__new(&r) == 0);
	CHECK(result__meta_text(r, "k", "\x01\x1f") == 0);
	snprintf(path, sizeof(path), "%s/e.json", dir);
	CHECK(writer__write(r, path, WRITER_JSON, NULL) == 0);
	got = slurp(path);
	CHECK_STR(got, "{\"format_version\": 2, \"meta\": {\"k\": \"\\u0001\\u001f\"}, "
		       "\"warnings\": [],\n\"rows\": []}\n");
	free(got);
	unlink(path);
	snprintf(path, sizeof(path), "%s/e.csv", dir);
	CHECK(writer__write(r, path, WRITER_CSV, NULL) == -EINVAL);
	CHECK(dir_entries() == 0);
	result__delete(r);
}

/* The cleanup handlers exist only during a write; an ignored signal stays ignored. */
static void test_writer_signal_handlers(void)
{
	struct result *r = build();
	struct sigaction sa, term, hup;
	char path[128];

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGHUP, &sa, &hup);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGTERM, &sa, &term);
	snprintf(path, sizeof(path), "%s/s.csv", dir);
	CHECK(writer__write(r, path, WRITER_CSV, NULL) == 0);
	sigaction(SIGTERM, NULL, &sa);
	CHECK(sa.sa_handler == SIG_DFL);
	sigaction(SIGHUP, NULL, &sa);
	CHECK(sa.sa_handler == SIG_IGN);
	sigaction(SIGTERM, &term, NULL);
	sigaction(SIGHUP, &hup, NULL);
	unlink(path);
	result__delete(r);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "%s/wtext.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		printf("FAIL mkdtemp\n");
		return 1;
	}
	RUN_TEST(test_writer_csv_bytes);
	RUN_TEST(test_writer_csv_formula);
	RUN_TEST(test_writer_json_bytes);
	RUN_TEST(test_writer_reals);
	RUN_TEST(test_writer_reals_shortest);
	RUN_TEST(test_writer_errors);
	RUN_TEST(test_writer_signal_handlers);
	RUN_TEST(test_writer_no_mix);
	rmdir(dir);
	return TEST_EXIT();
}
