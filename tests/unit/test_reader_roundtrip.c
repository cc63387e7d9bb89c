/* Round-trip tests of the perf.data reader: synthesizes file-mode and pipe-mode perf.data
 * files with every sample_type bit alone and all together, in both byte orders (the
 * big-endian producer also lays out the attr flag and branch flag bit-fields MSB-first),
 * reads them back and compares every decoded field with the values written. Also covers
 * the sample_id trailer of a non-sample record, id -> event mapping, branch counters,
 * HW_INDEX with nr == 0, READ groups and attr sizes VER0..larger than known.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hbbp/method/roles.h"
#include "reader/perf_reader.h"
#include "tests/harness.h"
#include "util/hbbp_err.h"

static uint8_t buf[1 << 18];
static size_t len;
static int be;		/* write as a big-endian producer */

static void put(const void *p, size_t n) { memcpy(buf + len, p, n); len += n; }
static void p64(uint64_t v) { if (be) v = __builtin_bswap64(v); put(&v, 8); }
static void p32(uint32_t v) { if (be) v = __builtin_bswap32(v); put(&v, 4); }
static void p16(uint16_t v) { if (be) v = __builtin_bswap16(v); put(&v, 2); }
static void at64(size_t off, uint64_t v) { if (be) v = __builtin_bswap64(v); memcpy(buf + off, &v, 8); }
static void zero(size_t n) { memset(buf + len, 0, n); len += n; }

/* bit-field word: fields given as {bit, width, value} in little-endian numbering */
struct bf { unsigned k, w; uint64_t v; };
static uint64_t bitfield(const struct bf *f, size_t n)
{
	uint64_t out = 0;
	size_t i;

	for (i = 0; i < n; i++)
		out |= be ? f[i].v << (64 - f[i].k - f[i].w) : f[i].v << f[i].k;
	return out;
}

static uint32_t attr_type = 4;			/* RAW */
static uint64_t attr_config = 0x1c0;		/* inst_retired.prec_dist */

#define NSAMPLES 3
#define EVID 0x77
#define REGS_MASK 0x1005ULL	/* 3 registers */

struct params {
	uint64_t st, bst, rf;
	uint32_t attr_size;	/* attr.size written */
	int hw_nr0;		/* write nr = 0 without hw_idx */
};

static void write_attr(const struct params *p)
{
	struct bf fl[] = { { 18, 1, 1 }, { 15, 2, 2 }, { 5, 1, 1 }, { 6, 1, 1 } };
	size_t start = len;

	p32(attr_type);
	p32(p->attr_size);
	p64(attr_config);
	p64(1000);
	p64(p->st);
	p64(p->rf);
	p64(bitfield(fl, 4));
	p32(0); p32(0);
	p64(0); 			/* config1 */
	if (p->attr_size >= 72) p64(0);
	if (p->attr_size >= 80) p64(p->bst);
	if (p->attr_size >= 96) { p64(REGS_MASK); p32(64); p32(0); }
	if (p->attr_size >= 104) p64(REGS_MASK);
	while (len - start < p->attr_size)
		put("\0", 1);
}

/* fixed part value generators */
static uint64_t v_ip(int i) { return 0x400000 + 16 * i; }

static void write_sample(const struct params *p, int i)
{
	uint64_t st = p->st;
	size_t start = len, k;

	p32(9); p16(2); p16(0);
	if (st & PERF_SAMPLE_IDENTIFIER) p64(EVID);
	if (st & PERF_SAMPLE_IP) p64(v_ip(i));
	if (st & PERF_SAMPLE_TID) { p32(100 + i); p32(200 + i); }
	if (st & PERF_SAMPLE_TIME) p64(1000 * (i + 1));
	if (st & PERF_SAMPLE_ADDR) p64(0xdead0000 + i);
	if (st & PERF_SAMPLE_ID) p64(EVID);
	if (st & PERF_SAMPLE_STREAM_ID) p64(0x5000 + i);
	if (st & PERF_SAMPLE_CPU) { p32(3 + i); p32(0); }
	if (st & PERF_SAMPLE_PERIOD) p64(777 + i);
	if (st & PERF_SAMPLE_READ) {
		if (p->rf & PERF_FORMAT_GROUP) {
			p64(2);
			if (p->rf & PERF_FORMAT_TOTAL_TIME_ENABLED) p64(5000);
			if (p->rf & PERF_FORMAT_TOTAL_TIME_RUNNING) p64(4000);
			for (k = 0; k < 2; k++) {
				p64(10 + k);
				if (p->rf & PERF_FORMAT_ID) p64(EVID + k);
				if (p->rf & PERF_FORMAT_LOST) p64(k);
			}
		} else {
			p64(10);
			if (p->rf & PERF_FORMAT_TOTAL_TIME_ENABLED) p64(5000);
			if (p->rf & PERF_FORMAT_TOTAL_TIME_RUNNING) p64(4000);
			if (p->rf & PERF_FORMAT_ID) p64(EVID);
			if (p->rf & PERF_FORMAT_LOST) p64(0);
		}
	}
	if (st & PERF_SAMPLE_CALLCHAIN) { p64(3); p64(PERF_CONTEXT_USER); p64(v_ip(i)); p64(0x1234); }
	if (st & PERF_SAMPLE_RAW) { p32(12); p32(0xabcd); p32(1); p32(2); }
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		int nr = p->hw_nr0 ? 0 : 2;

		p64(nr);
		if ((p->bst & PERF_SAMPLE_BRANCH_HW_INDEX) && !p->hw_nr0)
			p64(5);
		for (k = 0; k < (size_t)nr; k++) {
			struct bf f[] = { { 0, 1, k & 1 }, { 4, 16, 33 + k }, { 20, 4, 3 } };

			p64(0x500000 + 32 * k);
			p64(0x600000 + 32 * k);
			p64(bitfield(f, 3));
		}
		if ((p->bst & PERF_SAMPLE_BRANCH_COUNTERS) && nr)
			for (k = 0; k < (size_t)nr; k++)
				p64(0x10 + k);
	}
	if (st & PERF_SAMPLE_REGS_USER) { p64(2); p64(1); p64(2); p64(3); }
	if (st & PERF_SAMPLE_STACK_USER) { p64(16); p64(0x1111); p64(0x2222); p64(12); }
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) p64(0x0003000200000001ULL);
	if (st & PERF_SAMPLE_DATA_SRC) p64(0x123456789ULL);
	if (st & PERF_SAMPLE_TRANSACTION) p64(0x500000003ULL);
	if (st & PERF_SAMPLE_REGS_INTR) { p64(2); p64(7); p64(8); p64(9); }
	if (st & PERF_SAMPLE_PHYS_ADDR) p64(0x7000000 + i);
	if (st & PERF_SAMPLE_CGROUP) p64(42);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE) p64(4096);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE) p64(2 << 20);
	if (st & PERF_SAMPLE_AUX) { p64(8); p64(0x0102030405060708ULL); }
	{
		uint16_t sz = (uint16_t)(len - start);

		if (be)
			sz = __builtin_bswap16(sz);
		memcpy(buf + start + 6, &sz, 2);
	}
}

/* COMM with a sample_id trailer */
static void write_comm(const struct params *p)
{
	uint64_t st = p->st;
	size_t start = len;
	uint16_t sz;

	p32(3); p16(0); p16(0);
	p32(100); p32(100);
	put("prog\0\0\0\0", 8);
	if (st & PERF_SAMPLE_TID) { p32(100); p32(101); }
	if (st & PERF_SAMPLE_TIME) p64(500);
	if (st & PERF_SAMPLE_ID) p64(EVID);
	if (st & PERF_SAMPLE_STREAM_ID) p64(0x5000);
	if (st & PERF_SAMPLE_CPU) { p32(9); p32(0); }
	if (st & PERF_SAMPLE_IDENTIFIER) p64(EVID);
	sz = (uint16_t)(len - start);
	if (be)
		sz = __builtin_bswap16(sz);
	memcpy(buf + start + 6, &sz, 2);
}

static int buildid_layout;	/* 0 none, 1 current, 2 ancient (no pid field) */

/* one 100-byte build-id table entry (type 0 inside the feature) */
static void write_build_id(int32_t pid, uint16_t cpumode, const char *name, uint8_t id0)
{
	size_t start = len, k;

	p32(0); p16(cpumode); p16(100);
	if (buildid_layout == 1) {
		p32((uint32_t)pid);
		for (k = 0; k < 20; k++)
			buf[len++] = (uint8_t)(id0 + k);
		zero(4);
	} else {
		for (k = 0; k < 20; k++)
			buf[len++] = (uint8_t)(id0 + k);
		zero(4);
	}
	memset(buf + len, 0, start + 100 - len);
	memcpy(buf + len, name, strlen(name));
	len = start + 100;
}

static const char *write_file(const struct params *p, int pipe_mode, int tag)
{
	static char path[128];
	uint32_t stride = p->attr_size + 16;
	size_t data_off, ids_off = 104, i;
	FILE *f;

	len = 0;
	put(be ? "2ELIFREP" : "PERFILE2", 8);
	if (pipe_mode) {
		size_t start;
		uint16_t sz;

		p64(16);
		start = len;
		p32(64); p16(0); p16(0);
		write_attr(p);
		p64(EVID); p64(EVID + 1);
		sz = (uint16_t)(len - start);
		if (be)
			sz = __builtin_bswap16(sz);
		memcpy(buf + start + 6, &sz, 2);
		write_comm(p);
		for (i = 0; i < NSAMPLES; i++)
			write_sample(p, (int)i);
		p32(68); p16(0); p16(8);
	} else {
		p64(104); p64(stride);
		p64(ids_off + 16); p64(stride);
		p64(0); p64(0);		/* data, patched */
		p64(0); p64(0);
		p64((1ULL << 3) | (buildid_layout ? 1ULL << 2 : 0));	/* HOSTNAME, BUILD_ID */
		zero(24);
		p64(EVID); p64(EVID + 1);
		write_attr(p);
		p64(ids_off); p64(16);
		data_off = len;
		write_comm(p);
		for (i = 0; i < NSAMPLES; i++)
			write_sample(p, (int)i);
		p32(68); p16(0); p16(8);
		at64(40, data_off);
		at64(48, len - data_off);
		if (buildid_layout) {
			/* index: BUILD_ID (2 entries of 100 bytes), HOSTNAME */
			size_t idx = len;

			p64(idx + 32); p64(200);
			p64(idx + 32 + 200); p64(12);
			write_build_id(-1, 1, "[kernel.kallsyms]", 0x10);
			write_build_id(1234, 2, "/usr/bin/prog", 0x20);
		} else {
			p64(len + 16); p64(12);		/* feature index: HOSTNAME */
		}
		p32(8); put("testhost", 8);
	}
	snprintf(path, sizeof(path), "/tmp/test_reader_rt.%d.%d", (int)getpid(), tag);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		return NULL;
	return path;
}

static int check_file(const struct params *p, int pipe_mode)
{
	const char *path = write_file(p, pipe_mode, 0);
	const struct perf_event_info *ev;
	const struct perf_record *rec;
	struct perf_reader *r;
	const char *msg;
	uint64_t st = p->st;
	int i = 0, comm = 0, ret, before = th_failed_checks;

	CHECK(path != NULL);
	if (!path)
		return 1;
	ret = perf_reader__open(&r, path, NULL, &msg);
	CHECK_EQ_U64(ret, 0);
	if (ret) {
		fprintf(stderr, "open: %s\n", msg);
		unlink(path);
		return 1;
	}
	CHECK_EQ_U64(perf_reader__header(r)->needs_swap, be);
	CHECK_EQ_U64(perf_reader__header(r)->is_pipe, pipe_mode);
	ev = perf_reader__event(r, 0);
	CHECK(ev != NULL);
	CHECK_EQ_U64(ev->attr.sample_type, st);
	CHECK_EQ_U64(ev->attr.config, 0x1c0);
	CHECK_EQ_U64(perf_evattr__precise_ip(&ev->attr), 2);
	CHECK(perf_evattr__sample_id_all(&ev->attr));
	CHECK(ev->attr.flags & PERF_ATTR_FLAG_EXCLUDE_KERNEL);
	CHECK(!(ev->attr.flags & PERF_ATTR_FLAG_EXCLUDE_USER));
	CHECK_STR(ev->name, "r1c0:upp");
	if (st & PERF_SAMPLE_IP) {
		struct hbbp_event_role ro[1];
		char rmsg[256];

		CHECK(perf_reader__nr_events(r) == 1 &&
		      !hbbp_roles__assign(r, NULL, NULL, ro, rmsg, sizeof(rmsg)) &&
		      ro[0].role == HBBP_ROLE_EBS);
	}
	if (!pipe_mode)
		CHECK_STR(perf_reader__header(r)->hostname, "testhost");
	CHECK_EQ_U64(ev->nr_ids, 2);
	if (p->attr_size >= 80)
		CHECK_EQ_U64(ev->attr.branch_sample_type, p->bst);
	while ((ret = perf_reader__next(r, &rec)) > 0) {
		const struct perf_sample *s = &rec->sample;

		if (rec->type == PERF_RECORD_COMM) {
			comm++;
			CHECK_STR(rec->comm.comm, "prog");
			if (st & PERF_SAMPLE_TID) CHECK_EQ_U64(rec->sid.tid, 101);
			if (st & PERF_SAMPLE_TIME) CHECK_EQ_U64(rec->sid.time, 500);
			if (st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) CHECK_EQ_U64(rec->sid.id, EVID);
			if (st & PERF_SAMPLE_CPU) CHECK_EQ_U64(rec->sid.cpu, 9);
			if (st & PERF_SAMPLE_STREAM_ID) CHECK_EQ_U64(rec->sid.stream_id, 0x5000);
			continue;
		}
		if (rec->type != PERF_RECORD_SAMPLE)
			continue;
		CHECK_EQ_U64(rec->evidx, 0);
		CHECK_EQ_U64(s->present, st);
		if (st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) CHECK_EQ_U64(s->id, EVID);
		CHECK_EQ_U64(s->ip, (st & PERF_SAMPLE_IP) ? v_ip(i) : 0);
		if (st & PERF_SAMPLE_TID) { CHECK_EQ_U64(s->pid, 100 + i); CHECK_EQ_U64(s->tid, 200 + i); }
		if (st & PERF_SAMPLE_TIME) CHECK_EQ_U64(s->time, 1000 * (i + 1));
		if (st & PERF_SAMPLE_ADDR) CHECK_EQ_U64(s->addr, 0xdead0000 + i);
		if (st & PERF_SAMPLE_STREAM_ID) CHECK_EQ_U64(s->stream_id, 0x5000 + i);
		if (st & PERF_SAMPLE_CPU) CHECK_EQ_U64(s->cpu, 3 + i);
		CHECK_EQ_U64(s->period, (st & PERF_SAMPLE_PERIOD) ? 777u + i : 1000u);
		if (st & PERF_SAMPLE_READ) {
			if (p->rf & PERF_FORMAT_GROUP) {
				CHECK_EQ_U64(s->read_nr, 2);
				CHECK_EQ_U64(s->read_values[1].value, 11);
				CHECK_EQ_U64(s->read_values[1].id, (p->rf & PERF_FORMAT_ID) ? EVID + 1 : 0);
				CHECK_EQ_U64(s->read_values[1].lost, (p->rf & PERF_FORMAT_LOST) ? 1 : 0);
			} else {
				CHECK_EQ_U64(s->read_nr, 1);
				CHECK_EQ_U64(s->read_values[0].value, 10);
			}
			CHECK_EQ_U64(s->time_enabled, 5000);
			CHECK_EQ_U64(s->time_running, 4000);
		}
		if (st & PERF_SAMPLE_CALLCHAIN) {
			CHECK_EQ_U64(s->nr_callchain, 3);
			CHECK_EQ_U64(s->callchain[0], PERF_CONTEXT_USER);
			CHECK_EQ_U64(s->callchain[2], 0x1234);
		}
		if (st & PERF_SAMPLE_RAW) {
			uint32_t v;

			CHECK_EQ_U64(s->raw_size, 12);
			memcpy(&v, s->raw, 4);
			CHECK_EQ_U64(be ? __builtin_bswap32(v) : v, 0xabcd);
		}
		if (st & PERF_SAMPLE_BRANCH_STACK) {
			if (p->hw_nr0) {
				CHECK_EQ_U64(s->nr_branches, 0);
				CHECK(!s->has_hw_idx);
			} else {
				CHECK_EQ_U64(s->nr_branches, 2);
				CHECK_EQ_U64(s->has_hw_idx, !!(p->bst & PERF_SAMPLE_BRANCH_HW_INDEX));
				if (s->has_hw_idx) CHECK_EQ_U64(s->hw_idx, 5);
				CHECK_EQ_U64(s->branches[1].from, 0x500020);
				CHECK_EQ_U64(s->branches[1].to, 0x600020);
				CHECK_EQ_U64(s->branches[1].flags & PERF_BR_MISPRED, 1);
				CHECK_EQ_U64(PERF_BR_CYCLES(s->branches[1].flags), 34);
				CHECK_EQ_U64(PERF_BR_TYPE(s->branches[1].flags), 3);
				CHECK_EQ_U64(PERF_BR_CYCLES(s->branches[0].flags), 33);
				if (p->bst & PERF_SAMPLE_BRANCH_COUNTERS) {
					CHECK(s->branch_counters != NULL);
					if (s->branch_counters)
						CHECK_EQ_U64(s->branch_counters[1], 0x11);
				} else {
					CHECK(s->branch_counters == NULL);
				}
			}
		}
		if (st & PERF_SAMPLE_REGS_USER) {
			CHECK_EQ_U64(s->regs_user.abi, 2);
			CHECK_EQ_U64(s->regs_user.nr, 3);
			CHECK_EQ_U64(s->regs_user.regs[2], 3);
		}
		if (st & PERF_SAMPLE_STACK_USER) {
			CHECK_EQ_U64(s->stack_size, 16);
			CHECK_EQ_U64(s->stack_dyn_size, 12);
		}
		if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
			CHECK_EQ_U64(s->weight, 0x0003000200000001ULL);
		if (st & PERF_SAMPLE_DATA_SRC) CHECK_EQ_U64(s->data_src, 0x123456789ULL);
		if (st & PERF_SAMPLE_TRANSACTION) CHECK_EQ_U64(s->transaction, 0x500000003ULL);
		if (st & PERF_SAMPLE_REGS_INTR) {
			CHECK_EQ_U64(s->regs_intr.nr, 3);
			CHECK_EQ_U64(s->regs_intr.regs[0], 7);
		}
		if (st & PERF_SAMPLE_PHYS_ADDR) CHECK_EQ_U64(s->phys_addr, 0x7000000 + i);
		if (st & PERF_SAMPLE_CGROUP) CHECK_EQ_U64(s->cgroup, 42);
		if (st & PERF_SAMPLE_DATA_PAGE_SIZE) CHECK_EQ_U64(s->data_page_size, 4096);
		if (st & PERF_SAMPLE_CODE_PAGE_SIZE) CHECK_EQ_U64(s->code_page_size, 2 << 20);
		if (st & PERF_SAMPLE_AUX) {
			CHECK_EQ_U64(s->aux_size, 8);
			CHECK(s->aux && s->aux[be ? 7 : 0] == 8);
		}
		i++;
	}
	CHECK_EQ_U64(ret, 0);
	if (ret)
		fprintf(stderr, "next: %s\n", perf_reader__errmsg(r));
	CHECK_EQ_U64(i, NSAMPLES);
	CHECK_EQ_U64(comm, 1);
	CHECK_EQ_U64(perf_reader__event(r, 0)->nr_samples, NSAMPLES);
	perf_reader__delete(r);
	unlink(path);
	if (th_failed_checks != before)
		fprintf(stderr, "  ... st=0x%llx bst=0x%llx rf=0x%llx attr=%u be=%d pipe=%d\n",
			(unsigned long long)st, (unsigned long long)p->bst,
			(unsigned long long)p->rf, p->attr_size, be, pipe_mode);
	return 0;
}

static const uint64_t base_st = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID;

static void test_each_bit_alone(void)
{
	unsigned b;

	for (be = 0; be < 2; be++)
		for (b = 0; b < 25; b++) {
			struct params p = { .st = (1ULL << b) | base_st,
					    .bst = PERF_SAMPLE_BRANCH_ANY,
					    .rf = PERF_FORMAT_TOTAL_TIME_ENABLED |
						  PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID,
					    .attr_size = 136 };

			check_file(&p, 0);
			check_file(&p, 1);
		}
	be = 0;
}

static void test_all_bits_together(void)
{
	for (be = 0; be < 2; be++) {
		struct params p = { .st = PERF_SAMPLE_ALL_KNOWN & ~PERF_SAMPLE_WEIGHT_STRUCT,
				    .bst = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX |
					   PERF_SAMPLE_BRANCH_COUNTERS,
				    .rf = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST |
					  PERF_FORMAT_TOTAL_TIME_ENABLED |
					  PERF_FORMAT_TOTAL_TIME_RUNNING,
				    .attr_size = 136 };

		check_file(&p, 0);
		check_file(&p, 1);
		p.st = (PERF_SAMPLE_ALL_KNOWN & ~PERF_SAMPLE_WEIGHT) & ~PERF_SAMPLE_IDENTIFIER;
		p.bst = PERF_SAMPLE_BRANCH_ANY;
		check_file(&p, 0);
	}
	be = 0;
}

static void test_hw_index_nr0(void)
{
	for (be = 0; be < 2; be++) {
		struct params p = { .st = base_st | PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK |
					  PERF_SAMPLE_DATA_SRC,
				    .bst = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX,
				    .attr_size = 136, .hw_nr0 = 1 };

		check_file(&p, 0);
	}
	be = 0;
}

static void test_attr_sizes(void)
{
	static const uint32_t sizes[] = { 64, 72, 80, 96, 104, 112, 120, 128, 136, 144, 168, 200 };
	size_t k;

	for (be = 0; be < 2; be++)
		for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			struct params p = { .st = base_st | PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD,
					    .bst = 0, .attr_size = sizes[k] };

			check_file(&p, 0);
			check_file(&p, 1);
		}
	be = 0;
}

static void write_timed(uint64_t t)
{
	p32(9); p16(2); p16(32);
	p64(t + 0x1000);	/* ip identifies the sample */
	p32(1); p32(1);
	p64(t);
}

static void write_comm_at(uint64_t t)
{
	p32(PERF_RECORD_COMM); p16(0); p16(40);
	p32(1); p32(1);
	put("abc\0\0\0\0\0", 8);
	p32(1); p32(1);		/* sample_id: pid, tid */
	p64(t);			/* sample_id: time */
}

/* Starts buf with a pipe-format header and the attr of timed samples (ip, tid, time). */
static void write_timed_head(void)
{
	struct params p = { .st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
			    .attr_size = 136 };
	size_t start;
	uint16_t sz;

	be = 0;
	len = 0;
	put("PERFILE2", 8);
	p64(16);
	start = len;
	p32(64); p16(0); p16(0);
	write_attr(&p);
	sz = (uint16_t)(len - start);
	memcpy(buf + start + 6, &sz, 2);
}

/* A file of three rounds of timed samples, times 30 10 20 | 5 low 40 | 35 25 (the ip is the
 * time + 0x1000), with a COMM at 15 in the first round when comm; written to path. */
static void write_rounds_file(const char *path, uint64_t low, bool comm)
{
	FILE *f;

	write_timed_head();
	write_timed(30); write_timed(10);
	if (comm)
		write_comm_at(15);
	write_timed(20);
	p32(68); p16(0); p16(8);
	write_timed(5); write_timed(low); write_timed(40);
	p32(68); p16(0); p16(8);
	write_timed(35); write_timed(25);
	f = fopen(path, "wb");
	CHECK(f && fwrite(buf, 1, len, f) == len && !fclose(f));
}

/* perf's FINISHED_ROUND semantics: a round is delivered up to the previous round's maximum */
static void test_time_order(void)
{
	static const uint64_t file_order[] = { 30, 10, 20, 5, 0, 40, 35, 25 };
	static const uint64_t sorted[] = { 0, 5, 10, 20, 30, 25, 35, 40 };
	char path[128];
	int ns;

	for (ns = 0; ns < 2; ns++) {
		struct perf_reader_opts opts = { .no_sort = ns };
		const struct perf_record *rec;
		struct perf_reader *r;
		const uint64_t *want = ns ? file_order : sorted;
		size_t i = 0;

		snprintf(path, sizeof(path), "/tmp/test_reader_order.%d", (int)getpid());
		write_rounds_file(path, 0, false);
		CHECK_EQ_U64(perf_reader__open(&r, path, &opts, NULL), 0);
		while (perf_reader__next(r, &rec) > 0) {
			if (rec->type != PERF_RECORD_SAMPLE)
				continue;
			CHECK(i < 8);
			if (i < 8)
				CHECK_EQ_U64(rec->sample.ip - 0x1000, want[i]);
			i++;
		}
		CHECK_EQ_U64(i, 8);
		CHECK_EQ_U64(perf_reader__stats(r)->nr_out_of_order, ns ? 0 : 1);
		perf_reader__delete(r);
		unlink(path);
	}
}

/* samples_unordered: a flushed batch of samples only comes in queue order (no sort); a
 * batch that holds another timed record is sorted, so each sample sees the same records
 * before it as in time order. -1 marks the COMM (time 0 would mean no time: 1 is the
 * earliest). */
static void test_samples_unordered(void)
{
	static const int64_t want_plain[] = { 30, 10, 20, 5, 1, 40, 35, 25 };
	static const int64_t want_comm[] = { 1, 5, 10, -1, 20, 30, 40, 35, 25 };
	char path[128];
	int comm;

	for (comm = 0; comm < 2; comm++) {
		struct perf_reader_opts opts = { .samples_unordered = true };
		const int64_t *want = comm ? want_comm : want_plain;
		size_t n = comm ? 9 : 8, i = 0;
		const struct perf_record *rec;
		struct perf_reader *r;

		snprintf(path, sizeof(path), "/tmp/test_reader_unordered.%d", (int)getpid());
		write_rounds_file(path, 1, comm);
		CHECK_EQ_U64(perf_reader__open(&r, path, &opts, NULL), 0);
		while (perf_reader__next(r, &rec) > 0) {
			int64_t got;

			if (rec->type == PERF_RECORD_COMM)
				got = -1;
			else if (rec->type == PERF_RECORD_SAMPLE)
				got = (int64_t)(rec->sample.ip - 0x1000);
			else
				continue;
			CHECK(i < n);
			if (i < n)
				CHECK_EQ_U64((uint64_t)got, (uint64_t)want[i]);
			i++;
		}
		CHECK_EQ_U64(i, n);
		perf_reader__delete(r);
		unlink(path);
	}
}

/* Records queued in place in the reader's pread window survive a skip past the window: two
 * timed samples are queued (30, 10), then an AUXTRACE record skips 6 MiB of payload (more
 * than the window), then a round with 20 and 40. In time order, ips intact. */
static void test_window_skip(void)
{
	static const uint64_t want[] = { 10, 20, 30, 40 };
	static uint8_t zeros[1 << 16];
	const uint64_t payload = 6u << 20;
	char path[128];
	uint64_t k;
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/test_reader_window.%d", (int)getpid());
	write_timed_head();
	p32(68); p16(0); p16(8);	/* a round: records are queued in place from here */
	write_timed(30); write_timed(10);
	p32(PERF_RECORD_AUXTRACE); p16(0); p16(48);
	p64(payload); p64(0); p64(0);
	p32(0); p32(1); p32(0); p32(0);
	f = fopen(path, "wb");
	CHECK(f && fwrite(buf, 1, len, f) == len);
	for (k = 0; f && k < payload; k += sizeof(zeros))
		CHECK(fwrite(zeros, 1, sizeof(zeros), f) == sizeof(zeros));
	len = 0;
	write_timed(20);
	p32(68); p16(0); p16(8);
	write_timed(40);
	CHECK(f && fwrite(buf, 1, len, f) == len && !fclose(f));
	{
		const struct perf_record *rec;
		struct perf_reader *r;
		int ret;

		i = 0;
		CHECK_EQ_U64(perf_reader__open(&r, path, NULL, NULL), 0);
		while ((ret = perf_reader__next(r, &rec)) > 0) {
			if (rec->type != PERF_RECORD_SAMPLE)
				continue;
			CHECK(i < 4);
			if (i < 4)
				CHECK_EQ_U64(rec->sample.ip - 0x1000, want[i]);
			i++;
		}
		CHECK_EQ_U64(i, 4);
		CHECK_EQ_U64(ret, 0);
		perf_reader__delete(r);
	}
	unlink(path);
}

/* roles: generic and raw encodings, the all-branches requirement, LBR-only fallback */
static const char *roles_arch;	/* HEADER_ARCH of the next check_roles file, or NULL */

static void check_roles(const uint32_t *types, const uint64_t *configs, const uint64_t *bsts,
			size_t n, const int *want, const char *cpuid)
{
	const struct perf_record *rec;
	struct perf_reader *r;
	struct hbbp_event_role roles[8];
	char path[128], msg[256];
	size_t i;
	FILE *f;

	be = 0;
	len = 0;
	put("PERFILE2", 8);
	p64(16);
	for (i = 0; i < n; i++) {
		struct params p = { .st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER |
					  (bsts[i] ? PERF_SAMPLE_BRANCH_STACK : 0),
				    .bst = bsts[i], .attr_size = 136 };
		size_t start = len;
		uint16_t sz;

		attr_type = types[i];
		attr_config = configs[i];
		p32(64); p16(0); p16(0);
		write_attr(&p);
		p64(100 + i);
		sz = (uint16_t)(len - start);
		memcpy(buf + start + 6, &sz, 2);
	}
	if (roles_arch) {
		size_t start = len;
		uint16_t sz;

		p32(80); p16(0); p16(0);
		p64(6);		/* HEADER_ARCH */
		p32(64);
		memset(buf + len, 0, 64);
		memcpy(buf + len, roles_arch, strlen(roles_arch));
		len += 64;
		sz = (uint16_t)(len - start);
		memcpy(buf + start + 6, &sz, 2);
	}
	if (cpuid) {
		size_t start = len;
		uint16_t sz;

		p32(80); p16(0); p16(0);
		p64(9);		/* HEADER_CPUID */
		p32(64);
		memset(buf + len, 0, 64);
		memcpy(buf + len, cpuid, strlen(cpuid));
		len += 64;
		sz = (uint16_t)(len - start);
		memcpy(buf + start + 6, &sz, 2);
	}
	attr_type = 4;
	attr_config = 0x1c0;
	snprintf(path, sizeof(path), "/tmp/test_reader_roles.%d", (int)getpid());
	f = fopen(path, "wb");
	CHECK(f && fwrite(buf, 1, len, f) == len && !fclose(f));
	CHECK_EQ_U64(perf_reader__open(&r, path, NULL, NULL), 0);
	while (perf_reader__next(r, &rec) > 0)
		;
	CHECK_EQ_U64(perf_reader__nr_events(r), n);
	CHECK(n <= 8 && !hbbp_roles__assign(r, NULL, NULL, roles, msg, sizeof(msg)));
	for (i = 0; i < n && i < 8; i++) {
		const struct perf_event_info *e = perf_reader__event(r, i);

		CHECK(roles[i].reason != NULL);
		if ((int)roles[i].role != want[i])
			fprintf(stderr, "event %zu (%s): role %s (%s), want %s\n", i, e->name,
				hbbp_role_name(roles[i].role), roles[i].reason,
				hbbp_role_name((enum hbbp_role)want[i]));
		CHECK((int)roles[i].role == want[i]);
	}
	perf_reader__delete(r);
	unlink(path);
}

static void test_roles(void)
{
	const uint64_t ANY = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	const uint64_t CS = PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_USER;
	enum { U = HBBP_ROLE_UNUSED, E = HBBP_ROLE_EBS, L = HBBP_ROLE_LBR };
	{	/* Intel: cycles, r1c0, r20c4 -b, cycles with call stack */
		uint32_t t[] = { 0, 4, 4, 0 };
		uint64_t c[] = { 0, 0x1c0, 0x20c4, 0 }, b[] = { 0, 0, ANY, CS };
		int w[] = { U, E, L, U };

		check_roles(t, c, b, 4, w, "GenuineIntel,6,85,4");
	}
	{	/* generic instructions + cycles -b: LBR-only fallback on cycles */
		uint32_t t[] = { 0, 0 };
		uint64_t c[] = { 1, 0 }, b[] = { 0, ANY };
		int w[] = { E, L };

		check_roles(t, c, b, 2, w, NULL);
	}
	{	/* AMD: ex_ret_instr (rc0) and ex_ret_brn_tkn (rc4) with a stack */
		uint32_t t[] = { 4, 4 };
		uint64_t c[] = { 0xc0, 0xc4 }, b[] = { 0, ANY };
		int w[] = { E, L };

		check_roles(t, c, b, 2, w, "AuthenticAMD,25,1,1");
	}
	{	/* Intel rc4 is all branches, not taken ones; cmask'd rc0 is not instructions;
		 * a call-stack-only event is never an LBR source */
		uint32_t t[] = { 4, 4, 4 };
		uint64_t c[] = { 0x10000c0, 0x1c0, 0xc4 }, b[] = { 0, 0, CS };
		int w[] = { U, E, U };

		check_roles(t, c, b, 3, w, "GenuineIntel,6,85,4");
	}
	{	/* Arm (aarch64): r8 is INST_RETIRED; x86's rc0 is another event there; with no
		 * taken-branch event the all-branches stack (BRBE) is used LBR-only */
		uint32_t t[] = { 4, 4, 4 };
		uint64_t c[] = { 0xc0, 0x8, 0x11 }, b[] = { 0, 0, ANY };
		int w[] = { U, E, L };

		roles_arch = "aarch64";
		check_roles(t, c, b, 3, w, "0x00000000410fd0c0");
		roles_arch = NULL;
	}
}

/* a 72-byte header (no feature bitmap) and the legacy "PERFFILE" magic */
static void test_old_headers(void)
{
	struct params p = { .st = base_st | PERF_SAMPLE_IP, .attr_size = 96 };
	const struct perf_record *rec;
	struct perf_reader *r;
	const char *path;
	int v, n;

	for (v = 0; v < 3; v++) {
		FILE *f;

		be = v == 2;
		path = write_file(&p, 0, 1);
		CHECK(path != NULL);
		if (!path)
			return;
		at64(8, 72);			/* no feature bitmap: HOSTNAME is ignored */
		if (v >= 1)
			memcpy(buf, "PERFFILE", 8);	/* byte order then guessed from attr_size */
		f = fopen(path, "wb");
		CHECK(f && fwrite(buf, 1, len, f) == len && !fclose(f));
		CHECK_EQ_U64(perf_reader__open(&r, path, NULL, NULL), 0);
		if (!r)
			continue;
		CHECK(perf_reader__header(r)->hostname == NULL);
		CHECK_EQ_U64(perf_reader__header(r)->needs_swap, be);
		n = 0;
		while (perf_reader__next(r, &rec) > 0)
			if (rec->type == PERF_RECORD_SAMPLE) {
				CHECK_EQ_U64(rec->sample.ip, v_ip(n));
				n++;
			}
		CHECK_EQ_U64(n, NSAMPLES);
		perf_reader__delete(r);
		unlink(path);
	}
	be = 0;
}

static void test_build_id_table(void)
{
	struct params p = { .st = base_st | PERF_SAMPLE_IP, .attr_size = 136 };

	for (be = 0; be < 2; be++)
		for (buildid_layout = 1; buildid_layout <= 2; buildid_layout++) {
			const struct perf_header_info *h;
			struct perf_reader *r;
			const char *path = write_file(&p, 0, 2);
			char hex[41];

			CHECK(path != NULL);
			CHECK_EQ_U64(perf_reader__open(&r, path, NULL, NULL), 0);
			if (!r)
				continue;
			h = perf_reader__header(r);
			CHECK_STR(h->hostname, "testhost");
			CHECK_EQ_U64(h->nr_build_ids, 2);
			if (h->nr_build_ids == 2) {
				CHECK_STR(h->build_ids[0].filename, "[kernel.kallsyms]");
				CHECK_EQ_U64(h->build_ids[0].pid, -1);
				CHECK_EQ_U64(h->build_ids[0].cpumode, 1);
				CHECK_STR(hbbp_build_id_hex(h->build_ids[0].id, h->build_ids[0].size, hex),
					  "101112131415161718191a1b1c1d1e1f20212223");
				/* the ancient layout is recognised from the kernel entry, and
				 * then applies to the whole table */
				CHECK_STR(h->build_ids[1].filename, "/usr/bin/prog");
				CHECK_EQ_U64(h->build_ids[1].pid, buildid_layout == 1 ? 1234 : -1);
				CHECK_STR(hbbp_build_id_hex(h->build_ids[1].id, h->build_ids[1].size, hex),
					  "202122232425262728292a2b2c2d2e2f30313233");
			}
			perf_reader__delete(r);
			unlink(path);
		}
	buildid_layout = 0;
	be = 0;
}

int main(void)
{
	RUN_TEST(test_build_id_table);
	RUN_TEST(test_old_headers);
	RUN_TEST(test_roles);
	RUN_TEST(test_time_order);
	RUN_TEST(test_samples_unordered);
	RUN_TEST(test_window_skip);
	RUN_TEST(test_each_bit_alone);
	RUN_TEST(test_all_bits_together);
	RUN_TEST(test_hw_index_nr0);
	RUN_TEST(test_attr_sizes);
	return TEST_EXIT();
}
