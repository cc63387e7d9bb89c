/* The result of one conversion as the writers see it: run metadata and a set of named
 * tables of typed cells (held, or made a row at a time as they are read). The writers see
 * only this, never samples or binaries.
 * CSV and JSONL write the table named "mix"; JSON writes metadata + "mix"; SQLite writes
 * every table (with a run_id column) plus the views of writers/sqlite_writer.c.
 * Depends on nothing but libc.
 */
#ifndef WRITERS_RESULT_H
#define WRITERS_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum result_type { RES_NULL = 0, RES_INT, RES_REAL, RES_TEXT };

struct result_cell {
	enum result_type type;
	union {
		int64_t i;
		double d;
		const char *s;		/* owned by the table's string pool */
	};
};

struct result_column {
	char *name;
	enum result_type type;		/* declared type (cells may be RES_NULL) */
	/* no row has a value, the input having none (e.g. no cycle counts recorded): the SQL
	 * stores keep the column (NULL) so that every run has their columns, the other formats
	 * leave it out */
	bool unset;
};

/* The cells of row of a table made as it is read (result_table__rows_from): nr_cols cells,
 * zeroed (RES_NULL) before; text cells point at strings ctx keeps. */
typedef void (*result_fill_fn)(void *ctx, size_t row, struct result_cell *cells);

struct result_table {
	char *name;
	size_t nr_cols;
	struct result_column *cols;
	size_t nr_rows, alloc_rows;
	struct result_cell *cells;	/* nr_rows * nr_cols, row-major; NULL with fill */
	struct result_strpool *pool;
	/* a table whose rows are made as they are read (a large one, written once) */
	result_fill_fn fill;
	void (*release)(void *ctx);	/* frees fill_ctx with the table */
	void *fill_ctx;
	struct result_cell *row_buf;	/* the row made last */
};

struct result_kv {
	char *key;
	struct result_cell val;
};

struct result {
	size_t nr_meta;
	struct result_kv *meta;		/* run metadata: file, perf_version, cutoff, method, ... */
	size_t nr_warnings;
	char **warnings;
	size_t nr_tables;
	struct result_table **tables;
	struct result_strpool *pool;
};

int result__new(struct result **out);
void result__delete(struct result *r);
int result__meta_text(struct result *r, const char *key, const char *val);
int result__meta_int(struct result *r, const char *key, int64_t val);
int result__meta_real(struct result *r, const char *key, double val);
int result__warn(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Creates a table; columns given as "name:type" strings with type in {int,real,text}. */
int result__add_table(struct result *r, const char *name, const char *const *cols,
		      size_t nr_cols, struct result_table **out);
/* Creates a table with the names and types of the columns of src (not its rows), after a
 * first column ("name:type") where first is not NULL. */
int result__add_table_from(struct result *r, const char *name, const char *first,
			   const struct result_table *src, struct result_table **out);
struct result_table *result__table(const struct result *r, const char *name);
/* Appends a row; returns a pointer to its nr_cols cells (zeroed: RES_NULL), valid until the
 * next add_row of the table; NULL when out of memory (or for a table of fill). */
struct result_cell *result_table__add_row(struct result_table *t);
/* Room for rows rows in all (a table whose size is known): 0 or -ENOMEM. */
int result_table__reserve(struct result_table *t, size_t rows);
void result_cell__int(struct result_cell *c, int64_t v);
void result_cell__real(struct result_cell *c, double v);
/* The number of c (NULL: no cell): an int's or a real's value, NaN for NULL or text. */
double result_cell__num(const struct result_cell *c);
int result_cell__text(struct result_table *t, struct result_cell *c, const char *s);
int result_table__col(const struct result_table *t, const char *name);	/* index or -1 */
/* Makes t (no row added yet) a table of nr_rows rows that fill(ctx, ...) makes as each is
 * read, from what ctx keeps; release(ctx) when the table is deleted (also when this fails).
 * 0 or -ENOMEM. */
int result_table__rows_from(struct result_table *t, size_t nr_rows, result_fill_fn fill,
			    void (*release)(void *ctx), void *ctx);

/* The nr_cols cells of row (row < nr_rows); valid until the next add_row, and for a table
 * of fill until the next result_table__row of the table. */
struct result_cell *result_table__row(const struct result_table *t, size_t row);

#endif
