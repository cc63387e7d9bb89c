/* Unit tests of the compare metrics (hbbp/compare/metrics.c) and mix readers (hbbp/ref_*.c) against
 * values computed by hand from small inputs written here.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hbbp/compare/metrics.h"
#include "hbbp/compare/ref.h"
#include "tests/harness.h"
#include "util/hbbp_err.h"

static char tmpdir[] = "/tmp/test_compare.XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[4][256];
	static int slot;
	char *p = path[slot++ % 4];
	FILE *f;

	snprintf(p, 256, "%s/%s", tmpdir, name);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return p;
}

static void test_weighted_error(void)
{
	/* the paper's example form: ref {mov:100, add:50}, meas {mov:90, add:60}:
	 * (10 + 10) / 150 */
	double r[] = { 100, 50 }, m[] = { 90, 60 };
	/* a key missing on each side: ref {mov:100, add:50, nop:50}, meas {mov:100, add:50,
	 * xor:25}: nop is 100% error for its weight 50, xor adds 25: (0+0+50+25)/200 */
	double r2[] = { 100, 50, 50, 0 }, m2[] = { 100, 50, 0, 25 };

	CHECK_EQ_DBL(metrics__weighted_error(r, m, 2), 20.0 / 150, 1e-15);
	CHECK_EQ_DBL(metrics__error(100, 90), 0.1, 1e-15);
	CHECK_EQ_DBL(metrics__error(50, 60), 0.2, 1e-15);
	CHECK(metrics__error(0, 5) < 0);
	CHECK_EQ_DBL(metrics__weighted_error(r2, m2, 4), 75.0 / 200, 1e-15);
	CHECK_EQ_DBL(metrics__weighted_error(r, r, 2), 0, 0);
}

static void test_ip_metrics(void)
{
	/* reference: 4 addresses with counts 10, 10, 5, 1 (NI = 26); measured: three of
	 * them, c = 6, 3, 1 at addresses whose reference counts are 10, 5, 1 (NS = 10) */
	double all[] = { 10, 10, 5, 1 }, c[] = { 6, 3, 1 }, r[] = { 10, 5, 1 };
	double c2[] = { 3, 3, 1 };
	struct metrics_ip ip;
	double d0 = .6 - 10.0 / 26, d1 = .3 - 5.0 / 26, d2 = .1 - 1.0 / 26;
	double num = sqrt(.6 * d0 * d0 + .3 * d1 * d1 + .1 * d2 * d2);

	CHECK(metrics__ip(all, 4, c, r, 3, &ip) == 0);
	/* range of {.6,.3,.1} ∪ {10/26, 5/26, 1/26}: .6 − 1/26 */
	CHECK_EQ_DBL(ip.nrmse, num / (.6 - 1.0 / 26), 1e-12);
	CHECK_EQ_DBL(ip.nrmse, 0.317034, 1e-5);	/* the same, worked out on paper */
	CHECK_EQ_DBL(ip.coverage, 16.0 / 26, 1e-15);
	/* distinct reference counts 10 > 5 > 1: levels 1, 2, 3; measured 6 > 3 > 1: 1, 2, 3 */
	CHECK_EQ_DBL(ip.order_dev, 0, 0);
	/* ties: c = 3, 3, 1 -> SOLevel 1, 1, 2; ROLevel 1, 2, 3; deltas 0, -1, -1;
	 * weights 3/7, 3/7, 1/7: Σ w Δ² = 4/7 */
	CHECK(metrics__ip(all, 4, c2, r, 3, &ip) == 0);
	CHECK_EQ_DBL(ip.order_rms, sqrt(4.0 / 7), 1e-12);
	CHECK_EQ_DBL(ip.order_dev, sqrt(4.0 / 7) / 3, 1e-12);
	/* exact measurement of every address: NRMSE 0, coverage 1, order deviation 0 */
	{
		double a[] = { 10, 5, 1 };

		CHECK(metrics__ip(a, 3, a, a, 3, &ip) == 0);
		CHECK_EQ_DBL(ip.nrmse, 0, 1e-15);
		CHECK_EQ_DBL(ip.coverage, 1, 1e-15);
		CHECK_EQ_DBL(ip.order_dev, 0, 0);
	}
	CHECK(metrics__ip(all, 4, c, r, 0, &ip) == -1);
}

static double agg_count(const struct ref_agg *a, const char *key)
{
	size_t i;

	for (i = 0; i < a->nr; i++)
		if (!strcmp(a->rows[i].key, key))
			return a->rows[i].count;
	return -1;
}

static void test_read_csv(void)
{
	static const char *const mn[] = { "mnemonic" }, *const both[] = { "module", "mnemonic" };
	struct ref_mix *m = NULL;
	struct ref_agg a;
	const char *p;

	p = write_file("truth.csv", "mnemonic,count\nmov,100\nadd,50\n\"rep movsb\",7\n");
	CHECK(ref_mix__read(p, "count", &m) == 0);
	if (!m)
		return;
	CHECK_STR(m->kind, "pmusim-truth");
	CHECK(ref_mix__aggregate(m, mn, 1, &a) == 0);
	CHECK_EQ_DBL(a.total, 157, 0);
	CHECK_EQ_DBL(agg_count(&a, "rep movsb"), 7, 0);
	ref_agg__exit(&a);
	ref_mix__delete(m);

	/* our CSV: keys, count, share; pivoting on a subset sums the other keys */
	p = write_file("mix.csv", "module,symbol,mnemonic,count,share\n"
			"a.out,main,mov,60.5,0.4\na.out,f,mov,30,0.2\nlibc.so.6,\"x, y\",add,60,0.4\n");
	CHECK(ref_mix__read(p, "count", &m) == 0);
	if (!m)
		return;
	CHECK_STR(m->kind, "csv");
	CHECK(m->nr_cols == 3);
	CHECK(ref_mix__aggregate(m, mn, 1, &a) == 0);
	CHECK_EQ_DBL(agg_count(&a, "mov"), 90.5, 0);
	CHECK_EQ_DBL(agg_count(&a, "add"), 60, 0);
	ref_agg__exit(&a);
	CHECK(ref_mix__aggregate(m, both, 2, &a) == 0);
	CHECK_EQ_DBL(agg_count(&a, "libc.so.6\x1f" "add"), 60, 0);
	CHECK(a.nr == 2);
	ref_agg__exit(&a);
	{
		static const char *const iclass[] = { "iclass" };

		CHECK(ref_mix__aggregate(m, iclass, 1, &a) == -HBBP_ENOTFOUND);
	}
	ref_mix__delete(m);
}

static void test_read_insns(void)
{
	static const char *const mn[] = { "mnemonic" };
	struct ref_mix *m = NULL;
	struct ref_agg a;
	/* a module that cannot be opened: the runtime address is used as is */
	const char *p = write_file("insns.csv", "module,offset,address,count,mnemonic\n"
				   "/nonexistent/prog,0x1000,0x401000,5,mov\n"
				   "/nonexistent/prog,0x1003,0x401003,5,add\n"
				   "/nonexistent/prog,0x1010,0x401010,2,mov\n");

	CHECK(ref_mix__read(p, "count", &m) == 0);
	if (!m)
		return;
	CHECK_STR(m->kind, "pmusim-insns");
	CHECK(m->nr_ips == 3);
	CHECK_EQ_U64(m->ips[2].addr, 0x401010);
	CHECK(ref_mix__aggregate(m, mn, 1, &a) == 0);
	CHECK_EQ_DBL(agg_count(&a, "mov"), 7, 0);
	CHECK_EQ_DBL(agg_count(&a, "add"), 5, 0);
	ref_agg__exit(&a);
	ref_mix__delete(m);
	ref_decode__exit();
}

static void test_read_json(void)
{
	static const char *const mn[] = { "mnemonic" };
	struct ref_mix *m = NULL;
	struct ref_agg a;
	const char *p = write_file("mix.json",
		"{\"format_version\": 1, \"meta\": {\"file\": \"p.data\", \"cutoff\": 18, "
		"\"nested\": [1, {\"a\": null}]}, \"warnings\": [\"w\"],\n\"rows\": [\n"
		"{\"module\": \"a\", \"mnemonic\": \"mov\", \"count\": 1.5e+02, \"share\": 0.5},\n"
		"{\"module\": \"b\", \"mnemonic\": \"m\\u00e9v\", \"count\": 150, \"share\": 0.5}\n]}\n");

	CHECK(ref_mix__read(p, "count", &m) == 0);
	if (!m)
		return;
	CHECK_STR(m->kind, "json");
	CHECK(ref_mix__aggregate(m, mn, 1, &a) == 0);
	CHECK_EQ_DBL(agg_count(&a, "mov"), 150, 0);
	CHECK_EQ_DBL(agg_count(&a, "m\xc3\xa9v"), 150, 0);
	ref_agg__exit(&a);
	ref_mix__delete(m);
}

static double ip_count(const struct ref_mix *m, const char *mod, uint64_t addr)
{
	double c = 0;
	size_t i;
	bool found = false;

	for (i = 0; i < m->nr_ips; i++)
		if (!strcmp(hbbp_basename(m->ips[i].module, false), mod) && m->ips[i].addr == addr) {
			c += m->ips[i].count;
			found = true;
		}
	return found ? c : -1;
}

/* The callgrind format's features, in a profile written here (objects that do not exist:
 * no decoding, the per-address counts are checked): name compression, relative and "*"
 * subpositions, the Ir column not first, missing costs, a calls= cost line that is not self
 * cost, cob=/cfn= that do not change the current object. */
static void test_read_callgrind(void)
{
	struct ref_mix *m = NULL;
	const char *p = write_file("cg.out",
		"# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\n"
		"positions: instr line\nevents: Dr Ir\n\n"
		"ob=(1) /nonexistent/a.out\nfl=(1) a.c\nfn=(1) main\n"
		"0x1000 10 1 3\n"		/* 0x1000: 3 */
		"+4 * 1 3\n"			/* 0x1004: 3 */
		"+2 11 0 3\n"			/* 0x1006: 3 (the call) */
		"cob=(2) /nonexistent/b.so\ncfi=(1)\ncfn=(2) leaf\n"
		"calls=3 0x2000 20\n"
		"* * 9 30\n"			/* inclusive cost of the call: not self cost */
		"+5 12 0 3\n"			/* 0x100b: 3 */
		"fn=(2)\n"			/* leaf, still in a.out */
		"0x2000 20 0 3\n"		/* 0x2000: 3 */
		"-0 * 0 0\n"			/* 0x2000: +0 */
		"+1 -1 2 3\n"			/* 0x2001: 3 */
		"0x2002 21 4\n"			/* Ir missing: 0 */
		"ob=(2)\nfn=(3) other\n"
		"0x1000 5 0 7\n"		/* b.so 0x1000: 7 */
		"fn=(1)\nob=(1)\n"
		"0x1000 10 0 2\n"		/* a.out 0x1000: 3 + 2 */
		"totals: 0 31\n");

	CHECK(ref_mix__read(p, "count", &m) == 0);
	if (!m)
		return;
	CHECK_STR(m->kind, "callgrind");
	CHECK_EQ_DBL(ip_count(m, "a.out", 0x1000), 5, 0);
	CHECK_EQ_DBL(ip_count(m, "a.out", 0x1004), 3, 0);
	CHECK_EQ_DBL(ip_count(m, "a.out", 0x1006), 3, 0);
	CHECK_EQ_DBL(ip_count(m, "a.out", 0x100b), 3, 0);
	CHECK_EQ_DBL(ip_count(m, "a.out", 0x2000), 3, 0);
	CHECK_EQ_DBL(ip_count(m, "a.out", 0x2001), 3, 0);
	CHECK_EQ_DBL(ip_count(m, "a.out", 0x2002), -1, 0);
	CHECK_EQ_DBL(ip_count(m, "b.so", 0x1000), 7, 0);
	CHECK_EQ_DBL(m->total, 27, 0);
	ref_mix__delete(m);
	m = NULL;

	CHECK(ref_mix__read(write_file("cg_bad1", "# callgrind format\npositions: line\n"
				       "events: Ir\nob=/x\nfn=f\n10 1\n"), "count", &m) == -HBBP_EFORMAT);
	CHECK(ref_mix__read(write_file("cg_bad2", "# callgrind format\npositions: instr\n"
				       "events: Ir\nob=/x\nfn=(4)\n0x10 1\n"), "count", &m) ==
	      -HBBP_EFORMAT);
	CHECK(ref_mix__read(write_file("cg_bad3", "# callgrind format\npositions: instr\n"
				       "events: Ir\nob=/x\nfn=f\n0x10 1\n+x 1\n"), "count", &m) ==
	      -HBBP_EFORMAT);
	CHECK(ref_mix__read(write_file("cg_bad4", "# callgrind format\npositions: instr\n"
				       "events: Ir\nob=/x\nfn=f\n0x10 1\n%%\n"), "count", &m) ==
	      -HBBP_EFORMAT);
	CHECK(m == NULL);
	ref_decode__exit();
}

/* SDE -mix sections: a thread histogram, a function whose (C++) name holds spaces and " at ",
 * the thread's remainder outside functions, '*' groups skipped, the global histogram. */
static void test_read_sde(void)
{
	static const char *const ic[] = { "iclass" }, *const sym[] = { "symbol" },
			  *const si[] = { "symbol", "iclass" };
	struct ref_mix *m = NULL;
	struct ref_agg a;
	const char *p = write_file("sde.txt",
		"# EMIT_DYNAMIC_STATS FOR TID 0 EMIT #1\n#\n# $dynamic-counts\n#\n# TID 0\n"
		"# opcode count\n#\nADD 30\nJNZ 12\n*isa-ext-BASE 42\n*total 42\n"
		"# END_DYNAMIC_STATS\n"
		"# FUNCTION TOTALS FOR TID 0\n   0:           40  95.238  95.238  401000 f\n"
		"# END FUNCTION TOTALS\n"
		"# EMIT_PER_FUNCTION_STATS FOR TID 0 EMIT# 1\n#\n"
		"# $dynamic-counts-for-function: ns::f(int, char const*) at 0 at [0x401000, 0x401040)  95.238%\n"
		"#\n# TID 0\n# opcode count\n#\nADD 28\nJNZ 12\n*category-BINARY 28\n*total 40\n"
		"# END_PER_FUNCTION_STATS \n"
		"# EMIT_GLOBAL_DYNAMIC_STATS   EMIT# 1\n#\n# $global-dynamic-counts\n#\n"
		"# opcode count\n#\nADD 30\nJNZ 12\n*total 42\n\n# END_GLOBAL_DYNAMIC_STATS\n");

	CHECK(ref_mix__read(p, "count", &m) == 0);
	if (!m)
		return;
	CHECK_STR(m->kind, "sde");
	CHECK_EQ_DBL(m->total, 42, 0);
	CHECK(ref_mix__aggregate(m, ic, 1, &a) == 0);
	CHECK(a.nr == 2);
	CHECK_EQ_DBL(agg_count(&a, "ADD"), 30, 0);
	CHECK_EQ_DBL(agg_count(&a, "JNZ"), 12, 0);
	ref_agg__exit(&a);
	CHECK(ref_mix__aggregate(m, sym, 1, &a) == 0);
	CHECK_EQ_DBL(agg_count(&a, "ns::f(int, char const*) at 0"), 40, 0);
	CHECK_EQ_DBL(agg_count(&a, "[unknown]"), 2, 0);
	ref_agg__exit(&a);
	CHECK(ref_mix__aggregate(m, si, 2, &a) == 0);
	CHECK_EQ_DBL(agg_count(&a, "[unknown]\x1f" "ADD"), 2, 0);
	CHECK(a.nr == 3);
	ref_agg__exit(&a);
	ref_mix__delete(m);
	m = NULL;
	/* a function with more than its thread */
	CHECK(ref_mix__read(write_file("sde_bad.txt",
		"# $dynamic-counts\n# TID 0\nADD 3\n*total 3\n"
		"# $dynamic-counts-for-function: f at [0x1, 0x2) 1%\n# TID 0\nADD 4\n*total 4\n"),
		"count", &m) == -HBBP_EFORMAT);
	/* a section without *total */
	CHECK(ref_mix__read(write_file("sde_bad2.txt",
		"# $global-dynamic-counts\nADD 3\n# END_GLOBAL_DYNAMIC_STATS\n"), "count", &m) ==
	      -HBBP_EFORMAT);
	CHECK(m == NULL);
}

static void test_malformed(void)
{
	struct ref_mix *m = NULL;

	CHECK(ref_mix__read(write_file("bad1.csv", "mnemonic,count\nmov,100\nadd,x\n"), "count", &m) ==
	      -HBBP_EFORMAT);
	CHECK(ref_mix__read(write_file("bad2.csv", "mnemonic,count\nmov,100,3\n"), "count", &m) ==
	      -HBBP_EFORMAT);
	CHECK(ref_mix__read(write_file("bad3.csv", "mnemonic,total\nmov,100\n"), "count", &m) ==
	      -HBBP_EFORMAT);
	CHECK(ref_mix__read(write_file("bad4.csv", "mnemonic,count\n\"mov,100\n"), "count", &m) ==
	      -HBBP_EFORMAT);
	CHECK(ref_mix__read(write_file("bad5.csv", "mnemonic,count\nmov,-1\n"), "count", &m) ==
	      -HBBP_EFORMAT);
	CHECK(ref_mix__read(write_file("bad.json", "{\"rows\": [{\"mnemonic\": \"mov\"}]}"), "count", &m) ==
	      -HBBP_EFORMAT);
	CHECK(ref_mix__read(write_file("bad2.json", "{\"rows\": [{\"mnemonic\": \"mov\", "
				       "\"count\": 1}"), "count", &m) == -HBBP_EFORMAT);
	CHECK(m == NULL);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN_TEST(test_weighted_error);
	RUN_TEST(test_ip_metrics);
	RUN_TEST(test_read_csv);
	RUN_TEST(test_read_insns);
	RUN_TEST(test_read_json);
	RUN_TEST(test_read_callgrind);
	RUN_TEST(test_read_sde);
	RUN_TEST(test_malformed);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			fprintf(stderr, "cannot remove %s\n", tmpdir);
	}
	return TEST_EXIT();
}
