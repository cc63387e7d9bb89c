/* PostgreSQL writer: the tables, views and indexes of the SQLite store (writers/sql_schema.c,
 * writers/SCHEMA.md) in a server, through libpq.
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
#include <limits.h>
#include <libpq-fe.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hbbp_err.h"
#include "util/json_escape.h"
#include "writers/schema.h"
#include "writers/sql_schema.h"

/* The libpq functions used, loaded by pq__load(); each field is named as its function, and
 * the macros below make the code read as plain libpq calls. */
static struct {
	void *handle;
	PGconn *(*PQconnectdb)(const char *conninfo);
	ConnStatusType (*PQstatus)(const PGconn *conn);
	char *(*PQerrorMessage)(const PGconn *conn);
	int (*PQsetClientEncoding)(PGconn *conn, const char *encoding);
	PQnoticeProcessor (*PQsetNoticeProcessor)(PGconn *conn, PQnoticeProcessor proc, void *arg);
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
	int (*PQnfields)(const PGresult *res);
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
		PQ_FN(PQsetClientEncoding), PQ_FN(PQsetNoticeProcessor), PQ_FN(PQexec), PQ_FN(PQexecParams),
		PQ_FN(PQresultStatus), PQ_FN(PQresultErrorMessage), PQ_FN(PQresultErrorField),
		PQ_FN(PQclear), PQ_FN(PQntuples), PQ_FN(PQnfields), PQ_FN(PQgetvalue), PQ_FN(PQputCopyData),
		PQ_FN(PQputCopyEnd), PQ_FN(PQgetResult), PQ_FN(PQfinish),
	};
#undef PQ_FN
	size_t i;

	if (pq.handle)
		return 0;
	pq.handle = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
	if (!pq.handle)
		return writer__fail(w, -ENOENT, "PostgreSQL output needs libpq (Debian: apt-get "
				    "install libpq5): %s", dlerror());
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
#define PQsetNoticeProcessor pq.PQsetNoticeProcessor
#define PQexec pq.PQexec
#define PQexecParams pq.PQexecParams
#define PQresultStatus pq.PQresultStatus
#define PQresultErrorMessage pq.PQresultErrorMessage
#define PQresultErrorField pq.PQresultErrorField
#define PQclear pq.PQclear
#define PQntuples pq.PQntuples
#define PQnfields pq.PQnfields
#define PQgetvalue pq.PQgetvalue
#define PQputCopyData pq.PQputCopyData
#define PQputCopyEnd pq.PQputCopyEnd
#define PQgetResult pq.PQgetResult
#define PQfinish pq.PQfinish

/* pg_advisory_xact_lock key of the schema transaction: "hbbp" in ASCII. */
#define PG_SCHEMA_LOCK 0x68626270LL

struct pg_state {
	struct sql_conn sql;		/* first: the SQL layer's calls come back with it */
	PGconn *conn;
	char *run_id;		/* decimal, as returned */
	bool in_copy;
	bool in_tx;
	struct wbuf out;	/* the rows of the COPY in progress, sent by pg__send_rows */
};

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

/* Logs "PATH: WHAT: libpq's message" (res's, else the connection's), its secrets masked. */
static int pg__fail(struct writer_ctx *w, struct pg_state *s, const PGresult *res,
		    const char *what)
{
	const char *msg = res ? PQresultErrorMessage(res) : NULL;
	int err = res ? pg__err(res) : -EIO;
	char *shown;
	size_t n;

	if (!msg || !*msg)
		msg = s->conn ? PQerrorMessage(s->conn) : "";
	shown = conninfo__mask(w->conninfo, msg);
	n = shown ? strlen(shown) : 0;
	while (n && (shown[n - 1] == '\n' || shown[n - 1] == ' '))
		n--;
	pr_err("%s: %s: %.*s", w->path, what, (int)n, shown ? shown : "out of memory");
	free(shown);
	w->logged = true;
	return err;
}

/* The server's notices and warnings (a connection terminated by the administrator, ...):
 * through the log, masked, instead of libpq's own print to stderr. */
static void pg__notice(void *arg, const char *msg)
{
	struct writer_ctx *w = arg;
	char *shown = conninfo__mask(w->conninfo, msg);
	size_t n = shown ? strlen(shown) : 0;

	while (n && (shown[n - 1] == '\n' || shown[n - 1] == ' '))
		n--;
	pr_warn("%s: the server says: %.*s", w->path, (int)n, shown ? shown : "(out of memory)");
	free(shown);
}

static int pg__exec(struct sql_conn *c, const char *sql, const char *what)
{
	struct pg_state *s = (struct pg_state *)c;
	PGresult *res = PQexec(s->conn, sql);
	int err = 0;

	if (PQresultStatus(res) != PGRES_COMMAND_OK && PQresultStatus(res) != PGRES_TUPLES_OK)
		err = pg__fail(c->w, s, res, what);
	PQclear(res);
	return err;
}

static PGresult *pg__params(struct pg_state *s, const char *sql, int n, const char *const *v)
{
	return PQexecParams(s->conn, sql, n, NULL, v, NULL, NULL, 0);
}

/* The run's values (at most 8), those of the bits of text masked (conninfo__mask: a
 * recording's metadata may quote the connection's password); NULL when out of memory. */
static PGresult *pg__values(struct writer_ctx *w, struct pg_state *s, const char *sql, int n,
			    const char *const *v, unsigned text)
{
	const char *p[8];
	char *m[8] = { NULL };
	PGresult *res = NULL;
	int i, ok = n <= 8;

	for (i = 0; ok && i < n; i++) {
		p[i] = v[i];
		if (v[i] && (text & (1u << i)))
			ok = !!(p[i] = m[i] = conninfo__mask(w->conninfo, v[i]));
	}
	if (ok)
		res = pg__params(s, sql, n, p);
	for (i = 0; i < n && i < 8; i++)
		free(m[i]);
	return res;
}

static int pg__query(struct sql_conn *c, const char *sql, const char *param,
		     void (*row)(void *ctx, const char *const *col), void *ctx)
{
	struct pg_state *s = (struct pg_state *)c;
	PGresult *res = pg__params(s, sql, param ? 1 : 0, &param);
	int i, k, n = PQntuples(res), nf = PQnfields(res);

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		n = pg__fail(c->w, s, res, "reading the existing schema");
	for (i = 0; row && i < n; i++) {
		const char *col[SQL_MAX_COLS];

		for (k = 0; k < SQL_MAX_COLS; k++)
			col[k] = k < nf ? PQgetvalue(res, i, k) : "";
		row(ctx, col);
	}
	PQclear(res);
	return n;
}

/* Transaction 1: the schema, created or checked under the advisory lock. */
static int pg__schema(struct writer_ctx *w, struct pg_state *s)
{
	struct sql_conn *c = &s->sql;
	char sql[64];
	int err;

	err = pg__exec(c, "BEGIN", "starting the schema transaction");
	if (err)
		return err;
	s->in_tx = true;
	snprintf(sql, sizeof(sql), "SELECT pg_advisory_xact_lock(%lld)", PG_SCHEMA_LOCK);
	err = pg__exec(c, sql, "locking the schema");
	err = err ? err : pg__exec(c, "SET LOCAL client_min_messages = warning",
				   "setting up the session");
	err = err ? err : sql_schema__create(c);
	err = err ? err : sql_schema__indexes(c);
	err = err ? err : pg__exec(c, "COMMIT", "committing the schema");
	if (!err)
		s->in_tx = false;
	return err;
}

/* Runs the statement sql with n parameters, those of the bits of text masked. */
static int pg__send(struct writer_ctx *w, struct pg_state *s, const char *sql, int n,
		    const char *const *params, unsigned text, const char *what)
{
	PGresult *res = pg__values(w, s, sql, n, params, text);
	int err = 0;

	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		err = pg__fail(w, s, res, what);
	PQclear(res);
	return err;
}

/* Transaction 2 begins: the tables locked and checked, the run, its metadata and
 * warnings. */
static int pg__add_run(struct writer_ctx *w, struct pg_state *s)
{
	const char *params[1 + WRITER_RUN_INFO];
	char version[16], seq[24];
	PGresult *res;
	size_t i;
	int err;

	err = pg__exec(&s->sql, "BEGIN", "starting the transaction");
	if (err)
		return err;
	s->in_tx = true;
	err = sql_schema__check(&s->sql);
	if (err)
		return err;
	snprintf(version, sizeof(version), "%d", SCHEMA_FORMAT_VERSION);
	params[0] = version;
	writer__run_info(w, params + 1);
	res = pg__values(w, s, sql_pg.insert_run, 6, params, 0x36);	/* not the version, time */
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
		err = pg__fail(w, s, res, "adding the run");
		PQclear(res);
		return err;
	}
	s->run_id = strdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	if (!s->run_id)
		return -ENOMEM;
	snprintf(w->run_id, sizeof(w->run_id), "%s", s->run_id);
	err = sql_schema__run_meta(&s->sql, s->run_id);
	if (err)
		return err;
	params[0] = s->run_id;
	for (i = 0; !err && i < w->res->nr_meta; i++) {
		const struct result_kv *kv = &w->res->meta[i];
		char val[40];

		params[1] = kv->key;
		switch (kv->val.type) {
		case RES_INT: wfmt__int(val, kv->val.i); params[2] = val; break;
		case RES_REAL:
			params[2] = wfmt__real(val, sizeof(val), kv->val.d) ? NULL : val;
			break;
		case RES_TEXT: params[2] = kv->val.s; break;
		case RES_NULL: params[2] = NULL; break;
		}
		err = pg__send(w, s, sql_insert_meta, 3, params, kv->val.type == RES_TEXT ? 4 : 0,
			       "writing the run metadata");
	}
	for (i = 0; !err && i < w->res->nr_warnings; i++) {
		snprintf(seq, sizeof(seq), "%zu", i);
		params[1] = seq;
		params[2] = w->res->warnings[i];
		err = pg__send(w, s, sql_insert_warning, 3, params, 4, "writing the warnings");
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
	s->sql = (struct sql_conn){ &sql_pg, w, NULL, pg__exec, pg__query };
	err = sql_schema__check_result(w);
	if (!err)
		err = pq__load(w);
	if (err)
		return err;
	s->conn = PQconnectdb(w->conninfo);
	if (!s->conn)
		return -ENOMEM;
	PQsetNoticeProcessor(s->conn, pg__notice, w);
	if (PQstatus(s->conn) != CONNECTION_OK) {
		pg__fail(w, s, NULL, "cannot connect");
		return -ECONNREFUSED;
	}
	if (PQsetClientEncoding(s->conn, "UTF8"))
		return writer__fail(w, -EIO, "cannot set the client encoding to UTF8");
	err = pg__schema(w, s);
	if (!err && writer__interrupted())
		err = -EINTR;
	return err ? err : pg__add_run(w, s);
}

/* ---- COPY data, text format ---- */

/* The wbuf sink of the COPY: bytes to the server. */
static int pg__send_rows(void *arg, const char *p, size_t n)
{
	struct writer_ctx *w = arg;
	struct pg_state *s = w->priv;

	if (n > INT_MAX || PQputCopyData(s->conn, p, (int)n) != 1) {
		pg__fail(w, s, NULL, "sending rows");
		return -EIO;
	}
	return 0;
}

/* A text value in COPY text format: backslash escapes, invalid UTF-8 bytes as U+00XX. */
static void pg__put_text(struct wbuf *out, const char *str)
{
	const unsigned char *p = (const unsigned char *)str, *run = p;
	char esc[4];

	while (*p) {
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
		wbuf__put(out, (const char *)run, (size_t)(p - run));
		switch (c) {
		case '\\': wbuf__put(out, "\\\\", 2); break;
		case '\n': wbuf__put(out, "\\n", 2); break;
		case '\r': wbuf__put(out, "\\r", 2); break;
		case '\t': wbuf__put(out, "\\t", 2); break;
		default:
			if (c < 0x80) {		/* other control characters: octal */
				snprintf(esc, sizeof(esc), "%03o", c);
				wbuf__putc(out, '\\');
				wbuf__put(out, esc, 3);
			} else {		/* the byte as U+0080..U+00FF in UTF-8 */
				esc[0] = (char)(0xc0 | (c >> 6));
				esc[1] = (char)(0x80 | (c & 0x3f));
				wbuf__put(out, esc, 2);
			}
		}
		run = ++p;
	}
	wbuf__put(out, (const char *)run, (size_t)(p - run));
}

static int pg__begin(struct writer_ctx *w, const struct result_table *t)
{
	struct pg_state *s = w->priv;
	PGresult *res;
	char *sql;
	int err = sql_schema__rows_sql(&sql_pg, t, &sql);

	if (err)
		return err;
	res = PQexec(s->conn, sql);
	free(sql);
	if (PQresultStatus(res) != PGRES_COPY_IN) {
		err = pg__fail(w, s, res, "starting to copy rows");
		PQclear(res);
		return err;
	}
	PQclear(res);
	s->in_copy = true;
	wbuf__init(&s->out, -1);
	s->out.sink = pg__send_rows;
	s->out.sink_ctx = w;
	return 0;
}

static int pg__row(struct writer_ctx *w, const struct result_table *t, size_t row)
{
	struct pg_state *s = w->priv;
	const struct result_cell *c = result_table__row(t, row);
	char buf[40];
	size_t i;

	wbuf__puts(&s->out, s->run_id);
	for (i = 0; i < t->nr_cols; i++) {
		wbuf__putc(&s->out, '\t');
		switch (c[i].type) {
		case RES_INT:
			wbuf__put(&s->out, buf, wfmt__int(buf, c[i].i));
			break;
		case RES_REAL:
			/* NaN -> NULL as in SQLite; infinities as PostgreSQL spells them */
			if (!wfmt__real(buf, sizeof(buf), c[i].d))
				wbuf__puts(&s->out, buf);
			else
				wbuf__puts(&s->out, c[i].d != c[i].d ? "\\N" :
					   c[i].d > 0 ? "Infinity" : "-Infinity");
			break;
		case RES_TEXT:
			pg__put_text(&s->out, c[i].s);
			break;
		case RES_NULL:
			wbuf__put(&s->out, "\\N", 2);
			break;
		}
	}
	wbuf__putc(&s->out, '\n');
	return s->out.err;
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
		err = wbuf__flush(&s->out);
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
			err = pg__exec(&s->sql, "COMMIT", "committing the run");
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
