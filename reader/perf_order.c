/* Record delivery in time order with perf's FINISHED_ROUND semantics: timed records are
 * queued, in place when they lie in a file's pread window and rounds bound the queue
 * (those bytes are kept while queued), else copied (raw bytes) into a reused arena; at each
 * FINISHED_ROUND those not newer than the previous round's maximum are sorted and
 * delivered (two-round lag); records without a time are delivered at once in file order;
 * everything left is flushed at the end. Decoding happens on delivery, so memory is
 * bounded by about two rounds.
 * Knows nothing outside reader/.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reader/perf_reader_int.h"
#include "util/hbbp_err.h"
#include "util/grow.h"

/* queued bytes above which the older half is delivered early (perf: ordered-events limit):
 * small for streams without FINISHED_ROUND (old perf, directories), whose queue would
 * otherwise hold the whole file; large with rounds, which bound the queue themselves */
#define ORDER_MEM_LIMIT		(2u << 20)
#define ORDER_MEM_LIMIT_ROUNDS	(64u << 20)
/* span of a pread window that queued records may keep; older ones are copied into the
 * arena when a record lies further than this from them (a record with a far future time
 * must not keep the whole file in memory); 1.5 times the queue's limit, so that
 * records in time order are never copied (the queue spans at most its limit) */
#define ORDER_PIN_SPAN		(ORDER_MEM_LIMIT_ROUNDS + ORDER_MEM_LIMIT_ROUNDS / 2)

void perf_order__free(struct perf_reader *r)
{
	free(r->arena);
	free(r->q);
	free(r->q_tmp);
	r->arena = NULL;
	r->q = NULL;
	r->q_tmp = NULL;
}

static int qent_cmp(const void *a, const void *b)
{
	const struct perf_qent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* in the pread window of in (kept there while queued) */
static bool in_window(const struct perf_input *in, const uint8_t *p, uint32_t size)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)in->buf;

	return !in->streaming && in->buf && a >= b && (uint64_t)(a - b) + size <= in->len;
}

/* the bytes of a queued record: in the arena, or in place, found by file offset in the
 * input's pread window (which moves) */
static const uint8_t *qent_bytes(const struct perf_reader *r, const struct perf_qent *e)
{
	const struct perf_input *in = &r->inputs[e->in_idx];

	if (!e->in_place)
		return r->arena + e->arena_off;
	return in->buf + (e->offset - in->buf_off);
}

#define ORDER_ARENA_START	(64u << 10)	/* bytes: the arena's first size (it doubles) */
static int arena_reserve(struct perf_reader *r, size_t need)
{
	size_t want = r->arena_len + need;

	if (want < need)
		return -ENOMEM;
	if (want < ORDER_ARENA_START)
		want = ORDER_ARENA_START;
	return grow_array((void **)&r->arena, &r->arena_cap, 1, want, SIZE_MAX);
}

/* lowest offset of in-place records of input k still queued (UINT64_MAX: none) */
static uint64_t pinned_from(const struct perf_reader *r, size_t k)
{
	uint64_t low = UINT64_MAX;
	size_t i;

	for (i = 0; i < r->q_nr; i++)
		if (r->q[i].in_place && r->q[i].in_idx == k && r->q[i].offset < low)
			low = r->q[i].offset;
	return low;
}

int perf_order__unpin(struct perf_reader *r, size_t k, uint64_t upto)
{
	size_t i;

	for (i = 0; i < r->q_nr; i++) {
		struct perf_qent *e = &r->q[i];
		size_t need = (e->size + 7u) & ~7u;

		if (!e->in_place || e->in_idx != k || e->offset >= upto)
			continue;
		if (arena_reserve(r, need))
			return -ENOMEM;
		memcpy(r->arena + r->arena_len, qent_bytes(r, e), e->size);
		e->in_place = false;
		e->arena_off = r->arena_len;
		r->arena_len += need;
	}
	r->inputs[k].keep_from = pinned_from(r, k);
	return 0;
}

static int queue(struct perf_reader *r, const struct perf_raw *raw, uint64_t t)
{
	struct perf_qent *e;
	size_t need = (raw->size + 7u) & ~7u;
	struct perf_input *in = raw->in;
	/* in place only where rounds bound the queue: without them the queue is small and
	 * records far out of order would keep their pages */
	bool place = r->have_round && in_window(in, raw->p, raw->size);

	if (grow_one((void **)&r->q, &r->q_cap, sizeof(*r->q), r->q_nr))
		return -ENOMEM;
	if (place && in->keep_from != UINT64_MAX &&
	    raw->offset - in->keep_from > ORDER_PIN_SPAN &&
	    perf_order__unpin(r, (size_t)(in - r->inputs), raw->offset - ORDER_PIN_SPAN / 2))
		return -ENOMEM;
	if (!place) {
		if (arena_reserve(r, need))
			return -ENOMEM;
		memcpy(r->arena + r->arena_len, raw->p, raw->size);
	}
	e = &r->q[r->q_nr++];
	e->time = t;
	e->seq = r->seq++;
	e->offset = raw->offset;
	e->in_place = place;
	e->arena_off = place ? 0 : r->arena_len;
	e->size = raw->size;
	e->in_idx = (uint16_t)(in - r->inputs);
	e->sample = raw->type == PERF_RECORD_SAMPLE;
	if (place) {
		if (raw->offset < in->keep_from)
			in->keep_from = raw->offset;
	} else {
		r->arena_len += need;
	}
	r->q_bytes += need;
	if (t < r->last_flush)
		r->stats.nr_out_of_order++;
	if (t > r->max_time)
		r->max_time = t;
	return 0;
}

static int qent_arena_cmp(const void *a, const void *b)
{
	const struct perf_qent *x = a, *y = b;

	if (x->in_place != y->in_place)
		return x->in_place ? -1 : 1;
	if (x->in_place)
		return x->seq < y->seq ? -1 : x->seq > y->seq;
	return x->arena_off < y->arena_off ? -1 : x->arena_off > y->arena_off;
}

/* samples_unordered: when the queued records with time <= limit are all samples, moves them
 * to the front of the queue in queue order (a stable partition, no sort) and starts
 * delivering them; false when a record of another type is among them (the caller sorts) */
static bool start_flush_samples(struct perf_reader *r, uint64_t limit)
{
	size_t i, n = 0, k = 0;

	for (i = 0; i < r->q_nr; i++) {
		if (r->q[i].time > limit)
			continue;
		if (!r->q[i].sample)
			return false;
		n++;
	}
	if (!n)
		return true;
	if (n < r->q_nr) {
		if (r->q_tmp_cap < r->q_nr - n) {
			struct perf_qent *nt = realloc(r->q_tmp, r->q_cap * sizeof(*nt));

			if (!nt)
				return false;
			r->q_tmp = nt;
			r->q_tmp_cap = r->q_cap;
		}
		for (i = 0; i < r->q_nr; i++) {
			if (r->q[i].time <= limit)
				r->q[i - k] = r->q[i];
			else
				r->q_tmp[k++] = r->q[i];
		}
		memcpy(r->q + n, r->q_tmp, k * sizeof(*r->q));
	}
	r->q_delivering = true;
	r->q_deliver = 0;
	r->q_deliver_end = n;
	return true;
}

/* starts delivering the queued records with time <= limit (all of them when all) */
static void start_flush(struct perf_reader *r, uint64_t limit, bool all)
{
	size_t n = 0;

	if (!r->q_nr)
		return;
	if (r->opts.samples_unordered && (all || limit != UINT64_MAX) &&
	    start_flush_samples(r, all ? UINT64_MAX : limit))
		return;
	for (n = 1; n < r->q_nr; n++)	/* usually already in order: skip the sort */
		if (qent_cmp(&r->q[n - 1], &r->q[n]) > 0)
			break;
	if (n < r->q_nr)
		qsort(r->q, r->q_nr, sizeof(*r->q), qent_cmp);
	n = 0;
	if (all)
		n = r->q_nr;
	else if (limit == UINT64_MAX)
		n = r->q_nr / 2;	/* memory limit: the older half, as perf does */
	else
		while (n < r->q_nr && r->q[n].time <= limit)
			n++;
	if (!n)
		return;
	r->q_delivering = true;
	r->q_deliver = 0;
	r->q_deliver_end = n;
}

/* drops the delivered prefix; keeps the rest of the arena compact */
static void end_flush(struct perf_reader *r)
{
	size_t i, n = r->q_deliver_end, len = 0;

	r->q_delivering = false;
	if (n == r->q_nr) {
		r->q_nr = 0;
		r->arena_len = 0;
		r->q_bytes = 0;
		for (i = 0; i < r->nr_inputs; i++)
			r->inputs[i].keep_from = UINT64_MAX;
		return;
	}
	memmove(r->q, r->q + n, (r->q_nr - n) * sizeof(*r->q));
	r->q_nr -= n;
	{
		/* compact the arena: visit the leftovers in arena order so moves go down
		 * (records in place in a map sort first and stay where they are) */
		struct perf_qent *q = r->q;
		size_t bytes = 0;

		for (i = 1; i < r->q_nr; i++)
			if (qent_arena_cmp(&q[i - 1], &q[i]) > 0)
				break;
		if (i < r->q_nr)
			qsort(q, r->q_nr, sizeof(*q), qent_arena_cmp);
		for (i = 0; i < r->q_nr; i++) {
			size_t sz = (q[i].size + 7u) & ~7u;

			bytes += sz;
			if (q[i].in_place)
				continue;
			if (q[i].arena_off != len)
				memmove(r->arena + len, r->arena + q[i].arena_off, sz);
			q[i].arena_off = len;
			len += sz;
		}
		r->q_bytes = bytes;
	}
	r->arena_len = len;
	/* what each input's map must keep: one pass over the queue for all inputs */
	for (i = 0; i < r->nr_inputs; i++)
		r->inputs[i].keep_from = UINT64_MAX;
	for (i = 0; i < r->q_nr; i++) {
		struct perf_input *in = &r->inputs[r->q[i].in_idx];

		if (r->q[i].in_place && r->q[i].offset < in->keep_from)
			in->keep_from = r->q[i].offset;
	}
}

static int deliver(struct perf_reader *r, const uint8_t *p, uint32_t size, uint64_t off,
		   struct perf_input *in, int evidx, const struct perf_record **rec)
{
	int err = perf_decode__record(r, p, size, off, in, evidx);

	if (err)
		return err;
	*rec = &r->rec;
	return 1;
}

static bool consumed_type(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_HEADER_ATTR: case PERF_RECORD_HEADER_EVENT_TYPE:
	case PERF_RECORD_HEADER_TRACING_DATA: case PERF_RECORD_HEADER_BUILD_ID:
	case PERF_RECORD_FINISHED_ROUND: case PERF_RECORD_ID_INDEX:
	case PERF_RECORD_EVENT_UPDATE: case PERF_RECORD_HEADER_FEATURE:
	case PERF_RECORD_FINISHED_INIT:
		return true;
	}
	return false;
}

/* moves to the next input with records left (round-robin over data.N); false at the end */
static bool next_input(struct perf_reader *r)
{
	size_t i, n = r->nr_inputs;

	if (r->cur_input == 0 || n < 2) {
		for (i = r->cur_input + 1; i < n; i++)
			if (!r->inputs[i].done)
				break;
		if (i >= n)
			return !r->inputs[r->cur_input].done;
		r->cur_input = i;
		return true;
	}
	for (i = 1; i < n; i++) {
		size_t k = 1 + (r->cur_input - 1 + i) % (n - 1);

		if (!r->inputs[k].done) {
			r->cur_input = k;
			return true;
		}
	}
	return false;
}

int perf_reader__next(struct perf_reader *r, const struct perf_record **rec)
{
	*rec = NULL;	/* set on every path, errors and the end included */
	for (;;) {
		struct perf_raw raw;
		uint64_t t;
		int ret, evidx;

		if (r->err)
			return r->err;
		if (r->q_delivering) {
			if (r->q_deliver < r->q_deliver_end) {
				struct perf_qent *e = &r->q[r->q_deliver++];
				const uint8_t *p = qent_bytes(r, e);

				if (e->time > r->last_flush)
					r->last_flush = e->time;
				/* the events may have changed since it was queued (a HEADER_ATTR
				 * record): an id no event has now is dropped as when read */
				evidx = perf_decode__event_of(r, p, e->size, rd32(r, p));
				if (evidx < 0 && rd32(r, p) == PERF_RECORD_SAMPLE) {
					r->stats.nr_unknown_id++;
					continue;
				}
				if (evidx < -1)
					evidx = -1;
				return deliver(r, p, e->size, e->offset, &r->inputs[e->in_idx],
					       evidx, rec);
			}
			end_flush(r);
		}
		if (r->at_end) {
			if (r->q_nr) {
				start_flush(r, 0, true);
				continue;
			}
			return 0;
		}
		if (r->has_pending) {
			raw = r->pending;
			r->has_pending = false;
			ret = 1;
		} else {
			ret = perf_input__next(r, &r->inputs[r->cur_input], &raw);
		}
		if (ret < 0)
			return ret;
		if (ret == 0) {
			if (!next_input(r))
				r->at_end = true;
			continue;
		}
		if (r->dir_merge && r->cur_input > 0)
			next_input(r);	/* data.N streams are read round-robin */
		if (raw.type < PERF_RECORD_TYPE_MAX)
			r->stats.nr_records[raw.type]++;
		if (raw.type >= PERF_RECORD_TYPE_MAX || !perf_record_type_name(raw.type))
			r->stats.nr_unknown_type++;
		if (raw.type == PERF_RECORD_FINISHED_ROUND) {
			r->have_round = true;
			if (!r->opts.no_sort && !r->dir_merge) {
				start_flush(r, r->next_flush, false);
				r->next_flush = r->max_time;
			}
			continue;
		}
		if (consumed_type(raw.type)) {
			ret = perf_decode__user_record(r, &raw);
			if (ret < 0)
				return ret;
			continue;
		}
		evidx = perf_decode__event_of(r, raw.p, raw.size, raw.type);
		if (raw.type == PERF_RECORD_SAMPLE && evidx < 0) {
			r->stats.nr_unknown_id++;
			continue;
		}
		if (evidx < -1)
			evidx = -1;
		if (!r->opts.no_sort &&
		    perf_decode__time(r, raw.p, raw.size, raw.type, evidx, &t)) {
			ret = queue(r, &raw, t);
			if (ret)
				return ret;
			if (r->q_bytes > (r->have_round ? ORDER_MEM_LIMIT_ROUNDS : ORDER_MEM_LIMIT))
				start_flush(r, UINT64_MAX, false);
			continue;
		}
		return deliver(r, raw.p, raw.size, raw.offset, raw.in, evidx, rec);
	}
}
