/* hbbp-convert convert: placeholder until the subcommand lands. */
#include <stdio.h>
#include "hbbp/commands.h"
#include "util/hbbp_err.h"

int cmd_convert(int argc, char **argv)
{
	(void)argc; (void)argv;
	pr_err("convert: not built yet");
	return HBBP_EXIT_USAGE;
}
