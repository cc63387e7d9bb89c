/* One recording read in two parts at once: the pass reads the file from its start while a
 * segment from about the middle (after a FINISHED_ROUND, up to the next record that is not a
 * sample) is summed apart into a struct hbbp_bundle, on a thread of its own when one may be
 * used, else when the pass reaches it. The pass jumps over the segment where its walk lands
 * on the segment's start and the driver stands for the bundle from there (hbbp/engine/driver.h).
 * Where the part is chosen depends on the file alone, so the result is the same with or
 * without the thread. Depends on the reader, hbbp/engine/driver.h and pthreads.
 */
#ifndef HBBP_SEGMENT_H
#define HBBP_SEGMENT_H

#include "hbbp/engine/driver.h"

struct hbbp_segment;

/* Whether the recording r (opened for the pass) may be read in two parts: a file (not a pipe
 * nor a directory) with at least min_bytes of records, and times in every sample and record
 * (sample_type TIME and sample_id_all in every event). */
bool hbbp_segment__eligible(const struct perf_reader *r, uint64_t min_bytes);
/* Opens the segment of r's file (path, the pass's reader options ro) for driver d and sets
 * the mark on r; starts the thread when threaded (without it, or when it cannot start, the
 * segment is read when the pass reaches it). *out is NULL when the file offers no start. */
int hbbp_segment__open(struct hbbp_segment **out, struct perf_reader *r, const char *path,
		       const struct perf_reader_opts *ro, struct hbbp_driver *d, bool threaded);
/* Waits for the thread; frees everything (after hbbp_driver__finish, which merges). */
void hbbp_segment__delete(struct hbbp_segment *s);
/* Whether the pass used the segment (its start was a record boundary, nothing failed). */
bool hbbp_segment__used(const struct hbbp_segment *s);

#endif
