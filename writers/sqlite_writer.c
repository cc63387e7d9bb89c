/* SQLite writer: every table of the result, each row with the run's run_id, plus the run
 * bookkeeping tables (runs, run_meta, warnings), indexes and the pivot views of
 * writers/SCHEMA.md. One transaction, prepared statements, PRAGMA user_version =
 * SCHEMA_FORMAT_VERSION. The file written is the temporary file of writer__write(), which
 * renames it into place; with --append the existing database is first copied into it with
 * the backup API, so a failed append leaves the original untouched. The temporary file needs
 * no rollback journal (journal_mode=OFF, synchronous=OFF): atomicity comes from the rename
 * and durability from writer__write's fsync. Depends on writers/, util/hbbp_err.h, sqlite3.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/hbbp_err.h"
#include "writers/schema.h"
#include "writers/writer_int.h"

struct sqlite_state {
	sqlite3 *db;
	sqlite3_stmt *ins;
	sqlite3_int64 run_id;
};

static const struct {
	const char *name;
	const char *const *cols;
	size_t nr_cols;
} schema_tables[] = {
	{ "events", schema_events, SCHEMA_NR(schema_events) },
	{ "modules", schema_modules, SCHEMA_NR(schema_modules) },
	{ "symbols", schema_symbols, SCHEMA_NR(schema_symbols) },
	{ "blocks", schema_blocks, SCHEMA_NR(schema_blocks) },
	{ "instructions", schema_instructions, SCHEMA_NR(schema_instructions) },
	{ "thread_blocks", schema_thread_blocks, SCHEMA_NR(schema_thread_blocks) },
};
#define NR_SCHEMA_TABLES (sizeof(schema_tables) / sizeof(schema_tables[0]))

/* Bookkeeping tables: "name type" column lists (the run_id column of runs is its key). */
static const char *const runs_cols[] = { "run_id INTEGER", "created TEXT",
					 "format_version INTEGER" };
static const char *const run_meta_cols[] = { "run_id INTEGER", "key TEXT", "value" };
static const char *const warnings_cols[] = { "run_id INTEGER", "seq INTEGER", "message TEXT" };

static const char sql_bookkeeping[] =
	"CREATE TABLE IF NOT EXISTS runs (run_id INTEGER PRIMARY KEY, created TEXT NOT NULL,"
	" format_version INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS run_meta (run_id INTEGER NOT NULL REFERENCES runs,"
	" key TEXT NOT NULL, value, PRIMARY KEY (run_id, key));"
	"CREATE TABLE IF NOT EXISTS warnings (run_id INTEGER NOT NULL REFERENCES runs,"
	" seq INTEGER NOT NULL, message TEXT, PRIMARY KEY (run_id, seq));";

static const char sql_indexes[] =
	"CREATE INDEX IF NOT EXISTS instructions_block ON instructions (run_id, block_id);"
	"CREATE INDEX IF NOT EXISTS thread_blocks_block ON thread_blocks (run_id, block_id);"
	"CREATE INDEX IF NOT EXISTS blocks_block ON blocks (run_id, block_id);"
	"CREATE INDEX IF NOT EXISTS modules_module ON modules (run_id, module_id);"
	"CREATE INDEX IF NOT EXISTS symbols_symbol ON symbols (run_id, symbol_id);";

/* count: executions of the instructions, Σ over thread_blocks rows of the block's count,
 * once per instruction of the block; a block without code (length NULL, no instructions:
 * its count is already instructions) once, keyed by its marker (in srcline); share: count
 * over the run's total of every row, as in the CSV (writers/SCHEMA.md, "share"). Module
 * names are the recorded names' last component, as the CSV's. count_lo, count_hi: the 95%
 * interval of count from its batch estimates b0..b9 over 10 (the thread_blocks columns
 * batch0..9 summed as count is; batch means, as hbbp/method/interval.c computes it for the
 * mix table): count -/+ t(9) * sqrt(Σ (10 b_i - count)^2 / 90), the low end at least 0.
 * Needs SQLite's math functions (sqrt). */
_Static_assert(SCHEMA_BATCHES == 10, "the views below spell out 10 batches");
#define VIEW_B(i, f)	", SUM(tb.batch" #i f ") AS b" #i
#define VIEW_BATCHES(f)	VIEW_B(0, f) VIEW_B(1, f) VIEW_B(2, f) VIEW_B(3, f) VIEW_B(4, f)	\
			VIEW_B(5, f) VIEW_B(6, f) VIEW_B(7, f) VIEW_B(8, f) VIEW_B(9, f)
#define VIEW_D(i)	"(10 * b" #i " - count) * (10 * b" #i " - count)"
#define VIEW_HALF	" " SCHEMA_T975 " * sqrt((" VIEW_D(0) " + " VIEW_D(1) " + " VIEW_D(2)	\
			" + " VIEW_D(3) " + " VIEW_D(4) " + " VIEW_D(5) " + " VIEW_D(6) " + "	\
			VIEW_D(7) " + " VIEW_D(8) " + " VIEW_D(9) ") / 90.0) AS half"
/* the outer selects of a view over (run_id, key..., count, b0..b9) */
#define VIEW_HEAD(view, key)								\
	"CREATE VIEW IF NOT EXISTS " view " AS SELECT run_id, " key ", count,"		\
	" CASE WHEN count > 0 AND count - half > 0 THEN count - half ELSE 0 END AS count_lo,"	\
	" CASE WHEN count > 0 THEN count + half ELSE 0 END AS count_hi,"			\
	" count / SUM(count) OVER (PARTITION BY run_id) AS share FROM"			\
	" (SELECT run_id, " key ", count," VIEW_HALF " FROM"
#define MIX_VIEW(view, key, col)							\
	VIEW_HEAD(view, key)								\
	" (SELECT tb.run_id AS run_id, COALESCE(i." col ", b.srcline) AS " key ","	\
	" SUM(tb.count) AS count" VIEW_BATCHES("")					\
	" FROM thread_blocks tb JOIN blocks b"						\
	" ON b.run_id = tb.run_id AND b.block_id = tb.block_id"			\
	" LEFT JOIN instructions i ON i.run_id = tb.run_id AND i.block_id = tb.block_id" \
	" WHERE tb.count > 0 AND (i.block_id IS NOT NULL OR b.length IS NULL)"	\
	" GROUP BY tb.run_id, COALESCE(i." col ", b.srcline)))"			\
	" ORDER BY run_id, count DESC, " key ";"
/* instructions per block: the decoded ones, 1 for a block without code */
#define VIEW_NI										\
	" JOIN blocks b ON b.run_id = tb.run_id AND b.block_id = tb.block_id"		\
	" LEFT JOIN (SELECT run_id, block_id, COUNT(*) AS n FROM instructions"		\
	" GROUP BY run_id, block_id) ni ON ni.run_id = tb.run_id AND ni.block_id = tb.block_id"
#define VIEW_NI_WHERE " WHERE tb.count > 0 AND (ni.n IS NOT NULL OR b.length IS NULL)"

static const char sql_views[] =
	MIX_VIEW("mix_by_mnemonic", "mnemonic", "mnemonic")
	MIX_VIEW("mix_by_isa", "isa", "isa")
	MIX_VIEW("mix_by_category", "category", "category")
	VIEW_HEAD("mix_by_function", "module, symbol")
	" (SELECT tb.run_id AS run_id,"
	" COALESCE(replace(m.name, rtrim(m.name, replace(m.name, '/', '')), ''), '[unmapped]')"
	" AS module, COALESCE(s.name, '[unknown]') AS symbol,"
	" SUM(tb.count * COALESCE(ni.n, 1)) AS count" VIEW_BATCHES(" * COALESCE(ni.n, 1)")
	" FROM thread_blocks tb" VIEW_NI
	" LEFT JOIN modules m ON m.run_id = b.run_id AND m.module_id = b.module_id"
	" LEFT JOIN symbols s ON s.run_id = b.run_id AND s.symbol_id = b.symbol_id"
	VIEW_NI_WHERE
	" GROUP BY tb.run_id, 2, 3))"
	" ORDER BY run_id, count DESC, module, symbol;"
	VIEW_HEAD("mix_by_thread", "pid, tid, comm")
	" (SELECT tb.run_id AS run_id, tb.pid AS pid, tb.tid AS tid,"
	" COALESCE(NULLIF(tb.comm, ''), '[unknown]') AS comm,"
	" SUM(tb.count * COALESCE(ni.n, 1)) AS count" VIEW_BATCHES(" * COALESCE(ni.n, 1)")
	" FROM thread_blocks tb" VIEW_NI VIEW_NI_WHERE
	" GROUP BY tb.run_id, tb.pid, tb.tid, 4))"
	" ORDER BY run_id, count DESC, pid, tid;"
	"CREATE VIEW IF NOT EXISTS block_detail AS SELECT b.run_id AS run_id,"
	" b.block_id AS block_id, m.name AS module, m.path AS module_path,"
	" s.name AS symbol, printf('0x%x', b.address) AS address,"
	" b.address - s.address AS symbol_offset,"
	" b.length AS length, b.bytes AS bytes, b.srcline AS srcline, b.count AS count,"
	" b.count_lo AS count_lo, b.count_hi AS count_hi,"
	" b.ebs_count AS ebs_count, b.lbr_count AS lbr_count, b.source AS source,"
	" b.ebs_samples AS ebs_samples, b.lbr_streams AS lbr_streams, b.biased AS biased,"
	" b.bias_share AS bias_share"
	" FROM blocks b"
	" LEFT JOIN modules m ON m.run_id = b.run_id AND m.module_id = b.module_id"
	" LEFT JOIN symbols s ON s.run_id = b.run_id AND s.symbol_id = b.symbol_id;";

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

	pr_err("%s: %s: %s (%s)", w->path, what, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc),
	       hbbp_strerror(err));
	w->logged = true;
	return err;
}

static int sqlite__exec(struct writer_ctx *w, sqlite3 *db, const char *sql, const char *what)
{
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : sqlite__fail(w, db, rc, what);
}

/* Appends the SQL identifier s, double-quoted, to buf; returns 0 or -ENOMEM. */
static int sql__ident(char **buf, size_t *len, const char *s)
{
	size_t n = strlen(s), need = *len + 2 * n + 3;
	char *p = realloc(*buf, need + 1);

	if (!p)
		return -ENOMEM;
	*buf = p;
	p += *len;
	*p++ = '"';
	for (; *s; s++) {
		*p++ = *s;
		if (*s == '"')
			*p++ = '"';
	}
	*p++ = '"';
	*p = '\0';
	*len = (size_t)(p - *buf);
	return 0;
}

static int sql__cat(char **buf, size_t *len, const char *s)
{
	size_t n = strlen(s);
	char *p = realloc(*buf, *len + n + 1);

	if (!p)
		return -ENOMEM;
	memcpy(p + *len, s, n + 1);
	*buf = p;
	*len += n;
	return 0;
}

static const char *sql__type(enum result_type t)
{
	switch (t) {
	case RES_INT: return "INTEGER";
	case RES_REAL: return "REAL";
	case RES_TEXT: return "TEXT";
	case RES_NULL: break;
	}
	return "";
}

/* Compares the columns of an existing table with names[i]/types[i] (run_id first).
 * Returns 0 when they match, 1 when the table does not exist, else an error. */
static int sqlite__check_table(struct writer_ctx *w, sqlite3 *db, const char *table,
			       size_t nr, const char *const *names, const char *const *types)
{
	sqlite3_stmt *st = NULL;
	size_t i = 0;
	bool same = true;
	int rc, err = 0;

	rc = sqlite3_prepare_v2(db, "SELECT name, type FROM pragma_table_info(?1)", -1, &st,
				NULL);
	if (rc != SQLITE_OK)
		return sqlite__fail(w, db, rc, "reading the existing schema");
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);

		if (i >= nr || !name || strcmp(name, names[i]) || strcasecmp(type ? type : "",
									    types[i]))
			same = false;
		i++;
	}
	if (rc != SQLITE_DONE)
		err = sqlite__fail(w, db, rc, "reading the existing schema");
	sqlite3_finalize(st);
	if (err)
		return err;
	if (i == 0)
		return 1;
	if (i != nr || !same) {
		pr_err("%s: table \"%s\" of the database has other columns than this run's;"
		       " append only runs written with the same options (--by) or write a new"
		       " database", w->path, table);
		w->logged = true;
		return -HBBP_EFORMAT;
	}
	return 0;
}

/* Creates table t (run_id + its columns) or checks that an existing one matches. */
static int sqlite__ensure_table(struct writer_ctx *w, sqlite3 *db, const struct result_table *t)
{
	const char **names = calloc(t->nr_cols + 1, sizeof(*names));
	const char **types = calloc(t->nr_cols + 1, sizeof(*types));
	char *sql = NULL;
	size_t len = 0, i;
	int err = -ENOMEM;

	if (!names || !types)
		goto out;
	names[0] = "run_id";
	types[0] = "INTEGER";
	for (i = 0; i < t->nr_cols; i++) {
		names[i + 1] = t->cols[i].name;
		types[i + 1] = sql__type(t->cols[i].type);
	}
	err = sqlite__check_table(w, db, t->name, t->nr_cols + 1, names, types);
	if (err <= 0)
		goto out;
	err = sql__cat(&sql, &len, "CREATE TABLE ");
	err = err ? err : sql__ident(&sql, &len, t->name);
	err = err ? err : sql__cat(&sql, &len, " (run_id INTEGER NOT NULL REFERENCES runs");
	for (i = 0; !err && i < t->nr_cols; i++) {
		err = sql__cat(&sql, &len, ", ");
		err = err ? err : sql__ident(&sql, &len, t->cols[i].name);
		err = err ? err : sql__cat(&sql, &len, " ");
		err = err ? err : sql__cat(&sql, &len, types[i + 1]);
	}
	err = err ? err : sql__cat(&sql, &len, ")");
	if (!err)
		err = sqlite__exec(w, db, sql, "creating a table");
out:
	free(sql);
	free(names);
	free(types);
	return err;
}

static int sqlite__check_bookkeeping(struct writer_ctx *w, sqlite3 *db)
{
	static const struct {
		const char *name;
		const char *const *cols;
		size_t nr;
	} tabs[] = {
		{ "runs", runs_cols, 3 },
		{ "run_meta", run_meta_cols, 3 },
		{ "warnings", warnings_cols, 3 },
	};
	size_t i, k;
	int err;

	for (i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++) {
		const char *names[3], *types[3];
		char buf[3][32];

		for (k = 0; k < tabs[i].nr; k++) {
			const char *sp = strchr(tabs[i].cols[k], ' ');

			snprintf(buf[k], sizeof(buf[k]), "%.*s",
				 sp ? (int)(sp - tabs[i].cols[k]) : (int)strlen(tabs[i].cols[k]),
				 tabs[i].cols[k]);
			names[k] = buf[k];
			types[k] = sp ? sp + 1 : "";
		}
		err = sqlite__check_table(w, db, tabs[i].name, tabs[i].nr, names, types);
		if (err < 0)
			return err;
	}
	return 0;
}

/* A result table with a name of schema.h must have exactly its columns; other names must
 * not collide with the bookkeeping tables or SQLite's own. */
static int sqlite__check_result(struct writer_ctx *w)
{
	const struct result *r = w->res;
	size_t i, k, c;

	for (i = 0; i < r->nr_tables; i++) {
		const struct result_table *t = r->tables[i];

		if (!strcmp(t->name, "runs") || !strcmp(t->name, "run_meta") ||
		    !strcmp(t->name, "warnings") || !strncasecmp(t->name, "sqlite_", 7)) {
			pr_err("%s: result table name \"%s\" is reserved", w->path, t->name);
			w->logged = true;
			return -EINVAL;
		}
		for (k = 0; k < NR_SCHEMA_TABLES; k++) {
			if (strcmp(t->name, schema_tables[k].name))
				continue;
			if (t->nr_cols != schema_tables[k].nr_cols)
				goto mismatch;
			for (c = 0; c < t->nr_cols; c++) {
				static const char *const tn[] = { "", "int", "real", "text" };
				char spec[256];

				snprintf(spec, sizeof(spec), "%s:%s", t->cols[c].name,
					 tn[t->cols[c].type]);
				if (strcmp(spec, schema_tables[k].cols[c]))
					goto mismatch;
			}
		}
	}
	return 0;
mismatch:
	pr_err("%s: result table \"%s\" does not have the columns of writers/schema.h",
	       w->path, r->tables[i]->name);
	w->logged = true;
	return -EINVAL;
}

/* Schema tables the result lacks are created from schema.h, so the views always work. */
static int sqlite__ensure_schema(struct writer_ctx *w, sqlite3 *db)
{
	const struct result *r = w->res;
	size_t i;
	int err;

	err = sqlite__check_bookkeeping(w, db);
	if (!err)
		err = sqlite__exec(w, db, sql_bookkeeping, "creating the run tables");
	for (i = 0; !err && i < NR_SCHEMA_TABLES; i++) {
		struct result *tmp = NULL;
		struct result_table *t;

		if (result__table(r, schema_tables[i].name))
			continue;
		err = result__new(&tmp);
		if (!err)
			err = result__add_table(tmp, schema_tables[i].name, schema_tables[i].cols,
						schema_tables[i].nr_cols, &t);
		if (!err)
			err = sqlite__ensure_table(w, db, t);
		result__delete(tmp);
	}
	for (i = 0; !err && i < r->nr_tables; i++)
		err = sqlite__ensure_table(w, db, r->tables[i]);
	if (!err)
		err = sqlite__exec(w, db, sql_views, "creating the views");
	return err;
}

/* --append: copies the existing database into the temporary file and checks its version. */
static int sqlite__copy_existing(struct writer_ctx *w, sqlite3 *dst)
{
	struct stat st;
	sqlite3 *src = NULL;
	sqlite3_backup *bk;
	sqlite3_stmt *q = NULL;
	int rc, err = 0, version = 0, nr_objects = 0;

	if (stat(w->path, &st) || !S_ISREG(st.st_mode))
		return 0;	/* nothing to append to: a new database */
	rc = sqlite3_open_v2(w->path, &src, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		err = sqlite__fail(w, src, rc, "opening the database to append to");
		goto out;
	}
	bk = sqlite3_backup_init(dst, "main", src, "main");
	if (!bk) {
		err = sqlite__fail(w, dst, sqlite3_errcode(dst), "copying the database");
		goto out;
	}
	rc = sqlite3_backup_step(bk, -1);
	sqlite3_backup_finish(bk);
	if (rc != SQLITE_DONE) {
		err = sqlite__fail(w, rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT ? src : dst, rc,
				   "copying the database");
		if (rc == SQLITE_NOTADB)
			err = -HBBP_EFORMAT;
		goto out;
	}
	rc = sqlite3_prepare_v2(dst, "SELECT (SELECT user_version FROM pragma_user_version),"
				" (SELECT COUNT(*) FROM sqlite_schema)", -1, &q, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		version = sqlite3_column_int(q, 0);
		nr_objects = sqlite3_column_int(q, 1);
	} else {
		err = sqlite__fail(w, dst, rc, "reading the database version");
		goto out;
	}
	if (version != SCHEMA_FORMAT_VERSION && !(version == 0 && nr_objects == 0)) {
		pr_err("%s: database schema version %d, this tool writes version %d: write a"
		       " new database", w->path, version, SCHEMA_FORMAT_VERSION);
		w->logged = true;
		err = -HBBP_EFORMAT;
	}
out:
	sqlite3_finalize(q);
	sqlite3_close(src);
	return err;
}

static int sqlite__open(struct writer_ctx *w)
{
	struct sqlite_state *s = calloc(1, sizeof(*s));
	sqlite3_stmt *st = NULL;
	char pragma[64];
	size_t i;
	int rc, err;

	if (!s)
		return -ENOMEM;
	w->priv = s;
	err = sqlite__check_result(w);
	if (err)
		return err;
	rc = sqlite3_open_v2(w->tmp_path, &s->db, SQLITE_OPEN_READWRITE, NULL);
	if (rc != SQLITE_OK)
		return sqlite__fail(w, s->db, rc, "opening the temporary database");
	sqlite3_extended_result_codes(s->db, 1);
	err = sqlite__exec(w, s->db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
			   " PRAGMA cache_size = -32768;", "setting up the database");
	if (!err && w->opts->append)
		err = sqlite__copy_existing(w, s->db);
	if (!err)
		err = sqlite__exec(w, s->db, "BEGIN", "starting the transaction");
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", SCHEMA_FORMAT_VERSION);
	if (!err)
		err = sqlite__exec(w, s->db, pragma, "setting the schema version");
	if (!err)
		err = sqlite__ensure_schema(w, s->db);
	if (err)
		return err;

	rc = sqlite3_prepare_v2(s->db, "INSERT INTO runs (created, format_version) VALUES"
				" (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?1)", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int(st, 1, SCHEMA_FORMAT_VERSION);
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sqlite__fail(w, s->db, rc, "adding the run");
	s->run_id = sqlite3_last_insert_rowid(s->db);

	rc = sqlite3_prepare_v2(s->db, "INSERT INTO run_meta VALUES (?1, ?2, ?3)", -1, &st,
				NULL);
	for (i = 0; rc == SQLITE_OK && i < w->res->nr_meta; i++) {
		const struct result_kv *kv = &w->res->meta[i];

		sqlite3_bind_int64(st, 1, s->run_id);
		sqlite3_bind_text(st, 2, kv->key, -1, SQLITE_STATIC);
		switch (kv->val.type) {
		case RES_INT: rc = sqlite3_bind_int64(st, 3, kv->val.i); break;
		case RES_REAL: rc = sqlite3_bind_double(st, 3, kv->val.d); break;
		case RES_TEXT: rc = sqlite3_bind_text(st, 3, kv->val.s, -1, SQLITE_STATIC); break;
		case RES_NULL: rc = sqlite3_bind_null(st, 3); break;
		}
		if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_DONE)
			rc = sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_OK)
		return sqlite__fail(w, s->db, rc, "writing the run metadata");

	rc = sqlite3_prepare_v2(s->db, "INSERT INTO warnings VALUES (?1, ?2, ?3)", -1, &st, NULL);
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

static int sqlite__begin(struct writer_ctx *w, const struct result_table *t)
{
	struct sqlite_state *s = w->priv;
	char *sql = NULL;
	size_t len = 0, i;
	int rc, err;

	err = sql__cat(&sql, &len, "INSERT INTO ");
	err = err ? err : sql__ident(&sql, &len, t->name);
	err = err ? err : sql__cat(&sql, &len, " VALUES (?");
	for (i = 0; !err && i < t->nr_cols; i++)
		err = sql__cat(&sql, &len, ", ?");
	err = err ? err : sql__cat(&sql, &len, ")");
	if (err) {
		free(sql);
		return err;
	}
	rc = sqlite3_prepare_v2(s->db, sql, -1, &s->ins, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return sqlite__fail(w, s->db, rc, "preparing an insert");
	return 0;
}

static int sqlite__row(struct writer_ctx *w, const struct result_table *t, size_t row)
{
	struct sqlite_state *s = w->priv;
	const struct result_cell *c = &t->cells[row * t->nr_cols];
	sqlite3_stmt *st = s->ins;
	int rc = sqlite3_bind_int64(st, 1, s->run_id);
	size_t i;

	for (i = 0; rc == SQLITE_OK && i < t->nr_cols; i++) {
		int k = (int)i + 2;

		switch (c[i].type) {
		case RES_INT: rc = sqlite3_bind_int64(st, k, c[i].i); break;
		case RES_REAL: rc = sqlite3_bind_double(st, k, c[i].d); break;	/* NaN: NULL */
		case RES_TEXT: rc = sqlite3_bind_text(st, k, c[i].s, -1, SQLITE_STATIC); break;
		case RES_NULL: rc = sqlite3_bind_null(st, k); break;
		}
	}
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_DONE)
		rc = sqlite3_reset(st);
	if (rc != SQLITE_OK) {
		char what[128];

		sqlite3_reset(st);
		snprintf(what, sizeof(what), "writing row %zu of table \"%.64s\"", row, t->name);
		return sqlite__fail(w, s->db, rc, what);
	}
	return 0;
}

static int sqlite__end(struct writer_ctx *w, const struct result_table *t)
{
	struct sqlite_state *s = w->priv;

	sqlite3_finalize(s->ins);
	s->ins = NULL;
	return 0;
}

static int sqlite__close(struct writer_ctx *w, bool ok)
{
	struct sqlite_state *s = w->priv;
	int err = 0, rc;

	if (!s)
		return ok ? -ENOMEM : 0;
	sqlite3_finalize(s->ins);
	if (ok)
		err = sqlite__exec(w, s->db, sql_indexes, "creating the indexes");
	if (ok && !err)
		err = sqlite__exec(w, s->db, "COMMIT", "committing");
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
	.row = sqlite__row,
	.end = sqlite__end,
	.close = sqlite__close,
};
