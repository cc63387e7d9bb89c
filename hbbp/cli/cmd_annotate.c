/* hbbp-convert annotate [--symbol LIST] [--module LIST] [-f text|csv] [conversion options]
 * FILE: per-instruction counts of functions next to their disassembly and source lines.
 * The conversion runs as usual (hbbp/engine/convert.c); the listing is built from its block
 * results (hbbp/pivot/annotate.c); this file parses the arguments and draws the text form,
 * its counts in their unit (instructions, or ns for a time-based recording) and its recorded
 * strings escaped (hbbp_escape). No function to list is exit 4, with the cause.
 * Depends on hbbp/engine/convert.h, hbbp/pivot/annotate.h and the writers (CSV form).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hbbp/cli/options.h"
#include "hbbp/pivot/annotate.h"
#include "util/hbbp_err.h"
#include "util/open_file.h"

static const char usage_text[] =
"usage: hbbp-convert annotate [--symbol LIST] [--module LIST] [-f text|csv] [OPTIONS] FILE\n"
"\n"
"Per-instruction execution counts of functions: for each instruction its estimated count,\n"
"share of the function, 95% interval, address and text, with the block boundaries (the\n"
"source chosen for the block: lbr, ebs or a fallback, and the bias flag) and the source\n"
"lines where the binary has them. --symbol and --module choose the functions (default:\n"
"the hottest); --comm, --pid, --user-only and --kernel-only do not apply to the listing.\n"
"\n";

/* ---- source text, read once per file ---- */

#define SRC_MAX_FILES	64
#define SRC_MAX_SIZE	(8u << 20)

struct src_file {
	char *path;
	char *text;		/* NULL: unreadable */
	size_t nr_lines;
	char **lines;
};

struct src_cache {
	struct src_file f[SRC_MAX_FILES];
	size_t nr;
};

static struct src_file *src_load(struct src_cache *c, const char *path)
{
	struct src_file *s;
	FILE *fp;
	int err;
	size_t i, n, size;
	long len;

	for (i = 0; i < c->nr; i++)
		if (!strcmp(c->f[i].path, path))
			return &c->f[i];
	if (c->nr == SRC_MAX_FILES)
		return NULL;
	s = &c->f[c->nr];
	memset(s, 0, sizeof(*s));
	s->path = strdup(path);
	if (!s->path)
		return NULL;
	c->nr++;
	/* a path the debug info names: hbbp_open_file refuses what is not a regular file */
	fp = hbbp_open_text(path, 0, &err);
	if (!fp)
		return s;
	if (fseek(fp, 0, SEEK_END) || (len = ftell(fp)) < 0 || (size_t)len > SRC_MAX_SIZE ||
	    fseek(fp, 0, SEEK_SET))
		goto out;
	size = (size_t)len;
	s->text = malloc(size + 1);
	if (s->text && fread(s->text, 1, size, fp) == size) {
		s->text[size] = 0;
		for (i = 0, n = 1; i < size; i++)
			n += s->text[i] == '\n';
		s->lines = calloc(n + 1, sizeof(*s->lines));
	}
	if (!s->lines) {	/* unreadable, or no memory */
		free(s->text);
		s->text = NULL;
		goto out;
	}
	s->lines[s->nr_lines++] = s->text;
	for (i = 0; i < size; i++)
		if (s->text[i] == '\n') {
			s->text[i] = 0;
			if (i + 1 < size)
				s->lines[s->nr_lines++] = s->text + i + 1;
		}
out:
	fclose(fp);
	return s;
}

static void src_exit(struct src_cache *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		free(c->f[i].path);
		free(c->f[i].text);
		free(c->f[i].lines);
	}
}

/* The text of "file:line", or NULL. */
static const char *src_line(struct src_cache *c, const char *srcline)
{
	const char *colon = strrchr(srcline, ':');
	char path[4096];
	struct src_file *s;
	unsigned long line;

	if (!colon || colon == srcline || (size_t)(colon - srcline) >= sizeof(path))
		return NULL;
	line = strtoul(colon + 1, NULL, 10);
	snprintf(path, sizeof(path), "%.*s", (int)(colon - srcline), srcline);
	s = src_load(c, path);
	if (!s || !s->text || !line || line > s->nr_lines)
		return NULL;
	return s->lines[line - 1];
}

/* ---- the text form ---- */

struct style {
	bool on;
	bool no_source;
	const char *unit;	/* of the counts (convert__count_unit) */
};

static const char *col(const struct style *st, const char *code)
{
	return st->on ? code : "";
}

#define C_RESET	"\033[0m"
#define C_BLOCK	"\033[36m"
#define C_SRC	"\033[34m"
#define C_HOT	"\033[1;31m"
#define C_WARM	"\033[33m"
#define C_COOL	"\033[32m"
#define C_COLD	"\033[2m"
#define C_HEAD	"\033[1m"

static const char *heat(const struct style *st, double share)
{
	if (share >= 0.10)
		return col(st, C_HOT);
	if (share >= 0.01)
		return col(st, C_WARM);
	if (share > 0)
		return col(st, C_COOL);
	return col(st, C_COLD);
}

/* Copies at most width bytes of s into out with tabs as spaces, control characters
 * escaped. */
static void clip(char *out, size_t size, const char *s, size_t width)
{
	char tmp[256];
	size_t n = 0;

	for (; *s && n + 1 < sizeof(tmp) && n < width; s++)
		tmp[n++] = *s == '\t' ? ' ' : *s;
	tmp[n] = 0;
	hbbp_escape(out, size, tmp);
}

static void print_func(FILE *out, const struct annotate *a, const struct annotate_func *f,
		       const struct style *st, struct src_cache *sc)
{
	const char *prev_src = NULL;
	char sym[1024], mod[512];
	uint64_t next = 0;
	size_t i;

	hbbp_escape(sym, sizeof(sym), f->symbol);
	hbbp_escape(mod, sizeof(mod), f->module);
	fprintf(out, "%s%s%s (%s, 0x%" PRIx64 "): %.0f %s, %.2f%% of the total%s\n",
		col(st, C_HEAD), sym, col(st, C_RESET), mod, f->start, f->count, st->unit,
		a->total > 0 ? 100.0 * f->count / a->total : 0.0,
		f->nr_insns < f->nr_insns_all ? " (hottest instructions only)" : "");
	fprintf(out, "%12s %7s  %-27s %10s  %s\n", "count", "share",
		a->has_intervals ? "95% interval" : "95% interval: unavailable", "address",
		"instruction");
	for (i = 0; i < f->nr_insns; i++) {
		const struct annotate_insn *in = &f->insns[i];
		double share = f->count > 0 ? in->count / f->count : 0;
		char iv[64], text[384];

		if (i && next && in->addr > next)
			fprintf(out, "%s%12s %7s  %-27s %10s  (%" PRIu64 " bytes without counts)%s\n",
				col(st, C_COLD), "", "", "", "...", in->addr - next, col(st, C_RESET));
		if (in->block_start) {
			char cyc[96] = "";

			if (isfinite(in->block_cycles) && in->count > 0 && in->block_cycles > 0)
				snprintf(cyc, sizeof(cyc), ", %.4g cycles/execution, IPC %.3g",
					 in->block_cycles / in->count,
					 in->block_len * in->count / in->block_cycles);
			fprintf(out, "%s-- block 0x%" PRIx64 ": %u insns, %s%s%s --%s\n",
				col(st, C_BLOCK), in->block_addr, in->block_len,
				in->source && *in->source ? in->source : "no source",
				in->biased ? ", biased" : "", cyc, col(st, C_RESET));
		}
		if (in->srcline && (!prev_src || strcmp(prev_src, in->srcline))) {
			const char *txt = st->no_source ? NULL : src_line(sc, in->srcline);
			char line[512], where[512];

			clip(line, sizeof(line), txt ? txt : "", 72);
			hbbp_escape(where, sizeof(where), hbbp_basename(in->srcline, true));
			fprintf(out, "%s%s%s%s%s\n", col(st, C_SRC), where, txt ? "   " : "", line,
				col(st, C_RESET));
			prev_src = in->srcline;
		}
		if (isfinite(in->lo) && isfinite(in->hi))
			snprintf(iv, sizeof(iv), "[%.0f, %.0f]", in->lo, in->hi);
		else
			snprintf(iv, sizeof(iv), "n/a");
		clip(text, sizeof(text), in->text ? in->text : "?", 60);
		fprintf(out, "%s%12.0f %6.2f%%  %-27s %10" PRIx64 "%s  %s\n", heat(st, share),
			in->count, 100.0 * share, iv, in->addr, col(st, C_RESET), text);
		next = in->len ? in->addr + in->len : 0;
	}
	if (f->nr_insns < f->nr_insns_all)
		fprintf(out, "%zu more instructions with %.0f %s counted are not listed\n",
			f->nr_insns_all - f->nr_insns, f->count_cut, st->unit);
	fputc('\n', out);
}

static int write_csv(const struct annotate *a)
{
	struct result *r;
	int err = result__new(&r);

	if (!err)
		err = annotate__table(a, r, "mix", false);
	if (!err)
		err = writer__write(r, "-", WRITER_CSV, &(struct writer_opts){ 0 });
	result__delete(r);
	return err;
}

/* The functions asked for that the listing lacks, and what else it lacks: warnings. */
static void warn_missing(const struct annotate *a, const struct annotate_opts *ao,
			 const char *input)
{
	size_t i, j;

	for (i = 0; i < ao->nr_symbols; i++) {
		bool found = false;

		for (j = 0; j < a->nr_funcs && !found; j++)
			found = annotate__name_matches(ao->symbols[i], a->funcs[j].symbol);
		if (!found)
			pr_warn("%s: no function '%s'%s%s with counts", input, ao->symbols[i],
				ao->module ? " in " : "", ao->module ? ao->module : "");
	}
	if (!a->has_intervals)
		pr_warn("%s: the 95%% interval is unavailable: this conversion computes no "
			"count_lo/count_hi", input);
}

/* No function to list: the cause is the names asked for when the run has functions with
 * counts, else the run itself (convert__empty_why, without the filters that do not apply
 * to the listing). One error line; HBBP_EXIT_EMPTY. */
static int say_empty(const struct annotate_opts *ao, struct convert_run *run,
		     const struct convert_opts *o)
{
	struct annotate_opts any = { .top = 1 };
	struct convert_opts all = *o;
	struct annotate *an = NULL;
	char names[512];
	size_t i, len = 0;
	bool listed = false;

	if ((ao->nr_symbols || ao->module) && !annotate__build(&an, run->res, &any, NULL, NULL))
		listed = an->nr_funcs > 0;
	annotate__delete(an);
	if (!listed) {
		all.mix.comm = all.mix.pid = NULL;
		all.mix.user_only = all.mix.kernel_only = false;
		return cli_empty(run, &all, "no function to list");
	}
	names[0] = 0;
	for (i = 0; i < ao->nr_symbols; i++) {
		int n = snprintf(names + len, sizeof(names) - len, "%s'%s'", i ? ", " : " ",
				 ao->symbols[i]);

		if (n > 0 && (size_t)n < sizeof(names) - len)
			len += (size_t)n;
	}
	pr_err("%s: no function%s%s%s with counts; hbbp-convert --by module,symbol %s lists "
	       "those with counts", o->input, names, ao->module ? " in " : "",
	       ao->module ? ao->module : "", o->input);
	return HBBP_EXIT_EMPTY;
}

static int print_text(const struct annotate *a, const struct cli_args *args, const char *unit)
{
	struct style st = { .no_source = args->no_source, .unit = unit };
	struct src_cache sc;
	size_t i;

	memset(&sc, 0, sizeof(sc));
	st.on = !args->no_color && isatty(1) && !getenv("NO_COLOR");
	for (i = 0; i < a->nr_funcs; i++)
		print_func(stdout, a, &a->funcs[i], &st, &sc);
	src_exit(&sc);
	if (fflush(stdout) || ferror(stdout)) {
		pr_err("stdout: cannot write");
		return HBBP_EXIT_IO;
	}
	return HBBP_EXIT_OK;
}

/* --symbol's list, split into ao's names (each may be a glob) */
static int split_symbols(struct annotate_opts *ao, char *list)
{
	const char **v;
	char *save = NULL, *t;

	if (!list)
		return 0;
	v = calloc(strlen(list) / 2 + 2, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
		v[ao->nr_symbols++] = t;
	ao->symbols = v;
	return 0;
}

int cmd_annotate(int argc, char **argv)
{
	struct cli_args a;
	struct convert_run run;
	struct annotate_opts ao = { 0 };
	struct annotate *an = NULL;
	bool computed = false;
	int rc = cli_args__parse(&a, CLI_ANNOTATE, usage_text, argc, argv), err;

	if (rc || a.done)
		goto out;
	if (a.nr_operands != 1) {
		pr_err(a.nr_operands ? "annotate: one recording at a time" :
		       "annotate: no recording given");
		rc = HBBP_EXIT_USAGE;
		goto out;
	}
	rc = cli_convert__finish(&a);
	if (rc)
		goto out;
	if (a.comm || a.pid || a.conv.mix.user_only || a.conv.mix.kernel_only)
		pr_warn("annotate: --comm, --pid, --user-only and --kernel-only do not apply to "
			"the listing: its counts are every thread's");
	/* --symbol and --module choose the functions listed, not the mix's rows */
	ao.module = a.module;
	ao.top = a.top;
	a.conv.mix.module = a.conv.mix.symbol = NULL;
	if (split_symbols(&ao, a.symbol)) {
		rc = HBBP_EXIT_IO;
		goto out;
	}
	a.conv.input = a.operands[0];
	a.conv.all_tables = true;
	computed = true;
	rc = cli_compute(&run, &a.conv);
	if (rc != HBBP_EXIT_OK)
		goto out;
	err = annotate__build(&an, run.res, &ao, convert__insn_text, &run);
	if (err) {
		pr_err("%s: cannot build the listing: %s", a.conv.input, hbbp_strerror(err));
		rc = err == -ENOMEM ? HBBP_EXIT_IO : HBBP_EXIT_INPUT;
		goto out;
	}
	if (!an->nr_funcs) {
		rc = say_empty(&ao, &run, &a.conv);
		goto out;
	}
	warn_missing(an, &ao, a.conv.input);
	if (!a.csv) {
		rc = print_text(an, &a, convert__count_unit(&run));
	} else if ((err = write_csv(an))) {
		pr_err("stdout: cannot write: %s", hbbp_strerror(err));
		rc = HBBP_EXIT_IO;
	}
out:
	annotate__delete(an);
	if (computed)
		convert__run_exit(&run);
	free((void *)ao.symbols);
	cli_args__exit(&a);
	return rc;
}
