/* methoddump: converts one recording through the engine, as hbbp-convert does
 * (hbbp/engine/convert.h), and prints its counts in the lines of tests/tools/refmethod: B
 * (block), T (thread block, with --threads), E (event), R (rejected streams by reason), N and
 * F (totals), every real to 17 digits. tests/cli/method_cmp.awk compares them with the
 * independent reference's.
 * usage: methoddump [--binary NAME=PATH]... [--symfs DIR] [--buildid-dir DIR]
 *                   [--method hbbp|ebs|lbr] [--cutoff N] [--lbr-weighting auto|plain|time]
 *                   [--threads | --by-process] FILE
 * --threads: the engine keeps its sums per thread (as for a thread key or table) and prints
 * them; without, as for the default mix, the threads merged. --by-process: per thread as for
 * a thread key in the mix alone, the thread blocks made a process at a time
 * (hbbp_counts__each_process) and printed as they come.
 * Exit 0, or 2 on a bad argument or a failed conversion.
 * Depends on hbbp/engine/convert.h.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/cli/options.h"
#include "hbbp/engine/convert.h"
#include "util/hbbp_err.h"

static const char *const kind_name[] = { "code", "nocode", "undecoded", "unmapped" };

static const char *dso_name(const struct convert_run *run, struct bbmap_dso *dso)
{
	const char *n = dso ? run->ops.dso_name(run->ops.ctx, dso) : NULL;

	return dso ? (n ? n : "?") : "[unmapped]";
}

static void print_batches(const struct hbbp_bsum *bs)
{
	unsigned int i;

	for (i = 0; i < HBBP_BATCHES; i++)
		printf("\t%.17g", bs->b[i]);
}

static const char *source(enum hbbp_source s)
{
	return s == HBBP_SRC_NONE ? "-" : hbbp_source_name(s);
}

static void print_tblock(const struct convert_run *run, const struct hbbp_tblock *t,
			 const struct hbbp_batch_sums *bs)
{
	const struct hbbp_block *b = &run->counts.blocks[t->block];

	printf("T\t%s\t%s\t%#llx\t%u\t%u\t%llu\t%llu", dso_name(run, b->dso),
	       kind_name[b->kind], (unsigned long long)b->start, t->pid, t->tid,
	       (unsigned long long)t->ebs_samples, (unsigned long long)t->lbr_streams);
	printf("\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g", t->ebs_sum,
	       t->lbr_sum, t->lbr_sum_plain, t->ebs_est, t->lbr_est, t->count, t->count_lo,
	       t->count_hi);
	print_batches(&bs->ebs);
	print_batches(&bs->lbr);
	printf("\n");
}

/* hbbp_counts__each_process's: one process's thread blocks */
static int print_process(void *ctx, size_t first, const struct hbbp_tblock *t,
			 const struct hbbp_batch_sums *bs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		print_tblock(ctx, &t[i], &bs[i]);
	return 0;
}

static void print_blocks(const struct convert_run *run, bool threads)
{
	const struct hbbp_counts *c = &run->counts;
	size_t i;

	for (i = 0; i < c->nr_blocks; i++) {
		const struct hbbp_block *b = &c->blocks[i];

		printf("B\t%s\t%s\t%#llx\t%#llx\t%u\t%llu\t%llu\t%s\t%d", dso_name(run, b->dso),
		       kind_name[b->kind], (unsigned long long)b->start, (unsigned long long)b->end,
		       b->nr_insns, (unsigned long long)b->ebs_samples,
		       (unsigned long long)b->lbr_streams, source(b->source), b->biased);
		printf("\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g", b->ebs_sum,
		       b->lbr_sum, b->lbr_sum_plain, b->ebs_est, b->lbr_est, b->count, b->bias_share,
		       b->count_lo, b->count_hi);
		print_batches(&c->block_bs[i].ebs);
		print_batches(&c->block_bs[i].lbr);
		printf("\n");
	}
	for (i = 0; threads && !c->by_process && i < c->nr_tblocks; i++) {
		struct hbbp_tblock tmp;

		print_tblock(run, hbbp_counts__tblock(c, i, &tmp),
			     c->tblocks ? &c->tblock_bs[i] : &c->block_bs[i]);
	}
}

static void print_totals(const struct convert_run *run)
{
	const struct hbbp_accum *a = &run->drv.acc;
	size_t i;

	for (i = 0; i < a->nr_events; i++) {
		const struct hbbp_event_state *e = &a->ev[i];

		printf("E\t%zu\t%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu", i,
		       hbbp_role_name(e->role), (unsigned long long)e->samples,
		       (unsigned long long)e->samples_used, (unsigned long long)e->stacks_short,
		       (unsigned long long)e->zero_entries, (unsigned long long)e->streams,
		       (unsigned long long)e->lbr_time_stacks,
		       (unsigned long long)e->lbr_time_fallback,
		       (unsigned long long)e->lbr_time_by_ip);
		printf("\t%.17g\t%.17g\t%.17g", e->stream_weight, e->stream_weight_plain, e->scale);
		print_batches(&e->bs);
		printf("\n");
	}
	for (i = 0; i < REJ__COUNT; i++)
		printf("R\t%s\t%llu\t%.17g\n", hbbp_reject_name(i),
		       (unsigned long long)a->rejected[i], a->rejected_weight[i]);
	printf("N\tsamples\t%llu\nN\tunused\t%llu\nN\tbiased_branches\t%llu\n",
	       (unsigned long long)a->nr_samples, (unsigned long long)a->nr_unused_samples,
	       (unsigned long long)run->counts.nr_biased_branches);
	printf("F\tebs_weight_attributed\t%.17g\nF\tlbr_weight_attributed\t%.17g\n",
	       run->counts.ebs_weight_attributed, run->counts.lbr_weight_attributed);
}

static int usage(void)
{
	fprintf(stderr, "usage: methoddump [--binary NAME=PATH]... [--symfs DIR] [--buildid-dir DIR] "
		"[--method hbbp|ebs|lbr] [--cutoff N] [--lbr-weighting auto|plain|time] "
		"[--threads | --by-process] FILE\n");
	return 2;
}

static int parse_args(struct convert_opts *o, struct bbmap_binary_override *bins, int argc,
		      char **argv)
{
	static const struct option lo[] = {
		{ "binary", required_argument, NULL, 'b' },
		{ "symfs", required_argument, NULL, 's' },
		{ "buildid-dir", required_argument, NULL, 'd' },
		{ "method", required_argument, NULL, 'm' },
		{ "cutoff", required_argument, NULL, 'c' },
		{ "lbr-weighting", required_argument, NULL, 'w' },
		{ "threads", no_argument, NULL, 't' },
		{ "by-process", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	char err[256];
	int opt;

	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		char *eq = opt == 'b' ? strchr(optarg, '=') : NULL;

		switch (opt) {
		case 'b':
			if (!eq || o->find.nr_binaries == 32)
				return -1;
			*eq = 0;
			bins[o->find.nr_binaries].name = optarg;
			bins[o->find.nr_binaries++].path = eq + 1;
			break;
		case 's': o->find.symfs = optarg; break;
		case 'd': o->find.buildid_dir = optarg; break;
		case 'c': o->cutoff = (unsigned)strtoul(optarg, NULL, 0); break;
		case 't': o->all_tables = true; break;	/* thread_blocks: sums per thread */
		case 'p':	/* a thread key in the mix alone */
			if (hbbp_mix__parse_keys(&o->mix, "pid", NULL, err, sizeof(err)))
				return -1;
			break;
		case 'm':
			o->method = !strcmp(optarg, "ebs") ? HBBP_METHOD_EBS :
				    !strcmp(optarg, "lbr") ? HBBP_METHOD_LBR : HBBP_METHOD_HBBP;
			break;
		case 'w':
			o->lbr_weighting = !strcmp(optarg, "plain") ? HBBP_LBR_WEIGHT_PLAIN :
					   !strcmp(optarg, "time") ? HBBP_LBR_WEIGHT_TIME :
					   HBBP_LBR_WEIGHT_AUTO;
			break;
		default:
			return -1;
		}
	}
	if (optind + 1 != argc)
		return -1;
	o->input = argv[optind];
	return 0;
}

int main(int argc, char **argv)
{
	static struct bbmap_binary_override bins[32];
	struct convert_opts o;
	struct convert_run run;
	int rc;

	if (cli_convert__defaults(&o))
		return 2;
	if (parse_args(&o, bins, argc, argv))
		return usage();
	o.find.binaries = bins;
	o.keep_batch_sums = true;
	hbbp_log_set(NULL, NULL, HBBP_LOG_ERROR);
	rc = convert__compute(&run, &o);
	if (rc == HBBP_EXIT_OK) {
		print_blocks(&run, run.drv.per_thread);
		if (run.counts.by_process &&
		    hbbp_counts__each_process(&run.counts, &run.drv.acc, print_process, &run))
			rc = HBBP_EXIT_INPUT;
		print_totals(&run);
	} else {
		fprintf(stderr, "methoddump: %s: the conversion failed\n", o.input);
	}
	convert__run_exit(&run);
	return rc == HBBP_EXIT_OK ? 0 : 2;
}
