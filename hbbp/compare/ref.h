/* Instruction mixes read back for `hbbp-convert compare`: a reference (exact counts from
 * instrumentation or a simulator) or a measured mix, from any of the formats compare reads:
 * our own CSV/JSON/SQLite outputs, pmusim's --truth and --truth-insns CSV, valgrind callgrind
 * profiles (--dump-instr=yes) and Intel SDE -mix output.
 *
 * A mix holds key rows (named key columns + count) and, when the source has addresses,
 * per-instruction counts (module, module vaddr, count) from which rows are made on demand.
 * Readers never print: errors are logged as "FILE:LINE: what" and returned as -HBBP_EFORMAT.
 * Depends on bbmap (to name instructions at addresses) and libc; not on perf.data.
 */
#ifndef HBBP_REF_H
#define HBBP_REF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One executed instruction address. */
struct ref_ip {
	char *module;		/* the file as the source names it (path or short name) */
	uint64_t addr;		/* module vaddr (ELF p_vaddr space) */
	uint64_t offset;	/* file offset (pmusim --truth-insns), else 0 */
	double count;		/* executions */
	char *mnemonic;		/* bbmap's, as --by mnemonic names it; NULL unknown */
	char *iclass;		/* XED-style, as --by iclass names it; NULL unknown */
	char *symbol;		/* NULL unknown */
	const char *category;	/* bbmap's (static), as --by category names it; NULL unknown */
};

struct ref_mix {
	char *path;		/* the file read */
	const char *kind;	/* "csv", "json", "sqlite", "pmusim-truth", "pmusim-insns",
				 * "callgrind", "sde" */
	size_t nr_cols;		/* key columns of rows */
	char **cols;
	size_t nr_rows, alloc_rows;
	char **keys;		/* nr_rows * nr_cols strings */
	double *counts;		/* nr_rows */
	size_t nr_ips, alloc_ips;
	struct ref_ip *ips;	/* per-instruction counts, when the source has addresses */
	double total;		/* everything the source counted (incl. what has no key) */
	double unresolved;	/* counts at addresses that could not be named */
	size_t nr_unresolved;	/* such addresses */
	char *note;		/* one line about the source (load biases, sections), or NULL */
	bool named;		/* ref_decode__name_ips has run */
};

/* Reads path, detecting the format from its content (and extension for SQLite), with value
 * the column read as the count ("count", or "cycles": CSV only, our output or pmusim's truth
 * with --truth-cycles). */
int ref_mix__read(const char *path, const char *value, struct ref_mix **out);
void ref_mix__delete(struct ref_mix *m);

/* Builders shared by the readers. */
int ref_mix__new(const char *path, const char *kind, const char *const *cols, size_t nr_cols,
		 struct ref_mix **out);
int ref_mix__add_row(struct ref_mix *m, const char *const *keys, double count);
int ref_mix__add_ip(struct ref_mix *m, const char *module, uint64_t addr, double count,
		    const char *mnemonic);
int ref_mix__set_note(struct ref_mix *m, const char *note);
/* A reader's end: m into *out, or with an error err m deleted; returns err. */
int ref_mix__finish(struct ref_mix *m, int err, struct ref_mix **out);
/* Opens path for reading: 0, or -errno after logging "PATH: cannot open: why". */
int ref_mix__fopen(const char *path, const char *mode, FILE **f);
/* Whether a column of our own outputs is a value (count, share, cycles, diagnostics), not a
 * key. */
bool ref_mix__value_column(const char *name);

/* The format readers (m is created by them). */
int ref_csv__read(const char *path, const char *value, struct ref_mix **out);	/* CSV, pmusim */
int ref_json__read(const char *path, struct ref_mix **out);	/* our JSON / JSONL */
int ref_sqlite__read(const char *path, struct ref_mix **out);	/* our SQLite, last run */
int ref_callgrind__read(const char *path, struct ref_mix **out);
int ref_sde__read(const char *path, struct ref_mix **out);

/* Module files opened for naming addresses, cached by path for the process; __exit closes
 * them. offset_to_vaddr: file offset to module vaddr through the file's PT_LOAD headers. */
int ref_decode__offset_to_vaddr(const char *path, uint64_t off, uint64_t *vaddr);
void ref_decode__exit(void);
/* The vaddr of ELF symbol name in path; whether an instruction starts at vaddr of path. */
int ref_decode__symbol_addr(const char *path, const char *name, uint64_t *vaddr);
bool ref_decode__insn_ok(const char *path, uint64_t vaddr);

/* Names every ip (mnemonic, iclass, symbol) by disassembling its module with bbmap; ips that
 * cannot be decoded are counted in m->unresolved. module paths must be openable. */
int ref_decode__name_ips(struct ref_mix *m);

/* One aggregated key: the requested key columns joined by '\x1f'. */
struct ref_agg_row {
	char *key;
	double count;
};
struct ref_agg {
	size_t nr;
	struct ref_agg_row *rows;	/* sorted by key, keys unique */
	double total;
};
/* Aggregates m by the key columns keys[0..nr_keys) (from rows when m has them all, else
 * from ips for module, mnemonic, iclass, symbol). -HBBP_ENOTFOUND (logged) when m cannot
 * give one of them. */
int ref_mix__aggregate(struct ref_mix *m, const char *const *keys, size_t nr_keys,
		       struct ref_agg *out);
void ref_agg__exit(struct ref_agg *a);

/* Whether m has key column name (as a row column or derivable from ips). */
bool ref_mix__has_key(const struct ref_mix *m, const char *name);

/* Per-instruction counts of m for the IP-level metrics: from m->ips, or, for a mix with a
 * "block" column (module+0xSTART, as --by module,block writes it), by disassembling each
 * block (module files found as the basename of a path in hint->ips) and giving each of its
 * instructions the block's count divided by its length. *out points into m (no copy) or to
 * a new array the caller frees (*owned). -HBBP_ENOTFOUND when there are no addresses. */
int ref_mix__ips(struct ref_mix *m, const struct ref_mix *hint, struct ref_ip **out,
		 size_t *nr, bool *owned);

#endif
