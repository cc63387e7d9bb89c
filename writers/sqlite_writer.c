/* SQLite writer: every table of the result, each row with the run's run_id, plus the run
 * bookkeeping tables, indexes and views of writers/sql_schema.c (writers/SCHEMA.md). One
 * transaction, a table one INSERT ... SELECT from a virtual table over its rows, PRAGMA
 * user_version = SCHEMA_FORMAT_VERSION.
 *  - A new database is the temporary file of writer__write(), which renames it into place;
 *    it needs no rollback journal (journal_mode=OFF, synchronous=OFF): atomicity comes from
 *    the rename and durability from writer__write's fsync.
 *  - --append to an existing database adds the run in place in one BEGIN IMMEDIATE
 *    transaction, under the database's own journal (rollback or WAL, as it is): concurrent
 *    writers wait for each other (busy handler, up to SQLITE_BUSY_WAIT_S seconds), run ids
 *    come from the table under the write lock, the version and the schema are read and
 *    created under the same lock, and a failed, interrupted or killed append leaves the
 *    database as it was (SQLite's journal rolls it back). Nothing is copied: the cost of an
 *    append does not depend on the size of the database.
 * Depends on writers/, util/hbbp_err.h, sqlite3.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/hbbp_err.h"
#include "writers/schema.h"
#include "writers/sql_schema.h"

/* How long an append waits for another writer's lock before it fails. */
#define SQLITE_BUSY_WAIT_S 600

struct sqlite_wait {
	struct writer_ctx *w;
	double start;
	bool said;
	bool locked;		/* the write lock is held: what holds us up is readers */
};

struct sqlite_state {
	struct sql_conn sql;		/* first: the SQL layer's calls come back with it */
	sqlite3 *db;
	const struct result_table *cur;	/* the table being written (temp.hbbp_rows) */
	sqlite3_int64 run_id;
	struct sqlite_wait wait;
};

/* SQLite result code -> negative errno / -HBBP_E*. */
static int sqlite__err(sqlite3 *db, int rc)
{
	int sys = db ? sqlite3_system_errno(db) : 0;

	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return 0;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_IOERR:
		return sys ? -sys : -EIO;
	case SQLITE_CANTOPEN:
		return sys ? -sys : -EACCES;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_ERROR:	/* our SQL is fixed: the database's ("unsupported file format") */
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
	case SQLITE_SCHEMA:
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
		return -HBBP_EFORMAT;
	case SQLITE_TOOBIG:
	case SQLITE_RANGE:
		return -HBBP_ELIMIT;
	}
	return -EIO;
}

static int sqlite__fail(struct writer_ctx *w, sqlite3 *db, int rc, const char *what)
{
	int err = sqlite__err(db, rc);

	return writer__fail(w, err, "%s: %s (%s)", what, db ? sqlite3_errmsg(db) :
			    sqlite3_errstr(rc), hbbp_strerror(err));
}

static int sqlite__exec(struct sql_conn *c, const char *sql, const char *what)
{
	sqlite3 *db = ((struct sqlite_state *)c)->db;
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : sqlite__fail(c->w, db, rc, what);
}

static int sqlite__query(struct sql_conn *c, const char *sql, const char *param,
			 void (*row)(void *ctx, const char *const *col), void *ctx)
{
	sqlite3 *db = ((struct sqlite_state *)c)->db;
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL), n = 0, i;

	if (rc == SQLITE_OK && param)
		rc = sqlite3_bind_text(st, 1, param, -1, SQLITE_STATIC);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *col[SQL_MAX_COLS];

		for (i = 0; i < SQL_MAX_COLS; i++) {
			col[i] = (const char *)sqlite3_column_text(st, i);
			col[i] = col[i] ? col[i] : "";
		}
		if (row)
			row(ctx, col);
		n++;
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_DONE)
		n = sqlite__fail(c->w, db, rc, "reading the existing schema");
	sqlite3_finalize(st);
	return n;
}

/* A cell into parameter k of st. */
static int sqlite__bind(sqlite3_stmt *st, int k, const struct result_cell *c)
{
	switch (c->type) {
	case RES_INT: return sqlite3_bind_int64(st, k, c->i);
	case RES_REAL: return sqlite3_bind_double(st, k, c->d);	/* NaN: NULL */
	case RES_TEXT: return sqlite3_bind_text(st, k, c->s, -1, SQLITE_STATIC);
	case RES_NULL: break;
	}
	return sqlite3_bind_null(st, k);
}

/* Another connection holds a lock: wait (1 to 50 ms at a time) up to SQLITE_BUSY_WAIT_S
 * seconds, saying so (which) once after a second; give up at once when a signal came. */
static int sqlite__busy(void *arg, int count)
{
	struct sqlite_wait *bw = arg;
	double waited;

	if (writer__interrupted())
		return 0;
	if (count == 0)
		bw->start = hbbp_now();
	waited = hbbp_now() - bw->start;
	if (waited > SQLITE_BUSY_WAIT_S)
		return 0;
	if (waited > 1 && !bw->said) {
		/* before the write lock: another writer holds it; after: committing (or a
		 * full cache) waits for readers to finish, as a rollback journal needs */
		pr_info("%s: waiting for %s to finish", bw->w->path, bw->locked ?
			"the database's readers" : "another writer");
		bw->said = true;
	}
	usleep(count < 10 ? 1000 : count < 50 ? 10000 : 50000);
	return 1;
}

/* The run, its metadata and warnings. */
static int sqlite__add_run(struct writer_ctx *w, struct sqlite_state *s)
{
	const char *info[WRITER_RUN_INFO];
	sqlite3_stmt *st = NULL;
	size_t i;
	int rc;

	rc = sqlite3_prepare_v2(s->db, sql_sqlite.insert_run, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int(st, 1, SCHEMA_FORMAT_VERSION);
		writer__run_info(w, info);
		for (i = 0; i < WRITER_RUN_INFO; i++)
			if (info[i])
				sqlite3_bind_text(st, (int)i + 2, info[i], -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sqlite__fail(w, s->db, rc, "adding the run");
	s->run_id = sqlite3_last_insert_rowid(s->db);
	snprintf(w->run_id, sizeof(w->run_id), "%lld", (long long)s->run_id);
	rc = sql_schema__run_meta(&s->sql, w->run_id);
	if (rc)
		return rc;

	rc = sqlite3_prepare_v2(s->db, sql_insert_meta, -1, &st, NULL);
	for (i = 0; rc == SQLITE_OK && i < w->res->nr_meta; i++) {
		const struct result_kv *kv = &w->res->meta[i];

		sqlite3_bind_int64(st, 1, s->run_id);
		sqlite3_bind_text(st, 2, kv->key, -1, SQLITE_STATIC);
		rc = sqlite__bind(st, 3, &kv->val);
		if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_DONE)
			rc = sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_OK)
		return sqlite__fail(w, s->db, rc, "writing the run metadata");

	rc = sqlite3_prepare_v2(s->db, sql_insert_warning, -1, &st, NULL);
	for (i = 0; rc == SQLITE_OK && i < w->res->nr_warnings; i++) {
		sqlite3_bind_int64(st, 1, s->run_id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)i);
		sqlite3_bind_text(st, 3, w->res->warnings[i], -1, SQLITE_STATIC);
		if ((rc = sqlite3_step(st)) == SQLITE_DONE)
			rc = sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_OK)
		return sqlite__fail(w, s->db, rc, "writing the warnings");
	return 0;
}

/* Opens path (SQLITE_OPEN_* flags). A database that
 * another may have written (foreign) gets the defensive settings: no change of the schema
 * tables by hand, no function of the schema's that is not harmless (trusted_schema off),
 * no extension loaded, no trigger run (sql_schema__check refuses them first anyway). A
 * file of our own may run without a journal (which the defensive mode forbids). */
static int sqlite__connect(struct writer_ctx *w, struct sqlite_state *s, const char *path,
			   int flags, bool foreign, const char *what)
{
	static const int off[] = { SQLITE_DBCONFIG_TRUSTED_SCHEMA,
				   SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION,
				   SQLITE_DBCONFIG_ENABLE_TRIGGER };
	int rc = sqlite3_open_v2(path, &s->db, flags, NULL);
	size_t i;

	if (rc == SQLITE_OK && foreign)
		rc = sqlite3_db_config(s->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	for (i = 0; rc == SQLITE_OK && foreign && i < sizeof(off) / sizeof(off[0]); i++)
		rc = sqlite3_db_config(s->db, off[i], 0, NULL);
	if (rc != SQLITE_OK)
		return sqlite__fail(w, s->db, rc, what);
	sqlite3_extended_result_codes(s->db, 1);
	s->sql = (struct sql_conn){ &sql_sqlite, w, NULL, sqlite__exec, sqlite__query };
	return 0;
}

/* What this run's tables, views and indexes are in an empty database (in memory), for
 * sql_schema__check to compare an existing one with. */
static int sqlite__reference(struct writer_ctx *w, struct sqlite_state *ref)
{
	int err = sqlite__connect(w, ref, ":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY,
				  false, "opening a database in memory");

	err = err ? err : sql_schema__create(&ref->sql);
	return err ? err : sql_schema__indexes(&ref->sql);
}

/* ---- the rows of the table being written as the virtual table temp.SQL_ROWS_TABLE
 * (columns c0..): a table is one INSERT ... SELECT, no statement run per row ---- */
struct rows_vtab {
	sqlite3_vtab base;
	struct sqlite_state *s;
};

struct rows_cursor {
	sqlite3_vtab_cursor base;
	const struct result_table *t;
	size_t row;
	const struct result_cell *cells;	/* the row's, NULL: not made yet */
};

static int rows__connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			 sqlite3_vtab **out, char **errmsg)
{
	char decl[16 + SQL_MAX_TABLE_COLS * 7];
	struct rows_vtab *v;
	size_t n = 0, i;
	int rc;

	n += (size_t)snprintf(decl, sizeof(decl), "CREATE TABLE x(c0");
	for (i = 1; i < SQL_MAX_TABLE_COLS; i++)
		n += (size_t)snprintf(decl + n, sizeof(decl) - n, ", c%zu", i);
	snprintf(decl + n, sizeof(decl) - n, ")");
	rc = sqlite3_declare_vtab(db, decl);
	if (rc != SQLITE_OK)
		return rc;
	v = sqlite3_malloc(sizeof(*v));
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	v->s = aux;
	*out = &v->base;
	return SQLITE_OK;
}

static int rows__best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
	info->estimatedCost = 1;
	return SQLITE_OK;
}

static int rows__disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

static int rows__open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct rows_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->t = ((struct rows_vtab *)v)->s->cur;
	*out = &c->base;
	return SQLITE_OK;
}

static int rows__close(sqlite3_vtab_cursor *c)
{
	sqlite3_free(c);
	return SQLITE_OK;
}

static int rows__filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc,
			sqlite3_value **argv)
{
	struct rows_cursor *c = (struct rows_cursor *)cur;

	c->row = 0;
	c->cells = NULL;
	return SQLITE_OK;
}

static int rows__next(sqlite3_vtab_cursor *cur)
{
	struct rows_cursor *c = (struct rows_cursor *)cur;

	c->row++;
	c->cells = NULL;
	return SQLITE_OK;
}

/* the end of the rows, or a signal (the writer rolls back) */
static int rows__eof(sqlite3_vtab_cursor *cur)
{
	struct rows_cursor *c = (struct rows_cursor *)cur;

	return !c->t || c->row >= c->t->nr_rows || writer__interrupted();
}

/* Cell k of the row; a text is the row's until the next (the INSERT has copied it). */
static int rows__column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int k)
{
	struct rows_cursor *c = (struct rows_cursor *)cur;
	const struct result_cell *cell;

	if (!c->cells)
		c->cells = result_table__row(c->t, c->row);
	cell = &c->cells[k];
	switch (cell->type) {
	case RES_INT: sqlite3_result_int64(ctx, cell->i); break;
	case RES_REAL: sqlite3_result_double(ctx, cell->d); break;	/* NaN: NULL */
	case RES_TEXT: sqlite3_result_text(ctx, cell->s, -1, SQLITE_STATIC); break;
	case RES_NULL: break;
	}
	return SQLITE_OK;
}

static int rows__rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct rows_cursor *)cur)->row;
	return SQLITE_OK;
}

static const sqlite3_module rows_module = {
	.xCreate = rows__connect,
	.xConnect = rows__connect,
	.xBestIndex = rows__best_index,
	.xDisconnect = rows__disconnect,
	.xDestroy = rows__disconnect,
	.xOpen = rows__open,
	.xClose = rows__close,
	.xFilter = rows__filter,
	.xNext = rows__next,
	.xEof = rows__eof,
	.xColumn = rows__column,
	.xRowid = rows__rowid,
};

static int sqlite__open(struct writer_ctx *w)
{
	struct sqlite_state *s = calloc(1, sizeof(*s)), ref = { 0 };
	struct sql_conn *c;
	int err, rc;

	if (!s)
		return -ENOMEM;
	w->priv = s;
	c = &s->sql;
	s->wait.w = w;
	err = sql_schema__check_result(w);
	if (!err)
		err = sqlite__connect(w, s, w->db_path, SQLITE_OPEN_READWRITE, w->in_place,
				      w->in_place ? "opening the database" :
				      "opening the temporary database");
	if (err)
		return err;
	sqlite3_busy_handler(s->db, sqlite__busy, &s->wait);
	if (w->in_place) {
		/* the database's own journal mode and durability; the lock before any read. The
		 * schema is read first here: SQLite says "out of memory" for some corrupt
		 * records of it, which are the file's fault (bad input), not this process's */
		rc = sqlite3_exec(s->db, "PRAGMA cache_size = -32768;", NULL, NULL, NULL);
		err = rc == SQLITE_OK ? 0 : (rc & 0xff) == SQLITE_NOMEM ?
			sqlite__fail(w, NULL, SQLITE_CORRUPT, "setting up the database") :
			sqlite__fail(w, s->db, rc, "setting up the database");
		if (!err)
			err = sqlite__exec(c, "BEGIN IMMEDIATE", "locking the database");
		s->wait.locked = true;
		if (!err)
			err = sqlite__reference(w, &ref);
		c->ref = &ref.sql;
	} else {
		/* rows are only appended: a small cache does, and larger pages (the database's
		 * for good) take fewer of them to fill and index (cc1: the writer's CPU -11%) */
		err = sqlite__exec(c, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
				   " PRAGMA page_size = 32768; PRAGMA cache_size = -8192;",
				   "setting up the database");
		if (!err)
			err = sqlite__exec(c, "BEGIN", "starting the transaction");
	}
	if (!err)
		err = sql_schema__create(c);
	/* the indexes before the rows: their keys come in order, each an append (cc1: the
	 * writer's CPU -12% against an index sorted after) */
	if (!err)
		err = sql_schema__indexes(c);
	c->ref = NULL;
	rc = err ? SQLITE_OK : sqlite3_create_module(s->db, SQL_ROWS_TABLE, &rows_module, s);
	if (rc != SQLITE_OK)
		err = sqlite__fail(w, s->db, rc, "setting up the database");
	if (!err)
		err = sqlite__exec(c, "CREATE VIRTUAL TABLE temp." SQL_ROWS_TABLE " USING "
				   SQL_ROWS_TABLE, "setting up the database");
	sqlite3_close(ref.db);
	return err ? err : sqlite__add_run(w, s);
}

/* The rows of t: one INSERT ... SELECT from temp.SQL_ROWS_TABLE. */
static int sqlite__begin(struct writer_ctx *w, const struct result_table *t)
{
	struct sqlite_state *s = w->priv;
	sqlite3_stmt *st = NULL;
	char *sql, what[96];
	int rc, err;

	if (t->nr_cols > SQL_MAX_TABLE_COLS)
		return -HBBP_ELIMIT;
	err = sql_schema__rows_sql(&sql_sqlite, t, &sql);
	if (err)
		return err;
	s->cur = t;
	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	free(sql);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 1, s->run_id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	sqlite3_finalize(st);
	s->cur = NULL;
	if (rc != SQLITE_DONE) {
		snprintf(what, sizeof(what), "writing table \"%.64s\"", t->name);
		return sqlite__fail(w, s->db, rc, what);
	}
	return writer__interrupted() ? -EINTR : 0;
}

static int sqlite__close(struct writer_ctx *w, bool ok)
{
	struct sqlite_state *s = w->priv;
	int err = 0, rc;

	if (!s)
		return ok ? -ENOMEM : 0;
	if (ok && writer__interrupted())
		err = -EINTR;
	if (ok && !err)
		err = sqlite__exec(&s->sql, "COMMIT", "committing");
	if (s->db && (!ok || err) && !sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	rc = sqlite3_close(s->db);
	if (ok && !err && rc != SQLITE_OK)
		err = sqlite__fail(w, s->db, rc, "closing the database");
	if (rc != SQLITE_OK)
		sqlite3_close_v2(s->db);
	free(s);
	w->priv = NULL;
	return err;
}

const struct writer_ops sqlite_writer_ops = {
	.name = "sqlite",
	.sqlite = true,
	.tables = NULL,
	.open = sqlite__open,
	.begin = sqlite__begin,
	.close = sqlite__close,
};
