/* hbbp-convert stats: placeholder until the subcommand lands. */
#include <stdio.h>
#include "hbbp/commands.h"
#include "util/hbbp_err.h"

int cmd_stats(int argc, char **argv)
{
	(void)argc; (void)argv;
	pr_err("stats: not built yet");
	return HBBP_EXIT_USAGE;
}
