/* Learning the hybrid rule's cutoff (HBBP paper §IV.B, method.md §6) from reference runs:
 * blocks with their EBS and LBR estimates and their exact count (from a pmusim --truth-insns
 * CSV, read by hbbp/compare/ref_csv.c); the cutoff chosen minimises the mean over runs of the instruction-weighted block error
 * sum(len * |estimate - exact|) / (exact instructions of the run), the estimate chosen by the
 * method's own rule (hbbp_rule__choose, with its fallbacks).
 * Depends on hbbp/method/method.h (the rule), hbbp/compare/ref.h and hbbp/train/model.h; knows
 * nothing of how the blocks were computed.
 */
#ifndef HBBP_TRAIN_LEARN_H
#define HBBP_TRAIN_LEARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hbbp/compare/ref.h"
#include "hbbp/train/model.h"

#define TRAIN_MAX_CUTOFF	64
#define TRAIN_MAX_RUNS		256

/* A reference run: the exact count of each instruction, by (module base name, file offset).
 * Reads a pmusim --truth-insns CSV (module,offset,address,count,mnemonic: hbbp/compare/ref.h)
 * into *out, its instructions sorted for train_truth__count; *out's total is the run's total
 * instructions. 0, -errno, -HBBP_EFORMAT or -HBBP_ELIMIT, with a message naming the file and
 * line. */
int train_truth__load(struct ref_mix **out, const char *path);
/* The exact count at (module base name, file offset), 0 where the reference has none. */
double train_truth__count(const struct ref_mix *t, const char *module, uint64_t offset);

struct train_block {
	unsigned run, len;
	double ebs, lbr, exact;
	bool has_e, has_l;
};

struct train_set {
	struct train_block *b;
	size_t n, cap;
	double total[TRAIN_MAX_RUNS];	/* exact instructions of each run */
	unsigned runs;
};

void train_set__init(struct train_set *s);
void train_set__exit(struct train_set *s);
/* Adds a block of run s->runs. 0, -ENOMEM or -HBBP_ELIMIT. */
int train_set__add(struct train_set *s, const struct train_block *b);
/* The weighted block error (percent) of the rule at cutoff. */
double train_set__error(const struct train_set *s, unsigned cutoff);
/* Searches cutoffs 0..TRAIN_MAX_CUTOFF (ties go to the one nearest the default), fills m;
 * errors (NULL: not wanted) gets the error of each cutoff (TRAIN_MAX_CUTOFF + 1 of them). */
void train_set__learn(const struct train_set *s, struct hbbp_model *m, double *errors);

#endif
