/* Unit tests of pmusim's simulated PMU on synthetic instruction streams with hand-computed
 * expectations: period-1 exactness of EBS and LBR (including the process-boundary entries),
 * skid, retirement-group attribution, shadowing, period randomisation, freeze skid, PMI latency in instructions (freeze
 * after k retired instructions: the long/short stream shares), the entry-slot bias and the
 * timing model (entry cycle counts, the cycles event's stacks). The simulator is
 * not part of the library, so its PMU source is compiled into this test.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "samples/pmusim/pmu.c"
#include "samples/pmusim/timing.c"

#define MAXA 64

struct collect {
	uint64_t ebs_at[MAXA];		/* sum of EBS periods per instruction slot */
	double lbr_at[MAXA];		/* LBR stream weight per instruction slot */
	uint64_t nr_ebs, nr_lbr, period_sum, nr_full;
	unsigned depth;
	uint64_t oldest_from[MAXA];	/* LBR samples whose oldest entry comes from slot i */
	uint64_t any_from[MAXA];	/* entries from slot i in all slots */
};

/* Instruction slot i sits at address 0x1000 + 4 * i. */
static uint64_t addr_of(unsigned i) { return 0x1000 + 4ULL * i; }
static int slot_of(uint64_t a) { return a >= 0x1000 && a < 0x1000 + 4 * MAXA ? (int)((a - 0x1000) / 4) : -1; }

static int collect(const struct sim_sample *s, void *ctx)
{
	struct collect *c = ctx;
	if (s->event == 0) {
		c->nr_ebs++;
		int k = slot_of(s->ip);
		if (k >= 0)
			c->ebs_at[k] += s->period;
		c->period_sum += s->period;
		return 0;
	}
	c->nr_lbr++;
	c->nr_full += s->nr == c->depth;
	int ko = slot_of(s->stack[s->nr - 1].from);
	if (ko >= 0)
		c->oldest_from[ko]++;
	for (uint32_t i = 0; i < s->nr; i++) {
		int kf = slot_of(s->stack[i].from);
		if (kf >= 0)
			c->any_from[kf]++;
	}
	/* streams: e[k].to .. e[k-1].from */
	for (uint32_t k = 1; k < s->nr; k++) {
		uint64_t lo = s->stack[k].to, hi = s->stack[k - 1].from;
		if (!lo || !hi || lo > hi)
			continue;
		for (uint64_t a = lo; a <= hi; a += 4)
			if (slot_of(a) >= 0)
				c->lbr_at[slot_of(a)] += (double)s->period / (s->nr - 1);
	}
	return 0;
}

/* The slot given the timing class of a 32-bit integer division (26 cycles), or 255. */
static unsigned idiv_slot = 255;

/* A loop program: slots 0..1 prologue, then `iters` times the body slots 2..6 (slot 6 a jcc
 * back to slot 2, taken except on the last iteration), a call at slot 7 to slots 10..11 (ret at
 * 11) returning to slot 8, and slot 9 the exit syscall. Returns retirements per slot. */
static void run_program(struct sim_pmu *p, unsigned iters, uint64_t count[MAXA],
			uint8_t long_lat_slot)
{
	struct sim_insn in[MAXA];
	memset(in, 0, sizeof(in));
	for (unsigned i = 0; i < MAXA; i++) {
		in[i].addr = addr_of(i);
		in[i].len = 4;
		if (i == long_lat_slot)
			in[i].flags = SIM_F_LONG_LATENCY;
		if (i == idiv_slot)
			in[i].tclass = SIM_T_IDIV32;
	}
	memset(count, 0, MAXA * sizeof(*count));
	sim_pmu__start(p, addr_of(0));
#define RET(a, n) do { sim_pmu__retire(p, &in[a], n); for (unsigned q = 0; q < (n); q++) count[(a) + q]++; } while (0)
	RET(0, 2);
	for (unsigned it = 0; it < iters; it++) {
		RET(2, 5);
		if (it + 1 < iters)
			sim_pmu__branch(p, addr_of(6), addr_of(2));
	}
	RET(7, 1);
	sim_pmu__branch(p, addr_of(7), addr_of(10));
	RET(10, 2);
	sim_pmu__branch(p, addr_of(11), addr_of(8));
	RET(8, 2);
	sim_pmu__finish(p, addr_of(9));
#undef RET
}

static struct sim_pmu *make(struct collect *c, uint64_t pe, uint64_t pl, unsigned depth,
			    struct sim_effects fx)
{
	struct sim_pmu_opts o = { .ebs_period = pe, .lbr_period = pl, .lbr_depth = depth,
				  .seed = 7, .fx = fx, .emit = collect, .ctx = c };
	struct sim_pmu *p = NULL;
	memset(c, 0, sizeof(*c));
	c->depth = depth;
	CHECK(sim_pmu__new(&p, &o) == 0);
	return p;
}

static void test_period1_exact(void)
{
	static const unsigned depths[] = { 2, 8, 16, 32 };
	for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
		struct collect c;
		uint64_t count[MAXA];
		struct sim_pmu *p = make(&c, 1, 1, depths[d], (struct sim_effects){ 0 });
		if (!p)
			return;
		run_program(p, 20, count, 255);
		for (unsigned i = 0; i < MAXA; i++) {
			CHECK_EQ_U64(c.ebs_at[i], count[i]);
			CHECK_EQ_DBL(c.lbr_at[i], (double)count[i], 1e-9);
		}
		/* 19 loop branches + call + ret + exit entry + depth-2 placeholders */
		CHECK_EQ_U64(c.nr_lbr, 21 + 1 + depths[d] - 2);
		CHECK_EQ_U64(c.nr_full, c.nr_lbr);
		CHECK_EQ_U64(c.nr_ebs, 2 + 20 * 5 + 1 + 2 + 2);
		sim_pmu__delete(p);
	}
}

static void test_skid(void)
{
	struct collect c;
	uint64_t count[MAXA];
	struct sim_pmu *p = make(&c, 1, 1000003, 8, (struct sim_effects){ .skid_mean = 1.0 });
	if (!p)
		return;
	run_program(p, 2000, count, 255);
	/* same number of samples minus those still pending at exit; with skid, the loop's first
	 * slot gets fewer samples than executions only by chance, but the displacement moves
	 * samples forward: prologue slot 0 loses weight to slot 1 */
	const struct sim_pmu_stats *st = sim_pmu__stats(p);
	CHECK(st->nr_skidded > 2000 * 5 / 3);	/* P(k > 0) = 1/2 */
	CHECK(st->nr_skidded < 2000 * 5 * 2 / 3);
	CHECK(c.nr_ebs + st->nr_dropped_pending == 2 + 2000 * 5 + 5);
	CHECK(c.ebs_at[0] < count[0] || c.ebs_at[1] != count[1]);
	sim_pmu__delete(p);
}

static void test_shadow(void)
{
	struct collect c;
	uint64_t count[MAXA];
	/* slot 3 (in the loop body) is long-latency: with probability 1 its samples move to 4 */
	struct sim_pmu *p = make(&c, 1, 1000003, 8, (struct sim_effects){ .shadow_prob = 1.0 });
	if (!p)
		return;
	run_program(p, 100, count, 3);
	CHECK_EQ_U64(c.ebs_at[3], 0);
	CHECK_EQ_U64(c.ebs_at[4], 200);
	CHECK_EQ_U64(c.ebs_at[2], 100);
	CHECK_EQ_U64(sim_pmu__stats(p)->nr_shadowed, 100);
	sim_pmu__delete(p);
}

static void test_period_randomisation(void)
{
	struct collect c;
	uint64_t count[MAXA];
	struct sim_pmu *p = make(&c, 1000, 1000003, 8, (struct sim_effects){ .rand_bits = 4 });
	if (!p)
		return;
	run_program(p, 200000, count, 255);
	/* periods are 1000 with the low 4 bits random: 992..1007, mean 999.5 */
	double mean = (double)c.period_sum / (double)c.nr_ebs;
	CHECK(mean > 997 && mean < 1002);
	CHECK(c.period_sum != c.nr_ebs * 1000);
	/* the total retired is matched within one period */
	uint64_t total = 2 + 200000ULL * 5 + 5;
	CHECK(c.period_sum <= total && total - c.period_sum < 1008);
	sim_pmu__delete(p);
}

static void test_freeze_skid(void)
{
	struct collect c;
	uint64_t count[MAXA];
	struct sim_pmu *p = make(&c, 1000003, 1, 4, (struct sim_effects){ .freeze_mean = 1.0 });
	if (!p)
		return;
	run_program(p, 1000, count, 255);
	const struct sim_pmu_stats *st = sim_pmu__stats(p);
	CHECK(st->nr_frozen_late > 300 && st->nr_frozen_late < 700);
	CHECK_EQ_U64(c.nr_lbr + st->nr_dropped_pending, 999 + 2 + 1 + 2);
	sim_pmu__delete(p);
}

/* Retirement groups: a loop stream of 6 instructions (slots 0..5, a taken branch at 5 back to
 * 0) retires in groups [0..3] and [4..5] (width 4, a taken branch ends a group). EBS period 1.
 * With group_prob 1 an overflow on slots 0..3 lands on slot 4 (the next group's first) and
 * one on slots 4..5 on slot 0 of the next iteration: per iteration slot 4 gets 4 samples, slot
 * 0 gets 2, the others none. With group_prob g, each slot keeps (1-g) of its own and slot 4
 * gains 4g, slot 0 gains 2g. */
static void test_retirement_groups(void)
{
	enum { ITERS = 20000 };
	static const double probs[] = { 1.0, 0.25 };
	struct sim_insn in[6];
	memset(in, 0, sizeof(in));
	for (unsigned i = 0; i < 6; i++) {
		in[i].addr = addr_of(i);
		in[i].len = 4;
	}
	for (int t = 0; t < 2; t++) {
		struct collect c;
		double g = probs[t];
		struct sim_pmu *p = make(&c, 1, 1000003, 8,
					 (struct sim_effects){ .group_prob = g, .group_width = 4 });
		if (!p)
			return;
		sim_pmu__start(p, addr_of(0));
		for (unsigned it = 0; it < ITERS; it++) {
			sim_pmu__retire(p, in, 6);
			sim_pmu__branch(p, addr_of(5), addr_of(0));
		}
		sim_pmu__retire(p, in, 1);	/* slot 0 once more: lands the last pending */
		sim_pmu__finish(p, addr_of(0));
		double want[6] = { 1 - g + 2 * g, 1 - g, 1 - g, 1 - g, 1 - g + 4 * g, 1 - g };
		for (unsigned i = 0; i < 6; i++)
			CHECK_EQ_DBL((double)c.ebs_at[i] / ITERS, want[i], g == 1.0 ? 1e-3 : 0.02);
		if (g == 1.0) {
			CHECK_EQ_U64(c.ebs_at[4], 4ULL * ITERS);
			CHECK_EQ_U64(c.ebs_at[1] + c.ebs_at[2] + c.ebs_at[3] + c.ebs_at[5], 0);
		}
		CHECK(sim_pmu__stats(p)->nr_grouped > 0);
		sim_pmu__delete(p);
	}
}

/* PMI latency in instructions: streams alternate, a long one (slots 0..L-1, a taken branch at
 * L-1 to slot 32) and a short one (slots 32..32+S-1, a taken branch back to slot 0); every
 * taken branch overflows (period 1); the stack freezes k instructions later, k geometric with
 * mean X, q = X/(1+X). The window holds the n-1 most recently completed streams: with
 * alternation and n even, (n-2)/2 of each kind plus the most recently completed one. After a
 * long stream's branch, the most recent completed stream is long iff k mod (L+S) < S (k = 0:
 * the overflowing branch itself), probability (1-q^S)/(1-q^(L+S)); after a short stream's, it
 * is long iff k mod (L+S) >= L, probability 1 - (1-q^L)/(1-q^(L+S)). Half the overflows are of
 * each kind, so with p_long the mean of the two, LBR's estimate of the long stream's count is
 * (n-2+2 p_long)/(n-1) times the truth, and the short one's (n-2+2(1-p_long))/(n-1). */
static void test_freeze_insns(void)
{
	enum { L = 15, S = 5, SHORT0 = 32, CYCLES = 40000 };
	static const unsigned depths[] = { 2, 16 };
	static const double means[] = { 0, 20, 3 };
	struct sim_insn in[MAXA];
	memset(in, 0, sizeof(in));
	for (unsigned i = 0; i < MAXA; i++) {
		in[i].addr = addr_of(i);
		in[i].len = 4;
	}
	for (size_t d = 0; d < 2; d++) {
		for (size_t m = 0; m < 3; m++) {
			struct collect c;
			unsigned n = depths[d];
			double x = means[m], q = x / (1 + x);
			double t = 1 - pow(q, L + S);
			double p_long = x > 0 ? 0.5 * (1 - pow(q, S)) / t +
						0.5 * (1 - (1 - pow(q, L)) / t) : 0.5;
			double want_long = (n - 2 + 2 * p_long) / (n - 1);
			double want_short = (n - 2 + 2 * (1 - p_long)) / (n - 1);
			struct sim_pmu *p = make(&c, 1000003, 1, n,
						 (struct sim_effects){ .freeze_insns_mean = x });
			if (!p)
				return;
			sim_pmu__start(p, addr_of(0));
			for (unsigned it = 0; it < CYCLES; it++) {
				sim_pmu__retire(p, &in[0], L);
				sim_pmu__branch(p, addr_of(L - 1), addr_of(SHORT0));
				sim_pmu__retire(p, &in[SHORT0], S);
				sim_pmu__branch(p, addr_of(SHORT0 + S - 1), addr_of(0));
			}
			sim_pmu__retire(p, &in[0], 1);
			sim_pmu__finish(p, addr_of(0));
			const struct sim_pmu_stats *st = sim_pmu__stats(p);
			double got_long = c.lbr_at[0] / CYCLES, got_short = c.lbr_at[SHORT0] / CYCLES;
			if (x == 0) {
				CHECK_EQ_DBL(got_long, 1.0 + 1.0 / CYCLES, 1e-9);
				CHECK_EQ_DBL(got_short, 1.0, 1e-9);
				CHECK_EQ_U64(st->nr_frozen_late, 0);
			} else {
				/* sampling noise: 80 000 samples, well under 0.01 */
				CHECK_EQ_DBL(got_long, want_long, 0.01);
				CHECK_EQ_DBL(got_short, want_short, 0.01);
				CHECK(st->nr_frozen_late > 2 * CYCLES * q * 0.95);
				/* every overflow is emitted or still pending at the end */
				CHECK_EQ_U64(c.nr_lbr + st->nr_dropped_pending, 2 * CYCLES + 1 + n - 2);
			}
			/* the effect is there: for n = 2, L = 15, S = 5, mean 20 LBR sees the long
			 * stream about 0.55 times as often as it ran */
			if (n == 2 && x == 20)
				CHECK(got_long < 0.7 && got_short > 1.3);
			sim_pmu__delete(p);
		}
	}
}

/* Three branches cycle (slots 1, 3, 5); the smallest bias_frac that flags one of them makes
 * that site alone bias-prone. Its share of the oldest slot must exceed chance (1/3). */
static void test_entry_slot_bias(void)
{
	static const unsigned sites[3] = { 1, 3, 5 };
	struct collect c;
	struct sim_effects fx = { .bias_prob = 1.0 };
	static struct sim_pmu tmp;
	int biased = -1;
	for (int i = 1; i <= 100000 && biased < 0; i++) {
		tmp.o.fx.bias_frac = i / 100000.0;
		for (int k = 0; k < 3; k++)
			if (sim_pmu__bias_site(&tmp, addr_of(sites[k])))
				biased = (int)sites[k];
	}
	CHECK(biased >= 0);
	if (biased < 0)
		return;
	fx.bias_frac = tmp.o.fx.bias_frac;
	for (int k = 0; k < 3; k++)
		CHECK(sim_pmu__bias_site(&tmp, addr_of(sites[k])) == ((int)sites[k] == biased));
	for (int with = 1; with >= 0; with--) {
		struct sim_pmu *p = make(&c, 1000003, 7, 4, with ? fx : (struct sim_effects){ 0 });
		if (!p)
			return;
		sim_pmu__start(p, addr_of(0));
		for (int it = 0; it < 3000; it++)
			for (int k = 0; k < 3; k++)
				sim_pmu__branch(p, addr_of(sites[k]), addr_of(sites[k] + 1));
		sim_pmu__finish(p, addr_of(5));
		double share = (double)c.oldest_from[biased] /
			       (double)(c.oldest_from[1] + c.oldest_from[3] + c.oldest_from[5]);
		if (with) {
			CHECK(share > 0.9);	/* chance: 1/3 */
			CHECK(sim_pmu__stats(p)->nr_bias_delayed > 0);
		} else {
			CHECK(share > 0.3 && share < 0.37);
		}
		sim_pmu__delete(p);
	}
}

/* Timing: per LBR sample, the slot of its IP and the cycle counts of its entries. */
struct tcollect {
	uint64_t at[MAXA];		/* cycles-event samples per IP slot */
	uint64_t nr, bad_cycles, loop_entries, first_entries;
	uint64_t call_entries, ret_entries, kernel_nonzero;
};

static int tcollect(const struct sim_sample *s, void *ctx)
{
	struct tcollect *c = ctx;
	if (s->event != 1)
		return 0;
	c->nr++;
	int k = slot_of(s->ip);
	if (k >= 0)
		c->at[k]++;
	/* loop body 2..6 with a division at slot 4: 4 quarter cycles + 26 cycles = 27 cycles;
	 * the first stream (slots 0..6) 28; the last (2..7) 27.25 -> 28; c (10..11) 1 */
	for (uint32_t i = 0; i + 1 < s->nr; i++) {
		const struct sim_branch *e = &s->stack[i], *o = &s->stack[i + 1];
		unsigned want;
		if (e->from == SIM_OUTSIDE) {
			c->kernel_nonzero += e->cycles != 0;
			continue;
		}
		if (e->from == addr_of(6) && o->to == addr_of(2))
			want = 27, c->loop_entries++;
		else if (e->from == addr_of(6) && o->to == addr_of(0))
			want = 28, c->first_entries++;
		else if (e->from == addr_of(7))
			want = 28, c->call_entries++;
		else if (e->from == addr_of(11))
			want = 1, c->ret_entries++;
		else
			continue;
		c->bad_cycles += e->cycles != want;
	}
	return 0;
}

static void test_timing(void)
{
	struct tcollect c;
	uint64_t count[MAXA];
	struct sim_pmu *p = NULL;
	/* the cycles event at period 1: one stack per cycle, its IP the instruction the cycle
	 * ends in (a division's 26 cycles give 26 stacks on it) */
	struct sim_pmu_opts o = { .ebs_period = 1000, .lbr_period = 1, .lbr_depth = 4,
				  .lbr_event = SIM_LBR_CYCLES, .seed = 7, .emit = tcollect,
				  .ctx = &c };
	memset(&c, 0, sizeof(c));
	idiv_slot = 4;
	CHECK(sim_pmu__new(&p, &o) == 0);
	if (!p)
		return;
	run_program(p, 20, count, 255);
	/* hand-computed: 28 + 18 * 27 + 28 + 1 + 1 = 544 cycles. Per slot: the first stream
	 * reaches cycle 1 at slot 0, 27 at the division, 28 at slot 5; every later iteration
	 * 1 at slot 2 and 26 at the division; the last stream's call 1 more; c's and the
	 * return's first instruction 1 each. */
	CHECK_EQ_U64(sim_pmu__stats(p)->nr_cycles, 544);
	CHECK_EQ_U64(c.nr, 544);
	CHECK_EQ_U64(c.at[0], 1);
	CHECK_EQ_U64(c.at[2], 19);
	CHECK_EQ_U64(c.at[3], 0);
	CHECK_EQ_U64(c.at[4], 20 * 26);
	CHECK_EQ_U64(c.at[5], 1);
	CHECK_EQ_U64(c.at[6], 0);
	CHECK_EQ_U64(c.at[7], 1);
	CHECK_EQ_U64(c.at[10], 1);
	CHECK_EQ_U64(c.at[8], 1);
	/* every entry's cycle count is the duration of the stream ending at it; kernel 0 */
	CHECK_EQ_U64(c.bad_cycles, 0);
	CHECK_EQ_U64(c.kernel_nonzero, 0);
	CHECK(c.loop_entries > 0 && c.first_entries > 0 && c.call_entries > 0 && c.ret_entries > 0);
	sim_pmu__delete(p);
	/* --no-lbr-cycles: the same stacks, every count 0 */
	memset(&c, 0, sizeof(c));
	o.no_lbr_cycles = true;
	CHECK(sim_pmu__new(&p, &o) == 0);
	if (p) {
		run_program(p, 20, count, 255);
		CHECK_EQ_U64(c.nr, 544);
		CHECK_EQ_U64(c.bad_cycles, c.loop_entries + c.first_entries + c.call_entries +
			     c.ret_entries);
		sim_pmu__delete(p);
	}
	idiv_slot = 255;
}

int main(void)
{
	RUN_TEST(test_period1_exact);
	RUN_TEST(test_skid);
	RUN_TEST(test_shadow);
	RUN_TEST(test_retirement_groups);
	RUN_TEST(test_period_randomisation);
	RUN_TEST(test_freeze_skid);
	RUN_TEST(test_freeze_insns);
	RUN_TEST(test_entry_slot_bias);
	RUN_TEST(test_timing);
	return TEST_EXIT();
}
