/* The one option table of hbbp-convert: every option of every command is declared once in
 * hbbp/cli/options.c (its names, argument, the commands that take it, its help text, its
 * default, the field it sets and its parser), and parsing, defaults, --help, `help COMMAND`
 * and `help --list-options` (which the manual is checked against) all come from it. The
 * conversion options (filters, method, binaries, execution) are taken alike by convert,
 * annotate, report and diff, and finished alike (cli_convert__finish: the named paths, the
 * environment's knobs, the keys, the threads).
 * Depends on hbbp/engine/convert.h and libc getopt; messages through hbbp_log.
 */
#ifndef HBBP_CLI_OPTIONS_H
#define HBBP_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "bbmap/taxonomy.h"
#include "hbbp/engine/convert.h"

enum cli_cmd {
	CLI_CONVERT, CLI_ANNOTATE, CLI_REPORT, CLI_DIFF, CLI_COMPARE, CLI_TRAIN, CLI_DUMP,
	CLI_STATS, CLI_DISASM, CLI__NR
};

#define CLI_MAX_OPTS	64

/* A repeatable option's values, in the order given. */
struct cli_strings {
	const char **v;
	size_t nr;
};

/* The fields the options set, and what the commands make of them. */
struct cli_args {
	enum cli_cmd cmd;
	struct convert_opts conv;	/* the conversion's options */
	const char *output;		/* -o */
	bool append, force;
	const char *label;
	const char *by;			/* --by (NULL: the default keys) */
	const char *taxonomy_file;
	char *comm, *pid, *module, *symbol;	/* filters, repeatable (lists joined) */
	struct bbmap_binary_override *binaries;	/* --binary, repeatable */
	size_t nr_binaries;
	bool quiet;
	unsigned long jobs;		/* 0: the command's own default */
	unsigned long top, insns, mnemonics;
	int csv;			/* -f text|csv: 1 for csv */
	int cycles_value;		/* compare --value count|cycles: 1 for cycles */
	bool no_color, no_source, shares, normalize, no_sort;
	unsigned long limit;
	struct cli_strings refs;	/* --ref, repeatable */
	struct cli_strings inputs;	/* -i, repeatable */
	char **operands;		/* the -i files, then the other operands */
	size_t nr_operands;
	char **all_operands;		/* operands when -i was given (allocated) */
	bool done;			/* --help or --version answered: nothing more to do */
	bool given[CLI_MAX_OPTS];	/* by row of the table: given on the command line */
	/* cli_convert__finish */
	struct bbmap_taxonomy *tax;
	struct hbbp_taxonomy taxcol;
	double t0;			/* progress: when the pass started */
	bool shown;			/* ... and whether the bar is on screen */
};

/* The subcommands. Each takes the argv after the program name (argv[0] is the subcommand,
 * or the first argument for the default conversion) and returns an exit code (HBBP_EXIT_*). */
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

/* The commands' names, by enum cli_cmd ("convert" for the default command). */
extern const char *const cli_cmd_names[CLI__NR];

/* Parses argv (argv[0] is the command) for cmd into a, after the table's defaults. Returns
 * HBBP_EXIT_OK, or the exit code after one message naming the option; a->done when --help
 * (usage then the options, on stdout) or --version was answered. cli_args__exit(a) after,
 * whatever it returned. */
int cli_args__parse(struct cli_args *a, enum cli_cmd cmd, const char *usage, int argc,
		    char **argv);
void cli_args__exit(struct cli_args *a);
/* Whether the option name of a->cmd was given on the command line. */
bool cli_args__given(const struct cli_args *a, const char *name);
/* One line per option: section, names, argument, commands (`help --list-options`). */
void cli_options__list(FILE *f);
/* The help text of cmd: usage, then its options by section. */
void cli_options__help(enum cli_cmd cmd, const char *usage, FILE *f);

/* After parsing convert, annotate, report or diff: the named paths must exist, the filters,
 * binaries and environment's knobs go into a->conv, the keys (a->by, else the default, with
 * the taxonomy's column) are parsed, the threads and the progress bar chosen. HBBP_EXIT_OK or
 * the exit code after one message. */
int cli_convert__finish(struct cli_args *a);
/* The conversion options of `hbbp-convert FILE` without other arguments, quiet (train, test
 * tools): HBBP_EXIT_OK or an exit code. */
int cli_convert__defaults(struct convert_opts *o);
/* Computes o's input into run and prints its notes: HBBP_EXIT_OK or the exit code (the error
 * was logged). convert__run_exit(run) after, whatever it returned. */
int cli_compute(struct convert_run *run, const struct convert_opts *o);
/* The exit code of an error returned by convert__compute. */
int cli_compute_exit(int err);
/* A computed run whose result is empty (convert__mix_empty, or what a command lists): one
 * error line "INPUT: WHAT: the cause; the fix" (convert__empty_why), and HBBP_EXIT_EMPTY. */
int cli_empty(const struct convert_run *run, const struct convert_opts *o, const char *what);
/* An output path (of option opt) that is a directory: one line, HBBP_EXIT_USAGE; else
 * HBBP_EXIT_OK. */
int cli_check_output(const char *opt, const char *path);
/* The notes of a run on stderr, each naming its input. */
void cli_print_notes(const struct convert_run *run, const char *input);
/* The summary of a written run on stderr (hbbp/cli/summary.c); t_write: the write's seconds. */
void cli_summary(const struct convert_run *run, const struct convert_opts *o, double t_write);
/* struct convert_opts.progress: the bar on stderr, from a second into the pass on (ctx: the
 * struct cli_args). */
void cli_progress(void *ctx, double fraction);

#endif
