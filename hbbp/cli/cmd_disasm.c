/* hbbp-convert disasm [-f text|csv] BINARY: every instruction of a binary's code, decoded
 * exactly as the conversion decodes it (bbmap: function by function, Zydis for x86, capstone
 * for Arm), with the attributes the mix pivots on: address, length, mnemonic, operands,
 * iclass, isa (extension), isa_set, category, width, mem, block_start, symbol. The last
 * stderr line counts instructions and undecodable bytes. Uses only bbmap's public API; knows
 * nothing of perf.data.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module.h"
#include "hbbp/cli/commands.h"
#include "util/hbbp_err.h"

#define FORGET_BYTES (8u << 20)	/* decoded code kept before it is freed */

static int usage(void)
{
	fprintf(stderr, "usage: hbbp-convert disasm [-f text|csv] BINARY\n");
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

	do {
		t[k++] = digits[v % base];
		v /= base;
	} while (v);
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
		put_u(&l, in->addr, 16, 12, ' ');
		put_s(&l, ": ");
		put_u(&l, in->len, 10, 2, ' ');
		put_s(&l, "  ");
		at = l.n;
		put_s(&l, in->mnemonic ? in->mnemonic : "");
		put_c(&l, ' ');
		pad(&l, at, 13);
		at = l.n;
		put_s(&l, ops);
		pad(&l, at, 40);
		put_s(&l, "  ");
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
	fwrite(l.b, 1, l.n, f);
}

int cmd_disasm(int argc, char **argv)
{
	const char *path = NULL, *fmt = "text";
	struct bbmap_module *m;
	struct bbmap_module_stats st;
	const struct bbmap_symbol *last_sym = NULL;
	uint64_t nr_insns = 0, unreached = 0, since_forget = 0;
	static char obuf[1 << 16];
	size_t ri;
	bool csv;
	int i, err;

	for (i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "-f") || !strcmp(argv[i], "--format")) && i + 1 < argc)
			fmt = argv[++i];
		else if (!strncmp(argv[i], "--format=", 9))
			fmt = argv[i] + 9;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: hbbp-convert disasm [-f text|csv] BINARY\n"
			       "Every instruction of BINARY's code, decoded as the conversion decodes "
			       "it.\ncsv columns: address,length,mnemonic,operands,iclass,isa,isa_set,"
			       "category,width,mem,block_start,symbol\ntext: '*' marks a block start; "
			       "then address, length, mnemonic, operands, iclass, isa, isa_set,\n"
			       "category, width, mem, under a '<symbol>:' line per function\n");
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
	err = bbmap_module__open_flags(&m, path, NULL, BBMAP_MODULE_NO_LINES);
	if (err) {
		fprintf(stderr, "hbbp-convert: disasm: %s: %s\n", path, hbbp_strerror(err));
		return hbbp_exit_code(err);
	}
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (csv)
		puts("address,length,mnemonic,operands,iclass,isa,isa_set,category,width,mem,"
		     "block_start,symbol");
	for (ri = 0; ri < bbmap_module__nr_code_ranges(m); ri++) {
		uint64_t addr, end;

		bbmap_module__code_range(m, ri, &addr, &end);
		while (addr < end) {
			const struct bbmap_block *blk;
			uint32_t k;

			if (since_forget >= FORGET_BYTES) {
				bbmap_module__forget_code(m);
				since_forget = 0;
			}
			err = bbmap_module__block_at(m, addr, &blk);
			if (err == -HBBP_ENOTFOUND) {
				unreached++;	/* not an instruction start of its region */
				addr++;
				continue;
			}
			if (err) {
				fprintf(stderr, "hbbp-convert: disasm: %s: at 0x%" PRIx64 ": %s\n",
					path, addr, hbbp_strerror(err));
				bbmap_module__delete(m);
				return hbbp_exit_code(err);
			}
			if (!csv && blk->sym != last_sym && blk->sym)
				printf("\n%016" PRIx64 " <%s>:\n", blk->sym->start, blk->sym->name);
			last_sym = blk->sym;
			for (k = 0; k < blk->nr_insns; k++)
				put_insn(stdout, csv, &blk->insns[k], k == 0, blk->sym);
			nr_insns += blk->nr_insns;
			since_forget += blk->end - blk->start;
			addr = blk->end;
		}
	}
	bbmap_module__stats(m, &st);
	bbmap_module__delete(m);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "hbbp-convert: disasm: write error: %s\n", strerror(errno));
		return HBBP_EXIT_IO;
	}
	if (unreached)
		fprintf(stderr, "hbbp-convert: warning: disasm: %s: %" PRIu64 " bytes of code are "
			"no instruction start of their function and were not listed\n", path,
			unreached);
	fprintf(stderr, "hbbp-convert: disasm: %s: %" PRIu64 " instructions, %" PRIu64
		" undecodable bytes\n", path, nr_insns, st.bytes_bad + unreached);
	return HBBP_EXIT_OK;
}
