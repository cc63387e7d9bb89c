/* hbbp-convert diff [--by KEYS] [-f text|csv] [--shares] [conversion options] A B: what
 * changed between two runs beyond the sampling noise. A and B are recordings (converted
 * here) or runs of our SQLite output (FILE.sqlite#RUN_ID). The join and the rule are in
 * hbbp/compare/diff.c; this file parses the arguments, gets both tables and prints (the
 * unit of the counts when they are not instructions, the keys escaped). A run with no row
 * is exit 4, with the cause.
 * Depends on hbbp/engine/convert.h, hbbp/compare/diff.h and the writers (CSV form).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hbbp/cli/options.h"
#include "hbbp/compare/diff.h"
#include "util/hbbp_err.h"

static const char usage_text[] =
"usage: hbbp-convert diff [--by KEYS] [-f text|csv] [--shares] [--value count|cycles]\n"
"                         [OPTIONS] A B\n"
"\n"
"What changed from run A to run B beyond the sampling noise: A and B are recordings\n"
"(perf.data) or runs of a database written by hbbp-convert (FILE.sqlite#RUN_ID). Each row:\n"
"the keys, count_a, count_b, ratio (count_b / count_a), significant (1 when the difference\n"
"exceeds both runs' 95% intervals added in quadrature, 0 when not, empty when a run has no\n"
"intervals), then the intervals. Significant rows first, largest difference first; the\n"
"summary line (stdout in text form, stderr in CSV form) counts the significant rows.\n"
"--value cycles: the same for the rows' cycles (cycles_a, cycles_b, ...), runs recorded\n"
"with the branch records' cycle counts.\n"
"\n";

/* "FILE#N" naming an existing file and a run id: the file in path, the id in *run. */
static bool db_spec(const char *spec, char *path, size_t size, int64_t *run)
{
	const char *h = strrchr(spec, '#');
	struct stat sb;
	const char *p;
	char *end;
	long long v;

	if (!h || h == spec || !h[1] || (size_t)(h - spec) >= size)
		return false;
	for (p = h + 1; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	snprintf(path, size, "%.*s", (int)(h - spec), spec);
	if (stat(path, &sb) || !S_ISREG(sb.st_mode))
		return false;
	errno = 0;
	v = strtoll(h + 1, &end, 10);
	if (errno || *end || v < 1)
		return false;
	*run = v;
	return true;
}

/* The key columns of table t, comma-joined into buf. */
static void table_keys(const struct result_table *t, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = 0;
	for (i = 0; i < t->nr_cols; i++) {
		int n;

		if (diff__value_column(t->cols[i].name))
			continue;
		n = snprintf(buf + len, size - len, "%s%s", len ? "," : "", t->cols[i].name);
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
	}
}

struct input {
	const char *spec;
	bool is_db, computed;
	char path[4096];
	int64_t run_id;
	struct result *db_res;
	struct convert_run run;
	const struct result_table *mix;
	const char *unit;		/* of the counts; NULL: not known (a database run) */
};

static int input_get(struct input *in, const struct convert_opts *base, const char *base_by)
{
	struct convert_opts o = *base;
	int rc;

	if (in->is_db) {
		int err = result__new(&in->db_res);

		if (!err)
			err = diff__read_db(in->db_res, in->path, in->run_id, base_by);
		if (err)
			return err == -ENOMEM ? HBBP_EXIT_IO : err == -HBBP_EUSAGE ?
			       HBBP_EXIT_USAGE : HBBP_EXIT_INPUT;
		in->mix = result__table(in->db_res, "mix");
		if (!convert__mix_empty(in->mix))
			return HBBP_EXIT_OK;
		pr_err("%s: the run has no row to compare", in->spec);
		return HBBP_EXIT_EMPTY;
	}
	o.input = in->spec;
	o.mix.mix_only = true;
	rc = cli_compute(&in->run, &o);
	in->computed = true;
	if (rc != HBBP_EXIT_OK)
		return rc;
	in->mix = result__table(in->run.res, "mix");
	in->unit = convert__count_unit(&in->run);
	return convert__mix_empty(in->mix) ? cli_empty(&in->run, &o, "no row to compare") :
	       HBBP_EXIT_OK;
}

static void input_exit(struct input *in)
{
	if (in->computed)
		convert__run_exit(&in->run);
	result__delete(in->db_res);
}

static void fmt_num(char *buf, size_t size, const struct result_cell *c, bool shares)
{
	if (c->type == RES_NULL)
		snprintf(buf, size, "-");
	else if (shares)
		snprintf(buf, size, "%.4f%%", 100 * c->d);
	else
		snprintf(buf, size, "%.0f", c->d);
}

/* "A: SPEC" and the unit of its counts when they are not instructions */
static void print_input(const char *name, const struct input *in)
{
	char spec[1024];

	hbbp_escape(spec, sizeof(spec), in->spec);
	printf("%s: %s%s%s%s\n", name, spec, in->unit && strcmp(in->unit, "instructions") ?
	       " (counts in " : "", in->unit && strcmp(in->unit, "instructions") ? in->unit : "",
	       in->unit && strcmp(in->unit, "instructions") ? ")" : "");
}

static void print_text(const struct result_table *t, size_t top, bool shares,
		       const struct input *in)
{
	size_t i, j, nk = t->nr_cols - 8, n = t->nr_rows < top ? t->nr_rows : top;

	print_input("A", &in[0]);
	print_input("B", &in[1]);
	for (j = 0; j < nk; j++)
		printf("%-24.24s ", t->cols[j].name);
	printf("%14s %14s %8s %s\n", shares ? "share_a" : t->cols[nk].name,
	       shares ? "share_b" : t->cols[nk + 1].name, "ratio", "sig");
	for (i = 0; i < n; i++) {
		const struct result_cell *c = result_table__row(t, i);
		char ca[64], cb[64], r[32];

		for (j = 0; j < nk; j++) {
			char k[128];

			if (c[j].type == RES_TEXT)
				hbbp_escape(k, sizeof(k), c[j].s);
			else if (c[j].type == RES_INT)
				snprintf(k, sizeof(k), "%" PRId64, c[j].i);
			else
				k[0] = 0;
			printf("%-24.24s ", k);
		}
		fmt_num(ca, sizeof(ca), &c[nk], shares);
		fmt_num(cb, sizeof(cb), &c[nk + 1], shares);
		if (c[nk + 2].type == RES_REAL)
			snprintf(r, sizeof(r), "%.3f", c[nk + 2].d);
		else
			snprintf(r, sizeof(r), "-");
		printf("%14s %14s %8s %s\n", ca, cb, r, c[nk + 3].type == RES_NULL ? "?" :
		       c[nk + 3].i ? "*" : "");
	}
	if (n < t->nr_rows)
		printf("(%zu more rows; -f csv lists them all)\n", t->nr_rows - n);
}

static void summary(FILE *f, const struct diff_stats *st)
{
	if (st->intervals)
		fprintf(f, "%zu rows, %zu changed significantly (95%%)\n", st->nr_rows,
			st->nr_significant);
	else
		fprintf(f, "%zu rows, significance unavailable: a run has no 95%% intervals "
			"(count_lo/count_hi)\n", st->nr_rows);
}

/* The inputs, databases first: their keys are the default of the recordings' conversion,
 * whose options are finished then. */
static int inputs_get(struct input *in, struct cli_args *a, char *keys, size_t size)
{
	int i, rc;

	for (i = 0; i < 2; i++) {
		in[i].spec = a->operands[i];
		in[i].is_db = db_spec(in[i].spec, in[i].path, sizeof(in[i].path), &in[i].run_id);
	}
	for (i = 0; i < 2; i++)
		if (in[i].is_db && (rc = input_get(&in[i], &a->conv, a->by)) != HBBP_EXIT_OK)
			return rc;
	for (i = 0; i < 2 && !a->by; i++)
		if (in[i].is_db) {
			table_keys(in[i].mix, keys, size);
			a->by = keys;
		}
	if (!a->by)
		a->by = HBBP_DEFAULT_KEYS;
	if ((!in[0].is_db || !in[1].is_db) && (rc = cli_convert__finish(a)))
		return rc;
	for (i = 0; i < 2; i++)
		if (!in[i].is_db && (rc = input_get(&in[i], &a->conv, a->by)) != HBBP_EXIT_OK)
			return rc;
	for (i = 0; i < 2; i++) {
		char k[1024];

		table_keys(in[i].mix, k, sizeof(k));
		if (strcmp(k, a->by)) {
			pr_err("%s: the run's keys are %s, not %s (--by)", in[i].spec, k, a->by);
			return HBBP_EXIT_USAGE;
		}
	}
	return HBBP_EXIT_OK;
}

static int print_out(const struct result *out, const struct diff_stats *st,
		     const struct cli_args *a, const struct input *in)
{
	int err;

	if (a->csv) {
		err = writer__write(out, "-", WRITER_CSV, &(struct writer_opts){ 0 });
		if (err) {
			pr_err("stdout: cannot write: %s", hbbp_strerror(err));
			return HBBP_EXIT_IO;
		}
		if (!a->quiet)
			summary(stderr, st);
		return HBBP_EXIT_OK;
	}
	print_text(result__table(out, "mix"), a->top, a->shares, in);
	summary(stdout, st);
	if (fflush(stdout) || ferror(stdout)) {
		pr_err("stdout: cannot write");
		return HBBP_EXIT_IO;
	}
	return HBBP_EXIT_OK;
}

int cmd_diff(int argc, char **argv)
{
	struct cli_args a;
	struct input in[2];
	struct result *out = NULL;
	struct diff_opts dopts = { 0 };
	struct diff_stats st;
	char keys[1024];
	int rc = cli_args__parse(&a, CLI_DIFF, usage_text, argc, argv), err;

	memset(in, 0, sizeof(in));
	if (rc || a.done)
		goto out;
	if (a.nr_operands != 2) {
		pr_err("diff: two runs needed (A B), %zu given", a.nr_operands);
		rc = HBBP_EXIT_USAGE;
		goto out;
	}
	rc = inputs_get(in, &a, keys, sizeof(keys));
	if (rc)
		goto out;
	dopts.shares = a.shares;
	dopts.value = a.cycles_value ? "cycles" : "count";
	err = result__new(&out);
	if (!err)
		err = diff__tables(out, "mix", in[0].mix, in[1].mix, &dopts, &st);
	if (err == -HBBP_ENOTFOUND) {
		pr_err("%s: no cycles (recorded without the branch records' cycle counts): "
		       "--value cycles compares none", in[st.lacks].spec);
		rc = HBBP_EXIT_INPUT;
		goto out;
	}
	if (err) {
		pr_err("diff: %s", hbbp_strerror(err));
		rc = err == -ENOMEM ? HBBP_EXIT_IO : HBBP_EXIT_INPUT;
		goto out;
	}
	if (!st.intervals)
		pr_warn("the 95%% interval is unavailable in %s: no row can be called significant",
			result_table__col(in[0].mix, "count_lo") < 0 ? in[0].spec : in[1].spec);
	rc = print_out(out, &st, &a, in);
out:
	result__delete(out);
	input_exit(&in[0]);
	input_exit(&in[1]);
	cli_args__exit(&a);
	return rc;
}
