/* Reading one file in two parts at once (see perf_reader.h): a segment reader finds its start
 * after a FINISHED_ROUND header and stops before the first record that is not a sample; the
 * main reader, when its walk lands on the segment's start, jumps over the segment's records
 * and takes over their counts. The caller decides what the samples of the segment mean and
 * whether its result may stand in for them (the order of delivery differs).
 * Knows nothing outside reader/.
 */
#include <errno.h>

#include "reader/perf_reader_int.h"
#include "util/hbbp_err.h"

#define SEGMENT_SCAN	(16u << 20)	/* bytes searched for a FINISHED_ROUND header */

static bool is_round_header(const struct perf_reader *r, const uint8_t *p)
{
	return rd32(r, p) == PERF_RECORD_FINISHED_ROUND && rd16(r, p + 4) == 0 &&
	       rd16(r, p + 6) == 8;
}

int perf_segment__find_start(struct perf_reader *r)
{
	struct perf_input *in = &r->inputs[0];
	uint64_t from = r->opts.segment_from, d_off = r->hdr.data_offset, limit;

	r->segment = true;
	r->opts.no_sort = true;
	in->done = true;	/* until a start is found */
	if (r->hdr.is_pipe || r->nr_inputs != 1 || in->streaming || from >= in->end)
		return 0;
	if (from < d_off)
		from = d_off;
	from = d_off + ((from - d_off) & ~(uint64_t)7);
	limit = in->end - from > SEGMENT_SCAN ? from + SEGMENT_SCAN : in->end;
	in->pos = from;
	while (in->pos + 8 <= limit) {
		const uint8_t *p;
		size_t avail;
		int ret = perf_input__peek(r, in, 8, &p, &avail);

		if (ret < 0)
			return ret;
		if (ret == 0)
			return 0;
		in->pos += 8;
		if (is_round_header(r, p)) {
			r->seg_start = in->pos;
			in->done = in->pos >= in->end;
			return 0;
		}
	}
	return 0;
}

uint64_t perf_reader__segment_start(const struct perf_reader *r)
{
	return r->segment ? r->seg_start : 0;
}

uint64_t perf_reader__segment_end(const struct perf_reader *r)
{
	if (!r->segment || !r->seg_start)
		return 0;
	/* cut before a sample, else stopped before a record it did not read, or at the end */
	return r->seg_end ? r->seg_end : r->inputs[0].pos;
}

void perf_reader__segment_cut(struct perf_reader *r, const struct perf_record *rec)
{
	struct perf_input *in = &r->inputs[0];

	if (!r->segment || rec->type != PERF_RECORD_SAMPLE)
		return;
	r->stats.nr_records[PERF_RECORD_SAMPLE]--;
	if (rec->evidx >= 0 && (size_t)rec->evidx < r->nr_events)
		r->events[rec->evidx].info.nr_samples--;
	r->seg_end = rec->file_offset;
	in->done = true;
	in->zpos = in->zlen;
}

void perf_reader__set_mark(struct perf_reader *r, uint64_t off, perf_reader_mark_fn fn,
			   void *ctx)
{
	r->mark = off;
	r->mark_fn = fn;
	r->mark_ctx = ctx;
}

/* adds the counts of the segment's records to r's */
static void absorb(struct perf_reader *r, const struct perf_reader *seg)
{
	size_t i;

	for (i = 0; i < PERF_RECORD_TYPE_MAX; i++)
		r->stats.nr_records[i] += seg->stats.nr_records[i];
	r->stats.nr_unknown_id += seg->stats.nr_unknown_id;
	for (i = 0; i < r->nr_events; i++)
		r->events[i].info.nr_samples += seg->events[i].info.nr_samples;
}

int perf_segment__at_mark(struct perf_reader *r)
{
	struct perf_input *in = &r->inputs[0];
	const struct perf_reader *seg = NULL;
	perf_reader_mark_fn fn = r->mark_fn;
	uint64_t end;
	int ret;

	if (in->zpos < in->zlen || in->pos < r->mark)
		return 0;
	r->mark_fn = NULL;
	if (in->pos > r->mark)
		return 0;	/* stepped over it: the segment did not start at a record */
	ret = fn(r->mark_ctx, &seg);
	if (ret < 0 || !seg)
		return ret < 0 ? ret : 0;
	end = perf_reader__segment_end(seg);
	if (!seg->segment || seg->seg_start != r->mark || end < r->mark || end > in->end ||
	    seg->nr_events != r->nr_events)
		return 0;
	absorb(r, seg);
	in->pos = end;
	return 0;
}
