/* The simulated PMU: an instructions-retired counter (EBS, precise) and a taken-branches
 * counter with a last-branch-record ring (LBR), both sampling with a period, plus the hardware
 * effects the README documents (skid, retirement-group attribution, shadowing, period
 * randomisation, LBR depth, freeze skid in taken branches, PMI latency in instructions,
 * entry-slot bias), and time: a cycle clock from the timing model (timing.c) that gives every
 * LBR entry its cycle count and, with the cycles event, takes the stacks every N cycles, and
 * the kernel's interrupt throttling on that clock (the max-sample-rate rule, per tick).
 * Fed by the trace; hands samples to a callback. Knows nothing of qemu or of the perf.data
 * format.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "samples/pmusim/pmusim.h"
#include "util/hbbp_err.h"

#define SIM_MAX_PENDING 256
#define SIM_MAX_DEPTH 64
#define SIM_MAX_CLOCK_HZ 10000000000ULL	/* keeps cycles % clock * 1e9 in 64 bits */
#define SIM_MAX_HZ 10000

struct sim_ebs_pending {
	uint32_t left;		/* instructions still to retire before the sample lands */
	bool shadow_check;	/* apply the shadowing rule where it lands */
	bool group;		/* lands on the next retirement-group start, not after `left` */
	uint64_t period;
};

struct sim_lbr_pending {
	uint32_t left;		/* taken branches still to come before the stack freezes */
	uint32_t insn_left;	/* then instructions still to retire (PMI latency) */
	bool ready;		/* latency elapsed: freeze at the next retirement or branch */
	bool bias_checked;
	uint64_t period;
};

/* The kernel's interrupt accounting of one event (struct hw_perf_event's interrupts). */
struct sim_throttle {
	uint64_t seq;		/* the tick of the last interrupt */
	uint64_t interrupts;	/* interrupts in that tick */
	bool throttled;		/* stopped until the next tick */
};

struct sim_pmu {
	struct sim_pmu_opts o;
	uint64_t rng;
	uint64_t ebs_left, lbr_left;
	uint64_t ebs_cur, lbr_cur;	/* the period in force */
	struct sim_branch ring[SIM_MAX_DEPTH];
	unsigned head;			/* index of the newest entry */
	struct sim_branch snap[SIM_MAX_DEPTH];
	struct sim_ebs_pending ep[SIM_MAX_PENDING];
	unsigned nep;
	struct sim_lbr_pending lp[SIM_MAX_PENDING];
	unsigned nlp;
	uint64_t stream_pos;		/* instructions retired since the last taken branch */
	uint64_t last_ip, last_to;
	/* the cycle clock: now = stream_start + ceil(stream_q / 4) */
	uint64_t cyc_now, stream_start;
	uint64_t stream_q;		/* quarter cycles retired since the last taken branch */
	uint64_t cyc_left;		/* cycles event: cycles still to count before overflow */
	uint16_t cost_q[SIM_T_NR];
	/* throttling: max_samples_per_tick (0: off), the current tick and the cycle the next
	 * one starts at, and each event's accounting (0 EBS, 1 LBR) */
	uint64_t thr_max, tick, tick_next;
	struct sim_throttle thr[2];
	struct sim_pmu_stats st;
};

/* splitmix64 */
uint64_t sim_rand__next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double sim_rand__unit(uint64_t *state)
{
	return (double)(sim_rand__next(state) >> 11) * (1.0 / 9007199254740992.0);
}

/* Geometric number of extra steps with the given mean (0 when mean <= 0). */
static uint32_t sim_pmu__geometric(struct sim_pmu *p, double mean)
{
	if (mean <= 0)
		return 0;
	double q = mean / (1.0 + mean);		/* P(one more step) */
	uint32_t k = 0;
	while (k < 64 && sim_rand__unit(&p->rng) < q)
		k++;
	return k;
}

/* Geometric number of instructions with the given mean, by inversion (no cap short of
 * 2^24, so long means keep their tail): P(k) = (1-q) q^k, q = mean/(1+mean). */
static uint32_t sim_pmu__geometric_long(struct sim_pmu *p, double mean)
{
	if (mean <= 0)
		return 0;
	double u = sim_rand__unit(&p->rng);
	double k = floor(log1p(-u) / log(mean / (1.0 + mean)));
	return k > 16777216.0 ? 16777216u : (uint32_t)k;
}

static uint64_t sim_pmu__period(struct sim_pmu *p, uint64_t base)
{
	unsigned b = p->o.fx.rand_bits;
	if (!b)
		return base;
	uint64_t mask = b >= 63 ? ~0ULL : (1ULL << b) - 1;
	uint64_t v = (base & ~mask) | (sim_rand__next(&p->rng) & mask);
	return v ? v : 1;
}

int sim_pmu__new(struct sim_pmu **out, const struct sim_pmu_opts *o)
{
	if (!o->ebs_period || !o->lbr_period || o->lbr_depth < 2 || o->lbr_depth > SIM_MAX_DEPTH ||
	    o->clock_hz > SIM_MAX_CLOCK_HZ || o->hz > SIM_MAX_HZ)
		return -HBBP_EUSAGE;
	struct sim_pmu *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->o = *o;
	p->rng = o->seed ^ 0x5851f42d4c957f2dULL;
	p->ebs_cur = sim_pmu__period(p, o->ebs_period);
	p->ebs_left = p->ebs_cur;
	p->lbr_cur = sim_pmu__period(p, o->lbr_period);
	p->lbr_left = p->lbr_cur;
	p->cyc_left = p->lbr_cur;
	for (unsigned c = 0; c < SIM_T_NR; c++)
		p->cost_q[c] = (uint16_t)sim_timing__cost_q(c, o->mem_latency);
	if (!p->o.clock_hz)
		p->o.clock_hz = 1000000000;
	if (!p->o.hz)
		p->o.hz = 250;
	/* max_samples_per_tick = DIV_ROUND_UP(sysctl_perf_event_sample_rate, HZ) */
	p->thr_max = o->throttle_rate ? (o->throttle_rate + p->o.hz - 1) / p->o.hz : 0;
	p->tick_next = (p->o.clock_hz + p->o.hz - 1) / p->o.hz;
	p->thr[0].seq = p->thr[1].seq = UINT64_MAX;
	*out = p;
	return 0;
}

void sim_pmu__delete(struct sim_pmu *p)
{
	free(p);
}

const struct sim_pmu_stats *sim_pmu__stats(const struct sim_pmu *p)
{
	return &p->st;
}

unsigned sim_pmu__cost_q(const struct sim_pmu *p, unsigned tclass)
{
	return p->cost_q[tclass < SIM_T_NR ? tclass : 0];
}

/* A stream lasts its quarter cycles rounded up to whole cycles, at least one (the taken
 * branch ends the issue group): the pad is what the rounding adds. */
uint64_t sim_pmu__stream_pad_q(const struct sim_pmu *p)
{
	uint64_t dur = (p->stream_q + 3) / 4;
	return 4 * (dur ? dur : 1) - p->stream_q;
}

/* A branch site is bias-prone when a hash of its address falls below bias_frac. */
bool sim_pmu__bias_site(const struct sim_pmu *p, uint64_t from)
{
	if (p->o.fx.bias_frac <= 0 || !from)
		return false;
	uint64_t s = from ^ 0x2545f4914f6cdd1dULL;
	return sim_rand__unit(&s) < p->o.fx.bias_frac;
}

static void sim_pmu__push(struct sim_pmu *p, uint64_t from, uint64_t to, uint64_t cycles)
{
	p->head = (p->head + 1) % p->o.lbr_depth;
	p->ring[p->head].from = from;
	p->ring[p->head].to = to;
	if (cycles > 0xffff) {
		cycles = 0xffff;
		p->st.nr_saturated++;
	}
	p->ring[p->head].cycles = p->o.no_lbr_cycles ? 0 : (uint16_t)cycles;
}

/* The stack, newest first. */
static const struct sim_branch *sim_pmu__snapshot(struct sim_pmu *p)
{
	unsigned d = p->o.lbr_depth;
	for (unsigned i = 0; i < d; i++)
		p->snap[i] = p->ring[(p->head + d - i) % d];
	return p->snap;
}

/* The time of the clock in ns: the process starts at 1 s, the clock runs at clock_hz. */
static uint64_t sim_pmu__time(const struct sim_pmu *p)
{
	uint64_t c = p->cyc_now, hz = p->o.clock_hz;
	return 1000000000ULL + c / hz * 1000000000ULL + c % hz * 1000000000ULL / hz;
}

static int sim_pmu__emit_throttle(struct sim_pmu *p, int event, int kind)
{
	struct sim_sample s = { .event = event, .throttle = kind, .time = sim_pmu__time(p) };
	return p->o.emit ? p->o.emit(&s, p->o.ctx) : 0;
}

/* The kernel's accounting of an event's interrupt (__perf_event_account_interrupt, Linux 6.1
 * stable): the interrupt that takes the event's count in this tick above max_samples_per_tick
 * throttles it; THROTTLE is logged before that interrupt's sample, which is still written.
 * Returns 1 when the event is throttled already: the interrupt writes no sample. */
static int sim_pmu__interrupt(struct sim_pmu *p, int event)
{
	struct sim_throttle *t = &p->thr[event];
	if (!p->thr_max)
		return 0;
	if (t->throttled) {
		p->st.nr_throttled_lost++;
		return 1;
	}
	if (t->seq != p->tick) {
		t->seq = p->tick;
		t->interrupts = 1;
	} else if (++t->interrupts > p->thr_max) {
		t->throttled = true;
		p->st.nr_throttle++;
		return sim_pmu__emit_throttle(p, event, 1);
	}
	return 0;
}

/* A tick (perf_event_task_tick): every throttled event is unthrottled and counts again. */
static int sim_pmu__tick(struct sim_pmu *p)
{
	p->tick++;
	p->tick_next = ((p->tick + 1) * p->o.clock_hz + p->o.hz - 1) / p->o.hz;
	for (int e = 0; e < 2; e++) {
		if (!p->thr[e].throttled)
			continue;
		p->thr[e].throttled = false;
		p->st.nr_unthrottle++;
		int err = sim_pmu__emit_throttle(p, e, 2);
		if (err)
			return err;
	}
	return 0;
}

static int sim_pmu__emit_ebs(struct sim_pmu *p, uint64_t ip, uint64_t period)
{
	int err = sim_pmu__interrupt(p, 0);
	if (err)
		return err < 0 ? err : 0;
	struct sim_sample s = {
		.event = 0, .ip = ip, .time = sim_pmu__time(p), .period = period,
		.nr = p->o.lbr_depth, .stack = sim_pmu__snapshot(p),
	};
	p->st.nr_ebs++;
	return p->o.emit ? p->o.emit(&s, p->o.ctx) : 0;
}

static int sim_pmu__emit_lbr(struct sim_pmu *p, uint64_t period)
{
	/* taken-branches event: the target of the overflowing branch; cycles event: the
	 * instruction the overflow interrupted */
	uint64_t ip = p->o.lbr_event == SIM_LBR_CYCLES || p->last_to == SIM_OUTSIDE ?
		      p->last_ip : p->last_to;
	int err = sim_pmu__interrupt(p, 1);
	if (err)
		return err < 0 ? err : 0;
	struct sim_sample s = {
		.event = 1, .ip = ip,
		.time = sim_pmu__time(p), .period = period,
		.nr = p->o.lbr_depth, .stack = sim_pmu__snapshot(p),
	};
	p->st.nr_lbr++;
	return p->o.emit ? p->o.emit(&s, p->o.ctx) : 0;
}

int sim_pmu__start(struct sim_pmu *p, uint64_t entry)
{
	/* The ring is full from the start: kernel branches (K -> K) and the entry into the
	 * process (K -> entry) as the newest, so the first stream starts at the entry point
	 * and the first real branch already has depth-1 entries behind it. */
	for (unsigned i = 0; i + 1 < p->o.lbr_depth; i++)
		sim_pmu__push(p, SIM_OUTSIDE, SIM_OUTSIDE, 0);
	sim_pmu__push(p, SIM_OUTSIDE, entry, 0);
	p->stream_start = p->cyc_now;
	p->stream_q = 0;
	return 0;
}

/* Tries to freeze the stack for a pending LBR sample; returns 1 if it was emitted, 0 if the
 * entry-slot bias delays it by some taken branches. */
static int sim_pmu__lbr_capture(struct sim_pmu *p, struct sim_lbr_pending *lp)
{
	if (!lp->bias_checked && p->o.fx.bias_prob > 0) {
		lp->bias_checked = true;
		/* the bias-prone branch nearest the oldest end (not already the oldest): the
		 * stack freezes, with probability bias_prob, once it has become the oldest */
		unsigned d = p->o.lbr_depth;
		for (unsigned age = d - 1; age-- > 0;) {	/* age 0: newest */
			const struct sim_branch *b = &p->ring[(p->head + d - age) % d];
			if (!sim_pmu__bias_site(p, b->from))
				continue;
			if (sim_rand__unit(&p->rng) < p->o.fx.bias_prob) {
				lp->left = d - 1 - age;
				lp->insn_left = 0;
				lp->ready = false;
				p->st.nr_bias_delayed++;
				return 0;
			}
			break;
		}
	}
	int err = sim_pmu__emit_lbr(p, lp->period);
	return err ? err : 1;
}

static int sim_pmu__lbr_queue(struct sim_pmu *p, const struct sim_lbr_pending *lp)
{
	if (p->nlp == SIM_MAX_PENDING)
		p->st.nr_dropped_pending++;
	else
		p->lp[p->nlp++] = *lp;
	return 0;
}

/* Captures pending stack i; a finished capture (1) is removed by moving the last pending
 * one into its place. Returns what sim_pmu__lbr_capture returns. */
static int sim_pmu__capture_pending(struct sim_pmu *p, unsigned i)
{
	int err = sim_pmu__lbr_capture(p, &p->lp[i]);
	if (err == 1)
		p->lp[i] = p->lp[--p->nlp];
	return err;
}

/* Pending samples whose instruction latency has elapsed freeze now (before the next
 * instruction retires, or after the taken branch that was the last one to retire). */
static int sim_pmu__lbr_ready(struct sim_pmu *p)
{
	for (unsigned i = 0; i < p->nlp;) {
		struct sim_lbr_pending *lp = &p->lp[i];
		int err = !lp->left && lp->ready ? sim_pmu__capture_pending(p, i) : 0;
		if (err < 0)
			return err;
		if (err != 1)
			i++;
	}
	return 0;
}

static int sim_pmu__cycles_overflow(struct sim_pmu *p);

/* Moves the cycle clock to `now`, stopping at every tick and, with the cycles event, at
 * every overflow on the way, which takes a stack then (the running stream is interrupted,
 * the IP is the last instruction retired). A tick comes first when both fall on one cycle;
 * a throttled cycles event does not count. */
static int sim_pmu__clock(struct sim_pmu *p, uint64_t now)
{
	while (p->cyc_now < now) {
		bool count = p->o.lbr_event == SIM_LBR_CYCLES && !p->thr[1].throttled;
		uint64_t to = now;
		if (p->thr_max && p->tick_next < to)
			to = p->tick_next;
		if (count && p->cyc_left < to - p->cyc_now)
			to = p->cyc_now + p->cyc_left;
		uint64_t delta = to - p->cyc_now;
		p->cyc_now = to;
		p->st.nr_cycles += delta;
		int err = p->thr_max && to == p->tick_next ? sim_pmu__tick(p) : 0;
		if (count && !err && !(p->cyc_left -= delta))
			err = sim_pmu__cycles_overflow(p);
		if (err < 0)
			return err;
	}
	return 0;
}

static int sim_pmu__taken(struct sim_pmu *p, uint64_t from, uint64_t to)
{
	int err;
	/* the stream ending at this branch lasted at least one cycle (a taken branch ends the
	 * issue group); kernel code (from outside) has no reported duration */
	uint64_t dur = (p->stream_q + 3) / 4;
	if (!dur)
		dur = 1;
	if (from != SIM_OUTSIDE && (err = sim_pmu__clock(p, p->stream_start + dur)))
		return err;
	sim_pmu__push(p, from, to, from == SIM_OUTSIDE ? 0 : dur);
	p->stream_start = p->cyc_now;
	p->stream_q = 0;
	p->last_to = to;
	p->stream_pos = 0;
	/* pending captures first: the new branch is in their stack */
	err = sim_pmu__lbr_ready(p);
	if (err)
		return err;
	for (unsigned i = 0; i < p->nlp;) {
		struct sim_lbr_pending *lp = &p->lp[i];
		err = lp->left && --lp->left == 0 && !lp->insn_left ?
		      sim_pmu__capture_pending(p, i) : 0;
		if (err < 0)
			return err;
		if (err != 1)
			i++;
	}
	if (p->o.lbr_event == SIM_LBR_TAKEN && !p->thr[1].throttled && --p->lbr_left == 0) {
		struct sim_lbr_pending lp = {
			.left = sim_pmu__geometric(p, p->o.fx.freeze_mean),
			.insn_left = sim_pmu__geometric_long(p, p->o.fx.freeze_insns_mean),
			.period = p->lbr_cur,
		};
		p->lbr_cur = sim_pmu__period(p, p->o.lbr_period);
		p->lbr_left = p->lbr_cur;
		if (lp.left || lp.insn_left)
			p->st.nr_frozen_late++;
		err = lp.left || lp.insn_left ? 0 : sim_pmu__lbr_capture(p, &lp);
		if (err < 0)
			return err;
		if (err == 0)
			sim_pmu__lbr_queue(p, &lp);
	}
	return 0;
}

int sim_pmu__branch(struct sim_pmu *p, uint64_t from, uint64_t to)
{
	return sim_pmu__taken(p, from, to);
}

/* The cycles counter overflowed: the stack is taken now (or after the PMI latency). */
static int sim_pmu__cycles_overflow(struct sim_pmu *p)
{
	struct sim_lbr_pending lp = {
		.left = sim_pmu__geometric(p, p->o.fx.freeze_mean),
		.insn_left = sim_pmu__geometric_long(p, p->o.fx.freeze_insns_mean),
		.period = p->lbr_cur,
	};
	p->lbr_cur = sim_pmu__period(p, p->o.lbr_period);
	p->cyc_left = p->lbr_cur;
	if (lp.left || lp.insn_left)
		p->st.nr_frozen_late++;
	int err = lp.left || lp.insn_left ? 0 : sim_pmu__lbr_capture(p, &lp);
	if (err < 0)
		return err;
	if (err == 0)
		sim_pmu__lbr_queue(p, &lp);
	return 0;
}

/* One retired instruction on the slow path. */
static int sim_pmu__retire_one(struct sim_pmu *p, const struct sim_insn *in)
{
	int err = p->nlp ? sim_pmu__lbr_ready(p) : 0;
	if (err)
		return err;
	p->last_ip = in->addr;
	p->stream_q += p->cost_q[in->tclass < SIM_T_NR ? in->tclass : 0];
	if ((err = sim_pmu__clock(p, p->stream_start + (p->stream_q + 3) / 4)))
		return err;
	for (unsigned i = 0; i < p->nlp; i++) {
		struct sim_lbr_pending *lp = &p->lp[i];
		if (!lp->left && lp->insn_left && --lp->insn_left == 0)
			lp->ready = true;
	}
	/* a retirement group: up to group_width instructions, and a taken branch ends one */
	bool group_start = p->o.fx.group_width && p->stream_pos % p->o.fx.group_width == 0;
	p->stream_pos++;
	for (unsigned i = 0; i < p->nep;) {
		struct sim_ebs_pending *ep = &p->ep[i];
		if (ep->group ? group_start : --ep->left == 0) {
			if (ep->shadow_check && (in->flags & SIM_F_LONG_LATENCY) &&
			    sim_rand__unit(&p->rng) < p->o.fx.shadow_prob) {
				ep->shadow_check = false;
				ep->group = false;
				ep->left = 1;
				p->st.nr_shadowed++;
			} else {
				err = sim_pmu__emit_ebs(p, in->addr, ep->period);
				if (err)
					return err;
				p->ep[i] = p->ep[--p->nep];
				continue;
			}
		}
		i++;
	}
	if (!p->thr[0].throttled && --p->ebs_left == 0) {
		uint64_t period = p->ebs_cur;
		p->ebs_cur = sim_pmu__period(p, p->o.ebs_period);
		p->ebs_left = p->ebs_cur;
		if (p->o.fx.group_prob > 0 && p->o.fx.group_width &&
		    sim_rand__unit(&p->rng) < p->o.fx.group_prob) {
			/* attributed to the next retirement group's first instruction */
			struct sim_ebs_pending ep = { .group = true, .shadow_check = true,
						      .period = period };
			p->st.nr_grouped++;
			if (p->nep == SIM_MAX_PENDING)
				p->st.nr_dropped_pending++;
			else
				p->ep[p->nep++] = ep;
			return 0;
		}
		uint32_t k = sim_pmu__geometric(p, p->o.fx.skid_mean);
		if (k)
			p->st.nr_skidded++;
		if (!k && (in->flags & SIM_F_LONG_LATENCY) && p->o.fx.shadow_prob > 0 &&
		    sim_rand__unit(&p->rng) < p->o.fx.shadow_prob) {
			k = 1;
			p->st.nr_shadowed++;
			struct sim_ebs_pending ep = { .left = k, .shadow_check = false,
						      .period = period };
			if (p->nep == SIM_MAX_PENDING)
				p->st.nr_dropped_pending++;
			else
				p->ep[p->nep++] = ep;
		} else if (!k) {
			err = sim_pmu__emit_ebs(p, in->addr, period);
			if (err)
				return err;
		} else {
			struct sim_ebs_pending ep = { .left = k, .shadow_check = true,
						      .period = period };
			if (p->nep == SIM_MAX_PENDING)
				p->st.nr_dropped_pending++;
			else
				p->ep[p->nep++] = ep;
		}
	}
	return 0;
}

/* Whether n instructions can retire at once as far as pending LBR captures go: none of
 * them freezes within the n, and the latencies advance by n. */
static bool sim_pmu__lbr_bulk(struct sim_pmu *p, uint32_t n)
{
	for (unsigned i = 0; i < p->nlp; i++) {
		const struct sim_lbr_pending *lp = &p->lp[i];
		if (!lp->left && (lp->ready || lp->insn_left <= n))
			return false;
	}
	for (unsigned i = 0; i < p->nlp; i++)
		if (!p->lp[i].left)
			p->lp[i].insn_left -= n;
	return true;
}

int sim_pmu__retire(struct sim_pmu *p, const struct sim_insn *insns, uint32_t n)
{
	uint64_t q = 0;
	for (uint32_t i = 0; i < n; i++)
		q += p->cost_q[insns[i].tclass < SIM_T_NR ? insns[i].tclass : 0];
	uint64_t now = p->stream_start + (p->stream_q + q + 3) / 4;
	bool cyc_ok = p->o.lbr_event != SIM_LBR_CYCLES || now - p->cyc_now < p->cyc_left;
	/* a throttled EBS counter may restart at a tick inside the n: one at a time then */
	bool ebs_ok = p->thr[0].throttled ? now < p->tick_next : p->ebs_left > n;
	if (!p->nep && ebs_ok && cyc_ok && sim_pmu__lbr_bulk(p, n)) {
		if (!p->thr[0].throttled)
			p->ebs_left -= n;
		p->stream_pos += n;
		p->last_ip = insns[n - 1].addr;
		p->stream_q += q;
		return sim_pmu__clock(p, now);
	}
	for (uint32_t i = 0; i < n; i++) {
		int err = sim_pmu__retire_one(p, &insns[i]);
		if (err)
			return err;
	}
	return 0;
}

int sim_pmu__finish(struct sim_pmu *p, uint64_t last)
{
	/* The LBR keeps recording after the process leaves user mode: the exit (last -> K)
	 * and depth-2 kernel branches (K -> K), so the last streams are seen as often as any. */
	p->st.nr_dropped_pending += p->nep;
	p->nep = 0;
	int err = sim_pmu__taken(p, last, SIM_OUTSIDE);
	p->st.nr_virtual_branches++;
	for (unsigned i = 0; !err && i + 2 < p->o.lbr_depth; i++) {
		err = sim_pmu__taken(p, SIM_OUTSIDE, SIM_OUTSIDE);
		p->st.nr_virtual_branches++;
	}
	p->st.nr_dropped_pending += p->nlp;
	p->nlp = 0;
	return err;
}
