/* hbbp-convert diff: not built yet in this revision. */
#include "hbbp/cli/commands.h"
#include "util/hbbp_err.h"
int cmd_diff(int argc, char **argv) { (void)argc; (void)argv; pr_err("diff: not available in this build"); return HBBP_EXIT_USAGE; }
