/* hbbp-convert report [conversion options] FILE... -o report.html: one self-contained HTML
 * page per set of recordings. Each recording is converted as usual (hbbp/engine/convert.c),
 * its report tables built by hbbp/pivot/report.c and the page drawn by
 * writers/html_report.c; this file parses the arguments and runs them in turn.
 * Depends on hbbp/engine/convert.h, hbbp/pivot/report.h and writers/html_report.h.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hbbp/cli/commands.h"
#include "hbbp/cli/convert_args.h"
#include "hbbp/pivot/report.h"
#include "util/hbbp_err.h"
#include "writers/html_report.h"

static const char usage_text[] =
"usage: hbbp-convert report [OPTIONS] FILE... -o report.html\n"
"\n"
"One self-contained HTML page (no network, no external file: it opens from disk or as a\n"
"mail attachment) per set of recordings: the recording (events, roles, samples, lost and\n"
"throttled, weight that reached no code, warnings), the mix by category, ISA extension,\n"
"vector width and mnemonic as bar charts with the 95% intervals as whiskers, the hot\n"
"functions with their own mix, and each one's annotated disassembly (as 'annotate' gives\n"
"it) with the counts as heat. Several recordings: one section each and side-by-side charts.\n"
"The page is bounded whatever the recording's size:\n"
"      --top N         hottest functions listed (default 10)\n"
"      --insns N       hottest instructions listed per function (default 200)\n"
"      --mnemonics N   mnemonics charted, the rest as one row (default 30)\n"
"  -o, --output FILE   the page ('-': stdout); required\n"
"  -h, --help\n";

enum { OPT_TOP = 256, OPT_INSNS, OPT_MNEMONICS };

static const struct option own_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "insns", required_argument, NULL, OPT_INSNS },
	{ "mnemonics", required_argument, NULL, OPT_MNEMONICS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#define MAX_INPUTS 16

/* the output is one of the inputs (same file) */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cmd_report(int argc, char **argv)
{
	struct option opts[64];
	struct convert_opts o;
	struct report_opts ro = { .top_functions = 10, .top_insns = 200, .top_mnemonics = 30,
				  .top_modules = 20 };
	struct result *runs[MAX_INPUTS] = { 0 };
	const char *names[MAX_INPUTS];
	const char *out = NULL;
	unsigned long v;
	size_t nr = 0, i;
	int c, rc = HBBP_EXIT_OK, err;

	convert_args__init(&o);
	if (convert_args__merge(own_opts, opts, sizeof(opts) / sizeof(opts[0])))
		return HBBP_EXIT_USAGE;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h" CONVERT_ARGS_SHORT, opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case OPT_TOP:
		case OPT_INSNS:
		case OPT_MNEMONICS:
			if (convert_args__uint(c == OPT_TOP ? "--top" : c == OPT_INSNS ? "--insns" :
					       "--mnemonics", optarg, 100000, &v))
				goto usage;
			if (!v) {
				pr_err("%s: at least 1", c == OPT_TOP ? "--top" :
				       c == OPT_INSNS ? "--insns" : "--mnemonics");
				goto usage;
			}
			*(c == OPT_TOP ? &ro.top_functions : c == OPT_INSNS ? &ro.top_insns :
			  &ro.top_mnemonics) = v;
			break;
		case 'h':
			fputs(usage_text, stdout);
			fputs(convert_args__help, stdout);
			goto out;
		case ':':
			pr_err("option '%s' needs an argument", argv[optind - 1]);
			goto usage;
		case '?':
			pr_err("unknown option '%s'", argv[optind - 1]);
			goto usage;
		default:
			err = convert_args__handle(&o, c, optarg);
			if (err == -1)
				goto usage;
			if (err < 0) {
				rc = err == -2 ? HBBP_EXIT_INPUT : HBBP_EXIT_IO;
				goto out;
			}
			break;
		}
	}
	if (!out) {
		pr_err("report: no output file (-o report.html)");
		goto usage;
	}
	if (optind == argc) {
		pr_err("report: no recording given");
		goto usage;
	}
	if (argc - optind > MAX_INPUTS) {
		pr_err("report: at most %d recordings in one page", MAX_INPUTS);
		goto usage;
	}
	if (convert_args__finish(&o))
		goto usage;
	o.all_tables = true;
	ro.filters = &o.mix;
	for (i = 0; i < (size_t)(argc - optind); i++)
		if (strcmp(out, "-") && same_file(out, argv[optind + i])) {
			pr_err("%s: the output is an input; refusing to overwrite it", out);
			rc = HBBP_EXIT_USAGE;
			goto out;
		}
	for (; optind < argc; optind++) {
		struct convert_run run;

		o.input = argv[optind];
		rc = convert__compute(&run, &o);
		if (rc == HBBP_EXIT_OK) {
			ro.rs = perf_reader__stats(run.reader);
			err = result__new(&runs[nr]);
			if (!err)
				err = report__build(runs[nr], run.res, &run.counts, &run.drv.acc,
						    run.events, &ro, convert__insn_text, &run);
			if (err) {
				pr_err("%s: cannot build the report: %s", o.input, hbbp_strerror(err));
				rc = err == -ENOMEM ? HBBP_EXIT_IO : HBBP_EXIT_INPUT;
			}
			names[nr++] = o.input;
		}
		convert__run_exit(&run);
		if (rc != HBBP_EXIT_OK)
			goto out;
	}
	err = html_report__write(out, (const struct result *const *)runs, names, nr);
	if (err) {
		pr_err("%s: cannot write: %s", strcmp(out, "-") ? out : "stdout", hbbp_strerror(err));
		rc = HBBP_EXIT_IO;
	}
	goto out;
usage:
	fprintf(stderr, "Try 'hbbp-convert report --help' for more information.\n");
	rc = HBBP_EXIT_USAGE;
out:
	for (i = 0; i < nr; i++)
		result__delete(runs[i]);
	convert_args__exit(&o);
	return rc;
}
