/* Subcommands of hbbp-convert. Each takes the argv after the program name (argv[0] is the
 * subcommand, or the first argument for the default conversion) and returns an exit code
 * (HBBP_EXIT_*). Their options are the rows of hbbp/cli/options.c.
 */
#ifndef HBBP_COMMANDS_H
#define HBBP_COMMANDS_H

int cmd_convert(int argc, char **argv);	/* default: perf.data -> instruction mix */
int cmd_dump(int argc, char **argv);	/* hbbp-convert dump [--limit N] FILE */
int cmd_stats(int argc, char **argv);	/* hbbp-convert stats FILE */
int cmd_compare(int argc, char **argv);	/* hbbp-convert compare --ref REF MIX */
int cmd_train(int argc, char **argv);	/* hbbp-convert train --ref REF ... PERF_DATA... */
int cmd_annotate(int argc, char **argv);	/* hbbp-convert annotate [--symbol LIST] FILE */
int cmd_report(int argc, char **argv);	/* hbbp-convert report FILE... -o report.html */
int cmd_diff(int argc, char **argv);	/* hbbp-convert diff [--by KEYS] A B */
int cmd_version(void);			/* hbbp-convert --version */
int cmd_disasm(int argc, char **argv);	/* hbbp-convert disasm [-f text|csv] BINARY */

#endif
