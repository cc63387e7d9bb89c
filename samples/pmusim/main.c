/* pmusim: runs a program under qemu-x86_64, reconstructs its exact instruction and
 * taken-branch streams, simulates an Intel PMU sampling them (EBS + LBR, with hardware effects
 * as parameters) and writes a perf.data plus the exact counts. Command line and orchestration
 * only; see samples/pmusim/README.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "samples/pmusim/pmusim.h"
#include "samples/pmusim/record.h"
#include "util/hbbp_err.h"

static void sim_log_stderr(enum hbbp_log_level level, const char *msg, void *ctx)
{
	fprintf(stderr, "pmusim: %s%s\n", level == HBBP_LOG_ERROR ? "error: " :
		level == HBBP_LOG_WARN ? "warning: " : "", msg);
}

static void sim_usage(FILE *f)
{
	fprintf(f,
"usage: pmusim [options] -o OUT.data [--truth MIX.csv] -- PROGRAM [ARGS...]\n"
"  --ebs-period N       instructions-retired sampling period (default 1000037)\n"
"  --lbr-period N       LBR event sampling period (default 100003)\n"
"  --lbr-event taken|cycles  the LBR event: taken branches (default) or core cycles of\n"
"                       the timing model (stacks every N cycles, as perf record -b -e cycles)\n"
"  --no-lbr-cycles      branch entries without cycle counts (as before Skylake)\n"
"  --mem-latency N      cycles of a pointer-chasing load (default 5, an L1 hit)\n"
"  --clock-hz N         core clock of the timing model: sample times are 1 s plus\n"
"                       cycles / N (default 1000000000)\n"
"  --throttle-rate N    the kernel's perf_event_max_sample_rate: an event with more than\n"
"                       ceil(N / HZ) interrupts in a tick is throttled until the next tick\n"
"                       (THROTTLE/UNTHROTTLE records; default 0: no throttling)\n"
"  --hz N               the kernel's tick rate, CONFIG_HZ (default 250)\n"
"  --lbr-depth N        LBR entries per stack, 2..32 (default 32)\n"
"  --effects none|realistic   hardware effects preset (default none)\n"
"  --seed N             random seed (default 1)\n"
"  --skid-mean X        EBS skid: geometric, mean X instructions\n"
"  --group-prob X       P(EBS sample goes to the first instruction of the next retirement\n"
"                       group: up to --group-width instructions, ended by a taken branch)\n"
"  --group-width N      instructions retired per cycle (default 4)\n"
"  --shadow-prob X      P(sample on a long-latency insn moves to the next one)\n"
"  --rand-bits N        period randomisation: low N bits of each period at random\n"
"  --freeze-mean X      LBR freeze skid: geometric, mean X taken branches\n"
"  --freeze-insns-mean X  LBR PMI latency: the stack freezes k instructions after the\n"
"                       overflow (after any freeze skid), k geometric with mean X\n"
"  --bias-frac X        share of branch sites prone to the entry-slot bias\n"
"  --bias-prob X        P(capture delayed so such a branch is the oldest entry)\n"
"  -o FILE              perf.data to write\n"
"  --truth FILE         exact instruction mix, CSV mnemonic,count\n"
"  --truth-insns FILE   exact per-instruction counts, CSV module,offset,address,count,mnemonic\n"
"  --truth-cycles       both truth files gain a last column cycles: the cycles of the\n"
"                       timing model each row accounts for\n"
"  --qemu PATH          qemu-x86_64 binary (default qemu-x86_64)\n"
"  --cpu MODEL          qemu -cpu model (default max)\n"
"  --log-copy FILE      keep a copy of the raw qemu log (debugging; can be huge)\n"
"  -v                   print trace and PMU statistics\n");
}

static int sim_parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-')
		return -1;
	*v = x;
	return 0;
}

static int sim_parse_dbl(const char *s, double *v)
{
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	if (errno || end == s || *end || x < 0)
		return -1;
	*v = x;
	return 0;
}

/* Resolves PROGRAM like execvp would; returns a malloc'd path or NULL. */
static char *sim_resolve(const char *prog)
{
	if (strchr(prog, '/'))
		return realpath(prog, NULL);
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	char buf[PATH_MAX];
	while (*path) {
		const char *c = strchr(path, ':');
		size_t n = c ? (size_t)(c - path) : strlen(path);
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
		if (!access(buf, X_OK))
			return realpath(buf, NULL);
		path += n + (c ? 1 : 0);
	}
	return NULL;
}

enum {
	OPT_EBS = 256, OPT_LBR, OPT_DEPTH, OPT_EFFECTS, OPT_SEED, OPT_TRUTH, OPT_TRUTH_INSNS,
	OPT_QEMU, OPT_CPU, OPT_LOG_COPY, OPT_SKID, OPT_SHADOW, OPT_RAND, OPT_FREEZE,
	OPT_BIAS_FRAC, OPT_BIAS_PROB, OPT_FREEZE_INSNS, OPT_GROUP_PROB, OPT_GROUP_WIDTH, OPT_HELP,
	OPT_LBR_EVENT, OPT_NO_LBR_CYCLES, OPT_MEM_LATENCY, OPT_CLOCK_HZ, OPT_THROTTLE_RATE, OPT_HZ,
	OPT_TRUTH_CYCLES,
};

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "ebs-period", required_argument, NULL, OPT_EBS },
		{ "lbr-period", required_argument, NULL, OPT_LBR },
		{ "lbr-depth", required_argument, NULL, OPT_DEPTH },
		{ "effects", required_argument, NULL, OPT_EFFECTS },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "truth", required_argument, NULL, OPT_TRUTH },
		{ "truth-insns", required_argument, NULL, OPT_TRUTH_INSNS },
		{ "qemu", required_argument, NULL, OPT_QEMU },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "log-copy", required_argument, NULL, OPT_LOG_COPY },
		{ "skid-mean", required_argument, NULL, OPT_SKID },
		{ "shadow-prob", required_argument, NULL, OPT_SHADOW },
		{ "rand-bits", required_argument, NULL, OPT_RAND },
		{ "freeze-mean", required_argument, NULL, OPT_FREEZE },
		{ "freeze-insns-mean", required_argument, NULL, OPT_FREEZE_INSNS },
		{ "group-prob", required_argument, NULL, OPT_GROUP_PROB },
		{ "group-width", required_argument, NULL, OPT_GROUP_WIDTH },
		{ "bias-frac", required_argument, NULL, OPT_BIAS_FRAC },
		{ "bias-prob", required_argument, NULL, OPT_BIAS_PROB },
		{ "lbr-event", required_argument, NULL, OPT_LBR_EVENT },
		{ "no-lbr-cycles", no_argument, NULL, OPT_NO_LBR_CYCLES },
		{ "mem-latency", required_argument, NULL, OPT_MEM_LATENCY },
		{ "clock-hz", required_argument, NULL, OPT_CLOCK_HZ },
		{ "throttle-rate", required_argument, NULL, OPT_THROTTLE_RATE },
		{ "hz", required_argument, NULL, OPT_HZ },
		{ "truth-cycles", no_argument, NULL, OPT_TRUTH_CYCLES },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	struct sim_pmu_opts po = { .ebs_period = 1000037, .lbr_period = 100003, .lbr_depth = 32,
				   .seed = 1 };
	/* per-effect overrides, applied after the preset; negative = not given */
	double skid = -1, shadow = -1, freeze = -1, freeze_insns = -1, bfrac = -1, bprob = -1;
	double gprob = -1;
	int64_t gwidth = -1;
	int64_t rbits = -1;
	const char *effects = "none", *out = NULL, *truth = NULL, *truth_insns = NULL;
	struct sim_run_opts ro = { .qemu = "qemu-x86_64", .cpu = "max" };
	bool verbose = false, truth_cycles = false;
	int c, err;
	uint64_t v;
	double d;

	hbbp_log_set(sim_log_stderr, NULL, HBBP_LOG_INFO);
	while ((c = getopt_long(argc, argv, "+o:vh", lo, NULL)) != -1) {
		switch (c) {
		case OPT_EBS: case OPT_LBR: case OPT_DEPTH: case OPT_SEED: case OPT_RAND:
		case OPT_GROUP_WIDTH:
			if (sim_parse_u64(optarg, &v) || (c != OPT_SEED && c != OPT_RAND && !v) ||
			    (c == OPT_GROUP_WIDTH && v > 64)) {
				fprintf(stderr, "pmusim: bad number '%s'\n", optarg);
				return HBBP_EXIT_USAGE;
			}
			if (c == OPT_EBS)
				po.ebs_period = v;
			else if (c == OPT_LBR)
				po.lbr_period = v;
			else if (c == OPT_DEPTH)
				po.lbr_depth = (unsigned)(v > 64 ? 0 : v);
			else if (c == OPT_SEED)
				po.seed = v;
			else if (c == OPT_GROUP_WIDTH)
				gwidth = (int64_t)v;
			else
				rbits = (int64_t)(v > 62 ? 62 : v);
			break;
		case OPT_SKID: case OPT_SHADOW: case OPT_FREEZE: case OPT_BIAS_FRAC:
		case OPT_BIAS_PROB: case OPT_FREEZE_INSNS: case OPT_GROUP_PROB:
			if (sim_parse_dbl(optarg, &d) ||
			    ((c == OPT_SHADOW || c == OPT_BIAS_FRAC || c == OPT_BIAS_PROB ||
			      c == OPT_GROUP_PROB) && d > 1)) {
				fprintf(stderr, "pmusim: bad value '%s'\n", optarg);
				return HBBP_EXIT_USAGE;
			}
			if (c == OPT_SKID) skid = d;
			else if (c == OPT_SHADOW) shadow = d;
			else if (c == OPT_FREEZE) freeze = d;
			else if (c == OPT_FREEZE_INSNS) freeze_insns = d;
			else if (c == OPT_GROUP_PROB) gprob = d;
			else if (c == OPT_BIAS_FRAC) bfrac = d;
			else bprob = d;
			break;
		case OPT_LBR_EVENT:
			if (!strcmp(optarg, "cycles"))
				po.lbr_event = SIM_LBR_CYCLES;
			else if (!strcmp(optarg, "taken"))
				po.lbr_event = SIM_LBR_TAKEN;
			else {
				fprintf(stderr, "pmusim: --lbr-event must be taken or cycles\n");
				return HBBP_EXIT_USAGE;
			}
			break;
		case OPT_NO_LBR_CYCLES: po.no_lbr_cycles = true; break;
		case OPT_MEM_LATENCY:
			if (sim_parse_u64(optarg, &v) || !v || v > 16383) {
				fprintf(stderr, "pmusim: --mem-latency must be 1..16383 cycles\n");
				return HBBP_EXIT_USAGE;
			}
			po.mem_latency = (unsigned)v;
			break;
		case OPT_CLOCK_HZ:
			if (sim_parse_u64(optarg, &v) || v < 1000 || v > 10000000000ULL) {
				fprintf(stderr, "pmusim: --clock-hz must be 1000..10000000000\n");
				return HBBP_EXIT_USAGE;
			}
			po.clock_hz = v;
			break;
		case OPT_THROTTLE_RATE:
			if (sim_parse_u64(optarg, &v) || v > 1000000000) {
				fprintf(stderr, "pmusim: --throttle-rate must be 0..1000000000\n");
				return HBBP_EXIT_USAGE;
			}
			po.throttle_rate = v;
			break;
		case OPT_HZ:
			if (sim_parse_u64(optarg, &v) || !v || v > 10000) {
				fprintf(stderr, "pmusim: --hz must be 1..10000\n");
				return HBBP_EXIT_USAGE;
			}
			po.hz = (unsigned)v;
			break;
		case OPT_TRUTH_CYCLES: truth_cycles = true; break;
		case OPT_EFFECTS: effects = optarg; break;
		case OPT_TRUTH: truth = optarg; break;
		case OPT_TRUTH_INSNS: truth_insns = optarg; break;
		case OPT_QEMU: ro.qemu = optarg; break;
		case OPT_CPU: ro.cpu = optarg; break;
		case OPT_LOG_COPY: ro.log_copy = optarg; break;
		case 'o': out = optarg; break;
		case 'v': verbose = true; break;
		case 'h': case OPT_HELP: sim_usage(stdout); return 0;
		default: sim_usage(stderr); return HBBP_EXIT_USAGE;
		}
	}
	if (!strcmp(effects, "realistic")) {
		/* defaults documented in README.md */
		po.fx = (struct sim_effects){ .skid_mean = 0.3, .group_prob = 0.5, .group_width = 4,
					      .shadow_prob = 0.9, .rand_bits = 6,
					      .freeze_mean = 0, .freeze_insns_mean = 30,
					      .bias_frac = 0.1, .bias_prob = 0.5 };
	} else if (strcmp(effects, "none")) {
		fprintf(stderr, "pmusim: --effects must be none or realistic\n");
		return HBBP_EXIT_USAGE;
	}
	if (skid >= 0) po.fx.skid_mean = skid;
	if (shadow >= 0) po.fx.shadow_prob = shadow;
	if (freeze >= 0) po.fx.freeze_mean = freeze;
	if (freeze_insns >= 0) po.fx.freeze_insns_mean = freeze_insns;
	if (gprob >= 0) po.fx.group_prob = gprob;
	if (gwidth >= 0) po.fx.group_width = (unsigned)gwidth;
	if (po.fx.group_prob > 0 && !po.fx.group_width)
		po.fx.group_width = 4;
	if (bfrac >= 0) po.fx.bias_frac = bfrac;
	if (bprob >= 0) po.fx.bias_prob = bprob;
	if (rbits >= 0) po.fx.rand_bits = (unsigned)rbits;
	if (po.lbr_depth < 2 || po.lbr_depth > 32) {
		fprintf(stderr, "pmusim: --lbr-depth must be 2..32\n");
		return HBBP_EXIT_USAGE;
	}
	if (optind >= argc || (!out && !truth && !truth_insns)) {
		sim_usage(stderr);
		return HBBP_EXIT_USAGE;
	}
	char *prog = sim_resolve(argv[optind]);
	if (!prog) {
		fprintf(stderr, "pmusim: cannot find program '%s'\n", argv[optind]);
		return HBBP_EXIT_INPUT;
	}
	char **pargv = calloc((size_t)(argc - optind) + 1, sizeof(*pargv));
	if (!pargv) {
		free(prog);
		return HBBP_EXIT_IO;
	}
	pargv[0] = prog;
	for (int i = optind + 1; i < argc; i++)
		pargv[i - optind] = argv[i];
	ro.argv = pargv;

	struct sim_recorder *rec = NULL;
	struct sim_pmu *pmu = NULL;
	struct sim_trace *t = NULL;
	struct sim_modules mods;
	int child = 0, status = 0, rc = HBBP_EXIT_OK;
	sim_modules__init(&mods);
	if (out) {
		err = sim_recorder__new(&rec, out, &po, (const char *const *)pargv);
		if (err) {
			pr_err("cannot open '%s': %s", out, hbbp_strerror(err));
			rc = hbbp_exit_code(err);
			goto out_free;
		}
		po.emit = sim_recorder__sample;
		po.ctx = rec;
	}
	err = sim_pmu__new(&pmu, &po);
	if (!err)
		err = sim_trace__new(&t, pmu);
	if (err) {
		pr_err("cannot set up: %s", hbbp_strerror(err));
		rc = hbbp_exit_code(err);
		goto out_free;
	}
	status = sim_run(&ro, t, &mods, &child);
	if (status < 0) {
		if (status == -HBBP_ENOTFOUND)
			pr_err("cannot run '%s'", ro.qemu);
		else
			pr_err("tracing '%s' failed: %s%s", prog, hbbp_strerror(status),
			       status == -HBBP_EUNSUPP ? " (a second vCPU: threads are not supported)" : "");
		rc = status == -HBBP_ENOTFOUND ? HBBP_EXIT_INPUT : hbbp_exit_code(status);
		goto out_free;
	}
	if (!sim_trace__stats(t)->nr_tb_exec) {
		pr_err("'%s' did not run under %s (exit status %d)", prog, ro.qemu, status);
		rc = HBBP_EXIT_INPUT;
		goto out_free;
	}
	if (mods.forked) {
		pr_err("'%s' created another task (fork/clone): its blocks share the log, "
		       "only single-task programs are supported", prog);
		rc = HBBP_EXIT_INPUT;
		goto out_free;
	}
	err = sim_trace__finish(t);
	if (!err)
		err = sim_modules__add_program(&mods, prog);
	if (err) {
		pr_err("'%s': %s", prog, hbbp_strerror(err));
		rc = hbbp_exit_code(err);
		goto out_free;
	}
	const struct sim_trace_stats *ts = sim_trace__stats(t);
	if (ts->nr_unknown_tb)
		pr_warn("%" PRIu64 " executed blocks had no translation in the log",
			ts->nr_unknown_tb);
	if (verbose && ts->nr_resegmented)
		fprintf(stderr, "pmusim: %" PRIu64 " translation listings split an instruction "
			"(decoded again from their bytes)\n", ts->nr_resegmented);
	if (ts->nr_bad_decode)
		pr_warn("%" PRIu64 " instructions could not be decoded", ts->nr_bad_decode);
	if (truth && (err = sim_truth__write_mix(t, truth, truth_cycles ? pmu : NULL))) {
		pr_err("cannot write '%s': %s", truth, hbbp_strerror(err));
		rc = HBBP_EXIT_IO;
		goto out_free;
	}
	if (truth_insns && (err = sim_truth__write_insns(t, &mods, truth_insns,
							 truth_cycles ? pmu : NULL))) {
		pr_err("cannot write '%s': %s", truth_insns, hbbp_strerror(err));
		rc = HBBP_EXIT_IO;
		goto out_free;
	}
	if (rec) {
		err = sim_recorder__close(rec, &mods, (uint32_t)child, sim_pmu__stats(pmu));
		rec = NULL;
		if (err) {
			pr_err("cannot write '%s': %s", out, hbbp_strerror(err));
			rc = hbbp_exit_code(err);
			goto out_free;
		}
	}
	if (verbose) {
		const struct sim_pmu_stats *ps = sim_pmu__stats(pmu);
		fprintf(stderr,
			"pmusim: exit status %d, %" PRIu64 " instructions, %" PRIu64 " taken branches, "
			"%" PRIu64 " blocks executed (%" PRIu64 " translated, %" PRIu64
			" retranslated), %" PRIu64 " rep continuations, %" PRIu64 " syscalls, %" PRIu64
			" discontinuities\n",
			status, ts->nr_insns, ts->nr_taken, ts->nr_tb_exec, ts->nr_tb_translated,
			ts->nr_retranslated, ts->nr_rep_cont, ts->nr_syscalls, ts->nr_discont);
		fprintf(stderr,
			"pmusim: %" PRIu64 " EBS samples (%" PRIu64 " skidded, %" PRIu64
			" to the next retirement group, %" PRIu64 " shadowed), %" PRIu64 " LBR samples (%" PRIu64 " frozen late, %" PRIu64
			" bias-delayed), %" PRIu64 " lost at exit\n",
			ps->nr_ebs, ps->nr_skidded, ps->nr_grouped, ps->nr_shadowed, ps->nr_lbr, ps->nr_frozen_late,
			ps->nr_bias_delayed, ps->nr_dropped_pending);
		fprintf(stderr, "pmusim: %" PRIu64 " cycles (timing model), %" PRIu64
			" branch entries with a saturated cycle count\n", ps->nr_cycles,
			ps->nr_saturated);
		if (po.throttle_rate)
			fprintf(stderr, "pmusim: %" PRIu64 " THROTTLE and %" PRIu64 " UNTHROTTLE "
				"records, %" PRIu64 " samples lost while throttled\n",
				ps->nr_throttle, ps->nr_unthrottle, ps->nr_throttled_lost);
		for (size_t i = 0; i < mods.n; i++)
			fprintf(stderr, "pmusim: module %#" PRIx64 "-%#" PRIx64 " pgoff %#" PRIx64
				" %s\n", mods.v[i].start, mods.v[i].start + mods.v[i].len,
				mods.v[i].pgoff, mods.v[i].path);
	}
	/* the program's own failure is reported but is not pmusim's */
	if (status)
		pr_warn("'%s' exited with status %d", prog, status);
out_free:
	if (rec)
		sim_recorder__abort(rec);
	sim_trace__delete(t);
	sim_pmu__delete(pmu);
	sim_modules__exit(&mods);
	free(pargv);
	free(prog);
	return rc;
}
