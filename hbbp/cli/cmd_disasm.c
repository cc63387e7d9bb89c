/* hbbp-convert disasm [-f text|csv] BINARY: every instruction of a binary's code, decoded
 * exactly as the conversion decodes it (bbmap: function by function, Zydis for x86, capstone
 * for Arm), with the attributes the mix pivots on: address, length, mnemonic, operands,
 * iclass, isa (extension), isa_set, category, width, mem, block_start, symbol. The last
 * stderr line counts instructions and undecodable bytes. Uses only bbmap's public API; knows
 * nothing of perf.data.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bbmap/module.h"
#include "hbbp/cli/options.h"
#include "util/hbbp_err.h"
#include "util/grow.h"
#include "util/parallel.h"
#include "writers/writer.h"

#define FORGET_BYTES (16u << 10)	/* decoded code kept before it is freed */
#define MAX_JOBS 16

static const char usage_text[] =
"usage: hbbp-convert disasm [-f text|csv] [-j N] BINARY\n"
"Every instruction of BINARY's code, decoded as the conversion decodes it.\n"
"text: '*' marks a block start; then address, length, mnemonic, operands, iclass, isa,\n"
"isa_set, category, width, mem (after '# '), under a '<symbol>:' line per function\n"
"\n";

/* s[0..k) as a CSV field of the writers' CSV (nothing when k is 0), then sep; a buffer of
 * 2 * k + 3 bytes for the field is kept in *buf. */
static int put_csv(FILE *f, char **buf, size_t *cap, const char *s, size_t k, char sep)
{
	if (k && grow_array((void **)buf, cap, 1, 2 * k + 3, SIZE_MAX))
		return -ENOMEM;
	if (k)
		fwrite_unlocked(*buf, 1, writer__csv_field(*buf, s, k), f);
	putc_unlocked(sep, f);
	return 0;
}

/* One part of the code, listed by one thread with its own module instance (a module is used
 * by one thread at a time): from start in code range ri to end in code range ri_end, written
 * to f (a temporary file; stdout for the whole code in one part). */
struct chunk {
	const char *path;
	bool csv;
	size_t ri, ri_end;
	uint64_t start, end;
	FILE *f;
	char *field;			/* a CSV field (put_csv) */
	size_t field_cap;
	uint64_t reached;		/* where the walk stopped: >= end */
	uint64_t nr_insns, unreached, bytes_bad, bytes_cut;
	int err;
	int out_err;			/* -ENOMEM once a CSV field had no memory */
};

/* The line of one instruction: text "*ADDR: LEN MNEMONIC OPERANDS\t# ICLASS isa isa_set
 * category width mem" ('*' at a block start, '-' for an empty isa_set or mem), or the CSV
 * columns. */
static void put_insn(struct chunk *c, const struct bbmap_insn *in, bool first,
		     const struct bbmap_symbol *sym)
{
	bool r = in->flags & BBMAP_INSN_MEM_READ, w = in->flags & BBMAP_INSN_MEM_WRITE;
	const char *mn = in->mnemonic ? in->mnemonic : "", *ops = in->operands ? in->operands : "";
	const char *ic = in->iclass ? in->iclass : "", *set = bbmap_isa_set_name(in->isa_set);
	const char *mem = r && w ? "rw" : r ? "r" : w ? "w" : "";
	size_t k = strlen(mn);

	if (!c->csv) {
		fprintf(c->f, "%c%8" PRIx64 ": %2u %-6.48s %s\t# %.40s %s %s %s %u %s\n",
			first ? '*' : ' ', in->addr, in->len, mn, ops, ic, bbmap_isa_name(in->isa),
			*set ? set : "-", bbmap_category_name(in->category), in->width,
			*mem ? mem : "-");
		return;
	}
	fprintf(c->f, "0x%" PRIx64 ",%u,", in->addr, in->len);
	if (put_csv(c->f, &c->field, &c->field_cap, mn, k < 48 ? k : 48, ',') ||
	    put_csv(c->f, &c->field, &c->field_cap, ops, strlen(ops), ',')) {
		c->out_err = -ENOMEM;
		return;
	}
	fprintf(c->f, "%.40s,%s,%s,%s,%u,%s,%c,", ic, bbmap_isa_name(in->isa), set,
		bbmap_category_name(in->category), in->width, mem, first ? '1' : '0');
	if (put_csv(c->f, &c->field, &c->field_cap, sym ? sym->name : "",
		    sym ? strlen(sym->name) : 0, '\n'))
		c->out_err = -ENOMEM;
}

static void walk_range(struct chunk *c, struct bbmap_module *m, uint64_t addr, uint64_t end,
		       uint64_t *since_forget, const struct bbmap_symbol **last_sym)
{
	while (addr < end) {
		const struct bbmap_block *blks;
		size_t nb, bi;

		if (*since_forget >= FORGET_BYTES) {
			bbmap_module__forget_code(m);
			*since_forget = 0;
		}
		c->err = bbmap_module__blocks_from(m, addr, &blks, &nb);
		if (c->err == -HBBP_ENOTFOUND) {
			c->unreached++;	/* not an instruction start of its region */
			addr++;
			continue;
		}
		if (c->err) {
			fprintf(stderr, "hbbp-convert: disasm: %s: at 0x%" PRIx64 ": %s\n", c->path,
				addr, hbbp_strerror(c->err));
			break;
		}
		for (bi = 0; bi < nb; bi++) {
			const struct bbmap_block *blk = &blks[bi];
			uint32_t k;

			/* the "<symbol>:" line over a function in the text listing */
			if (!c->csv && blk->sym != *last_sym && blk->sym)
				fprintf(c->f, "\n%016" PRIx64 " <%s>:\n", blk->sym->start,
					blk->sym->name);
			*last_sym = blk->sym;
			for (k = 0; k < blk->nr_insns; k++)
				put_insn(c, &blk->insns[k], k == 0, blk->sym);
			c->nr_insns += blk->nr_insns;
			*since_forget += blk->end - blk->start;
			addr = blk->end;
		}
	}
	c->reached = addr;
}

static void walk(struct chunk *c, struct bbmap_module *m)
{
	const struct bbmap_symbol *last_sym = NULL;
	uint64_t since_forget = 0, s, e;
	size_t ri;

	for (ri = c->ri; ri <= c->ri_end && !(c->err && c->err != -HBBP_ENOTFOUND); ri++) {
		if (bbmap_module__code_range(m, ri, &s, &e))
			break;
		walk_range(c, m, ri == c->ri ? c->start : s, ri == c->ri_end ? c->end : e,
			   &since_forget, &last_sym);
	}
}

/* Lists part item of the parts at ctx to its temporary file, with a module of its own. */
static void list_part(void *ctx, size_t item, unsigned int worker)
{
	struct chunk *c = (struct chunk *)ctx + item;
	struct bbmap_module *m;
	struct bbmap_module_stats st;

	(void)worker;
	c->err = bbmap_module__open_flags(&m, c->path, NULL, BBMAP_MODULE_NO_LINES);
	if (c->err) {
		fprintf(stderr, "hbbp-convert: disasm: %s: %s\n", c->path, hbbp_strerror(c->err));
		return;
	}
	walk(c, m);
	bbmap_module__stats(m, &st);
	c->bytes_bad = st.bytes_bad;
	c->bytes_cut = st.bytes_cut;
	bbmap_module__delete(m);
}

/* Threads by default: 2, or 1 when the CPUs are busy (the load average leaves none idle), as
 * a second thread then only adds its own start (a second module) to the CPU time. */
static unsigned auto_jobs(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double la;

	if (ncpu < 2 || (getloadavg(&la, 1) == 1 && la > (double)ncpu - 1))
		return 1;
	return 2;
}

/* Cuts the code into up to jobs parts of about equal size, each starting where a walk of the
 * whole binary starts a function anew: at a symbol start that no earlier symbol covers. */
static size_t plan(struct bbmap_module *m, const char *path, bool csv, unsigned jobs,
		   struct chunk *ch)
{
	uint64_t total = 0, s, e, per, done = 0, prev_end = 0;
	size_t ri, n = 0, si = 0, nr = bbmap_module__nr_code_ranges(m);
	size_t nsym = bbmap_module__nr_symbols(m);

	if (!nr)
		return 0;
	for (ri = 0; ri < nr; ri++) {
		bbmap_module__code_range(m, ri, &s, &e);
		total += e - s;
	}
	per = total / jobs + 1;
	bbmap_module__code_range(m, 0, &s, &e);
	ch[0] = (struct chunk){ .path = path, .csv = csv, .ri = 0, .start = s };
	for (ri = 0; ri < nr; ri++) {
		uint64_t at;

		bbmap_module__code_range(m, ri, &s, &e);
		at = s;
		/* the first clean symbol start past this part's share, while parts are left */
		for (; si < nsym && n + 1 < jobs; si++) {
			const struct bbmap_symbol *y = bbmap_module__symbol(m, si);

			if (y->start >= e)
				break;
			if (y->start > at && y->start >= s && prev_end <= y->start &&
			    done + (y->start - at) >= per) {
				ch[n].ri_end = ri;
				ch[n].end = y->start;
				n++;
				ch[n] = (struct chunk){ .path = path, .csv = csv, .ri = ri,
							.start = y->start };
				done = 0;
				at = y->start;
			}
			if (y->start + y->size > prev_end)
				prev_end = y->start + y->size;
		}
		done += e - at;
	}
	bbmap_module__code_range(m, nr - 1, &s, &e);
	ch[n].ri_end = nr - 1;
	ch[n].end = e;
	return n + 1;
}

/* The error of a part's output: a CSV field without memory, or a failed write. */
static int out_error(const struct chunk *c)
{
	return c->out_err ? c->out_err : ferror(c->f) ? -EIO : 0;
}

/* Writes a part's listing, kept in its temporary file, to stdout. */
static int copy_out(struct chunk *c)
{
	char buf[65536];
	size_t k;

	rewind(c->f);
	while ((k = fread(buf, 1, sizeof(buf), c->f)) > 0)
		if (fwrite(buf, 1, k, stdout) != k)
			return -EIO;
	return ferror(c->f) ? -EIO : 0;
}

/* The last line on stderr: instructions and undecodable bytes. */
static void print_counts(const char *path, uint64_t nr_insns, uint64_t unreached,
			 uint64_t bytes_bad, uint64_t bytes_cut)
{
	if (unreached)
		pr_warn("disasm: %s: %" PRIu64 " bytes of code are no instruction start of their "
			"function and were not listed", path, unreached);
	fprintf(stderr, "hbbp-convert: disasm: %s: %" PRIu64 " instructions, %" PRIu64
		" undecodable bytes", path, nr_insns, bytes_bad + unreached);
	if (bytes_cut)
		fprintf(stderr, " (%" PRIu64 " of them instructions cut off by the end of their "
			"function: padding or data before the next one)", bytes_cut);
	fputc('\n', stderr);
}

int cmd_disasm(int argc, char **argv)
{
	const char *path;
	struct cli_args a;
	struct bbmap_module *m;
	struct bbmap_module_stats st;
	struct chunk ch[MAX_JOBS], whole = { 0 };
	uint64_t nr_insns = 0, unreached = 0, bytes_bad = 0, bytes_cut = 0;
	unsigned jobs = 0;
	size_t n, k;
	bool csv, in_step = true;
	int rc, err = 0;

	rc = cli_args__parse(&a, CLI_DISASM, usage_text, argc, argv);
	if (!rc && !a.done && a.nr_operands != 1) {
		pr_err("disasm: %s", a.nr_operands ? "one BINARY only" : "no BINARY given");
		rc = HBBP_EXIT_USAGE;
	}
	path = !rc && !a.done ? a.operands[0] : NULL;
	jobs = (unsigned)a.jobs;
	csv = a.csv;
	cli_args__exit(&a);
	if (rc || !path)
		return rc;
	/* Decoded functions are freed and others allocated all along: keep freed memory in the
	 * heap (no mmap per large region, no trim) so that it is not faulted in again. */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	bbmap_module__threads_init();
	err = bbmap_module__open_flags(&m, path, NULL, BBMAP_MODULE_NO_LINES);
	if (err) {
		pr_err("disasm: %s: %s", path, hbbp_strerror(err));
		return hbbp_exit_code(err);
	}
	n = plan(m, path, csv, jobs ? jobs : auto_jobs(), ch);
	if (csv)
		fputs("address,length,mnemonic,operands,iclass,isa,isa_set,category,width,mem,"
		      "block_start,symbol\n", stdout);
	/* Parts on threads, each to a temporary file, written in order; when a part does not
	 * start where the walk of the previous one stopped (the cut was not clean), the
	 * listing is made again in one walk. */
	for (k = 0; k < n && n > 1; k++)
		if (!(ch[k].f = tmpfile())) {
			pr_err("disasm: %s", strerror(errno));
			err = -EIO;
			n = k;
		}
	if (n > 1 && !err) {
		parallel_for(n, (unsigned)n, list_part, ch);
		for (k = 0; k < n && !err; k++) {
			err = ch[k].err == -HBBP_ENOTFOUND ? 0 : ch[k].err;
			if (!err)
				err = out_error(&ch[k]);
			in_step &= !k || ch[k - 1].reached == ch[k].start;
		}
		for (k = 0; k < n && !err && in_step; k++) {
			err = copy_out(&ch[k]);
			nr_insns += ch[k].nr_insns;
			unreached += ch[k].unreached;
			bytes_bad += ch[k].bytes_bad;
			bytes_cut += ch[k].bytes_cut;
		}
	}
	if (n && !err && (n == 1 || !in_step)) {
		plan(m, path, csv, 1, &whole);
		whole.f = stdout;
		walk(&whole, m);
		err = whole.err == -HBBP_ENOTFOUND ? 0 : whole.err;
		if (!err)
			err = out_error(&whole);
		bbmap_module__stats(m, &st);
		nr_insns = whole.nr_insns;
		unreached = whole.unreached;
		bytes_bad = st.bytes_bad;
		bytes_cut = st.bytes_cut;
	}
	for (k = 0; k < n && n > 1; k++)
		fclose(ch[k].f);
	for (k = 0; k < n; k++)
		free(ch[k].field);
	free(whole.field);
	bbmap_module__delete(m);
	if (err == -EIO || (!err && (fflush(stdout) || ferror(stdout)))) {
		pr_err("disasm: write error: %s", strerror(errno));
		return HBBP_EXIT_IO;
	}
	if (err)
		return hbbp_exit_code(err);
	print_counts(path, nr_insns, unreached, bytes_bad, bytes_cut);
	return HBBP_EXIT_OK;
}
