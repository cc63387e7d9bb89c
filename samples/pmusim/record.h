/* The simulator's perf.data output: spills samples while the program runs, then writes the
 * file as `perf record -b -e inst_retired.prec_dist -e br_inst_retired.near_taken` would
 * (attrs, FORK/COMM/MMAP2 first, samples with THROTTLE/UNTHROTTLE among them, EXIT, build-id
 * feature). Only the simulator uses it.
 */
#ifndef PMUSIM_RECORD_H
#define PMUSIM_RECORD_H

#include <stdint.h>

#include "samples/pmusim/pmusim.h"

struct sim_recorder;

/* IDs of the two events' samples (one per event: one thread, one CPU). */
#define SIM_ID_EBS 1001
#define SIM_ID_LBR 1002

int sim_recorder__new(struct sim_recorder **out, const char *path, const struct sim_pmu_opts *po,
		      const char *const *argv);
/* sim_sample_fn: spills one sample. */
int sim_recorder__sample(const struct sim_sample *s, void *ctx);
/* Writes the perf.data and frees r. */
int sim_recorder__close(struct sim_recorder *r, const struct sim_modules *m, uint32_t pid,
			const struct sim_pmu_stats *st);
void sim_recorder__abort(struct sim_recorder *r);

#endif
