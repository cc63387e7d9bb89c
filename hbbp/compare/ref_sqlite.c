/* Reads our SQLite output as an instruction mix for `compare`: the `mix` table of the last
 * run (key columns + count) and, from `blocks` ⋈ `instructions` ⋈ `modules`, per-instruction
 * counts (every instruction of a block has the block's count) for the IP-level metrics.
 * Depends on hbbp/compare/ref.h, hbbp/compare/diff.h (a run's mix columns), sqlite3 and libc.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "hbbp/compare/diff.h"
#include "hbbp/compare/ref.h"
#include "util/hbbp_err.h"
#include "writers/schema.h"

#define MAX_COLS 64

static int sq_err(const char *path, sqlite3 *db, const char *what)
{
	pr_err("%s: %s: %s", path, what, db ? sqlite3_errmsg(db) : "cannot open");
	return -HBBP_EFORMAT;
}

static int read_mix(const char *path, sqlite3 *db, int64_t run, struct ref_mix **out)
{
	const char *names[MAX_COLS];
	int kidx[MAX_COLS], ci = -1, nk = 0, i, rc, nc;
	sqlite3_stmt *st = NULL;
	struct ref_mix *m = NULL;
	char sel[4096], kbuf[2048], *sql = NULL;
	int err = diff__db_columns(db, run, sel, sizeof(sel), kbuf, sizeof(kbuf));

	if (err || asprintf(&sql, "select %s from mix where run_id = ?", sel) < 0) {
		pr_err("%s: run %lld: its mix_columns are not a list of columns", path,
		       (long long)run);
		return err ? err : -ENOMEM;
	}
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	free(sql);
	if (rc)
		return sq_err(path, db, "no mix table");
	sqlite3_bind_int64(st, 1, run);
	nc = sqlite3_column_count(st);
	for (i = 0; i < nc && i < MAX_COLS; i++) {
		const char *n = sqlite3_column_name(st, i);

		if (!strcmp(n, "count"))
			ci = i;
		else if (strcmp(n, "run_id") && !ref_mix__value_column(n)) {
			kidx[nk] = i;
			names[nk++] = n;
		}
	}
	if (ci < 0 || !nk) {
		sqlite3_finalize(st);
		pr_err("%s: the mix table needs key columns and 'count'", path);
		return -HBBP_EFORMAT;
	}
	err = ref_mix__new(path, "sqlite", names, (size_t)nk, &m);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *keys[MAX_COLS];
		double c = sqlite3_column_double(st, ci);

		if (sqlite3_column_type(st, ci) == SQLITE_NULL || !isfinite(c) || c < 0) {
			pr_err("%s: mix row with a bad count", path);
			err = -HBBP_EFORMAT;
			break;
		}
		for (i = 0; i < nk && !err; i++) {
			keys[i] = (const char *)sqlite3_column_text(st, kidx[i]);
			if (!keys[i]) {
				pr_err("%s: mix row with a NULL key '%s'", path, names[i]);
				err = -HBBP_EFORMAT;
			}
		}
		if (err)
			break;
		err = ref_mix__add_row(m, keys, c);
	}
	if (!err && rc != SQLITE_DONE)
		err = sq_err(path, db, "reading mix");
	sqlite3_finalize(st);
	if (err) {
		ref_mix__delete(m);
		return err;
	}
	*out = m;
	return 0;
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
		err = sq_err(path, db, "reading blocks");
	sqlite3_finalize(st);
	m->total = total;	/* the rows' total stays the mix total */
	return err;
}

int ref_sqlite__read(const char *path, struct ref_mix **out)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct ref_mix *m = NULL;
	int64_t run = 0, version;
	int err;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL)) {
		err = sq_err(path, db, "cannot open");
		sqlite3_close(db);
		return err;
	}
	if (sqlite3_prepare_v2(db, "pragma user_version", -1, &st, NULL) ||
	    sqlite3_step(st) != SQLITE_ROW) {
		err = sq_err(path, db, "reading the format version");
		goto out;
	}
	if (sqlite3_column_int64(st, 0) > SCHEMA_FORMAT_VERSION || sqlite3_column_int64(st, 0) < 0) {
		/* 0: no version set (a table made by hand); 1 to 3: ours (2 added count_lo,
		 * count_hi, 3 renamed blocks.count executions and a run's mix columns) */
		pr_err("%s: format version %lld is not supported (this tool reads 1 to %d)", path,
		       (long long)sqlite3_column_int64(st, 0), SCHEMA_FORMAT_VERSION);
		err = -HBBP_EUNSUPP;
		goto out;
	}
	version = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db, "select max(run_id) from mix", -1, &st, NULL) ||
	    sqlite3_step(st) != SQLITE_ROW || sqlite3_column_type(st, 0) == SQLITE_NULL) {
		err = sq_err(path, db, "no run in the mix table");
		goto out;
	}
	run = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	err = read_mix(path, db, run, &m);
	if (!err)
		err = read_ips(path, db, run, version, m);
	if (!err) {
		char note[64];

		snprintf(note, sizeof(note), "run_id %lld (the last run)", (long long)run);
		err = ref_mix__set_note(m, note);
	}
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (err) {
		ref_mix__delete(m);
		return err;
	}
	m->named = true;
	*out = m;
	return 0;
}
