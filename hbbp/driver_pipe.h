/* The method's pass on two threads: the calling thread reads, orders and decodes records and
 * digests samples (hbbp_driver__digest) into batches that carry a copy of their branch
 * entries; a worker thread accumulates them (hbbp_driver__apply: stack keys, hashing, the
 * stack cache, EBS lookups) in record order. Every other record waits until the worker is
 * idle and then runs in the calling thread, so the driver sees exactly the sequence of
 * operations of a single-threaded pass and gives the same result, bit for bit.
 * Depends on hbbp/method.h and pthreads.
 */
#ifndef HBBP_DRIVER_PIPE_H
#define HBBP_DRIVER_PIPE_H

#include "hbbp/method.h"

struct hbbp_pipe;

/* Starts the worker on d. Returns 0, -ENOMEM, or -EAGAIN when no thread can start. */
int hbbp_pipe__start(struct hbbp_pipe **out, struct hbbp_driver *d);
/* Feeds one record in delivery order (instead of hbbp_driver__record). Returns 0 or the
 * first error of the driver. */
int hbbp_pipe__record(struct hbbp_pipe *p, const struct perf_record *rec);
/* Waits for the worker to finish, stops it and frees p. Returns the first error. After it the
 * driver is used by the calling thread alone again (hbbp_driver__finish). */
int hbbp_pipe__stop(struct hbbp_pipe *p);

#endif
