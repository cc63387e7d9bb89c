/* hbbp-convert train --ref TRUTH_INSNS [--ref ...] [-o MODEL] PERF_DATA...: learns the hybrid
 * rule's cutoff (HBBP paper §IV.B, method.md §6) from reference runs. For each (reference,
 * recording) pair, in order, the recording is converted (this program, run as a child, into a
 * temporary SQLite file) and every block's EBS and LBR estimates are read back from the blocks
 * table; the reference is a pmusim --truth-insns CSV (module,offset,address,count,mnemonic),
 * whose count at a block's first instruction (file offset from the ELF program headers) is the
 * block's exact count (modules matched by the base name of their recorded path). A block is labelled by the source closer to it; the cutoff chosen
 * minimises the mean over runs of the instruction-weighted block error
 * sum(len * |estimate - exact|) / (exact instructions of the run), with the same fallbacks as
 * the converter (hbbp/method/blocks.c). Writes the model file (hbbp/train/model.h).
 * Depends on libelf, sqlite3, hbbp/train/model.h; never depends on the converter's internals.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <libelf.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hbbp/cli/commands.h"
#include "hbbp/method/method.h"
#include "hbbp/train/model.h"
#include "util/hbbp_err.h"

#define TRAIN_MAX_CUTOFF	64
#define TRAIN_MAX_RUNS		256
#define TRAIN_MAX_LINE		4096
#define TRAIN_MAX_ROWS		(64u << 20)

struct truth_insn {
	char *module;		/* basename */
	uint64_t offset;
	double count;
};

struct train_block {
	unsigned run, len;
	double ebs, lbr, exact;
	int has_e, has_l;
};

struct train_set {
	struct train_block *b;
	size_t n, cap;
	double total[TRAIN_MAX_RUNS];	/* exact instructions of each run */
	unsigned runs;
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static int truth_cmp(const void *a, const void *b)
{
	const struct truth_insn *x = a, *y = b;
	int c = strcmp(x->module, y->module);

	if (c)
		return c;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static void truth_free(struct truth_insn *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(t[i].module);
	free(t);
}

/* Reads a pmusim --truth-insns CSV. Module paths contain no comma (pmusim writes them bare). */
static int truth_load(const char *path, struct truth_insn **out, size_t *nout, double *total)
{
	char line[TRAIN_MAX_LINE];
	struct truth_insn *t = NULL;
	size_t n = 0, cap = 0;
	unsigned long lineno = 0;
	FILE *f = fopen(path, "r");

	*total = 0;
	if (!f) {
		pr_err("%s: %s", path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		char *fld[5], *p = line, *end;
		int k;

		lineno++;
		if (lineno == 1 && !strncmp(line, "module,", 7))
			continue;
		for (k = 0; k < 5 && p; k++) {
			fld[k] = p;
			p = strchr(p, ',');
			if (p)
				*p++ = 0;
		}
		if (k < 5)
			goto bad;
		if (n == cap) {
			struct truth_insn *nt;

			if (n >= TRAIN_MAX_ROWS) {
				pr_err("%s: more than %u rows", path, TRAIN_MAX_ROWS);
				truth_free(t, n);
				fclose(f);
				return -HBBP_ELIMIT;
			}
			cap = cap ? 2 * cap : 4096;
			nt = realloc(t, cap * sizeof(*t));
			if (!nt)
				goto nomem;
			t = nt;
		}
		errno = 0;
		t[n].offset = strtoull(fld[1], &end, 0);
		if (errno || *end || end == fld[1])
			goto bad;
		t[n].count = strtod(fld[3], &end);
		if (end == fld[3] || *end || !(t[n].count >= 0))
			goto bad;
		t[n].module = strdup(base_name(fld[0]));
		if (!t[n].module)
			goto nomem;
		*total += t[n].count;
		n++;
	}
	fclose(f);
	if (!n) {
		pr_err("%s: no instructions (expected pmusim --truth-insns output)", path);
		free(t);
		return -HBBP_EFORMAT;
	}
	qsort(t, n, sizeof(*t), truth_cmp);
	*out = t;
	*nout = n;
	return 0;
bad:
	pr_err("%s:%lu: not a module,offset,address,count,mnemonic row", path, lineno);
	truth_free(t, n);
	fclose(f);
	return -HBBP_EFORMAT;
nomem:
	truth_free(t, n);
	fclose(f);
	return -ENOMEM;
}

static double truth_at(const struct truth_insn *t, size_t n, const char *module, uint64_t off)
{
	struct truth_insn key = { (char *)module, off, 0 };
	const struct truth_insn *hit = bsearch(&key, t, n, sizeof(*t), truth_cmp);

	return hit ? hit->count : 0;
}

/* Module vaddr -> file offset through the PT_LOAD headers; -1 when not in one. */
static int64_t vaddr_to_offset(const char *path, uint64_t vaddr)
{
	int64_t off = -1;
	size_t nph, i;
	Elf *e;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_getphdrnum(e, &nph) == 0) {
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
				off = (int64_t)(vaddr - ph.p_vaddr + ph.p_offset);
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return off;
}

static int convert_child(const char *data, const char *out)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (!pid) {
		execl("/proc/self/exe", "hbbp-convert", "-q", "-f", "sqlite", "-o", out, data,
		      (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		pr_err("%s: conversion failed (status %d)", data, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return -HBBP_EFORMAT;
	}
	return 0;
}

static int set_add(struct train_set *s, const struct train_block *b)
{
	if (s->n == s->cap) {
		struct train_block *nb;

		if (s->n >= TRAIN_MAX_ROWS)
			return -HBBP_ELIMIT;
		s->cap = s->cap ? 2 * s->cap : 4096;
		nb = realloc(s->b, s->cap * sizeof(*nb));
		if (!nb)
			return -ENOMEM;
		s->b = nb;
	}
	s->b[s->n++] = *b;
	return 0;
}

static int train_pair(struct train_set *s, const char *ref, const char *data)
{
	static const char q[] =
		"SELECT m.path, m.name, b.address, b.length, b.ebs_count, b.lbr_count, b.ebs_samples, "
		"b.lbr_streams FROM blocks b JOIN modules m ON m.run_id = b.run_id AND "
		"m.module_id = b.module_id WHERE b.length > 0";
	char dir[] = "/tmp/hbbp-train.XXXXXX", db[sizeof(dir) + 16], last[4096] = "";
	struct truth_insn *t = NULL;
	size_t nt = 0;
	sqlite3 *sq = NULL;
	sqlite3_stmt *st = NULL;
	int rc, r;

	if (s->runs >= TRAIN_MAX_RUNS)
		return -HBBP_ELIMIT;
	rc = truth_load(ref, &t, &nt, &s->total[s->runs]);
	if (rc)
		return rc;
	if (!mkdtemp(dir)) {
		rc = -errno;
		goto out;
	}
	snprintf(db, sizeof(db), "%s/run.sqlite", dir);
	rc = convert_child(data, db);
	if (rc)
		goto out_rm;
	if (sqlite3_open_v2(db, &sq, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(sq, q, -1, &st, NULL) != SQLITE_OK) {
		pr_err("%s: %s", db, sq ? sqlite3_errmsg(sq) : "cannot open");
		rc = -HBBP_EFORMAT;
		goto out_rm;
	}
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		uint64_t addr = (uint64_t)sqlite3_column_int64(st, 2);
		struct train_block b;
		int64_t off;

		if (!path || !name)
			continue;
		off = vaddr_to_offset(path, addr);
		if (off < 0) {
			if (strcmp(last, path))
				pr_warn("%s: block 0x%llx of %s is in no loadable segment (skipped)",
					data, (unsigned long long)addr, path);
			snprintf(last, sizeof(last), "%s", path);
			continue;
		}
		b.run = s->runs;
		b.len = (unsigned)sqlite3_column_int64(st, 3);
		b.ebs = sqlite3_column_double(st, 4);
		b.lbr = sqlite3_column_double(st, 5);
		b.has_e = sqlite3_column_int64(st, 6) > 0;
		b.has_l = sqlite3_column_int64(st, 7) > 0;
		b.exact = truth_at(t, nt, base_name(name), (uint64_t)off);
		rc = set_add(s, &b);
		if (rc)
			goto out_db;
	}
	if (r != SQLITE_DONE) {
		pr_err("%s: %s", db, sqlite3_errmsg(sq));
		rc = -HBBP_EFORMAT;
	}
	s->runs++;
out_db:
	sqlite3_finalize(st);
out_rm:
	sqlite3_close(sq);
	unlink(db);
	rmdir(dir);
out:
	truth_free(t, nt);
	return rc;
}

/* The converter's choice (hbbp/method/blocks.c, hbbp_block__choose) for a code block. */
static double choose(const struct train_block *b, unsigned cutoff)
{
	if (b->len <= cutoff)
		return b->has_l ? b->lbr : b->has_e ? b->ebs : 0;
	return b->has_e ? b->ebs : b->has_l ? b->lbr : 0;
}

/* Mean over runs of sum(len * |choice - exact|) / exact instructions, in percent. */
static double set_error(const struct train_set *s, unsigned cutoff)
{
	double err[TRAIN_MAX_RUNS] = { 0 }, sum = 0;
	unsigned r;

	for (size_t i = 0; i < s->n; i++)
		err[s->b[i].run] += s->b[i].len * fabs(choose(&s->b[i], cutoff) - s->b[i].exact);
	for (r = 0; r < s->runs; r++)
		sum += s->total[r] > 0 ? err[r] / s->total[r] : 0;
	return s->runs ? 100 * sum / s->runs : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: hbbp-convert train --ref TRUTH_INSNS.csv [--ref ...] [-o MODEL] PERF_DATA...\n"
"Learns the hybrid rule's cutoff from reference runs: the i-th --ref (pmusim --truth-insns\n"
"CSV) is the exact per-instruction count of the i-th recording. Writes the model file\n"
"(default stdout) that 'hbbp-convert --model MODEL' applies; prints the error per cutoff\n"
"on stderr unless -q.\n");
}

int cmd_train(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "ref", required_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *refs[TRAIN_MAX_RUNS], *out = NULL;
	unsigned nref = 0, c, best = HBBP_DEFAULT_CUTOFF;
	struct train_set s;
	struct hbbp_model m;
	double besterr = INFINITY;
	int opt, quiet = 0, rc = 0, i;
	FILE *f;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":o:qh", lo, NULL)) != -1) {
		switch (opt) {
		case 'r':
			if (nref >= TRAIN_MAX_RUNS) {
				pr_err("train: more than %d references", TRAIN_MAX_RUNS);
				return HBBP_EXIT_USAGE;
			}
			refs[nref++] = optarg;
			break;
		case 'o': out = optarg; break;
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return HBBP_EXIT_OK;
		default:
			pr_err("train: bad option '%s'", argv[optind - 1]);
			usage(stderr);
			return HBBP_EXIT_USAGE;
		}
	}
	if (!nref || (unsigned)(argc - optind) != nref) {
		pr_err("train: give one --ref per recording (%u references, %d recordings)", nref,
		       argc - optind);
		usage(stderr);
		return HBBP_EXIT_USAGE;
	}
	if (elf_version(EV_CURRENT) == EV_NONE)
		return HBBP_EXIT_INPUT;
	memset(&s, 0, sizeof(s));
	for (i = 0; i < (int)nref; i++) {
		rc = train_pair(&s, refs[i], argv[optind + i]);
		if (rc)
			goto out;
	}
	for (c = 0; c <= TRAIN_MAX_CUTOFF; c++) {
		double e = set_error(&s, c);

		if (!quiet)
			fprintf(stderr, "cutoff %2u: weighted block error %.3f%%\n", c, e);
		/* Ties go to the cutoff nearest the default. */
		if (e < besterr - 1e-12 ||
		    (fabs(e - besterr) <= 1e-12 &&
		     abs((int)c - HBBP_DEFAULT_CUTOFF) < abs((int)best - HBBP_DEFAULT_CUTOFF))) {
			besterr = e;
			best = c;
		}
	}
	memset(&m, 0, sizeof(m));
	m.cutoff = best;
	m.runs = s.runs;
	m.blocks = s.n;
	for (size_t k = 0; k < s.n; k++)
		if (s.b[k].has_l && (!s.b[k].has_e ||
		    fabs(s.b[k].lbr - s.b[k].exact) < fabs(s.b[k].ebs - s.b[k].exact)))
			m.lbr_closer++;
	m.error = besterr;
	m.error_default = set_error(&s, HBBP_DEFAULT_CUTOFF);
	f = out && strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f) {
		pr_err("%s: %s", out, strerror(errno));
		rc = -errno;
		goto out;
	}
	rc = hbbp_model__write(f, &m);
	if (f != stdout && fclose(f) && !rc)
		rc = -EIO;
	if (rc)
		pr_err("%s: write error", out ? out : "stdout");
	else if (!quiet)
		fprintf(stderr, "learned cutoff %u (error %.3f%%; %.3f%% at %d), %lu blocks, "
			"LBR closer on %lu\n", best, besterr, m.error_default, HBBP_DEFAULT_CUTOFF,
			m.blocks, m.lbr_closer);
out:
	free(s.b);
	return rc ? (rc == -EIO ? HBBP_EXIT_IO : hbbp_exit_code(rc)) : HBBP_EXIT_OK;
}
