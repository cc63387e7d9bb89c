/* hbbp-convert [OPTIONS] [PERF_DATA...]: the conversion. The options are the table's
 * (hbbp/cli/options.c); this file checks the output before any work, runs the conversion
 * (hbbp/engine/convert.c), writes each result that has a row and prints its summary. Exit
 * codes: 0 ok, 1 usage, 2 bad input, 3 I/O, 4 a result with no row (not written).
 * Depends on hbbp/engine/convert.h and the writers.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hbbp/cli/options.h"
#include "util/hbbp_err.h"

static const char usage_text[] =
"usage: hbbp-convert [OPTIONS] [PERF_DATA]    (default ./perf.data)\n"
"       hbbp-convert [OPTIONS] -o FILE.sqlite [--append] PERF_DATA...   (one run each)\n"
"       hbbp-convert [OPTIONS] -o FILE.csv|FILE.jsonl PERF_DATA...   (a run column)\n"
"       hbbp-convert [OPTIONS] -o postgresql://[USER@]HOST/DB PERF_DATA...   (one run each)\n"
"       hbbp-convert annotate|report|diff ...    (listings, an HTML page, two runs)\n"
"       hbbp-convert compare --ref REF MIX       (accuracy against a reference mix)\n"
"       hbbp-convert train --ref TRUTH PERF_DATA...   (learn the cutoff)\n"
"       hbbp-convert dump|stats FILE             (the records, the file's facts)\n"
"       hbbp-convert disasm [-f text|csv] BINARY   (every instruction, as decoded here)\n"
"       hbbp-convert help [COMMAND]  |  --version\n"
"\n"
"Reads a perf record file (perf record -b -e <instructions> -e <taken branches>), computes\n"
"basic-block execution counts with the Hybrid Basic Block Profiling method and writes an\n"
"instruction mix. Filters, method, binaries and execution are the same for annotate,\n"
"report and diff.\n"
"\n";

/* The directory an output file goes into must exist and be writable: checked before the
 * conversion, so that a typo costs no minutes of work. */
static int check_output_dir(const char *out)
{
	const char *slash = strrchr(out, '/');
	char dir[4096];
	struct stat st;

	if (!stat(out, &st) && !S_ISREG(st.st_mode))
		return 0;	/* a device or FIFO is written directly (writers/SCHEMA.md) */
	if (!slash) {
		strcpy(dir, ".");
	} else {
		size_t n = slash == out ? 1 : (size_t)(slash - out);

		if (n >= sizeof(dir))
			return 0;
		memcpy(dir, out, n);
		dir[n] = 0;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		pr_err("-o %s: directory '%s' does not exist", out, dir);
		return -1;
	}
	if (access(dir, W_OK)) {
		pr_err("-o %s: directory '%s' is not writable: %s", out, dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* --append adds to a SQLite database: an existing output that is not one is refused
 * before converting (the writer would fail after the work, naming a copy step). An output
 * that is one of the inputs is left to the writer, which refuses it as such. */
static int check_append_target(const char *out)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	struct stat st;
	FILE *f;
	size_t n;

	if (stat(out, &st) || !S_ISREG(st.st_mode) || !st.st_size)
		return 0;
	f = fopen(out, "rb");
	if (!f)
		return 0;	/* the writer reports what it cannot open */
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (n == sizeof(head) && !memcmp(head, magic, sizeof(magic)))
		return 0;
	pr_err("--append -o %s: not a SQLite database (--append adds a run to one)", out);
	return -1;
}

/* The output, its format (-f, else the extension) and what it can take: before any work. */
static int check_output(struct cli_args *a, const char *const *inputs, size_t nr)
{
	enum writer_format *fmt = &a->conv.format;
	const char *out = a->output && strcmp(a->output, "-") ? a->output : NULL;
	bool db = *fmt == WRITER_SQLITE || *fmt == WRITER_POSTGRES;
	struct writer_opts wo = { .force = a->force, .inputs = inputs, .nr_inputs = nr };
	int err;

	if (cli_check_output("-o", out))
		return HBBP_EXIT_USAGE;
	if (!out && !cli_args__given(a, "format") && isatty(STDOUT_FILENO))
		*fmt = WRITER_TABLE;	/* a terminal reads a table, as perf report prints */
	if (out && !cli_args__given(a, "format")) {
		*fmt = writer_format_from_path(out);
		if (*fmt == WRITER_NONE) {	/* a keyword connection string's password masked */
			char *shown = conninfo__mask(out, NULL);

			pr_err("-o %s: cannot tell the format from the extension (.csv, .json, "
			       ".jsonl, .sqlite, .db); use -f", shown ? shown : "");
			free(shown);
			return HBBP_EXIT_USAGE;
		}
		db = *fmt == WRITER_SQLITE || *fmt == WRITER_POSTGRES;
	}
	if (*fmt == WRITER_SQLITE && !out) {
		pr_err("SQLite output needs a file (-o FILE.sqlite)");
		return HBBP_EXIT_USAGE;
	}
	if (*fmt == WRITER_POSTGRES && !a->output) {
		pr_err("PostgreSQL output needs a connection string (-o postgresql://...)");
		return HBBP_EXIT_USAGE;
	}
	if (out && writer_format_is_file(*fmt) && check_output_dir(out))
		return HBBP_EXIT_IO;
	if (nr > 1 && !db && *fmt != WRITER_CSV && *fmt != WRITER_JSONL) {
		pr_err("several input files need CSV, JSON Lines (a run column) or SQLite output "
		       "(-o FILE.sqlite: one run each)");
		return HBBP_EXIT_USAGE;
	}
	if (!db && (a->append || a->label)) {
		pr_err(a->append ? "--append works with SQLite output only" :
		       "--label works with SQLite and PostgreSQL output only");
		return HBBP_EXIT_USAGE;
	}
	a->append = a->append && *fmt == WRITER_SQLITE;	/* a server always adds a run */
	wo.append = a->append;
	if (out && (err = writer__check_target(out, *fmt, &wo)))	/* nothing converted */
		return err == -HBBP_EUSAGE ? HBBP_EXIT_USAGE : HBBP_EXIT_IO;
	/* after the target checks: an output that is an input is refused as such first */
	if (a->append && out && check_append_target(out))
		return HBBP_EXIT_INPUT;
	return HBBP_EXIT_OK;
}

/* The inputs, and what writing them has done so far. */
struct inputs {
	struct cli_args *a;
	const char *const *names;
	size_t nr, nfailed;
	const char *first_failed;
	bool wrote;		/* later runs are appended to the database */
	bool more;		/* inputs follow the one being written */
	size_t cur;		/* the input being written */
	int rc;			/* the first failure's exit code */
	struct result *runs;	/* CSV, JSON Lines of several inputs: their rows, a run column
				 * first, written once all are in */
};

/* The mix of input i (its result res) appended to in->runs under a first column `run` (the
 * input's name as given), its warnings with the name before them; the inputs' key and value
 * columns must be the same. */
static int merge_run(struct inputs *in, size_t i, const struct result *res)
{
	const struct result_table *mix = result__table(res, "mix");
	struct result_table *t = result__table(in->runs, "mix");
	size_t r, c;
	int err = 0;

	if (!t) {
		err = result__add_table_from(in->runs, "mix", "run:text", mix, &t);
		if (err)
			return err;
		for (c = 0; c < mix->nr_cols; c++)
			t->cols[c + 1].unset = mix->cols[c].unset;
	}
	for (c = 0; c < mix->nr_cols && t->nr_cols == mix->nr_cols + 1; c++)
		if (strcmp(t->cols[c + 1].name, mix->cols[c].name) ||
		    t->cols[c + 1].unset != mix->cols[c].unset)
			break;
	if (t->nr_cols != mix->nr_cols + 1 || c < mix->nr_cols) {
		pr_err("%s: its columns differ from the first input's: one CSV or JSON Lines "
		       "output holds runs of one layout (write them to SQLite instead)",
		       in->names[i]);
		return -HBBP_EUNSUPP;
	}
	for (r = 0; r < res->nr_warnings && !err; r++)
		err = result__warn(in->runs, "%s: %s", in->names[i], res->warnings[r]);
	for (r = 0; r < mix->nr_rows && !err; r++) {
		const struct result_cell *from = result_table__row(mix, r);
		struct result_cell *to = result_table__add_row(t);

		if (!to)
			return -ENOMEM;
		err = result_cell__text(t, &to[0], in->names[i]);
		for (c = 0; c < mix->nr_cols && !err; c++) {
			to = result_table__row(t, t->nr_rows - 1);
			if (from[c].type == RES_TEXT)
				err = result_cell__text(t, &to[c + 1], from[c].s);
			else
				to[c + 1] = from[c];
		}
	}
	return err;
}

/* Writes a computed run (appended after the first written) and prints its summary; a run
 * with no row is not written. */
static int write_run(struct inputs *in, struct convert_run *run, const struct convert_opts *o)
{
	const struct cli_args *a = in->a;
	const char *out = a->output && strcmp(a->output, "-") ? a->output : "-";
	struct writer_opts wo = { .append = a->append || in->wrote, .force = a->force,
				  .more = in->more, .last = !in->more, .label = a->label,
				  .inputs = in->names, .nr_inputs = in->nr };
	const struct result_table *mix = result__table(run->res, "mix");
	double t = hbbp_now();
	int err;

	/* under --diagnostics the no-code rows are what was asked for */
	if (o->mix.diagnostics ? !mix || !mix->nr_rows : convert__mix_empty(mix))
		return cli_empty(run, o, "no row, nothing written");
	if (in->runs)
		err = merge_run(in, in->cur, run->res);
	else
		err = writer__write(run->res, out, o->format, &wo);

	if (err)	/* the writer said why, a connection string's password masked */
		return hbbp_exit_code(err);
	if (!a->quiet)
		cli_summary(run, o, hbbp_now() - t);
	return HBBP_EXIT_OK;
}

/* convert_done_fn: the run of input i, in input order */
static void input_done(void *ctx, size_t i, struct convert_run *run, const struct convert_opts *o,
		       int err)
{
	struct inputs *in = ctx;
	int rc = cli_compute_exit(err);

	hbbp_log_subject(o->input);
	cli_print_notes(run, o->input);
	in->more = i + 1 < in->nr;
	in->cur = i;
	if (rc == HBBP_EXIT_OK)
		rc = write_run(in, run, o);
	if (rc == HBBP_EXIT_OK)
		in->wrote = true;
	else if (in->nfailed++, !in->first_failed)
		in->first_failed = in->names[i];
	if (rc != HBBP_EXIT_OK && in->rc == HBBP_EXIT_OK)
		in->rc = rc;
}

/* Several inputs: each written as it comes, then how many failed (the first named) and what
 * the output holds. */
static int convert_many(struct inputs *in)
{
	const struct cli_args *a = in->a;
	enum writer_format fmt = a->conv.format;
	char *shown;
	size_t i;
	int err;

	if ((fmt == WRITER_CSV || fmt == WRITER_JSONL) && result__new(&in->runs)) {
		pr_err("out of memory");
		return HBBP_EXIT_IO;
	}
	if (convert__run_many(&a->conv, in->names, in->nr, (unsigned)a->jobs, input_done, in)) {
		pr_err("out of memory");
		result__delete(in->runs);
		return HBBP_EXIT_IO;
	}
	hbbp_log_subject(NULL);
	if (in->runs && in->wrote) {	/* the runs' rows in one output */
		struct writer_opts wo = { .force = a->force, .last = true, .inputs = in->names,
					  .nr_inputs = in->nr };
		char key[32];

		err = result__meta_int(in->runs, "runs", (int64_t)(in->nr - in->nfailed));
		for (i = 0; i < in->nr && !err; i++) {
			snprintf(key, sizeof(key), "input_%zu", i + 1);
			err = result__meta_text(in->runs, key, in->names[i]);
		}
		err = err ? err : writer__write(in->runs, a->output ? a->output : "-", fmt, &wo);
		if (err) {
			in->wrote = false;
			if (in->rc == HBBP_EXIT_OK)
				in->rc = hbbp_exit_code(err);
		}
	}
	result__delete(in->runs);
	shown = conninfo__mask(a->output, NULL);
	if (in->nfailed && in->wrote)
		pr_err("%zu of %zu inputs failed (the first: %s): %s holds the runs of the "
		       "other %zu only", in->nfailed, in->nr, in->first_failed,
		       shown ? shown : "the output", in->nr - in->nfailed);
	else if (in->nfailed)
		pr_err("all %zu inputs failed: nothing written", in->nr);
	free(shown);
	return in->rc;
}

int cmd_convert(int argc, char **argv)
{
	static const char *const default_input[] = { "perf.data" };
	struct cli_args a;
	struct inputs in = { .a = &a, .names = default_input, .nr = 1 };
	struct convert_run run;
	int rc = cli_args__parse(&a, CLI_CONVERT, usage_text, argc, argv);

	if (rc || a.done)
		goto out;
	if (a.nr_operands) {
		in.names = (const char *const *)a.operands;
		in.nr = a.nr_operands;
	}
	rc = cli_convert__finish(&a);
	if (!rc)
		rc = check_output(&a, in.names, in.nr);
	if (rc)
		goto out;
	/* Blocks of 4 MiB and more from maps of their own: freed, they go back to the kernel;
	 * growing, they move without a copy (mremap), where in the heap each move of a big
	 * array leaves a hole peak RSS pays for. The heap is not trimmed below 96 MiB. Peak
	 * RSS 19 MiB lower on cc1, 11 on mix3000 (bench/RESULTS.md). */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 96 << 20);
	if (in.nr > 1) {
		rc = convert_many(&in);
		goto out;
	}
	a.conv.input = in.names[0];
	rc = cli_compute(&run, &a.conv);
	if (rc == HBBP_EXIT_OK)
		rc = write_run(&in, &run, &a.conv);
	convert__run_exit(&run);
out:
	cli_args__exit(&a);
	return rc;
}
