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

#include "util/grow.h"
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
	.objects = "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema",
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
	.foreign =
		"WITH ours AS (SELECT unnest($1::text[]) AS k),"
		" rel AS (SELECT oid, relname, relkind, ('t:' || relname) IN (SELECT k FROM ours)"
		" AS tab, ('v:' || relname) IN (SELECT k FROM ours) AS vw FROM pg_class"
		" WHERE relnamespace = current_schema()::regnamespace)"
		" SELECT 'trigger \"' || t.tgname || '\" on \"' || r.relname || '\"' FROM pg_trigger t"
		" JOIN rel r ON r.oid = t.tgrelid WHERE NOT t.tgisinternal AND (r.tab OR r.vw)"
		" UNION ALL SELECT 'rule \"' || w.rulename || '\" on \"' || r.relname || '\"'"
		" FROM pg_rewrite w JOIN rel r ON r.oid = w.ev_class"
		" WHERE w.rulename <> '_RETURN' AND (r.tab OR r.vw)"
		" UNION ALL SELECT 'index \"' || i.relname || '\" on \"' || r.relname || '\"'"
		" FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN rel r"
		" ON r.oid = x.indrelid WHERE r.tab AND ('i:' || i.relname) NOT IN (SELECT k FROM ours)"
		" AND NOT x.indisprimary"
		" UNION ALL SELECT 'policy \"' || p.polname || '\" on \"' || r.relname || '\"'"
		" FROM pg_policy p JOIN rel r ON r.oid = p.polrelid WHERE r.tab"
		" UNION ALL SELECT 'constraint \"' || k.conname || '\" on \"' || r.relname || '\"'"
		" FROM pg_constraint k JOIN rel r ON r.oid = k.conrelid WHERE r.tab AND k.contype"
		" <> 'p' AND NOT (k.contype = 'f' AND k.confrelid = (SELECT oid FROM rel"
		" WHERE relname = 'runs'))"
		" UNION ALL SELECT 'a default of \"' || table_name || '.' || column_name || '\"'"
		" FROM information_schema.columns"
		" WHERE table_schema = current_schema() AND ('t:' || table_name) IN"
		" (SELECT k FROM ours) AND column_default IS NOT NULL AND NOT (table_name = 'runs'"
		" AND column_name = 'created' AND column_default = 'now()')"
		" UNION ALL SELECT '\"' || relname || '\", which is not a ' || CASE WHEN tab THEN"
		" 'table' ELSE 'view' END FROM rel WHERE (tab AND relkind <> 'r')"
		" OR (vw AND relkind <> 'v')",
	.view_same = "SELECT pg_get_viewdef($1::regclass) ="
		     " pg_get_viewdef('pg_temp.sql_check_view'::regclass)",
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

		if (sql__reserved(t->name))
			return writer__fail(w, -EINVAL, "result table name \"%s\" is reserved",
					    t->name);
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
			if (!same)
				return writer__fail(w, -EINVAL, "result table \"%s\" does not"
						    " have the columns of writers/schema.h",
						    t->name);
		}
	}
	return 0;
}

/* A column as the catalogue's are compared with this run's: ", name type". */
static void sql__col(void *ctx, const char *const *col)
{
	struct wbuf *b = ctx;

	wbuf__puts(b, ", ");
	wbuf__puts(b, col[0]);
	wbuf__putc(b, ' ');
	wbuf__puts(b, col[1]);
}

/* A table of this tool's name that is not what it creates (runs of any keys share one mix,
 * so a mix that does not fit has columns of no run's). */
static int sql__misfit(struct sql_conn *c, const char *table)
{
	return writer__fail(c->w, -HBBP_EFORMAT, "table \"%s\" of the database is not the one"
			    " this tool creates (another program's, or another version's): write"
			    " the run into another database", table);
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
	err = sql__misfit(c, table);
	free(have);
	return err;
}

/* The ", run_id TYPE, name TYPE..." of t's columns (sql__col's) into *cols. */
static int sql__table_cols(const struct sql_conn *c, const struct result_table *t, char **cols)
{
	const char *const *type = sql_types[c->d->kind];
	struct wbuf *b = sql__buf();
	size_t i;

	if (b) {
		sql__col(b, (const char *[]){ "run_id", type[RES_INT] });
		for (i = 0; i < t->nr_cols; i++)
			sql__col(b, (const char *[]){ t->cols[i].name, type[t->cols[i].type] });
	}
	return sql__done(b, cols);
}

/* The columns of a table as the catalogue lists them (run_id first). */
struct sql_cols {
	size_t nr;
	char *name[SQL_MAX_TABLE_COLS], *type[SQL_MAX_TABLE_COLS];
	bool nomem;
};

static void sql__cols_row(void *ctx, const char *const *col)
{
	struct sql_cols *k = ctx;

	if (k->nr == SQL_MAX_TABLE_COLS) {
		k->nomem = true;
		return;
	}
	k->name[k->nr] = strdup(col[0]);
	k->type[k->nr] = strdup(col[1]);
	k->nomem |= !k->name[k->nr] || !k->type[k->nr];
	k->nr++;
}

static void sql__cols_exit(struct sql_cols *k)
{
	size_t i;

	for (i = 0; i < k->nr; i++) {
		free(k->name[i]);
		free(k->type[i]);
	}
}

static int sql__cols(struct sql_conn *c, const char *table, struct sql_cols *k)
{
	int n = c->query(c, c->d->columns, table, sql__cols_row, k);

	return n < 0 ? n : k->nomem ? -ENOMEM : n;
}

/* The CREATE TABLE of table: run_id and the columns names[i] of type types[i], i < n. */
static int sql__create_sql(const struct sql_conn *c, const char *table, char *const *names,
			   char *const *types, size_t n, char **sql)
{
	struct wbuf *b = sql__buf();
	size_t i;

	if (b) {
		wbuf__puts(b, "CREATE TABLE ");
		sql__ident(b, table);
		wbuf__puts(b, " (");
		wbuf__puts(b, c->d->run_id);
		for (i = 0; i < n; i++) {
			wbuf__puts(b, ", ");
			sql__ident(b, names[i]);
			wbuf__putc(b, ' ');
			wbuf__puts(b, types[i]);
		}
		wbuf__putc(b, ')');
	}
	return sql__done(b, sql);
}

/* The mix of a database holds the columns of every run's mix (each run's are in run_meta
 * mix_columns): the columns of t it lacks are added (NULL in the runs before); one of
 * another type is refused. */
static int sql__ensure_mix(struct sql_conn *c, const struct result_table *t,
			   const struct sql_cols *have)
{
	const char *const *type = sql_types[c->d->kind];
	size_t i, k;
	int err = 0;

	for (i = 0; i < t->nr_cols && !err; i++) {
		struct wbuf *b;
		char *sql;

		for (k = 1; k < have->nr && strcmp(have->name[k], t->cols[i].name); k++)
			;
		if (k < have->nr && !strcasecmp(have->type[k], type[t->cols[i].type]))
			continue;
		if (k < have->nr)
			return writer__fail(c->w, -HBBP_EFORMAT, "this run does not fit the"
					    " database: its mix column \"%s\" is %s there, %s in"
					    " this run: write this run into another database",
					    t->cols[i].name, have->type[k], type[t->cols[i].type]);
		b = sql__buf();
		if (b) {
			wbuf__puts(b, "ALTER TABLE mix ADD COLUMN ");
			sql__ident(b, t->cols[i].name);
			wbuf__putc(b, ' ');
			wbuf__puts(b, type[t->cols[i].type]);
		}
		err = sql__done(b, &sql);
		if (!err)
			err = c->exec(c, sql, "adding a column to the mix");
		free(sql);
	}
	return err;
}

/* Creates table t (run_id and its columns) or checks that the existing one matches (the mix:
 * gets the columns it lacks). */
static int sql__ensure_table(struct sql_conn *c, const struct result_table *t)
{
	const char *const *type = sql_types[c->d->kind];
	char *names[SQL_MAX_TABLE_COLS], *types[SQL_MAX_TABLE_COLS];
	struct sql_cols have = { 0 };
	char *sql;
	size_t i;
	int err;

	if (!strcmp(t->name, "mix")) {
		err = sql__cols(c, "mix", &have);
		if (err > 0)
			err = sql__ensure_mix(c, t, &have);
		sql__cols_exit(&have);
		if (err || have.nr)
			return err;
	} else {
		err = sql__table_cols(c, t, &sql);
		if (!err)
			err = sql__check_table(c, t->name, sql);
		free(sql);
		if (err <= 0)
			return err;
	}
	if (t->nr_cols > SQL_MAX_TABLE_COLS)
		return -HBBP_ELIMIT;
	for (i = 0; i < t->nr_cols; i++) {
		names[i] = (char *)t->cols[i].name;
		types[i] = (char *)type[t->cols[i].type];
	}
	err = sql__create_sql(c, t->name, names, types, t->nr_cols, &sql);
	if (!err)
		err = c->exec(c, sql, "creating a table");
	free(sql);
	return err;
}

/* SQLite: whether the mix table's SQL is what this tool makes of its columns (a CREATE
 * TABLE and ADD COLUMNs give the same text). */
static bool sql__mix_ours(struct sql_conn *c, const char *have_sql)
{
	struct sql_cols have = { 0 };
	char *sql = NULL;
	bool same = sql__cols(c, "mix", &have) > 1 &&
		    !sql__create_sql(c, "mix", have.name + 1, have.type + 1, have.nr - 1, &sql) &&
		    !strcmp(sql, have_sql);

	free(sql);
	sql__cols_exit(&have);
	return same;
}

struct sql_version {
	char v[24];
	bool objects;		/* the database holds something */
};

static void sql__version_row(void *ctx, const char *const *col)
{
	struct sql_version *sv = ctx;

	snprintf(sv->v, sizeof(sv->v), "%s", col[0]);
	sv->objects = strcmp(col[1], "0");
}

/* Version 2 to 3, in place (@R, @T: the types real and text, @C: the mix's columns as a
 * string, @1: the value 1): blocks' count columns renamed executions (a block without code
 * has none: its weight is instructions), its instructions and batches added (the batches
 * summed from thread_blocks, which version 2 always kept), instructions.isa_set added (NULL:
 * not stored), the views made again, and each run's mix_columns and stored_* written. */
static const char *const sql_migrate_2[] = {
	"ALTER TABLE blocks RENAME COLUMN count TO executions",
	"ALTER TABLE blocks RENAME COLUMN count_lo TO executions_lo",
	"ALTER TABLE blocks RENAME COLUMN count_hi TO executions_hi",
	"ALTER TABLE blocks ADD COLUMN \"instructions\" @R",
#define SQL_ADD_BATCH(i) "ALTER TABLE blocks ADD COLUMN \"batch" #i "\" @R"
	SQL_ADD_BATCH(0), SQL_ADD_BATCH(1), SQL_ADD_BATCH(2), SQL_ADD_BATCH(3), SQL_ADD_BATCH(4),
	SQL_ADD_BATCH(5), SQL_ADD_BATCH(6), SQL_ADD_BATCH(7), SQL_ADD_BATCH(8), SQL_ADD_BATCH(9),
	"ALTER TABLE instructions ADD COLUMN \"isa_set\" @T",
	"UPDATE blocks SET instructions = executions * COALESCE(length, 1)",
	"UPDATE blocks SET executions = NULL, executions_lo = NULL, executions_hi = NULL"
	" WHERE length IS NULL",
#define SQL_SET_BATCH(i) "batch" #i " = t.b" #i
#define SQL_SUM_BATCH(i) "SUM(batch" #i ") AS b" #i
	"UPDATE blocks SET " SQL_SET_BATCH(0) ", " SQL_SET_BATCH(1) ", " SQL_SET_BATCH(2) ", "
	SQL_SET_BATCH(3) ", " SQL_SET_BATCH(4) ", " SQL_SET_BATCH(5) ", " SQL_SET_BATCH(6) ", "
	SQL_SET_BATCH(7) ", " SQL_SET_BATCH(8) ", " SQL_SET_BATCH(9) " FROM (SELECT run_id,"
	" block_id, " SQL_SUM_BATCH(0) ", " SQL_SUM_BATCH(1) ", " SQL_SUM_BATCH(2) ", "
	SQL_SUM_BATCH(3) ", " SQL_SUM_BATCH(4) ", " SQL_SUM_BATCH(5) ", " SQL_SUM_BATCH(6) ", "
	SQL_SUM_BATCH(7) ", " SQL_SUM_BATCH(8) ", " SQL_SUM_BATCH(9) " FROM thread_blocks"
	" GROUP BY run_id, block_id) t WHERE t.run_id = blocks.run_id"
	" AND t.block_id = blocks.block_id",
	"INSERT INTO run_meta SELECT run_id, 'stored_threads', @1 FROM runs",
	"INSERT INTO run_meta SELECT run_id, 'stored_lines', @1 FROM runs",
	"INSERT INTO run_meta SELECT run_id, 'mix_columns', @C FROM runs",
};

struct sql_text {
	struct wbuf *b;
	size_t n;
};

/* The columns of the mix after run_id, comma-joined, quotes doubled. */
static void sql__mix_col(void *ctx, const char *const *col)
{
	struct sql_text *t = ctx;
	const char *p;

	if (t->n++ > 1)
		wbuf__putc(t->b, ',');
	for (p = t->n > 1 ? col[0] : ""; *p; p++) {
		if (*p == '\'')
			wbuf__putc(t->b, '\'');
		wbuf__putc(t->b, *p);
	}
}

/* A database of an older schema version brought to this one (its objects are then checked
 * as any other's), under the lock of the transaction that adds the run: version 2, in
 * place; version 1 cannot be. */
static int sql__migrate(struct sql_conn *c, long from)
{
	const char *const *type = sql_types[c->d->kind];
	struct sql_text mc = { sql__buf(), 0 };
	char *cols = NULL, *sql = NULL;
	size_t i;
	int err, n;

	if (from != 2) {
		pr_err("%s: database format version %ld, this tool writes version %d and cannot"
		       " convert it: write the run into another database", c->w->path, from,
		       SCHEMA_FORMAT_VERSION);
		c->w->logged = true;
		free(mc.b ? mc.b->mem : NULL);
		free(mc.b);
		return -HBBP_EFORMAT;
	}
	if (mc.b) {
		wbuf__putc(mc.b, '\'');
		err = c->query(c, c->d->columns, "mix", sql__mix_col, &mc);
		wbuf__putc(mc.b, '\'');
	}
	err = sql__done(mc.b, &cols);
	for (i = 0; !err && i < NR_STORE_VIEWS; i++) {
		char drop[96];

		snprintf(drop, sizeof(drop), "DROP VIEW IF EXISTS %s", store_views[i].name);
		err = c->exec(c, drop, "converting the database to format version 3");
	}
	/* a database that holds no blocks table has nothing to convert but its views */
	n = err ? 0 : c->query(c, c->d->columns, "blocks", NULL, NULL);
	err = n < 0 ? n : err;
	for (i = 0; !err && n && i < sizeof(sql_migrate_2) / sizeof(sql_migrate_2[0]); i++) {
		struct wbuf *b = sql__buf();
		const char *p;

		for (p = sql_migrate_2[i]; b && *p; p++) {
			if (*p != '@') {
				wbuf__putc(b, *p);
				continue;
			}
			p++;
			wbuf__puts(b, *p == 'R' ? type[RES_REAL] : *p == 'T' ? type[RES_TEXT] :
				   *p == 'C' ? cols : c->d->kind == SQL_PG ? "'1'" : "1");
		}
		err = sql__done(b, &sql);
		if (!err)
			err = c->exec(c, sql, "converting the database to format version 3");
		free(sql);
	}
	free(cols);
	if (!err && c->d->kind == SQL_PG)
		err = c->exec(c, "DELETE FROM format_version", "setting the format version");
	return err ? err : c->exec(c, c->d->version_set, "setting the format version");
}

/* The database's schema version: this tool's (1: the database holds its objects), or none
 * yet in an empty database (stored; 0). */
static int sql__version(struct sql_conn *c)
{
	struct sql_version sv = { "", false };
	char *end;
	long v;
	int err = 0;

	if (c->d->version_table)
		err = c->exec(c, c->d->version_table, "creating the format version table");
	if (!err)
		err = c->query(c, c->d->version_get, NULL, sql__version_row, &sv);
	if (err < 0)
		return err;
	v = strtol(sv.v, &end, 10);
	if (*end || end == sv.v)
		v = -1;
	if (v == SCHEMA_FORMAT_VERSION)
		return 1;
	if (v == 0 && !sv.objects)
		return c->exec(c, c->d->version_set, "setting the format version");
	if (v > 0 && v < SCHEMA_FORMAT_VERSION)
		return (err = sql__migrate(c, v)) ? err : 1;
	if (v == 0)
		pr_err("%s: not a database of this tool (no format version; it holds tables of its"
		       " own): write the run into another database", c->w->path);
	else
		pr_err("%s: database format version %s, this tool writes version %d: write the run"
		       " into another database (or convert with a newer version of the tool)",
		       c->w->path, sv.v, SCHEMA_FORMAT_VERSION);
	c->w->logged = true;
	return -HBBP_EFORMAT;
}

/* ---- what the database holds besides this tool's objects ---- */

struct sql_obj {
	char *type, *name, *table, *sql;
};

struct sql_objs {
	size_t nr, alloc;
	struct sql_obj *v;
	bool nomem;
};

static void sql__obj_row(void *ctx, const char *const *col)
{
	struct sql_objs *o = ctx;
	struct sql_obj *ob;

	if (o->nomem || (o->nr == o->alloc &&
			 grow_array((void **)&o->v, &o->alloc, sizeof(*o->v), o->nr + 1, SIZE_MAX))) {
		o->nomem = true;
		return;
	}
	ob = &o->v[o->nr++];
	ob->type = strdup(col[0]);
	ob->name = strdup(col[1]);
	ob->table = strdup(col[2]);
	ob->sql = strdup(col[3]);
	o->nomem = !ob->type || !ob->name || !ob->table || !ob->sql;
}

static void sql__objs_exit(struct sql_objs *o)
{
	size_t i;

	for (i = 0; i < o->nr; i++) {
		free(o->v[i].type);
		free(o->v[i].name);
		free(o->v[i].table);
		free(o->v[i].sql);
	}
	free(o->v);
}

/* The object of o named name (as SQLite compares names: ASCII case ignored), or NULL; by
 * the table it belongs to when table. */
static const struct sql_obj *sql__obj(const struct sql_objs *o, const char *name, bool table)
{
	size_t i;

	for (i = 0; i < o->nr; i++)
		if (!strcasecmp(table ? o->v[i].table : o->v[i].name, name))
			return &o->v[i];
	return NULL;
}

/* have's SQL is the first version's of want's table (its first columns, which ALTER TABLE
 * ADD COLUMN extends to want's). */
static bool sql__older_runs(const struct sql_obj *have, const struct sql_obj *want)
{
	size_t n = strlen(have->sql);

	return !strcmp(have->name, "runs") && n && have->sql[n - 1] == ')' &&
	       !strncmp(have->sql, want->sql, n - 1) && !strncmp(want->sql + n - 1, ", ", 2);
}

static int sql__foreign(struct sql_conn *c, const char *what)
{
	return writer__fail(c->w, -HBBP_EFORMAT, "the database has %s, not this tool's: runs are"
			    " added only to a database that runs no SQL but this tool's (drop it,"
			    " or write the run into another database)", what);
}

/* SQLite: each object of the database of a name the reference has is as the reference has
 * it; no other object belongs to their tables. */
static int sql__check_sqlite(struct sql_conn *c)
{
	struct sql_objs have = { 0 }, want = { 0 };
	char what[256];
	size_t i;
	int err = c->query(c, c->d->objects, NULL, sql__obj_row, &have);

	if (err >= 0)
		err = c->ref->query(c->ref, c->d->objects, NULL, sql__obj_row, &want);
	err = err < 0 ? err : have.nomem || want.nomem ? -ENOMEM : 0;
	for (i = 0; !err && i < have.nr; i++) {
		const struct sql_obj *h = &have.v[i], *w = sql__obj(&want, h->name, false);

		if (w && !strcasecmp(h->type, w->type) && !strcasecmp(h->table, w->table) &&
		    (!strcmp(h->sql, w->sql) || sql__older_runs(h, w)))
			continue;
		if (w && !strcmp(w->name, "mix") && !strcmp(h->type, "table") &&
		    sql__mix_ours(c, h->sql))
			continue;	/* the columns of every run's mix */
		if (w && !strcmp(w->type, "table") && !strcmp(h->type, "table")) {
			err = sql__misfit(c, w->name);
		} else if (w) {
			snprintf(what, sizeof(what), "%s \"%.64s\" changed", h->type, h->name);
			err = sql__foreign(c, what);
		} else if (sql__obj(&want, h->table, true)) {
			snprintf(what, sizeof(what), "%s \"%.64s\" on \"%.64s\"", h->type, h->name,
				 h->table);
			err = sql__foreign(c, what);
		}
	}
	sql__objs_exit(&have);
	sql__objs_exit(&want);
	return err;
}

static void sql__first_row(void *ctx, const char *const *col)
{
	char *what = ctx;

	if (!*what)
		snprintf(what, 256, "%s", col[0]);
}

/* "{"t:runs", ...}": this tool's tables, views and indexes, for sql_dialect.foreign */
static int sql__names(const struct result *r, char **out)
{
	struct wbuf *b = sql__buf();
	size_t i;

	if (b) {
		wbuf__puts(b, "{\"t:format_version\"");
		for (i = 0; i < NR_BOOK_TABLES; i++)
			wbuf__printf(b, ", \"t:%s\"", book_tables[i]);
		for (i = 0; i < NR_SCHEMA_TABLES; i++)
			wbuf__printf(b, ", \"t:%s\"", schema_tables[i].name);
		for (i = 0; i < r->nr_tables; i++)	/* names checked: no '"' or '\' */
			wbuf__printf(b, ", \"t:%s\"", r->tables[i]->name);
		for (i = 0; i < NR_STORE_VIEWS; i++)
			wbuf__printf(b, ", \"v:%s\"", store_views[i].name);
		for (i = 0; i < NR_STORE_INDEXES; i++)
			wbuf__printf(b, ", \"i:%s\"", store_indexes[i].name);
		wbuf__puts(b, ", \"i:runs_created\", \"i:runs_label\"}");
	}
	return sql__done(b, out);
}

/* PostgreSQL: the tables the run writes locked against changes (triggers, rules, indexes,
 * constraints, policies, defaults all take a stronger lock) until the commit; converters
 * writing runs at once take the same weak lock and do not wait for each other. */
static int sql__lock(struct sql_conn *c)
{
	const struct result *r = c->w->res;
	struct wbuf *b = sql__buf();
	char *sql;
	size_t i;
	int err;

	if (b) {
		wbuf__puts(b, "LOCK TABLE runs, run_meta, warnings");
		for (i = 0; i < r->nr_tables; i++) {
			wbuf__puts(b, ", ");
			sql__ident(b, r->tables[i]->name);
		}
		wbuf__puts(b, " IN ROW EXCLUSIVE MODE");
	}
	err = sql__done(b, &sql);
	if (!err)
		err = c->exec(c, sql, "locking the tables");
	free(sql);
	return err;
}

int sql_schema__check(struct sql_conn *c)
{
	char what[256] = "", *names;
	int n;

	if (c->d->kind == SQL_SQLITE)
		return c->ref ? sql__check_sqlite(c) : 0;
	n = sql__lock(c);
	n = n ? n : sql__names(c->w->res, &names);
	if (n)
		return n;
	n = c->query(c, c->d->foreign, names, sql__first_row, what);
	free(names);
	return n < 0 ? n : n ? sql__foreign(c, what) : 0;
}

/* PostgreSQL: the view of this tool's name defined as select (0), or the logged error. */
static int sql__check_view(struct sql_conn *c, const char *name, const char *select)
{
	char *sql = NULL, same[256] = "";
	int err;

	if (asprintf(&sql, "CREATE TEMPORARY VIEW sql_check_view AS %s", select) < 0)
		return -ENOMEM;
	err = c->exec(c, sql, "checking the views");
	free(sql);
	if (!err)
		err = c->query(c, c->d->view_same, name, sql__first_row, same);
	if (err >= 0)
		err = c->exec(c, "DROP VIEW pg_temp.sql_check_view", "checking the views");
	if (!err && strcmp(same, "t")) {
		snprintf(same, sizeof(same), "view \"%s\" changed", name);
		err = sql__foreign(c, same);
	}
	return err;
}

int sql_schema__create(struct sql_conn *c)
{
	const struct result *r = c->w->res;
	size_t i;
	int err = sql__version(c);

	if (err > 0)	/* an existing database of this version (PostgreSQL: checked later) */
		err = c->d->kind == SQL_SQLITE ? sql_schema__check(c) : 0;
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
		if (n > 0) {
			if (c->d->view_same)
				err = sql__check_view(c, store_views[i].name, select);
			continue;
		}
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
		wbuf__puts(b, " (run_id");
		for (i = 0; i < t->nr_cols; i++) {
			wbuf__puts(b, ", ");
			sql__ident(b, t->cols[i].name);
		}
		wbuf__puts(b, copy ? ") FROM STDIN" : ") SELECT ?");
		for (i = 0; !copy && i < t->nr_cols; i++)
			wbuf__printf(b, ", c%zu", i);
		if (!copy)
			wbuf__puts(b, " FROM temp." SQL_ROWS_TABLE);
	}
	return sql__done(b, sql);
}

int sql_schema__run_meta(struct sql_conn *c, const char *run_id)
{
	const struct result_table *t = result__table(c->w->res, "mix");
	struct wbuf *b = sql__buf();
	char *sql;
	size_t i;
	int err;

	if (!t)
		return 0;
	if (b) {
		wbuf__printf(b, "INSERT INTO run_meta VALUES (%s, 'mix_columns', '", run_id);
		for (i = 0; i < t->nr_cols; i++) {
			const char *p;

			if (i)
				wbuf__putc(b, ',');
			for (p = t->cols[i].name; *p; p++) {
				if (*p == '\'')
					wbuf__putc(b, '\'');
				wbuf__putc(b, *p);
			}
		}
		wbuf__puts(b, "')");
	}
	err = sql__done(b, &sql);
	if (!err)
		err = c->exec(c, sql, "writing the run metadata");
	free(sql);
	return err;
}
