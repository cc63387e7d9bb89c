/* reader_paths FILE: reads a perf.data file twice, once with perf_reader_opts.map_records
 * (records used in place in the file's map where the kernel fills page tables in bulk) and
 * once as by default (records read with pread(2) and copied for time ordering), and
 * compares the delivered records: type, misc, size, file offset, event, and for samples the
 * ip, pid/tid, time, period, cpu and every branch entry. Prints "records N hash H" for each
 * pass; exits 0 when both passes agree, 1 when they differ, 2 when the file cannot be read.
 * Depends on the reader only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "reader/perf_reader.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static int pass(const char *path, bool use_pread, uint64_t *nr, uint64_t *hash)
{
	struct perf_reader_opts o;
	struct perf_reader *r;
	const struct perf_record *rec;
	const char *msg = NULL;
	uint64_t h = 0xcbf29ce484222325ULL, n = 0, k;
	int ret;

	memset(&o, 0, sizeof(o));
	o.map_records = !use_pread;
	if (perf_reader__open(&r, path, &o, &msg)) {
		fprintf(stderr, "reader_paths: %s\n", msg ? msg : path);
		return -1;
	}
	while ((ret = perf_reader__next(r, &rec)) > 0) {
		n++;
		h = mix(h, rec->type);
		h = mix(h, rec->misc);
		h = mix(h, rec->size);
		h = mix(h, rec->file_offset);
		h = mix(h, (uint64_t)(int64_t)rec->evidx);
		if (rec->type != PERF_RECORD_SAMPLE)
			continue;
		h = mix(h, rec->sample.ip);
		h = mix(h, (uint64_t)rec->sample.pid << 32 | rec->sample.tid);
		h = mix(h, rec->sample.time);
		h = mix(h, rec->sample.period);
		h = mix(h, rec->sample.cpu);
		h = mix(h, rec->sample.nr_branches);
		for (k = 0; k < rec->sample.nr_branches; k++) {
			h = mix(h, rec->sample.branches[k].from);
			h = mix(h, rec->sample.branches[k].to);
			h = mix(h, rec->sample.branches[k].flags);
		}
	}
	if (ret < 0)
		h = mix(h, 0xdeadULL + (uint64_t)-ret);	/* the same error at the same place */
	perf_reader__delete(r);
	*nr = n;
	*hash = h;
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n1, h1, n2, h2;

	if (argc != 2) {
		fprintf(stderr, "usage: reader_paths FILE\n");
		return 2;
	}
	if (pass(argv[1], false, &n1, &h1) || pass(argv[1], true, &n2, &h2))
		return 2;
	printf("records %" PRIu64 " hash %016" PRIx64 "\n", n1, h1);
	printf("records %" PRIu64 " hash %016" PRIx64 "\n", n2, h2);
	return n1 == n2 && h1 == h2 ? 0 : 1;
}
