/* The reference accumulation: method.md §4-§6 as a plain loop over the records, written to be
 * read (no caches, no queues, no deferred work): every record in delivery order, every sample
 * resolved and accumulated when it comes, through the same accumulators the engine fills
 * (struct hbbp_accum). The engine (hbbp/engine/driver.h) must give the same accumulators up
 * to the order of floating-point sums; tests compare the two (tests/tools/refcmp.c).
 * Depends on hbbp/method/method.h only; never opens files.
 */
#ifndef HBBP_REFERENCE_H
#define HBBP_REFERENCE_H

#include "hbbp/method/method.h"

/* Feeds one record (any type) to a (hbbp_accum__init'ed, compensated set). 0 or -ENOMEM. */
int hbbp_reference__record(struct hbbp_accum *a, const struct perf_record *rec);
/* Ends the pass (method.md §7: the scales). */
void hbbp_reference__finish(struct hbbp_accum *a);

#endif
