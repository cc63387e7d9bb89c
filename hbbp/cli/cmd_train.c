/* hbbp-convert train --ref TRUTH_INSNS [--ref ...] [-o MODEL] PERF_DATA...: learns the hybrid
 * rule's cutoff (HBBP paper §IV.B, method.md §6) from reference runs. For each (reference,
 * recording) pair, in order, the recording is converted in this process as 'hbbp-convert
 * PERF_DATA' would (hbbp/engine/convert.h) and every code block's EBS and LBR estimates are
 * taken from the attribution; the reference is a pmusim --truth-insns CSV
 * (module,offset,address,count,mnemonic), whose count at a block's first instruction (its file
 * offset through bbmap's load bias, bbmap_module__vaddr_to_offset) is the block's exact count
 * (modules matched by the base name of their recorded path). The learning itself is
 * hbbp/train/learn.c; this file handles the arguments and the model file.
 * Depends on hbbp/engine/convert.h, hbbp/train/learn.h and bbmap/module.h.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module.h"
#include "hbbp/cli/commands.h"
#include "hbbp/engine/convert.h"
#include "hbbp/train/learn.h"
#include "util/hbbp_err.h"

/* The code blocks of one converted run, with their exact counts from t, into s. */
static int train_blocks(struct train_set *s, const struct convert_run *run,
			const struct train_truth *t, const char *data)
{
	const struct hbbp_code_ops *ops = &run->ops;
	const struct bbmap_dso *warned = NULL;
	size_t i;
	int err;

	for (i = 0; i < run->counts.nr_blocks; i++) {
		const struct hbbp_block *b = &run->counts.blocks[i];
		const char *path, *name;
		struct train_block tb;
		uint64_t off;

		if (b->kind != HBBP_BLK_CODE || !b->nr_insns)
			continue;
		path = ops->dso_path(ops->ctx, b->dso);
		name = ops->dso_name(ops->ctx, b->dso);
		if (!path || !name)
			continue;
		if (bbmap_module__vaddr_to_offset(b->mod, b->start, &off)) {
			if (warned != b->dso)
				pr_warn("%s: block 0x%llx of %s is in no loadable segment (skipped)",
					data, (unsigned long long)b->start, path);
			warned = b->dso;
			continue;
		}
		tb.run = s->runs;
		tb.len = b->nr_insns;
		tb.ebs = b->ebs_est;
		tb.lbr = b->lbr_est;
		tb.has_e = b->ebs_samples > 0;
		tb.has_l = b->lbr_streams > 0;
		tb.exact = train_truth__count(t, name, off);
		err = train_set__add(s, &tb);
		if (err)
			return err;
	}
	return 0;
}

/* One (reference, recording) pair: returns an exit code. */
static int train_pair(struct train_set *s, const char *ref, const char *data)
{
	struct train_truth *t = NULL;
	struct convert_opts o;
	struct convert_run run;
	int err, rc;

	if (s->runs >= TRAIN_MAX_RUNS)
		return hbbp_exit_code(-HBBP_ELIMIT);
	err = train_truth__load(&t, ref);
	if (err)
		return err == -ENOMEM ? HBBP_EXIT_IO : hbbp_exit_code(err);
	err = convert_opts__init(&o);
	if (err) {
		train_truth__delete(t);
		return HBBP_EXIT_IO;
	}
	o.input = data;
	o.quiet = true;
	rc = convert__compute(&run, &o);
	if (rc == HBBP_EXIT_OK) {
		s->total[s->runs] = train_truth__total(t);
		err = train_blocks(s, &run, t, data);
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
	train_truth__delete(t);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: hbbp-convert train --ref TRUTH_INSNS.csv [--ref ...] [-o MODEL] PERF_DATA...\n"
"Learns the hybrid rule's cutoff from reference runs: the i-th --ref (pmusim --truth-insns\n"
"CSV) is the exact per-instruction count of the i-th recording. Writes the model file\n"
"(default stdout) that 'hbbp-convert --model MODEL' applies; prints the error per cutoff\n"
"on stderr unless -q.\n");
}

int cmd_train(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "ref", required_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *refs[TRAIN_MAX_RUNS], *out = NULL;
	unsigned nref = 0;
	struct train_set s;
	struct hbbp_model m;
	int opt, quiet = 0, rc = HBBP_EXIT_OK, err, i;
	FILE *f;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":o:qh", lo, NULL)) != -1) {
		switch (opt) {
		case 'r':
			if (nref >= TRAIN_MAX_RUNS) {
				pr_err("train: more than %d references", TRAIN_MAX_RUNS);
				return HBBP_EXIT_USAGE;
			}
			refs[nref++] = optarg;
			break;
		case 'o': out = optarg; break;
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return HBBP_EXIT_OK;
		default:
			pr_err("train: bad option '%s'", argv[optind - 1]);
			usage(stderr);
			return HBBP_EXIT_USAGE;
		}
	}
	if (!nref || (unsigned)(argc - optind) != nref) {
		pr_err("train: give one --ref per recording (%u references, %d recordings)", nref,
		       argc - optind);
		usage(stderr);
		return HBBP_EXIT_USAGE;
	}
	train_set__init(&s);
	for (i = 0; i < (int)nref; i++) {
		rc = train_pair(&s, refs[i], argv[optind + i]);
		if (rc != HBBP_EXIT_OK)
			goto out;
	}
	train_set__learn(&s, &m, quiet ? NULL : stderr);
	f = out && strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f) {
		pr_err("%s: %s", out, strerror(errno));
		rc = HBBP_EXIT_IO;
		goto out;
	}
	err = hbbp_model__write(f, &m);
	if (f != stdout && fclose(f) && !err)
		err = -EIO;
	if (err) {
		pr_err("%s: write error", out ? out : "stdout");
		rc = HBBP_EXIT_IO;
	} else if (!quiet) {
		fprintf(stderr, "learned cutoff %u (error %.3f%%; %.3f%% at %d), %lu blocks, "
			"LBR closer on %lu\n", m.cutoff, m.error, m.error_default,
			HBBP_DEFAULT_CUTOFF, m.blocks, m.lbr_closer);
	}
out:
	train_set__exit(&s);
	return rc;
}
