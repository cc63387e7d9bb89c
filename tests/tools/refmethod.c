/* refmethod: the HBBP method of docs/method.md computed a second time, plainly, as the oracle
 * the engine is checked against (tests/cli/method_reference.sh). Written from method.md alone,
 * it shares no code and no arithmetic with hbbp/method or hbbp/engine: every record in time
 * order, every sample resolved when it comes and summed into tables of its own (linear
 * probing over fixed-size keys) with compensated sums, the stream durations of §5b read in a
 * first pass over the file; then the leaders (§3), EBS (§4), the stream walk (§5), the
 * multiplexing scale (§7), the bias flag (§5), the hybrid rule (§6) and the intervals (§10).
 * What it takes from the library is not the method's arithmetic: the records (reader/),
 * address spaces, blocks, symbols and each thread's name at a sample (bbmap/: its thread
 * keys, a renamed thread's samples apart; its functions decoded in full, not lazily),
 * which event has which role and which counts time (tables of encodings: roles.h,
 * lbr_time.h), and the constants of method.h and interval.h.
 * Prints tab-separated lines: B (block), T (thread block, with --threads), E (event), R
 * (rejected streams by reason), N and F (totals); tests/tools/methoddump prints the engine's
 * in the same form and tests/cli/method_cmp.awk compares the two (the fields: see there).
 * usage: refmethod [--binary NAME=PATH]... [--symfs DIR] [--buildid-dir DIR]
 *                  [--method hbbp|ebs|lbr] [--cutoff N] [--lbr-weighting auto|plain|time]
 *                  [--threads] FILE
 * Exit 0, or 2 on a bad argument, an unreadable input or a recording with no usable event.
 */
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/session.h"
#include "hbbp/method/interval.h"
#include "hbbp/method/lbr_time.h"
#include "hbbp/method/method.h"
#include "hbbp/method/roles.h"
#include "reader/perf_reader.h"
#include "util/hbbp_err.h"

#define NB	HBBP_BATCHES

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "refmethod: out of memory\n");
		exit(2);
	}
	return p;
}

/* ---- a table of its own: fixed-size keys, linear probing, values zeroed on insert ---- */

struct tab {
	size_t kw, vsize;	/* key words, value bytes */
	size_t cap, nr;		/* cells (a power of two, or 0), used */
	uint64_t *keys;		/* cap cells of 1 + kw words: word 0 is 1 when used */
	unsigned char *vals;	/* cap cells of vsize bytes */
};

static uint64_t *tab_key(const struct tab *t, size_t i)
{
	return t->keys + i * (t->kw + 1);
}

static void *tab_val(const struct tab *t, size_t i)
{
	return t->vals + i * t->vsize;
}

static size_t tab_probe(const struct tab *t, const uint64_t *key)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < t->kw; i++) {
		h = (h ^ key[i]) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	for (i = h & (t->cap - 1);; i = (i + 1) & (t->cap - 1))
		if (!tab_key(t, i)[0] || !memcmp(tab_key(t, i) + 1, key, t->kw * 8))
			return i;
}

static void *tab_put(struct tab *t, const uint64_t *key);

static void tab_grow(struct tab *t)
{
	struct tab n = { t->kw, t->vsize, t->cap ? 2 * t->cap : 64, 0, NULL, NULL };
	size_t i;

	n.keys = xcalloc(n.cap, (n.kw + 1) * 8);
	n.vals = xcalloc(n.cap, n.vsize);
	for (i = 0; i < t->cap; i++)
		if (tab_key(t, i)[0])
			memcpy(tab_put(&n, tab_key(t, i) + 1), tab_val(t, i), t->vsize);
	free(t->keys);
	free(t->vals);
	*t = n;
}

/* The value of key, inserted zeroed when absent; valid until the next insert. */
static void *tab_put(struct tab *t, const uint64_t *key)
{
	size_t i;

	if (2 * (t->nr + 1) > t->cap)
		tab_grow(t);
	i = tab_probe(t, key);
	if (!tab_key(t, i)[0]) {
		tab_key(t, i)[0] = 1;
		memcpy(tab_key(t, i) + 1, key, t->kw * 8);
		t->nr++;
	}
	return tab_val(t, i);
}

static void *tab_find(const struct tab *t, const uint64_t *key)
{
	size_t i;

	if (!t->cap)
		return NULL;
	i = tab_probe(t, key);
	return tab_key(t, i)[0] ? tab_val(t, i) : NULL;
}

#define tab_for_each(t, i, key, val)						\
	for ((i) = 0; (i) < (t)->cap; (i)++)					\
		if (((key) = tab_key((t), (i)) + 1, (val) = tab_val((t), (i)),	\
		     (key)[-1]))

/* A sum with its rounding error kept apart (Neumaier): as exact as a double allows, in any
 * order of its adds. */
struct ksum { double s, c; };

static void ksum_add(struct ksum *k, double x)
{
	double t = k->s + x;

	k->c += fabs(k->s) >= fabs(x) ? (k->s - t) + x : (x - t) + k->s;
	k->s = t;
}

static double ksum_val(const struct ksum *k)
{
	return k->s + k->c;
}

/* ---- the state ---- */

enum rej { R_BACKWARD, R_UNMAPPED, R_CROSS, R_LONG, R_SPEC, R_NOCODE, R_JUMP, R_UNDECODED,
	   R_BOUND, R_NONE };
static const char *const rej_name[R_NONE] = {
	"to>from", "unmapped", "cross-module", "too-long", "speculative", "no-code",
	"walk-jump", "walk-undecoded", "walk-bound",
};
enum kind { K_CODE, K_NOCODE, K_UNDECODED, K_UNMAPPED };
static const char *const kind_name[] = { "code", "nocode", "undecoded", "unmapped" };
enum src { S_NONE, S_LBR, S_EBS, S_LBR_FB, S_EBS_FB };
static const char *const src_name[] = { "-", "lbr", "ebs", "lbr-fallback", "ebs-fallback" };
enum meth { M_HBBP, M_EBS, M_LBR };

struct rev {				/* an event */
	enum hbbp_role role;
	uint64_t samples, used, short_stacks, zero, streams, time_stacks, fallback, by_ip;
	struct ksum weight, plain;	/* LBR: the stacks' weights, and their periods */
	struct ksum bs[NB];		/* the periods of its used samples per batch (§10) */
	uint64_t enabled, running;	/* §7, summed over its counters */
	double scale;
};

struct ebs_val { struct ksum w; uint64_t n; struct ksum bs[NB]; };
struct stream_val { struct ksum w, wp; uint64_t n; struct ksum bs[NB]; };
struct branch_val { uint64_t oldest, newest, all, target; struct ksum chance; };
struct dur_val { double sum; uint64_t n; struct ksum inv; };
struct dur { uint64_t pid, start, end; struct dur_val v; };
struct blk {				/* a block, or a thread's share of one */
	uint64_t end;
	uint32_t len;
	uint64_t ebs_n, lbr_n;
	struct ksum ebs, lbr, plain, ebs_bs[NB], lbr_bs[NB];
	bool biased;
	double share;
	enum src source;
	double ebs_est, lbr_est, count, lo, hi;
};
struct end { struct bbmap_dso *dso; uint64_t vaddr; };	/* a branch end, dso NULL: unmapped */

struct ref {
	struct perf_reader *rd;
	struct bbmap_session *sess;
	size_t nr_ev;
	struct rev *ev;
	enum meth method;
	unsigned cutoff;
	bool timed;		/* §5b: the LBR stacks weighted by D(Y) */
	uint64_t slot;		/* §10: the time per batch slot (0: batches by hash) */
	struct tab ebs;		/* (pid, tid, dso, vaddr, ev) -> struct ebs_val */
	struct tab streams;	/* (pid, tid, dso, to, from, ev) -> struct stream_val */
	struct tab branches;	/* (dso from, from, dso to, to) -> struct branch_val */
	struct tab reads;	/* (pid, tid, cpu, ev) -> last time_enabled, time_running */
	/* §7 throttling: (ev, cpu) -> first time + 1, throttled since + 1 (0: sampling), time
	 * throttled; and the last time of the recording */
	struct tab thr;
	uint64_t last_time;
	double widen;		/* §7: every interval's widening for throttling, relative */
	struct tab starts;	/* §5b: (pid, start) -> first index in durs, count */
	struct dur *durs;	/* §5b: per (pid, start, end), sorted */
	double mean_dur;
	struct tab blocks;	/* (dso, kind, start) -> struct blk */
	struct tab tblocks;	/* (dso, kind, start, pid, tid) -> struct blk */
	struct end *ends;	/* a stack's ends (reused) */
	size_t alloc_ends;
	uint64_t nr_samples, nr_unused, nr_biased;
	uint64_t rej_n[R_NONE];
	struct ksum rej_w[R_NONE], ebs_attr, lbr_attr;
};

static void tab_init(struct tab *t, size_t kw, size_t vsize)
{
	memset(t, 0, sizeof(*t));
	t->kw = kw;
	t->vsize = vsize;
}

static bool wrong_path(const struct perf_branch_entry *e)
{
	return PERF_BR_SPEC(e->flags) == PERF_BR_SPEC_WRONG_PATH;
}

/* ---- §5b: the stream durations, a first pass over the file ---- */

static int dur_cmp(const void *a, const void *b)
{
	const struct dur *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* The durations of the complete streams of event evidx's stacks (e[k-1].cycles is the stream
 * e[k].to .. e[k-1].from's; 0: not reported), per (process, start, end), sorted, and their
 * mean. Returns whether they can weigh the stacks: some have a count, and at most
 * HBBP_LBR_TIME_MAX_SATURATED of those are saturated. */
static bool ref_durations(struct ref *r, const char *path, int evidx)
{
	struct perf_reader_opts ro = { 0 };
	struct perf_reader *rd = NULL;
	const struct perf_record *rec;
	const char *msg = NULL;
	struct tab t;
	uint64_t timed = 0, saturated = 0, i, k, *key, *gv;
	double total = 0;
	struct dur_val *v;
	size_t nd = 0;

	if (perf_reader__open(&rd, path, &ro, &msg))
		return false;
	tab_init(&t, 3, sizeof(struct dur_val));
	while (perf_reader__next(rd, &rec) > 0) {
		const struct perf_branch_entry *e = rec->sample.branches;
		uint64_t n = rec->sample.nr_branches;

		if (rec->type != PERF_RECORD_SAMPLE || rec->evidx != evidx || !e)
			continue;
		while (n && !e[n - 1].from && !e[n - 1].to)
			n--;
		for (k = 1; k < n; k++) {
			uint64_t c = PERF_BR_CYCLES(e[k - 1].flags), dk[3];

			if (!c)
				continue;
			saturated += c >= HBBP_LBR_CYCLES_MAX;
			if (e[k].to > e[k - 1].from || wrong_path(&e[k]) || wrong_path(&e[k - 1]))
				continue;
			dk[0] = rec->sample.pid;
			dk[1] = e[k].to;
			dk[2] = e[k - 1].from;
			v = tab_put(&t, dk);
			v->sum += (double)c;
			v->n++;
			ksum_add(&v->inv, 1.0 / (double)c);
			total += (double)c;
			timed++;
		}
	}
	perf_reader__delete(rd);
	r->durs = xcalloc(t.nr, sizeof(*r->durs));
	tab_for_each(&t, i, key, v)
		r->durs[nd++] = (struct dur){ key[0], key[1], key[2], *v };
	qsort(r->durs, nd, sizeof(*r->durs), dur_cmp);
	tab_init(&r->starts, 2, 2 * sizeof(uint64_t));
	for (i = 0; i < nd; i++) {
		gv = tab_put(&r->starts, (uint64_t[2]){ r->durs[i].pid, r->durs[i].start });
		if (!gv[1])
			gv[0] = i;
		gv[1]++;
	}
	free(t.keys);
	free(t.vals);
	r->mean_dur = timed ? total / (double)timed : 0;
	return timed && (double)saturated <= HBBP_LBR_TIME_MAX_SATURATED * (double)timed;
}

/* §5b: D(Y) of a stack of process pid whose interrupted stream Y started at `start`, sampled
 * at ip: the harmonic mean of the durations of the complete streams from start that hold ip,
 * else the mean of those from start, else the recording's mean. */
static double ref_duration(struct ref *r, struct rev *ev, uint32_t pid, uint64_t start,
			   uint64_t ip)
{
	const uint64_t *g = tab_find(&r->starts, (uint64_t[2]){ pid, start });
	double sum = 0, n = 0, hn = 0;
	struct ksum hinv = { 0, 0 };
	uint64_t i;

	if (!g) {
		ev->fallback++;
		return r->mean_dur >= 1 ? r->mean_dur : 1;
	}
	for (i = g[0]; i < g[0] + g[1]; i++) {
		const struct dur *d = &r->durs[i];

		sum += d->v.sum;
		n += (double)d->v.n;
		if (ip >= start && ip <= d->end) {
			hn += (double)d->v.n;
			ksum_add(&hinv, ksum_val(&d->v.inv));
		}
	}
	if (hn > 0) {
		ev->by_ip++;
		return hn / ksum_val(&hinv);
	}
	return sum / n;
}

/* ---- the record loop (§2, §4, §5, §7) ---- */

/* §10: the batch of a sample: its slot of the recording's time span, slots of the largest
 * power of two at most span / (K * HBBP_BATCH_CYCLES) taken in turn; without a time span,
 * a hash of its time (or file offset), IP and thread (the same hash as the engine's
 * definition of an untimed sample's batch, hbbp/method/interval.h). */
static unsigned int ref_batch(const struct ref *r, const struct perf_record *rec)
{
	const struct perf_sample *s = &rec->sample;
	bool timed = s->present & PERF_SAMPLE_TIME;
	uint64_t z;

	if (r->slot && timed)
		return (unsigned int)(s->time / r->slot % NB);
	z = (timed ? s->time : rec->file_offset) ^ (s->ip * 0x9e3779b97f4a7c15ULL) ^
	    ((uint64_t)s->tid << 40);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (unsigned int)((z >> 32) * NB >> 32);
}

static void set_slot(struct ref *r)
{
	const struct perf_header_info *h = perf_reader__header(r->rd);
	uint64_t s, len = 1;

	r->slot = 0;
	if (!h->first_sample_time || h->last_sample_time <= h->first_sample_time)
		return;
	s = (h->last_sample_time - h->first_sample_time) / ((uint64_t)NB * HBBP_BATCH_CYCLES);
	while (len <= s / 2)
		len *= 2;
	r->slot = len;
}

/* §7: the latest (time_enabled, time_running) of a counter (thread, cpu, event) */
static void ref_read(struct ref *r, uint32_t pid, uint32_t tid, uint32_t cpu, int evidx,
		     uint64_t enabled, uint64_t running)
{
	uint64_t *v;

	if (evidx < 0 || (size_t)evidx >= r->nr_ev || (!enabled && !running))
		return;
	v = tab_put(&r->reads, (uint64_t[4]){ pid, tid, cpu, (uint64_t)evidx });
	if (enabled >= v[0]) {
		v[0] = enabled;
		v[1] = running;
	}
}

/* §4: the sample's period goes to the instruction at its IP. */
static void ref_ebs(struct ref *r, const struct perf_record *rec, unsigned int b)
{
	const struct perf_sample *s = &rec->sample;
	struct bbmap_loc loc = { 0 };
	struct ebs_val *v;

	if (bbmap_session__lookup(r->sess, s->pid, rec->misc & PERF_RECORD_MISC_CPUMODE_MASK, s->ip,
				  &loc) || !loc.dso) {
		loc.dso = NULL;
		loc.vaddr = 0;
	} else {
		r->ev[rec->evidx].used++;
	}
	v = tab_put(&r->ebs, (uint64_t[5]){ s->pid, bbmap_session__thread_key(r->sess, s->pid,
									     s->tid),
					    (uintptr_t)loc.dso, loc.vaddr, (uint64_t)rec->evidx });
	ksum_add(&v->w, (double)s->period);
	v->n++;
	ksum_add(&v->bs[b], (double)s->period);
}

/* A branch end (§9: the kernel half of the address space is looked up in the kernel maps). */
static void ref_end(struct ref *r, uint32_t pid, int cpumode, uint64_t addr, struct end *x)
{
	bool kernel = addr >> 63, guest = cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
					   cpumode == PERF_RECORD_MISC_GUEST_USER;
	int cm = guest ? (kernel ? PERF_RECORD_MISC_GUEST_KERNEL : PERF_RECORD_MISC_GUEST_USER) :
			 (kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER);
	struct bbmap_loc loc = { 0 };

	x->dso = NULL;
	x->vaddr = 0;
	if (addr && !bbmap_session__lookup(r->sess, pid, cm, addr, &loc) && loc.dso) {
		x->dso = loc.dso;
		x->vaddr = loc.vaddr;
	}
}

/* §3 and §5 (bias): entry k of an n-entry stack. Its target starts a block unless unmapped
 * or on the wrong path; its source, when mapped, counts the slot it was seen in. */
static void ref_branch(struct ref *r, const struct perf_branch_entry *e, uint64_t k, uint64_t n)
{
	const struct end *f = &r->ends[2 * k], *t = &r->ends[2 * k + 1];
	struct branch_val *v;

	if (!f->dso && !t->dso)
		return;
	v = tab_put(&r->branches, (uint64_t[4]){ (uintptr_t)f->dso, f->vaddr, (uintptr_t)t->dso,
						 t->vaddr });
	if (t->dso && !wrong_path(&e[k]))
		v->target = 1;
	if (!f->dso)
		return;
	v->all++;
	ksum_add(&v->chance, 1.0 / (double)n);
	v->oldest += k == n - 1;
	v->newest += k == 0;
}

/* §5: the stream from e[k].to to e[k-1].from (no branch taken between), weight w, its plain
 * weight wp, kept per (thread, dso, to, from, event) or rejected. */
static void ref_stream(struct ref *r, const struct perf_record *rec, uint64_t k, double w,
		       double wp, unsigned int b)
{
	const struct perf_branch_entry *e = rec->sample.branches;
	const struct end *to = &r->ends[2 * k + 1], *from = &r->ends[2 * (k - 1)];
	enum rej why = R_NONE;
	struct stream_val *v;

	if (wrong_path(&e[k]) || wrong_path(&e[k - 1]))
		why = R_SPEC;
	else if (e[k].to > e[k - 1].from)
		why = R_BACKWARD;
	else if (!to->dso || !from->dso)
		why = R_UNMAPPED;
	else if (to->dso != from->dso)
		why = R_CROSS;
	else if (to->vaddr > from->vaddr)
		why = R_BACKWARD;
	else if (from->vaddr - to->vaddr > HBBP_MAX_STREAM_BYTES)
		why = R_LONG;
	if (why != R_NONE) {
		r->rej_n[why]++;
		ksum_add(&r->rej_w[why], w);
		return;
	}
	v = tab_put(&r->streams, (uint64_t[6]){ rec->sample.pid,
						 bbmap_session__thread_key(r->sess, rec->sample.pid,
									   rec->sample.tid),
						 (uintptr_t)to->dso, to->vaddr, from->vaddr,
						 (uint64_t)rec->evidx });
	ksum_add(&v->w, w);
	ksum_add(&v->wp, wp);
	v->n++;
	ksum_add(&v->bs[b], w);
}

/* §5: an LBR sample: its stack without the 0/0 padding of a partly filled LBR holds n-1
 * streams of weight period/(n-1) each (§5b: period/((n-1) D(Y))). */
static void ref_lbr(struct ref *r, const struct perf_record *rec, struct rev *ev, unsigned int b)
{
	const struct perf_sample *s = &rec->sample;
	const struct perf_branch_entry *e = s->branches;
	uint64_t n = s->nr_branches, k;
	double weight = (double)s->period;
	int cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	while (n && e && !e[n - 1].from && !e[n - 1].to) {
		n--;
		ev->zero++;
	}
	if (!e || n < 2) {
		ev->short_stacks++;
		return;
	}
	ev->used++;
	ksum_add(&ev->bs[b], (double)s->period);
	if (r->timed) {
		weight = (double)s->period / ref_duration(r, ev, s->pid, e[0].to, s->ip);
		ev->time_stacks++;
	}
	ksum_add(&ev->weight, weight);
	ksum_add(&ev->plain, (double)s->period);
	ev->streams += n - 1;
	if (r->alloc_ends < 2 * n) {
		free(r->ends);
		r->alloc_ends = 2 * n;
		r->ends = xcalloc(r->alloc_ends, sizeof(*r->ends));
	}
	for (k = 0; k < n; k++) {
		ref_end(r, s->pid, cpumode, e[k].from, &r->ends[2 * k]);
		ref_end(r, s->pid, cpumode, e[k].to, &r->ends[2 * k + 1]);
	}
	for (k = 0; k < n; k++)
		ref_branch(r, e, k, n);
	for (k = 1; k < n; k++)
		ref_stream(r, rec, k, weight / (double)(n - 1), (double)s->period / (double)(n - 1),
			   b);
}

/* §2: a sample counts by its event's role: an EBS sample by its IP, an LBR one by its stack. */
static void ref_sample(struct ref *r, const struct perf_record *rec)
{
	const struct perf_sample *s = &rec->sample;
	unsigned int b;
	struct rev *ev;

	r->nr_samples++;
	if (rec->evidx < 0 || (size_t)rec->evidx >= r->nr_ev) {
		r->nr_unused++;
		return;
	}
	ev = &r->ev[rec->evidx];
	ev->samples++;
	if (s->present & PERF_SAMPLE_READ)
		ref_read(r, s->pid, s->tid, s->cpu, rec->evidx, s->time_enabled, s->time_running);
	b = ref_batch(r, rec);
	if (ev->role == HBBP_ROLE_EBS) {
		ksum_add(&ev->bs[b], (double)s->period);
		ref_ebs(r, rec, b);
	} else if (ev->role == HBBP_ROLE_LBR) {
		ref_lbr(r, rec, ev, b);
	} else {
		r->nr_unused++;
	}
}

/* The records that change address spaces go to bbmap, in order. */
static void ref_code_record(struct ref *r, const struct perf_record *rec)
{
	int cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		bbmap_session__mmap(r->sess, cpumode, rec->mmap.pid, rec->mmap.tid, rec->mmap.start,
				    rec->mmap.len, rec->mmap.pgoff, rec->mmap.filename,
				    rec->mmap.build_id_size ? rec->mmap.build_id : NULL,
				    rec->mmap.build_id_size,
				    !(rec->misc & PERF_RECORD_MISC_MMAP_DATA));
		break;
	case PERF_RECORD_COMM:
		bbmap_session__comm(r->sess, rec->comm.pid, rec->comm.tid, rec->comm.comm,
				    rec->comm.exec);
		break;
	case PERF_RECORD_FORK:
		bbmap_session__fork(r->sess, rec->task.pid, rec->task.ppid, rec->task.tid,
				    rec->task.ptid);
		break;
	case PERF_RECORD_EXIT:
		bbmap_session__exit(r->sess, rec->task.pid, rec->task.tid);
		break;
	case PERF_RECORD_KSYMBOL:
		bbmap_session__ksymbol(r->sess, rec->ksymbol.addr, rec->ksymbol.len,
				       rec->ksymbol.name, rec->ksymbol.flags & 1);
		break;
	case PERF_RECORD_HEADER_BUILD_ID:
		bbmap_session__add_build_id(r->sess, cpumode == PERF_RECORD_MISC_KERNEL,
					    rec->build_id.filename, rec->build_id.id,
					    rec->build_id.size);
		break;
	}
}

/* §7: a counter (event, cpu) seen at time t: a sample of period (on < 0), throttled (1),
 * unthrottled (0). Its slots: first time + 1, throttled since + 1 (0: sampling), time
 * throttled, start + 1 of the stretch sampled since the last UNTHROTTLE, the periods of that
 * stretch, all its periods, and (as doubles) its rate when throttled and the periods that
 * rate gives its gaps. */
static void ref_throttle(struct ref *r, int evidx, uint32_t cpu, uint64_t t, int on,
			 uint64_t period)
{
	uint64_t key[2] = { (uint64_t)evidx, cpu }, *v;
	double rate, gaps;

	if (evidx < 0)
		return;
	v = tab_put(&r->thr, key);
	if (!v[0] || t + 1 < v[0])
		v[0] = t + 1;
	memcpy(&rate, &v[6], sizeof(rate));
	memcpy(&gaps, &v[7], sizeof(gaps));
	if (on < 0) {
		if (!v[3])
			v[3] = v[0];
		v[4] += period;
		v[5] += period;
	}
	if (on == 1 && !v[1]) {
		v[1] = t + 1;
		rate = v[3] && t + 1 > v[3] ? (double)v[4] / (double)(t + 1 - v[3]) : 0;
	}
	if (on == 0 && v[1]) {
		if (t + 1 > v[1]) {
			v[2] += t + 1 - v[1];
			gaps += rate * (double)(t + 1 - v[1]);
		}
		v[1] = 0;
		v[3] = t + 1;
		v[4] = 0;
	}
	memcpy(&v[6], &rate, sizeof(rate));
	memcpy(&v[7], &gaps, sizeof(gaps));
}

static int ref_pass(struct ref *r)
{
	const struct perf_record *rec;
	int ret;

	while ((ret = perf_reader__next(r->rd, &rec)) > 0) {
		uint64_t t = rec->type == PERF_RECORD_SAMPLE ? rec->sample.time :
			     rec->type == PERF_RECORD_THROTTLE || rec->type == PERF_RECORD_UNTHROTTLE ?
			     rec->throttle.time : rec->has_sid ? rec->sid.time : 0;

		if ((rec->type == PERF_RECORD_EXIT || rec->type == PERF_RECORD_FORK) &&
		    rec->task.time > t)
			t = rec->task.time;
		if (t > r->last_time)
			r->last_time = t;
		if (rec->type == PERF_RECORD_SAMPLE && (rec->sample.present & PERF_SAMPLE_TIME))
			ref_throttle(r, rec->evidx, rec->sample.cpu, t, -1, rec->sample.period);
		if (rec->type == PERF_RECORD_THROTTLE || rec->type == PERF_RECORD_UNTHROTTLE)
			ref_throttle(r, rec->evidx, rec->has_sid ? rec->sid.cpu : 0, t,
				     rec->type == PERF_RECORD_THROTTLE, 0);
		if (rec->type == PERF_RECORD_SAMPLE)
			ref_sample(r, rec);
		else if (rec->type == PERF_RECORD_READ)
			ref_read(r, rec->read.pid, rec->read.tid, rec->has_sid ? rec->sid.cpu : 0,
				 rec->evidx, rec->read.time_enabled, rec->read.time_running);
		else
			ref_code_record(r, rec);
	}
	return ret;
}

/* §7: per event, enabled / running summed over its counters, when it did not run always. */
static void ref_scale(struct ref *r)
{
	uint64_t *key, *v;
	size_t i;

	tab_for_each(&r->reads, i, key, v) {
		r->ev[key[3]].enabled += v[0];
		r->ev[key[3]].running += v[1];
	}
	for (i = 0; i < r->nr_ev; i++) {
		struct rev *e = &r->ev[i];
		uint64_t span = 0, off = 0, all = 0;
		double gaps = 0, fill;
		size_t j;

		e->scale = e->running && e->running < e->enabled ?
			   (double)e->enabled / (double)e->running : 1.0;
		/* throttling: the counters' spans to the end over those spans less their gaps
		 * (a gap still open runs to the end) */
		tab_for_each(&r->thr, j, key, v) {
			if (key[0] != i || r->last_time + 1 <= v[0])
				continue;
			memcpy(&fill, &v[7], sizeof(fill));
			gaps += fill;
			if (v[1] && r->last_time + 1 > v[1]) {
				memcpy(&fill, &v[6], sizeof(fill));
				gaps += fill * (double)(r->last_time + 1 - v[1]);
			}
			all += v[5];
			span += r->last_time + 1 - v[0];
			off += v[2] + (v[1] && r->last_time + 1 > v[1] ? r->last_time + 1 - v[1] : 0);
		}
		if (!off || off >= span)
			continue;
		e->scale *= (double)span / (double)(span - off);
		/* the intervals widen by how far the gaps filled at each counter's rate before
		 * it was throttled are from the gaps filled at the average rate, the largest of
		 * the events used */
		if (all && (e->role == HBBP_ROLE_EBS || e->role == HBBP_ROLE_LBR)) {
			double f_avg = (double)span / (double)(span - off);
			double f_rate = ((double)all + gaps) / (double)all;

			if (fabs(f_rate / f_avg - 1.0) > r->widen)
				r->widen = fabs(f_rate / f_avg - 1.0);
		}
	}
}

/* ---- the attribution (§3-§6) ---- */

static struct bbmap_module *ref_module(struct bbmap_dso *d)
{
	struct bbmap_module *m = NULL;

	return d && bbmap_dso__module(d, &m) == DSO_OK ? m : NULL;
}

static int leader_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* §3: every branch target seen in the LBR data starts a block: each added once, in address
 * order, before any block is looked at. */
static void ref_leaders(struct ref *r)
{
	uint64_t (*l)[2] = xcalloc(r->branches.nr, sizeof(*l)), *key;
	struct branch_val *v;
	size_t i, n = 0;

	tab_for_each(&r->branches, i, key, v)
		if (v->target) {
			l[n][0] = key[2];
			l[n++][1] = key[3];
		}
	qsort(l, n, sizeof(*l), leader_cmp);
	for (i = 0; i < n; i++) {
		struct bbmap_module *m;

		if (i && !leader_cmp(l[i], l[i - 1]))
			continue;
		m = ref_module((struct bbmap_dso *)(uintptr_t)l[i][0]);
		if (m)
			bbmap_module__add_leader(m, l[i][1]);
	}
	free(l);
}

/* Adds EBS (lbr false) or LBR sums to block (dso, kind, start) and to its share of thread
 * pid/tid: w (and wp) scaled, n samples or streams, bs per batch times scale. */
static void ref_add(struct ref *r, const uint64_t *bkey, uint64_t end, uint32_t len,
		    uint32_t pid, uint32_t tid, bool lbr, double w, double wp, uint64_t n,
		    const struct ksum *bs, double scale)
{
	uint64_t tkey[5] = { bkey[0], bkey[1], bkey[2], pid, tid };
	unsigned int i, t;

	for (t = 0; t < 2; t++) {
		struct blk *b = t ? tab_put(&r->tblocks, tkey) : tab_put(&r->blocks, bkey);

		b->end = end;
		b->len = len;
		ksum_add(lbr ? &b->lbr : &b->ebs, w);
		if (lbr)
			ksum_add(&b->plain, wp);
		*(lbr ? &b->lbr_n : &b->ebs_n) += n;
		for (i = 0; i < NB; i++)
			ksum_add(lbr ? &b->lbr_bs[i] : &b->ebs_bs[i], scale * ksum_val(&bs[i]));
	}
}

/* §4: each IP's periods (times its event's scale) go to the block holding it; an IP in a dso
 * without code, off decoded code or in no map to a pseudo block (its symbol, or 0). */
static void ref_attr_ebs(struct ref *r)
{
	const struct bbmap_block *blk;
	struct ebs_val *v;
	uint64_t *key;
	size_t i;

	tab_for_each(&r->ebs, i, key, v) {
		struct bbmap_dso *dso = (struct bbmap_dso *)(uintptr_t)key[2];
		struct bbmap_module *m = ref_module(dso);
		double scale = r->ev[key[4]].scale, w = ksum_val(&v->w) * scale;
		uint64_t bkey[3] = { key[2], K_CODE, 0 }, end = 0;
		uint32_t len = 0;

		if (!dso) {
			bkey[1] = K_UNMAPPED;
		} else if (!m) {
			bkey[1] = K_NOCODE;
			if (!bbmap_dso__symbol_name(dso, key[3], &bkey[2]))
				bkey[2] = 0;
			end = bkey[2];
		} else if (bbmap_module__block_at(m, key[3], &blk)) {
			const struct bbmap_symbol *sym = bbmap_module__symbol_at(m, key[3]);

			bkey[1] = K_UNDECODED;
			bkey[2] = end = sym ? sym->start : 0;
		} else {
			bkey[2] = blk->start;
			end = blk->end;
			len = blk->nr_insns;
			ksum_add(&r->ebs_attr, w);
		}
		ref_add(r, bkey, end, len, (uint32_t)key[0], (uint32_t)key[1], false, w, 0, v->n,
			v->bs, scale);
	}
}

struct step { uint64_t start, end; uint32_t len; };

/* §5: the blocks of a stream, from the one starting at its target `to` through the one
 * holding its source `from`, into steps[0..*nr); R_NONE, or why it is rejected (a block ending
 * in a jump, call or return before from; code not decoded; too many blocks). */
static enum rej ref_walk(struct bbmap_module *m, uint64_t to, uint64_t from, struct step **steps,
			 size_t *alloc, size_t *nr)
{
	uint64_t cur = to;

	for (*nr = 0;; cur = (*steps)[*nr - 1].end) {
		const struct bbmap_block *blk;

		if (*nr >= HBBP_MAX_WALK_BLOCKS)
			return R_BOUND;
		if (bbmap_module__block_at(m, cur, &blk) || blk->end <= cur)
			return R_UNDECODED;
		if (*nr == *alloc) {
			struct step *s = xcalloc(*alloc * 2 + 16, sizeof(*s));

			if (*nr)
				memcpy(s, *steps, *nr * sizeof(*s));
			free(*steps);
			*steps = s;
			*alloc = *alloc * 2 + 16;
		}
		(*steps)[(*nr)++] = (struct step){ blk->start, blk->end, blk->nr_insns };
		if (from >= blk->start && from < blk->end)
			return R_NONE;
		if ((blk->end_flags & BBMAP_INSN_BRANCH) && !(blk->end_flags & BBMAP_INSN_COND))
			return R_JUMP;
	}
}

/* §5: every kept stream's weight (times its event's scale) to each block it walks through. */
static void ref_attr_streams(struct ref *r)
{
	struct step *steps = NULL;
	size_t i, j, nr = 0, alloc = 0;
	struct stream_val *v;
	uint64_t *key;

	tab_for_each(&r->streams, i, key, v) {
		struct bbmap_module *m = ref_module((struct bbmap_dso *)(uintptr_t)key[2]);
		double scale = r->ev[key[5]].scale, w = ksum_val(&v->w) * scale;
		enum rej why = m ? ref_walk(m, key[3], key[4], &steps, &alloc, &nr) : R_NOCODE;

		if (why != R_NONE) {
			r->rej_n[why] += v->n;
			ksum_add(&r->rej_w[why], w);
			continue;
		}
		for (j = 0; j < nr; j++)
			ref_add(r, (uint64_t[3]){ key[2], K_CODE, steps[j].start }, steps[j].end,
				steps[j].len, (uint32_t)key[0], (uint32_t)key[1], true, w,
				ksum_val(&v->wp) * scale, v->n, v->bs, scale);
		ksum_add(&r->lbr_attr, w);
	}
	free(steps);
}

/* The bias share and flag to the code block with counts that holds vaddr (containing) or
 * starts there. */
static void ref_mark(struct ref *r, uint64_t dso, uint64_t vaddr, bool containing, double share,
		     bool biased)
{
	struct bbmap_module *m = ref_module((struct bbmap_dso *)(uintptr_t)dso);
	const struct bbmap_block *blk;
	struct blk *b;

	if (!m || (containing && bbmap_module__block_at(m, vaddr, &blk)))
		return;
	b = tab_find(&r->blocks, (uint64_t[3]){ dso, K_CODE, containing ? blk->start : vaddr });
	if (!b)
		return;
	if (share > b->share)
		b->share = share;
	b->biased |= biased;
}

/* §5 (bias, decision): a branch source's shares of the oldest and of the newest slot against
 * the share chance gives it (the mean of 1/n over its occurrences); biased beyond
 * HBBP_BIAS_FACTOR times chance, once seen HBBP_BIAS_MIN_OCC times. The block holding the
 * source and those starting at its targets get the flag and the share. */
static void ref_bias(struct ref *r)
{
	struct branch_val *v, *s;
	struct tab src;		/* (dso, from) -> the sums over its targets; share in chance.s */
	uint64_t *key;
	size_t i;

	tab_init(&src, 2, sizeof(struct branch_val));
	tab_for_each(&r->branches, i, key, v)
		if (key[0]) {
			s = tab_put(&src, key);
			s->oldest += v->oldest;
			s->newest += v->newest;
			s->all += v->all;
			ksum_add(&s->chance, ksum_val(&v->chance));
		}
	tab_for_each(&src, i, key, s) {
		double so = (double)s->oldest / (double)s->all, sn = (double)s->newest / (double)s->all;
		double chance = ksum_val(&s->chance) / (double)s->all;

		s->chance.s = so > sn ? so : sn;
		s->target = s->all >= HBBP_BIAS_MIN_OCC && s->chance.s > HBBP_BIAS_FACTOR * chance;
		r->nr_biased += s->target;
	}
	tab_for_each(&r->branches, i, key, v) {
		if (!key[0])
			continue;
		s = tab_find(&src, key);
		ref_mark(r, key[0], key[1], true, s->chance.s, s->target);
		if (key[2])
			ref_mark(r, key[2], key[3], false, s->chance.s, s->target);
	}
	free(src.keys);
	free(src.vals);
}

/* §6: LBR for blocks of at most cutoff instructions, else EBS; the other where the chosen one
 * has no data (a fallback); one source alone in the LBR-only and EBS-only modes. */
static enum src ref_rule(const struct ref *r, uint32_t len, bool has_ebs, bool has_lbr)
{
	if (r->method == M_EBS)
		return has_ebs ? S_EBS : S_NONE;
	if (r->method == M_LBR)
		return has_lbr ? S_LBR : S_NONE;
	if (len <= r->cutoff)
		return has_lbr ? S_LBR : has_ebs ? S_EBS_FB : S_NONE;
	return has_ebs ? S_EBS : has_lbr ? S_LBR_FB : S_NONE;
}

/* §10: per batch, the factor from a batch's sum to an estimate of the whole: the role's used
 * periods (times scale) over the batch's; K where some batch has none. */
static void ref_ratio(const struct ref *r, enum hbbp_role role, double *f)
{
	double w[NB] = { 0 }, tot = 0;
	bool ok = true;
	size_t e, i;

	for (e = 0; e < r->nr_ev; e++)
		for (i = 0; i < NB && r->ev[e].role == role; i++)
			w[i] += r->ev[e].scale * ksum_val(&r->ev[e].bs[i]);
	for (i = 0; i < NB; i++) {
		tot += w[i];
		ok = ok && w[i] > 0 && isfinite(w[i]);
	}
	for (i = 0; i < NB; i++)
		f[i] = ok && isfinite(tot) ? tot / w[i] : NB;
}

/* §10: the count's 95% interval from its estimate in each batch: batch means, Student's t with
 * K-1 = 9 degrees of freedom (2.26215716, from a table to 9 digits); [0, 0] for no count;
 * then wider by widen times the count on each side (§7). */
static void ref_interval(struct blk *b, const double *x, double widen)
{
	double ss = 0, half, t9 = 2.26215716;
	unsigned int i;

	b->lo = b->hi = 0;
	if (!isfinite(b->count) || b->count <= 0)
		return;
	for (i = 0; i < NB; i++)
		ss += (x[i] - b->count) * (x[i] - b->count);
	half = t9 * sqrt(ss / (NB - 1) / NB);
	if (!isfinite(half))
		half = t9 * b->count;
	b->lo = b->count - half > 0 ? b->count - half : 0;
	b->hi = b->count + half < DBL_MAX ? b->count + half : DBL_MAX;
	if (widen > 0) {
		b->lo = b->lo - widen * b->count > 0 ? b->lo - widen * b->count : 0;
		b->hi = b->hi + widen * b->count < DBL_MAX ? b->hi + widen * b->count : DBL_MAX;
	}
}

/* A block's (or thread block's) estimates and count under the source src (§4-§6), and its
 * interval (§10). */
static void ref_count(struct blk *b, enum kind kind, uint32_t len, enum src src,
		      const double *fe, const double *fl, double widen)
{
	bool lbr = src == S_LBR || src == S_LBR_FB, ebs = src == S_EBS || src == S_EBS_FB;
	double x[NB];
	unsigned int i;

	b->source = src;
	b->ebs_est = kind != K_CODE ? ksum_val(&b->ebs) : len ? ksum_val(&b->ebs) / len : 0;
	b->lbr_est = kind == K_CODE ? ksum_val(&b->lbr) : 0;
	b->count = lbr ? b->lbr_est : ebs ? b->ebs_est : 0;
	for (i = 0; i < NB; i++) {
		x[i] = 0;
		if (lbr && kind == K_CODE)
			x[i] = ksum_val(&b->lbr_bs[i]) * fl[i];
		else if (ebs && kind != K_CODE)
			x[i] = ksum_val(&b->ebs_bs[i]) * fe[i];
		else if (ebs && len)
			x[i] = ksum_val(&b->ebs_bs[i]) / len * fe[i];
	}
	ref_interval(b, x, widen);
}

static void ref_choose(struct ref *r)
{
	double fe[NB], fl[NB];
	uint64_t *key;
	struct blk *b;
	size_t i;

	ref_ratio(r, HBBP_ROLE_EBS, fe);
	ref_ratio(r, HBBP_ROLE_LBR, fl);
	tab_for_each(&r->blocks, i, key, b) {
		bool has_e = b->ebs_n > 0, has_l = b->lbr_n > 0;
		enum src src = key[1] != K_CODE ? (r->method != M_LBR && has_e ? S_EBS : S_NONE) :
			       ref_rule(r, b->len, has_e, has_l);

		ref_count(b, key[1], b->len, src, fe, fl, r->widen);
	}
	tab_for_each(&r->tblocks, i, key, b) {
		const struct blk *blk = tab_find(&r->blocks, key);

		ref_count(b, key[1], blk->len, blk->source, fe, fl, r->widen);
	}
}

/* ---- output ---- */

static void print_batches(const struct ksum *bs)
{
	unsigned int i;

	for (i = 0; i < NB; i++)
		printf("\t%.17g", ksum_val(&bs[i]));
}

static const char *dso_name(uint64_t dso)
{
	const char *n = dso ? bbmap_dso__name((const struct bbmap_dso *)(uintptr_t)dso) : NULL;

	return dso ? (n ? n : "?") : "[unmapped]";
}

static void ref_print(const struct ref *r, bool threads)
{
	const struct blk *b;
	uint64_t *key;
	size_t i;

	tab_for_each(&r->blocks, i, key, b) {
		printf("B\t%s\t%s\t%#llx\t%#llx\t%u\t%llu\t%llu\t%s\t%d", dso_name(key[0]),
		       kind_name[key[1]], (unsigned long long)key[2], (unsigned long long)b->end,
		       b->len, (unsigned long long)b->ebs_n, (unsigned long long)b->lbr_n,
		       src_name[b->source], b->biased);
		printf("\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g",
		       ksum_val(&b->ebs), ksum_val(&b->lbr), ksum_val(&b->plain), b->ebs_est,
		       b->lbr_est, b->count, b->share, b->lo, b->hi);
		print_batches(b->ebs_bs);
		print_batches(b->lbr_bs);
		printf("\n");
	}
	tab_for_each(&r->tblocks, i, key, b) {
		if (!threads)
			break;
		printf("T\t%s\t%s\t%#llx\t%llu\t%llu\t%llu\t%llu", dso_name(key[0]),
		       kind_name[key[1]], (unsigned long long)key[2], (unsigned long long)key[3],
		       (unsigned long long)key[4], (unsigned long long)b->ebs_n,
		       (unsigned long long)b->lbr_n);
		printf("\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g", ksum_val(&b->ebs),
		       ksum_val(&b->lbr), ksum_val(&b->plain), b->ebs_est, b->lbr_est, b->count,
		       b->lo, b->hi);
		print_batches(b->ebs_bs);
		print_batches(b->lbr_bs);
		printf("\n");
	}
	for (i = 0; i < r->nr_ev; i++) {
		const struct rev *e = &r->ev[i];

		printf("E\t%zu\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu", i,
		       hbbp_role_name(e->role), (unsigned long long)e->samples,
		       (unsigned long long)e->used, (unsigned long long)e->short_stacks,
		       (unsigned long long)e->zero, (unsigned long long)e->streams,
		       (unsigned long long)e->time_stacks, (unsigned long long)e->fallback,
		       (unsigned long long)e->by_ip);
		printf("\t%.17g\t%.17g\t%.17g", ksum_val(&e->weight), ksum_val(&e->plain), e->scale);
		print_batches(e->bs);
		printf("\n");
	}
	for (i = 0; i < R_NONE; i++)
		printf("R\t%s\t%llu\t%.17g\n", rej_name[i], (unsigned long long)r->rej_n[i],
		       ksum_val(&r->rej_w[i]));
	printf("N\tsamples\t%llu\nN\tunused\t%llu\nN\tbiased_branches\t%llu\n",
	       (unsigned long long)r->nr_samples, (unsigned long long)r->nr_unused,
	       (unsigned long long)r->nr_biased);
	printf("F\tebs_weight_attributed\t%.17g\nF\tlbr_weight_attributed\t%.17g\n",
	       ksum_val(&r->ebs_attr), ksum_val(&r->lbr_attr));
}

/* ---- setup ---- */

struct ref_opts {
	struct bbmap_find_opts find;
	struct bbmap_binary_override bins[32];
	enum meth method;
	bool method_given, threads;
	unsigned cutoff;
	int weighting;		/* enum hbbp_lbr_weighting */
	const char *input;
};

/* §2: the events' roles (an LBR role needs the all-branches filter) and the mode: a recording
 * with one usable role runs in that role's mode. The LBR event's index or -1. */
static int ref_roles(struct ref *r, const struct ref_opts *o, int *lbr_ev)
{
	struct hbbp_event_role *roles = xcalloc(r->nr_ev, sizeof(*roles));
	bool has_ebs = false, has_lbr = false;
	char msg[512];
	size_t i;

	*lbr_ev = -1;
	if (hbbp_roles__assign(r->rd, NULL, NULL, roles, msg, sizeof(msg)))
		return -1;
	for (i = 0; i < r->nr_ev; i++) {
		r->ev[i].role = roles[i].role;
		if (roles[i].role == HBBP_ROLE_LBR && !roles[i].branch_any)
			r->ev[i].role = HBBP_ROLE_UNUSED;
		has_ebs |= r->ev[i].role == HBBP_ROLE_EBS;
		if (r->ev[i].role == HBBP_ROLE_LBR && *lbr_ev < 0)
			*lbr_ev = (int)i;
	}
	free(roles);
	has_lbr = *lbr_ev >= 0;
	r->method = o->method;
	if (!has_ebs && !has_lbr)
		return -1;
	if (o->method_given && ((o->method == M_EBS && !has_ebs) || (o->method == M_LBR && !has_lbr)))
		return -1;
	if (o->method == M_HBBP && !has_ebs)
		r->method = M_LBR;
	else if (o->method == M_HBBP && !has_lbr)
		r->method = M_EBS;
	return 0;
}

/* §5b applies to the LBR event's stacks when it counts time (or when asked) and the file can
 * be read twice, and when their entries carry usable cycle counts. */
static void ref_weighting(struct ref *r, const struct ref_opts *o, int lbr_ev)
{
	const struct perf_event_info *e;

	r->timed = false;
	if (r->method == M_EBS || lbr_ev < 0 || o->weighting == HBBP_LBR_WEIGHT_PLAIN)
		return;
	e = perf_reader__event(r->rd, (size_t)lbr_ev);
	if (o->weighting == HBBP_LBR_WEIGHT_AUTO && !hbbp_lbr_time__event_is_time(e))
		return;
	if (perf_reader__header(r->rd)->is_pipe)
		return;
	r->timed = ref_durations(r, o->input, lbr_ev);
}

static int ref_open(struct ref *r, const struct ref_opts *o)
{
	const struct perf_header_info *h;
	struct perf_reader_opts ro = { 0 };
	struct bbmap_find_opts fo = o->find;
	const char *msg = NULL;
	int lbr_ev;
	size_t i;

	if (perf_reader__open(&r->rd, o->input, &ro, &msg)) {
		fprintf(stderr, "refmethod: %s\n", msg ? msg : o->input);
		return -1;
	}
	h = perf_reader__header(r->rd);
	r->nr_ev = perf_reader__nr_events(r->rd);
	r->ev = xcalloc(r->nr_ev, sizeof(*r->ev));
	r->cutoff = o->cutoff;
	if (ref_roles(r, o, &lbr_ev)) {
		fprintf(stderr, "refmethod: %s: no usable event\n", o->input);
		return -1;
	}
	ref_weighting(r, o, lbr_ev);
	set_slot(r);
	fo.no_lines = true;
	fo.no_operands = true;
	fo.kcore_dir = h->kcore_dir;
	fo.osrelease = h->osrelease;
	if (bbmap_session__new(&r->sess, &fo))
		return -1;
	for (i = 0; i < h->nr_build_ids; i++)
		bbmap_session__add_build_id(r->sess, h->build_ids[i].cpumode == PERF_RECORD_MISC_KERNEL,
					    h->build_ids[i].filename, h->build_ids[i].id,
					    h->build_ids[i].size);
	tab_init(&r->ebs, 5, sizeof(struct ebs_val));
	tab_init(&r->streams, 6, sizeof(struct stream_val));
	tab_init(&r->branches, 4, sizeof(struct branch_val));
	tab_init(&r->reads, 4, 2 * sizeof(uint64_t));
	tab_init(&r->thr, 2, 8 * sizeof(uint64_t));
	tab_init(&r->blocks, 3, sizeof(struct blk));
	tab_init(&r->tblocks, 5, sizeof(struct blk));
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: refmethod [--binary NAME=PATH]... [--symfs DIR] [--buildid-dir DIR] "
		"[--method hbbp|ebs|lbr] [--cutoff N] [--lbr-weighting auto|plain|time] "
		"[--threads] FILE\n");
	return 2;
}

static int parse_args(struct ref_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "binary", required_argument, NULL, 'b' },
		{ "symfs", required_argument, NULL, 's' },
		{ "buildid-dir", required_argument, NULL, 'd' },
		{ "method", required_argument, NULL, 'm' },
		{ "cutoff", required_argument, NULL, 'c' },
		{ "lbr-weighting", required_argument, NULL, 'w' },
		{ "threads", no_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	memset(o, 0, sizeof(*o));
	o->cutoff = HBBP_DEFAULT_CUTOFF;
	o->find.binaries = o->bins;
	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		char *eq = opt == 'b' ? strchr(optarg, '=') : NULL;

		switch (opt) {
		case 'b':
			if (!eq || o->find.nr_binaries == 32)
				return -1;
			*eq = 0;
			o->bins[o->find.nr_binaries].name = optarg;
			o->bins[o->find.nr_binaries++].path = eq + 1;
			break;
		case 's': o->find.symfs = optarg; break;
		case 'd': o->find.buildid_dir = optarg; break;
		case 'c': o->cutoff = (unsigned)strtoul(optarg, NULL, 0); break;
		case 't': o->threads = true; break;
		case 'm':
			o->method_given = true;
			o->method = !strcmp(optarg, "ebs") ? M_EBS : !strcmp(optarg, "lbr") ? M_LBR :
				    M_HBBP;
			break;
		case 'w':
			o->weighting = !strcmp(optarg, "plain") ? HBBP_LBR_WEIGHT_PLAIN :
				       !strcmp(optarg, "time") ? HBBP_LBR_WEIGHT_TIME :
				       HBBP_LBR_WEIGHT_AUTO;
			break;
		default:
			return -1;
		}
	}
	if (optind + 1 != argc)
		return -1;
	o->input = argv[optind];
	return 0;
}

int main(int argc, char **argv)
{
	struct ref_opts o;
	struct ref r;

	if (parse_args(&o, argc, argv))
		return usage();
	hbbp_log_set(NULL, NULL, HBBP_LOG_ERROR);
	memset(&r, 0, sizeof(r));
	if (ref_open(&r, &o))
		return 2;
	if (ref_pass(&r) < 0) {
		fprintf(stderr, "refmethod: %s\n", perf_reader__errmsg(r.rd));
		return 2;
	}
	ref_scale(&r);
	ref_leaders(&r);
	ref_attr_ebs(&r);
	ref_attr_streams(&r);
	ref_bias(&r);
	ref_choose(&r);
	ref_print(&r, o.threads);
	bbmap_session__delete(r.sess);
	perf_reader__delete(r.rd);
	return 0;
}
