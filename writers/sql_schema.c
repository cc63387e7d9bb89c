/* The SQL of the database stores, once for SQLite and PostgreSQL (see writers/sql_schema.h).
 * The two dialects differ in the column types, the bookkeeping tables' definitions, where
 * the schema version is kept, the catalogue query and one view (block_detail's hex address);
 * everything else is the same SQL. Text is built in a writers/wbuf.c buffer in memory.
 * Depends on writers/ and util/hbbp_err.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hbbp_err.h"
#include "writers/schema.h"
#include "writers/sql_schema.h"
#include "writers/views.h"

#define SQL_STR(x)	#x
#define SQL_XSTR(x)	SQL_STR(x)

const struct sql_dialect sql_sqlite = {
	.kind = SQL_SQLITE,
	.run_id = "run_id INTEGER NOT NULL REFERENCES runs",
	.bookkeeping =
		"CREATE TABLE IF NOT EXISTS runs (run_id INTEGER PRIMARY KEY,"
		" created TEXT NOT NULL, format_version INTEGER NOT NULL, label TEXT, host TEXT,"
		" recorded TEXT, perf_version TEXT, file TEXT);"
		"CREATE TABLE IF NOT EXISTS run_meta (run_id INTEGER NOT NULL REFERENCES runs,"
		" key TEXT NOT NULL, value, PRIMARY KEY (run_id, key));"
		"CREATE TABLE IF NOT EXISTS warnings (run_id INTEGER NOT NULL REFERENCES runs,"
		" seq INTEGER NOT NULL, message TEXT, PRIMARY KEY (run_id, seq));",
	.version_get = "SELECT user_version, (SELECT COUNT(*) FROM sqlite_schema)"
		       " FROM pragma_user_version",
	.version_set = "PRAGMA user_version = " SQL_XSTR(SCHEMA_FORMAT_VERSION),
	.columns = "SELECT name, type FROM pragma_table_info($1)",
	.book = {
		", run_id INTEGER, created TEXT, format_version INTEGER, label TEXT, host TEXT,"
		" recorded TEXT, perf_version TEXT, file TEXT",
		", run_id INTEGER, key TEXT, value ",
		", run_id INTEGER, seq INTEGER, message TEXT",
	},
	.insert_run = "INSERT INTO runs (created, format_version, label, host, recorded,"
		      " perf_version, file) VALUES (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), $1, $2,"
		      " $3, $4, $5, $6)",
};

const struct sql_dialect sql_pg = {
	.kind = SQL_PG,
	.run_id = "run_id bigint NOT NULL REFERENCES runs ON DELETE CASCADE",
	.bookkeeping =
		"CREATE TABLE IF NOT EXISTS runs (run_id bigint GENERATED ALWAYS AS IDENTITY"
		" PRIMARY KEY, created timestamptz NOT NULL DEFAULT now(), format_version integer"
		" NOT NULL, label text, host text, recorded timestamptz, perf_version text, file"
		" text);"
		"CREATE TABLE IF NOT EXISTS run_meta (run_id bigint NOT NULL REFERENCES runs"
		" ON DELETE CASCADE, key text NOT NULL, value text, PRIMARY KEY (run_id, key));"
		"CREATE TABLE IF NOT EXISTS warnings (run_id bigint NOT NULL REFERENCES runs"
		" ON DELETE CASCADE, seq integer NOT NULL, message text,"
		" PRIMARY KEY (run_id, seq));"
		"CREATE INDEX IF NOT EXISTS runs_created ON runs (created);"
		"CREATE INDEX IF NOT EXISTS runs_label ON runs (label);",
	.version_table = "CREATE TABLE IF NOT EXISTS format_version (version integer NOT NULL)",
	.version_get = "SELECT coalesce(max(version), 0), COUNT(*) FROM format_version",
	.version_set = "INSERT INTO format_version VALUES (" SQL_XSTR(SCHEMA_FORMAT_VERSION) ")",
	.columns = "SELECT column_name, data_type FROM information_schema.columns WHERE"
		   " table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
	.book = {
		", run_id bigint, created timestamp with time zone, format_version integer,"
		" label text, host text, recorded timestamp with time zone, perf_version text,"
		" file text",
		", run_id bigint, key text, value text",
		", run_id bigint, seq integer, message text",
	},
	.insert_run = "INSERT INTO runs (format_version, label, host, recorded, perf_version,"
		      " file) VALUES ($1, $2, $3, $4, $5, $6) RETURNING run_id",
};

const char sql_insert_meta[] = "INSERT INTO run_meta VALUES ($1, $2, $3)";
const char sql_insert_warning[] = "INSERT INTO warnings VALUES ($1, $2, $3)";

/* Column types by dialect and enum result_type, as each catalogue names them. */
static const char *const sql_types[2][4] = {
	{ "", "INTEGER", "REAL", "TEXT" },
	{ "text", "bigint", "double precision", "text" },
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

/* The bookkeeping tables (their columns: sql_dialect.book), and the names no result table
 * may take: those, the views and the indexes. */
static const char *const book_tables[NR_BOOK_TABLES] = { "runs", "run_meta", "warnings" };
static const char *const reserved[] = { "runs", "run_meta", "warnings", "format_version" };

static struct wbuf *sql__buf(void)
{
	struct wbuf *b = malloc(sizeof(*b));

	if (b)
		wbuf__init(b, -1);
	return b;
}

/* The text built in b, NUL-terminated, into *sql (the caller frees it); frees b. */
static int sql__done(struct wbuf *b, char **sql)
{
	int err;

	*sql = NULL;
	if (!b)
		return -ENOMEM;
	wbuf__putc(b, '\0');
	err = wbuf__flush(b);
	if (err)
		free(b->mem);
	else
		*sql = b->mem;
	free(b);
	return err;
}

/* The identifier id, double-quoted. */
static void sql__ident(struct wbuf *b, const char *id)
{
	wbuf__putc(b, '"');
	for (; *id; id++) {
		if (*id == '"')
			wbuf__putc(b, '"');
		wbuf__putc(b, *id);
	}
	wbuf__putc(b, '"');
}

static bool sql__reserved(const char *name)
{
	size_t i;

	if (!strncasecmp(name, "sqlite_", 7) || !strncasecmp(name, "pg_", 3))
		return true;
	for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (!strcasecmp(name, reserved[i]))
			return true;
	for (i = 0; i < NR_STORE_VIEWS; i++)
		if (!strcasecmp(name, store_views[i].name))
			return true;
	for (i = 0; i < NR_STORE_INDEXES; i++)
		if (!strcasecmp(name, store_indexes[i].name))
			return true;
	return false;
}

int sql_schema__check_result(struct writer_ctx *w)
{
	static const char *const tn[] = { "", "int", "real", "text" };
	const struct result *r = w->res;
	size_t i, k, c;

	for (i = 0; i < r->nr_tables; i++) {
		const struct result_table *t = r->tables[i];

		if (sql__reserved(t->name)) {
			pr_err("%s: result table name \"%s\" is reserved", w->path, t->name);
			w->logged = true;
			return -EINVAL;
		}
		for (k = 0; k < NR_SCHEMA_TABLES; k++) {
			bool same = !strcmp(t->name, schema_tables[k].name);

			if (!same)
				continue;
			same = t->nr_cols == schema_tables[k].nr_cols;
			for (c = 0; same && c < t->nr_cols; c++) {
				const char *spec = schema_tables[k].cols[c];
				size_t n = strlen(t->cols[c].name);

				same = !strncmp(spec, t->cols[c].name, n) && spec[n] == ':' &&
				       !strcmp(spec + n + 1, tn[t->cols[c].type]);
			}
			if (!same) {
				pr_err("%s: result table \"%s\" does not have the columns of"
				       " writers/schema.h", w->path, t->name);
				w->logged = true;
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* A column as the catalogue's are compared with this run's: ", name type". */
static void sql__col(void *ctx, const char *name, const char *type)
{
	struct wbuf *b = ctx;

	wbuf__puts(b, ", ");
	wbuf__puts(b, name);
	wbuf__putc(b, ' ');
	wbuf__puts(b, type);
}

/* Checks the columns of table against want (sql__col's): 0 when they match, 1 when there is
 * no such table, else the logged error. A runs table with the first of its columns (the
 * first version's) gets the others added. */
static int sql__check_table(struct sql_conn *c, const char *table, const char *want)
{
	struct wbuf *b = sql__buf();
	const char *col, *next;
	char *have, sql[128];
	int n = b ? c->query(c, c->d->columns, table, sql__col, b) : 0;
	int err = sql__done(b, &have);

	if (n < 0 || err || !n || !strcasecmp(have, want)) {
		free(have);
		return n < 0 ? n : err ? err : !n;
	}
	n = (int)strlen(have);
	if (!strcmp(table, "runs") && !strncasecmp(have, want, (size_t)n) && want[n] == ',') {
		for (col = want + n; !err && col; col = next) {
			next = strchr(col + 1, ',');
			n = next ? (int)(next - col) - 2 : (int)strlen(col + 2);
			snprintf(sql, sizeof(sql), "ALTER TABLE runs ADD COLUMN %.*s", n, col + 2);
			err = c->exec(c, sql, "adding a column to table runs");
		}
		free(have);
		return err;
	}
	free(have);
	pr_err("%s: table \"%s\" of the database has other columns than this run's; write only"
	       " runs with the same options (--by) into one database", c->w->path, table);
	c->w->logged = true;
	return -HBBP_EFORMAT;
}

/* Creates table t (run_id and its columns) or checks that the existing one matches. */
static int sql__ensure_table(struct sql_conn *c, const struct result_table *t)
{
	const char *const *type = sql_types[c->d->kind];
	struct wbuf *b = sql__buf();
	char *sql;
	size_t i;
	int err;

	if (b) {
		sql__col(b, "run_id", type[RES_INT]);
		for (i = 0; i < t->nr_cols; i++)
			sql__col(b, t->cols[i].name, type[t->cols[i].type]);
	}
	err = sql__done(b, &sql);
	if (!err)
		err = sql__check_table(c, t->name, sql);
	free(sql);
	if (err <= 0)
		return err;
	b = sql__buf();
	if (b) {
		wbuf__puts(b, "CREATE TABLE ");
		sql__ident(b, t->name);
		wbuf__puts(b, " (");
		wbuf__puts(b, c->d->run_id);
		for (i = 0; i < t->nr_cols; i++) {
			wbuf__puts(b, ", ");
			sql__ident(b, t->cols[i].name);
			wbuf__putc(b, ' ');
			wbuf__puts(b, type[t->cols[i].type]);
		}
		wbuf__putc(b, ')');
	}
	err = sql__done(b, &sql);
	if (!err)
		err = c->exec(c, sql, "creating a table");
	free(sql);
	return err;
}

struct sql_version {
	char v[24];
	bool objects;		/* the database holds something */
};

static void sql__version_row(void *ctx, const char *v, const char *objects)
{
	struct sql_version *sv = ctx;

	snprintf(sv->v, sizeof(sv->v), "%s", v);
	sv->objects = strcmp(objects, "0");
}

/* The database's schema version: this tool's, or none yet in an empty database (stored). */
static int sql__version(struct sql_conn *c)
{
	struct sql_version sv = { "", false };
	int err = 0;

	if (c->d->version_table)
		err = c->exec(c, c->d->version_table, "creating the format version table");
	if (!err)
		err = c->query(c, c->d->version_get, NULL, sql__version_row, &sv);
	if (err < 0 || atoi(sv.v) == SCHEMA_FORMAT_VERSION)
		return err < 0 ? err : 0;
	if (!strcmp(sv.v, "0") && !sv.objects)
		return c->exec(c, c->d->version_set, "setting the format version");
	pr_err("%s: database format version %s, this tool writes version %d: write the run into"
	       " another database", c->w->path, sv.v, SCHEMA_FORMAT_VERSION);
	c->w->logged = true;
	return -HBBP_EFORMAT;
}

int sql_schema__create(struct sql_conn *c)
{
	const struct result *r = c->w->res;
	size_t i;
	int err = sql__version(c);

	for (i = 0; !err && i < NR_BOOK_TABLES; i++) {
		err = sql__check_table(c, book_tables[i], c->d->book[i]);
		err = err > 0 ? 0 : err;
	}
	if (!err)
		err = c->exec(c, c->d->bookkeeping, "creating the run tables");
	/* the tables of schema.h the result lacks too, so that the views always work */
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
			err = sql__ensure_table(c, t);
		result__delete(tmp);
	}
	for (i = 0; !err && i < r->nr_tables; i++)
		err = sql__ensure_table(c, r->tables[i]);
	for (i = 0; !err && i < NR_STORE_VIEWS; i++) {
		const char *select = c->d->kind == SQL_PG && store_views[i].select_pg ?
				     store_views[i].select_pg : store_views[i].select;
		char *sql = NULL;
		int n = c->query(c, c->d->columns, store_views[i].name, NULL, NULL);

		if (n < 0)
			return n;
		if (n > 0)
			continue;
		if (asprintf(&sql, "CREATE VIEW %s AS %s", store_views[i].name, select) < 0)
			return -ENOMEM;
		err = c->exec(c, sql, "creating the views");
		free(sql);
	}
	return err;
}

int sql_schema__indexes(struct sql_conn *c)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < NR_STORE_INDEXES; i++) {
		char sql[160];

		snprintf(sql, sizeof(sql), "CREATE INDEX IF NOT EXISTS %s ON %s (run_id, %s)",
			 store_indexes[i].name, store_indexes[i].table, store_indexes[i].col);
		err = c->exec(c, sql, "creating the indexes");
	}
	return err;
}

int sql_schema__rows_sql(const struct sql_dialect *d, const struct result_table *t, char **sql)
{
	bool copy = d->kind == SQL_PG;
	struct wbuf *b = sql__buf();
	size_t i;

	if (b) {
		wbuf__puts(b, copy ? "COPY " : "INSERT INTO ");
		sql__ident(b, t->name);
		wbuf__puts(b, copy ? " (run_id" : " VALUES (?");
		for (i = 0; i < t->nr_cols; i++) {
			wbuf__puts(b, ", ");
			if (copy)
				sql__ident(b, t->cols[i].name);
			else
				wbuf__putc(b, '?');
		}
		wbuf__puts(b, copy ? ") FROM STDIN" : ")");
	}
	return sql__done(b, sql);
}
