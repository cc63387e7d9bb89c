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
 * Unknown keys are an error (a newer format must bump the version).
 * Depends on util/hbbp_err.h only; never prints.
 */
#ifndef HBBP_MODEL_H
#define HBBP_MODEL_H

#include <stddef.h>

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

#endif
