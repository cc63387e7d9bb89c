/* The hybrid-rule model file written by `hbbp-convert train` and read by `--model FILE`.
 *
 * Format (text, one "key value" per line, '#' starts a comment line, at most 64 KiB):
 *   hbbp-model 1            first non-comment line: magic and format version
 *   cutoff N                LBR for blocks of at most N instructions, else EBS (required)
 *   runs N                  informational: reference runs trained on
 *   blocks N                informational: blocks labelled
 *   lbr_closer N            informational: blocks where LBR was closer to the reference
 *   error E                 informational: weighted block error at the learned cutoff (%)
 *   error_default E         informational: the same at the default cutoff 18 (%)
 * Unknown keys are an error (a newer format must bump the version). Never prints.
 *
 * Learning the cutoff the model holds (HBBP paper §IV.B, method.md §6) from reference runs:
 * blocks with their EBS and LBR estimates and their exact count (from a pmusim --truth-insns
 * CSV, read by hbbp/compare/ref_csv.c); the cutoff chosen minimises the mean over runs of the
 * instruction-weighted block error sum(len * |estimate - exact|) / (exact instructions of the
 * run), the estimate chosen by the method's own rule (hbbp_rule__choose, with its fallbacks).
 * Depends on util/hbbp_err.h and hbbp/compare/ref.h (the truth); learning knows nothing of how
 * the blocks were computed.
 */
#ifndef HBBP_MODEL_H
#define HBBP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hbbp/compare/ref.h"

#define HBBP_MODEL_MAX_CUTOFF	100000

struct hbbp_model {
	unsigned cutoff;
	unsigned long runs, blocks, lbr_closer;
	double error, error_default;	/* percent; negative when unknown */
};

/* Reads PATH into *m. 0, or -errno / -HBBP_EFORMAT / -HBBP_ELIMIT; err gets a message
 * naming the file and line. */
int hbbp_model__load(const char *path, struct hbbp_model *m, char *err, size_t errlen);
/* *m in the format above, into buf: 0, or -ENOSPC when size is too small (1024 is enough). */
int hbbp_model__text(const struct hbbp_model *m, char *buf, size_t size);

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
/* Searches cutoffs 0..TRAIN_MAX_CUTOFF (ties go to the one nearest the default), fills m;
 * errors (NULL: not wanted) gets the error of each cutoff (TRAIN_MAX_CUTOFF + 1 of them). */
void train_set__learn(const struct train_set *s, struct hbbp_model *m, double *errors);

#endif
