/* hbbp-convert report [conversion options] FILE... -o report.html: one self-contained HTML
 * page per set of recordings. Each recording is converted as usual (hbbp/engine/convert.c),
 * its report tables built by hbbp/pivot/report.c and the page drawn by
 * writers/html_report.c; this file parses the arguments and runs them in turn. A recording
 * whose mix has no row is exit 4 with the cause, and no page is written.
 * Depends on hbbp/engine/convert.h and writers/html_report.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "hbbp/cli/options.h"
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
"The page is bounded whatever the recording's size (--top, --insns, --mnemonics).\n"
"\n";

#define MAX_INPUTS 16

/* the output is one of the inputs (same file) */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The command line's checks: HBBP_EXIT_OK or the exit code after one message. */
static int check_args(struct cli_args *a)
{
	size_t i;

	if (cli_check_output("-o", a->output))
		return HBBP_EXIT_USAGE;
	if (!a->output || !a->nr_operands || a->nr_operands > MAX_INPUTS) {
		if (!a->output)
			pr_err("report: no output file (-o report.html)");
		else if (!a->nr_operands)
			pr_err("report: no recording given");
		else
			pr_err("report: at most %d recordings in one page", MAX_INPUTS);
		return HBBP_EXIT_USAGE;
	}
	for (i = 0; i < a->nr_operands; i++)
		if (strcmp(a->output, "-") && same_file(a->output, a->operands[i])) {
			pr_err("%s: the output is an input; refusing to overwrite it", a->output);
			return HBBP_EXIT_USAGE;
		}
	return cli_convert__finish(a);
}

int cmd_report(int argc, char **argv)
{
	struct cli_args a;
	struct report_opts ro = { .top_modules = 20 };
	struct result *runs[MAX_INPUTS] = { 0 };
	const char *names[MAX_INPUTS];
	size_t nr = 0, i;
	int rc = cli_args__parse(&a, CLI_REPORT, usage_text, argc, argv), err;

	if (rc || a.done || (rc = check_args(&a)))
		goto out;
	a.conv.all_tables = true;
	ro.filters = &a.conv.mix;
	ro.top_functions = a.top;
	ro.top_insns = a.insns;
	ro.top_mnemonics = a.mnemonics;
	for (i = 0; i < a.nr_operands && rc == HBBP_EXIT_OK; i++) {
		struct convert_run run;

		a.conv.input = a.operands[i];
		rc = cli_compute(&run, &a.conv);
		if (rc == HBBP_EXIT_OK && convert__mix_empty(result__table(run.res, "mix")))
			rc = cli_empty(&run, &a.conv, "no row, no page written");
		if (rc == HBBP_EXIT_OK) {
			err = result__new(&runs[nr]);
			if (!err)
				err = convert__report(&run, runs[nr], &ro);
			if (err) {
				pr_err("%s: cannot build the report: %s", a.conv.input,
				       hbbp_strerror(err));
				rc = err == -ENOMEM ? HBBP_EXIT_IO : HBBP_EXIT_INPUT;
			}
			names[nr++] = a.conv.input;
		}
		convert__run_exit(&run);
	}
	if (rc == HBBP_EXIT_OK &&
	    (err = html_report__write(a.output, (const struct result *const *)runs, names, nr))) {
		pr_err("%s: cannot write: %s", strcmp(a.output, "-") ? a.output : "stdout",
		       hbbp_strerror(err));
		rc = HBBP_EXIT_IO;
	}
out:
	for (i = 0; i < nr; i++)
		result__delete(runs[i]);
	cli_args__exit(&a);
	return rc;
}
