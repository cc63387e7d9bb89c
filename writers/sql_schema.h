/* The SQL of the database stores (writers/SCHEMA.md), written once for SQLite and PostgreSQL:
 * the tables of writers/schema.h with a run_id column, the bookkeeping tables, the views of
 * writers/views.h and the indexes; column types, identifier quoting, the reserved table
 * names, the schema version, the statements that add a run and send its rows, and the check
 * of an existing database's tables against this run's. A store (sqlite_writer.c,
 * pg_writer.c) names its dialect and gives a connection that runs SQL and answers a query;
 * it opens, locks, transacts and sends the values itself.
 * Not for use outside writers/. Depends on writers/writer_int.h, schema.h and views.h.
 */
#ifndef WRITERS_SQL_SCHEMA_H
#define WRITERS_SQL_SCHEMA_H

#include "writers/writer_int.h"

enum sql_kind { SQL_SQLITE, SQL_PG };

#define NR_BOOK_TABLES 3	/* runs, run_meta, warnings */

struct sql_dialect {
	enum sql_kind kind;
	const char *run_id;		/* the run_id column of a result table */
	const char *bookkeeping;	/* creates the run tables where they are missing */
	const char *version_table;	/* creates where the version is kept (NULL: nothing) */
	const char *version_get;	/* one row per stored version: (version, objects in the
					 * database); no row: none stored */
	const char *version_set;	/* stores this tool's version */
	const char *columns;		/* (name, type) of the columns of table $1, in order */
	const char *book[NR_BOOK_TABLES];	/* the bookkeeping tables' columns, as their
						 * checks write them: ", name type"... */
	const char *insert_run;		/* adds the run ($1 the format version, $2.. the
					 * writer__run_info columns label, host, recorded,
					 * perf_version, file) */
	/* SQLite: every object of the database (type, name, table, SQL text), compared with
	 * those of a reference database made by the same SQL (sql_conn.ref) */
	const char *objects;
	/* PostgreSQL: what is attached to this tool's tables and views that it did not create
	 * (triggers, rules, indexes, policies, constraints, defaults, objects of its names
	 * that are not tables or views), one row each naming it; $1 the tool's names as a
	 * text array of "t:TABLE", "v:VIEW", "i:INDEX" */
	const char *foreign;
	/* PostgreSQL: whether view $1 is defined as the temporary view sql_check_view */
	const char *view_same;
};
extern const struct sql_dialect sql_sqlite, sql_pg;

/* Adds a run's metadata (run_id, key, value) and warnings (run_id, seq, message). */
extern const char sql_insert_meta[], sql_insert_warning[];

/* A store's connection to its database. */
struct sql_conn {
	const struct sql_dialect *d;
	struct writer_ctx *w;
	/* SQLite, appending to an existing database: a connection to an empty database in
	 * memory, where sql_schema__create() makes what it would make in an empty file */
	struct sql_conn *ref;
	/* Runs sql (no parameters): 0 or the error, logged with what failed. */
	int (*exec)(struct sql_conn *c, const char *sql, const char *what);
	/* Runs the query sql with the text parameter $1 (param; NULL: none), calling row()
	 * (unless NULL) with the columns of each row as text (up to SQL_MAX_COLS; "" for NULL):
	 * the number of rows or the logged error. */
	int (*query)(struct sql_conn *c, const char *sql, const char *param,
		     void (*row)(void *ctx, const char *const *col), void *ctx);
};
#define SQL_MAX_COLS 4
#define SQL_MAX_TABLE_COLS 256	/* columns of a table of this tool's (the mix of every run's) */

/* Whether the result can be stored: no table of a reserved name (the bookkeeping tables,
 * the views, the indexes, the engines' own sqlite_* and pg_*), the tables of schema.h with
 * exactly its columns. 0 or -EINVAL (logged). */
int sql_schema__check_result(struct writer_ctx *w);
/* Checks the schema version (stores it in an empty database; SQLite: then checks the
 * existing database's objects as sql_schema__check), then creates what is missing of the
 * bookkeeping tables, the tables of schema.h, the result's tables and the views, and checks
 * that the tables and views that exist are this run's (-HBBP_EFORMAT, logged: a database of
 * another layout, of another program, of another version). */
int sql_schema__create(struct sql_conn *c);
/* Whether the database runs only this tool's SQL when the run is added: SQLite, every
 * object of this tool's names as the reference database has it and nothing else attached
 * to its tables; PostgreSQL (in the run's transaction, after a lock that keeps anyone from
 * changing the tables until the commit), nothing attached to its tables that it did not
 * create. 0, or -HBBP_EFORMAT logged with what was found. */
int sql_schema__check(struct sql_conn *c);
/* Adds the run's run_meta mix_columns: the columns of its mix, comma-joined (the database's
 * mix holds every run's). 0 or the error. */
int sql_schema__run_meta(struct sql_conn *c, const char *run_id);
/* Creates the indexes that are missing. */
int sql_schema__indexes(struct sql_conn *c);
/* The statement that sends the rows of t (malloc'd into *sql): SQLite an INSERT of run_id
 * (the parameter) and the columns c0.. of the virtual table temp.SQL_ROWS_TABLE (t's rows,
 * writers/sqlite_writer.c); PostgreSQL a COPY FROM STDIN of run_id and the columns; both
 * name the columns (a database's mix may have more). 0 or -ENOMEM. */
#define SQL_ROWS_TABLE "hbbp_rows"
int sql_schema__rows_sql(const struct sql_dialect *d, const struct result_table *t, char **sql);

#endif
