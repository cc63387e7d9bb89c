/* One run of our SQLite output read back (hbbp/compare/diff.h, ref.h): as a table for diff,
 * and for `compare` (ref_sqlite__read) the `mix` table of the last run (key columns + count)
 * and, from `blocks` ⋈ `instructions` ⋈ `modules`, per-instruction counts (every instruction
 * of a block has the block's count) for the IP-level metrics.
 * A stored run pivoted by other keys than its mix's (diff__pivot_db): the
 * rows summed by SQL from the database's blocks and instructions (thread_blocks for a thread
 * key, and for every key in a database of format version 1 or 2, whose blocks have no
 * batches), each key's value spelled as the mix spells it, and the counts' intervals from the
 * summed batches as the mix's (hbbp/method/interval.h; widened by the run's largest
 * throttle_spread_N, as the mix's), rounded as the mix rounds them. What
 * the run did not store (its blocks per thread, its source lines, isa_set before version 3) is
 * refused naming the option that stores it.
 * Depends on hbbp/pivot/mix.h (rounding), hbbp/method/interval.h, hbbp/compare/ref.h,
 * writers/result.h, sqlite3 and libc; never prints but through hbbp_log.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "hbbp/compare/diff.h"
#include "hbbp/compare/ref.h"
#include "hbbp/method/interval.h"
#include "hbbp/pivot/mix.h"
#include "util/hbbp_err.h"
#include "writers/schema.h"

#define MAX_KEYS 32		/* a stored mix's key columns */
#define MAX_PIVOT_KEYS 16	/* the keys a stored run is pivoted by */

static int db_err(const char *path, sqlite3 *db, const char *what)
{
	pr_err("%s: %s: %s", path, what, db ? sqlite3_errmsg(db) : "cannot open");
	return -HBBP_EFORMAT;
}

/* What a key reads: the thread (thread_blocks), an instruction, the source lines */
enum { NEED_THREAD = 1, NEED_INSN = 2, NEED_LINES = 4, NEED_ISA_SET = 8 };

/* The instruction keys' values at a block without code: its marker, in blocks.srcline */
#define NO_INSN(x) "CASE WHEN i.block_id IS NULL THEN b.srcline ELSE " x " END"
#define SHORT_MODULE							\
	"COALESCE(replace(m.name, rtrim(m.name, replace(m.name, '/', '')), ''), '[unmapped]')"

static const struct {
	const char *name, *alias;
	bool num;
	unsigned needs;
	const char *sql;
} pkeys[] = {
	{ "pid", NULL, true, NEED_THREAD, "tb.pid" },
	{ "tid", NULL, true, NEED_THREAD, "tb.tid" },
	{ "comm", NULL, false, NEED_THREAD, "COALESCE(NULLIF(tb.comm, ''), '[unknown]')" },
	{ "module", "dso", false, 0, SHORT_MODULE },
	{ "symbol", "sym", false, 0, "COALESCE(s.name, '[unknown]')" },
	{ "srcline", NULL, false, NEED_INSN | NEED_LINES,
	  NO_INSN("COALESCE(NULLIF(i.srcline, ''), '[unknown]')") },
	{ "mnemonic", NULL, false, NEED_INSN,
	  NO_INSN("COALESCE(NULLIF(i.mnemonic, ''), '[unknown]')") },
	{ "iclass", NULL, false, NEED_INSN,
	  NO_INSN("COALESCE(NULLIF(i.iclass, ''), '[unknown]')") },
	{ "isa", NULL, false, NEED_INSN, NO_INSN("i.isa") },
	{ "isa_set", NULL, false, NEED_INSN | NEED_ISA_SET,
	  NO_INSN("CASE WHEN i.isa_set <> '' THEN i.isa_set WHEN i.isa = 'INVALID' THEN"
		  " 'INVALID' ELSE 'none' END") },
	{ "category", NULL, false, NEED_INSN, NO_INSN("i.category") },
	{ "packing", NULL, false, NEED_INSN, NO_INSN("i.packing") },
	{ "elem", NULL, false, NEED_INSN, NO_INSN("COALESCE(NULLIF(i.elem, ''), 'none')") },
	{ "width", NULL, true, NEED_INSN, "i.width" },
	{ "mem", NULL, false, NEED_INSN,
	  NO_INSN("CASE WHEN i.mem_read <> 0 AND i.mem_write <> 0 THEN 'rw' WHEN i.mem_read <> 0"
		  " THEN 'r' WHEN i.mem_write <> 0 THEN 'w' ELSE 'none' END") },
};
#define NR_PKEYS (sizeof(pkeys) / sizeof(pkeys[0]))

struct pivot {
	const char *path;
	sqlite3 *db;
	int64_t run;
	size_t nr_keys;
	size_t key[MAX_PIVOT_KEYS];		/* index in pkeys */
	unsigned needs;
	double widen;			/* the intervals' widening: the largest throttle_spread_N */
};

/* One number of a query with run as its parameter (where it takes one); dflt when the query
 * fails or gives no row or NULL. */
static double db_num(sqlite3 *db, int64_t run, const char *sql, double dflt)
{
	sqlite3_stmt *st = NULL;
	double v = dflt;

	if (!sqlite3_prepare_v2(db, sql, -1, &st, NULL)) {
		if (sqlite3_bind_parameter_count(st))
			sqlite3_bind_int64(st, 1, run);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
			v = sqlite3_column_double(st, 0);
	}
	sqlite3_finalize(st);
	return v;
}

/* The keys of spec (comma-separated, perf's aliases too) into p. */
static int pv_keys(struct pivot *p, const char *spec)
{
	const char *s = spec;

	while (*s) {
		size_t n = strcspn(s, ","), k;

		for (k = 0; k < NR_PKEYS; k++)
			if ((strlen(pkeys[k].name) == n && !strncmp(s, pkeys[k].name, n)) ||
			    (pkeys[k].alias && strlen(pkeys[k].alias) == n &&
			     !strncmp(s, pkeys[k].alias, n)))
				break;
		if (k == NR_PKEYS || p->nr_keys == MAX_PIVOT_KEYS) {
			pr_err("%s#%" PRId64 ": the key '%.*s' cannot be made from a stored run (keys: "
			       "pid tid comm module symbol srcline mnemonic iclass isa isa_set category"
			       " packing elem width mem): pivot the recording", p->path, p->run,
			       (int)n, s);
			return -HBBP_EUSAGE;
		}
		p->key[p->nr_keys++] = k;
		p->needs |= pkeys[k].needs;
		s += n + !!s[n];
	}
	return p->nr_keys ? 0 : -HBBP_EUSAGE;
}

/* Whether the run stored what the keys need: 0, or the logged refusal. */
static int pv_stored(const struct pivot *p, int64_t version)
{
	static const char meta[] =
		"SELECT CAST(value AS INTEGER) FROM run_meta WHERE run_id = ? AND key = '%s'";
	char sql[128];
	const char *what = NULL, *how = NULL;

	/* format versions 1 and 2 stored every thread and the source lines, no isa_set */
	snprintf(sql, sizeof(sql), meta, "stored_threads");
	if ((p->needs & NEED_THREAD) && !db_num(p->db, p->run, sql, 1)) {
		what = "its blocks per thread";
		how = "--store threads (or a key by thread)";
	}
	snprintf(sql, sizeof(sql), meta, "stored_lines");
	if (!what && (p->needs & NEED_LINES) && !db_num(p->db, p->run, sql, 1)) {
		what = "its source lines";
		how = "--store lines (or --by srcline)";
	}
	if (!what && (p->needs & NEED_ISA_SET) &&
	    (version < 3 || db_num(p->db, p->run, "SELECT COUNT(*) FROM instructions WHERE"
				   " run_id = ? AND isa_set IS NULL", 0))) {
		what = "isa_set (a run written before format version 3)";
		how = "this version of the tool";
	}
	if (!what)
		return 0;
	pr_err("%s#%" PRId64 ": the run did not store %s, which --by needs: convert the recording"
	       " with %s to keep it, or pivot the recording", p->path, p->run, what, how);
	return -HBBP_EUSAGE;
}

/* The query: the keys, the count, its ten batch sums, grouped by the keys. From thread_blocks
 * when a key is the thread's or the blocks have no batches (version < 3), else from blocks;
 * each instruction of a block once (a block without code once) with an instruction key, else
 * the block's count times its length. */
static char *pv_sql(const struct pivot *p, bool tb)
{
	const char *per = (p->needs & NEED_INSN) ? "" : " * COALESCE(b.length, 1)";
	const char *bt = tb ? "tb.batch" : "b.batch";
	char *sql = NULL, *keys = NULL, *grp = NULL, *count = NULL, *t;
	size_t k;
	int ok = asprintf(&count, "%s%s", tb ? "tb.count" : (p->needs & NEED_INSN) ?
			  "COALESCE(b.executions, b.instructions)" : "b.instructions",
			  tb ? per : "") >= 0;

	for (k = 0; ok && k < p->nr_keys; k++) {
		ok = asprintf(&t, "%s%s%s", keys ? keys : "", k ? ", " : "", pkeys[p->key[k]].sql) >= 0;
		free(keys);
		keys = ok ? t : NULL;
		ok = ok && asprintf(&t, "%s%s%zu", grp ? grp : "", k ? ", " : "", k + 1) >= 0;
		free(grp);
		grp = ok ? t : NULL;
	}
	if (ok && asprintf(&sql,
		"SELECT %s, SUM(%s)"
		", SUM(%s0%s), SUM(%s1%s), SUM(%s2%s), SUM(%s3%s), SUM(%s4%s)"
		", SUM(%s5%s), SUM(%s6%s), SUM(%s7%s), SUM(%s8%s), SUM(%s9%s)"
		" FROM %s"
		" LEFT JOIN modules m ON m.run_id = b.run_id AND m.module_id = b.module_id"
		" LEFT JOIN symbols s ON s.run_id = b.run_id AND s.symbol_id = b.symbol_id"
		"%s WHERE b.run_id = ?1 AND %s > 0%s GROUP BY %s",
		keys, count, bt, per, bt, per, bt, per, bt, per, bt, per, bt, per, bt, per, bt, per,
		bt, per, bt, per,
		tb ? "thread_blocks tb JOIN blocks b ON b.run_id = tb.run_id AND"
		     " b.block_id = tb.block_id" : "blocks b",
		(p->needs & NEED_INSN) ? " LEFT JOIN instructions i ON i.run_id = b.run_id AND"
		" i.block_id = b.block_id" : "",
		tb ? "tb.count" : "b.instructions",
		(p->needs & NEED_INSN) ? " AND (i.block_id IS NOT NULL OR b.length IS NULL)" : "",
		grp) < 0)
		sql = NULL;
	free(count);
	free(keys);
	free(grp);
	return sql;
}

/* The rows of the query into table t: the keys, count, count_lo, count_hi (rounded). */
static int pv_rows(struct pivot *p, sqlite3_stmt *st, struct result_table *t)
{
	size_t nk = p->nr_keys, k;
	int rc, err = 0;

	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct result_cell *c = result_table__add_row(t);
		double count = sqlite3_column_double(st, (int)nk), x[SCHEMA_BATCHES], lo, hi;

		if (!c)
			return -ENOMEM;
		for (k = 0; k < nk && !err; k++) {
			int col = (int)k;

			if (sqlite3_column_type(st, col) == SQLITE_NULL)
				continue;
			if (pkeys[p->key[k]].num)
				result_cell__int(&c[k], sqlite3_column_int64(st, col));
			else
				err = result_cell__text(t, &c[k],
							(const char *)sqlite3_column_text(st, col));
		}
		for (k = 0; k < SCHEMA_BATCHES; k++)	/* the batch estimates over K */
			x[k] = SCHEMA_BATCHES * sqlite3_column_double(st, (int)(nk + 1 + k));
		if (!isfinite(count) || count < 0) {
			pr_err("%s#%" PRId64 ": a block with a bad count", p->path, p->run);
			return -HBBP_EFORMAT;
		}
		hbbp_interval__estimates(count, x, SCHEMA_BATCHES, &lo, &hi);
		hbbp_interval__widen(count, p->widen, &lo, &hi);
		result_cell__real(&c[nk], hbbp_round_count(count));
		result_cell__real(&c[nk + 1], hbbp_round_count(lo));
		result_cell__real(&c[nk + 2], hbbp_round_count(hi));
	}
	return err ? err : rc == SQLITE_DONE ? 0 : db_err(p->path, p->db, "pivoting the blocks");
}

int diff__pivot_db(struct result *out, sqlite3 *db, const char *path, int64_t run_id,
		   const char *keys)
{
	struct pivot p = { .path = path, .db = db, .run = run_id };
	const char *cols[MAX_PIVOT_KEYS + 3];
	char spec[MAX_PIVOT_KEYS][64];
	struct result_table *t;
	sqlite3_stmt *st = NULL;
	int64_t version = (int64_t)db_num(db, run_id, "PRAGMA user_version", 0);
	char *sql = NULL;
	size_t k;
	int err = pv_keys(&p, keys);

	err = err ? err : pv_stored(&p, version);
	if (err)
		return err;
	for (k = 0; k < p.nr_keys; k++) {
		snprintf(spec[k], sizeof(spec[k]), "%s:%s", pkeys[p.key[k]].name,
			 pkeys[p.key[k]].num ? "int" : "text");
		cols[k] = spec[k];
	}
	cols[k++] = "count:real";
	cols[k++] = "count_lo:real";
	cols[k++] = "count_hi:real";
	/* a throttled event's uncertainty widens every interval, as in the mix */
	p.widen = db_num(db, run_id, "SELECT MAX(CAST(value AS REAL)) FROM run_meta WHERE run_id"
			 " = ? AND key LIKE 'throttle\\_spread\\_%' ESCAPE '\\'", 0);
	sql = pv_sql(&p, (p.needs & NEED_THREAD) || version < 3);
	if (!sql)
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL)) {
		err = db_err(path, db, "the database has not the tables of a run");
	} else {
		sqlite3_bind_int64(st, 1, run_id);
		err = result__add_table(out, "mix", cols, k, &t);
		err = err ? err : pv_rows(&p, st, t);
	}
	sqlite3_finalize(st);
	free(sql);
	if (!err && !t->nr_rows) {
		pr_err("%s: no blocks of run %" PRId64, path, run_id);
		err = -HBBP_ENOTFOUND;
	}
	return err;
}

/* ---- the run's mix, and the last run as a reference for compare ---- */

/* The mix columns of run run_id of db (run_meta mix_columns, format version 3: the database's
 * mix holds every run's) as a select list into sel, its key columns comma-joined into keys;
 * "*" and "" where the database does not say (versions 1 and 2: the mix is the run's). 0, or
 * -HBBP_EFORMAT for a list that does not fit or names a column with a '"'. */
static int diff__db_columns(sqlite3 *db, int64_t run_id, char *sel, size_t ssize,
			    char *keys, size_t ksize)
{
	sqlite3_stmt *st = NULL;
	const char *v = NULL, *p;
	size_t sl = 0, kl = 0;

	snprintf(sel, ssize, "*");
	keys[0] = 0;
	if (!sqlite3_prepare_v2(db, "select value from run_meta where run_id = ? and key ="
				" 'mix_columns'", -1, &st, NULL)) {
		sqlite3_bind_int64(st, 1, run_id);
		if (sqlite3_step(st) == SQLITE_ROW)
			v = (const char *)sqlite3_column_text(st, 0);
	}
	for (p = v; p && *p; ) {
		size_t n = strcspn(p, ",");
		char name[160];

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		p += n + !!p[n];
		if (strchr(name, '"') || sl + n + 4 >= ssize || kl + n + 2 >= ksize) {
			sqlite3_finalize(st);
			return -HBBP_EFORMAT;
		}
		sl += (size_t)snprintf(sel + sl, ssize - sl, "%s\"%s\"", sl ? ", " : "", name);
		if (!diff__value_column(name))
			kl += (size_t)snprintf(keys + kl, ksize - kl, "%s%s", kl ? "," : "", name);
	}
	sqlite3_finalize(st);
	return 0;
}

int diff__read_db(struct result *out, const char *path, int64_t run_id, const char *by)
{
	const char *cols[MAX_KEYS + 8];
	char spec[MAX_KEYS + 8][160], sel[4096], keys[2048], *sql = NULL;
	int idx[MAX_KEYS + 8];
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct result_table *t;
	int i, nc, n = 0, rc = SQLITE_DONE, err = 0, ci = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL)) {
		err = db_err(path, db, "cannot open");
		goto out;
	}
	if (diff__db_columns(db, run_id, sel, sizeof(sel), keys, sizeof(keys))) {
		pr_err("%s: run %" PRId64 ": its mix_columns are not a list of columns", path,
		       run_id);
		err = -HBBP_EFORMAT;
		goto out;
	}
	if (by && strcmp(by, keys)) {	/* other keys than the run's mix: from its blocks */
		err = diff__pivot_db(out, db, path, run_id, by);
		goto out;
	}
	if (asprintf(&sql, "select %s from mix where run_id = ?", sel) < 0) {
		err = -ENOMEM;
		goto out;
	}
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL)) {
		err = db_err(path, db, "no mix table");
		goto out;
	}
	sqlite3_bind_int64(st, 1, run_id);
	nc = sqlite3_column_count(st);
	for (i = 0; i < nc; i++) {
		const char *nm = sqlite3_column_name(st, i);
		const char *decl = sqlite3_column_decltype(st, i);
		bool key = !diff__value_column(nm);

		if (!strcmp(nm, "count"))
			ci = n;
		if (!key && strcmp(nm, "count") && strcmp(nm, "count_lo") && strcmp(nm, "count_hi"))
			continue;
		if (n == MAX_KEYS + 3) {
			pr_err("%s: the mix table has more than %d key columns", path, MAX_KEYS);
			err = -HBBP_EFORMAT;
			goto out;
		}
		snprintf(spec[n], sizeof(spec[n]), "%s:%s", nm, !key ? "real" :
			 decl && !strcasecmp(decl, "integer") ? "int" : "text");
		cols[n] = spec[n];
		idx[n++] = i;
	}
	if (ci < 0 || n < 2) {
		pr_err("%s: the mix table needs key columns and 'count'", path);
		err = -HBBP_EFORMAT;
		goto out;
	}
	err = result__add_table(out, "mix", cols, (size_t)n, &t);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct result_cell *c = result_table__add_row(t);

		if (!c) {
			err = -ENOMEM;
			break;
		}
		for (i = 0; i < n && !err; i++) {
			int ty = sqlite3_column_type(st, idx[i]);

			if (ty == SQLITE_NULL)
				continue;
			if (t->cols[i].type == RES_REAL) {
				double v = sqlite3_column_double(st, idx[i]);

				if (!isfinite(v) || v < 0) {
					pr_err("%s: run %" PRId64 ": a mix row with a bad %s", path,
					       run_id, t->cols[i].name);
					err = -HBBP_EFORMAT;
				} else {
					result_cell__real(&c[i], v);
				}
			} else if (t->cols[i].type == RES_INT) {
				result_cell__int(&c[i], sqlite3_column_int64(st, idx[i]));
			} else {
				const char *s = (const char *)sqlite3_column_text(st, idx[i]);

				err = result_cell__text(t, &c[i], s ? s : "");
			}
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = db_err(path, db, "reading mix");
	if (!err && !t->nr_rows) {
		pr_err("%s: no run %" PRId64 " in the mix table", path, run_id);
		err = -HBBP_ENOTFOUND;
	}
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(sql);
	return err;
}

/* ---- our SQLite output as a reference for compare ---- */

/* The rows of a run's mix read by diff__read_db as the key rows of a reference. */
static int ref_rows(const char *path, const struct result_table *t, struct ref_mix **out)
{
	const char *names[MAX_KEYS + 3], *keys[MAX_KEYS + 3];	/* diff__read_db's at most */
	int kidx[MAX_KEYS + 3], ci = result_table__col(t, "count");
	size_t i, r, nk = 0;
	int err;

	for (i = 0; i < t->nr_cols; i++)
		if (!diff__value_column(t->cols[i].name)) {
			kidx[nk] = (int)i;
			names[nk++] = t->cols[i].name;
		}
	if (!nk) {
		pr_err("%s: the mix table needs key columns and 'count'", path);
		return -HBBP_EFORMAT;
	}
	err = ref_mix__new(path, "sqlite", names, nk, out);
	for (r = 0; r < t->nr_rows && !err; r++) {
		const struct result_cell *c = result_table__row(t, r);
		char num[MAX_KEYS + 3][24];

		if (c[ci].type != RES_REAL) {
			pr_err("%s: mix row with a bad count", path);
			return -HBBP_EFORMAT;
		}
		for (i = 0; i < nk; i++) {
			keys[i] = c[kidx[i]].type == RES_TEXT ? c[kidx[i]].s : num[i];
			if (c[kidx[i]].type == RES_INT)
				snprintf(num[i], sizeof(num[i]), "%" PRId64, c[kidx[i]].i);
			else if (c[kidx[i]].type != RES_TEXT) {
				pr_err("%s: mix row with a NULL key '%s'", path, names[i]);
				return -HBBP_EFORMAT;
			}
		}
		err = ref_mix__add_row(*out, keys, c[ci].d);
	}
	return err;
}

static int read_ips(const char *path, sqlite3 *db, int64_t run, int64_t version,
		    struct ref_mix *m)
{
	/* a block's executions: blocks.count before format version 3 */
	static const char q[] =
		"select coalesce(mo.path, mo.name), i.address, b.%s, i.mnemonic, i.iclass "
		"from blocks b join instructions i on i.run_id = b.run_id and i.block_id = b.block_id "
		"left join modules mo on mo.run_id = b.run_id and mo.module_id = b.module_id "
		"where b.run_id = ? and b.%s > 0";
	const char *col = version >= 3 ? "executions" : "count";
	sqlite3_stmt *st = NULL;
	double total = m->total;
	char sql[sizeof(q) + 32];
	int rc, err = 0;

	snprintf(sql, sizeof(sql), q, col, col);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return 0;	/* no block tables: rows only */
	sqlite3_bind_int64(st, 1, run);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *mod = (const char *)sqlite3_column_text(st, 0);
		const char *mn = (const char *)sqlite3_column_text(st, 3);
		const char *ic = (const char *)sqlite3_column_text(st, 4);

		err = ref_mix__add_ip(m, mod ? mod : "", (uint64_t)sqlite3_column_int64(st, 1),
				      sqlite3_column_double(st, 2), mn);
		if (!err && ic && !(m->ips[m->nr_ips - 1].iclass = strdup(ic)))
			err = -ENOMEM;
	}
	if (!err && rc != SQLITE_DONE)
		err = db_err(path, db, "reading blocks");
	sqlite3_finalize(st);
	m->total = total;	/* the rows' total stays the mix total */
	return err;
}

int ref_sqlite__read(const char *path, struct ref_mix **out)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct ref_mix *m = NULL;
	struct result *res = NULL;
	int64_t run = 0;
	double version;
	int err;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL)) {
		err = db_err(path, db, "cannot open");
		sqlite3_close(db);
		return err;
	}
	version = db_num(db, 0, "pragma user_version", NAN);
	if (isnan(version)) {
		err = db_err(path, db, "reading the format version");
		goto out;
	}
	if (version > SCHEMA_FORMAT_VERSION || version < 0) {
		/* 0: no version set (a table made by hand); 1 to 3: ours (2 added count_lo,
		 * count_hi, 3 renamed blocks.count executions and a run's mix columns) */
		pr_err("%s: format version %.0f is not supported (this tool reads 1 to %d)", path,
		       version, SCHEMA_FORMAT_VERSION);
		err = -HBBP_EUNSUPP;
		goto out;
	}
	if (sqlite3_prepare_v2(db, "select max(run_id) from mix", -1, &st, NULL) ||
	    sqlite3_step(st) != SQLITE_ROW || sqlite3_column_type(st, 0) == SQLITE_NULL) {
		err = db_err(path, db, "no run in the mix table");
		goto out;
	}
	run = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	err = result__new(&res);
	err = err ? err : diff__read_db(res, path, run, NULL);
	err = err ? err : ref_rows(path, result__table(res, "mix"), &m);
	if (!err)
		err = read_ips(path, db, run, (int64_t)version, m);
	if (!err) {
		char note[64];

		snprintf(note, sizeof(note), "run_id %lld (the last run)", (long long)run);
		err = ref_mix__set_note(m, note);
	}
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	result__delete(res);
	if (!err)
		m->named = true;
	return ref_mix__finish(m, err, out);
}
