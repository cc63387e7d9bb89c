/* hbbp-convert report: not built yet in this revision. */
#include "hbbp/cli/commands.h"
#include "util/hbbp_err.h"
int cmd_report(int argc, char **argv) { (void)argc; (void)argv; pr_err("report: not available in this build"); return HBBP_EXIT_USAGE; }
