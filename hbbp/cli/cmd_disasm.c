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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module.h"
#include "hbbp/cli/commands.h"
#include "util/hbbp_err.h"

#define FORGET_BYTES (256u << 10)	/* decoded code kept before it is freed */
#define MAX_JOBS 16

static int usage(void)
{
	fprintf(stderr, "usage: hbbp-convert disasm [-f text|csv] [-j N] BINARY\n");
	return HBBP_EXIT_USAGE;
}

static const char *mem_name(uint16_t f)
{
	bool r = f & BBMAP_INSN_MEM_READ, w = f & BBMAP_INSN_MEM_WRITE;

	return r && w ? "rw" : r ? "r" : w ? "w" : "";
}

/* The listing is output-bound: lines are built by hand, not by printf. */
struct line {
	char b[1024];
	size_t n;
};

static void put_s(struct line *l, const char *s)
{
	size_t k = strlen(s);

	if (k > sizeof(l->b) - 64 - l->n)
		k = sizeof(l->b) - 64 - l->n;
	memcpy(l->b + l->n, s, k);
	l->n += k;
}

static void put_c(struct line *l, char c)
{
	l->b[l->n++] = c;
}

static void pad(struct line *l, size_t from, size_t width)
{
	while (l->n < from + width)
		l->b[l->n++] = ' ';
}

static void put_u(struct line *l, uint64_t v, unsigned base, size_t width, char fill)
{
	static const char digits[] = "0123456789abcdef";
	char t[24];
	size_t k = 0;

	if (base == 16) {
		do {
			t[k++] = digits[v & 15];
			v >>= 4;
		} while (v);
	} else {
		do {
			t[k++] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
	}
	while (width > k) {
		l->b[l->n++] = fill;
		width--;
	}
	while (k)
		l->b[l->n++] = t[--k];
}

/* A CSV field per RFC 4180 (quoted when it holds a comma, quote, CR, LF or edge blank). */
static void csv_field(struct line *l, const char *s)
{
	size_t k = strlen(s);

	if (!strpbrk(s, ",\"\r\n") && !(k && (s[0] == ' ' || s[k - 1] == ' '))) {
		put_s(l, s);
		return;
	}
	put_c(l, '"');
	for (; *s && l->n < sizeof(l->b) - 64; s++) {
		if (*s == '"')
			put_c(l, '"');
		put_c(l, *s);
	}
	put_c(l, '"');
}

static void put_insn(FILE *f, bool csv, const struct bbmap_insn *in, bool first,
		     const struct bbmap_symbol *sym)
{
	const char *ops = in->operands ? in->operands : "";
	const char *set = bbmap_isa_set_name(in->isa_set), *mem = mem_name(in->flags);
	struct line l;
	size_t at;

	l.n = 0;
	if (csv) {
		put_s(&l, "0x");
		put_u(&l, in->addr, 16, 0, 0);
		put_c(&l, ',');
		put_u(&l, in->len, 10, 0, 0);
		put_c(&l, ',');
		csv_field(&l, in->mnemonic ? in->mnemonic : "");
		put_c(&l, ',');
		csv_field(&l, ops);
		put_c(&l, ',');
		put_s(&l, in->iclass ? in->iclass : "");
		put_c(&l, ',');
		put_s(&l, bbmap_isa_name(in->isa));
		put_c(&l, ',');
		put_s(&l, set);
		put_c(&l, ',');
		put_s(&l, bbmap_category_name(in->category));
		put_c(&l, ',');
		put_u(&l, in->width, 10, 0, 0);
		put_c(&l, ',');
		put_s(&l, mem);
		put_c(&l, ',');
		put_c(&l, first ? '1' : '0');
		put_c(&l, ',');
		csv_field(&l, sym ? sym->name : "");
	} else {
		put_c(&l, first ? '*' : ' ');
		put_u(&l, in->addr, 16, 8, ' ');
		put_s(&l, ": ");
		put_u(&l, in->len, 10, 2, ' ');
		put_c(&l, ' ');
		at = l.n;
		put_s(&l, in->mnemonic ? in->mnemonic : "");
		put_c(&l, ' ');
		pad(&l, at, 7);
		put_s(&l, ops);
		put_s(&l, "\t# ");
		put_s(&l, in->iclass ? in->iclass : "");
		put_c(&l, ' ');
		put_s(&l, bbmap_isa_name(in->isa));
		put_c(&l, ' ');
		put_s(&l, *set ? set : "-");
		put_c(&l, ' ');
		put_s(&l, bbmap_category_name(in->category));
		put_c(&l, ' ');
		put_u(&l, in->width, 10, 0, 0);
		put_c(&l, ' ');
		put_s(&l, *mem ? mem : "-");
	}
	put_c(&l, '\n');
	fwrite_unlocked(l.b, 1, l.n, f);
}

/* One part of the code, listed by one thread with its own module instance (a module is used
 * by one thread at a time): from start in code range ri to end in code range ri_end, written
 * to out. */
struct chunk {
	const char *path;
	bool csv;
	size_t ri, ri_end;
	uint64_t start, end;
	FILE *out;
	uint64_t reached;		/* where the walk stopped: >= end */
	uint64_t nr_insns, unreached, bytes_bad, bytes_cut;
	int err;
	pthread_t th;
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
				fprintf(c->out, "\n%016" PRIx64 " <%s>:\n", blk->sym->start,
					blk->sym->name);
			*last_sym = blk->sym;
			for (k = 0; k < blk->nr_insns; k++)
				put_insn(c->out, c->csv, &blk->insns[k], k == 0, blk->sym);
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
	bbmap_module__stats(m, &st);
	c->bytes_bad = st.bytes_bad;
	c->bytes_cut = st.bytes_cut;
	bbmap_module__delete(m);
	return NULL;
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

static int copy_out(FILE *from, FILE *to)
{
	char buf[1 << 16];
	size_t k;

	rewind(from);
	while ((k = fread(buf, 1, sizeof(buf), from)) > 0)
		if (fwrite(buf, 1, k, to) != k)
			return -EIO;
	return ferror(from) ? -EIO : 0;
}

int cmd_disasm(int argc, char **argv)
{
	const char *path = NULL, *fmt = "text";
	struct bbmap_module *m;
	struct bbmap_module_stats st;
	struct chunk ch[MAX_JOBS];
	uint64_t nr_insns = 0, unreached = 0, bytes_bad, bytes_cut;
	static char obuf[1 << 16];
	unsigned jobs = 2;
	size_t n, k;
	bool csv, in_step = true;
	int i, err = 0;

	for (i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "-f") || !strcmp(argv[i], "--format")) && i + 1 < argc)
			fmt = argv[++i];
		else if (!strncmp(argv[i], "--format=", 9))
			fmt = argv[i] + 9;
		else if (!strcmp(argv[i], "-j") && i + 1 < argc) {
			char *end;
			unsigned long v = strtoul(argv[++i], &end, 10);

			if (*end || !v || v > MAX_JOBS) {
				fprintf(stderr, "hbbp-convert: disasm: -j takes 1..%d\n", MAX_JOBS);
				return HBBP_EXIT_USAGE;
			}
			jobs = (unsigned)v;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: hbbp-convert disasm [-f text|csv] [-j N] BINARY\n"
			       "Every instruction of BINARY's code, decoded as the conversion decodes "
			       "it (-j: on N threads,\ndefault 2; the listing is the same).\n"
			       "csv columns: address,length,mnemonic,operands,iclass,isa,isa_set,"
			       "category,width,mem,block_start,symbol\ntext: '*' marks a block start; "
			       "then address, length, mnemonic, operands, iclass, isa, isa_set,\n"
			       "category, width, mem (after '# '), under a '<symbol>:' line per "
			       "function\n");
			return HBBP_EXIT_OK;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "hbbp-convert: disasm: unknown option '%s'\n", argv[i]);
			return usage();
		} else if (!path)
			path = argv[i];
		else
			return usage();
	}
	if (!path)
		return usage();
	if (strcmp(fmt, "text") && strcmp(fmt, "csv")) {
		fprintf(stderr, "hbbp-convert: disasm: unknown format '%s' (text or csv)\n", fmt);
		return HBBP_EXIT_USAGE;
	}
	csv = !strcmp(fmt, "csv");
	/* Decoded functions are freed and others allocated all along: keep freed memory in the
	 * heap (no mmap per large region, no trim) so that it is not faulted in again. */
	mallopt(M_MMAP_THRESHOLD, 256 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	bbmap_module__threads_init();
	err = bbmap_module__open_flags(&m, path, NULL, BBMAP_MODULE_NO_LINES);
	if (err) {
		fprintf(stderr, "hbbp-convert: disasm: %s: %s\n", path, hbbp_strerror(err));
		return hbbp_exit_code(err);
	}
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (csv)
		puts("address,length,mnemonic,operands,iclass,isa,isa_set,category,width,mem,"
		     "block_start,symbol");
	n = plan(m, path, csv, jobs, ch);
	/* The first part goes to stdout from this thread, the others to temporary files from
	 * their threads, copied after it in order. */
	for (k = 1; k < n && !err; k++) {
		ch[k].out = tmpfile();
		if (!ch[k].out || pthread_create(&ch[k].th, NULL, chunk_thread, &ch[k])) {
			fprintf(stderr, "hbbp-convert: disasm: cannot start a thread: %s\n",
				strerror(errno));
			if (ch[k].out)
				fclose(ch[k].out);
			n = k;
			break;
		}
	}
	ch[0].out = stdout;
	walk(&ch[0], m);
	err = ch[0].err == -HBBP_ENOTFOUND ? 0 : ch[0].err;
	for (k = 1; k < n; k++) {
		pthread_join(ch[k].th, NULL);
		if (!err && ch[k].err && ch[k].err != -HBBP_ENOTFOUND)
			err = ch[k].err;
		/* a part starts where the walk of the previous one stopped, or the cut was not
		 * clean: then the listing is done again in one walk */
		if (ch[k - 1].reached != ch[k].start)
			in_step = false;
	}
	bbmap_module__stats(m, &st);
	bytes_bad = st.bytes_bad;
	bytes_cut = st.bytes_cut;
	nr_insns = ch[0].nr_insns;
	unreached = ch[0].unreached;
	for (k = 1; k < n && !err; k++) {
		if (!in_step) {
			struct chunk *c = &ch[k];

			/* continue the one walk where it stopped, in this thread */
			c->start = ch[k - 1].reached > c->start && ch[k - 1].ri_end == c->ri ?
				   ch[k - 1].reached : c->start;
			c->out = stdout;
			c->nr_insns = c->unreached = 0;
			walk(c, m);
			err = c->err == -HBBP_ENOTFOUND ? 0 : c->err;
		} else {
			err = copy_out(ch[k].out, stdout);
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
	for (k = 1; k < n; k++)
		if (ch[k].out && ch[k].out != stdout)
			fclose(ch[k].out);
	bbmap_module__delete(m);
	if (err)
		return hbbp_exit_code(err);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "hbbp-convert: disasm: write error: %s\n", strerror(errno));
		return HBBP_EXIT_IO;
	}
	if (unreached)
		fprintf(stderr, "hbbp-convert: warning: disasm: %s: %" PRIu64 " bytes of code are "
			"no instruction start of their function and were not listed\n", path,
			unreached);
	fprintf(stderr, "hbbp-convert: disasm: %s: %" PRIu64 " instructions, %" PRIu64
		" undecodable bytes", path, nr_insns, bytes_bad + unreached);
	if (bytes_cut)
		fprintf(stderr, " (%" PRIu64 " of them instructions cut off by the end of their "
			"function: padding or data before the next one)", bytes_cut);
	fputc('\n', stderr);
	return HBBP_EXIT_OK;
}
