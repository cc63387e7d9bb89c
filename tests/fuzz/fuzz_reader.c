/* libFuzzer target on the perf.data reader: writes the input to a temporary file, opens it
 * (file or pipe mode by its header) and reads every record, touching the decoded fields.
 * Depends only on the reader.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "reader/perf_reader.h"
#include "util/hbbp_err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	const struct perf_record *rec;
	struct perf_reader *r;
	uint64_t sink = 0;
	FILE *f;
	int i;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/fuzz_reader.%d", (int)getpid());
	f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	for (i = 0; i < 2; i++) {
		struct perf_reader_opts opts = { .no_sort = i == 1 };
		int n = 0;

		if (perf_reader__open(&r, path, &opts, NULL))
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
	}
	if (sink == 42)
		fprintf(stderr, " ");
	return 0;
}
