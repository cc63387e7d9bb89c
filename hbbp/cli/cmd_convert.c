/* hbbp-convert [OPTIONS] [PERF_DATA]: command-line parsing for the conversion; the work is
 * in hbbp/engine/convert.c, started with a populated heap (util/heap_warm.h). Exit codes: 0 ok,
 * 1 usage, 2 bad input, 3 I/O.
 * Depends on hbbp/engine/convert.h and libc getopt.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bbmap/taxonomy.h"
#include "hbbp/cli/commands.h"
#include "hbbp/cli/convert_args.h"
#include "hbbp/engine/convert.h"
#include "hbbp/train/model.h"
#include "util/hbbp_err.h"
#include "util/heap_warm.h"

#define HEAP_WARM_MAX	(32u << 20)

/* The heap to populate before converting inputs[0..nr): about what the conversion touches,
 * which grows with the input until it holds all the code executed: 8 bytes per input byte
 * (a 5 MB recording peaks at 28 MiB RSS, libraries included), at most HEAP_WARM_MAX (34 MiB
 * for 1 GiB); HEAP_WARM_MAX for stdin and pipes, none for inputs that cannot be read. */
static size_t heap_warm_bytes(const char *const *inputs, size_t nr)
{
	uint64_t sum = 0;
	struct stat st;
	size_t i;

	for (i = 0; i < nr; i++) {
		if (!strcmp(inputs[i], "-"))
			return HEAP_WARM_MAX;
		if (stat(inputs[i], &st))
			return 0;
		if (!S_ISREG(st.st_mode))
			return HEAP_WARM_MAX;
		sum += (uint64_t)st.st_size;
	}
	return sum < HEAP_WARM_MAX / 8 ? (size_t)sum * 8 : HEAP_WARM_MAX;
}

static const char usage_text[] =
"usage: hbbp-convert [OPTIONS] [PERF_DATA]    (default ./perf.data)\n"
"       hbbp-convert [OPTIONS] -o FILE.sqlite [--append] PERF_DATA...   (one run each)\n"
"       hbbp-convert [OPTIONS] -o postgresql://[USER@]HOST/DB PERF_DATA...   (one run each)\n"
"       hbbp-convert compare --ref REF MIX       (accuracy against a reference mix)\n"
"       hbbp-convert train --ref TRUTH PERF_DATA...   (learn the cutoff)\n"
"       hbbp-convert dump|stats FILE             (the records, the file's facts)\n"
"       hbbp-convert disasm [-f text|csv] BINARY   (every instruction, as decoded here)\n"
"       hbbp-convert help [COMMAND]  |  --version\n"
"\n"
"Reads a perf record file (perf record -b -e <instructions> -e <taken branches>), computes\n"
"basic-block execution counts with the Hybrid Basic Block Profiling method and writes an\n"
"instruction mix.\n"
"\n"
"Output:\n"
"  -o, --output FILE     .csv, .json, .jsonl, .sqlite/.db by extension; '-' stdout\n"
"                        (default: CSV on stdout); a postgresql:// URI: a server\n"
"  -f, --format FMT      csv, json, jsonl, sqlite, postgresql\n"
"      --append          add this run to an existing SQLite database (in place)\n"
"      --label TEXT      the runs.label of a database output\n"
"      --by KEYS         pivot keys, comma-separated (default module,symbol,mnemonic):\n"
"                        pid tid comm module symbol block srcline mnemonic iclass isa\n"
"                        category packing width mem, and the --taxonomy column\n"
"      --top N           keep the N largest rows (share stays relative to all rows)\n"
"      --diagnostics     add source, ebs_count, lbr_count, ebs_samples, lbr_streams, biased,\n"
"                        lbr_count_plain (the LBR count with the weight period/(n-1))\n"
"      --taxonomy FILE   user instruction groups (lines 'group: mnemonic-or-glob ...'),\n"
"                        a key column named 'taxonomy' (added to the default keys)\n"
"Filters (comma-separated lists):\n"
"      --comm LIST  --pid LIST  --module LIST  --symbol LIST  --user-only  --kernel-only\n"
"Method:\n"
"      --method M        hbbp (default), ebs or lbr\n"
"      --cutoff N        LBR for blocks of at most N instructions, else EBS (default 18)\n"
"      --model FILE      the cutoff learned by 'hbbp-convert train' (hbbp/train/model.h)\n"
"      --ebs-event NAME  event whose sample IPs are the EBS source\n"
"      --lbr-event NAME  event whose branch stacks are the LBR source\n"
"      --lbr-weighting time|plain  weight of a stack: by the duration of the stream it\n"
"                        interrupted (default when the LBR event counts time, e.g.\n"
"                        cycles, and the entries carry cycle counts) or period/(n-1)\n"
"Binaries:\n"
"      --buildid-dir DIR --symfs DIR  --binary NAME=PATH (repeatable)  --ignore-build-id\n"
"      --vmlinux FILE    --kallsyms FILE\n"
"      --demangle MODE   C++ names: short (default, as perf report: no parameter\n"
"                        list), full, none (mangled); --no-demangle: none\n"
"  -j, --jobs N          threads: up to N input files at once (default: the number of\n"
"                        online CPUs, at most 8); one input file is read in two parts\n"
"                        at once on 2 threads when N >= 2, its modules are\n"
"                        disassembled on up to N threads, the mix's blocks decoded\n"
"                        ahead and a large text table written on 2. Same results\n"
"                        for any N\n"
"      --split SIZE      read a file with at least SIZE bytes of records in two parts\n"
"                        (K, M, G suffixes; default 16M; 0: never); the part read apart\n"
"                        is summed before it is resolved, so float sums may differ from\n"
"                        a one-part reading in their last digits\n"
"  -q, --quiet           no summary on stderr\n"
"  -h, --help            this text (hbbp-convert help COMMAND: a command's)\n"
"  -V, --version         the release and the libraries' versions\n"
"\n"
"Exit status: 0 ok, 1 usage error, 2 bad input, 3 I/O or resource failure.\n"
"See hbbp-convert(1).\n";

enum {
	OPT_APPEND = 256, OPT_BY, OPT_TOP, OPT_DIAG, OPT_TAXONOMY, OPT_COMM, OPT_PID, OPT_MODULE,
	OPT_SYMBOL, OPT_USER, OPT_KERNEL, OPT_METHOD, OPT_CUTOFF, OPT_MODEL, OPT_EBS_EVENT, OPT_LBR_EVENT,
	OPT_BUILDID_DIR, OPT_SYMFS, OPT_BINARY, OPT_IGNORE_BUILDID, OPT_VMLINUX, OPT_KALLSYMS,
	OPT_SPLIT, OPT_DEMANGLE, OPT_NO_DEMANGLE, OPT_LBR_WEIGHTING, OPT_LABEL,
};

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, 'f' },
	{ "append", no_argument, NULL, OPT_APPEND },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "by", required_argument, NULL, OPT_BY },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "diagnostics", no_argument, NULL, OPT_DIAG },
	{ "taxonomy", required_argument, NULL, OPT_TAXONOMY },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "module", required_argument, NULL, OPT_MODULE },
	{ "symbol", required_argument, NULL, OPT_SYMBOL },
	{ "user-only", no_argument, NULL, OPT_USER },
	{ "kernel-only", no_argument, NULL, OPT_KERNEL },
	{ "method", required_argument, NULL, OPT_METHOD },
	{ "cutoff", required_argument, NULL, OPT_CUTOFF },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "ebs-event", required_argument, NULL, OPT_EBS_EVENT },
	{ "lbr-event", required_argument, NULL, OPT_LBR_EVENT },
	{ "lbr-weighting", required_argument, NULL, OPT_LBR_WEIGHTING },
	{ "buildid-dir", required_argument, NULL, OPT_BUILDID_DIR },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "binary", required_argument, NULL, OPT_BINARY },
	{ "ignore-build-id", no_argument, NULL, OPT_IGNORE_BUILDID },
	{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "jobs", required_argument, NULL, 'j' },
	{ "split", required_argument, NULL, OPT_SPLIT },
	{ "demangle", required_argument, NULL, OPT_DEMANGLE },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static const char *taxonomy_group(void *ctx, const struct bbmap_insn *in)
{
	return in->mnemonic ? bbmap_taxonomy__group(ctx, in->mnemonic) : "";
}

/* A path named by an option must be there (and be a directory or not, as said): else one
 * line naming the option, and a usage error. */
static int check_path(const char *opt, const char *shown, const char *path, bool dir)
{
	struct stat st;

	if (stat(path, &st)) {
		pr_err("%s %s: %s", opt, shown, strerror(errno));
		return -HBBP_EUSAGE;
	}
	if (dir && !S_ISDIR(st.st_mode)) {
		pr_err("%s %s: not a directory", opt, shown);
		return -HBBP_EUSAGE;
	}
	if (!dir && S_ISDIR(st.st_mode)) {
		pr_err("%s %s: a directory, not a file", opt, shown);
		return -HBBP_EUSAGE;
	}
	return 0;
}

/* --pid takes process ids: digits, or globs of them */
static int check_pids(const char *list)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (!len || strspn(p, "0123456789*?[]-") < len) {
			pr_err("--pid: '%.*s' is not a process id (a comma-separated list of "
			       "numbers)", (int)len, p);
			return -HBBP_EUSAGE;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* The directory an output file goes into must exist and be writable: checked before the
 * conversion, so that a typo costs no minutes of work. */
static int check_output_dir(const char *out)
{
	const char *slash = strrchr(out, '/');
	char dir[4096];
	struct stat st;

	if (!stat(out, &st) && !S_ISREG(st.st_mode))
		return 0;	/* a device or FIFO is written directly (writers/SCHEMA.md) */
	if (!slash) {
		strcpy(dir, ".");
	} else {
		size_t n = slash == out ? 1 : (size_t)(slash - out);

		if (n >= sizeof(dir))
			return 0;
		memcpy(dir, out, n);
		dir[n] = 0;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		pr_err("-o %s: directory '%s' does not exist", out, dir);
		return -HBBP_EUSAGE;
	}
	if (access(dir, W_OK)) {
		pr_err("-o %s: directory '%s' is not writable: %s", out, dir, strerror(errno));
		return -HBBP_EUSAGE;
	}
	return 0;
}

/* --append adds to a SQLite database: an existing output that is not one is refused
 * before converting (the writer would fail after the work, naming a copy step). An output
 * that is one of the inputs inputs[0..nr) is left to the writer, which refuses it as such. */
static int check_append_target(const char *out)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	struct stat st;
	FILE *f;
	size_t n;

	if (stat(out, &st) || !S_ISREG(st.st_mode) || !st.st_size)
		return 0;
	f = fopen(out, "rb");
	if (!f)
		return 0;	/* the writer reports what it cannot open */
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (n == sizeof(head) && !memcmp(head, magic, sizeof(magic)))
		return 0;
	pr_err("--append -o %s: not a SQLite database (--append adds a run to one)", out);
	return -HBBP_EUSAGE;
}

static int usage_error(void)
{
	fprintf(stderr, "Try 'hbbp-convert --help' for more information.\n");
	return HBBP_EXIT_USAGE;
}

int cmd_convert(int argc, char **argv)
{
	struct convert_opts o;
	char err[512];
	unsigned long v;
	bool format_given = false, by_given = false;
	const char *const *inputs = NULL;
	size_t nr_inputs = 1;
	unsigned jobs = 0;	/* 0: the number of online CPUs */
	struct bbmap_taxonomy *tax = NULL;
	struct hbbp_taxonomy taxcol;
	int c, rc;

	memset(&o, 0, sizeof(o));
	o.input = "perf.data";
	o.format = WRITER_CSV;
	o.method = HBBP_METHOD_HBBP;
	o.cutoff = HBBP_DEFAULT_CUTOFF;
	o.by = HBBP_DEFAULT_KEYS;
	o.split_min = 16u << 20;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:f:j:qhV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o': o.output = optarg; break;
		case 'j':
			if (convert_args__uint("--jobs", optarg, 1024, &v))
				goto usage;
			if (!v) {
				pr_err("--jobs: at least 1");
				goto usage;
			}
			jobs = (unsigned)v;
			break;
		case 'f':
			o.format = writer_format_from_name(optarg);
			if (o.format == WRITER_NONE) {
				pr_err("--format: unknown format '%s' (csv, json, jsonl, sqlite,"
				       " postgresql)",
				       optarg);
				goto usage;
			}
			format_given = true;
			break;
		case OPT_APPEND: o.append = true; break;
		case OPT_LABEL: o.label = optarg; break;
		case OPT_SPLIT:
			if (convert_args__size("--split", optarg, &o.split_min))
				goto usage;
			break;
		case OPT_BY: o.by = optarg; by_given = true; break;
		case OPT_TOP:
			if (convert_args__uint("--top", optarg, 1UL << 30, &v))
				goto usage;
			o.mix.top = v;
			break;
		case OPT_DIAG: o.mix.diagnostics = true; break;
		case OPT_TAXONOMY: o.taxonomy_file = optarg; break;
		case OPT_COMM: o.mix.comm = optarg; break;
		case OPT_PID: o.mix.pid = optarg; break;
		case OPT_MODULE: o.mix.module = optarg; break;
		case OPT_SYMBOL: o.mix.symbol = optarg; break;
		case OPT_USER: o.mix.user_only = true; break;
		case OPT_KERNEL: o.mix.kernel_only = true; break;
		case OPT_METHOD:
			if (!strcmp(optarg, "hbbp"))
				o.method = HBBP_METHOD_HBBP;
			else if (!strcmp(optarg, "ebs"))
				o.method = HBBP_METHOD_EBS;
			else if (!strcmp(optarg, "lbr"))
				o.method = HBBP_METHOD_LBR;
			else {
				pr_err("--method: unknown method '%s' (hbbp, ebs, lbr)", optarg);
				goto usage;
			}
			o.method_given = true;
			break;
		case OPT_CUTOFF:
			if (convert_args__uint("--cutoff", optarg, 1000000, &v))
				goto usage;
			o.cutoff = (unsigned)v;
			break;
		case OPT_MODEL: {	/* hbbp/train/model.h: the learned rule replaces the cutoff */
			struct hbbp_model mdl;

			if (hbbp_model__load(optarg, &mdl, err, sizeof(err))) {
				pr_err("--model: %s", err);
				return HBBP_EXIT_INPUT;
			}
			o.cutoff = mdl.cutoff;
			break;
		}
		case OPT_EBS_EVENT: o.ebs_event = optarg; break;
		case OPT_LBR_EVENT: o.lbr_event = optarg; break;
		case OPT_LBR_WEIGHTING:
			if (!strcmp(optarg, "time"))
				o.lbr_weighting = HBBP_LBR_WEIGHT_TIME;
			else if (!strcmp(optarg, "plain"))
				o.lbr_weighting = HBBP_LBR_WEIGHT_PLAIN;
			else {
				pr_err("--lbr-weighting: '%s': expected time or plain", optarg);
				goto usage;
			}
			break;
		case OPT_BUILDID_DIR: o.find.buildid_dir = optarg; break;
		case OPT_SYMFS: o.find.symfs = optarg; break;
		case OPT_BINARY: {
			char *eq = strchr(optarg, '=');
			struct bbmap_binary_override *nb;

			if (!eq || eq == optarg || !eq[1]) {
				pr_err("--binary: expected NAME=PATH, got '%s'", optarg);
				goto usage;
			}
			nb = realloc(o.binaries, (o.nr_binaries + 1) * sizeof(*nb));
			if (!nb) {
				free(o.binaries);
				return HBBP_EXIT_IO;
			}
			o.binaries = nb;
			*eq = 0;
			nb[o.nr_binaries].name = optarg;
			nb[o.nr_binaries].path = eq + 1;
			o.nr_binaries++;
			break;
		}
		case OPT_IGNORE_BUILDID: o.find.ignore_build_id = true; break;
		case OPT_VMLINUX: o.find.vmlinux = optarg; break;
		case OPT_KALLSYMS: o.find.kallsyms = optarg; break;
		case OPT_DEMANGLE:
			if (!strcmp(optarg, "short"))
				o.find.demangle = BBMAP_DEMANGLE_SHORT;
			else if (!strcmp(optarg, "full"))
				o.find.demangle = BBMAP_DEMANGLE_FULL;
			else if (!strcmp(optarg, "none"))
				o.find.demangle = BBMAP_DEMANGLE_NONE;
			else {
				pr_err("--demangle: '%s': short, full or none", optarg);
				goto usage;
			}
			break;
		case OPT_NO_DEMANGLE: o.find.demangle = BBMAP_DEMANGLE_NONE; break;
		case 'q': o.quiet = true; break;
		case 'V':
			free(o.binaries);
			return cmd_version();
		case 'h':
			fputs(usage_text, stdout);
			free(o.binaries);
			return HBBP_EXIT_OK;
		case ':':
			pr_err("option '%s' needs an argument", argv[optind - 1]);
			goto usage;
		default:
			pr_err("unknown option '%s'", argv[optind - 1]);
			goto usage;
		}
	}
	if (optind < argc) {
		o.input = argv[optind];
		inputs = (const char *const *)&argv[optind];
		nr_inputs = (size_t)(argc - optind);
	}
	if (o.mix.pid && check_pids(o.mix.pid))
		goto usage;
	for (size_t i = 0; i < o.nr_binaries; i++) {
		char shown[4096];

		snprintf(shown, sizeof(shown), "%s=%s", o.binaries[i].name, o.binaries[i].path);
		if (check_path("--binary", shown, o.binaries[i].path, false))
			goto bad_path;
	}
	if ((o.find.symfs && check_path("--symfs", o.find.symfs, o.find.symfs, true)) ||
	    (o.find.buildid_dir && *o.find.buildid_dir &&
	     check_path("--buildid-dir", o.find.buildid_dir, o.find.buildid_dir, true)) ||
	    (o.find.vmlinux && check_path("--vmlinux", o.find.vmlinux, o.find.vmlinux, false)) ||
	    (o.find.kallsyms && check_path("--kallsyms", o.find.kallsyms, o.find.kallsyms, false)))
		goto bad_path;
	if (o.mix.user_only && o.mix.kernel_only) {
		pr_err("--user-only and --kernel-only exclude each other");
		goto usage;
	}
	if (o.output && strcmp(o.output, "-") && !format_given) {
		o.format = writer_format_from_path(o.output);
		if (o.format == WRITER_NONE) {
			pr_err("-o %s: cannot tell the format from the extension (.csv, .json, "
			       ".jsonl, .sqlite, .db); use -f", o.output);
			goto usage;
		}
	}
	if (o.format == WRITER_SQLITE && (!o.output || !strcmp(o.output, "-"))) {
		pr_err("SQLite output needs a file (-o FILE.sqlite)");
		goto usage;
	}
	if (o.format == WRITER_POSTGRES && !o.output) {
		pr_err("PostgreSQL output needs a connection string (-o postgresql://...)");
		goto usage;
	}
	if (o.output && strcmp(o.output, "-") && writer_format_is_file(o.format) &&
	    check_output_dir(o.output)) {
		free(o.binaries);
		return HBBP_EXIT_IO;
	}
	if (nr_inputs > 1 && o.format != WRITER_SQLITE && o.format != WRITER_POSTGRES) {
		pr_err("several input files need SQLite output (-o FILE.sqlite): one run each");
		goto usage;
	}
	if (o.append && o.format != WRITER_SQLITE && o.format != WRITER_POSTGRES) {
		pr_err("--append works with SQLite output only");
		goto usage;
	}
	if (o.label && o.format != WRITER_SQLITE && o.format != WRITER_POSTGRES) {
		pr_err("--label works with SQLite and PostgreSQL output only");
		goto usage;
	}
	o.append = o.append && o.format == WRITER_SQLITE;	/* a server always adds a run */
	o.inputs = inputs ? inputs : &o.input;
	o.nr_inputs = nr_inputs;
	if (o.output && strcmp(o.output, "-")) {	/* nothing converted for a refused output */
		struct writer_opts wo = { .append = o.append, .inputs = o.inputs,
					  .nr_inputs = o.nr_inputs };

		rc = writer__check_target(o.output, o.format, &wo);
		if (rc) {
			free(o.binaries);
			return rc == -HBBP_EUSAGE ? HBBP_EXIT_USAGE : HBBP_EXIT_IO;
		}
	}
	/* after the target checks: an output that is an input is refused as such first */
	if (o.append && o.output && writer_format_is_file(o.format) &&
	    check_append_target(o.output)) {
		free(o.binaries);
		return HBBP_EXIT_INPUT;
	}
	if (o.taxonomy_file) {
		rc = bbmap_taxonomy__load(&tax, o.taxonomy_file);
		if (rc) {
			pr_err("%s: cannot read the taxonomy: %s", o.taxonomy_file,
			       hbbp_strerror(rc));
			free(o.binaries);
			return HBBP_EXIT_INPUT;
		}
		taxcol.column = "taxonomy";
		taxcol.group = taxonomy_group;
		taxcol.ctx = tax;
		o.mix.taxonomy = &taxcol;
		if (!by_given)
			o.by = HBBP_DEFAULT_KEYS ",taxonomy";
	}
	if (!tax && by_given) {
		const char *k = strstr(o.by, "taxonomy");

		if (k && (k == o.by || k[-1] == ',') && (k[8] == ',' || !k[8])) {
			pr_err("--by taxonomy: needs --taxonomy FILE (the user instruction groups)");
			goto usage;
		}
	}
	if (hbbp_mix__parse_keys(&o.mix, o.by, tax ? "taxonomy" : NULL, err, sizeof(err))) {
		pr_err("%s", err);
		goto usage;
	}
	o.progress = !o.quiet && isatty(2);
	if (!jobs) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		jobs = n < 1 ? 1 : n > 8 ? 8 : (unsigned)n;
	}
	o.jobs = jobs;
	hbbp_heap_warm(heap_warm_bytes(inputs ? inputs : &o.input, nr_inputs));
	rc = nr_inputs > 1 ? convert__run_many(&o, inputs, nr_inputs, jobs) : convert__run(&o);
	free(o.binaries);
	bbmap_taxonomy__delete(tax);
	return rc;
bad_path:	/* a named path that is not there: one line, no usage hint */
	free(o.binaries);
	return HBBP_EXIT_USAGE;
usage:
	free(o.binaries);
	bbmap_taxonomy__delete(tax);
	return usage_error();
}
