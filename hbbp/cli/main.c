/* hbbp-convert entry point: installs the stderr log sink and the SIGBUS handler for inputs
 * that shrink while mapped (util/mapguard.h), and dispatches to a subcommand.
 * Without a known subcommand the arguments are those of the conversion itself.
 * `help [COMMAND]` is answered here, `--version` by hbbp/cli/version.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <locale.h>

#include "hbbp/cli/commands.h"
#include "util/hbbp_err.h"
#include "util/mapguard.h"
#include "writers/writer.h"

static void log_to_stderr(enum hbbp_log_level level, const char *msg, void *ctx)
{
	static const char *const prefix[] = { "error: ", "warning: ", "", "debug: " };

	(void)ctx;
	fprintf(stderr, "hbbp-convert: %s%s\n", prefix[level], msg);
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "dump", cmd_dump },
	{ "stats", cmd_stats },
	{ "compare", cmd_compare },
	{ "train", cmd_train },
	{ "annotate", cmd_annotate },
	{ "report", cmd_report },
	{ "diff", cmd_diff },
	{ "disasm", cmd_disasm },
};

int main(int argc, char **argv)
{
	const char *verbose = getenv("HBBP_DEBUG");
	size_t i;

	setlocale(LC_ALL, "C");
	/* an input that shrinks while mapped: a message and exit 2, not a crash */
	hbbp_mapguard__install("hbbp-convert", writer__cleanup_on_fault);
	hbbp_log_set(log_to_stderr, NULL, verbose && *verbose ? HBBP_LOG_DEBUG : HBBP_LOG_INFO);
	if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")))
		return cmd_version();
	if (argc >= 2 && !strcmp(argv[1], "help")) {	/* git's habit: help [COMMAND] */
		static char help[] = "--help";
		char *av[3] = { argv[2], help, NULL };

		for (i = 0; argc >= 3 && i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[2], commands[i].name))
				return commands[i].fn(2, av);
		if (argc >= 3 && strcmp(argv[2], "convert")) {
			fprintf(stderr, "hbbp-convert: error: help: no command '%s' (convert, dump, "
				"stats, compare, train, disasm)\n", argv[2]);
			return HBBP_EXIT_USAGE;
		}
		av[0] = argv[0];
		return cmd_convert(2, av);
	}
	if (argc >= 2) {
		for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[1], commands[i].name))
				return commands[i].fn(argc - 1, argv + 1);
	}
	return cmd_convert(argc, argv);
}
