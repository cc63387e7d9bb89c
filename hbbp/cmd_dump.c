/* hbbp-convert dump: placeholder until the subcommand lands. */
#include <stdio.h>
#include "hbbp/commands.h"
#include "util/hbbp_err.h"

int cmd_dump(int argc, char **argv)
{
	(void)argc; (void)argv;
	pr_err("dump: not built yet");
	return HBBP_EXIT_USAGE;
}
