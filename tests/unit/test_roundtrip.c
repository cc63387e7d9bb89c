/* Round trip: perf.data files written by samples/perfwrite/perf_writer.h are read back
 * through reader/perf_reader.h and every field is compared with what was written. Covers every
 * sample_type bit alone and all together (WEIGHT and WEIGHT_STRUCT apart), READ in every
 * read_format, branch stacks with and without HW_INDEX and counters, both byte orders, file
 * and pipe mode, attr sizes 64..136, uncompressed / COMPRESSED / COMPRESSED2, the sample_id
 * trailer of every non-sample record, header features, event names, ids and build-ids.
 * Each sample is followed by a canary LOST record (a misread length shows up there) and
 * every buffer handed to the writer has a canary element after it (must stay untouched).
 * The expected values are built here from the written values, never from the reader.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader/perf_format.h"
#include "reader/perf_reader.h"
#include "samples/perfwrite/perf_writer.h"
#include "tests/harness.h"

#define CANARY		0xca5a11ed0badf00dULL
#define CANARY_ID	0x7777777777777777ULL	/* id of the canary LOST records */
#define NR_SAMPLES	5
#define NR_BR		3
#define NR_CALL		4
#define NR_GROUP	3
#define RAW_SIZE	13	/* written padded to 20 (4 + 20 = 24) */
#define AUX_SIZE	20	/* written padded to 24 */
#define STACK_SIZE	64

static char tmpdir[256];
static int nr_files;

struct mode {
	bool swap, pipe;
	uint32_t asz;
	enum perf_writer_compress comp;
};

struct tcase {
	char name[64];
	uint64_t st, rf, bst;
	int nev;
};

/* distinctive value of field f in sample i: every byte differs, the top bit is set */
static uint64_t val(unsigned f, unsigned i)
{
	return 0x8000000000000000ULL | (uint64_t)(f & 0x7f) << 56 | (uint64_t)(i & 0xff) << 48 |
	       0x0000a1b2c3d4e5f6ULL;
}

static uint32_t val32(unsigned f, unsigned i)
{
	return 0x80000000u | (f & 0x7f) << 24 | (i & 0xff) << 16 | 0x1234;
}

/* ---- buffers with a canary after them ---- */

struct canary_buf {
	void *p;
	size_t size;
};

static struct canary_buf cbufs[64];
static int nr_cbufs;

static void *cbuf(size_t size)
{
	uint8_t *p = malloc(size + 8);
	uint64_t c = CANARY;

	if (!p)
		abort();
	memcpy(p + size, &c, 8);
	cbufs[nr_cbufs].p = p;
	cbufs[nr_cbufs].size = size;
	nr_cbufs++;
	return p;
}

static void cbufs_check_free(void)
{
	for (int i = 0; i < nr_cbufs; i++) {
		uint64_t c;

		memcpy(&c, (uint8_t *)cbufs[i].p + cbufs[i].size, 8);
		CHECK_EQ_U64(c, CANARY);
		free(cbufs[i].p);
	}
	nr_cbufs = 0;
}

/* ---- attrs ---- */

static uint64_t event_id(int ev, int k)
{
	return 0x1100000000000001ULL + (uint64_t)ev * 0x100 + (uint64_t)k;
}

static void make_attr(const struct tcase *tc, int ev, struct perf_evattr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_RAW;
	a->config = 0x1c0 + (uint64_t)ev * 0x100 + 0xabcd000000000000ULL;
	a->sample_period = 1000003 + (uint64_t)ev;
	a->sample_type = tc->st;
	a->read_format = tc->rf;
	a->flags = PERF_ATTR_FLAG_DISABLED | PERF_ATTR_FLAG_EXCLUDE_HV | PERF_ATTR_FLAG_MMAP |
		   PERF_ATTR_FLAG_COMM | (2ULL << PERF_ATTR_FLAG_PRECISE_SHIFT) |
		   PERF_ATTR_FLAG_SAMPLE_ID_ALL | PERF_ATTR_FLAG_MMAP2 | PERF_ATTR_FLAG_COMM_EXEC |
		   PERF_ATTR_FLAG_BUILD_ID;
	a->wakeup_events = 0x01020304;
	a->bp_type = 0x05060708;
	a->config1 = 0x1112131415161718ULL;
	a->config2 = 0x2122232425262728ULL;
	a->branch_sample_type = tc->bst;
	a->sample_regs_user = 0x1a5;		/* 5 registers */
	a->sample_stack_user = 0x3132;
	a->clockid = -7;
	a->sample_regs_intr = 0xf0000000f0ULL;	/* 8 registers */
	a->aux_watermark = 0x41424344;
	a->sample_max_stack = 0x4546;
	a->aux_sample_size = 0x51525354;
	a->aux_action = 0x7;
	a->sig_data = 0x6162636465666768ULL;
	a->config3 = 0x7172737475767778ULL;
}

/* What a reader sees of attr a stored in asz bytes (offsets from the UAPI layout). */
static void attr_as_stored(struct perf_evattr *a, uint32_t asz)
{
	a->size = asz;
	if (asz < 72)
		a->config2 = 0;
	if (asz < 80)
		a->branch_sample_type = 0;
	if (asz < 96) {
		a->sample_regs_user = 0;
		a->sample_stack_user = 0;
		a->clockid = 0;
	}
	if (asz < 104)
		a->sample_regs_intr = 0;
	if (asz < 112) {
		a->aux_watermark = 0;
		a->sample_max_stack = 0;
	}
	if (asz < 120) {
		a->aux_sample_size = 0;
		a->aux_action = 0;
	}
	if (asz < 128)
		a->sig_data = 0;
	if (asz < 136)
		a->config3 = 0;
}

static void check_attr(const struct perf_evattr *got, const struct perf_evattr *exp)
{
	CHECK_EQ_U64(got->type, exp->type);
	CHECK_EQ_U64(got->size, exp->size);
	CHECK_EQ_U64(got->config, exp->config);
	CHECK_EQ_U64(got->sample_period, exp->sample_period);
	CHECK_EQ_U64(got->sample_type, exp->sample_type);
	CHECK_EQ_U64(got->read_format, exp->read_format);
	CHECK_EQ_U64(got->flags, exp->flags);
	CHECK_EQ_U64(got->wakeup_events, exp->wakeup_events);
	CHECK_EQ_U64(got->bp_type, exp->bp_type);
	CHECK_EQ_U64(got->config1, exp->config1);
	CHECK_EQ_U64(got->config2, exp->config2);
	CHECK_EQ_U64(got->branch_sample_type, exp->branch_sample_type);
	CHECK_EQ_U64(got->sample_regs_user, exp->sample_regs_user);
	CHECK_EQ_U64(got->sample_stack_user, exp->sample_stack_user);
	CHECK_EQ_U64((uint32_t)got->clockid, (uint32_t)exp->clockid);
	CHECK_EQ_U64(got->sample_regs_intr, exp->sample_regs_intr);
	CHECK_EQ_U64(got->aux_watermark, exp->aux_watermark);
	CHECK_EQ_U64(got->sample_max_stack, exp->sample_max_stack);
	CHECK_EQ_U64(got->aux_sample_size, exp->aux_sample_size);
	CHECK_EQ_U64(got->aux_action, exp->aux_action);
	CHECK_EQ_U64(got->sig_data, exp->sig_data);
	CHECK_EQ_U64(got->config3, exp->config3);
}

/* ---- samples ---- */

static uint64_t sample_time(unsigned i)
{
	return 1000000 + 1000 * (uint64_t)i;
}

/* Fills s with distinctive values for sample i of event ev (every field, whatever the
 * sample_type: the writer must pick the right ones). a is the attr as stored. */
static void make_sample(struct perf_sample *s, unsigned i, int ev, const struct perf_evattr *a)
{
	struct perf_read_value *rv;
	struct perf_branch_entry *br;
	uint64_t *cc, *cnt, *ru, *ri;
	uint8_t *raw, *aux, *stack;
	unsigned nr_ru = (unsigned)__builtin_popcountll(a->sample_regs_user);
	unsigned nr_ri = (unsigned)__builtin_popcountll(a->sample_regs_intr);

	memset(s, 0, sizeof(*s));
	s->present = a->sample_type;
	s->id = event_id(ev, (int)i % 2);
	s->ip = val(1, i);
	s->pid = val32(2, i);
	s->tid = val32(3, i);
	s->time = sample_time(i);
	s->addr = val(4, i);
	s->stream_id = val(5, i);
	s->cpu = val32(6, i);
	s->period = val(7, i);
	s->read_nr = (a->read_format & PERF_FORMAT_GROUP) ? NR_GROUP : 1;
	s->time_enabled = val(8, i);
	s->time_running = val(9, i);
	rv = cbuf(s->read_nr * sizeof(*rv));
	for (unsigned k = 0; k < s->read_nr; k++) {
		rv[k].value = val(10 + k, i);
		rv[k].id = event_id(ev, (int)k);
		rv[k].lost = val(20 + k, i);
	}
	s->read_values = rv;
	s->nr_callchain = NR_CALL;
	cc = cbuf(NR_CALL * 8);
	cc[0] = PERF_CONTEXT_USER;
	for (unsigned k = 1; k < NR_CALL; k++)
		cc[k] = val(30 + k, i);
	s->callchain = cc;
	s->raw_size = RAW_SIZE;
	raw = cbuf(RAW_SIZE);
	for (unsigned k = 0; k < RAW_SIZE; k++)
		raw[k] = (uint8_t)(0x40 + k + i);
	s->raw = raw;
	s->nr_branches = i == 2 ? 0 : NR_BR;	/* one sample with an empty stack */
	s->hw_idx = val(40, i);
	s->has_hw_idx = a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX;
	br = cbuf(NR_BR * sizeof(*br));
	cnt = cbuf(NR_BR * 8);
	for (unsigned k = 0; k < NR_BR; k++) {
		br[k].from = val(41 + k, i);
		br[k].to = val(44 + k, i);
		/* mispred, abort, cycles, type, spec, new_type, priv: every field non-trivial */
		br[k].flags = PERF_BR_MISPRED | PERF_BR_ABORT | (uint64_t)(0x1234 + k) << 4 |
			      (uint64_t)(5 + k) << 20 | 2ULL << 24 | (uint64_t)(9 - k) << 26 |
			      3ULL << 30;
		cnt[k] = val(47 + k, i);
	}
	s->branches = br;
	s->branch_counters = cnt;
	s->regs_user.abi = i == 1 ? 0 : 2;
	s->regs_user.nr = i == 1 ? 0 : nr_ru;
	ru = cbuf(64 * 8);
	for (unsigned k = 0; k < 64; k++)
		ru[k] = val(50, k + 16 * i);
	s->regs_user.regs = ru;
	s->regs_intr.abi = 2;
	s->regs_intr.nr = nr_ri;
	ri = cbuf(64 * 8);
	for (unsigned k = 0; k < 64; k++)
		ri[k] = val(51, k + 16 * i);
	s->regs_intr.regs = ri;
	s->stack_size = i == 1 ? 0 : STACK_SIZE;
	s->stack_dyn_size = i == 1 ? 0 : 40;
	stack = cbuf(STACK_SIZE);
	for (unsigned k = 0; k < STACK_SIZE; k++)
		stack[k] = (uint8_t)(0x80 + k + i);
	s->stack = stack;
	s->weight = (a->sample_type & PERF_SAMPLE_WEIGHT_STRUCT) ?
		    (0x1111ULL << 48 | 0x2222ULL << 32 | (0x33330000u + i)) : val(52, i);
	s->data_src = val(53, i);
	s->transaction = val(54, i);
	s->phys_addr = val(55, i);
	s->cgroup = val(56, i);
	s->data_page_size = val(57, i);
	s->code_page_size = val(58, i);
	s->aux_size = AUX_SIZE;
	aux = cbuf(AUX_SIZE);
	for (unsigned k = 0; k < AUX_SIZE; k++)
		aux[k] = (uint8_t)(0xc0 + k + i);
	s->aux = aux;
}

static void check_sample(const struct perf_sample *g, const struct perf_sample *e,
			 const struct perf_evattr *a)
{
	uint64_t st = a->sample_type, rf = a->read_format, bst = a->branch_sample_type;

	CHECK_EQ_U64(g->present, st);
	CHECK_EQ_U64(g->id, st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER) ? e->id : 0);
	CHECK_EQ_U64(g->ip, st & PERF_SAMPLE_IP ? e->ip : 0);
	CHECK_EQ_U64(g->pid, st & PERF_SAMPLE_TID ? e->pid : 0);
	CHECK_EQ_U64(g->tid, st & PERF_SAMPLE_TID ? e->tid : 0);
	CHECK_EQ_U64(g->time, st & PERF_SAMPLE_TIME ? e->time : 0);
	CHECK_EQ_U64(g->addr, st & PERF_SAMPLE_ADDR ? e->addr : 0);
	CHECK_EQ_U64(g->stream_id, st & PERF_SAMPLE_STREAM_ID ? e->stream_id : 0);
	CHECK_EQ_U64(g->cpu, st & PERF_SAMPLE_CPU ? e->cpu : 0);
	CHECK_EQ_U64(g->period, st & PERF_SAMPLE_PERIOD ? e->period : a->sample_period);
	if (st & PERF_SAMPLE_READ) {
		CHECK_EQ_U64(g->read_nr, e->read_nr);
		CHECK_EQ_U64(g->time_enabled,
			     rf & PERF_FORMAT_TOTAL_TIME_ENABLED ? e->time_enabled : 0);
		CHECK_EQ_U64(g->time_running,
			     rf & PERF_FORMAT_TOTAL_TIME_RUNNING ? e->time_running : 0);
		CHECK(g->read_values != NULL);
		for (uint64_t k = 0; g->read_values && k < g->read_nr && k < e->read_nr; k++) {
			CHECK_EQ_U64(g->read_values[k].value, e->read_values[k].value);
			CHECK_EQ_U64(g->read_values[k].id,
				     rf & PERF_FORMAT_ID ? e->read_values[k].id : 0);
			CHECK_EQ_U64(g->read_values[k].lost,
				     rf & PERF_FORMAT_LOST ? e->read_values[k].lost : 0);
		}
	} else {
		CHECK_EQ_U64(g->read_nr, 0);
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		CHECK_EQ_U64(g->nr_callchain, e->nr_callchain);
		CHECK(g->callchain && !memcmp(g->callchain, e->callchain, NR_CALL * 8));
	} else {
		CHECK_EQ_U64(g->nr_callchain, 0);
	}
	if (st & PERF_SAMPLE_RAW) {
		static const uint8_t zero[8];

		CHECK_EQ_U64(g->raw_size, 20);
		CHECK(g->raw && !memcmp(g->raw, e->raw, RAW_SIZE) &&
		      !memcmp(g->raw + RAW_SIZE, zero, 20 - RAW_SIZE));
	} else {
		CHECK_EQ_U64(g->raw_size, 0);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		CHECK_EQ_U64(g->nr_branches, e->nr_branches);
		CHECK_EQ_U64(g->has_hw_idx, !!(bst & PERF_SAMPLE_BRANCH_HW_INDEX));
		CHECK_EQ_U64(g->hw_idx, bst & PERF_SAMPLE_BRANCH_HW_INDEX ? e->hw_idx : 0);
		for (uint64_t k = 0; g->branches && k < g->nr_branches && k < e->nr_branches; k++) {
			CHECK_EQ_U64(g->branches[k].from, e->branches[k].from);
			CHECK_EQ_U64(g->branches[k].to, e->branches[k].to);
			CHECK_EQ_U64(g->branches[k].flags, e->branches[k].flags);
		}
		if ((bst & PERF_SAMPLE_BRANCH_COUNTERS) && e->nr_branches) {
			CHECK(g->branch_counters &&
			      !memcmp(g->branch_counters, e->branch_counters, e->nr_branches * 8));
		} else if (!(bst & PERF_SAMPLE_BRANCH_COUNTERS)) {
			CHECK(g->branch_counters == NULL);
		}
	} else {
		CHECK_EQ_U64(g->nr_branches, 0);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		CHECK_EQ_U64(g->regs_user.abi, e->regs_user.abi);
		CHECK_EQ_U64(g->regs_user.nr, e->regs_user.nr);
		CHECK(!e->regs_user.nr || (g->regs_user.regs &&
		      !memcmp(g->regs_user.regs, e->regs_user.regs, e->regs_user.nr * 8)));
	}
	if (st & PERF_SAMPLE_REGS_INTR) {
		CHECK_EQ_U64(g->regs_intr.abi, e->regs_intr.abi);
		CHECK_EQ_U64(g->regs_intr.nr, e->regs_intr.nr);
		CHECK(!e->regs_intr.nr || (g->regs_intr.regs &&
		      !memcmp(g->regs_intr.regs, e->regs_intr.regs, e->regs_intr.nr * 8)));
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		CHECK_EQ_U64(g->stack_size, e->stack_size);
		CHECK_EQ_U64(g->stack_dyn_size, e->stack_dyn_size);
		CHECK(!e->stack_size || (g->stack && !memcmp(g->stack, e->stack, e->stack_size)));
	} else {
		CHECK_EQ_U64(g->stack_size, 0);
	}
	CHECK_EQ_U64(g->weight, st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT) ?
		     e->weight : 0);
	CHECK_EQ_U64(g->data_src, st & PERF_SAMPLE_DATA_SRC ? e->data_src : 0);
	CHECK_EQ_U64(g->transaction, st & PERF_SAMPLE_TRANSACTION ? e->transaction : 0);
	CHECK_EQ_U64(g->phys_addr, st & PERF_SAMPLE_PHYS_ADDR ? e->phys_addr : 0);
	CHECK_EQ_U64(g->cgroup, st & PERF_SAMPLE_CGROUP ? e->cgroup : 0);
	CHECK_EQ_U64(g->data_page_size, st & PERF_SAMPLE_DATA_PAGE_SIZE ? e->data_page_size : 0);
	CHECK_EQ_U64(g->code_page_size, st & PERF_SAMPLE_CODE_PAGE_SIZE ? e->code_page_size : 0);
	if (st & PERF_SAMPLE_AUX) {
		static const uint8_t zero[8];

		CHECK_EQ_U64(g->aux_size, 24);
		CHECK(g->aux && !memcmp(g->aux, e->aux, AUX_SIZE) &&
		      !memcmp(g->aux + AUX_SIZE, zero, 24 - AUX_SIZE));
	} else {
		CHECK_EQ_U64(g->aux_size, 0);
	}
}

/* ---- trailers ---- */

static struct perf_sample_id make_sid(unsigned n, int ev)
{
	struct perf_sample_id sid = {
		.pid = val32(60, n), .tid = val32(61, n), .time = 500 + n,
		.id = event_id(ev, 1), .stream_id = val(62, n), .cpu = val32(63, n),
	};
	return sid;
}

static void check_sid(const struct perf_record *r, const struct perf_sample_id *e, uint64_t st)
{
	const uint64_t bits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;

	if (!(st & bits))
		return;
	CHECK(r->has_sid);
	if (!r->has_sid)
		return;
	if (st & PERF_SAMPLE_TID) {
		CHECK_EQ_U64(r->sid.pid, e->pid);
		CHECK_EQ_U64(r->sid.tid, e->tid);
	}
	if (st & PERF_SAMPLE_TIME)
		CHECK_EQ_U64(r->sid.time, e->time);
	if (st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		CHECK_EQ_U64(r->sid.id, e->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		CHECK_EQ_U64(r->sid.stream_id, e->stream_id);
	if (st & PERF_SAMPLE_CPU)
		CHECK_EQ_U64(r->sid.cpu, e->cpu);
}

/* ---- one file ---- */

static const uint8_t bid_prog[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
				      17, 18, 19, 20 };
static const uint8_t bid_kernel[20] = { 0xde, 0xad, 0xbe, 0xef, 0x00, 0x11, 0x22, 0x33, 0x44,
					0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd,
					0xee, 0xff };
static const char *const cmdline[] = { "/usr/bin/perf", "record", "-b", "./prog", NULL };

static const char *mode_name(const struct mode *m, char *buf, size_t n)
{
	static const char *const comp[] = { "none", "zstd", "zstd2" };

	snprintf(buf, n, "%s/%s/attr%u/%s", m->pipe ? "pipe" : "file", m->swap ? "swap" : "native",
		 m->asz, comp[m->comp]);
	return buf;
}

/* Writes the file for (tc, m); returns 0 or fails checks. */
static int write_file(const char *path, const struct tcase *tc, const struct mode *m,
		      struct perf_evattr *stored)
{
	struct perf_writer_opts o = {
		.pipe = m->pipe, .swap = m->swap, .attr_size = m->asz, .compress = m->comp,
		.version = "6.1.187-rt", .hostname = "host-rt", .osrelease = "6.1.0-rt",
		.arch = "x86_64", .cpudesc = "Round Trip CPU @ 1.00GHz",
		.cpuid = "GenuineIntel,6,85,7", .cmdline = cmdline, .nr_cpus = 6,
		.branch_stack = true,
	};
	struct perf_writer *w;
	struct perf_sample s;
	int err, n = 0;

	err = perf_writer__open(&w, path, &o);
	CHECK_EQ_U64(err, 0);
	if (err)
		return err;
	for (int ev = 0; ev < tc->nev; ev++) {
		struct perf_evattr a;
		uint64_t *ids = cbuf(2 * 8);
		char name[32];

		make_attr(tc, ev, &a);
		ids[0] = event_id(ev, 0);
		ids[1] = event_id(ev, 1);
		snprintf(name, sizeof(name), "rt_event_%d", ev);
		CHECK_EQ_U64(perf_writer__add_event(w, &a, name, ids, 2), ev);
		stored[ev] = a;
		attr_as_stored(&stored[ev], m->asz);
	}
	CHECK_EQ_U64(perf_writer__add_build_id(w, -1, PERF_RECORD_MISC_KERNEL, bid_kernel, 20,
					       "[kernel.kallsyms]"), 0);
	CHECK_EQ_U64(perf_writer__add_build_id(w, 100, PERF_RECORD_MISC_USER, bid_prog, 16,
					       "/path/to/prog"), 0);
	{
		struct perf_sample_id sid[7];

		for (int k = 0; k < 7; k++)
			sid[k] = make_sid((unsigned)k, 0);
		CHECK_EQ_U64(perf_writer__comm(w, true, 100, 101, "prog", &sid[0]), 0);
		CHECK_EQ_U64(perf_writer__mmap2(w, PERF_RECORD_MISC_USER, 100, 101, 0x400000,
						0x3000, 0x1000, bid_prog, 16, 5, 2,
						"/path/to/prog", &sid[1]), 0);
		CHECK_EQ_U64(perf_writer__mmap2(w, PERF_RECORD_MISC_USER, 100, 101,
						0x7f0000000000, 0x21000, 0, NULL, 0, 7, 1,
						"/lib/x86_64-linux-gnu/libc.so.6", &sid[2]), 0);
		CHECK_EQ_U64(perf_writer__mmap(w, PERF_RECORD_MISC_KERNEL, (uint32_t)-1, 0,
					       0xffffffff81000000ULL, 0x1000000,
					       0xffffffff81000000ULL, "[kernel.kallsyms]_text",
					       &sid[3]), 0);
		CHECK_EQ_U64(perf_writer__task(w, PERF_RECORD_FORK, 102, 100, 103, 101, 777,
					       &sid[4]), 0);
		CHECK_EQ_U64(perf_writer__task(w, PERF_RECORD_EXIT, 102, 100, 103, 101, 778,
					       &sid[5]), 0);
		CHECK_EQ_U64(perf_writer__throttle(w, false, 779, event_id(0, 0), 0x5151, &sid[6]), 0);
		CHECK_EQ_U64(perf_writer__throttle(w, true, 780, event_id(0, 0), 0x5252, &sid[6]), 0);
	}
	for (unsigned i = 0; i < NR_SAMPLES; i++) {
		int ev = (int)i % tc->nev;
		struct perf_sample_id csid = make_sid(100 + i, 0);

		make_sample(&s, i, ev, &stored[ev]);
		err = perf_writer__sample(w, ev, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP,
					  &s);
		CHECK_EQ_U64(err, 0);
		CHECK_EQ_U64(perf_writer__lost(w, CANARY_ID, 0xabc0 + i, &csid), 0);
		if (i == 2)
			CHECK_EQ_U64(perf_writer__finished_round(w), 0);
		n++;
	}
	CHECK_EQ_U64(perf_writer__raw_record(w, 100, 0, "ABCDEFGH", 8), 0);
	CHECK_EQ_U64(perf_writer__finished_round(w), 0);
	err = perf_writer__close(w);
	CHECK_EQ_U64(err, 0);
	cbufs_check_free();
	nr_files++;
	return err;
}

static void check_file(const char *path, const struct tcase *tc, const struct mode *m,
		       const struct perf_evattr *stored)
{
	struct perf_reader_opts ro = { .no_sort = true };
	const struct perf_header_info *h;
	const struct perf_record *r;
	struct perf_reader *rd;
	const char *msg = NULL;
	unsigned nsamples = 0, ncanary = 0, nother = 0;
	uint64_t st0 = stored[0].sample_type;
	int err;
	bool any_time = st0 & PERF_SAMPLE_TIME;

	err = perf_reader__open(&rd, path, &ro, &msg);
	CHECK_EQ_U64(err, 0);
	if (err) {
		fprintf(stderr, "open %s: %s\n", path, msg ? msg : "?");
		return;
	}
	h = perf_reader__header(rd);
	CHECK_EQ_U64(h->is_pipe, m->pipe);
	CHECK_EQ_U64(h->needs_swap, m->swap);
	if (!m->pipe)
		CHECK_EQ_U64(h->attr_size, m->asz + 16);
	CHECK_STR(h->version, "6.1.187-rt");
	CHECK_STR(h->hostname, "host-rt");
	CHECK_STR(h->osrelease, "6.1.0-rt");
	CHECK_STR(h->arch, "x86_64");
	CHECK_STR(h->cpudesc, "Round Trip CPU @ 1.00GHz");
	CHECK_STR(h->cpuid, "GenuineIntel,6,85,7");
	CHECK_STR(h->cmdline, "/usr/bin/perf record -b ./prog");
	CHECK_EQ_U64(h->nr_cpus_avail, 6);
	CHECK_EQ_U64(h->nr_cpus_online, 6);
	CHECK_EQ_U64(h->has_branch_stack, !m->pipe);	/* not synthesized in pipe mode */
	if (m->comp != PERF_WRITER_COMPRESS_NONE) {
		CHECK_EQ_U64(h->comp_type, 1);
		CHECK_EQ_U64(h->comp_level, 1);
	}
	CHECK_EQ_U64(perf_reader__nr_events(rd), tc->nev);
	for (int ev = 0; ev < tc->nev && (size_t)ev < perf_reader__nr_events(rd); ev++) {
		const struct perf_event_info *e = perf_reader__event(rd, (size_t)ev);
		char name[32];

		snprintf(name, sizeof(name), "rt_event_%d", ev);
		CHECK_STR(e->name, name);
		check_attr(&e->attr, &stored[ev]);
		CHECK_EQ_U64(e->nr_ids, 2);
		if (e->nr_ids == 2) {
			CHECK_EQ_U64(e->ids[0], event_id(ev, 0));
			CHECK_EQ_U64(e->ids[1], event_id(ev, 1));
		}
	}
	while ((err = perf_reader__next(rd, &r)) == 1) {
		struct perf_sample_id esid;

		switch (r->type) {
		case PERF_RECORD_SAMPLE: {
			struct perf_sample e;
			int ev = (int)nsamples % tc->nev;

			if (nsamples >= NR_SAMPLES) {
				CHECK(!"too many samples");
				break;
			}
			CHECK_EQ_U64(r->evidx, ev);
			CHECK_EQ_U64(r->misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP);
			make_sample(&e, nsamples, ev, &stored[ev]);
			check_sample(&r->sample, &e, &stored[ev]);
			cbufs_check_free();
			nsamples++;
			break;
		}
		case PERF_RECORD_LOST:
			CHECK_EQ_U64(r->lost.id, CANARY_ID);
			CHECK_EQ_U64(r->lost.lost, 0xabc0 + ncanary);
			CHECK_EQ_U64(ncanary + 1, nsamples);	/* right after its sample */
			esid = make_sid(100 + ncanary, 0);
			check_sid(r, &esid, st0);
			ncanary++;
			break;
		case PERF_RECORD_COMM:
			CHECK_EQ_U64(r->comm.pid, 100);
			CHECK_EQ_U64(r->comm.tid, 101);
			CHECK_STR(r->comm.comm, "prog");
			CHECK(r->comm.exec);
			esid = make_sid(0, 0);
			check_sid(r, &esid, st0);
			nother++;
			break;
		case PERF_RECORD_MMAP2:
			CHECK_EQ_U64(r->mmap.pid, 100);
			CHECK_EQ_U64(r->mmap.tid, 101);
			if (r->mmap.build_id_size) {
				CHECK_EQ_U64(r->mmap.start, 0x400000);
				CHECK_EQ_U64(r->mmap.len, 0x3000);
				CHECK_EQ_U64(r->mmap.pgoff, 0x1000);
				CHECK_EQ_U64(r->mmap.build_id_size, 16);
				CHECK(!memcmp(r->mmap.build_id, bid_prog, 16));
				CHECK_EQ_U64(r->mmap.prot, 5);
				CHECK_EQ_U64(r->mmap.flags, 2);
				CHECK_STR(r->mmap.filename, "/path/to/prog");
				esid = make_sid(1, 0);
			} else {
				CHECK_EQ_U64(r->mmap.start, 0x7f0000000000ULL);
				CHECK_EQ_U64(r->mmap.len, 0x21000);
				CHECK_EQ_U64(r->mmap.pgoff, 0);
				CHECK_EQ_U64(r->mmap.maj, 0);
				CHECK_EQ_U64(r->mmap.ino, 0);
				CHECK_EQ_U64(r->mmap.prot, 7);
				CHECK_EQ_U64(r->mmap.flags, 1);
				CHECK_STR(r->mmap.filename, "/lib/x86_64-linux-gnu/libc.so.6");
				esid = make_sid(2, 0);
			}
			check_sid(r, &esid, st0);
			nother++;
			break;
		case PERF_RECORD_MMAP:
			CHECK_EQ_U64(r->misc & 7, PERF_RECORD_MISC_KERNEL);
			CHECK_EQ_U64(r->mmap.pid, 0xffffffffu);
			CHECK_EQ_U64(r->mmap.start, 0xffffffff81000000ULL);
			CHECK_EQ_U64(r->mmap.len, 0x1000000);
			CHECK_EQ_U64(r->mmap.pgoff, 0xffffffff81000000ULL);
			CHECK_STR(r->mmap.filename, "[kernel.kallsyms]_text");
			esid = make_sid(3, 0);
			check_sid(r, &esid, st0);
			nother++;
			break;
		case PERF_RECORD_FORK:
		case PERF_RECORD_EXIT:
			CHECK_EQ_U64(r->task.pid, 102);
			CHECK_EQ_U64(r->task.ppid, 100);
			CHECK_EQ_U64(r->task.tid, 103);
			CHECK_EQ_U64(r->task.ptid, 101);
			CHECK_EQ_U64(r->task.time, r->type == PERF_RECORD_FORK ? 777 : 778);
			esid = make_sid(r->type == PERF_RECORD_FORK ? 4 : 5, 0);
			check_sid(r, &esid, st0);
			nother++;
			break;
		case PERF_RECORD_THROTTLE:
		case PERF_RECORD_UNTHROTTLE:
			CHECK_EQ_U64(r->throttle.time, r->type == PERF_RECORD_THROTTLE ? 779 : 780);
			CHECK_EQ_U64(r->throttle.id, event_id(0, 0));
			CHECK_EQ_U64(r->throttle.stream_id,
				     r->type == PERF_RECORD_THROTTLE ? 0x5151 : 0x5252);
			esid = make_sid(6, 0);
			check_sid(r, &esid, st0);
			nother++;
			break;
		default:
			break;
		}
	}
	CHECK_EQ_U64(err, 0);
	if (err < 0)
		fprintf(stderr, "%s: %s\n", path, perf_reader__errmsg(rd));
	CHECK_EQ_U64(nsamples, NR_SAMPLES);
	CHECK_EQ_U64(ncanary, NR_SAMPLES);
	CHECK_EQ_U64(nother, 8);
	h = perf_reader__header(rd);
	if (!m->pipe && any_time) {
		CHECK_EQ_U64(h->first_sample_time, sample_time(0));
		CHECK_EQ_U64(h->last_sample_time, sample_time(NR_SAMPLES - 1));
	}
	CHECK_EQ_U64(h->compressed, m->comp != PERF_WRITER_COMPRESS_NONE);
	CHECK_EQ_U64(h->nr_build_ids, 2);
	for (size_t k = 0; k < h->nr_build_ids && k < 2; k++) {
		const struct perf_build_id_entry *b = &h->build_ids[k];

		if (k == 0) {
			CHECK_EQ_U64(b->pid, (uint64_t)(int64_t)-1);
			CHECK_EQ_U64(b->cpumode, PERF_RECORD_MISC_KERNEL);
			CHECK_EQ_U64(b->size, 20);
			CHECK(!memcmp(b->id, bid_kernel, 20));
			CHECK_STR(b->filename, "[kernel.kallsyms]");
		} else {
			CHECK_EQ_U64(b->pid, 100);
			CHECK_EQ_U64(b->cpumode, PERF_RECORD_MISC_USER);
			CHECK_EQ_U64(b->size, 16);
			CHECK(!memcmp(b->id, bid_prog, 16));
			CHECK_STR(b->filename, "/path/to/prog");
		}
	}
	{
		const struct perf_reader_stats *rs = perf_reader__stats(rd);

		CHECK_EQ_U64(rs->nr_unknown_id, 0);
		CHECK(rs->nr_records[100] == 1 || rs->nr_unknown_type == 1);
		CHECK_EQ_U64(rs->nr_records[PERF_RECORD_FINISHED_ROUND], 2);
	}
	perf_reader__delete(rd);
}

static void run_case(const struct tcase *tc, const struct mode *m)
{
	struct perf_evattr stored[2];
	char path[512], mn[64];
	int before = th_failed_checks;

	snprintf(path, sizeof(path), "%s/rt.data", tmpdir);
	if (!write_file(path, tc, m, stored))
		check_file(path, tc, m, stored);
	unlink(path);
	if (th_failed_checks != before)
		fprintf(stderr, "  in case %s, mode %s\n", tc->name, mode_name(m, mn, sizeof(mn)));
}

static const uint32_t attr_sizes[] = { 64, 72, 80, 96, 104, 112, 120, 128, 136 };

static void run_all_modes(const struct tcase *tc)
{
	for (int swap = 0; swap < 2; swap++)
		for (int pipe = 0; pipe < 2; pipe++)
			for (size_t a = 0; a < sizeof(attr_sizes) / sizeof(attr_sizes[0]); a++)
				for (int c = 0; c < 3; c++) {
					struct mode m = { swap, pipe, attr_sizes[a],
							  (enum perf_writer_compress)c };

					run_case(tc, &m);
				}
}

static const struct { const char *name; uint64_t bit; } st_bits[] = {
	{ "IP", PERF_SAMPLE_IP }, { "TID", PERF_SAMPLE_TID }, { "TIME", PERF_SAMPLE_TIME },
	{ "ADDR", PERF_SAMPLE_ADDR }, { "READ", PERF_SAMPLE_READ },
	{ "CALLCHAIN", PERF_SAMPLE_CALLCHAIN }, { "ID", PERF_SAMPLE_ID },
	{ "CPU", PERF_SAMPLE_CPU }, { "PERIOD", PERF_SAMPLE_PERIOD },
	{ "STREAM_ID", PERF_SAMPLE_STREAM_ID }, { "RAW", PERF_SAMPLE_RAW },
	{ "BRANCH_STACK", PERF_SAMPLE_BRANCH_STACK }, { "REGS_USER", PERF_SAMPLE_REGS_USER },
	{ "STACK_USER", PERF_SAMPLE_STACK_USER }, { "WEIGHT", PERF_SAMPLE_WEIGHT },
	{ "DATA_SRC", PERF_SAMPLE_DATA_SRC }, { "IDENTIFIER", PERF_SAMPLE_IDENTIFIER },
	{ "TRANSACTION", PERF_SAMPLE_TRANSACTION }, { "REGS_INTR", PERF_SAMPLE_REGS_INTR },
	{ "PHYS_ADDR", PERF_SAMPLE_PHYS_ADDR }, { "AUX", PERF_SAMPLE_AUX },
	{ "CGROUP", PERF_SAMPLE_CGROUP }, { "DATA_PAGE_SIZE", PERF_SAMPLE_DATA_PAGE_SIZE },
	{ "CODE_PAGE_SIZE", PERF_SAMPLE_CODE_PAGE_SIZE },
	{ "WEIGHT_STRUCT", PERF_SAMPLE_WEIGHT_STRUCT },
};

#define BR_ANY (PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL)

static void test_roundtrip_each_bit_alone(void)
{
	for (size_t b = 0; b < sizeof(st_bits) / sizeof(st_bits[0]); b++) {
		struct tcase tc = { .st = st_bits[b].bit, .nev = 1,
				    .rf = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED,
				    .bst = BR_ANY | PERF_SAMPLE_BRANCH_HW_INDEX };

		snprintf(tc.name, sizeof(tc.name), "%s alone", st_bits[b].name);
		run_all_modes(&tc);
	}
}

static void test_roundtrip_all_bits(void)
{
	struct tcase tc = { .nev = 2, .rf = PERF_FORMAT_ID | PERF_FORMAT_GROUP |
					    PERF_FORMAT_TOTAL_TIME_ENABLED |
					    PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_LOST,
			    .bst = BR_ANY | PERF_SAMPLE_BRANCH_HW_INDEX |
				   PERF_SAMPLE_BRANCH_COUNTERS };

	tc.st = PERF_SAMPLE_ALL_KNOWN & ~PERF_SAMPLE_WEIGHT_STRUCT;
	snprintf(tc.name, sizeof(tc.name), "all bits, WEIGHT");
	run_all_modes(&tc);
	tc.st = PERF_SAMPLE_ALL_KNOWN & ~PERF_SAMPLE_WEIGHT;
	snprintf(tc.name, sizeof(tc.name), "all bits, WEIGHT_STRUCT");
	run_all_modes(&tc);
}

static void test_roundtrip_read_formats(void)
{
	for (uint64_t rf = 0; rf < 32; rf++) {
		struct tcase tc = { .nev = 2, .rf = rf, .bst = BR_ANY,
				    .st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					  PERF_SAMPLE_TIME | PERF_SAMPLE_READ |
					  PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK };

		snprintf(tc.name, sizeof(tc.name), "READ read_format 0x%llx",
			 (unsigned long long)rf);
		run_all_modes(&tc);
	}
}

static void test_roundtrip_branch_variants(void)
{
	for (int v = 0; v < 4; v++) {
		struct tcase tc = { .nev = 2, .bst = BR_ANY,
				    .st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					  PERF_SAMPLE_TIME | PERF_SAMPLE_BRANCH_STACK |
					  PERF_SAMPLE_WEIGHT };

		if (v & 1)
			tc.bst |= PERF_SAMPLE_BRANCH_HW_INDEX;
		if (v & 2)
			tc.bst |= PERF_SAMPLE_BRANCH_COUNTERS;
		snprintf(tc.name, sizeof(tc.name), "branch stack bst 0x%llx",
			 (unsigned long long)tc.bst);
		run_all_modes(&tc);
	}
}

int main(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/hbbp-rt.XXXXXX", base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN_TEST(test_roundtrip_each_bit_alone);
	RUN_TEST(test_roundtrip_all_bits);
	RUN_TEST(test_roundtrip_read_formats);
	RUN_TEST(test_roundtrip_branch_variants);
	rmdir(tmpdir);
	fprintf(stderr, "%d files written and read back\n", nr_files);
	return TEST_EXIT();
}
