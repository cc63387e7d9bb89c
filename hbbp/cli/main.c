/* hbbp-convert entry point: installs the stderr log sink and the SIGBUS handler for inputs
 * that shrink while mapped (util/mapguard.h), and dispatches to a subcommand.
 * Without a known subcommand the arguments are those of the conversion itself.
 * `help [COMMAND]` and `help --list-options` (hbbp/cli/options.h) are answered here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <locale.h>

#include "hbbp/cli/options.h"
#include "util/hbbp_err.h"
#include "util/mapguard.h"
#include "writers/writer.h"

static void log_to_stderr(enum hbbp_log_level level, const char *msg, void *ctx)
{
	static const char *const prefix[] = { "error: ", "warning: ", "", "debug: " };

	(void)ctx;
	fprintf(stderr, "hbbp-convert: %s%s\n", prefix[level], msg);
}

/* by enum cli_cmd */
static int (*const commands[CLI__NR])(int argc, char **argv) = {
	cmd_convert, cmd_annotate, cmd_report, cmd_diff, cmd_compare, cmd_train, cmd_dump,
	cmd_stats, cmd_disasm,
};

static int command(const char *name)
{
	int i;

	for (i = 1; i < CLI__NR; i++)
		if (!strcmp(name, cli_cmd_names[i]))
			return i;
	return -1;
}

/* git's habit: help [COMMAND] */
static int help(int argc, char **argv)
{
	static char opt[] = "--help";
	char *av[3] = { argv[2], opt, NULL };
	int c = argc < 3 || !strcmp(argv[2], "convert") ? CLI_CONVERT : command(argv[2]);

	if (argc >= 3 && !strcmp(argv[2], "--list-options")) {
		cli_options__list(stdout);
		return fflush(stdout) || ferror(stdout) ? HBBP_EXIT_IO : HBBP_EXIT_OK;
	}
	if (c < 0) {
		pr_err("help: no command '%s' (convert, annotate, report, diff, compare, train, "
		       "dump, stats, disasm)", argv[2]);
		return HBBP_EXIT_USAGE;
	}
	av[0] = argv[0];
	return commands[c](2, av);
}

int main(int argc, char **argv)
{
	const char *verbose = getenv("HBBP_DEBUG");
	int c;

	setlocale(LC_ALL, "C");
	/* an input that shrinks while mapped: a message and exit 2, not a crash */
	hbbp_mapguard__install("hbbp-convert", writer__cleanup_on_fault);
	hbbp_log_set(log_to_stderr, NULL, verbose && *verbose ? HBBP_LOG_DEBUG : HBBP_LOG_INFO);
	if (argc >= 2 && !strcmp(argv[1], "help"))
		return help(argc, argv);
	c = argc >= 2 ? command(argv[1]) : -1;
	if (c > 0)
		return commands[c](argc - 1, argv + 1);
	return cmd_convert(argc, argv);
}
