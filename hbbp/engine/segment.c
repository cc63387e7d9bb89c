/* Reading one recording in two parts at once (see hbbp/engine/segment.h): the segment's reader, its
 * bundle and its thread, and the mark that hands the bundle to the driver.
 * Depends on the reader, hbbp/engine/driver.h and pthreads.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/engine/segment.h"
#include "util/hbbp_err.h"

/* where the segment starts, as a share of the records: the segment is read without ordering
 * and without address lookups, so it may take a little more than half */
#define SEGMENT_FROM_SHARE	0.44

struct hbbp_segment {
	struct perf_reader *r;
	struct hbbp_bundle b;
	struct hbbp_driver *d;
	const char *path;
	struct perf_reader_opts so;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool opened;		/* r and b are ready (or failed: open_err) */
	int open_err;
	bool threaded;		/* the thread runs (join before use) */
	bool ran;		/* read to its end */
	bool used;		/* handed to the driver */
	int err;
};

bool hbbp_segment__eligible(const struct perf_reader *r, uint64_t min_bytes)
{
	const struct perf_header_info *h = perf_reader__header(r);
	size_t i, n = perf_reader__nr_events(r);

	if (!min_bytes || h->is_pipe || h->is_dir || h->data_size < min_bytes || !n)
		return false;
	for (i = 0; i < n; i++) {
		const struct perf_event_info *e = perf_reader__event(r, i);

		if (!(e->attr.sample_type & PERF_SAMPLE_TIME) ||
		    !perf_evattr__sample_id_all(&e->attr))
			return false;
	}
	return true;
}

/* Sums the segment's samples into the bundle, up to the first one it cannot hold. */
static void segment_read(struct hbbp_segment *s)
{
	const struct perf_record *rec;
	int ret;

	while ((ret = perf_reader__next(s->r, &rec)) > 0) {
		/* samples only (a segment reader stops before any other record) */
		int k = rec->type == PERF_RECORD_SAMPLE ? hbbp_bundle__add(&s->b, rec)
							: -HBBP_EFORMAT;

		if (k < 0) {
			ret = k;
			break;
		}
		if (!k) {
			perf_reader__segment_cut(s->r, rec);
			break;
		}
	}
	if (ret >= 0)
		ret = hbbp_bundle__finish(&s->b);
	s->err = ret < 0 ? ret : 0;
	s->b.start = perf_reader__segment_start(s->r);
	s->b.end = perf_reader__segment_end(s->r);
	s->ran = true;
}

/* The segment's reader and bundle: in its own thread when there is one, so that what that
 * thread writes for every sample is in its own memory (no cache line shared with the pass). */
static int segment_open(struct hbbp_segment *s)
{
	int err = perf_reader__open(&s->r, s->path, &s->so, NULL);

	return err ? err : hbbp_bundle__init(&s->b, s->d);
}

static void *segment_thread(void *arg)
{
	struct hbbp_segment *s = arg;
	int err = segment_open(s);

	pthread_mutex_lock(&s->lock);
	s->open_err = err;
	s->opened = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (!err && perf_reader__segment_start(s->r))
		segment_read(s);
	return NULL;
}

/* The pass landed on the segment's start: the bundle stands for its records from here. */
static int segment_mark(void *ctx, const struct perf_reader **seg)
{
	struct hbbp_segment *s = ctx;

	if (s->threaded) {
		pthread_join(s->thread, NULL);
		s->threaded = false;
	}
	if (!s->ran)
		segment_read(s);
	if (s->err)
		return 0;	/* the pass reads the segment itself (and meets the error) */
	pr_debug("part read apart: records 0x%llx..0x%llx, %llu samples",
		 (unsigned long long)s->b.start, (unsigned long long)s->b.end,
		 (unsigned long long)s->b.nr_samples);
	hbbp_driver__set_bundle(s->d, &s->b);
	s->used = true;
	*seg = s->r;
	return 0;
}

int hbbp_segment__open(struct hbbp_segment **out, struct perf_reader *r, const char *path,
		       const struct perf_reader_opts *ro, struct hbbp_driver *d, bool threaded)
{
	const struct perf_header_info *h = perf_reader__header(r);
	size_t size = (sizeof(struct hbbp_segment) + 63) & ~(size_t)63;
	struct hbbp_segment *s;
	int err;

	*out = NULL;
	/* whole cache lines: the thread writes the bundle's counters for every sample */
	s = aligned_alloc(64, size);
	if (!s)
		return -ENOMEM;
	memset(s, 0, size);
	s->d = d;
	s->path = path;
	s->so = *ro;
	s->so.segment_from = h->data_offset +
			     (uint64_t)((double)h->data_size * SEGMENT_FROM_SHARE);
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	if (threaded && !pthread_create(&s->thread, NULL, segment_thread, s)) {
		s->threaded = true;
		pthread_mutex_lock(&s->lock);
		while (!s->opened)
			pthread_cond_wait(&s->cond, &s->lock);
		pthread_mutex_unlock(&s->lock);
		err = s->open_err;
	} else {
		err = segment_open(s);
	}
	if (err || !perf_reader__segment_start(s->r)) {
		hbbp_segment__delete(s);
		return err == -ENOMEM ? err : 0;	/* else: no segment, one part */
	}
	perf_reader__set_mark(r, perf_reader__segment_start(s->r), segment_mark, s);
	*out = s;
	return 0;
}

bool hbbp_segment__used(const struct hbbp_segment *s)
{
	return s && s->used;
}

void hbbp_segment__delete(struct hbbp_segment *s)
{
	if (!s)
		return;
	if (s->threaded)
		pthread_join(s->thread, NULL);
	hbbp_bundle__exit(&s->b);
	perf_reader__delete(s->r);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
