/* Unit tests of the instruction-mix pivot and result tables (hbbp/pivot/mix.c) on hand-built
 * block counts and a two-block fake module: keys, order, share, --top, filters, markers of
 * weight without code, diagnostics, and the schema tables. Expected values are by hand.
 */
#include <stdlib.h>
#include <string.h>

#include "hbbp/pivot/mix.h"
#include "tests/harness.h"
#include "util/hbbp_err.h"
#include "writers/schema.h"

struct bbmap_module { int unused; };
struct bbmap_dso { const char *name; bool kernel; struct bbmap_module *mod; };

static struct bbmap_module mod;
static struct bbmap_dso dso_prog = { "/bin/prog", false, &mod };
static struct bbmap_dso dso_k = { "[kernel.kallsyms]", true, NULL };

/* block A @0x10: mov (r), add, jne   block B @0x20: vaddps (rw, avx, 256), ret
 * ISA sets: mov, jne I86; add none (as an Arm instruction); vaddps AVX; ret marked
 * undecodable, without a set */
static struct bbmap_insn insns_a[3], insns_b[2];
static struct bbmap_symbol sym_f = { 0x10, 0x20, "f", false };
static struct bbmap_block blk_a = { .start = 0x10, .end = 0x1c, .nr_insns = 3, .insns = insns_a,
				    .sym = &sym_f };
static struct bbmap_block blk_b = { .start = 0x20, .end = 0x28, .nr_insns = 2, .insns = insns_b,
				    .sym = &sym_f };

static void insns_setup(void)
{
	memset(insns_a, 0, sizeof(insns_a));
	memset(insns_b, 0, sizeof(insns_b));
	insns_a[0] = (struct bbmap_insn){ .addr = 0x10, .mnemonic = "mov", .iclass = "MOV",
		.flags = BBMAP_INSN_MEM_READ, .isa = ISA_BASE, .isa_set = ISA_SET_I86, .len = 4 };
	insns_a[1] = (struct bbmap_insn){ .addr = 0x14, .mnemonic = "add", .iclass = "ADD",
		.isa = ISA_BASE, .len = 4 };
	insns_a[2] = (struct bbmap_insn){ .addr = 0x18, .mnemonic = "jne", .iclass = "JNZ",
		.flags = BBMAP_INSN_BRANCH | BBMAP_INSN_COND, .isa = ISA_BASE,
		.isa_set = ISA_SET_I86, .len = 4 };
	insns_b[0] = (struct bbmap_insn){ .addr = 0x20, .mnemonic = "vaddps", .iclass = "VADDPS",
		.flags = BBMAP_INSN_MEM_READ | BBMAP_INSN_MEM_WRITE, .isa = ISA_AVX,
		.isa_set = ISA_SET_AVX, .width = 256, .len = 4 };
	insns_b[1] = (struct bbmap_insn){ .addr = 0x24, .mnemonic = "ret", .iclass = "RET_NEAR",
		.flags = BBMAP_INSN_BRANCH | BBMAP_INSN_RET | BBMAP_INSN_BAD, .isa = ISA_BASE,
		.len = 4 };
}

static int f_block_at(void *ctx, struct bbmap_module *m, uint64_t vaddr,
		      const struct bbmap_block **blk)
{
	if (vaddr >= 0x10 && vaddr < 0x1c)
		*blk = &blk_a;
	else if (vaddr >= 0x20 && vaddr < 0x28)
		*blk = &blk_b;
	else
		return -HBBP_ENOTFOUND;
	return 0;
}

static enum bbmap_dso_status f_dso_module(void *ctx, struct bbmap_dso *d, struct bbmap_module **m)
{
	*m = d->mod;
	return d->mod ? DSO_OK : DSO_NO_CODE;
}

static const char *f_name(void *ctx, const struct bbmap_dso *d)
{
	return d->name;
}

static const char *f_short(void *ctx, const struct bbmap_dso *d)
{
	const char *s = strrchr(d->name, '/');

	return s ? s + 1 : d->name;
}

static enum bbmap_dso_kind f_kind(void *ctx, const struct bbmap_dso *d)
{
	return d->kernel ? DSO_KIND_KERNEL : DSO_KIND_USER;
}

/* The thread names the address-space session would hold after COMM records. */
static const char *f_comm(void *ctx, uint32_t pid, uint32_t key, uint32_t *tid)
{
	*tid = key;
	return pid != 7 ? NULL : key == 8 ? "worker" : "prog";
}

static const struct hbbp_code_ops ops = {
	.dso_module = f_dso_module, .block_at = f_block_at, .dso_name = f_name,
	.dso_short_name = f_short, .dso_kind = f_kind,
};
static const struct hbbp_code code = { .dso_name = f_name, .comm = f_comm };

static struct perf_event_info evi;
static const struct perf_event_info *evp[1] = { &evi };
static const struct perf_reader_stats rstats;
static const struct hbbp_event_role evr = { HBBP_ROLE_EBS, "instructions retired", false };

/* Two threads of pid 7 ("prog" and, after a COMM, "worker"):
 *   tid 7: A 10x (lbr), B 4x (ebs-fallback)      tid 8: A 2x (lbr)
 *   tid 8: 30 instructions of EBS weight in the kernel without code ("[no code]"). */
static void build(struct hbbp_accum *d, struct hbbp_counts *c)
{
	struct hbbp_block *b;
	struct hbbp_tblock *t;

	insns_setup();
	memset(&evi, 0, sizeof(evi));
	evi.name = "inst";
	CHECK(!hbbp_accum__init(d, &code, evp, &evr, 1));

	memset(c, 0, sizeof(*c));
	c->method = HBBP_METHOD_HBBP;
	c->cutoff = 18;
	c->nr_blocks = c->alloc_blocks = 3;
	c->blocks = b = calloc(3, sizeof(*b));
	b[0] = (struct hbbp_block){ .kind = HBBP_BLK_CODE, .dso = &dso_prog, .mod = &mod,
		.start = 0x10, .end = 0x1c, .nr_insns = 3, .symname = "f", .sym_start = 0x10,
		.sym_size = 0x20, .count = 12, .lbr_est = 12, .ebs_est = 9, .lbr_streams = 5,
		.ebs_samples = 1, .source = HBBP_SRC_LBR, .biased = true, .bias_share = 0.5 };
	b[1] = (struct hbbp_block){ .kind = HBBP_BLK_CODE, .dso = &dso_prog, .mod = &mod,
		.start = 0x20, .end = 0x28, .nr_insns = 2, .symname = "f", .sym_start = 0x10,
		.sym_size = 0x20, .count = 4, .ebs_est = 4, .ebs_samples = 2,
		.source = HBBP_SRC_EBS_FALLBACK };
	b[2] = (struct hbbp_block){ .kind = HBBP_BLK_NOCODE, .dso = &dso_k, .start = 0,
		.count = 30, .ebs_est = 30, .ebs_samples = 3, .source = HBBP_SRC_EBS };
	c->nr_tblocks = c->alloc_tblocks = 4;
	c->tblocks = t = calloc(4, sizeof(*t));
	t[0] = (struct hbbp_tblock){ .pid = 7, .tid = 7, .block = 0, .count = 10, .lbr_est = 10,
		.ebs_est = 6, .lbr_streams = 4, .ebs_samples = 1 };
	t[1] = (struct hbbp_tblock){ .pid = 7, .tid = 8, .block = 0, .count = 2, .lbr_est = 2,
		.ebs_est = 3, .lbr_streams = 1 };
	t[2] = (struct hbbp_tblock){ .pid = 7, .tid = 7, .block = 1, .count = 4, .ebs_est = 4,
		.ebs_samples = 2 };
	t[3] = (struct hbbp_tblock){ .pid = 7, .tid = 8, .block = 2, .count = 30, .ebs_est = 30,
		.ebs_samples = 3 };
	/* counts per batch of the samples (sums: the counts above) */
	t[0].count_bs = (struct hbbp_bsum){ { 5, 5 } };
	t[1].count_bs = (struct hbbp_bsum){ { 0, 0, 1, 1 } };
	t[2].count_bs = (struct hbbp_bsum){ { 1, 1, 1, 1 } };
	t[3].count_bs = (struct hbbp_bsum){ { 10, 10, 10 } };
}

static const struct result_cell *cell(const struct result_table *t, size_t row, const char *col)
{
	int i = result_table__col(t, col);

	if (i < 0 || row >= t->nr_rows)
		return NULL;
	return &result_table__row(t, row)[i];
}

static const char *text(const struct result_table *t, size_t row, const char *col)
{
	const struct result_cell *c = cell(t, row, col);

	return c && c->type == RES_TEXT ? c->s : NULL;
}

static double real(const struct result_table *t, size_t row, const char *col)
{
	const struct result_cell *c = cell(t, row, col);

	return c && c->type == RES_REAL ? c->d : c && c->type == RES_INT ? (double)c->i : -1;
}

static struct result_table *run(struct result **res, const char *by, struct hbbp_mix_opts *o,
				double *total)
{
	struct hbbp_accum d;
	struct hbbp_counts c;
	char err[256];
	struct result_table *t;

	build(&d, &c);
	CHECK(!hbbp_mix__parse_keys(o, by, NULL, err, sizeof(err)));
	CHECK(!result__new(res));
	CHECK(!hbbp_mix__build(*res, &c, &d, &ops, evp, &rstats, o, total));
	t = result__table(*res, "mix");
	hbbp_counts__exit(&c);
	hbbp_accum__exit(&d);
	return t;
}

/* By mnemonic: mov/add/jne 12 each (A: 10 + 2), vaddps/ret 4, [no code] 30. Total 74. */
static void test_mix_mnemonic(void)
{
	struct hbbp_mix_opts o;
	struct result *res;
	struct result_table *t;
	double total = 0;

	memset(&o, 0, sizeof(o));
	t = run(&res, "mnemonic", &o, &total);
	/* mnemonic, the counts, the five cycles columns unset (the stacks carry no cycle
	 * counts: only the SQL stores write them) */
	CHECK(t && t->nr_rows == 6 && t->nr_cols == 10);
	CHECK(t && t->nr_cols == 10 && !t->cols[4].unset && t->cols[5].unset &&
	      t->cols[9].unset && !strcmp(t->cols[5].name, "cycles"));
	CHECK_EQ_DBL(total, 74, 0);
	if (t && t->nr_rows == 6) {
		CHECK_STR(text(t, 0, "mnemonic"), "[no code]");
		CHECK_EQ_DBL(real(t, 0, "count"), 30, 0);
		/* intervals (hbbp/method/interval.h, K = 10, t(9) = 2.26215716; the mix rounds them
		 * as counts, to 4 significant digits below 1000): [no code] 30 from batches 10, 10,
		 * 10, 0...: batch estimates 100 x3, 0 x7, s^2 = (3 * 70^2 + 7 * 30^2) / 9, half width
		 * 2.26215716 * sqrt(s^2 / 10) = 34.555021: [0, 64.555021] */
		CHECK_EQ_DBL(real(t, 0, "count_lo"), 0, 0);
		CHECK_EQ_DBL(real(t, 0, "count_hi"), 64.555021, 5e-4 * 64.56);
		/* mov = block A of threads 7 and 8 summed batch by batch (one stack feeds both):
		 * 5+0, 5+0, 0+1, 0+1: estimates 50, 50, 10, 10, 0 x6 around 12, s^2 = 3760 / 9,
		 * half 14.621618 (summing the two shares' own variances would give 15.38) */
		CHECK_STR(text(t, 3, "mnemonic"), "mov");
		CHECK_EQ_DBL(real(t, 3, "count_lo"), 0, 0);
		CHECK_EQ_DBL(real(t, 3, "count_hi"), 26.621618, 5e-4 * 26.62);
		/* vaddps 4 from 1, 1, 1, 1: estimates 10 x4, 0 x6, s^2 = (4 * 36 + 6 * 16) / 9,
		 * half 3.694087: [0.305913, 7.694087] */
		CHECK_EQ_DBL(real(t, 5, "count_lo"), 0.305913, 5e-4 * 0.3059);
		CHECK_EQ_DBL(real(t, 5, "count_hi"), 7.694087, 5e-4 * 7.694);
		CHECK_EQ_DBL(real(t, 0, "share"), 30.0 / 74, 5e-6 * 30 / 74);	/* 6 digits */
		/* ties at 12 sorted by key */
		CHECK_STR(text(t, 1, "mnemonic"), "add");
		CHECK_STR(text(t, 2, "mnemonic"), "jne");
		CHECK_STR(text(t, 3, "mnemonic"), "mov");
		CHECK_STR(text(t, 4, "mnemonic"), "ret");
		CHECK_STR(text(t, 5, "mnemonic"), "vaddps");
		CHECK_EQ_DBL(real(t, 5, "count"), 4, 0);
	}
	result__delete(res);
}

/* By tid,comm,isa,width,mem with diagnostics and --top 2. */
static void test_mix_keys_top_diag(void)
{
	struct hbbp_mix_opts o;
	struct result *res;
	struct result_table *t;
	double total = 0;

	memset(&o, 0, sizeof(o));
	o.top = 2;
	o.diagnostics = true;
	t = run(&res, "tid,comm,isa,width,mem", &o, &total);
	/* rows: (8,worker,"","","") 30 [no code]; (7,prog,BASE,0,"") add+jne 20; (7,prog,BASE,0,r)
	 * mov 10; (7,prog,AVX,256,rw) 4; (7,prog,BASE,0,"") ret 4 -> merged into the 20 row: 24;
	 * (8,worker,BASE,0,"") 4; (8,worker,BASE,0,r) 2 */
	CHECK(t && t->nr_rows == 2);
	CHECK_EQ_DBL(total, 74, 0);
	if (t && t->nr_rows == 2) {
		CHECK_EQ_DBL(real(t, 0, "tid"), 8, 0);
		CHECK_STR(text(t, 0, "comm"), "worker");
		CHECK(cell(t, 0, "width")->type == RES_NULL);	/* no instruction: no width */
		CHECK_EQ_DBL(real(t, 1, "count"), 24, 0);
		CHECK_EQ_DBL(real(t, 1, "share"), 24.0 / 74, 5e-6 * 24 / 74);	/* 6 digits */
		CHECK_STR(text(t, 1, "isa"), "BASE");
		CHECK_STR(text(t, 1, "mem"), "none");	/* no memory access */
		CHECK_EQ_DBL(real(t, 1, "width"), 0, 0);
		CHECK_STR(text(t, 1, "source"), "mixed");	/* lbr (A) and ebs-fallback (B) */
		CHECK_EQ_DBL(real(t, 1, "biased"), 1, 0);
		/* ebs_count: A's 6 x 2 insns (add, jne) + B's 4 x 1 (ret) = 16 */
		CHECK_EQ_DBL(real(t, 1, "ebs_count"), 16, 1e-12);
		CHECK_EQ_DBL(real(t, 1, "lbr_count"), 20, 1e-12);
		/* samples counted once per thread-block: A 1 + B 2 */
		CHECK_EQ_DBL(real(t, 1, "ebs_samples"), 3, 0);
		CHECK_EQ_DBL(real(t, 1, "lbr_streams"), 4, 0);
	}
	result__delete(res);
}

/* By isa_set: A's mov and jne I86 24, add none 12 (no set); B's vaddps AVX 4, ret INVALID 4
 * (undecodable); the kernel's weight without code [no code] 30; ties by name. */
static void test_mix_isa_set(void)
{
	static const char *const want[] = { "[no code]", "I86", "none", "AVX", "INVALID" };
	static const double count[] = { 30, 24, 12, 4, 4 };
	struct hbbp_mix_opts o;
	struct result *res;
	struct result_table *t;
	double total = 0;
	size_t i;

	memset(&o, 0, sizeof(o));
	t = run(&res, "isa_set", &o, &total);
	CHECK(t && t->nr_rows == 5);
	CHECK_EQ_DBL(total, 74, 0);
	for (i = 0; t && i < t->nr_rows && i < 5; i++) {
		CHECK_STR(text(t, i, "isa_set"), want[i]);
		CHECK_EQ_DBL(real(t, i, "count"), count[i], 0);
	}
	result__delete(res);
}

/* Filters: --user-only drops the kernel row; --comm worker keeps tid 8 only. The share of a
 * filtered row is of every thread block (perf's --percentage absolute, the default: 44 of
 * 44 + the kernel's 30) or of the rows kept (relative). */
static void test_mix_filters(void)
{
	struct hbbp_mix_opts o;
	struct result *res;
	struct result_table *t;
	double total = 0;
	int pc;

	for (pc = HBBP_SHARE_ABSOLUTE; pc <= HBBP_SHARE_RELATIVE; pc++) {
		memset(&o, 0, sizeof(o));
		o.user_only = true;
		o.percentage = pc;
		t = run(&res, "module,symbol", &o, &total);
		CHECK(t && t->nr_rows == 1);
		CHECK_EQ_DBL(total, 44, 0);		/* A 12 x 3 + B 4 x 2 */
		if (t && t->nr_rows == 1) {
			CHECK_STR(text(t, 0, "module"), "prog");
			CHECK_STR(text(t, 0, "symbol"), "f");
			CHECK_EQ_DBL(real(t, 0, "share"),
				     pc == HBBP_SHARE_ABSOLUTE ? 0.594595 : 1, 5e-7);
		}
		result__delete(res);
	}
	memset(&o, 0, sizeof(o));
	o.comm = "worker";
	o.kernel_only = true;
	t = run(&res, "block,symbol", &o, &total);
	CHECK(t && t->nr_rows == 1);
	if (t && t->nr_rows == 1) {
		CHECK_STR(text(t, 0, "block"), "[kernel.kallsyms]+0x0");
		CHECK_STR(text(t, 0, "symbol"), "[unknown]");
		CHECK_EQ_DBL(real(t, 0, "count"), 30, 0);
	}
	result__delete(res);
	memset(&o, 0, sizeof(o));
	o.pid = "1,2";
	t = run(&res, "pid", &o, &total);
	CHECK(t && t->nr_rows == 0 && total == 0);
	result__delete(res);
}

/* The schema tables: columns exactly as writers/schema.h, ids and contents. */
static void test_tables(void)
{
	struct hbbp_mix_opts o;
	struct result *res;
	struct result_table *t;
	double total;
	size_t i;

	memset(&o, 0, sizeof(o));
	o.threads = true;	/* the sums are per thread: thread_blocks too */
	o.block_cycles = true;	/* the rows held: run() frees the counts they are made of */
	run(&res, "mnemonic", &o, &total);
	t = result__table(res, "blocks");
	CHECK(t && t->nr_cols == SCHEMA_NR(schema_blocks) && t->nr_rows == 3);
	for (i = 0; t && i < t->nr_cols; i++)
		CHECK(!strncmp(schema_blocks[i], t->cols[i].name, strlen(t->cols[i].name)));
	if (t && t->nr_rows == 3) {
		/* order: module [kernel.kallsyms] (id 1) before /bin/prog? names sort
		 * "/bin/prog" < "[kernel.kallsyms]": prog is module 1 */
		CHECK_EQ_DBL(real(t, 0, "address"), 0x10, 0);
		CHECK_EQ_DBL(real(t, 0, "module_id"), 1, 0);
		CHECK_EQ_DBL(real(t, 0, "length"), 3, 0);
		CHECK_EQ_DBL(real(t, 0, "bytes"), 12, 0);
		CHECK_STR(text(t, 0, "source"), "lbr");
		CHECK_EQ_DBL(real(t, 0, "biased"), 1, 0);
		CHECK_EQ_DBL(real(t, 0, "bias_share"), 0.5, 0);
		CHECK_EQ_DBL(real(t, 0, "executions"), 12, 0);
		CHECK_EQ_DBL(real(t, 0, "instructions"), 36, 0);	/* 12 x 3 */
		CHECK_EQ_DBL(real(t, 2, "module_id"), 2, 0);
		CHECK(cell(t, 2, "length")->type == RES_NULL);
		CHECK(cell(t, 2, "executions")->type == RES_NULL);	/* no code */
		CHECK_EQ_DBL(real(t, 2, "instructions"), 30, 0);
		CHECK_STR(text(t, 2, "srcline"), "[no code]");
	}
	t = result__table(res, "instructions");
	CHECK(t && t->nr_rows == 5 && t->nr_cols == SCHEMA_NR(schema_instructions));
	if (t && t->nr_rows == 5) {
		CHECK_STR(text(t, 3, "mnemonic"), "vaddps");
		CHECK_EQ_DBL(real(t, 3, "width"), 256, 0);
		CHECK_EQ_DBL(real(t, 3, "mem_write"), 1, 0);
		CHECK_EQ_DBL(real(t, 3, "idx"), 0, 0);
		CHECK_EQ_DBL(real(t, 3, "block_id"), 2, 0);
	}
	t = result__table(res, "thread_blocks");
	CHECK(t && t->nr_rows == 4);
	if (t && t->nr_rows == 4) {
		CHECK_EQ_DBL(real(t, 0, "tid"), 7, 0);
		CHECK_EQ_DBL(real(t, 0, "block_id"), 1, 0);
		CHECK_EQ_DBL(real(t, 0, "count"), 10, 0);
		CHECK_STR(text(t, 3, "comm"), "worker");
		CHECK_EQ_DBL(real(t, 3, "block_id"), 3, 0);
	}
	t = result__table(res, "modules");
	CHECK(t && t->nr_rows == 2);
	if (t && t->nr_rows == 2) {
		CHECK_STR(text(t, 0, "name"), "/bin/prog");
		CHECK_STR(text(t, 1, "kind"), "kernel");
	}
	t = result__table(res, "symbols");
	CHECK(t && t->nr_rows == 1);
	t = result__table(res, "events");
	CHECK(t && t->nr_rows == 1 && t->nr_cols == SCHEMA_NR(schema_events));
	result__delete(res);
}

static void test_parse_keys(void)
{
	struct hbbp_mix_opts o;
	char err[256];

	memset(&o, 0, sizeof(o));
	CHECK(!hbbp_mix__parse_keys(&o, "module,symbol,mnemonic", NULL, err, sizeof(err)));
	CHECK(o.nr_keys == 3 && !strcmp(hbbp_mix__key_name(&o, 2), "mnemonic"));
	CHECK(hbbp_mix__parse_keys(&o, "module,bogus", NULL, err, sizeof(err)) == -HBBP_EUSAGE);
	CHECK(strstr(err, "bogus") != NULL);
	CHECK(hbbp_mix__parse_keys(&o, "module,,symbol", NULL, err, sizeof(err)) == -HBBP_EUSAGE);
	CHECK(hbbp_mix__parse_keys(&o, "groups", NULL, err, sizeof(err)) == -HBBP_EUSAGE);
	CHECK(!hbbp_mix__parse_keys(&o, "groups,mem", "groups", err, sizeof(err)));
	CHECK(o.nr_keys == 2 && hbbp_mix__needs(&o) == HBBP_KEY_INSN);
}

int main(void)
{
	RUN_TEST(test_mix_mnemonic);
	RUN_TEST(test_mix_keys_top_diag);
	RUN_TEST(test_mix_isa_set);
	RUN_TEST(test_mix_filters);
	RUN_TEST(test_tables);
	RUN_TEST(test_parse_keys);
	return TEST_EXIT();
}
