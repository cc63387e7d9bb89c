/* hbbp-convert train --ref TRUTH_INSNS [--ref ...] [-o MODEL] PERF_DATA...: learns the hybrid
 * rule's cutoff (HBBP paper §IV.B, method.md §6) from reference runs. For each (reference,
 * recording) pair, in order, the recording is converted in this process as 'hbbp-convert
 * PERF_DATA' would (hbbp/engine/convert.h) and every code block's EBS and LBR estimates are
 * taken from the attribution; the reference is a pmusim --truth-insns CSV
 * (module,offset,address,count,mnemonic), whose count at a block's first instruction (its file
 * offset through bbmap's load bias, bbmap_module__vaddr_to_offset) is the block's exact count
 * (modules matched by the base name of their recorded path). The learning itself is
 * hbbp/train/learn.c; this file handles the arguments, prints the errors and writes the
 * model file. Depends on hbbp/engine/convert.h and hbbp/train/model.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/cli/options.h"
#include "hbbp/train/model.h"
#include "util/hbbp_err.h"

static const char usage_text[] =
"usage: hbbp-convert train --ref TRUTH_INSNS.csv [--ref ...] [-o MODEL] PERF_DATA...\n"
"Learns the hybrid rule's cutoff from reference runs: the i-th --ref (pmusim --truth-insns\n"
"CSV) is the exact per-instruction count of the i-th recording. Writes the model file\n"
"(default stdout) that 'hbbp-convert --model MODEL' applies; prints the error per cutoff\n"
"on stderr unless -q.\n"
"\n";

struct pair {
	struct train_set *s;
	const struct ref_mix *t;
	const char *data;
	const char *warned;	/* the module last warned about */
};

/* convert__code_blocks: one code block of a converted run, with its exact count */
static int add_block(void *ctx, const struct convert_block *b)
{
	struct pair *p = ctx;
	struct train_block tb;

	if (!b->has_offset) {
		if (p->warned != b->path)
			pr_warn("%s: block 0x%llx of %s is in no loadable segment (skipped)",
				p->data, (unsigned long long)b->start, b->path);
		p->warned = b->path;
		return 0;
	}
	tb.run = p->s->runs;
	tb.len = b->nr_insns;
	tb.ebs = b->ebs;
	tb.lbr = b->lbr;
	tb.has_e = b->has_ebs;
	tb.has_l = b->has_lbr;
	tb.exact = train_truth__count(p->t, b->name, b->offset);
	return train_set__add(p->s, &tb);
}

/* One (reference, recording) pair: returns an exit code. */
static int train_pair(struct train_set *s, const char *ref, const char *data)
{
	struct pair p = { s, NULL, data, NULL };
	struct ref_mix *t = NULL;
	struct convert_opts o;
	struct convert_run run;
	int err, rc;

	if (s->runs >= TRAIN_MAX_RUNS)
		return hbbp_exit_code(-HBBP_ELIMIT);
	err = train_truth__load(&t, ref);
	if (err)
		return err == -ENOMEM ? HBBP_EXIT_IO : hbbp_exit_code(err);
	p.t = t;
	rc = cli_convert__defaults(&o);
	if (rc) {
		ref_mix__delete(t);
		return rc;
	}
	o.input = data;
	rc = cli_compute(&run, &o);
	if (rc == HBBP_EXIT_OK) {
		s->total[s->runs] = t->total;
		err = convert__code_blocks(&run, add_block, &p);
		if (err) {
			pr_err("%s: %s", data, hbbp_strerror(err));
			rc = err == -ENOMEM ? HBBP_EXIT_IO : hbbp_exit_code(err);
		} else {
			s->runs++;
		}
	} else {
		pr_err("%s: conversion failed", data);
	}
	convert__run_exit(&run);
	ref_mix__delete(t);
	return rc;
}

/* The model into out (NULL or "-": stdout). */
static int write_model(const struct hbbp_model *m, const char *out)
{
	FILE *f = out && strcmp(out, "-") ? fopen(out, "w") : stdout;
	char text[1024];
	int err;

	if (!f) {
		pr_err("%s: %s", out, strerror(errno));
		return HBBP_EXIT_IO;
	}
	err = hbbp_model__text(m, text, sizeof(text));
	if (!err && (fputs(text, f) < 0 || fflush(f) || ferror(f)))
		err = -EIO;
	if (f != stdout && fclose(f) && !err)
		err = -EIO;
	if (err) {
		pr_err("%s: write error", out ? out : "stdout");
		return HBBP_EXIT_IO;
	}
	return HBBP_EXIT_OK;
}

int cmd_train(int argc, char **argv)
{
	double errors[TRAIN_MAX_CUTOFF + 1];
	struct cli_args a;
	struct train_set s;
	struct hbbp_model m;
	size_t i;
	int rc = cli_args__parse(&a, CLI_TRAIN, usage_text, argc, argv);

	train_set__init(&s);
	if (rc || a.done || (rc = cli_check_output("-o", a.output)))
		goto out;
	if (!a.refs.nr || a.nr_operands != a.refs.nr || a.refs.nr > TRAIN_MAX_RUNS) {
		pr_err("train: give one --ref per recording, at most %d (%zu references, %zu "
		       "recordings)", TRAIN_MAX_RUNS, a.refs.nr, a.nr_operands);
		rc = HBBP_EXIT_USAGE;
		goto out;
	}
	for (i = 0; i < a.refs.nr && rc == HBBP_EXIT_OK; i++)
		rc = train_pair(&s, a.refs.v[i], a.operands[i]);
	if (rc)
		goto out;
	train_set__learn(&s, &m, errors);
	for (i = 0; i <= TRAIN_MAX_CUTOFF && !a.quiet; i++)
		fprintf(stderr, "cutoff %2zu: weighted block error %.3f%%\n", i, errors[i]);
	rc = write_model(&m, a.output);
	if (rc == HBBP_EXIT_OK && !a.quiet)
		fprintf(stderr, "learned cutoff %u (error %.3f%%; %.3f%% at %d), %lu blocks, "
			"LBR closer on %lu\n", m.cutoff, m.error, m.error_default,
			HBBP_DEFAULT_CUTOFF, m.blocks, m.lbr_closer);
out:
	ref_decode__exit();	/* the modules the truths' offsets were read through */
	train_set__exit(&s);
	cli_args__exit(&a);
	return rc;
}
