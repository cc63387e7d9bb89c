/* PostgreSQL writer: the tables, views and indexes of the SQLite store (writers/schema.h,
 * writers/views.h, writers/SCHEMA.md) in a server, through libpq.
 *
 * The connection string is a libpq URI (postgresql://, postgres://) or keyword/value string;
 * libpq fills in what it lacks from the PG* environment variables and ~/.pgpass.
 * Two transactions:
 *  1. the schema, under a transaction-scoped advisory lock (PG_SCHEMA_LOCK), so that
 *     converters starting at once on an empty database do not race on CREATE: tables,
 *     views and indexes are created when missing and checked when present (same columns
 *     and types as this run's, format_version SCHEMA_FORMAT_VERSION);
 *  2. the run: INSERT INTO runs ... RETURNING run_id (an identity column: ids unique
 *     under any concurrency), run_meta, warnings, then every table through COPY FROM STDIN
 *     (text format), then COMMIT. Converters write runs concurrently; nothing of a run is
 *     visible before its COMMIT, and a failed, interrupted (the writer rolls back) or killed
 *     (the server aborts the transaction of a lost connection) converter leaves no row.
 * Types: int -> bigint, real -> double precision (NaN -> NULL), text -> text. The
 * connection's client_encoding is UTF8; a byte of a text value that is not part of valid
 * UTF-8 is sent as the code point of the same value (read as Latin-1), as the JSON writer
 * does.
 * libpq is loaded (dlopen "libpq.so.5") on the first PostgreSQL output, not linked: it pulls
 * in some 20 shared libraries (TLS, Kerberos, LDAP) whose loading would take ~7 ms from every
 * start of the tool, which otherwise links its libraries statically; without libpq installed
 * only this output fails, with the package to install.
 * Depends on writers/, util/hbbp_err.h and libpq (its header at build time).
 */
#include <dlfcn.h>
#include <errno.h>
#include <libpq-fe.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hbbp_err.h"
#include "util/json_escape.h"
#include "writers/schema.h"
#include "writers/views.h"
#include "writers/writer_int.h"

/* The libpq functions used, loaded by pq__load(); each field is named as its function, and
 * the macros below make the code read as plain libpq calls. */
static struct {
	void *handle;
	PGconn *(*PQconnectdb)(const char *conninfo);
	ConnStatusType (*PQstatus)(const PGconn *conn);
	char *(*PQerrorMessage)(const PGconn *conn);
	int (*PQsetClientEncoding)(PGconn *conn, const char *encoding);
	PGresult *(*PQexec)(PGconn *conn, const char *query);
	PGresult *(*PQexecParams)(PGconn *conn, const char *command, int nParams,
				  const Oid *paramTypes, const char *const *paramValues,
				  const int *paramLengths, const int *paramFormats,
				  int resultFormat);
	ExecStatusType (*PQresultStatus)(const PGresult *res);
	char *(*PQresultErrorMessage)(const PGresult *res);
	char *(*PQresultErrorField)(const PGresult *res, int fieldcode);
	void (*PQclear)(PGresult *res);
	int (*PQntuples)(const PGresult *res);
	char *(*PQgetvalue)(const PGresult *res, int tup_num, int field_num);
	int (*PQputCopyData)(PGconn *conn, const char *buffer, int nbytes);
	int (*PQputCopyEnd)(PGconn *conn, const char *errormsg);
	PGresult *(*PQgetResult)(PGconn *conn);
	void (*PQfinish)(PGconn *conn);
} pq;

/* Loads libpq once; logs and returns -ENOENT when it cannot. */
static int pq__load(struct writer_ctx *w)
{
#define PQ_FN(name) { #name, offsetof(__typeof__(pq), name) }
	static const struct { const char *name; size_t off; } fns[] = {
		PQ_FN(PQconnectdb), PQ_FN(PQstatus), PQ_FN(PQerrorMessage),
		PQ_FN(PQsetClientEncoding), PQ_FN(PQexec), PQ_FN(PQexecParams),
		PQ_FN(PQresultStatus), PQ_FN(PQresultErrorMessage), PQ_FN(PQresultErrorField),
		PQ_FN(PQclear), PQ_FN(PQntuples), PQ_FN(PQgetvalue), PQ_FN(PQputCopyData),
		PQ_FN(PQputCopyEnd), PQ_FN(PQgetResult), PQ_FN(PQfinish),
	};
#undef PQ_FN
	size_t i;

	if (pq.handle)
		return 0;
	pq.handle = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
	if (!pq.handle) {
		pr_err("%s: PostgreSQL output needs libpq (Debian: apt-get install libpq5): %s",
		       w->path, dlerror());
		w->logged = true;
		return -ENOENT;
	}
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		void *f = dlsym(pq.handle, fns[i].name);

		if (!f) {
			pr_err("%s: libpq.so.5 lacks %s", w->path, fns[i].name);
			w->logged = true;
			dlclose(pq.handle);
			pq.handle = NULL;
			return -ENOENT;
		}
		memcpy((char *)&pq + fns[i].off, &f, sizeof(f));
	}
	return 0;
}

#define PQconnectdb pq.PQconnectdb
#define PQstatus pq.PQstatus
#define PQerrorMessage pq.PQerrorMessage
#define PQsetClientEncoding pq.PQsetClientEncoding
#define PQexec pq.PQexec
#define PQexecParams pq.PQexecParams
#define PQresultStatus pq.PQresultStatus
#define PQresultErrorMessage pq.PQresultErrorMessage
#define PQresultErrorField pq.PQresultErrorField
#define PQclear pq.PQclear
#define PQntuples pq.PQntuples
#define PQgetvalue pq.PQgetvalue
#define PQputCopyData pq.PQputCopyData
#define PQputCopyEnd pq.PQputCopyEnd
#define PQgetResult pq.PQgetResult
#define PQfinish pq.PQfinish

/* pg_advisory_xact_lock key of the schema transaction: "hbbp" in ASCII. */
#define PG_SCHEMA_LOCK 0x68626270LL

struct pg_state {
	PGconn *conn;
	char *run_id;		/* decimal, as returned */
	bool in_copy;
	bool in_tx;
	size_t len;
	char buf[64 * 1024];
};

static const struct {
	const char *name;
	const char *const *cols;
	size_t nr_cols;
} pg_schema_tables[] = {
	{ "events", schema_events, SCHEMA_NR(schema_events) },
	{ "modules", schema_modules, SCHEMA_NR(schema_modules) },
	{ "symbols", schema_symbols, SCHEMA_NR(schema_symbols) },
	{ "blocks", schema_blocks, SCHEMA_NR(schema_blocks) },
	{ "instructions", schema_instructions, SCHEMA_NR(schema_instructions) },
	{ "thread_blocks", schema_thread_blocks, SCHEMA_NR(schema_thread_blocks) },
};
#define NR_PG_SCHEMA_TABLES (sizeof(pg_schema_tables) / sizeof(pg_schema_tables[0]))

static const char pg_bookkeeping[] =
	"CREATE TABLE IF NOT EXISTS format_version (version integer NOT NULL);"
	"CREATE TABLE IF NOT EXISTS runs (run_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
	" created timestamptz NOT NULL DEFAULT now(), format_version integer NOT NULL,"
	" label text, host text, recorded timestamptz, perf_version text, file text);"
	"CREATE TABLE IF NOT EXISTS run_meta (run_id bigint NOT NULL REFERENCES runs"
	" ON DELETE CASCADE, key text NOT NULL, value text, PRIMARY KEY (run_id, key));"
	"CREATE TABLE IF NOT EXISTS warnings (run_id bigint NOT NULL REFERENCES runs"
	" ON DELETE CASCADE, seq integer NOT NULL, message text, PRIMARY KEY (run_id, seq));"
	"CREATE INDEX IF NOT EXISTS runs_created ON runs (created);"
	"CREATE INDEX IF NOT EXISTS runs_label ON runs (label);";

/* The columns of the bookkeeping tables, as information_schema names their types. */
static const char *const pg_runs_cols[] = {
	"run_id:bigint", "created:timestamp with time zone", "format_version:integer",
	"label:text", "host:text", "recorded:timestamp with time zone", "perf_version:text",
	"file:text",
};
static const char *const pg_run_meta_cols[] = { "run_id:bigint", "key:text", "value:text" };
static const char *const pg_warnings_cols[] = { "run_id:bigint", "seq:integer",
						"message:text" };

static const char *pg__type(enum result_type t)
{
	switch (t) {
	case RES_INT: return "bigint";
	case RES_REAL: return "double precision";
	case RES_TEXT: return "text";
	case RES_NULL: break;
	}
	return "text";
}

/* A server error: the SQLSTATE class decides the errno (53: out of resources). */
static int pg__err(const PGresult *res)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	if (state && !strncmp(state, "53", 2))
		return !strcmp(state, "53100") ? -ENOSPC : -ENOMEM;
	if (state && !strncmp(state, "08", 2))
		return -ECONNRESET;
	if (state && (!strncmp(state, "42", 2) || !strncmp(state, "22", 2)))
		return -HBBP_EFORMAT;
	if (state && !strcmp(state, "57014"))
		return -EINTR;
	return -EIO;
}

static int pg__fail(struct writer_ctx *w, struct pg_state *s, const PGresult *res,
		    const char *what)
{
	const char *msg = res ? PQresultErrorMessage(res) : NULL;
	int err = res ? pg__err(res) : -EIO;
	size_t n;

	if (!msg || !*msg)
		msg = PQerrorMessage(s->conn);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		n--;
	pr_err("%s: %s: %.*s", w->path, what, (int)n, msg);
	w->logged = true;
	return err;
}

/* Runs sql (no parameters); returns 0 or the logged error. */
static int pg__exec(struct writer_ctx *w, struct pg_state *s, const char *sql, const char *what)
{
	PGresult *res = PQexec(s->conn, sql);
	int err = 0;

	if (PQresultStatus(res) != PGRES_COMMAND_OK && PQresultStatus(res) != PGRES_TUPLES_OK)
		err = pg__fail(w, s, res, what);
	PQclear(res);
	return err;
}

static PGresult *pg__query(struct pg_state *s, const char *sql, int n, const char *const *v)
{
	return PQexecParams(s->conn, sql, n, NULL, v, NULL, NULL, 0);
}

/* Appends the identifier id, double-quoted, to sql (at most size bytes). */
static int pg__ident(char **sql, const char *id)
{
	size_t n = strlen(id), len = *sql ? strlen(*sql) : 0;
	char *p = realloc(*sql, len + 2 * n + 3);
	size_t i;

	if (!p)
		return -ENOMEM;
	*sql = p;
	p += len;
	*p++ = '"';
	for (i = 0; i < n; i++) {
		*p++ = id[i];
		if (id[i] == '"')
			*p++ = '"';
	}
	*p++ = '"';
	*p = 0;
	return 0;
}

static int pg__cat(char **sql, const char *s)
{
	size_t len = *sql ? strlen(*sql) : 0, n = strlen(s);
	char *p = realloc(*sql, len + n + 1);

	if (!p)
		return -ENOMEM;
	memcpy(p + len, s, n + 1);
	*sql = p;
	return 0;
}

/* Compares the columns of table with specs ("name:type", in order). Returns 0 when they
 * match, 1 when the table does not exist, else a logged error. */
static int pg__check_table(struct writer_ctx *w, struct pg_state *s, const char *table,
			   const char *const *specs, size_t nr)
{
	const char *params[1] = { table };
	PGresult *res = pg__query(s, "SELECT column_name, data_type FROM"
				  " information_schema.columns WHERE table_schema ="
				  " current_schema() AND table_name = $1 ORDER BY ordinal_position",
				  1, params);
	int i, rows, err = 0;
	bool same;

	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		err = pg__fail(w, s, res, "reading the existing schema");
		PQclear(res);
		return err;
	}
	rows = PQntuples(res);
	same = (size_t)rows == nr;
	for (i = 0; same && i < rows; i++) {
		const char *name = PQgetvalue(res, i, 0), *type = PQgetvalue(res, i, 1);
		const char *colon = strchr(specs[i], ':');
		size_t nl = (size_t)(colon - specs[i]);

		if (strlen(name) != nl || strncmp(name, specs[i], nl) || strcmp(type, colon + 1))
			same = false;
	}
	PQclear(res);
	if (rows == 0)
		return 1;
	if (!same) {
		pr_err("%s: table \"%s\" of the database has other columns than this run's;"
		       " write only runs with the same options (--by) into one database",
		       w->path, table);
		w->logged = true;
		return -HBBP_EFORMAT;
	}
	return 0;
}

/* Creates table t (run_id + its columns) or checks an existing one. */
static int pg__ensure_table(struct writer_ctx *w, struct pg_state *s,
			    const struct result_table *t)
{
	char **specs = calloc(t->nr_cols + 1, sizeof(*specs));
	char *sql = NULL;
	size_t i;
	int err = -ENOMEM;

	if (!specs)
		return -ENOMEM;
	if (!(specs[0] = strdup("run_id:bigint")))
		goto out;
	for (i = 0; i < t->nr_cols; i++)
		if (asprintf(&specs[i + 1], "%s:%s", t->cols[i].name,
			     pg__type(t->cols[i].type)) < 0) {
			specs[i + 1] = NULL;
			goto out;
		}
	err = pg__check_table(w, s, t->name, (const char *const *)specs, t->nr_cols + 1);
	if (err <= 0)
		goto out;
	err = pg__cat(&sql, "CREATE TABLE ");
	err = err ? err : pg__ident(&sql, t->name);
	err = err ? err : pg__cat(&sql, " (run_id bigint NOT NULL REFERENCES runs ON DELETE"
				  " CASCADE");
	for (i = 0; !err && i < t->nr_cols; i++) {
		err = pg__cat(&sql, ", ");
		err = err ? err : pg__ident(&sql, t->cols[i].name);
		err = err ? err : pg__cat(&sql, " ");
		err = err ? err : pg__cat(&sql, pg__type(t->cols[i].type));
	}
	err = err ? err : pg__cat(&sql, ")");
	if (!err)
		err = pg__exec(w, s, sql, "creating a table");
out:
	for (i = 0; i <= t->nr_cols; i++)
		free(specs[i]);
	free(specs);
	free(sql);
	return err;
}

static int pg__check_version(struct writer_ctx *w, struct pg_state *s)
{
	PGresult *res = PQexec(s->conn, "SELECT version FROM format_version");
	char sql[96];
	int err = 0;

	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		err = pg__fail(w, s, res, "reading the format version");
	} else if (PQntuples(res) == 0) {
		snprintf(sql, sizeof(sql), "INSERT INTO format_version VALUES (%d)",
			 SCHEMA_FORMAT_VERSION);
		err = pg__exec(w, s, sql, "setting the format version");
	} else if (PQntuples(res) != 1 ||
		   atoi(PQgetvalue(res, 0, 0)) != SCHEMA_FORMAT_VERSION) {
		pr_err("%s: database format version %s, this tool writes version %d: use"
		       " another database or schema", w->path, PQgetvalue(res, 0, 0),
		       SCHEMA_FORMAT_VERSION);
		w->logged = true;
		err = -HBBP_EFORMAT;
	}
	PQclear(res);
	return err;
}

/* Transaction 1: the schema, created or checked under the advisory lock. */
static int pg__schema(struct writer_ctx *w, struct pg_state *s)
{
	const struct result *r = w->res;
	char sql[160];
	size_t i;
	int err;

	err = pg__exec(w, s, "BEGIN", "starting the schema transaction");
	if (err)
		return err;
	s->in_tx = true;
	snprintf(sql, sizeof(sql), "SELECT pg_advisory_xact_lock(%lld)", PG_SCHEMA_LOCK);
	err = pg__exec(w, s, sql, "locking the schema");
	err = err ? err : pg__exec(w, s, "SET LOCAL client_min_messages = warning",
				   "setting up the session");
	err = err ? err : pg__exec(w, s, pg_bookkeeping, "creating the run tables");
	err = err ? err : pg__check_version(w, s);
	if (!err && pg__check_table(w, s, "runs", pg_runs_cols, SCHEMA_NR(pg_runs_cols)) < 0)
		err = -HBBP_EFORMAT;
	if (!err && pg__check_table(w, s, "run_meta", pg_run_meta_cols,
				    SCHEMA_NR(pg_run_meta_cols)) < 0)
		err = -HBBP_EFORMAT;
	if (!err && pg__check_table(w, s, "warnings", pg_warnings_cols,
				    SCHEMA_NR(pg_warnings_cols)) < 0)
		err = -HBBP_EFORMAT;
	/* schema tables the result lacks are created from schema.h, so the views work */
	for (i = 0; !err && i < NR_PG_SCHEMA_TABLES; i++) {
		struct result *tmp = NULL;
		struct result_table *t;

		if (result__table(r, pg_schema_tables[i].name))
			continue;
		err = result__new(&tmp);
		if (!err)
			err = result__add_table(tmp, pg_schema_tables[i].name,
						pg_schema_tables[i].cols,
						pg_schema_tables[i].nr_cols, &t);
		if (!err)
			err = pg__ensure_table(w, s, t);
		result__delete(tmp);
	}
	for (i = 0; !err && i < r->nr_tables; i++)
		err = pg__ensure_table(w, s, r->tables[i]);
	for (i = 0; !err && i < NR_STORE_INDEXES; i++) {
		snprintf(sql, sizeof(sql), "CREATE INDEX IF NOT EXISTS %s ON %s (run_id, %s)",
			 store_indexes[i].name, store_indexes[i].table, store_indexes[i].col);
		err = pg__exec(w, s, sql, "creating the indexes");
	}
	for (i = 0; !err && i < NR_STORE_VIEWS; i++) {
		const char *params[1] = { store_views[i].name };
		PGresult *res = pg__query(s, "SELECT to_regclass(quote_ident($1)) IS NULL", 1,
					  params);
		char *create = NULL;

		if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
			err = pg__fail(w, s, res, "looking for the views");
		} else if (!strcmp(PQgetvalue(res, 0, 0), "t")) {
			if (asprintf(&create, "CREATE VIEW %s AS %s", store_views[i].name,
				     store_views[i].select_pg ? store_views[i].select_pg :
				     store_views[i].select) < 0)
				err = -ENOMEM;
			else
				err = pg__exec(w, s, create, "creating the views");
			free(create);
		}
		PQclear(res);
	}
	if (!err)
		err = pg__exec(w, s, "COMMIT", "committing the schema");
	if (!err)
		s->in_tx = false;
	return err;
}

/* Result table names that would collide with the store's own tables. */
static int pg__check_result(struct writer_ctx *w)
{
	static const char *const reserved[] = { "runs", "run_meta", "warnings",
						"format_version" };
	size_t i, k;

	for (i = 0; i < w->res->nr_tables; i++)
		for (k = 0; k < sizeof(reserved) / sizeof(reserved[0]); k++)
			if (!strcmp(w->res->tables[i]->name, reserved[k]) ||
			    !strncmp(w->res->tables[i]->name, "pg_", 3)) {
				pr_err("%s: result table name \"%s\" is reserved", w->path,
				       w->res->tables[i]->name);
				w->logged = true;
				return -EINVAL;
			}
	return 0;
}

/* Transaction 2 begins: the run, its metadata and warnings. */
static int pg__add_run(struct writer_ctx *w, struct pg_state *s)
{
	static const char *const info[] = { "label", "host", "recorded", "perf_version", "file" };
	const char *params[3 + 5];
	char version[16], seq[24];
	PGresult *res;
	size_t i;
	int err;

	err = pg__exec(w, s, "BEGIN", "starting the transaction");
	if (err)
		return err;
	s->in_tx = true;
	snprintf(version, sizeof(version), "%d", SCHEMA_FORMAT_VERSION);
	params[0] = version;
	for (i = 0; i < 5; i++)
		params[i + 1] = writer__run_info(w, info[i]);
	res = pg__query(s, "INSERT INTO runs (format_version, label, host, recorded,"
			" perf_version, file) VALUES ($1, $2, $3, $4, $5, $6) RETURNING run_id",
			6, params);
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
		err = pg__fail(w, s, res, "adding the run");
		PQclear(res);
		return err;
	}
	s->run_id = strdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	if (!s->run_id)
		return -ENOMEM;
	for (i = 0; !err && i < w->res->nr_meta; i++) {
		const struct result_kv *kv = &w->res->meta[i];
		char val[40];

		params[0] = s->run_id;
		params[1] = kv->key;
		switch (kv->val.type) {
		case RES_INT: wfmt__int(val, kv->val.i); params[2] = val; break;
		case RES_REAL:
			params[2] = wfmt__real(val, sizeof(val), kv->val.d, 0) ? NULL : val;
			break;
		case RES_TEXT: params[2] = kv->val.s; break;
		case RES_NULL: params[2] = NULL; break;
		}
		res = pg__query(s, "INSERT INTO run_meta VALUES ($1, $2, $3)", 3, params);
		if (PQresultStatus(res) != PGRES_COMMAND_OK)
			err = pg__fail(w, s, res, "writing the run metadata");
		PQclear(res);
	}
	for (i = 0; !err && i < w->res->nr_warnings; i++) {
		snprintf(seq, sizeof(seq), "%zu", i);
		params[0] = s->run_id;
		params[1] = seq;
		params[2] = w->res->warnings[i];
		res = pg__query(s, "INSERT INTO warnings VALUES ($1, $2, $3)", 3, params);
		if (PQresultStatus(res) != PGRES_COMMAND_OK)
			err = pg__fail(w, s, res, "writing the warnings");
		PQclear(res);
	}
	return err;
}

static int pg__open(struct writer_ctx *w)
{
	struct pg_state *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	w->priv = s;
	err = pg__check_result(w);
	if (!err)
		err = pq__load(w);
	if (err)
		return err;
	s->conn = PQconnectdb(w->conninfo);
	if (!s->conn)
		return -ENOMEM;
	if (PQstatus(s->conn) != CONNECTION_OK) {
		const char *msg = PQerrorMessage(s->conn);
		size_t n = strlen(msg);

		while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
			n--;
		pr_err("%s: cannot connect: %.*s", w->path, (int)n, msg);
		w->logged = true;
		return -ECONNREFUSED;
	}
	if (PQsetClientEncoding(s->conn, "UTF8")) {
		pr_err("%s: cannot set the client encoding to UTF8", w->path);
		w->logged = true;
		return -EIO;
	}
	err = pg__schema(w, s);
	if (!err && writer__interrupted())
		err = -EINTR;
	return err ? err : pg__add_run(w, s);
}

/* ---- COPY data, text format ---- */

static int pg__flush(struct writer_ctx *w, struct pg_state *s)
{
	if (s->len && PQputCopyData(s->conn, s->buf, (int)s->len) != 1) {
		pr_err("%s: sending rows: %s", w->path, PQerrorMessage(s->conn));
		w->logged = true;
		return -EIO;
	}
	s->len = 0;
	return 0;
}

static int pg__put(struct writer_ctx *w, struct pg_state *s, const char *p, size_t n)
{
	while (n) {
		size_t k = sizeof(s->buf) - s->len;
		int err;

		if (k > n)
			k = n;
		memcpy(s->buf + s->len, p, k);
		s->len += k;
		p += k;
		n -= k;
		if (s->len == sizeof(s->buf) && (err = pg__flush(w, s)))
			return err;
	}
	return 0;
}

/* A text value in COPY text format: backslash escapes, invalid UTF-8 bytes as U+00XX. */
static int pg__put_text(struct writer_ctx *w, struct pg_state *s, const char *str)
{
	const unsigned char *p = (const unsigned char *)str, *run = p;
	char esc[4];
	int err = 0;

	while (*p && !err) {
		unsigned char c = *p;
		size_t n;

		if (c >= 0x20 && c != '\\' && c < 0x7f) {
			p++;
			continue;
		}
		if (c >= 0x80 && (n = json_utf8_len(p))) {
			p += n;
			continue;
		}
		err = pg__put(w, s, (const char *)run, (size_t)(p - run));
		if (err)
			break;
		switch (c) {
		case '\\': err = pg__put(w, s, "\\\\", 2); break;
		case '\n': err = pg__put(w, s, "\\n", 2); break;
		case '\r': err = pg__put(w, s, "\\r", 2); break;
		case '\t': err = pg__put(w, s, "\\t", 2); break;
		default:
			if (c < 0x80) {		/* other control characters: octal */
				snprintf(esc, sizeof(esc), "%03o", c);
				err = pg__put(w, s, "\\", 1);
				err = err ? err : pg__put(w, s, esc, 3);
			} else {		/* the byte as U+0080..U+00FF in UTF-8 */
				esc[0] = (char)(0xc0 | (c >> 6));
				esc[1] = (char)(0x80 | (c & 0x3f));
				err = pg__put(w, s, esc, 2);
			}
		}
		run = ++p;
	}
	return err ? err : pg__put(w, s, (const char *)run, (size_t)(p - run));
}

static int pg__begin(struct writer_ctx *w, const struct result_table *t)
{
	struct pg_state *s = w->priv;
	PGresult *res;
	char *sql = NULL;
	size_t i;
	int err;

	err = pg__cat(&sql, "COPY ");
	err = err ? err : pg__ident(&sql, t->name);
	err = err ? err : pg__cat(&sql, " (run_id");
	for (i = 0; !err && i < t->nr_cols; i++) {
		err = pg__cat(&sql, ", ");
		err = err ? err : pg__ident(&sql, t->cols[i].name);
	}
	err = err ? err : pg__cat(&sql, ") FROM STDIN");
	if (err) {
		free(sql);
		return err;
	}
	res = PQexec(s->conn, sql);
	free(sql);
	if (PQresultStatus(res) != PGRES_COPY_IN) {
		err = pg__fail(w, s, res, "starting to copy rows");
		PQclear(res);
		return err;
	}
	PQclear(res);
	s->in_copy = true;
	s->len = 0;
	return 0;
}

static int pg__row(struct writer_ctx *w, const struct result_table *t, size_t row)
{
	struct pg_state *s = w->priv;
	const struct result_cell *c = &t->cells[row * t->nr_cols];
	char buf[40];
	size_t i, n;
	int err;

	err = pg__put(w, s, s->run_id, strlen(s->run_id));
	for (i = 0; !err && i < t->nr_cols; i++) {
		err = pg__put(w, s, "\t", 1);
		if (err)
			break;
		switch (c[i].type) {
		case RES_INT:
			n = wfmt__int(buf, c[i].i);
			err = pg__put(w, s, buf, n);
			break;
		case RES_REAL:
			if (wfmt__real(buf, sizeof(buf), c[i].d, w->precision)) {
				/* NaN -> NULL as in SQLite; infinities as PostgreSQL spells them */
				err = c[i].d != c[i].d ? pg__put(w, s, "\\N", 2) :
				      pg__put(w, s, c[i].d > 0 ? "Infinity" : "-Infinity",
					      c[i].d > 0 ? 8 : 9);
			} else {
				err = pg__put(w, s, buf, strlen(buf));
			}
			break;
		case RES_TEXT:
			err = pg__put_text(w, s, c[i].s);
			break;
		case RES_NULL:
			err = pg__put(w, s, "\\N", 2);
			break;
		}
	}
	return err ? err : pg__put(w, s, "\n", 1);
}

/* Ends the COPY in progress (with an error message: aborts it). */
static int pg__copy_end(struct writer_ctx *w, struct pg_state *s, const char *abort_msg)
{
	PGresult *res;
	int err = 0;

	if (!s->in_copy)
		return 0;
	s->in_copy = false;
	if (!abort_msg)
		err = pg__flush(w, s);
	if (PQputCopyEnd(s->conn, err ? "send failed" : abort_msg) != 1 && !err && !abort_msg)
		err = pg__fail(w, s, NULL, "ending the copy");
	while ((res = PQgetResult(s->conn))) {
		if (PQresultStatus(res) != PGRES_COMMAND_OK && !err && !abort_msg)
			err = pg__fail(w, s, res, "copying rows");
		PQclear(res);
	}
	return err;
}

static int pg__end(struct writer_ctx *w, const struct result_table *t)
{
	return pg__copy_end(w, w->priv, NULL);
}

static int pg__close(struct writer_ctx *w, bool ok)
{
	struct pg_state *s = w->priv;
	int err = 0;

	if (!s)
		return ok ? -ENOMEM : 0;
	if (s->conn && PQstatus(s->conn) == CONNECTION_OK) {
		if (s->in_copy)
			pg__copy_end(w, s, ok ? NULL : "conversion abandoned");
		if (ok && writer__interrupted())
			ok = false, err = -EINTR;
		if (ok && s->in_tx) {
			err = pg__exec(w, s, "COMMIT", "committing the run");
			s->in_tx = false;
		}
		if (s->in_tx) {
			PGresult *res = PQexec(s->conn, "ROLLBACK");

			PQclear(res);
		}
	}
	if (s->conn)
		PQfinish(s->conn);
	free(s->run_id);
	free(s);
	w->priv = NULL;
	return err;
}

const struct writer_ops pg_writer_ops = {
	.name = "postgresql",
	.server = true,
	.tables = NULL,
	.open = pg__open,
	.begin = pg__begin,
	.row = pg__row,
	.end = pg__end,
	.close = pg__close,
};
