/* libFuzzer target on the perf.data reader: hands the input to the reader as a file (file or
 * pipe mode by its header) and reads every record, touching the decoded fields. The reader's
 * mode comes from the input's size (two low bits: time order or file order; records read
 * with pread(2) or used in place in the map), so that each run opens the input once and the
 * mutations reach every mode. Depends only on the reader.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "reader/perf_reader.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct perf_record *rec;
	struct perf_reader *r;
	uint64_t sink = 0;
	const char *path;
	struct perf_reader_opts opts = {
		.no_sort = size & 1,	/* the pread window: no larger than the input */
	};
	int n = 0;

	path = fuzz_file(data, size);
	if (!path || perf_reader__open(&r, path, &opts, NULL))
		return 0;
	while (perf_reader__next(r, &rec) > 0 && n++ < 1000000) {
		if (rec->type == PERF_RECORD_SAMPLE) {
			const struct perf_sample *s = &rec->sample;
			uint64_t b;

			sink += s->ip + s->period;
			for (b = 0; b < s->nr_branches; b++)
				sink += s->branches[b].from ^ s->branches[b].to;
			for (b = 0; b < s->nr_callchain; b++)
				sink += s->callchain[b];
			for (b = 0; b < s->read_nr; b++)
				sink += s->read_values[b].value;
			if (s->raw_size)
				sink += s->raw[s->raw_size - 1];
		} else if (rec->type == PERF_RECORD_MMAP || rec->type == PERF_RECORD_MMAP2) {
			const char *p = rec->mmap.filename;

			while (*p)
				sink += (uint8_t)*p++;
		}
	}
	for (size_t e = 0; e < perf_reader__nr_events(r); e++)
		sink += perf_reader__event(r, e)->nr_samples;
	perf_reader__delete(r);
	fuzz_sink += (uint64_t)sink;
	return 0;
}
