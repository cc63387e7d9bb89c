/* annotate__build (hbbp/pivot/annotate.c) on hand-made result tables: instructions get their
 * block's count and interval, blocks listed twice at an address add up there, the hottest
 * functions come first, --symbol and --module select, the hottest-instructions cut keeps
 * count_cut, ids out of range (as a damaged table would hold) are skipped, and the
 * "annotate" table has the CSV's columns.
 */
#include <math.h>
#include <stdlib.h>

#include "hbbp/pivot/annotate.h"
#include "tests/harness.h"
#include "util/hbbp_err.h"
#include "writers/schema.h"

static struct result *mk(bool intervals)
{
	static const char *const blk_iv[] = {
		"block_id:int", "module_id:int", "symbol_id:int", "address:int", "length:int",
		"bytes:int", "srcline:text", "executions:real", "executions_lo:real",
		"executions_hi:real", "ebs_count:real", "lbr_count:real", "source:text",
		"ebs_samples:int", "lbr_streams:int", "biased:int", "bias_share:real",
		"instructions:real",
	};
	static const char *const blk_no[] = {
		"block_id:int", "module_id:int", "symbol_id:int", "address:int", "length:int",
		"bytes:int", "srcline:text", "executions:real", "ebs_count:real",
		"lbr_count:real", "source:text", "ebs_samples:int", "lbr_streams:int",
		"biased:int", "bias_share:real", "instructions:real",
	};
	/* blocks: id, symbol, address, length, count, lo, hi, source, biased */
	static const struct { int64_t sym; uint64_t addr; int64_t len; double c, lo, hi;
			      const char *src; int biased; } b[] = {
		{ 1, 0x100, 2, 10, 8, 12, "lbr", 0 },		/* f: 0x100, 0x102 */
		{ 1, 0x104, 1, 50, 40, 60, "ebs", 1 },		/* f: 0x104 */
		{ 1, 0x104, 1, 5, 4, 6, "lbr-fallback", 0 },	/* f: 0x104 again (overlap) */
		{ 2, 0x200, 3, 100, 90, 110, "lbr", 0 },	/* g: 0x200, 0x201, 0x202 */
		{ 99, 0x300, 1, 1000, 0, 2000, "ebs", 0 },	/* bad symbol id: skipped */
		{ 0, 0, 0, 7, 0, 20, "ebs", 0 },		/* pseudo block (no code) */
	};
	static const struct { int64_t blk; uint64_t addr; int len; const char *mn; } in[] = {
		{ 1, 0x100, 2, "mov" }, { 1, 0x102, 2, "add" }, { 2, 0x104, 1, "ret" },
		{ 3, 0x104, 1, "ret" }, { 4, 0x200, 1, "inc" }, { 4, 0x201, 1, "inc" },
		{ 4, 0x202, 1, "jne" }, { 5, 0x300, 1, "nop" }, { 0, 0x400, 1, "bad" },
		{ 77, 0x500, 1, "bad" },
	};
	struct result *r;
	struct result_table *t;
	struct result_cell *c;
	size_t i;

	if (result__new(&r))
		return NULL;
	result__add_table(r, "modules", schema_modules, SCHEMA_NR(schema_modules), &t);
	c = result_table__add_row(t);
	result_cell__int(&c[0], 1);
	result_cell__text(t, &c[1], "/bin/prog");
	c = result_table__add_row(t);
	result_cell__int(&c[0], 2);
	result_cell__text(t, &c[1], "/lib/libz.so");
	result__add_table(r, "symbols", schema_symbols, SCHEMA_NR(schema_symbols), &t);
	c = result_table__add_row(t);
	result_cell__int(&c[0], 1);
	result_cell__int(&c[1], 1);
	result_cell__text(t, &c[2], "f");
	result_cell__int(&c[3], 0x100);
	c = result_table__add_row(t);
	result_cell__int(&c[0], 2);
	result_cell__int(&c[1], 2);
	result_cell__text(t, &c[2], "g");
	result_cell__int(&c[3], 0x200);
	if (intervals)
		result__add_table(r, "blocks", blk_iv, sizeof(blk_iv) / sizeof(blk_iv[0]), &t);
	else	/* the same without the interval columns */
		result__add_table(r, "blocks", blk_no, sizeof(blk_no) / sizeof(blk_no[0]), &t);
	for (i = 0; i < sizeof(b) / sizeof(b[0]); i++) {
		c = result_table__add_row(t);
		result_cell__int(&c[result_table__col(t, "block_id")], (int64_t)i + 1);
		result_cell__int(&c[result_table__col(t, "module_id")], b[i].sym == 2 ? 2 : 1);
		if (b[i].sym)
			result_cell__int(&c[result_table__col(t, "symbol_id")], b[i].sym);
		result_cell__int(&c[result_table__col(t, "address")], (int64_t)b[i].addr);
		if (b[i].len)
			result_cell__int(&c[result_table__col(t, "length")], b[i].len);
		if (b[i].len) {		/* a pseudo block's weight: instructions only */
			result_cell__real(&c[result_table__col(t, "executions")], b[i].c);
			if (intervals) {
				result_cell__real(&c[result_table__col(t, "executions_lo")],
						  b[i].lo);
				result_cell__real(&c[result_table__col(t, "executions_hi")],
						  b[i].hi);
			}
		}
		result_cell__real(&c[result_table__col(t, "instructions")],
				  b[i].c * (double)(b[i].len ? b[i].len : 1));
		result_cell__text(t, &c[result_table__col(t, "source")], b[i].src);
		result_cell__int(&c[result_table__col(t, "biased")], b[i].biased);
	}
	result__add_table(r, "instructions", schema_instructions,
			  SCHEMA_NR(schema_instructions), &t);
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		c = result_table__add_row(t);
		result_cell__int(&c[result_table__col(t, "block_id")], in[i].blk);
		result_cell__int(&c[result_table__col(t, "address")], (int64_t)in[i].addr);
		result_cell__int(&c[result_table__col(t, "length")], in[i].len);
		result_cell__text(t, &c[result_table__col(t, "mnemonic")], in[i].mn);
	}
	return r;
}

static int fake_text(void *ctx, const char *module, uint64_t addr, char *buf, size_t len)
{
	(void)ctx;
	if (addr == 0x102)
		return -1;	/* falls back to the mnemonic */
	snprintf(buf, len, "%s@%llx", hbbp_basename(module, true), (unsigned long long)addr);
	return 0;
}

static void test_annotate_hottest(void)
{
	struct result *r = mk(true);
	struct annotate_opts o = { 0 };
	struct annotate *a = NULL;

	CHECK(r && !annotate__build(&a, r, &o, fake_text, NULL));
	if (!a)
		goto out;
	/* total: 10x2 + 50 + 5 + 100x3 + 1000 (bad symbol, still counted) + 7 (pseudo) */
	CHECK_EQ_DBL(a->total, 20 + 50 + 5 + 300 + 1000 + 7, 1e-9);
	CHECK(a->has_intervals);
	CHECK(a->nr_funcs == 2);
	if (a->nr_funcs == 2) {
		const struct annotate_func *g = &a->funcs[0], *f = &a->funcs[1];

		CHECK_STR(g->symbol, "g");
		CHECK_STR(g->module, "libz.so");
		CHECK_EQ_DBL(g->count, 300, 1e-9);
		CHECK(g->nr_insns == 3 && g->insns[0].block_start && !g->insns[1].block_start);
		CHECK_STR(g->insns[2].text, "libz.so@202");
		CHECK_STR(f->symbol, "f");
		CHECK(f->nr_insns == 3);
		if (f->nr_insns == 3) {
			CHECK_EQ_DBL(f->count, 10 + 10 + 55, 1e-9);
			CHECK_STR(f->insns[1].text, "add");	/* the text callback failed */
			/* 0x104 listed by two blocks: counts and bounds add up */
			CHECK(f->insns[2].addr == 0x104);
			CHECK_EQ_DBL(f->insns[2].count, 55, 1e-9);
			CHECK_EQ_DBL(f->insns[2].lo, 44, 1e-9);
			CHECK_EQ_DBL(f->insns[2].hi, 66, 1e-9);
			CHECK(f->insns[2].block_start && f->insns[2].biased);
			CHECK_STR(f->insns[2].source, "ebs");
			CHECK_EQ_DBL(f->insns[0].lo, 8, 1e-9);
		}
	}
out:
	annotate__delete(a);
	result__delete(r);
}

static void test_annotate_select(void)
{
	static const char *const names[] = { "f", "nosuch" };
	struct result *r = mk(false), *out = NULL;
	struct annotate_opts o = { .symbols = names, .nr_symbols = 2, .max_insns = 1 };
	struct annotate *a = NULL;
	const struct result_table *t;

	CHECK(r && !annotate__build(&a, r, &o, NULL, NULL));
	if (!a)
		goto out;
	CHECK(!a->has_intervals);
	CHECK(a->nr_funcs == 1 && a->funcs[0].nr_insns == 1 && a->funcs[0].nr_insns_all == 3);
	if (a->nr_funcs == 1 && a->funcs[0].nr_insns == 1) {
		CHECK(a->funcs[0].insns[0].addr == 0x104);	/* the hottest kept */
		CHECK(isnan(a->funcs[0].insns[0].lo));
		CHECK_EQ_DBL(a->funcs[0].count_cut, 20, 1e-9);
		CHECK_STR(a->funcs[0].insns[0].text, "ret");
	}
	CHECK(!result__new(&out) && !annotate__table(a, out, "annotate", false));
	t = out ? result__table(out, "annotate") : NULL;
	/* block_cycles and block_ipc: unset without cycles (the text formats leave them out) */
	CHECK(t && t->nr_cols == 12 && t->nr_rows == 1);
	if (t && t->nr_cols == 12) {
		CHECK_STR(t->cols[10].name, "block_cycles");
		CHECK(t->cols[10].unset && t->cols[11].unset);
	}
	if (t && t->nr_rows == 1) {
		CHECK_STR(t->cols[4].name, "count_lo");
		CHECK(result_table__row(t, 0)[4].type == RES_NULL);	/* no made-up interval */
		CHECK_STR(result_table__row(t, 0)[2].s, "0x104");
		CHECK_STR(result_table__row(t, 0)[7].s, "prog+0x104");
	}
	annotate__delete(a);
	a = NULL;
	/* --module: g only lives in libz.so */
	o.symbols = NULL;
	o.nr_symbols = 0;
	o.module = "libz.so";
	o.max_insns = 0;
	CHECK(!annotate__build(&a, r, &o, NULL, NULL));
	CHECK(a && a->nr_funcs == 1 && !strcmp(a->funcs[0].symbol, "g"));
out:
	annotate__delete(a);
	result__delete(out);
	result__delete(r);
}

static void test_annotate_no_tables(void)
{
	struct result *r = NULL;
	struct annotate_opts o = { 0 };
	struct annotate *a = NULL;

	CHECK(!result__new(&r));
	CHECK(annotate__build(&a, r, &o, NULL, NULL) < 0 && !a);
	result__delete(r);
}

/* the short names annotate shows (a path ending in '/' stays whole) and compare keys on
 * (nothing follows the '/'), and the prefix test */
static void test_basename_starts(void)
{
	CHECK_STR(hbbp_basename("/usr/lib/libc.so.6", true), "libc.so.6");
	CHECK_STR(hbbp_basename("/usr/lib/libc.so.6", false), "libc.so.6");
	CHECK_STR(hbbp_basename("[kernel.kallsyms]", false), "[kernel.kallsyms]");
	CHECK_STR(hbbp_basename("/opt/app/", true), "/opt/app/");
	CHECK_STR(hbbp_basename("/opt/app/", false), "");
	CHECK_STR(hbbp_basename(NULL, true), "");
	CHECK(hbbp_starts("/tmp/perf-12.map", "/tmp/perf-") && !hbbp_starts("/tmp", "/tmp/"));
	CHECK(hbbp_starts("x", "") && !hbbp_starts(NULL, "x"));
}

int main(void)
{
	RUN_TEST(test_annotate_hottest);
	RUN_TEST(test_annotate_select);
	RUN_TEST(test_annotate_no_tables);
	RUN_TEST(test_basename_starts);
	return th_failed_tests != 0;
}
