/* The option table of every command and what reads it: the parser (getopt_long over the rows
 * a command takes, the defaults parsed as if given first), --help and `help --list-options`
 * (hbbp/cli/options.h). Adding an option is one row here, one field in struct cli_args and,
 * where no parser fits, one function; the manual's OPTIONS and COMMANDS sections list the
 * same rows under the same headings (tests/cli/options_table.sh).
 * Then what the converting commands (convert, annotate, report, diff) do alike after parsing:
 * the named paths must exist, the filters, binaries and the environment's knobs go into the
 * conversion's options, the keys are parsed, the threads and the progress bar chosen; and
 * around a conversion, its notes printed and its error mapped to an exit code. The one place
 * hbbp-convert reads the environment (with main.c's HBBP_DEBUG and annotate's NO_COLOR).
 * Depends on hbbp/engine/convert.h, hbbp/train/model.h, bbmap/taxonomy.h, writers/writer.h
 * and libc getopt.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hbbp/cli/options.h"
#include "hbbp/train/model.h"
#include "util/hbbp_err.h"

const char *const cli_cmd_names[CLI__NR] = {
	"convert", "annotate", "report", "diff", "compare", "train", "dump", "stats", "disasm",
};

#define CMD(c)		(1u << CLI_##c)
#define CONVERTING	(CMD(CONVERT) | CMD(ANNOTATE) | CMD(REPORT) | CMD(DIFF))
#define ALL		((1u << CLI__NR) - 1)
#define F(field)	offsetof(struct cli_args, field), sizeof(((struct cli_args *)0)->field)
#define STR(x)		#x
#define XSTR(x)		STR(x)

struct cli_option {
	const char *name;
	int short_name;			/* 0: none */
	const char *arg;		/* its argument in --help; NULL: it takes none */
	unsigned cmds;			/* CMD() of the commands that take it */
	const char *section;		/* heading in --help and the manual: a command's own
					 * options are under its name */
	const char *help;
	const char *def;		/* the default, parsed as if given; NULL: none */
	int (*parse)(struct cli_args *a, const struct cli_option *o, const char *arg);
	size_t off, size;		/* the field it sets */
	unsigned long min, max;		/* numbers */
	const char *const *choices;	/* parse_choice: the names, by value */
	const char *bad;		/* parse_choice: the message for another value */
	const char *alias;		/* another long name of the same option (perf's) */
};

static void *field(struct cli_args *a, const struct cli_option *o)
{
	return (char *)a + o->off;
}

static int parse_true(struct cli_args *a, const struct cli_option *o, const char *arg)
{
	*(bool *)field(a, o) = true;
	return HBBP_EXIT_OK;
}

static int parse_str(struct cli_args *a, const struct cli_option *o, const char *arg)
{
	*(const char **)field(a, o) = arg;
	return HBBP_EXIT_OK;
}

/* A comma-separated list; given again, the lists add up. */
static int parse_list(struct cli_args *a, const struct cli_option *o, const char *arg)
{
	char **list = field(a, o), *s;

	if (*list ? asprintf(&s, "%s,%s", *list, arg) < 0 : !(s = strdup(arg))) {
		pr_err("out of memory");
		return HBBP_EXIT_IO;
	}
	free(*list);
	*list = s;
	return HBBP_EXIT_OK;
}

/* --pid takes process ids: digits, or globs of them */
static int parse_pids(struct cli_args *a, const struct cli_option *o, const char *arg)
{
	const char *p = arg;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (!len || strspn(p, "0123456789*?[]-") < len) {
			pr_err("--pid: '%.*s' is not a process id (a comma-separated list of "
			       "numbers)", (int)len, p);
			return HBBP_EXIT_USAGE;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return parse_list(a, o, arg);
}

static int parse_uint(struct cli_args *a, const struct cli_option *o, const char *arg)
{
	unsigned long v;
	char *end;

	v = strtoul(arg, &end, 10);
	if (!*arg || *arg == '-' || *end || v < o->min || v > o->max) {
		pr_err("--%s: '%s' is not a number in %lu..%lu", o->name, arg, o->min, o->max);
		return HBBP_EXIT_USAGE;
	}
	if (o->size == sizeof(unsigned))
		*(unsigned *)field(a, o) = (unsigned)v;
	else
		*(unsigned long *)field(a, o) = v;
	return HBBP_EXIT_OK;
}

/* One of o->choices: its index. o->bad names the value where it says '%s'. */
static int parse_choice(struct cli_args *a, const struct cli_option *o, const char *arg)
{
	const char *at = strstr(o->bad, "%s");
	int i;

	for (i = 0; o->choices[i]; i++)
		if (!strcmp(arg, o->choices[i])) {
			*(int *)field(a, o) = i;
			return HBBP_EXIT_OK;
		}
	pr_err("--%s: %.*s%s%s", o->name, (int)(at - o->bad), o->bad, arg, at + 2);
	return HBBP_EXIT_USAGE;
}

static int parse_format(struct cli_args *a, const struct cli_option *o, const char *arg)
{
	a->conv.format = writer_format_from_name(arg);
	if (a->conv.format != WRITER_NONE)
		return HBBP_EXIT_OK;
	pr_err("--format: unknown format '%s' (csv, json, jsonl, sqlite, postgresql, table)", arg);
	return HBBP_EXIT_USAGE;
}

/* the learned rule (hbbp/train/model.h) replaces the cutoff */
static int parse_model(struct cli_args *a, const struct cli_option *o, const char *arg)
{
	struct hbbp_model mdl;
	char err[512];

	if (hbbp_model__load(arg, &mdl, err, sizeof(err))) {
		pr_err("--model: %s", err);
		return HBBP_EXIT_INPUT;
	}
	a->conv.cutoff = mdl.cutoff;
	return HBBP_EXIT_OK;
}

static int parse_binary(struct cli_args *a, const struct cli_option *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct bbmap_binary_override *nb;

	if (!eq || eq == arg || !eq[1]) {
		pr_err("--binary: expected NAME=PATH, got '%s'", arg);
		return HBBP_EXIT_USAGE;
	}
	nb = realloc(a->binaries, (a->nr_binaries + 1) * sizeof(*nb));
	if (!nb) {
		pr_err("out of memory");
		return HBBP_EXIT_IO;
	}
	a->binaries = nb;
	*(char *)eq = 0;	/* in argv: NAME and PATH */
	nb[a->nr_binaries].name = arg;
	nb[a->nr_binaries++].path = eq + 1;
	return HBBP_EXIT_OK;
}

static int parse_no_demangle(struct cli_args *a, const struct cli_option *o, const char *arg)
{
	a->conv.find.demangle = BBMAP_DEMANGLE_NONE;
	return HBBP_EXIT_OK;
}

/* A repeatable option: its values in a struct cli_strings. */
static int parse_add(struct cli_args *a, const struct cli_option *o, const char *arg)
{
	struct cli_strings *l = field(a, o);
	const char **v = realloc(l->v, (l->nr + 1) * sizeof(*v));

	if (!v) {
		pr_err("out of memory");
		return HBBP_EXIT_IO;
	}
	l->v = v;
	v[l->nr++] = arg;
	return HBBP_EXIT_OK;
}

static int parse_version(struct cli_args *a, const struct cli_option *o, const char *arg)
{
	a->done = true;
	return cmd_version();
}

static int parse_help(struct cli_args *a, const struct cli_option *o, const char *arg);

/* --store threads,lines (either, both) */
static int parse_store(struct cli_args *a, const struct cli_option *o, const char *arg)
{
	const char *p = arg;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == 7 && !strncmp(p, "threads", 7))
			a->conv.store_threads = true;
		else if (n == 5 && !strncmp(p, "lines", 5))
			a->conv.store_lines = true;
		else {
			pr_err("--store '%s': threads, lines or both (threads,lines)", arg);
			return HBBP_EXIT_USAGE;
		}
		p += n + !!p[n];
	}
	return HBBP_EXIT_OK;
}

static const char *const methods[] = { "hbbp", "ebs", "lbr", NULL };
static const char *const lbr_weights[] = { "auto", "plain", "time", NULL };
static const char *const demangles[] = { "short", "full", "none", NULL };
static const char *const text_csv[] = { "text", "csv", NULL };
static const char *const percentages[] = { "absolute", "relative", NULL };
static const char *const values[] = { "count", "cycles", NULL };

static const struct cli_option options[] = {
	{ .name = "input", 'i', "FILE", CONVERTING | CMD(DUMP) | CMD(STATS), "Input", "a "
	  "recording, as perf's -i (repeatable: before the other operands)", NULL, parse_add,
	  F(inputs) },

	{ .name = "output", 'o', "FILE", CMD(CONVERT), "Output", ".csv .json .jsonl .sqlite "
	  ".db by its extension, postgresql://... a server, '-' stdout (default, CSV)", NULL,
	  parse_str, F(output) },
	{ .name = "format", 'f', "FMT", CMD(CONVERT), "Output", "csv, json, jsonl, sqlite, "
	  "postgresql or table (aligned text, the default on a terminal), whatever the "
	  "extension", NULL, parse_format, F(conv.format) },
	{ .name = "append", 0, NULL, CMD(CONVERT), "Output", "add this run to an existing "
	  "SQLite database", NULL, parse_true, F(append) },
	{ .name = "force", 0, NULL, CMD(CONVERT), "Output", "replace an existing SQLite file "
	  "(a database and its runs, another program's file)", NULL, parse_true, F(force) },
	{ .name = "label", 0, "TEXT", CMD(CONVERT), "Output", "the runs.label of a database "
	  "output", NULL, parse_str, F(label) },
	{ .name = "by", 0, "KEYS", CMD(CONVERT), "Output", "pivot keys: pid tid comm module (dso) "
	  "symbol (sym) block srcline mnemonic iclass isa isa_set category packing elem width mem taxonomy",
	  HBBP_DEFAULT_KEYS, parse_str, F(by), .alias = "sort" },
	{ .name = "top", 0, "N", CMD(CONVERT), "Output", "keep the N largest rows (shares of "
	  "all rows)", NULL, parse_uint, F(conv.mix.top), .max = 1UL << 30 },
	{ .name = "percentage", 0, "absolute|relative", CMD(CONVERT), "Output", "a filtered "
	  "row's share: of every sample, as perf report (absolute) or of the rows kept",
	  "absolute", parse_choice, F(conv.mix.percentage), .choices = percentages,
	  .bad = "'%s': absolute or relative" },
	{ .name = "diagnostics", 0, NULL, CMD(CONVERT), "Output", "add the columns of the "
	  "sources and the bias, and the figures of the pass to the summary", NULL, parse_true,
	  F(conv.mix.diagnostics) },
	{ .name = "store", 0, "threads,lines", CMD(CONVERT), "Output", "a database also keeps "
	  "the blocks per thread (for pid, tid, comm) and the source lines (srcline) of the "
	  "run, for pivots made later", NULL, parse_store, F(conv.store_threads) },
	{ .name = "taxonomy", 0, "FILE", CMD(CONVERT), "Output", "user instruction groups as "
	  "a key column (lines 'group: mnemonic-or-glob ...')", NULL, parse_str,
	  F(taxonomy_file) },

	{ .name = "comm", 0, "LIST", CONVERTING, "Filters", "threads whose command name is in "
	  "LIST (comma-separated, globs; repeatable)", NULL, parse_list, F(comm) },
	{ .name = "pid", 0, "LIST", CONVERTING, "Filters", "process ids", NULL, parse_pids,
	  F(pid) },
	{ .name = "module", 0, "LIST", CONVERTING, "Filters", "modules, by short or recorded "
	  "name", NULL, parse_list, F(module) },
	{ .name = "symbol", 0, "LIST", CONVERTING, "Filters", "symbols (annotate: the "
	  "functions listed)", NULL, parse_list, F(symbol) },
	{ .name = "user-only", 0, NULL, CONVERTING, "Filters", "user-space code only", NULL,
	  parse_true, F(conv.mix.user_only) },
	{ .name = "kernel-only", 0, NULL, CONVERTING, "Filters", "kernel code only", NULL,
	  parse_true, F(conv.mix.kernel_only) },

	{ .name = "method", 0, "M", CONVERTING, "Method", "hbbp, ebs or lbr", "hbbp",
	  parse_choice, F(conv.method), .choices = methods,
	  .bad = "unknown method '%s' (hbbp, ebs, lbr)" },
	{ .name = "cutoff", 0, "N", CONVERTING, "Method", "LBR for blocks of at most N "
	  "instructions, else EBS", XSTR(HBBP_DEFAULT_CUTOFF), parse_uint, F(conv.cutoff),
	  .max = 1000000 },
	{ .name = "model", 0, "FILE", CONVERTING, "Method", "the cutoff learned by "
	  "'hbbp-convert train'", NULL, parse_model, F(conv.cutoff) },
	{ .name = "ebs-event", 0, "NAME", CONVERTING | CMD(DUMP) | CMD(STATS), "Method", "the "
	  "EBS event (a time-based one weights the mix by time)", NULL, parse_str,
	  F(conv.ebs_event) },
	{ .name = "lbr-event", 0, "NAME", CONVERTING | CMD(DUMP) | CMD(STATS), "Method", "the "
	  "LBR event", NULL, parse_str, F(conv.lbr_event) },
	{ .name = "lbr-weighting", 0, "time|plain", CONVERTING, "Method", "a stack's weight: "
	  "by its stream's duration (default for a time event with cycle counts) or "
	  "period/(n-1)", NULL, parse_choice, F(conv.lbr_weighting), .choices = lbr_weights,
	  .bad = "'%s': expected time or plain" },
	{ .name = "no-throttle-correction", 0, NULL, CONVERTING, "Method", "leave the absolute "
	  "counts of a throttled event unscaled (default: scaled by its sampled span over the "
	  "span less the throttled time)", NULL, parse_true, F(conv.no_throttle_correction) },

	{ .name = "binary", 0, "NAME=PATH", CONVERTING, "Binaries", "the file of the module "
	  "recorded as NAME (repeatable)", NULL, parse_binary, F(binaries) },
	{ .name = "buildid-dir", 0, "DIR", CONVERTING, "Binaries", "the build-id cache "
	  "(default $PERF_BUILDID_DIR, else ~/.debug; '' none)", NULL, parse_str,
	  F(conv.find.buildid_dir) },
	{ .name = "symfs", 0, "DIR", CONVERTING, "Binaries", "prefix of the recorded paths",
	  NULL, parse_str, F(conv.find.symfs) },
	{ .name = "ignore-build-id", 0, NULL, CONVERTING, "Binaries", "accept files whose "
	  "build-id differs", NULL, parse_true, F(conv.find.ignore_build_id) },
	{ .name = "vmlinux", 0, "FILE", CONVERTING, "Binaries", "the kernel image", NULL,
	  parse_str, F(conv.find.vmlinux) },
	{ .name = "kallsyms", 0, "FILE", CONVERTING, "Binaries", "kernel symbols (a copy of "
	  "/proc/kallsyms; without it, this machine's when the recording was made here)", NULL, parse_str, F(conv.find.kallsyms) },
	{ .name = "demangle", 0, "MODE", CONVERTING, "Binaries", "C++ names: short (as perf "
	  "report), full or none", "short", parse_choice, F(conv.find.demangle),
	  .choices = demangles, .bad = "'%s': short, full or none" },
	{ .name = "no-demangle", 0, NULL, CONVERTING, "Binaries", "--demangle none", NULL,
	  parse_no_demangle, F(conv.find.demangle) },

	{ .name = "jobs", 'j', "N", CONVERTING, "Execution", "input files converted at once, one "
	  "thread each (default: the online CPUs, at most 8); the same results for any N", NULL,
	  parse_uint, F(jobs), .min = 1, .max = 1024 },
	{ .name = "quiet", 'q', NULL, CONVERTING | CMD(TRAIN), "Execution", "no summary on "
	  "stderr", NULL, parse_true, F(quiet) },
	{ .name = "help", 'h', NULL, ALL, "Execution", "this text (hbbp-convert help COMMAND: "
	  "a command's)", NULL, parse_help, F(done) },
	{ .name = "version", 'V', NULL, CMD(CONVERT), "Execution", "the release and the "
	  "libraries' versions", NULL, parse_version, F(done) },

	{ .name = "top", 0, "N", CMD(ANNOTATE), "annotate", "functions listed without "
	  "--symbol", "5", parse_uint, F(top), .min = 1, .max = 1UL << 20 },
	{ .name = "format", 'f', "text|csv", CMD(ANNOTATE), "annotate", "text or csv", "text",
	  parse_choice, F(csv), .choices = text_csv, .bad = "unknown format '%s' (text, csv)" },
	{ .name = "no-color", 0, NULL, CMD(ANNOTATE), "annotate", "no colours (NO_COLOR too)",
	  NULL, parse_true, F(no_color) },
	{ .name = "no-source", 0, NULL, CMD(ANNOTATE), "annotate", "source lines as file:line "
	  "only, without their text", NULL, parse_true, F(no_source) },

	{ .name = "output", 'o', "FILE", CMD(REPORT), "report", "the page ('-': stdout); "
	  "required", NULL, parse_str, F(output) },
	{ .name = "top", 0, "N", CMD(REPORT), "report", "hottest functions listed", "10",
	  parse_uint, F(top), .min = 1, .max = 100000 },
	{ .name = "insns", 0, "N", CMD(REPORT), "report", "hottest instructions per function",
	  "200", parse_uint, F(insns), .min = 1, .max = 100000 },
	{ .name = "mnemonics", 0, "N", CMD(REPORT), "report", "mnemonics charted, the rest as "
	  "one row", "30", parse_uint, F(mnemonics), .min = 1, .max = 100000 },

	{ .name = "by", 0, "KEYS", CMD(DIFF), "diff", "pivot keys (default as the conversion's, "
	  "or a database run's)", NULL, parse_str, F(by), .alias = "sort" },
	{ .name = "format", 'f', "text|csv", CMD(DIFF), "diff", "text or csv (every row)",
	  "text", parse_choice, F(csv), .choices = text_csv,
	  .bad = "unknown format '%s' (text, csv)" },
	{ .name = "shares", 0, NULL, CMD(DIFF), "diff", "compare shares of each run's total",
	  NULL, parse_true, F(shares) },
	{ .name = "value", 0, "count|cycles", CMD(DIFF), "diff", "the column compared "
	  "(cycles: runs with cycle counts)", "count", parse_choice, F(cycles_value),
	  .choices = values, .bad = "unknown value '%s' (count, cycles)" },
	{ .name = "top", 0, "N", CMD(DIFF), "diff", "rows printed in text form", "40",
	  parse_uint, F(top), .max = 1UL << 30 },

	{ .name = "ref", 0, "REF", CMD(COMPARE), "compare", "the reference: our output, "
	  "pmusim truth, callgrind or SDE -mix", NULL, parse_add, F(refs) },
	{ .name = "by", 0, "KEYS", CMD(COMPARE), "compare", "key columns both sides have "
	  "(default mnemonic; iclass for SDE)", NULL, parse_str, F(by) },
	{ .name = "normalize", 0, NULL, CMD(COMPARE), "compare", "compare shares of each "
	  "side's total", NULL, parse_true, F(normalize) },
	{ .name = "value", 0, "count|cycles", CMD(COMPARE), "compare", "the column compared "
	  "(cycles: CSV mixes only)", "count", parse_choice, F(cycles_value), .choices = values,
	  .bad = "unknown value '%s' (count, cycles)" },
	{ .name = "top", 0, "N", CMD(COMPARE), "compare", "keys listed", "20", parse_uint,
	  F(top), .max = 1UL << 30 },
	{ .name = "output", 'o', "OUT", CMD(COMPARE), "compare", "the comparison also as .csv, "
	  ".json or .jsonl", NULL, parse_str, F(output) },

	{ .name = "ref", 0, "TRUTH", CMD(TRAIN), "train", "the exact counts of the recording "
	  "of the same rank (pmusim --truth-insns)", NULL, parse_add, F(refs) },
	{ .name = "output", 'o', "MODEL", CMD(TRAIN), "train", "the model file (default "
	  "stdout)", NULL, parse_str, F(output) },

	{ .name = "limit", 0, "N", CMD(DUMP), "dump", "at most N samples", NULL, parse_uint,
	  F(limit), .max = -1UL },
	{ .name = "no-sort", 0, NULL, CMD(DUMP), "dump", "in file order, not time order", NULL,
	  parse_true, F(no_sort) },

	{ .name = "format", 'f', "text|csv", CMD(DISASM), "disasm", "text or csv", "text",
	  parse_choice, F(csv), .choices = text_csv, .bad = "unknown format '%s' (text, csv)" },
	{ .name = "jobs", 'j', "N", CMD(DISASM), "disasm", "decoding threads (default 2, or 1 "
	  "on a busy machine); the same listing", NULL, parse_uint, F(jobs), .min = 1,
	  .max = 16 },
};

#define NR_OPTIONS (sizeof(options) / sizeof(options[0]))
_Static_assert(NR_OPTIONS <= CLI_MAX_OPTS, "struct cli_args.given has room for every row");

static bool takes(const struct cli_option *o, enum cli_cmd cmd)
{
	return o->cmds & (1u << cmd);
}

/* Applies the defaults, then the options of argv. */
static int parse_argv(struct cli_args *a, int argc, char **argv)
{
	struct option lo[2 * CLI_MAX_OPTS + 1];
	char shorts[3 * CLI_MAX_OPTS + 2] = ":";
	size_t i, n = 0, ns = 1;
	int c, rc;

	for (i = 0; i < NR_OPTIONS; i++) {
		const struct cli_option *o = &options[i];

		if (!takes(o, a->cmd))
			continue;
		if (o->def && (rc = o->parse(a, o, o->def)))
			return rc;
		lo[n++] = (struct option){ o->name, o->arg ? required_argument : no_argument,
					   NULL, 256 + (int)i };
		if (o->alias)	/* the same row by another name */
			lo[n++] = (struct option){ o->alias, o->arg ? required_argument :
						   no_argument, NULL, 256 + (int)i };
		if (o->short_name) {
			shorts[ns++] = (char)o->short_name;
			if (o->arg)
				shorts[ns++] = ':';
		}
	}
	memset(&lo[n], 0, sizeof(lo[n]));
	shorts[ns] = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const char *cmd = a->cmd == CLI_CONVERT ? "" : cli_cmd_names[a->cmd];

		if (c == ':' || c == '?') {
			char s[3] = { '-', (char)optopt, 0 };
			const char *opt = optopt && optopt < 256 ? s : argv[optind - 1];

			if (c == ':')
				pr_err("%s%soption '%s' needs an argument", cmd, *cmd ? ": " : "",
				       opt);
			else
				pr_err("%s%sunknown option '%s'", cmd, *cmd ? ": " : "", opt);
			return HBBP_EXIT_USAGE;
		}
		for (i = 0; c < 256 && i < NR_OPTIONS; i++)
			if (options[i].short_name == c && takes(&options[i], a->cmd))
				c = 256 + (int)i;
		i = (size_t)c - 256;
		a->given[i] = true;
		rc = options[i].parse(a, &options[i], optarg);
		if (rc || a->done)
			return rc;
	}
	a->operands = argv + optind;
	a->nr_operands = (size_t)(argc - optind);
	if (!a->inputs.nr)
		return HBBP_EXIT_OK;
	/* -i FILE...: operands, before the others */
	a->all_operands = calloc(a->inputs.nr + a->nr_operands + 1, sizeof(char *));
	if (!a->all_operands) {
		pr_err("out of memory");
		return HBBP_EXIT_IO;
	}
	memcpy(a->all_operands, a->inputs.v, a->inputs.nr * sizeof(char *));
	memcpy(a->all_operands + a->inputs.nr, a->operands, a->nr_operands * sizeof(char *));
	a->operands = a->all_operands;
	a->nr_operands += a->inputs.nr;
	return HBBP_EXIT_OK;
}

static const char *help_usage;

int cli_args__parse(struct cli_args *a, enum cli_cmd cmd, const char *usage, int argc,
		    char **argv)
{
	memset(a, 0, sizeof(*a));
	a->cmd = cmd;
	help_usage = usage;
	return parse_argv(a, argc, argv);
}

static int parse_help(struct cli_args *a, const struct cli_option *o, const char *arg)
{
	cli_options__help(a->cmd, help_usage, stdout);
	a->done = true;
	return fflush(stdout) || ferror(stdout) ? HBBP_EXIT_IO : HBBP_EXIT_OK;
}

void cli_args__exit(struct cli_args *a)
{
	free(a->comm);
	free(a->pid);
	free(a->module);
	free(a->symbol);
	free(a->binaries);
	free(a->refs.v);
	free(a->inputs.v);
	free(a->all_operands);
	bbmap_taxonomy__delete(a->tax);
	memset(a, 0, sizeof(*a));
}

bool cli_args__given(const struct cli_args *a, const char *name)
{
	size_t i;

	for (i = 0; i < NR_OPTIONS; i++) {
		const struct cli_option *o = &options[i];

		if (takes(o, a->cmd) && (!strcmp(o->name, name) ||
					 (o->alias && !strcmp(o->alias, name))))
			return a->given[i];
	}
	return false;
}

/* "  -o, --output FILE", "      --append" or "      --by, --sort KEYS" */
static int option_head(char *buf, size_t size, const struct cli_option *o)
{
	return snprintf(buf, size, "  %c%c%s--%s%s%s%s%s", o->short_name ? '-' : ' ',
			o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ", o->name,
			o->alias ? ", --" : "", o->alias ? o->alias : "", o->arg ? " " : "",
			o->arg ? o->arg : "");
}

#define HELP_COL	24
#define HELP_WIDTH	79

/* text from column HELP_COL, its words wrapped at HELP_WIDTH */
static void put_wrapped(FILE *f, int col, const char *text)
{
	while (*text) {
		size_t len = strcspn(text, " ");

		if (col > HELP_COL && col + 1 + (int)len > HELP_WIDTH) {
			fprintf(f, "\n%*s", HELP_COL, "");
			col = HELP_COL;
		} else if (col > HELP_COL) {
			fputc(' ', f);
			col++;
		} else {
			col += fprintf(f, "%*s", HELP_COL - col, "");
		}
		col += fprintf(f, "%.*s", (int)len, text);
		text += len;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

void cli_options__help(enum cli_cmd cmd, const char *usage, FILE *f)
{
	const char *sections[] = { cli_cmd_names[cmd], "Input", "Output", "Filters", "Method",
				   "Binaries", "Execution" };
	size_t s, i;

	fputs(usage, f);
	for (s = 0; s < sizeof(sections) / sizeof(sections[0]); s++) {
		bool first = true;

		for (i = 0; i < NR_OPTIONS; i++) {
			const struct cli_option *o = &options[i];
			char head[128], text[1024];
			int col;

			if (!takes(o, cmd) || strcmp(o->section, sections[s]))
				continue;
			if (first)
				fprintf(f, "%s:\n", s ? sections[s] : "Options");
			first = false;
			col = option_head(head, sizeof(head), o);
			fputs(head, f);
			if (col > HELP_COL - 2) {
				fputc('\n', f);
				col = 0;
			}
			snprintf(text, sizeof(text), "%s%s%s%s", o->help, o->def ? " (default " : "",
				 o->def ? o->def : "", o->def ? ")" : "");
			put_wrapped(f, col, text);
		}
	}
	fputs("\nExit status: 0 ok, 1 usage error, 2 bad input, 3 I/O or resource failure,\n"
	      "4 no row (nothing found). See hbbp-convert(1).\n", f);
}

void cli_options__list(FILE *f)
{
	size_t i, c;

	for (i = 0; i < NR_OPTIONS; i++) {
		const struct cli_option *o = &options[i];
		const char *sep = "";

		fprintf(f, "%s\t", o->section);
		if (o->short_name)
			fprintf(f, "-%c ", o->short_name);
		fprintf(f, "--%s%s%s\t%s\t", o->name, o->alias ? " --" : "",
			o->alias ? o->alias : "", o->arg ? o->arg : "");
		for (c = 0; c < CLI__NR; c++)
			if (takes(o, (enum cli_cmd)c)) {
				fprintf(f, "%s%s", sep, cli_cmd_names[c]);
				sep = ",";
			}
		fputc('\n', f);
	}
}

/* ---- after parsing: the conversion's options ---- */

/* A path named by an option must be there (and be a directory or not, as said): else one
 * line naming the option, and a usage error. */
static int check_path(const char *opt, const char *shown, const char *path, bool dir)
{
	struct stat st;

	if (!path)
		return 0;
	if (stat(path, &st)) {
		pr_err("%s %s: %s", opt, shown, strerror(errno));
		return -1;
	}
	if (dir != !!S_ISDIR(st.st_mode)) {
		pr_err(dir ? "%s %s: not a directory" : "%s %s: a directory, not a file", opt,
		       shown);
		return -1;
	}
	return 0;
}

static int check_paths(const struct cli_args *a)
{
	const struct bbmap_find_opts *f = &a->conv.find;
	size_t i;

	for (i = 0; i < a->nr_binaries; i++) {
		char shown[4096];

		snprintf(shown, sizeof(shown), "%s=%s", a->binaries[i].name, a->binaries[i].path);
		if (check_path("--binary", shown, a->binaries[i].path, false))
			return -1;
	}
	if (check_path("--symfs", f->symfs, f->symfs, true) ||
	    check_path("--buildid-dir", f->buildid_dir, f->buildid_dir && *f->buildid_dir ?
		       f->buildid_dir : NULL, true) ||
	    check_path("--vmlinux", f->vmlinux, f->vmlinux, false) ||
	    check_path("--kallsyms", f->kallsyms, f->kallsyms, false))
		return -1;
	return 0;
}

/* The environment's knob: the build-id cache as perf finds it. */
static void read_env(struct convert_opts *o)
{
	static char home_debug[PATH_MAX];
	const char *home = getenv("HOME"), *dir = getenv("PERF_BUILDID_DIR");

	if (!o->find.buildid_dir && dir && *dir)
		o->find.buildid_dir = dir;
	else if (!o->find.buildid_dir && home && *home &&
		 (size_t)snprintf(home_debug, sizeof(home_debug), "%s/.debug", home) <
		 sizeof(home_debug))
		o->find.buildid_dir = home_debug;
}

static const char *taxonomy_group(void *ctx, const struct bbmap_insn *in)
{
	return in->mnemonic ? bbmap_taxonomy__group(ctx, in->mnemonic) : "";
}

/* --taxonomy FILE: the user's groups as a key column (added to the default keys) */
static int load_taxonomy(struct cli_args *a)
{
	int err = bbmap_taxonomy__load(&a->tax, a->taxonomy_file);

	if (err) {
		pr_err("%s: cannot read the taxonomy: %s", a->taxonomy_file, hbbp_strerror(err));
		return HBBP_EXIT_INPUT;
	}
	a->taxcol.column = "taxonomy";
	a->taxcol.group = taxonomy_group;
	a->taxcol.ctx = a->tax;
	a->conv.mix.taxonomy = &a->taxcol;
	return HBBP_EXIT_OK;
}

static int parse_keys(struct cli_args *a)
{
	const char *by = a->tax && !cli_args__given(a, "by") ? HBBP_DEFAULT_KEYS ",taxonomy" :
			 a->by ? a->by : HBBP_DEFAULT_KEYS;
	const char *k = strstr(by, "taxonomy");
	char err[512];

	if (!a->tax && k && (k == by || k[-1] == ',') && (k[8] == ',' || !k[8])) {
		pr_err("--by taxonomy: needs --taxonomy FILE (the user instruction groups)");
		return HBBP_EXIT_USAGE;
	}
	if (hbbp_mix__parse_keys(&a->conv.mix, by, a->tax ? "taxonomy" : NULL, err, sizeof(err))) {
		pr_err("%s", err);
		return HBBP_EXIT_USAGE;
	}
	return HBBP_EXIT_OK;
}

int cli_convert__finish(struct cli_args *a)
{
	struct convert_opts *o = &a->conv;
	int rc;

	if (check_paths(a))
		return HBBP_EXIT_USAGE;
	if (o->mix.user_only && o->mix.kernel_only) {
		pr_err("--user-only and --kernel-only exclude each other");
		return HBBP_EXIT_USAGE;
	}
	read_env(o);
	o->mix.comm = a->comm;
	o->mix.pid = a->pid;
	o->mix.module = a->module;
	o->mix.symbol = a->symbol;
	o->find.binaries = a->binaries;
	o->find.nr_binaries = a->nr_binaries;
	if (a->taxonomy_file && (rc = load_taxonomy(a)))
		return rc;
	if ((rc = parse_keys(a)))
		return rc;
	if (!a->jobs) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		a->jobs = n < 1 ? 1 : n > 8 ? 8 : (unsigned long)n;
	}
	if (!a->quiet && isatty(2)) {
		o->progress = cli_progress;
		o->progress_ctx = a;
	}
	return HBBP_EXIT_OK;
}

int cli_convert__defaults(struct convert_opts *o)
{
	static char *argv[] = { "convert", NULL };
	struct cli_args a;
	int rc = cli_args__parse(&a, CLI_CONVERT, "", 1, argv);

	a.quiet = true;
	if (!rc)
		rc = cli_convert__finish(&a);
	*o = a.conv;
	cli_args__exit(&a);
	return rc;
}

int cli_compute_exit(int err)
{
	if (!err)
		return HBBP_EXIT_OK;
	if (err == -ENOMEM)
		return HBBP_EXIT_IO;
	/* a file that cannot be read is bad input here, not an I/O failure */
	return hbbp_exit_code(err) == HBBP_EXIT_IO ? HBBP_EXIT_INPUT : hbbp_exit_code(err);
}

void cli_print_notes(const struct convert_run *run, const char *input)
{
	size_t i;

	for (i = 0; i < run->nr_notes; i++)
		pr_warn("%s: %s", input, run->notes[i]);
}

int cli_empty(const struct convert_run *run, const struct convert_opts *o, const char *what)
{
	char why[1024];

	convert__empty_why(run, o, why, sizeof(why));
	pr_err("%s: %s: %s", o->input, what, why);
	return HBBP_EXIT_EMPTY;
}

int cli_check_output(const char *opt, const char *path)
{
	struct stat st;

	if (!path || stat(path, &st) || !S_ISDIR(st.st_mode))
		return HBBP_EXIT_OK;
	pr_err("%s %s: a directory: give a file to write (%s%sNAME)", opt, path, path,
	       path[strlen(path) - 1] == '/' ? "" : "/");
	return HBBP_EXIT_USAGE;
}

int cli_compute(struct convert_run *run, const struct convert_opts *o)
{
	int err = convert__compute(run, o);

	cli_print_notes(run, o->input);
	return cli_compute_exit(err);
}
