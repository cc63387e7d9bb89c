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

/* The listing is output-bound: lines are built by hand into one large buffer per part, not by
 * printf or a stdio call per line. What repeats from line to line is made once: the text of
 * each mnemonic and the attribute columns (iclass to mem) of each combination of them, in
 * small direct-mapped caches, and the symbol's CSV field when the symbol changes. */
#define OUT_CAP (1u << 20)
#define MEM_CAP (64u << 20)	/* a part's listing kept in memory, at most */
#define LINE_MAX_FIXED 1024	/* a line without its operands and symbol name */
#define CACHE_SLOTS 1024

struct tail_slot {
	const char *iclass;		/* key: iclass pointer and the packed attributes */
	uint64_t attrs;
	uint16_t len;
	char s[160];
};

struct mn_slot {
	const char *mn;
	uint16_t len;
	char s[112];
};

struct out {
	FILE *f;
	bool mem;			/* the listing is kept in b (up to cap), then moved
					 * to a temporary file f */
	bool csv;
	int err;			/* -EIO once a write failed */
	char *b;
	size_t n, cap;
	const struct bbmap_symbol *sym;	/* the symbol of sym_csv */
	char *sym_csv;
	size_t sym_len, sym_cap;
	struct tail_slot tails[CACHE_SLOTS];
	struct mn_slot mns[CACHE_SLOTS];
};

static void out_flush(struct out *o)
{
	if (o->mem)
		return;
	if (o->n && !o->err && fwrite_unlocked(o->b, 1, o->n, o->f) != o->n)
		o->err = -EIO;
	o->n = 0;
}

/* Room for need more bytes; false when memory ran out (the line is dropped, o->err set). */
static bool out_room(struct out *o, size_t need)
{
	if (o->n + need <= o->cap)
		return true;
	if (o->mem) {
		o->f = tmpfile();
		o->mem = false;
		if (!o->f) {
			o->err = -EIO;
			return false;
		}
	}
	out_flush(o);
	if (need > o->cap) {
		char *nb = realloc(o->b, need);

		if (!nb) {
			o->err = -ENOMEM;
			return false;
		}
		o->b = nb;
		o->cap = need;
	}
	return true;
}

static char *put_mem(char *p, const char *s, size_t k)
{
	if (k)		/* s may be NULL then: memcpy takes none */
		memcpy(p, s, k);
	return p + k;
}

static char *put_str(char *p, const char *s)
{
	return put_mem(p, s, strlen(s));
}

static char *put_dec(char *p, uint64_t v)
{
	char t[24];
	size_t k = 0;

	do {
		t[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (k)
		*p++ = t[--k];
	return p;
}

/* v in lowercase hex, right-aligned in width with fill (width 0: no padding) */
static char *put_hex(char *p, uint64_t v, size_t width, char fill)
{
	static const char digits[] = "0123456789abcdef";
	char t[16];
	size_t k = 0;

	do {
		t[k++] = digits[v & 15];
		v >>= 4;
	} while (v);
	while (width > k) {
		*p++ = fill;
		width--;
	}
	while (k)
		*p++ = t[--k];
	return p;
}

/* s as a CSV field of the writers' CSV, empty when s is; p has room for 2 * k + 2 bytes */
static char *put_csv(char *p, const char *s, size_t k)
{
	return k ? p + writer__csv_field(p, s, k) : p;
}

static size_t slot_of(const void *ptr, uint64_t more)
{
	uint64_t h = ((uintptr_t)ptr >> 3) * 0x9e3779b97f4a7c15ull ^ more * 0xff51afd7ed558ccdull;

	return (size_t)(h >> 40) % CACHE_SLOTS;
}

/* The mnemonic's text: text "mnemonic " padded to 7 columns; csv its field and a comma. */
static const struct mn_slot *mn_text(struct out *o, const char *mn)
{
	struct mn_slot *e = &o->mns[slot_of(mn, 0)];
	size_t k;
	char *p;

	if (e->mn == mn)
		return e;
	k = strlen(mn);
	if (k > 48)
		k = 48;
	p = e->s;
	if (o->csv) {
		p = put_csv(p, mn, k);
		*p++ = ',';
	} else {
		p = put_mem(p, mn, k);
		*p++ = ' ';
		while (p < e->s + 7)
			*p++ = ' ';
	}
	e->len = (uint16_t)(p - e->s);
	e->mn = mn;
	return e;
}

/* The attribute columns: text "\t# ICLASS isa isa_set category width mem\n", csv
 * ",ICLASS,isa,isa_set,category,width,mem," */
static const struct tail_slot *tail_text(struct out *o, const struct bbmap_insn *in)
{
	bool r = in->flags & BBMAP_INSN_MEM_READ, w = in->flags & BBMAP_INSN_MEM_WRITE;
	uint64_t key = (uint64_t)in->isa | (uint64_t)in->isa_set << 8 |
		       (uint64_t)in->category << 16 | (uint64_t)in->width << 24 |
		       (uint64_t)(r | w << 1) << 40 | 1ull << 48;
	const char *ic = in->iclass ? in->iclass : "";
	struct tail_slot *e = &o->tails[slot_of(ic, key)];
	const char *set, *mem = r && w ? "rw" : r ? "r" : w ? "w" : "";
	char sep = o->csv ? ',' : ' ';
	size_t k;
	char *p;

	if (e->iclass == ic && e->attrs == key)
		return e;
	set = bbmap_isa_set_name(in->isa_set);
	k = strlen(ic);
	if (k > 40)
		k = 40;
	p = e->s;
	if (o->csv)
		*p++ = ',';
	else
		p = put_mem(p, "\t# ", 3);
	p = put_mem(p, ic, k);
	*p++ = sep;
	p = put_str(p, bbmap_isa_name(in->isa));
	*p++ = sep;
	p = put_str(p, *set || o->csv ? set : "-");
	*p++ = sep;
	p = put_str(p, bbmap_category_name(in->category));
	*p++ = sep;
	p = put_dec(p, in->width);
	*p++ = sep;
	p = put_str(p, *mem || o->csv ? mem : "-");
	*p++ = o->csv ? ',' : '\n';
	e->len = (uint16_t)(p - e->s);
	e->iclass = ic;
	e->attrs = key;
	return e;
}

/* The symbol's CSV field, made when the symbol changes. */
static void sym_field(struct out *o, const struct bbmap_symbol *sym)
{
	size_t k = sym ? strlen(sym->name) : 0;

	o->sym = sym;
	o->sym_len = 0;
	if (2 * k + 3 > o->sym_cap) {
		char *nb = realloc(o->sym_csv, 2 * k + 3);

		if (!nb) {
			o->err = -ENOMEM;
			return;
		}
		o->sym_csv = nb;
		o->sym_cap = 2 * k + 3;
	}
	if (sym)
		o->sym_len = (size_t)(put_csv(o->sym_csv, sym->name, k) - o->sym_csv);
}

/* The "<symbol>:" line over a function in the text listing. */
static void put_sym_line(struct out *o, const struct bbmap_symbol *sym)
{
	size_t k = strlen(sym->name);
	char *p;

	if (!out_room(o, k + 32))
		return;
	p = o->b + o->n;
	*p++ = '\n';
	p = put_hex(p, sym->start, 16, '0');
	p = put_mem(p, " <", 2);
	p = put_mem(p, sym->name, k);
	p = put_mem(p, ">:\n", 3);
	o->n = (size_t)(p - o->b);
}

static void put_insn(struct out *o, const struct bbmap_insn *in, bool first,
		     const struct bbmap_symbol *sym)
{
	const char *ops = in->operands ? in->operands : "";
	const struct mn_slot *mn = mn_text(o, in->mnemonic ? in->mnemonic : "");
	const struct tail_slot *tl = tail_text(o, in);
	size_t k = strlen(ops);
	char *p;

	if (o->csv && sym != o->sym)
		sym_field(o, sym);
	if (!out_room(o, LINE_MAX_FIXED + 2 * k + (o->csv ? o->sym_len : 0)))
		return;
	p = o->b + o->n;
	if (o->csv) {
		p = put_mem(p, "0x", 2);
		p = put_hex(p, in->addr, 0, 0);
		*p++ = ',';
		p = put_dec(p, in->len);
		*p++ = ',';
		p = put_mem(p, mn->s, mn->len);
		p = put_csv(p, ops, k);
		p = put_mem(p, tl->s, tl->len);
		*p++ = first ? '1' : '0';
		*p++ = ',';
		p = put_mem(p, o->sym_csv, o->sym_len);
		*p++ = '\n';
	} else {
		*p++ = first ? '*' : ' ';
		p = put_hex(p, in->addr, 8, ' ');
		*p++ = ':';
		*p++ = ' ';
		if (in->len < 10)
			*p++ = ' ';
		p = put_dec(p, in->len);
		*p++ = ' ';
		p = put_mem(p, mn->s, mn->len);
		p = put_mem(p, ops, k);
		p = put_mem(p, tl->s, tl->len);
	}
	o->n = (size_t)(p - o->b);
}

/* A listing written to f, or kept in memory (f NULL) in a buffer of cap bytes. */
static struct out *out_new(bool csv, FILE *f, size_t cap)
{
	struct out *o = calloc(1, sizeof(*o));

	if (o) {
		o->cap = f ? OUT_CAP : cap;
		o->b = malloc(o->cap);
	}
	if (!o || !o->b) {
		free(o);
		return NULL;
	}
	o->csv = csv;
	o->f = f;
	o->mem = !f;
	return o;
}

static void out_delete(struct out *o)
{
	if (!o)
		return;
	if (o->f && o->f != stdout)
		fclose(o->f);
	free(o->b);
	free(o->sym_csv);
	free(o);
}

static void out_put(struct out *o, const char *s)
{
	size_t k = strlen(s);

	if (out_room(o, k)) {
		memcpy(o->b + o->n, s, k);
		o->n += k;
	}
}

/* One part of the code, listed by one thread with its own module instance (a module is used
 * by one thread at a time): from start in code range ri to end in code range ri_end, written
 * to out. */
struct chunk {
	const char *path;
	bool csv;
	size_t ri, ri_end;
	uint64_t start, end;
	struct out *o;
	uint64_t reached;		/* where the walk stopped: >= end */
	uint64_t nr_insns, unreached, bytes_bad, bytes_cut;
	int err;
	struct worker th;
};

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

			if (!c->csv && blk->sym != *last_sym && blk->sym)
				put_sym_line(c->o, blk->sym);
			*last_sym = blk->sym;
			for (k = 0; k < blk->nr_insns; k++)
				put_insn(c->o, &blk->insns[k], k == 0, blk->sym);
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

static void *chunk_thread(void *arg)
{
	struct chunk *c = arg;
	struct bbmap_module *m;
	struct bbmap_module_stats st;

	c->err = bbmap_module__open_flags(&m, c->path, NULL, BBMAP_MODULE_NO_LINES);
	if (c->err) {
		fprintf(stderr, "hbbp-convert: disasm: %s: %s\n", c->path, hbbp_strerror(c->err));
		return NULL;
	}
	walk(c, m);
	out_flush(c->o);
	bbmap_module__stats(m, &st);
	c->bytes_bad = st.bytes_bad;
	c->bytes_cut = st.bytes_cut;
	bbmap_module__delete(m);
	return NULL;
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

/* Writes a part's listing, kept in memory or in its temporary file, to stdout. */
static int copy_out(struct out *o)
{
	char *buf;
	size_t k;
	int err = 0;

	if (o->mem)
		return o->n && fwrite(o->b, 1, o->n, stdout) != o->n ? -EIO : 0;
	buf = malloc(OUT_CAP);
	if (!buf)
		return -ENOMEM;
	rewind(o->f);
	while (!err && (k = fread(buf, 1, OUT_CAP, o->f)) > 0)
		if (fwrite(buf, 1, k, stdout) != k)
			err = -EIO;
	if (!err && ferror(o->f))
		err = -EIO;
	free(buf);
	return err;
}

/* Code bytes of a part, for the size of its listing kept in memory. */
static uint64_t chunk_bytes(struct bbmap_module *m, const struct chunk *c)
{
	uint64_t total = 0, s, e;
	size_t ri;

	for (ri = c->ri; ri <= c->ri_end && !bbmap_module__code_range(m, ri, &s, &e); ri++) {
		if (ri == c->ri)
			s = c->start;
		if (ri == c->ri_end)
			e = c->end;
		total += e > s ? e - s : 0;
	}
	return total;
}

/* The parts' outputs, the CSV header, and the threads of the parts after the first: the
 * number of parts that run (fewer when memory or a thread ran out), err set on failure. */
static size_t start_parts(struct bbmap_module *m, struct chunk *ch, size_t n, bool csv, int *err)
{
	size_t k, f;

	for (k = 0; k < n; k++) {
		/* about 16 bytes of text (19 of CSV) per byte of x86 code: the other parts
		 * are kept in memory while that fits MEM_CAP */
		uint64_t want = chunk_bytes(m, &ch[k]) * 24;

		ch[k].o = out_new(csv, k ? NULL : stdout,
				  want < OUT_CAP ? OUT_CAP : want > MEM_CAP ? MEM_CAP : want);
		if (!ch[k].o) {
			pr_err("disasm: %s", strerror(errno ? errno : ENOMEM));
			*err = -ENOMEM;
			return k;
		}
	}
	if (csv)
		out_put(ch[0].o, "address,length,mnemonic,operands,iclass,isa,isa_set,category,"
			"width,mem,block_start,symbol\n");
	/* The first part goes to stdout from this thread, the others to memory (a temporary
	 * file past MEM_CAP) from their threads, written after it in order. */
	for (k = 1; k < n; k++) {
		if (worker__start(&ch[k].th, chunk_thread, &ch[k])) {
			pr_err("disasm: cannot start a thread: %s", strerror(EAGAIN));
			for (f = k; f < n; f++)
				out_delete(ch[f].o);
			return k;
		}
	}
	return n;
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
	struct chunk ch[MAX_JOBS];
	uint64_t nr_insns = 0, unreached = 0, bytes_bad, bytes_cut;
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
	n = start_parts(m, ch, n, csv, &err);
	if (n) {
		walk(&ch[0], m);
		out_flush(ch[0].o);
		err = ch[0].err == -HBBP_ENOTFOUND ? 0 : ch[0].err;
		if (!err)
			err = ch[0].o->err;
	}
	for (k = 1; k < n; k++) {
		worker__join(&ch[k].th);
		if (!err && ch[k].err && ch[k].err != -HBBP_ENOTFOUND)
			err = ch[k].err;
		if (!err)
			err = ch[k].o->err;
		/* a part starts where the walk of the previous one stopped, or the cut was not
		 * clean: then the listing is done again in one walk */
		if (ch[k - 1].reached != ch[k].start)
			in_step = false;
	}
	bbmap_module__stats(m, &st);
	bytes_bad = st.bytes_bad;
	bytes_cut = st.bytes_cut;
	nr_insns = n ? ch[0].nr_insns : 0;
	unreached = n ? ch[0].unreached : 0;
	for (k = 1; k < n && !err; k++) {
		if (!in_step) {
			struct chunk *c = &ch[k];

			/* continue the one walk where it stopped, in this thread */
			c->start = ch[k - 1].reached > c->start && ch[k - 1].ri_end == c->ri ?
				   ch[k - 1].reached : c->start;
			if (c->o->f)
				fclose(c->o->f);
			c->o->f = stdout;
			c->o->mem = false;
			c->o->n = 0;
			c->nr_insns = c->unreached = 0;
			walk(c, m);
			out_flush(c->o);
			err = c->err == -HBBP_ENOTFOUND ? 0 : c->err;
			if (!err)
				err = c->o->err;
		} else {
			err = copy_out(ch[k].o);
			bytes_bad += ch[k].bytes_bad;
			bytes_cut += ch[k].bytes_cut;
		}
		nr_insns += ch[k].nr_insns;
		unreached += ch[k].unreached;
	}
	if (!in_step) {
		bbmap_module__stats(m, &st);
		bytes_bad = st.bytes_bad;
		bytes_cut = st.bytes_cut;
	}
	for (k = 0; k < n; k++)
		out_delete(ch[k].o);
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
