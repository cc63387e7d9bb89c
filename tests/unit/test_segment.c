/* Unit tests of the two-part reading of the reader (reader/perf_segment.c) on a file written
 * with the project's writer: COMM and MMAP2, six rounds of timed samples, an EXIT, three more
 * samples. Checked against a plain walk of the same file: where a segment starts and ends,
 * what it delivers, and that the main reader with the mark delivers exactly the records
 * outside the segment and the same counts as the plain walk.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader/perf_reader.h"
#include "samples/perfwrite/perf_writer.h"
#include "tests/harness.h"

#define MAXREC 256

struct walk {
	uint64_t off[MAXREC];
	uint32_t type[MAXREC];
	size_t n;
	uint64_t samples, rounds;
};

static char path[128];

static void write_file(void)
{
	struct perf_writer_opts wo = { .version = "6.1" };
	struct perf_evattr a;
	struct perf_writer *w;
	struct perf_sample s;
	struct perf_sample_id sid;
	uint64_t t = 10;
	int i, k;

	memset(&a, 0, sizeof(a));
	a.type = 0;
	a.sample_period = 1000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	a.flags = PERF_ATTR_FLAG_SAMPLE_ID_ALL;
	snprintf(path, sizeof(path), "/tmp/test_segment.%d", (int)getpid());
	CHECK(!perf_writer__open(&w, path, &wo));
	CHECK(perf_writer__add_event(w, &a, "instructions", NULL, 0) == 0);
	memset(&sid, 0, sizeof(sid));
	sid.pid = sid.tid = 7;
	sid.time = 1;
	CHECK(!perf_writer__comm(w, true, 7, 7, "prog", &sid));
	sid.time = 2;
	CHECK(!perf_writer__mmap2(w, PERF_RECORD_MISC_USER, 7, 7, 0x400000, 0x1000, 0, NULL, 0,
				  5, 2, "/bin/prog", &sid));
	memset(&s, 0, sizeof(s));
	s.pid = s.tid = 7;
	s.period = 1000;
	for (k = 0; k < 6; k++) {
		for (i = 0; i < 10; i++) {
			s.time = t++;
			s.ip = 0x400000 + s.time;
			CHECK(!perf_writer__sample(w, 0, PERF_RECORD_MISC_USER, &s));
		}
		CHECK(!perf_writer__finished_round(w));
	}
	sid.time = 1000;
	CHECK(!perf_writer__task(w, PERF_RECORD_EXIT, 7, 7, 7, 7, 1000, &sid));
	for (i = 0; i < 3; i++) {
		s.time = 1001 + i;
		s.ip = 0x400000 + s.time;
		CHECK(!perf_writer__sample(w, 0, PERF_RECORD_MISC_USER, &s));
	}
	CHECK(!perf_writer__close(w));
}

static void collect(struct perf_reader *r, struct walk *wk)
{
	const struct perf_record *rec;

	memset(wk, 0, sizeof(*wk));
	while (perf_reader__next(r, &rec) > 0 && wk->n < MAXREC) {
		wk->off[wk->n] = rec->file_offset;
		wk->type[wk->n++] = rec->type;
	}
	wk->samples = perf_reader__stats(r)->nr_records[PERF_RECORD_SAMPLE];
	wk->rounds = perf_reader__stats(r)->nr_records[PERF_RECORD_FINISHED_ROUND];
}

struct mark_ctx {
	struct perf_reader *seg;
	int calls;
};

static int give_segment(void *ctx, const struct perf_reader **seg)
{
	struct mark_ctx *m = ctx;

	m->calls++;
	*seg = m->seg;
	return 0;
}

static size_t index_of(const struct walk *wk, uint64_t off)
{
	size_t i;

	for (i = 0; i < wk->n; i++)
		if (wk->off[i] == off)
			return i;
	return SIZE_MAX;
}

/* The main reader with a mark at seg's start: the plain walk's records outside [start, end)
 * in the same order, and the plain walk's counts. */
static void check_main(const struct walk *plain, struct perf_reader *seg, uint64_t start,
		       uint64_t end)
{
	struct perf_reader_opts ro = { .no_sort = true };
	struct mark_ctx m = { .seg = seg };
	struct perf_reader *r;
	struct walk wk;
	size_t i, j = 0;

	CHECK(!perf_reader__open(&r, path, &ro, NULL));
	if (!r)
		return;
	perf_reader__set_mark(r, start, give_segment, &m);
	collect(r, &wk);
	CHECK_EQ_U64(m.calls, 1);
	for (i = 0; i < plain->n; i++) {
		if (plain->off[i] >= start && plain->off[i] < end)
			continue;
		CHECK(j < wk.n && wk.off[j] == plain->off[i]);
		j++;
	}
	CHECK_EQ_U64(j, wk.n);
	CHECK_EQ_U64(wk.samples, plain->samples);
	CHECK_EQ_U64(wk.rounds, plain->rounds);
	CHECK_EQ_U64(perf_reader__event(r, 0)->nr_samples,
		     perf_reader__event(seg, 0)->nr_samples +
		     (wk.n - (plain->n - plain->samples)));
	perf_reader__delete(r);
}

static void test_segment(void)
{
	struct perf_reader_opts ro = { .no_sort = true };
	const struct perf_record *rec;
	struct perf_reader *r, *seg;
	struct walk plain, sw;
	uint64_t start, end, exit_off = 0;
	size_t i, si;

	write_file();
	CHECK(!perf_reader__open(&r, path, &ro, NULL));
	if (!r)
		return;
	collect(r, &plain);
	CHECK_EQ_U64(plain.samples, 63);
	CHECK_EQ_U64(plain.rounds, 6);
	for (i = 0; i < plain.n; i++)
		if (plain.type[i] == PERF_RECORD_EXIT)
			exit_off = plain.off[i];
	ro.segment_from = perf_reader__header(r)->data_offset +
			  perf_reader__header(r)->data_size / 2;
	perf_reader__delete(r);

	/* the segment: from the sample after a round up to the EXIT, samples only */
	CHECK(!perf_reader__open(&seg, path, &ro, NULL));
	if (!seg)
		return;
	start = perf_reader__segment_start(seg);
	si = index_of(&plain, start);
	CHECK(si != SIZE_MAX && si > 2 && plain.type[si] == PERF_RECORD_SAMPLE);
	/* a round ends right before it: the plain walk's previous record ends 8 bytes earlier */
	CHECK(si != SIZE_MAX && si > 0 && plain.off[si - 1] < start - 8);
	collect(seg, &sw);
	end = perf_reader__segment_end(seg);
	CHECK_EQ_U64(end, exit_off);
	for (i = 0; i < sw.n; i++)
		CHECK(sw.type[i] == PERF_RECORD_SAMPLE && sw.off[i] >= start && sw.off[i] < end);
	CHECK(si != SIZE_MAX && sw.n == index_of(&plain, exit_off) - si);
	CHECK_EQ_U64(sw.samples, sw.n);
	CHECK(sw.rounds >= 1);
	check_main(&plain, seg, start, end);
	perf_reader__delete(seg);

	/* cut before its third sample: the segment is its first two */
	CHECK(!perf_reader__open(&seg, path, &ro, NULL));
	if (!seg)
		return;
	for (i = 0; i < 3 && perf_reader__next(seg, &rec) > 0; i++)
		;
	CHECK_EQ_U64(i, 3);
	CHECK(si != SIZE_MAX && rec->file_offset == plain.off[si + 2]);
	perf_reader__segment_cut(seg, rec);
	CHECK(perf_reader__next(seg, &rec) == 0);
	CHECK_EQ_U64(perf_reader__stats(seg)->nr_records[PERF_RECORD_SAMPLE], 2);
	CHECK_EQ_U64(perf_reader__event(seg, 0)->nr_samples, 2);
	if (si != SIZE_MAX) {
		CHECK_EQ_U64(perf_reader__segment_end(seg), plain.off[si + 2]);
		check_main(&plain, seg, start, plain.off[si + 2]);
	}
	perf_reader__delete(seg);

	/* a mark that is not a record boundary is stepped over: never called */
	{
		struct mark_ctx m = { .seg = NULL };
		struct walk wk;

		ro.segment_from = 0;
		CHECK(!perf_reader__open(&r, path, &ro, NULL));
		if (r) {
			perf_reader__set_mark(r, start + 8, give_segment, &m);
			collect(r, &wk);
			CHECK_EQ_U64(m.calls, 0);
			CHECK_EQ_U64(wk.n, plain.n);
			perf_reader__delete(r);
		}
	}
	/* a segment asked for past the data: no start, nothing delivered */
	ro.segment_from = UINT64_MAX / 2;
	CHECK(!perf_reader__open(&seg, path, &ro, NULL));
	if (seg) {
		CHECK_EQ_U64(perf_reader__segment_start(seg), 0);
		CHECK(perf_reader__next(seg, &rec) == 0);
		perf_reader__delete(seg);
	}
	unlink(path);
}

int main(void)
{
	RUN_TEST(test_segment);
	return TEST_EXIT();
}
