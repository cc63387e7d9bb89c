/* Test tool: prints what bbmap/module.h makes of a binary, one line per record, for the
 * shell tests to compare against objdump. Usage:
 *   bbmap_dump FILE [-s STEP] [-l] [-z] [-g ADDR]... [-d DEBUGFILE] [-a ADDR]...
 * Without -a, every STEP-th function symbol (default 1) is decoded whole. -a decodes the
 * block at ADDR and the blocks after it up to its function's end. -g adds a leader first.
 * -z opens the module with BBMAP_MODULE_LAZY_INSNS (the same output expected), -n with
 * BBMAP_MODULE_NO_OPERANDS (as the conversion: the same output, operands are not printed);
 * -t adds " ->TARGET" to the I lines of direct branches; -x then
 * drops the decoded instructions after each -Q query (bbmap_module__drop_insns), -X the
 * decoded code, blocks and all (bbmap_module__drop_code); -e adds
 * " end=FLAGS bad=0|1" (end_flags, may_be_bad) to B lines.
 * -G FILE adds the leaders listed in FILE (hex, one a line) one by one, before -g's. With
 * -Q, -I prints each block's instructions after its Q line.
 * -o prints "O OFF VADDR" (offset_to_vaddr). -Q reads hex addresses from stdin and prints
 * "Q ADDR SYMBOL ok|ERROR branch|- [START-END/N]" for each (block_at: its block; branch: a
 * control transfer there).
 * Output: "F start end name", "B start end nr_insns", "I addr len flags mnemonic
 * iclass isa category packing elem width rw [file:line]", and a final "S" stats line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module.h"
#include "util/hbbp_err.h"

static int lines, block_extra, targets;

/* Hex addresses, one a line, from f: a malloc'd array of *n of them (NULL: out of memory). */
static uint64_t *read_addrs(FILE *f, size_t *n)
{
	uint64_t *v = NULL, *nv;
	size_t cap = 0;
	char line[128];

	*n = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				return NULL;
			}
			v = nv;
		}
		v[(*n)++] = strtoull(line, NULL, 16);
	}
	return v ? v : calloc(1, sizeof(*v));
}

static void print_insn(const struct bbmap_insn *in)
{
	printf("I %" PRIx64 " %u %x %s %s %s %s %s %s %u %s%s", in->addr, in->len, in->flags,
	       in->mnemonic, in->iclass, bbmap_isa_name(in->isa), bbmap_category_name(in->category),
	       bbmap_packing_name(in->packing), in->elem ? bbmap_elem_name(in->elem) : "-",
	       in->width, in->flags & BBMAP_INSN_MEM_READ ? "r" : "-",
	       in->flags & BBMAP_INSN_MEM_WRITE ? "w" : "-");
	if (lines)
		printf(" %s:%u", in->srcfile ? in->srcfile : "??", in->line);
	if (targets && (in->flags & BBMAP_INSN_HAS_TARGET))
		printf(" ->%" PRIx64, in->target);
	printf("\n");
}

static void dump_range(struct bbmap_module *m, uint64_t start, uint64_t end)
{
	const struct bbmap_block *b;
	uint32_t i;
	int err = bbmap_module__block_at(m, start, &b);

	if (err) {
		printf("E %" PRIx64 " %s\n", start, hbbp_strerror(err));
		return;
	}
	while (b && b->start < end) {
		printf("B %" PRIx64 " %" PRIx64 " %u", b->start, b->end, b->nr_insns);
		if (block_extra)
			printf(" end=%x bad=%d", b->end_flags, b->may_be_bad);
		printf("\n");
		for (i = 0; i < b->nr_insns; i++)
			print_insn(&b->insns[i]);
		if (b->end >= end || bbmap_module__block_at(m, b->end, &b))
			break;
	}
}

int main(int argc, char **argv)
{
	struct bbmap_module *m;
	struct bbmap_module_stats st;
	const char *debug = NULL;
	uint64_t addrs[256], leaders[256];
	uint64_t offs[256], *many = NULL;
	const char *many_file = NULL;
	size_t nmany = 0;
	int query = 0, lazy = 0, drop = 0, qinsns = 0, no_ops = 0;
	size_t na = 0, nl = 0, no = 0, i, step = 1;
	int err, a;

	if (argc < 2) {
		fprintf(stderr, "usage: bbmap_dump FILE [-s STEP] [-l] [-z] [-x] [-e] [-a ADDR]...\n");
		return 1;
	}
	for (a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "-l"))
			lines = 1;
		else if (!strcmp(argv[a], "-z"))
			lazy = 1;
		else if (!strcmp(argv[a], "-n"))
			no_ops = 1;
		else if (!strcmp(argv[a], "-t"))
			targets = 1;
		else if (!strcmp(argv[a], "-x"))
			drop = 1;
		else if (!strcmp(argv[a], "-X"))
			drop = 2;
		else if (!strcmp(argv[a], "-e"))
			block_extra = 1;
		else if (!strcmp(argv[a], "-s") && a + 1 < argc)
			step = strtoul(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "-d") && a + 1 < argc)
			debug = argv[++a];
		else if (!strcmp(argv[a], "-a") && a + 1 < argc && na < 256)
			addrs[na++] = strtoull(argv[++a], NULL, 16);
		else if (!strcmp(argv[a], "-g") && a + 1 < argc && nl < 256)
			leaders[nl++] = strtoull(argv[++a], NULL, 16);
		else if (!strcmp(argv[a], "-Q"))
			query = 1;
		else if (!strcmp(argv[a], "-I"))
			qinsns = 1;
		else if (!strcmp(argv[a], "-G") && a + 1 < argc)
			many_file = argv[++a];
		else if (!strcmp(argv[a], "-o") && a + 1 < argc && no < 256)
			offs[no++] = strtoull(argv[++a], NULL, 16);
	}
	err = bbmap_module__open_flags(&m, argv[1], debug,
				       (lazy ? BBMAP_MODULE_LAZY_INSNS : 0) |
				       (no_ops ? BBMAP_MODULE_NO_OPERANDS : 0));
	if (err) {
		printf("open: %s\n", hbbp_strerror(err));
		return 2;
	}
	if (many_file) {
		FILE *f = fopen(many_file, "r");

		many = read_addrs(f, &nmany);
		if (f)
			fclose(f);
		if (!many)
			return 2;
		for (i = 0, err = 0; i < nmany; i++)
			err |= bbmap_module__add_leader(m, many[i]) == -ENOMEM;
		printf("M %zu leaders%s\n", nmany, err ? ": out of memory" : "");
		free(many);
	}
	for (i = 0; i < no; i++) {
		uint64_t v;

		if (bbmap_module__offset_to_vaddr(m, offs[i], &v))
			printf("O %" PRIx64 " none\n", offs[i]);
		else
			printf("O %" PRIx64 " %" PRIx64 "\n", offs[i], v);
	}
	if (query) {
		size_t nq, k;
		uint64_t *qs = read_addrs(stdin, &nq);

		if (!qs)
			return 2;
		for (k = 0; k < nq; k++) {
			uint64_t q = qs[k];
			const struct bbmap_symbol *s = bbmap_module__symbol_at(m, q);
			const struct bbmap_block *b;
			const struct bbmap_insn *in = NULL;

			err = bbmap_module__block_at(m, q, &b);
			if (!err)
				for (i = 0; i < b->nr_insns; i++)
					if (b->insns[i].addr == q)
						in = &b->insns[i];
			printf("Q %" PRIx64 " %s %s %s", q, s ? s->name : "-",
			       err ? hbbp_strerror(err) : "ok",
			       in && (in->flags & BBMAP_INSN_BRANCH) ? "branch" : "-");
			if (!err)
				printf(" %" PRIx64 "-%" PRIx64 "/%u", b->start, b->end, b->nr_insns);
			printf("\n");
			for (i = 0; !err && qinsns && i < b->nr_insns; i++)
				print_insn(&b->insns[i]);
			if (drop == 1)
				bbmap_module__drop_insns(m);
			else if (drop)
				bbmap_module__drop_code(m);
		}
		free(qs);
		goto out;
	}
	if (no && !na)
		goto out;
	for (i = 0; i < nl; i++)
		if (bbmap_module__add_leader(m, leaders[i]))
			printf("G %" PRIx64 " not an instruction start\n", leaders[i]);
	if (na) {
		for (i = 0; i < na; i++) {
			const struct bbmap_symbol *s = bbmap_module__symbol_at(m, addrs[i]);
			uint64_t end = s ? s->start + s->size : addrs[i] + 1;

			printf("F %" PRIx64 " %" PRIx64 " %s\n", addrs[i], end, s ? s->name : "?");
			dump_range(m, addrs[i], end);
		}
	} else {
		for (i = 0; i < bbmap_module__nr_symbols(m); i += step ? step : 1) {
			const struct bbmap_symbol *s = bbmap_module__symbol(m, i);

			printf("F %" PRIx64 " %" PRIx64 " %s\n", s->start, s->start + s->size,
			       s->name);
			dump_range(m, s->start, s->start + s->size);
		}
	}
out:
	bbmap_module__stats(m, &st);
	printf("S bytes=%" PRIu64 " insns=%" PRIu64 " bad=%" PRIu64 " blocks=%" PRIu64
	       " regions=%" PRIu64 " fde=%" PRIu64 " windows=%" PRIu64 " leaders=%" PRIu64
	       " misaligned=%" PRIu64 " cut=%" PRIu64 "\n", st.bytes_decoded, st.nr_insns,
	       st.nr_bad, st.nr_blocks, st.nr_regions, st.nr_fde_syms, st.nr_windows,
	       st.nr_leaders, st.nr_leaders_misaligned, st.bytes_cut);
	bbmap_module__delete(m);
	return 0;
}
