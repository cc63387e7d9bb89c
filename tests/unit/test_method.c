/* Unit tests of the HBBP method (hbbp/method/accum.c, hbbp/method/blocks.c) on test doubles: a
 * fake code model (modules as lists of fixed-size instructions with leaders computed the way
 * method.md §3 says) bound through struct hbbp_code, and records built in memory, fed one by
 * one as a record loop would. Every expected number is computed by hand in the comments next
 * to it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/method/method.h"
#include "tests/harness.h"
#include "util/hbbp_err.h"

/* ---- the fake code model ---- */

#define MAXI 128

struct bbmap_module {
	uint64_t base;			/* vaddr of the first instruction */
	size_t nr;
	struct bbmap_insn insns[MAXI];	/* 4 bytes each, contiguous */
	bool leader[MAXI];
	struct bbmap_block blk;		/* returned by block_at */
	struct bbmap_symbol sym;
	int nr_add_leader;
};

struct bbmap_dso {
	const char *name;
	struct bbmap_module *mod;	/* NULL: no code */
	uint64_t start, end;		/* runtime map */
};

#define NDSO 3
static struct bbmap_module mods[2];
static struct bbmap_dso dsos[NDSO];

/* kinds for fake_insn */
enum { I_PLAIN, I_JCC, I_JMP, I_RET, I_CALL };

static void fake_insn(struct bbmap_module *m, int kind, uint64_t target)
{
	struct bbmap_insn *in = &m->insns[m->nr];

	memset(in, 0, sizeof(*in));
	in->addr = m->base + 4 * m->nr;
	in->len = 4;
	in->mnemonic = kind == I_JCC ? "jne" : kind == I_JMP ? "jmp" : kind == I_RET ? "ret" :
		       kind == I_CALL ? "call" : "mov";
	in->iclass = in->mnemonic;
	switch (kind) {
	case I_JCC: in->flags = BBMAP_INSN_BRANCH | BBMAP_INSN_COND | BBMAP_INSN_HAS_TARGET; break;
	case I_JMP: in->flags = BBMAP_INSN_BRANCH | BBMAP_INSN_HAS_TARGET; break;
	case I_RET: in->flags = BBMAP_INSN_BRANCH | BBMAP_INSN_RET; break;
	case I_CALL: in->flags = BBMAP_INSN_BRANCH | BBMAP_INSN_CALL | BBMAP_INSN_HAS_TARGET; break;
	}
	in->target = target;
	m->nr++;
}

/* Static leaders: first insn, direct targets, after every branch. */
static void fake_finish(struct bbmap_module *m)
{
	size_t i;

	m->leader[0] = true;
	for (i = 0; i < m->nr; i++) {
		const struct bbmap_insn *in = &m->insns[i];

		if (!(in->flags & BBMAP_INSN_BRANCH))
			continue;
		if (i + 1 < m->nr)
			m->leader[i + 1] = true;
		if ((in->flags & BBMAP_INSN_HAS_TARGET) && in->target >= m->base &&
		    in->target < m->base + 4 * m->nr && !(in->target & 3))
			m->leader[(in->target - m->base) / 4] = true;
	}
	m->sym.start = m->base;
	m->sym.size = 4 * m->nr;
	m->sym.name = "func";
}

static int fake_index(const struct bbmap_module *m, uint64_t vaddr)
{
	if (vaddr < m->base || vaddr >= m->base + 4 * m->nr)
		return -1;
	return (int)((vaddr - m->base) / 4);
}

static int f_locate(void *ctx, uint32_t pid, int cpumode, uint64_t addr, struct bbmap_loc *loc)
{
	size_t i;

	for (i = 0; i < NDSO; i++) {
		if (dsos[i].name && addr >= dsos[i].start && addr < dsos[i].end) {
			loc->dso = &dsos[i];
			loc->vaddr = addr - dsos[i].start + (dsos[i].mod ? dsos[i].mod->base : 0);
			loc->map_start = dsos[i].start;
			loc->map_end = dsos[i].end;
			return 0;
		}
	}
	loc->dso = NULL;
	return -HBBP_ENOTFOUND;
}

static struct bbmap_module *f_module(void *ctx, struct bbmap_dso *d)
{
	return d->mod;
}

static int f_add_leaders(void *ctx, const struct hbbp_leaders *l)
{
	size_t i, k;

	for (i = 0; i < l->nr; i++)
		for (k = 0; k < l->lists[i].nr; k++) {
			struct bbmap_module *m = l->lists[i].mod;
			uint64_t vaddr = l->lists[i].vaddrs[k];
			int j = fake_index(m, vaddr);

			m->nr_add_leader++;
			if (j >= 0 && !(vaddr & 3))
				m->leader[j] = true;
		}
	return 0;
}

static int f_block(void *ctx, struct bbmap_module *m, uint64_t vaddr,
		      const struct bbmap_block **blk)
{
	int i = fake_index(m, vaddr), s, e;

	if (i < 0)
		return -HBBP_ENOTFOUND;
	for (s = i; !m->leader[s]; s--)
		;
	for (e = i; e + 1 < (int)m->nr && !m->leader[e + 1] &&
		    !(m->insns[e].flags & BBMAP_INSN_BRANCH); e++)
		;
	m->blk.start = m->insns[s].addr;
	m->blk.end = m->insns[e].addr + 4;
	m->blk.nr_insns = (uint32_t)(e - s + 1);
	m->blk.end_flags = m->insns[e].flags & BBMAP_INSN_BRANCH ?
			   m->insns[e].flags & BBMAP_INSN_TRANSFER_MASK : 0;
	m->blk.insns = &m->insns[s];
	m->blk.sym = &m->sym;
	*blk = &m->blk;
	return 0;
}

static const struct bbmap_symbol *f_symbol_at(void *ctx, struct bbmap_module *m, uint64_t vaddr)
{
	return fake_index(m, vaddr) >= 0 ? &m->sym : NULL;
}

static const char *f_dso_symbol(void *ctx, struct bbmap_dso *d, uint64_t vaddr, uint64_t *start)
{
	*start = 0x40;
	return "nocode_sym";
}

static const char *f_dso_name(void *ctx, const struct bbmap_dso *d)
{
	return d->name;
}

static const struct hbbp_code fake_code = {
	.module = f_module, .add_leaders = f_add_leaders, .block = f_block,
	.symbol = f_symbol_at, .dso_symbol = f_dso_symbol, .dso_name = f_dso_name,
};

/*
 * Module A (dso "a", runtime 0x400000.., vaddr 0x1000..):
 *   0x1000 mov            B1 = [0x1000,0x100c) 3 insns
 *   0x1004 mov
 *   0x1008 jne 0x1000
 *   0x100c mov            B2 = [0x100c,0x1018) 3 insns (split at 0x1010 by an LBR target)
 *   0x1010 mov
 *   0x1014 jmp 0x1000
 *   0x1018 mov            B3 = [0x1018,0x1020) 2 insns
 *   0x101c ret
 * Module B (dso "b", runtime 0x500000.., vaddr 0x2000..): 0x2000 mov, 0x2004 ret.
 * dso "c" (runtime 0x600000..0x601000) has no code.
 */
#define RA(v) (0x400000 + (v) - 0x1000)
#define RB(v) (0x500000 + (v) - 0x2000)

static void fake_setup(void)
{
	memset(mods, 0, sizeof(mods));
	memset(dsos, 0, sizeof(dsos));
	mods[0].base = 0x1000;
	fake_insn(&mods[0], I_PLAIN, 0);
	fake_insn(&mods[0], I_PLAIN, 0);
	fake_insn(&mods[0], I_JCC, 0x1000);
	fake_insn(&mods[0], I_PLAIN, 0);
	fake_insn(&mods[0], I_PLAIN, 0);
	fake_insn(&mods[0], I_JMP, 0x1000);
	fake_insn(&mods[0], I_PLAIN, 0);
	fake_insn(&mods[0], I_RET, 0);
	fake_finish(&mods[0]);
	mods[1].base = 0x2000;
	fake_insn(&mods[1], I_PLAIN, 0);
	fake_insn(&mods[1], I_RET, 0);
	fake_finish(&mods[1]);
	dsos[0] = (struct bbmap_dso){ "a", &mods[0], 0x400000, 0x400020 };
	dsos[1] = (struct bbmap_dso){ "b", &mods[1], 0x500000, 0x500008 };
	dsos[2] = (struct bbmap_dso){ "c", NULL, 0x600000, 0x601000 };
}

/* ---- records ---- */

/* One record into the accumulator, as a record loop feeds it (tasks by thread). */
static int feed(struct hbbp_accum *a, const struct perf_record *r)
{
	struct hbbp_sample_item it;
	struct hbbp_end ends[64];
	uint8_t flags[32];
	struct hbbp_bsum bs;
	struct bbmap_loc loc;
	uint64_t k;
	int err;

	if (r->type == PERF_RECORD_READ)
		return hbbp_accum__read_value(a, r->read.pid, r->read.tid, 0, r->evidx,
					      r->read.time_enabled, r->read.time_running);
	hbbp_sample__digest(a->ev, a->nr_events, 0, r, &it);
	err = hbbp_accum__count_item(a, &it);
	memset(&bs, 0, sizeof(bs));
	bs.b[it.batch] = it.kind == HBBP_ITEM_LBR ? it.weight : (double)it.period;
	if (err || (it.kind != HBBP_ITEM_EBS && it.kind != HBBP_ITEM_LBR))
		return err;
	if (it.kind == HBBP_ITEM_EBS)
		return hbbp_accum__ebs(a, it.pid, it.tid, it.evidx,
				       f_locate(NULL, it.pid, it.cpumode, it.ip, &loc) ? NULL : &loc,
				       (double)it.period, 1, &bs);
	for (k = 0; k < 2 * it.nr; k++) {	/* each end through the code, as the engine */
		uint64_t addr = k & 1 ? it.raw[k / 2].to : it.raw[k / 2].from;

		if (!addr || f_locate(NULL, it.pid, hbbp_branch_cpumode(it.cpumode, addr), addr,
				      &loc))
			loc.dso = NULL;
		ends[k].dso = loc.dso;
		ends[k].vaddr = loc.dso ? loc.vaddr : 0;
		if (k & 1)
			flags[k / 2] = hbbp_lbr_entry_flag(it.raw, k / 2);
	}
	return hbbp_accum__lbr(a, it.pid, it.tid, it.evidx,
			       &(struct hbbp_stack){ it.nr, flags, ends, NULL, NULL, NULL }, it.weight,
			       (double)it.period, 1, &bs);
}

/* The attribution, its rejections added to the accumulator's. */
static int compute(struct hbbp_counts *c, struct hbbp_accum *a, enum hbbp_method m)
{
	int err = hbbp_counts__compute(c, a, m, 18);

	return err ? err : hbbp_accum__add_counts(a, c);
}

static struct perf_event_info ev_info[2];
static const struct perf_event_info *ev_ptrs[2] = { &ev_info[0], &ev_info[1] };
static struct hbbp_event_role ev_roles[2];

static void events_setup(void)
{
	memset(ev_info, 0, sizeof(ev_info));
	memset(ev_roles, 0, sizeof(ev_roles));
	ev_info[0].idx = 0;
	ev_info[0].name = "inst_retired";
	ev_roles[0].role = HBBP_ROLE_EBS;
	ev_info[1].idx = 1;
	ev_info[1].name = "br_taken";
	ev_roles[1].role = HBBP_ROLE_LBR;
	ev_roles[1].branch_any = true;
}

static int ebs_sample(struct hbbp_accum *d, uint32_t tid, uint64_t ip, uint64_t period)
{
	struct perf_record r;

	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_SAMPLE;
	r.misc = PERF_RECORD_MISC_USER;
	r.evidx = 0;
	r.sample.pid = 100;
	r.sample.tid = tid;
	r.sample.ip = ip;
	r.sample.period = period;
	return feed(d, &r);
}

/* pairs: from0, to0, from1, to1, ... newest first */
static int lbr_sample(struct hbbp_accum *d, uint32_t tid, uint64_t period, size_t n,
		      const uint64_t *pairs, const uint64_t *flags)
{
	struct perf_branch_entry e[32];
	struct perf_record r;
	size_t i;

	memset(&r, 0, sizeof(r));
	memset(e, 0, sizeof(e));
	for (i = 0; i < n; i++) {
		e[i].from = pairs[2 * i];
		e[i].to = pairs[2 * i + 1];
		e[i].flags = flags ? flags[i] : 0;
	}
	r.type = PERF_RECORD_SAMPLE;
	r.misc = PERF_RECORD_MISC_USER;
	r.evidx = 1;
	r.sample.pid = 100;
	r.sample.tid = tid;
	r.sample.ip = RA(0x1000);
	r.sample.period = period;
	r.sample.nr_branches = n;
	r.sample.branches = e;
	return feed(d, &r);
}

static const struct hbbp_block *find_block(const struct hbbp_counts *c, const char *dso,
					   uint64_t start)
{
	size_t i;

	for (i = 0; i < c->nr_blocks; i++)
		if (c->blocks[i].kind == HBBP_BLK_CODE && !strcmp(c->blocks[i].dso->name, dso) &&
		    c->blocks[i].start == start)
			return &c->blocks[i];
	return NULL;
}

/* ---- tests ---- */

/* n-1 weighting: one stack of 4 entries, period 300 -> 3 streams of weight 100. */
static void test_stream_weighting(void)
{
	struct hbbp_accum d;
	struct hbbp_counts c;
	const struct hbbp_block *b1, *b2;
	const uint64_t st[] = {
		RA(0x1008), RA(0x1000),		/* e0 */
		RA(0x1008), RA(0x1000),		/* e1: stream e1.to 0x1000 -> e0.from 0x1008 */
		RA(0x1014), RA(0x1000),		/* e2: stream 0x1000 -> e1.from 0x1008 */
		RA(0x1008), RA(0x100c),		/* e3: stream 0x100c -> e2.from 0x1014 */
	};

	fake_setup();
	events_setup();
	CHECK(!hbbp_accum__init(&d, &fake_code, ev_ptrs, ev_roles, 2));
	CHECK(!lbr_sample(&d, 100, 300, 4, st, NULL));
	hbbp_accum__scale(&d);
	CHECK_EQ_U64(d.ev[1].streams, 3);
	CHECK(!compute(&c, &d, HBBP_METHOD_HBBP));
	b1 = find_block(&c, "a", 0x1000);
	b2 = find_block(&c, "a", 0x100c);
	CHECK(b1 && b2);
	if (b1 && b2) {
		CHECK_EQ_DBL(b1->lbr_est, 200.0, 1e-9);	/* two streams of 100 */
		CHECK_EQ_U64(b1->lbr_streams, 2);
		CHECK_EQ_DBL(b2->lbr_est, 100.0, 1e-9);
		CHECK_EQ_U64(b2->nr_insns, 3);
		CHECK_STR(hbbp_source_name(b1->source), "lbr");
		CHECK_EQ_DBL(b1->count, 200.0, 1e-9);
	}
	CHECK(!find_block(&c, "a", 0x1018));		/* never executed */
	hbbp_counts__exit(&c);
	hbbp_accum__exit(&d);
}

/* Rejections: to>from, cross-module, unmapped, speculative, a walk over a jmp, no code. */
static void test_stream_rejects(void)
{
	struct hbbp_accum d;
	struct hbbp_counts c;
	const uint64_t st[] = {
		RA(0x1008), RA(0x1000),		/* e0 */
		RA(0x1004), RA(0x1014),		/* e1: 0x1014 -> e0.from 0x1008: to>from */
		RB(0x2004), RA(0x100c),		/* e2: 0x100c -> e1.from 0x1004: to>from as well */
		0x9000, RB(0x2000),		/* e3: b:0x2000 -> e2.from b:0x2004: valid (b) */
		RA(0x1014), 0x9000,		/* e4: unmapped 0x9000 -> e3.from 0x9000: unmapped */
		0x600010, RA(0x100c),		/* e5: a:0x100c -> e4.from a:0x1014: valid */
		RA(0x1008), 0x600000,		/* e6: c:0x600000 -> c:0x600010: no code */
		RA(0x1018), RA(0x1000),		/* e7: a:0x1000 -> e6.from a:0x1008: valid (B1) */
		RA(0x1018), RA(0x100c),		/* e8: wrong-path entry: its stream is speculative */
	};
	uint64_t flags[9] = { 0 };
	const struct hbbp_block *b;

	flags[8] = (uint64_t)PERF_BR_SPEC_WRONG_PATH << 24;
	fake_setup();
	events_setup();
	CHECK(!hbbp_accum__init(&d, &fake_code, ev_ptrs, ev_roles, 2));
	/* 9 entries, 8 streams, period 800 -> weight 100 each */
	CHECK(!lbr_sample(&d, 100, 800, 9, st, flags));
	/* cross-module: a:0x1000 (older to) -> b:0x2004 (newer from) */
	{
		const uint64_t x[] = { RB(0x2004), RA(0x1018), RA(0x1008), RA(0x1000) };

		CHECK(!lbr_sample(&d, 100, 10, 2, x, NULL));
	}
	/* a walk from a:0x100c to a:0x101c crosses the jmp ending B2 */
	{
		const uint64_t x[] = { RA(0x101c), RA(0x1000), RA(0x1008), RA(0x100c) };

		CHECK(!lbr_sample(&d, 100, 7, 2, x, NULL));
	}
	hbbp_accum__scale(&d);
	CHECK(!compute(&c, &d, HBBP_METHOD_LBR));
	CHECK_EQ_U64(d.rejected[REJ_BACKWARD], 2);
	CHECK_EQ_U64(d.rejected[REJ_UNMAPPED], 1);
	CHECK_EQ_U64(d.rejected[REJ_NO_CODE], 1);
	CHECK_EQ_U64(d.rejected[REJ_SPECULATIVE], 1);
	CHECK_EQ_U64(d.rejected[REJ_WALK_JUMP], 1);
	CHECK_EQ_U64(d.rejected[REJ_CROSS_MODULE], 1);
	CHECK_EQ_DBL(d.rejected_weight[REJ_CROSS_MODULE], 10.0, 1e-9);
	CHECK_EQ_DBL(d.rejected_weight[REJ_BACKWARD], 200.0, 1e-9);
	CHECK_EQ_DBL(d.rejected_weight[REJ_WALK_JUMP], 7.0, 1e-9);
	CHECK_EQ_DBL(d.rejected_weight[REJ_SPECULATIVE], 100.0, 1e-9);
	/* valid: b:[0x2000,0x2008) += 100; a:0x100c..0x1014 = B2 += 100 */
	b = find_block(&c, "b", 0x2000);
	CHECK(b && b->lbr_est == 100.0 && b->nr_insns == 2);
	b = find_block(&c, "a", 0x100c);
	CHECK(b && b->lbr_est == 100.0);
	b = find_block(&c, "a", 0x1000);
	CHECK(b && b->lbr_est == 100.0);
	/* the rejected walk added nothing to B3 */
	CHECK(!find_block(&c, "a", 0x1018));
	CHECK_EQ_DBL(c.lbr_weight_attributed, 300.0, 1e-9);
	hbbp_counts__exit(&c);
	hbbp_accum__exit(&d);
}

/* A stream target in the middle of a static block splits it (LBR-learned leader). */
static void test_learned_leader(void)
{
	struct hbbp_accum d;
	struct hbbp_counts c;
	const struct hbbp_block *lo, *hi;
	/* stream 1: 0x1010 -> 0x1014 (indirect target mid-B2); stream 2: 0x100c -> 0x1014 */
	const uint64_t st[] = {
		RA(0x1014), RA(0x1000),
		RA(0x1014), RA(0x1010),
		RA(0x1014), RA(0x100c),
	};

	fake_setup();
	events_setup();
	CHECK(!hbbp_accum__init(&d, &fake_code, ev_ptrs, ev_roles, 2));
	CHECK(!lbr_sample(&d, 100, 20, 3, st, NULL));		/* 2 streams of 10 */
	CHECK(!ebs_sample(&d, 100, RA(0x1010), 600));	/* EBS in the upper half */
	CHECK(!ebs_sample(&d, 100, RA(0x100c), 90));		/* and in the lower half */
	hbbp_accum__scale(&d);
	CHECK(!compute(&c, &d, HBBP_METHOD_HBBP));
	lo = find_block(&c, "a", 0x100c);
	hi = find_block(&c, "a", 0x1010);
	CHECK(lo && hi);
	if (lo && hi) {
		CHECK_EQ_U64(lo->nr_insns, 1);			/* [0x100c,0x1010) */
		CHECK_EQ_U64(hi->nr_insns, 2);			/* [0x1010,0x1018) */
		CHECK_EQ_DBL(lo->lbr_est, 10.0, 1e-9);		/* stream 2 only */
		CHECK_EQ_DBL(hi->lbr_est, 20.0, 1e-9);		/* both streams */
		CHECK_EQ_DBL(hi->ebs_est, 300.0, 1e-9);		/* 600 / 2 insns */
		CHECK_EQ_DBL(lo->ebs_est, 90.0, 1e-9);		/* 90 / 1 insn */
	}
	hbbp_counts__exit(&c);
	hbbp_accum__exit(&d);
}

/* The hybrid rule at the cutoff and the fallbacks, on hand-made blocks. */
static void test_choose(void)
{
	struct hbbp_block b;

	memset(&b, 0, sizeof(b));
	b.kind = HBBP_BLK_CODE;
	b.ebs_sum = 1800;
	b.ebs_samples = 3;
	b.lbr_sum = 77;
	b.lbr_streams = 5;
	b.nr_insns = 18;
	hbbp_block__choose(&b, HBBP_METHOD_HBBP, 18);
	CHECK_STR(hbbp_source_name(b.source), "lbr");
	CHECK_EQ_DBL(b.count, 77.0, 0);
	b.nr_insns = 19;
	hbbp_block__choose(&b, HBBP_METHOD_HBBP, 18);
	CHECK_STR(hbbp_source_name(b.source), "ebs");
	CHECK_EQ_DBL(b.count, 1800.0 / 19, 1e-9);
	hbbp_block__choose(&b, HBBP_METHOD_HBBP, 19);	/* --cutoff 19 */
	CHECK_STR(hbbp_source_name(b.source), "lbr");
	hbbp_block__choose(&b, HBBP_METHOD_LBR, 18);
	CHECK_STR(hbbp_source_name(b.source), "lbr");
	CHECK_EQ_DBL(b.count, 77.0, 0);
	b.nr_insns = 2;
	hbbp_block__choose(&b, HBBP_METHOD_EBS, 18);
	CHECK_STR(hbbp_source_name(b.source), "ebs");
	CHECK_EQ_DBL(b.count, 900.0, 0);
	/* only EBS data on a short block: EBS as fallback */
	b.lbr_streams = 0;
	b.lbr_sum = 0;
	hbbp_block__choose(&b, HBBP_METHOD_HBBP, 18);
	CHECK_STR(hbbp_source_name(b.source), "ebs-fallback");
	CHECK_EQ_DBL(b.count, 900.0, 0);
	hbbp_block__choose(&b, HBBP_METHOD_LBR, 18);
	CHECK_STR(hbbp_source_name(b.source), "");
	CHECK_EQ_DBL(b.count, 0, 0);
	/* only LBR data on a long block: LBR as fallback */
	b.lbr_streams = 1;
	b.lbr_sum = 5;
	b.ebs_samples = 0;
	b.ebs_sum = 0;
	b.nr_insns = 40;
	hbbp_block__choose(&b, HBBP_METHOD_HBBP, 18);
	CHECK_STR(hbbp_source_name(b.source), "lbr-fallback");
	CHECK_EQ_DBL(b.count, 5.0, 0);
}

/* Per-sample periods, multiplexing scale, unmapped and no-code EBS, per-thread split. */
static void test_ebs_scale_threads(void)
{
	struct hbbp_accum d;
	struct hbbp_counts c;
	const struct hbbp_block *b1;
	struct perf_record r;
	size_t i;
	int nocode = 0, unmapped = 0;

	fake_setup();
	events_setup();
	CHECK(!hbbp_accum__init(&d, &fake_code, ev_ptrs, ev_roles, 2));
	CHECK(!ebs_sample(&d, 100, RA(0x1004), 300));	/* tid 100 */
	CHECK(!ebs_sample(&d, 101, RA(0x1008), 600));	/* tid 101, other period */
	CHECK(!ebs_sample(&d, 101, 0x9000, 50));		/* unmapped */
	CHECK(!ebs_sample(&d, 101, 0x600100, 70));		/* no code */
	/* READ record: EBS event enabled 2000, running 1000 -> scale 2 */
	memset(&r, 0, sizeof(r));
	r.type = PERF_RECORD_READ;
	r.evidx = 0;
	r.read.pid = 100;
	r.read.tid = 100;
	r.read.time_enabled = 2000;
	r.read.time_running = 1000;
	CHECK(!feed(&d, &r));
	hbbp_accum__scale(&d);
	CHECK_EQ_DBL(d.ev[0].scale, 2.0, 0);
	CHECK_EQ_DBL(d.ev[1].scale, 1.0, 0);
	CHECK(!compute(&c, &d, HBBP_METHOD_HBBP));
	b1 = find_block(&c, "a", 0x1000);
	CHECK(b1);
	if (b1) {
		/* (300 + 600) * 2 / 3 insns = 600 executions; LBR has no data: fallback */
		CHECK_EQ_DBL(b1->ebs_est, 600.0, 1e-9);
		CHECK_STR(hbbp_source_name(b1->source), "ebs-fallback");
		CHECK_EQ_U64(b1->ebs_samples, 2);
	}
	CHECK(c.tblocks != NULL);	/* two threads: the tasks' shares are kept */
	for (i = 0; i < c.nr_tblocks; i++) {
		struct hbbp_tblock tmp;
		const struct hbbp_tblock *t = hbbp_counts__tblock(&c, i, &tmp);

		if (&c.blocks[t->block] == b1)
			CHECK_EQ_DBL(t->count, t->tid == 100 ? 200.0 : 400.0, 1e-9);
	}
	for (i = 0; i < c.nr_blocks; i++) {
		if (c.blocks[i].kind == HBBP_BLK_NOCODE) {
			nocode++;
			CHECK_EQ_DBL(c.blocks[i].count, 140.0, 1e-9);	/* 70 * 2 instructions */
			CHECK_STR(c.blocks[i].symname, "nocode_sym");
		}
		if (c.blocks[i].kind == HBBP_BLK_UNMAPPED) {
			unmapped++;
			CHECK_EQ_DBL(c.blocks[i].count, 100.0, 1e-9);
		}
	}
	CHECK(nocode == 1 && unmapped == 1);
	hbbp_counts__exit(&c);
	/* --method lbr: nothing is counted from EBS */
	CHECK(!compute(&c, &d, HBBP_METHOD_LBR));
	for (i = 0; i < c.nr_blocks; i++)
		CHECK_EQ_DBL(c.blocks[i].count, 0, 0);
	hbbp_counts__exit(&c);
	hbbp_accum__exit(&d);
}

/* One task (one thread, or the threads merged by the caller): no task blocks are kept, each
 * block is its task's share (its sums, count and interval), made on request. */
static void test_one_task(void)
{
	struct hbbp_accum d;
	struct hbbp_counts c;
	struct hbbp_tblock tmp;
	size_t i, same = 0;

	fake_setup();
	events_setup();
	CHECK(!hbbp_accum__init(&d, &fake_code, ev_ptrs, ev_roles, 2));
	CHECK(!ebs_sample(&d, 100, RA(0x1004), 300));
	CHECK(!ebs_sample(&d, 100, RA(0x1018), 600));
	CHECK(!ebs_sample(&d, 100, 0x9000, 50));
	hbbp_accum__scale(&d);
	CHECK(!compute(&c, &d, HBBP_METHOD_HBBP));
	CHECK(c.tblocks == NULL && c.nr_tblocks == c.nr_blocks && c.nr_blocks == 3);
	for (i = 0; i < c.nr_tblocks; i++) {
		const struct hbbp_tblock *t = hbbp_counts__tblock(&c, i, &tmp);
		const struct hbbp_block *b = &c.blocks[i];

		same += t->block == i && t->pid == 100 && t->tid == 100 && t->count == b->count &&
			t->ebs_sum == b->ebs_sum && t->count_lo == b->count_lo &&
			t->count_hi == b->count_hi && t->ebs_samples == b->ebs_samples;
	}
	CHECK_EQ_U64(same, 3);
	hbbp_counts__exit(&c);
	hbbp_accum__exit(&d);
}

/* Bias: a branch always in the oldest slot of 4-entry stacks (share 1 > 2 * 1/4). */
static void test_bias(void)
{
	struct hbbp_accum d;
	struct hbbp_counts c;
	const struct hbbp_block *b;
	int i;
	const uint64_t st[] = {
		RA(0x1008), RA(0x1000),
		RA(0x1008), RA(0x1000),
		RA(0x1008), RA(0x1000),
		RA(0x1014), RA(0x1000),		/* oldest: the jmp at 0x1014 */
	};

	fake_setup();
	events_setup();
	CHECK(!hbbp_accum__init(&d, &fake_code, ev_ptrs, ev_roles, 2));
	for (i = 0; i < 7; i++)
		CHECK(!lbr_sample(&d, 100, 3, 4, st, NULL));
	hbbp_accum__scale(&d);
	CHECK(!compute(&c, &d, HBBP_METHOD_HBBP));
	b = find_block(&c, "a", 0x1000);
	CHECK(b && !b->biased);			/* 7 occurrences < 8: not yet flagged */
	hbbp_counts__exit(&c);
	CHECK(!lbr_sample(&d, 100, 3, 4, st, NULL));
	hbbp_accum__scale(&d);
	CHECK(!compute(&c, &d, HBBP_METHOD_HBBP));
	b = find_block(&c, "a", 0x1000);	/* target of the biased jmp */
	CHECK(b && b->biased);
	if (b)
		CHECK_EQ_DBL(b->bias_share, 1.0, 1e-9);
	/* B2, ending at the jmp, was never walked: not in the table. B1's branch jne appears
	 * in the newest slot once per stack of 4 (share 1/3 of its 3 slots): not biased on
	 * its own, but B1 is flagged as the jmp's target. */
	CHECK_EQ_U64(c.nr_biased_branches, 1);
	hbbp_counts__exit(&c);
	hbbp_accum__exit(&d);
}

/* An LBR event without the all-branches filter is no LBR source. */
static void test_no_branch_any(void)
{
	struct hbbp_accum d;
	const uint64_t st[] = { RA(0x1008), RA(0x1000), RA(0x1008), RA(0x1000) };

	fake_setup();
	events_setup();
	ev_roles[1].branch_any = false;
	CHECK(!hbbp_accum__init(&d, &fake_code, ev_ptrs, ev_roles, 2));
	CHECK(d.ev[1].role == HBBP_ROLE_UNUSED);
	CHECK(!lbr_sample(&d, 100, 10, 2, st, NULL));
	CHECK_EQ_U64(d.streams.nr, 0);
	CHECK_EQ_U64(d.nr_unused_samples, 1);
	hbbp_accum__exit(&d);
}

/* Partly filled stacks: trailing 0/0 entries are padding, not branches (n counts the rest). */
static void test_zero_padding(void)
{
	struct hbbp_accum d;
	struct hbbp_counts c;
	const struct hbbp_block *b;
	const uint64_t st[] = { RA(0x1008), RA(0x1000), RA(0x1008), RA(0x1000), 0, 0, 0, 0 };

	fake_setup();
	events_setup();
	CHECK(!hbbp_accum__init(&d, &fake_code, ev_ptrs, ev_roles, 2));
	CHECK(!lbr_sample(&d, 100, 30, 4, st, NULL));	/* 2 real entries: 1 stream of 30 */
	hbbp_accum__scale(&d);
	CHECK_EQ_U64(d.ev[1].streams, 1);
	CHECK_EQ_U64(d.ev[1].zero_entries, 2);
	CHECK_EQ_U64(d.rejected[REJ_UNMAPPED], 0);
	CHECK(!compute(&c, &d, HBBP_METHOD_LBR));
	b = find_block(&c, "a", 0x1000);
	CHECK(b && b->lbr_est == 30.0);
	hbbp_counts__exit(&c);
	hbbp_accum__exit(&d);
}

/* method.md §3: every branch target of the LBR data starts a block, not only the targets of
 * accepted streams: e0.to (0x1004, no stream starts there) splits B1, and the target of a
 * rejected stream (e2.to 0x1010 -> e1.from 0x1008: to > from) splits B2. The one accepted
 * stream, 0x1000 -> e0.from 0x1014, then walks four blocks of 1, 2, 1 and 2 instructions. */
static void test_all_targets_lead(void)
{
	struct hbbp_accum d;
	struct hbbp_counts c;
	const struct hbbp_block *b;
	const uint64_t st[] = {
		RA(0x1014), RA(0x1004),		/* e0: its target starts no stream */
		RA(0x1008), RA(0x1000),		/* e1: stream 0x1000 .. e0.from 0x1014 */
		RB(0x2004), RA(0x1010),		/* e2: stream 0x1010 .. e1.from 0x1008: to>from */
	};
	static const struct { uint64_t start; uint32_t len; } want[] = {
		{ 0x1000, 1 }, { 0x1004, 2 }, { 0x100c, 1 }, { 0x1010, 2 },
	};
	size_t i;

	fake_setup();
	events_setup();
	CHECK(!hbbp_accum__init(&d, &fake_code, ev_ptrs, ev_roles, 2));
	CHECK(!lbr_sample(&d, 100, 200, 3, st, NULL));
	hbbp_accum__scale(&d);
	CHECK_EQ_U64(d.rejected[REJ_BACKWARD], 1);
	CHECK(!compute(&c, &d, HBBP_METHOD_LBR));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		b = find_block(&c, "a", want[i].start);
		CHECK(b != NULL);
		if (b) {
			CHECK_EQ_U64(b->nr_insns, want[i].len);
			CHECK_EQ_DBL(b->lbr_est, 100.0, 1e-9);	/* 200 / (3 - 1) */
		}
	}
	hbbp_counts__exit(&c);
	hbbp_accum__exit(&d);
}

int main(void)
{
	RUN_TEST(test_zero_padding);
	RUN_TEST(test_stream_weighting);
	RUN_TEST(test_stream_rejects);
	RUN_TEST(test_learned_leader);
	RUN_TEST(test_choose);
	RUN_TEST(test_ebs_scale_threads);
	RUN_TEST(test_one_task);
	RUN_TEST(test_bias);
	RUN_TEST(test_no_branch_any);
	RUN_TEST(test_all_targets_lead);
	return TEST_EXIT();
}
