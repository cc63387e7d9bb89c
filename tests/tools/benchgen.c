/* benchgen: writes a large benchmark perf.data by tiling real recordings (pmusim output of
 * real programs) with the project's writer. Each input becomes the template of one or more
 * processes (own pid, COMM, MMAP2 of its modules); their samples are replayed round-robin in
 * chunks until the data section reaches the requested size, the processes of one input
 * starting at points spread evenly over it. Times are those of a 2-CPU
 * 'perf record -a': process p runs on CPU p % 2, each CPU's samples are in time order, and
 * within a round the CPUs' chunks overlap in time (a reader must sort each round), with a
 * FINISHED_ROUND every ROUND_BYTES as perf writes them.
 * Streams, modules and events are those of the inputs, so a consumer does the same block
 * lookups, aggregation and disassembly as on the originals. Depends only on the reader and
 * the writer.
 *
 * Usage: benchgen [-z | --zstd2] [--level N] [--procs N | --threads N] [--attr-size N]
 *                 [--whole] (--mb N | --loops K) -o OUT IN...
 * --whole (with --mb): each process replays all of its part of its input (the k-th of n
 * processes of an input the k-th n-th of it; one process: the whole run), every chunk of
 * CHUNK samples followed by a skip where its share of --mb is smaller than the part, as a
 * recording of the whole run at a lower sampling rate would be. Without it, a process
 * replays its part from its start for as long as its share lasts (one process per input:
 * the first part of the run). Where the share is the larger, the two are the same file.
 * --loops K: one process per input, each replaying its input exactly K times (for tests:
 * every count of the output is K times the input's).
 * --threads N: one process of N threads (a server) instead of processes: one COMM and one
 * set of MMAP2 (of the single input), a FORK per thread; thread k replays the input from
 * own starting point (k / N of the way into it) and runs on CPU k % 2.
 * Prints "samples N bytes N" (the uncompressed data size) on stdout.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/perf_format.h"
#include "reader/perf_reader.h"
#include "samples/perfwrite/perf_writer.h"

#define MAX_INPUTS	16
#define MAX_MAPS	64
#define MAX_BR		64
#define CHUNK		64	/* samples of one process in a row */
/* Data written between FINISHED_ROUNDs: perf record writes one after each pass over the
 * per-CPU ring buffers (propeller_sample of the corpus, 2 CPUs with LBR: 210 KB a round) */
#define ROUND_BYTES	(512u << 10)

struct bg_map {
	uint64_t start, len, pgoff;
	uint32_t prot, flags;
	uint8_t build_id_size;
	uint8_t build_id[20];
	char *file;
};

struct bg_sample {
	uint64_t ip, period, hw_idx, br_off;
	uint32_t nr;
	uint16_t misc;
	uint8_t evidx;
	uint8_t has_hw_idx;
};

struct bg_input {
	const char *path;
	char comm[16];
	struct bg_map maps[MAX_MAPS];
	size_t nr_maps;
	struct bg_sample *s;
	size_t nr, alloc;
	struct perf_branch_entry *br;
	size_t nr_br, alloc_br;
};

struct bg_event {
	struct perf_evattr attr;
	char *name;
	uint64_t ids[8];
	size_t nr_ids;
};

static void *grow(void *p, size_t *alloc, size_t need, size_t elem)
{
	size_t n;
	void *q;

	if (need <= *alloc)
		return p;
	n = *alloc ? *alloc * 2 : 1024;
	while (n < need)
		n *= 2;
	q = realloc(p, n * elem);
	if (!q) {
		fprintf(stderr, "benchgen: out of memory\n");
		exit(3);
	}
	*alloc = n;
	return q;
}

/* Bytes of one SAMPLE record with this layout, or 0 for fields it does not size. */
static uint64_t sample_bytes(const struct perf_evattr *a, uint32_t nr)
{
	static const uint64_t simple = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
		PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	uint64_t st = a->sample_type, n = 8;

	if (st & ~(simple | PERF_SAMPLE_BRANCH_STACK))
		return 0;
	n += 8 * (uint64_t)__builtin_popcountll(st & simple);
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		n += 8 + 24 * (uint64_t)nr;
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			n += 8;
	}
	return n;
}

static int input_load(struct bg_input *in, struct bg_event *ev, size_t *nr_ev,
		      struct perf_writer_opts *wo, bool first)
{
	struct perf_reader *r;
	const struct perf_record *rec;
	const char *msg = NULL;
	size_t i;
	int ret;

	ret = perf_reader__open(&r, in->path, NULL, &msg);
	if (ret) {
		fprintf(stderr, "benchgen: %s\n", msg ? msg : in->path);
		return -1;
	}
	if (first) {
		*nr_ev = perf_reader__nr_events(r);
		if (*nr_ev > 8)
			*nr_ev = 8;
		for (i = 0; i < *nr_ev; i++) {
			const struct perf_event_info *e = perf_reader__event(r, i);

			ev[i].attr = e->attr;
			ev[i].name = strdup(e->name ? e->name : "");
			ev[i].nr_ids = e->nr_ids < 8 ? e->nr_ids : 8;
			memcpy(ev[i].ids, e->ids, ev[i].nr_ids * sizeof(uint64_t));
			if (!sample_bytes(&e->attr, 0)) {
				fprintf(stderr, "benchgen: %s: unsupported sample_type\n", in->path);
				return -1;
			}
		}
		wo->branch_stack = perf_reader__header(r)->has_branch_stack;
	} else if (perf_reader__nr_events(r) != *nr_ev) {
		fprintf(stderr, "benchgen: %s: event list differs from the first input\n",
			in->path);
		return -1;
	}
	snprintf(in->comm, sizeof(in->comm), "prog");
	while ((ret = perf_reader__next(r, &rec)) > 0) {
		if (rec->type == PERF_RECORD_COMM) {
			snprintf(in->comm, sizeof(in->comm), "%s", rec->comm.comm);
		} else if (rec->type == PERF_RECORD_MMAP2 && in->nr_maps < MAX_MAPS) {
			struct bg_map *m = &in->maps[in->nr_maps++];

			m->start = rec->mmap.start;
			m->len = rec->mmap.len;
			m->pgoff = rec->mmap.pgoff;
			m->prot = rec->mmap.prot;
			m->flags = rec->mmap.flags;
			m->build_id_size = rec->mmap.build_id_size;
			memcpy(m->build_id, rec->mmap.build_id, sizeof(m->build_id));
			m->file = strdup(rec->mmap.filename);
		} else if (rec->type == PERF_RECORD_SAMPLE && rec->evidx >= 0 &&
			   (size_t)rec->evidx < *nr_ev) {
			const struct perf_sample *s = &rec->sample;
			struct bg_sample *o;
			uint32_t nr = s->nr_branches < MAX_BR ? (uint32_t)s->nr_branches : MAX_BR;

			in->s = grow(in->s, &in->alloc, in->nr + 1, sizeof(*in->s));
			in->br = grow(in->br, &in->alloc_br, in->nr_br + nr, sizeof(*in->br));
			o = &in->s[in->nr++];
			o->ip = s->ip;
			o->period = s->period;
			o->hw_idx = s->hw_idx;
			o->has_hw_idx = s->has_hw_idx;
			o->nr = nr;
			o->misc = rec->misc;
			o->evidx = (uint8_t)rec->evidx;
			o->br_off = in->nr_br;
			if (nr)
				memcpy(in->br + in->nr_br, s->branches, nr * sizeof(*in->br));
			in->nr_br += nr;
		}
	}
	if (ret < 0) {
		fprintf(stderr, "benchgen: %s\n", perf_reader__errmsg(r));
		perf_reader__delete(r);
		return -1;
	}
	perf_reader__delete(r);
	if (!in->nr || !in->nr_maps) {
		fprintf(stderr, "benchgen: %s: no samples or no MMAP2 records\n", in->path);
		return -1;
	}
	return 0;
}

/* The processes made from input i of nin (process p replays input p % nin). */
static size_t procs_of(size_t procs, size_t nin, size_t i)
{
	return (procs - i + nin - 1) / nin;
}

/* --whole: the samples process p skips after each chunk (skip[p]) so that, written CHUNK
 * at a time in turn with the others until target bytes, it goes once over its part of its
 * input (the k-th of an input's n processes: samples k/n to (k+1)/n of it); 0 where its share
 * holds the part, or more. */
static int whole_skips(const struct bg_input *in, size_t nin, const struct bg_event *ev,
		       size_t procs, uint64_t target, double *skip)
{
	double round = 0, rounds;	/* bytes of a round: one chunk of every process */
	size_t p, i;

	for (i = 0; i < nin; i++) {
		double b = 0, n = (double)procs_of(procs, nin, i);

		if (!in[i].nr) {
			fprintf(stderr, "benchgen: %s: no samples\n", in[i].path);
			return -1;
		}
		for (size_t j = 0; j < in[i].nr; j++)
			b += (double)sample_bytes(&ev[in[i].s[j].evidx].attr, in[i].s[j].nr);
		round += n * CHUNK * b / (double)in[i].nr;
	}
	rounds = (double)target / round;
	for (p = 0; p < procs; p++) {
		double part = (double)in[p % nin].nr / (double)procs_of(procs, nin, p % nin);

		skip[p] = part > rounds * CHUNK ? part / rounds - CHUNK : 0;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: benchgen [-z | --zstd2] [--level N] [--procs N | --threads N] "
		"[--attr-size N] [--whole] (--mb N | --loops K) -o OUT IN.data...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct bg_input in[MAX_INPUTS];
	struct bg_event ev[8];
	struct perf_writer_opts wo = {
		.version = "6.1.benchgen", .hostname = "bench", .osrelease = "6.1.0",
		.arch = "x86_64", .cpuid = "GenuineIntel-6-55-4", .nr_cpus = 2,
		.attr_size = 128,
	};
	static const char *const cmdline[] = { "perf", "record", "-b", "-e",
		"inst_retired.prec_dist", "-e", "br_inst_retired.near_taken", "-a", NULL };
	struct perf_writer *w = NULL;
	const char *out = NULL;
	uint64_t target = 0, bytes = 0, nsamples = 0, t = 1000000000ULL, loops = 0;
	uint64_t tc[2], round_start = 0;	/* per-CPU clocks; bytes at the round's start */
	uint64_t *left = NULL;
	size_t nin = 0, nr_ev = 0, procs = 0, threads = 0, i, p;
	size_t *cursor;
	double *skip = NULL, *skipped = NULL;	/* --whole: samples skipped after each chunk */
	bool whole = false;
	int evidx[8], err = 0, ai;

	for (ai = 1; ai < argc; ai++) {
		const char *a = argv[ai];

		if (!strcmp(a, "-z"))
			wo.compress = PERF_WRITER_COMPRESS_ZSTD;
		else if (!strcmp(a, "--zstd2"))
			wo.compress = PERF_WRITER_COMPRESS_ZSTD2;
		else if (!strcmp(a, "--level") && ai + 1 < argc)
			wo.zstd_level = atoi(argv[++ai]);
		else if (!strcmp(a, "--procs") && ai + 1 < argc)
			procs = strtoul(argv[++ai], NULL, 0);
		else if (!strcmp(a, "--threads") && ai + 1 < argc)
			threads = strtoul(argv[++ai], NULL, 0);
		else if (!strcmp(a, "--attr-size") && ai + 1 < argc)
			wo.attr_size = (uint32_t)strtoul(argv[++ai], NULL, 0);
		else if (!strcmp(a, "--mb") && ai + 1 < argc)	/* decimals allowed: 0.25 */
			target = (uint64_t)(strtod(argv[++ai], NULL) * 1048576.0);
		else if (!strcmp(a, "--loops") && ai + 1 < argc)
			loops = strtoull(argv[++ai], NULL, 0);
		else if (!strcmp(a, "--whole"))
			whole = true;
		else if (!strcmp(a, "-o") && ai + 1 < argc)
			out = argv[++ai];
		else if (a[0] == '-')
			usage();
		else if (nin < MAX_INPUTS)
			in[nin++].path = a;
		else
			usage();
	}
	if (!out || !nin || !(target || loops))
		usage();
	if (threads && (procs || loops || nin != 1 || threads > 1000000)) {
		fprintf(stderr, "benchgen: --threads N takes one input, N <= 1000000, "
			"no --procs or --loops\n");
		return 2;
	}
	if (whole && (loops || threads || !target)) {
		fprintf(stderr, "benchgen: --whole goes with --mb and --procs only\n");
		return 2;
	}
	wo.cmdline = cmdline;
	for (i = 0; i < nin; i++)
		if (input_load(&in[i], ev, &nr_ev, &wo, i == 0))
			return 2;
	if (threads)
		procs = threads;
	else if (loops)
		procs = nin;
	else if (!procs)
		procs = 2 * nin;
	cursor = calloc(procs, sizeof(*cursor));
	left = calloc(procs, sizeof(*left));
	skip = calloc(procs, sizeof(*skip));
	skipped = calloc(procs, sizeof(*skipped));
	if (!cursor || !left || !skip || !skipped)
		return 3;
	if (whole && whole_skips(in, nin, ev, procs, target, skip))
		return 2;
	for (p = 0; p < procs; p++)
		left[p] = loops ? loops * in[p % nin].nr : UINT64_MAX;

	err = perf_writer__open(&w, out, &wo);
	if (err) {
		fprintf(stderr, "benchgen: %s: %s\n", out, strerror(-err));
		return 3;
	}
	for (i = 0; i < nr_ev; i++) {
		evidx[i] = perf_writer__add_event(w, &ev[i].attr, ev[i].name, ev[i].ids,
						  ev[i].nr_ids);
		if (evidx[i] < 0) {
			err = evidx[i];
			goto fail;
		}
	}
	/* build-ids of every module, once per file name */
	for (i = 0; i < nin; i++)
		for (size_t m = 0; m < in[i].nr_maps; m++) {
			const struct bg_map *mp = &in[i].maps[m];
			bool dup = false;

			for (size_t j = 0; j <= i && !dup; j++)
				for (size_t k = 0; k < (j == i ? m : in[j].nr_maps); k++)
					dup |= !strcmp(in[j].maps[k].file, mp->file);
			if (!dup && mp->build_id_size &&
			    (err = perf_writer__add_build_id(w, -1, PERF_RECORD_MISC_USER,
							     mp->build_id, mp->build_id_size,
							     mp->file)))
				goto fail;
		}
	/* one FORK/COMM/MMAP2 set per process; process p replays input p % nin. Threads: the
	 * first one's set, then a FORK (pid 10000, ppid 10000) per further thread. */
	for (p = 0; p < procs; p++) {
		const struct bg_input *ip = &in[p % nin];
		uint32_t tid = 10000 + (uint32_t)p, pid = threads ? 10000 : tid;
		struct perf_sample_id sid = { .pid = pid, .tid = tid, .time = t, .id = ev[0].ids[0] };

		if (threads && p) {
			err = perf_writer__task(w, PERF_RECORD_FORK, pid, pid, tid, 10000, t, &sid);
			if (err)
				goto fail;
			cursor[p] = (size_t)((uint64_t)p * ip->nr / procs);
			t += 1000;
			continue;
		}
		err = perf_writer__task(w, PERF_RECORD_FORK, pid, 1, tid, 1, t, &sid);
		if (!err)
			err = perf_writer__comm(w, true, pid, pid, ip->comm, &sid);
		for (size_t m = 0; !err && m < ip->nr_maps; m++) {
			const struct bg_map *mp = &ip->maps[m];

			err = perf_writer__mmap2(w, PERF_RECORD_MISC_USER, pid, pid, mp->start,
						 mp->len, mp->pgoff, mp->build_id,
						 mp->build_id_size, mp->prot, mp->flags, mp->file,
						 &sid);
		}
		if (err)
			goto fail;
		/* The processes of one input start at points spread evenly over it (the k-th of
		 * n at k/n), so that many processes replay all of it between them, as the short
		 * processes of a build run different parts of one program. */
		if (!loops) {
			cursor[p] = (size_t)((uint64_t)(p / nin) * ip->nr / procs_of(procs, nin, p % nin));
		}
		t += 1000;
	}
	tc[0] = t;
	tc[1] = t + 137;
	for (bool more = true; more && (loops || bytes < target);) {
		more = false;
		for (p = 0; p < procs && (loops || bytes < target); p++) {
			const struct bg_input *ip = &in[p % nin];
			uint32_t tid = 10000 + (uint32_t)p, pid = threads ? 10000 : tid;

			for (int c = 0; c < CHUNK && left[p] && (loops || bytes < target); c++) {
				const struct bg_sample *o = &ip->s[cursor[p]];
				struct perf_sample s = {
					.id = ev[o->evidx].nr_ids ? ev[o->evidx].ids[0] : 0,
					.ip = o->ip, .pid = pid, .tid = tid, .time = tc[p & 1],
					.period = o->period, .cpu = (uint32_t)(p & 1),
					.nr_branches = o->nr, .has_hw_idx = o->has_hw_idx,
					.hw_idx = o->hw_idx, .branches = ip->br + o->br_off,
				};

				s.present = ev[o->evidx].attr.sample_type;
				err = perf_writer__sample(w, evidx[o->evidx], o->misc, &s);
				if (err)
					goto fail;
				bytes += sample_bytes(&ev[o->evidx].attr, o->nr);
				tc[p & 1] += 274;
				left[p]--;
				more = true;
				if (++cursor[p] == ip->nr)
					cursor[p] = 0;
				nsamples++;
				if (c == CHUNK - 1 && skip[p] > 0) {	/* --whole */
					size_t k = (size_t)(skipped[p] + skip[p]) - (size_t)skipped[p];

					skipped[p] += skip[p];
					cursor[p] = (cursor[p] + k) % ip->nr;
				}
				if (bytes - round_start >= ROUND_BYTES) {
					/* the next round starts after everything written so far */
					t = tc[0] > tc[1] ? tc[0] : tc[1];
					tc[0] = tc[1] = t + 137;
					round_start = bytes;
					if ((err = perf_writer__finished_round(w)))
						goto fail;
				}
			}
		}
	}
	t = (tc[0] > tc[1] ? tc[0] : tc[1]) + 137;
	for (p = 0; p < procs && !err; p++) {
		uint32_t tid = 10000 + (uint32_t)p, pid = threads ? 10000 : tid;
		uint32_t ppid = threads && p ? 10000 : 1;
		struct perf_sample_id sid = { .pid = pid, .tid = tid, .time = t, .id = ev[0].ids[0] };

		err = perf_writer__task(w, PERF_RECORD_EXIT, pid, ppid, tid, ppid, t, &sid);
	}
	if (!err)
		err = perf_writer__finished_round(w);
	if (err)
		goto fail;
	err = perf_writer__close(w);
	if (err) {
		fprintf(stderr, "benchgen: %s: %s\n", out, strerror(-err));
		return 3;
	}
	printf("samples %llu bytes %llu\n", (unsigned long long)nsamples,
	       (unsigned long long)bytes);
	for (i = 0; i < nr_ev; i++)
		free(ev[i].name);
	for (i = 0; i < nin; i++) {
		for (size_t m = 0; m < in[i].nr_maps; m++)
			free(in[i].maps[m].file);
		free(in[i].s);
		free(in[i].br);
	}
	free(cursor);
	free(left);
	free(skip);
	free(skipped);
	return 0;
fail:
	fprintf(stderr, "benchgen: %s: %s\n", out, strerror(err < 0 ? -err : err));
	perf_writer__abort(w);
	return 3;
}
