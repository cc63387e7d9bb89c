/* refcmp: converts one recording twice and compares the block counts: through the engine (the
 * conversion of hbbp-convert, hbbp/engine/convert.h: lookup cache, stack cache and its queue,
 * sum queues, the file read in two parts with a bundle on a second thread, leaders on threads)
 * and through the plain reference accumulation (hbbp/method/reference.h: every record in time
 * order, every sample resolved and summed when it comes, in its own address-space session).
 * Every block (by module name, kind and start) must be in both with the same length, sample
 * and stream counts, source and bias flag, and the same sums, estimates and count within
 * 1e-12 relative (the order of the floating-point sums differs), and so must their sums
 * per batch and 95% intervals (method.md §10, both with the engine's batch slots) and the
 * sums with the plain LBR weight (§5b) within 1e-9 (summed without compensation), and each
 * block's sums over the batches equal its sums (the time weight in the batches too); so must the per-thread blocks, the rejected streams
 * per reason and the per-event counters.
 * usage: refcmp [--binary NAME=PATH]... [--symfs DIR] [--buildid-dir DIR] [--split BYTES]
 *               [-j N] [--method hbbp|ebs|lbr] [--threads] FILE
 * --threads: the engine keeps its sums per thread (as for a thread key or table); without,
 * as for the default CSV mix, the threads merged (struct hbbp_accum.per_thread); the
 * reference does the same.
 * Prints one line "blocks N, thread blocks M, max relative difference D" and exits 0 when
 * equal, 1 when not (each difference on stderr), 2 on a bad argument or a failed conversion.
 * Depends on hbbp/engine/convert.h, hbbp/engine/code_bbmap.h, hbbp/method/reference.h.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/engine/code_bbmap.h"
#include "hbbp/cli/options.h"
#include "hbbp/engine/convert.h"
#include "hbbp/method/reference.h"
#include "util/hbbp_err.h"

#define REL_TOL	1e-12
/* the sums per batch and with the plain LBR weight are kept without the compensated
 * summation of the others (hbbp_accum.compensated) */
#define REL_TOL_PLAIN	1e-9

/* a thread block's sums per batch (the block's when the sums are not per thread) */
static const struct hbbp_batch_sums *tblock_sums(const struct hbbp_counts *c, size_t i)
{
	return c->tblock_bs ? &c->tblock_bs[i] : &c->block_bs[c->tblocks[i].block];
}

struct side {
	const struct hbbp_code_ops *ops;
	const struct hbbp_counts *c;
	const struct hbbp_accum *a;
};

static double max_rel;
static unsigned long nr_diff;

static void differ(const char *what, const char *key)
{
	if (nr_diff++ < 20)
		fprintf(stderr, "refcmp: %s differs at %s\n", what, key);
}

static void cmp_real_tol(const char *what, const char *key, double e, double r, double tol)
{
	double m = fabs(e) > fabs(r) ? fabs(e) : fabs(r);
	double rel = m > 0 ? fabs(e - r) / m : 0;

	if (rel > max_rel)
		max_rel = rel;
	if (!(rel <= tol)) {
		differ(what, key);
		if (nr_diff <= 20)
			fprintf(stderr, "  engine %.17g reference %.17g\n", e, r);
	}
}

static void cmp_real(const char *what, const char *key, double e, double r)
{
	cmp_real_tol(what, key, e, r, REL_TOL);
}

/* Per batch (method.md §10): e and r summed over the batches in another order. */
static void cmp_bsum(const char *what, const char *key, const struct hbbp_bsum *e,
		     const struct hbbp_bsum *r)
{
	unsigned int i;

	for (i = 0; i < HBBP_BATCHES; i++)
		cmp_real_tol(what, key, e->b[i], r->b[i], REL_TOL_PLAIN);
}

/* The batches of a sum hold the sum (the time weight of §5b included): over them, sum. */
static void cmp_batches_sum(const char *what, const char *key, const struct hbbp_bsum *bs,
			    double sum)
{
	double t = 0;
	unsigned int i;

	for (i = 0; i < HBBP_BATCHES; i++)
		t += bs->b[i];
	cmp_real_tol(what, key, t, sum, REL_TOL_PLAIN);
}

/* An interval end near 0 (count - half) loses digits to the cancellation: compared relative
 * to the count it was computed from. */
static void cmp_end(const char *what, const char *key, double e, double r, double count)
{
	double m = fabs(count);

	if (m > 0 && fabs(e) < m && fabs(r) < m) {
		e = count + e;
		r = count + r;
	}
	cmp_real_tol(what, key, e, r, REL_TOL_PLAIN);
}

static void cmp_u64(const char *what, const char *key, uint64_t e, uint64_t r)
{
	if (e != r) {
		differ(what, key);
		if (nr_diff <= 20)
			fprintf(stderr, "  engine %llu reference %llu\n", (unsigned long long)e,
				(unsigned long long)r);
	}
}

static void block_key(const struct side *s, const struct hbbp_block *b, char *buf, size_t n)
{
	const char *name = b->dso ? s->ops->dso_name(s->ops->ctx, b->dso) : "[unmapped]";

	snprintf(buf, n, "%s:%d:0x%llx", name ? name : "?", (int)b->kind,
		 (unsigned long long)b->start);
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The keys of s's blocks (thread blocks when thr), "KEY\tINDEX", sorted. */
static char **side_keys(const struct side *s, bool thr, size_t *nr)
{
	size_t n = thr ? s->c->nr_tblocks : s->c->nr_blocks, i;
	char **v = calloc(n + 1, sizeof(*v));

	for (i = 0; v && i < n; i++) {
		char key[4096], line[4200];
		const struct hbbp_tblock *t = thr ? &s->c->tblocks[i] : NULL;
		const struct hbbp_block *b = &s->c->blocks[thr ? t->block : i];

		block_key(s, b, key, sizeof(key));
		if (thr)
			snprintf(line, sizeof(line), "%s:%u/%u\t%zu", key, t->pid, t->tid, i);
		else
			snprintf(line, sizeof(line), "%s\t%zu", key, i);
		v[i] = strdup(line);
		if (!v[i]) {
			fprintf(stderr, "refcmp: out of memory\n");
			exit(2);
		}
	}
	if (!v) {
		fprintf(stderr, "refcmp: out of memory\n");
		exit(2);
	}
	qsort(v, n, sizeof(*v), key_cmp);
	*nr = n;
	return v;
}

static size_t key_index(const char *k)
{
	return strtoul(strrchr(k, '\t') + 1, NULL, 10);
}

static void cmp_blocks(const struct side *e, const struct side *r, bool thr, size_t *count)
{
	size_t ne, nr, i, j;
	char **ke = side_keys(e, thr, &ne), **kr = side_keys(r, thr, &nr);

	for (i = j = 0; i < ne || j < nr;) {
		int c = i == ne ? 1 : j == nr ? -1 : strcmp(strtok(strdupa(ke[i]), "\t"),
							    strtok(strdupa(kr[j]), "\t"));
		const char *k;

		if (c) {
			differ(thr ? "thread block present on one side" : "block present on one side",
			       c < 0 ? ke[i] : kr[j]);
			c < 0 ? i++ : j++;
			continue;
		}
		k = ke[i];
		if (thr) {
			const struct hbbp_tblock *a = &e->c->tblocks[key_index(ke[i])];
			const struct hbbp_tblock *b = &r->c->tblocks[key_index(kr[j])];
			const struct hbbp_batch_sums *as = tblock_sums(e->c, key_index(ke[i]));
			const struct hbbp_batch_sums *bs = tblock_sums(r->c, key_index(kr[j]));

			cmp_u64("thread ebs_samples", k, a->ebs_samples, b->ebs_samples);
			cmp_u64("thread lbr_streams", k, a->lbr_streams, b->lbr_streams);
			cmp_real("thread ebs_sum", k, a->ebs_sum, b->ebs_sum);
			cmp_real("thread lbr_sum", k, a->lbr_sum, b->lbr_sum);
			cmp_real("thread count", k, a->count, b->count);
			cmp_real_tol("thread lbr_sum_plain", k, a->lbr_sum_plain, b->lbr_sum_plain,
				     REL_TOL_PLAIN);
			cmp_bsum("thread ebs batch", k, &as->ebs, &bs->ebs);
			cmp_bsum("thread lbr batch", k, &as->lbr, &bs->lbr);
			cmp_bsum("thread count batch", k, &a->count_bs, &b->count_bs);
			cmp_end("thread count_lo", k, a->count_lo, b->count_lo, a->count);
			cmp_end("thread count_hi", k, a->count_hi, b->count_hi, a->count);
		} else {
			const struct hbbp_block *a = &e->c->blocks[key_index(ke[i])];
			const struct hbbp_block *b = &r->c->blocks[key_index(kr[j])];
			const struct hbbp_batch_sums *as = &e->c->block_bs[key_index(ke[i])];
			const struct hbbp_batch_sums *bs = &r->c->block_bs[key_index(kr[j])];

			cmp_u64("end", k, a->end, b->end);
			cmp_u64("nr_insns", k, a->nr_insns, b->nr_insns);
			cmp_u64("ebs_samples", k, a->ebs_samples, b->ebs_samples);
			cmp_u64("lbr_streams", k, a->lbr_streams, b->lbr_streams);
			cmp_u64("source", k, a->source, b->source);
			cmp_u64("biased", k, a->biased, b->biased);
			cmp_real("bias_share", k, a->bias_share, b->bias_share);
			cmp_real("ebs_sum", k, a->ebs_sum, b->ebs_sum);
			cmp_real("lbr_sum", k, a->lbr_sum, b->lbr_sum);
			cmp_real("ebs_est", k, a->ebs_est, b->ebs_est);
			cmp_real("lbr_est", k, a->lbr_est, b->lbr_est);
			cmp_real("count", k, a->count, b->count);
			cmp_real_tol("lbr_sum_plain", k, a->lbr_sum_plain, b->lbr_sum_plain,
				     REL_TOL_PLAIN);
			cmp_bsum("ebs batch", k, &as->ebs, &bs->ebs);
			cmp_bsum("lbr batch", k, &as->lbr, &bs->lbr);
			cmp_batches_sum("engine ebs batches vs ebs_sum", k, &as->ebs, a->ebs_sum);
			cmp_batches_sum("engine lbr batches vs lbr_sum", k, &as->lbr, a->lbr_sum);
			cmp_batches_sum("reference lbr batches vs lbr_sum", k, &bs->lbr, b->lbr_sum);
			cmp_end("count_lo", k, a->count_lo, b->count_lo, a->count);
			cmp_end("count_hi", k, a->count_hi, b->count_hi, a->count);
		}
		i++;
		j++;
	}
	for (i = 0; i < ne; i++)
		free(ke[i]);
	for (j = 0; j < nr; j++)
		free(kr[j]);
	free(ke);
	free(kr);
	*count = ne;
}

static void cmp_accum(const struct hbbp_accum *e, const struct hbbp_accum *r)
{
	size_t i;

	cmp_u64("samples", "recording", e->nr_samples, r->nr_samples);
	cmp_u64("unused samples", "recording", e->nr_unused_samples, r->nr_unused_samples);
	for (i = 0; i < REJ__COUNT; i++) {
		cmp_u64("rejected streams", hbbp_reject_name(i), e->rejected[i], r->rejected[i]);
		cmp_real("rejected weight", hbbp_reject_name(i), e->rejected_weight[i],
			 r->rejected_weight[i]);
	}
	for (i = 0; i < e->nr_events && i < r->nr_events; i++) {
		const struct hbbp_event_state *a = &e->ev[i], *b = &r->ev[i];
		char k[32];

		snprintf(k, sizeof(k), "event %zu", i);
		cmp_u64("event samples", k, a->samples, b->samples);
		cmp_u64("event samples used", k, a->samples_used, b->samples_used);
		cmp_u64("event short stacks", k, a->stacks_short, b->stacks_short);
		cmp_u64("event streams", k, a->streams, b->streams);
		cmp_real("event stream weight", k, a->stream_weight, b->stream_weight);
		cmp_real("event scale", k, a->scale, b->scale);
		cmp_real_tol("event stream weight plain", k, a->stream_weight_plain,
			     b->stream_weight_plain, REL_TOL_PLAIN);
		cmp_bsum("event batch", k, &a->bs, &b->bs);
	}
}

/* The reference: its own reader (time order), session and accumulators. */
static int reference_run(const struct convert_opts *o, enum hbbp_method method,
			 const struct hbbp_lbr_time *lbr_time, unsigned int batch_slot,
			 bool per_thread, struct bbmap_session **sess, struct hbbp_code_ops *ops,
			 struct hbbp_accum *a, struct hbbp_counts *c, struct perf_reader **rd)
{
	struct perf_reader_opts ro;
	const struct perf_event_info **ev;
	struct hbbp_event_role *roles;
	char msgbuf[512];
	const struct perf_record *rec;
	const char *msg = NULL;
	size_t i, n;
	int err, ret;

	memset(&ro, 0, sizeof(ro));
	err = perf_reader__open(rd, o->input, &ro, &msg);
	if (err) {
		fprintf(stderr, "refcmp: %s\n", msg ? msg : hbbp_strerror(err));
		return err;
	}
	err = convert__new_session(sess, *rd, o);
	if (err)
		return err;
	hbbp_code_bbmap__init(ops, *sess);
	n = perf_reader__nr_events(*rd);
	ev = calloc(n + 1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		ev[i] = perf_reader__event(*rd, i);
	roles = calloc(n + 1, sizeof(*roles));
	err = roles ? hbbp_roles__assign(*rd, o->ebs_event, o->lbr_event, roles, msgbuf,
					 sizeof(msgbuf)) : -ENOMEM;
	if (!err)
		err = hbbp_accum__init(a, ops, ev, roles, n);
	free(ev);
	free(roles);
	if (err)
		return err;
	a->compensated = true;
	a->lbr_time = lbr_time;	/* the engine's stream durations (method.md §5b), or NULL */
	a->batch_slot = batch_slot;	/* the engine's batch slots (method.md §10) */
	a->per_thread = per_thread;	/* the engine's sums per thread, or merged */
	while ((ret = perf_reader__next(*rd, &rec)) > 0) {
		err = hbbp_reference__record(a, rec);
		if (err)
			return err;
	}
	if (ret < 0) {
		fprintf(stderr, "refcmp: %s\n", perf_reader__errmsg(*rd));
		return ret;
	}
	hbbp_reference__finish(a);
	return hbbp_counts__compute(c, a, method, o->cutoff);
}

static int usage(void)
{
	fprintf(stderr, "usage: refcmp [--binary NAME=PATH]... [--symfs DIR] [--buildid-dir DIR] "
		"[--split BYTES] [-j N] [--method hbbp|ebs|lbr] [--threads] FILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "binary", required_argument, NULL, 'b' },
		{ "symfs", required_argument, NULL, 's' },
		{ "buildid-dir", required_argument, NULL, 'd' },
		{ "split", required_argument, NULL, 'S' },
		{ "method", required_argument, NULL, 'm' },
		{ "threads", no_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct bbmap_binary_override bins[16];
	struct convert_opts o;
	struct convert_run run;
	struct bbmap_session *sess = NULL;
	struct perf_reader *rd = NULL;
	struct hbbp_code_ops ops;
	struct hbbp_accum acc;
	struct hbbp_counts cnt;
	struct side se, sr;
	size_t nb = 0, nt = 0;
	int opt, rc, err;

	if (cli_convert__defaults(&o))
		return 2;
	o.split_min = 1;	/* any file eligible is read in two parts */
	o.jobs = 2;
	while ((opt = getopt_long(argc, argv, "j:", lo, NULL)) != -1) {
		switch (opt) {
		case 'b': {
			char *eq = strchr(optarg, '=');

			if (!eq || nb == 16)
				return usage();
			*eq = 0;
			bins[nb].name = optarg;
			bins[nb].path = eq + 1;
			nb++;
			break;
		}
		case 's': o.find.symfs = optarg; break;
		case 'd': o.find.buildid_dir = optarg; break;
		case 'S': o.split_min = strtoull(optarg, NULL, 0); break;
		case 'j': o.jobs = (unsigned)strtoul(optarg, NULL, 0); break;
		case 't': o.all_tables = true; break;	/* thread_blocks: sums per thread */
		case 'm':
			o.method = !strcmp(optarg, "ebs") ? HBBP_METHOD_EBS :
				   !strcmp(optarg, "lbr") ? HBBP_METHOD_LBR : HBBP_METHOD_HBBP;
			break;
		default:
			return usage();
		}
	}
	if (optind + 1 != argc)
		return usage();
	o.input = argv[optind];
	o.find.binaries = bins;
	o.find.nr_binaries = nb;
	o.keep_batch_sums = true;
	if (o.jobs > 1)
		bbmap_module__threads_init();
	rc = convert__compute(&run, &o);
	if (rc) {
		fprintf(stderr, "refcmp: %s: the conversion failed\n", o.input);
		convert__run_exit(&run);
		return 2;
	}
	memset(&cnt, 0, sizeof(cnt));
	memset(&acc, 0, sizeof(acc));
	err = reference_run(&o, run.method, run.drv.acc.lbr_time,
			    run.drv.acc.batch_slot, run.drv.acc.per_thread, &sess, &ops, &acc, &cnt,
			    &rd);
	if (err) {
		fprintf(stderr, "refcmp: %s: the reference failed: %s\n", o.input,
			hbbp_strerror(err));
		rc = 2;
		goto out;
	}
	se = (struct side){ &run.ops, &run.counts, &run.drv.acc };
	sr = (struct side){ &ops, &cnt, &acc };
	cmp_blocks(&se, &sr, false, &nb);
	cmp_blocks(&se, &sr, true, &nt);
	cmp_accum(se.a, sr.a);
	printf("%s: engine read %llu of %llu samples apart, blocks %zu, thread blocks %zu (%s), "
	       "max relative difference %.3g%s\n", o.input,
	       (unsigned long long)run.part_samples, (unsigned long long)acc.nr_samples, nb, nt,
	       run.drv.acc.per_thread ? "per thread" : "threads merged", max_rel,
	       nr_diff ? ", DIFFERENT" : "");
	rc = nr_diff ? 1 : 0;
out:
	hbbp_counts__exit(&cnt);
	hbbp_accum__exit(&acc);
	bbmap_session__delete(sess);
	perf_reader__delete(rd);
	convert__run_exit(&run);
	return rc;
}
