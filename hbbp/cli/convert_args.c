/* What the converting commands (convert, annotate, report, diff) do alike after parsing
 * (hbbp/cli/options.h): the named paths must exist, the filters, binaries and the
 * environment's knobs go into the conversion's options, the keys are parsed, the threads and
 * the progress bar chosen; and around a conversion, its notes printed and its error mapped to
 * an exit code. The one place hbbp-convert reads the environment (with main.c's HBBP_DEBUG
 * and annotate's NO_COLOR).
 * Depends on hbbp/engine/convert.h, bbmap/taxonomy.h and libc.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hbbp/cli/options.h"
#include "util/hbbp_err.h"

/* A path named by an option must be there (and be a directory or not, as said): else one
 * line naming the option, and a usage error. */
static int check_path(const char *opt, const char *shown, const char *path, bool dir)
{
	struct stat st;

	if (!path)
		return 0;
	if (stat(path, &st)) {
		pr_err("%s %s: %s", opt, shown, strerror(errno));
		return -1;
	}
	if (dir != !!S_ISDIR(st.st_mode)) {
		pr_err(dir ? "%s %s: not a directory" : "%s %s: a directory, not a file", opt,
		       shown);
		return -1;
	}
	return 0;
}

static int check_paths(const struct cli_args *a)
{
	const struct bbmap_find_opts *f = &a->conv.find;
	size_t i;

	for (i = 0; i < a->nr_binaries; i++) {
		char shown[4096];

		snprintf(shown, sizeof(shown), "%s=%s", a->binaries[i].name, a->binaries[i].path);
		if (check_path("--binary", shown, a->binaries[i].path, false))
			return -1;
	}
	if (check_path("--symfs", f->symfs, f->symfs, true) ||
	    check_path("--buildid-dir", f->buildid_dir, f->buildid_dir && *f->buildid_dir ?
		       f->buildid_dir : NULL, true) ||
	    check_path("--vmlinux", f->vmlinux, f->vmlinux, false) ||
	    check_path("--kallsyms", f->kallsyms, f->kallsyms, false))
		return -1;
	return 0;
}

/* The environment's knob: the build-id cache as perf finds it. */
static void read_env(struct convert_opts *o)
{
	static char home_debug[PATH_MAX];
	const char *home = getenv("HOME"), *dir = getenv("PERF_BUILDID_DIR");

	if (!o->find.buildid_dir && dir && *dir)
		o->find.buildid_dir = dir;
	else if (!o->find.buildid_dir && home && *home &&
		 (size_t)snprintf(home_debug, sizeof(home_debug), "%s/.debug", home) <
		 sizeof(home_debug))
		o->find.buildid_dir = home_debug;
}

static const char *taxonomy_group(void *ctx, const struct bbmap_insn *in)
{
	return in->mnemonic ? bbmap_taxonomy__group(ctx, in->mnemonic) : "";
}

/* --taxonomy FILE: the user's groups as a key column (added to the default keys) */
static int load_taxonomy(struct cli_args *a)
{
	int err = bbmap_taxonomy__load(&a->tax, a->taxonomy_file);

	if (err) {
		pr_err("%s: cannot read the taxonomy: %s", a->taxonomy_file, hbbp_strerror(err));
		return HBBP_EXIT_INPUT;
	}
	a->taxcol.column = "taxonomy";
	a->taxcol.group = taxonomy_group;
	a->taxcol.ctx = a->tax;
	a->conv.mix.taxonomy = &a->taxcol;
	return HBBP_EXIT_OK;
}

static int parse_keys(struct cli_args *a)
{
	const char *by = a->tax && !cli_args__given(a, "by") ? HBBP_DEFAULT_KEYS ",taxonomy" :
			 a->by ? a->by : HBBP_DEFAULT_KEYS;
	const char *k = strstr(by, "taxonomy");
	char err[512];

	if (!a->tax && k && (k == by || k[-1] == ',') && (k[8] == ',' || !k[8])) {
		pr_err("--by taxonomy: needs --taxonomy FILE (the user instruction groups)");
		return HBBP_EXIT_USAGE;
	}
	if (hbbp_mix__parse_keys(&a->conv.mix, by, a->tax ? "taxonomy" : NULL, err, sizeof(err))) {
		pr_err("%s", err);
		return HBBP_EXIT_USAGE;
	}
	return HBBP_EXIT_OK;
}

int cli_convert__finish(struct cli_args *a)
{
	struct convert_opts *o = &a->conv;
	int rc;

	if (check_paths(a))
		return HBBP_EXIT_USAGE;
	if (o->mix.user_only && o->mix.kernel_only) {
		pr_err("--user-only and --kernel-only exclude each other");
		return HBBP_EXIT_USAGE;
	}
	read_env(o);
	o->mix.comm = a->comm;
	o->mix.pid = a->pid;
	o->mix.module = a->module;
	o->mix.symbol = a->symbol;
	o->find.binaries = a->binaries;
	o->find.nr_binaries = a->nr_binaries;
	if (a->taxonomy_file && (rc = load_taxonomy(a)))
		return rc;
	if ((rc = parse_keys(a)))
		return rc;
	if (!a->jobs) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		a->jobs = n < 1 ? 1 : n > 8 ? 8 : (unsigned long)n;
	}
	if (!a->quiet && isatty(2)) {
		o->progress = cli_progress;
		o->progress_ctx = a;
	}
	return HBBP_EXIT_OK;
}

int cli_convert__defaults(struct convert_opts *o)
{
	static char *argv[] = { "convert", NULL };
	struct cli_args a;
	int rc = cli_args__parse(&a, CLI_CONVERT, "", 1, argv);

	a.quiet = true;
	if (!rc)
		rc = cli_convert__finish(&a);
	*o = a.conv;
	cli_args__exit(&a);
	return rc;
}

int cli_compute_exit(int err)
{
	if (!err)
		return HBBP_EXIT_OK;
	if (err == -ENOMEM)
		return HBBP_EXIT_IO;
	/* a file that cannot be read is bad input here, not an I/O failure */
	return hbbp_exit_code(err) == HBBP_EXIT_IO ? HBBP_EXIT_INPUT : hbbp_exit_code(err);
}

void cli_print_notes(const struct convert_run *run, const char *input)
{
	size_t i;

	for (i = 0; i < run->nr_notes; i++)
		pr_warn("%s: %s", input, run->notes[i]);
}

int cli_empty(const struct convert_run *run, const struct convert_opts *o, const char *what)
{
	char why[1024];

	convert__empty_why(run, o, why, sizeof(why));
	pr_err("%s: %s: %s", o->input, what, why);
	return HBBP_EXIT_EMPTY;
}

int cli_check_output(const char *opt, const char *path)
{
	struct stat st;

	if (!path || stat(path, &st) || !S_ISDIR(st.st_mode))
		return HBBP_EXIT_OK;
	pr_err("%s %s: a directory: give a file to write (%s%sNAME)", opt, path, path,
	       path[strlen(path) - 1] == '/' ? "" : "/");
	return HBBP_EXIT_USAGE;
}

int cli_compute(struct convert_run *run, const struct convert_opts *o)
{
	int err = convert__compute(run, o);

	cli_print_notes(run, o->input);
	return cli_compute_exit(err);
}
