/* A stored run pivoted by other keys than its mix's (hbbp/compare/diff.h, diff__read_db): the
 * rows summed by SQL from the database's blocks and instructions (thread_blocks for a thread
 * key, and for every key in a database of format version 1 or 2, whose blocks have no
 * batches), each key's value spelled as the mix spells it, and the counts' intervals from the
 * summed batches as the mix's (hbbp/method/interval.h; widened by the run's largest
 * throttle_spread_N, as the mix's), rounded as the mix rounds them. What
 * the run did not store (its blocks per thread, its source lines, isa_set before version 3) is
 * refused naming the option that stores it.
 * Depends on hbbp/pivot/mix.h (rounding), hbbp/method/interval.h, writers/result.h, sqlite3;
 * never prints but through hbbp_log.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "hbbp/compare/diff.h"
#include "hbbp/method/interval.h"
#include "hbbp/pivot/mix.h"
#include "util/hbbp_err.h"
#include "writers/schema.h"

#define MAX_KEYS 16

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
	size_t key[MAX_KEYS];		/* index in pkeys */
	unsigned needs;
	double widen;			/* the intervals' widening: the largest throttle_spread_N */
};

static int pv_err(const struct pivot *p, const char *what)
{
	pr_err("%s: %s: %s", p->path, what, sqlite3_errmsg(p->db));
	return -HBBP_EFORMAT;
}

/* One integer of a query with the run id as its parameter; dflt when no row or NULL. */
static int64_t pv_int(const struct pivot *p, const char *sql, int64_t dflt)
{
	sqlite3_stmt *st = NULL;
	int64_t v = dflt;

	if (!sqlite3_prepare_v2(p->db, sql, -1, &st, NULL)) {
		if (sqlite3_bind_parameter_count(st))
			sqlite3_bind_int64(st, 1, p->run);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
			v = sqlite3_column_int64(st, 0);
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
		if (k == NR_PKEYS || p->nr_keys == MAX_KEYS) {
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
	if ((p->needs & NEED_THREAD) && !pv_int(p, sql, 1)) {
		what = "its blocks per thread";
		how = "--store threads (or a key by thread)";
	}
	snprintf(sql, sizeof(sql), meta, "stored_lines");
	if (!what && (p->needs & NEED_LINES) && !pv_int(p, sql, 1)) {
		what = "its source lines";
		how = "--store lines (or --by srcline)";
	}
	if (!what && (p->needs & NEED_ISA_SET) &&
	    (version < 3 || pv_int(p, "SELECT COUNT(*) FROM instructions WHERE run_id = ? AND"
			     " isa_set IS NULL", 0))) {
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
	return err ? err : rc == SQLITE_DONE ? 0 : pv_err(p, "pivoting the blocks");
}

int diff__pivot_db(struct result *out, sqlite3 *db, const char *path, int64_t run_id,
		   const char *keys)
{
	struct pivot p = { .path = path, .db = db, .run = run_id };
	const char *cols[MAX_KEYS + 3];
	char spec[MAX_KEYS][64];
	struct result_table *t;
	sqlite3_stmt *st = NULL;
	int64_t version = pv_int(&p, "PRAGMA user_version", 0);
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
	sqlite3_prepare_v2(db, "SELECT MAX(CAST(value AS REAL)) FROM run_meta WHERE run_id = ? AND"
			   " key LIKE 'throttle\\_spread\\_%' ESCAPE '\\'", -1, &st, NULL);
	sqlite3_bind_int64(st, 1, run_id);
	if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		p.widen = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	sql = pv_sql(&p, (p.needs & NEED_THREAD) || version < 3);
	if (!sql)
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL)) {
		err = pv_err(&p, "the database has not the tables of a run");
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
