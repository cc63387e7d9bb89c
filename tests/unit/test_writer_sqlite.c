/* Unit tests of the SQLite writer on a hand-built result whose pivots are computed by hand
 * below: the mix_by_* views, block_detail, run bookkeeping, --append (two run ids, shares
 * within each run, a run of other mix columns), and the failures that must leave the
 * previous database untouched (a mix column of another type, another schema version, a file
 * that is not a database).
 *
 * The hand-built run 1 (blocks b1..b3 with their instructions; thread_blocks counts):
 *   b1 prog:main    mov add jmp            tid 10: 10
 *   b2 prog:loop    vaddps vaddps cmp jne  tid 10: 100, tid 11: 50
 *   b3 libc:memcpy  mov ret                tid 11: 20
 * Executions per instruction = block count: b1 3*10 = 30, b2 4*150 = 600, b3 2*20 = 40;
 * total 670. mnemonic: vaddps 300, cmp 150, jne 150, mov 10+20 = 30, ret 20, add 10,
 * jmp 10. isa: avx 300, base 370. category: simd 300, branch 10+150+20 = 180,
 * arith 10+150 = 160, data 30. function: loop 600, memcpy 40, main 30.
 * thread: tid 10: 30 + 400 = 430, tid 11: 200 + 40 = 240.
 * Run 2 (appended): only b3, tid 12, count 5: mov 5, ret 5, each share 0.5.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/harness.h"
#include "util/hbbp_err.h"
#include "writers/schema.h"
#include "writers/writer.h"

static char dir[64], db_path[160];

struct insn { int block; const char *mnemonic, *isa, *category; };
struct tb { int tid, block; double count; };

static struct result *build(const struct tb *tbs, size_t nr_tbs, int extra_mix_col)
{
	static const struct insn insns[] = {
		{ 1, "mov", "base", "data" }, { 1, "add", "base", "arith" },
		{ 1, "jmp", "base", "branch" },
		{ 2, "vaddps", "avx", "simd" }, { 2, "vaddps", "avx", "simd" },
		{ 2, "cmp", "base", "arith" }, { 2, "jne", "base", "branch" },
		{ 3, "mov", "base", "data" }, { 3, "ret", "base", "branch" },
	};
	static const char *const mix2[] = { "mnemonic:text", "count:real", "share:real" };
	static const char *const mix3[] = { "mnemonic:text", "isa:text", "count:real",
					    "share:real" };
	static const char *const mix_int[] = { "mnemonic:int", "count:real", "share:real" };
	static const int64_t length[] = { 0, 3, 4, 2 };
	struct result *r;
	struct result_table *t;
	struct result_cell *c;
	size_t i;

	if (result__new(&r))
		return NULL;
	result__meta_text(r, "file", "hand.data");
	result__meta_int(r, "cutoff", 18);
	result__meta_real(r, "scale", 1.25);
	result__warn(r, "first warning");
	result__add_table(r, "modules", schema_modules, SCHEMA_NR(schema_modules), &t);
	c = result_table__add_row(t);
	result_cell__int(&c[0], 1);
	result_cell__text(t, &c[1], "prog");
	result_cell__text(t, &c[2], "/usr/bin/prog");
	c = result_table__add_row(t);
	result_cell__int(&c[0], 2);
	result_cell__text(t, &c[1], "libc.so.6");
	result__add_table(r, "symbols", schema_symbols, SCHEMA_NR(schema_symbols), &t);
	for (i = 1; i <= 3; i++) {
		static const char *const names[] = { "", "main", "loop", "memcpy" };

		c = result_table__add_row(t);
		result_cell__int(&c[0], (int64_t)i);
		result_cell__int(&c[1], i == 3 ? 2 : 1);
		result_cell__text(t, &c[2], names[i]);
		result_cell__int(&c[3], i == 3 ? 0x5000 : 0x1000 + 0x100 * (int64_t)(i - 1));
	}
	result__add_table(r, "blocks", schema_blocks, SCHEMA_NR(schema_blocks), &t);
	for (i = 1; i <= 3; i++) {
		double exec = 0, batch[SCHEMA_BATCHES] = { 0 };
		size_t k;

		for (k = 0; k < nr_tbs; k++)	/* the blocks' sums of their thread blocks */
			if (tbs[k].block == (int)i) {
				exec += tbs[k].count;
				batch[tbs[k].tid % 10] += tbs[k].count;
			}
		c = result_table__add_row(t);
		result_cell__int(&c[0], (int64_t)i);
		result_cell__int(&c[1], i == 3 ? 2 : 1);
		result_cell__int(&c[2], (int64_t)i);
		result_cell__int(&c[3], i == 3 ? 0x5010 : 0x1000 + 0x100 * (int64_t)(i - 1));
		result_cell__int(&c[4], length[i]);
		result_cell__real(&c[7], exec);
		result_cell__text(t, &c[12], "lbr");
		result_cell__real(&c[17], exec * (double)length[i]);
		for (k = 0; k < SCHEMA_BATCHES; k++)
			result_cell__real(&c[SCHEMA_BLOCKS_BATCH0 + k], batch[k]);
	}
	result__add_table(r, "instructions", schema_instructions,
			  SCHEMA_NR(schema_instructions), &t);
	for (i = 0; i < sizeof(insns) / sizeof(insns[0]); i++) {
		c = result_table__add_row(t);
		result_cell__int(&c[0], insns[i].block);
		result_cell__text(t, &c[4], insns[i].mnemonic);
		result_cell__text(t, &c[6], insns[i].isa);
		result_cell__text(t, &c[7], insns[i].category);
	}
	result__add_table(r, "thread_blocks", schema_thread_blocks,
			  SCHEMA_NR(schema_thread_blocks), &t);
	for (i = 0; i < nr_tbs; i++) {
		c = result_table__add_row(t);
		result_cell__int(&c[0], 10);
		result_cell__int(&c[1], tbs[i].tid);
		result_cell__text(t, &c[2], "prog");
		result_cell__int(&c[3], tbs[i].block);
		result_cell__real(&c[4], tbs[i].count);
		/* the whole count in batch tid % 10, the other batches 0 */
		for (size_t b = 0; b < SCHEMA_BATCHES; b++)
			result_cell__real(&c[SCHEMA_TB_BATCH0 + b],
					  b == (size_t)tbs[i].tid % 10 ? tbs[i].count : 0);
	}
	result__add_table(r, "mix", extra_mix_col == 2 ? mix_int : extra_mix_col ? mix3 : mix2,
			  extra_mix_col == 1 ? 4 : 3, &t);
	c = result_table__add_row(t);
	result_cell__text(t, &c[0], "vaddps");
	return r;
}

static const struct tb run1[] = { { 10, 1, 10 }, { 10, 2, 100 }, { 11, 2, 50 }, { 11, 3, 20 } };
static const struct tb run2[] = { { 12, 3, 5 } };

/* Runs sql and returns its rows as one string: columns '|'-separated, rows '\n'-ended,
 * reals with %.6g (the expectations above are exact fractions). */
static char *query(const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	int i;

	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(f, "error: %s", sqlite3_errmsg(db));
		goto out;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (i = 0; i < sqlite3_column_count(st); i++) {
			if (i)
				fputc('|', f);
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_FLOAT:
				fprintf(f, "%.6g", sqlite3_column_double(st, i));
				break;
			case SQLITE_NULL:
				fputs("NULL", f);
				break;
			default:
				fputs((const char *)sqlite3_column_text(st, i), f);
			}
		}
		fputc('\n', f);
	}
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	fclose(f);
	return out;
}

#define CHECK_QUERY(sql, expect) do {						\
	char *q_ = query(sql);							\
	CHECK_STR(q_, expect);							\
	free(q_);								\
} while (0)

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len + 1);
	if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	*n = (size_t)len;
	fclose(f);
	return buf;
}

static void test_writer_sqlite_views(void)
{
	struct result *r = build(run1, 4, 0);

	CHECK(writer__write(r, db_path, WRITER_SQLITE, NULL) == 0);
	result__delete(r);
	CHECK_QUERY("PRAGMA user_version", "3\n");
	CHECK_QUERY("SELECT run_id, format_version FROM runs", "1|3\n");
	CHECK_QUERY("SELECT run_id, key, value, typeof(value) FROM run_meta ORDER BY key",
		    "1|cutoff|18|integer\n1|file|hand.data|text\n"
		    "1|mix_columns|mnemonic,count,share|text\n1|scale|1.25|real\n");
	CHECK_QUERY("SELECT * FROM warnings", "1|0|first warning\n");
	CHECK_QUERY("SELECT * FROM mix", "1|vaddps|NULL|NULL\n");
	CHECK_QUERY("SELECT run_id, mnemonic, count, share * 670 FROM mix_by_mnemonic",
		    "1|vaddps|300|300\n1|cmp|150|150\n1|jne|150|150\n1|mov|30|30\n"
		    "1|ret|20|20\n1|add|10|10\n1|jmp|10|10\n");
	CHECK_QUERY("SELECT * FROM mix_by_mnemonic LIMIT 1",
		    "1|vaddps|300|0|782.829|0.447761\n");
	/* intervals by hand (batch means, K = 10, t(9) = 2.26215716): vaddps 300 = 2 x (100 in
	 * batch 0 + 50 in batch 1): batch estimates 2000, 1000, 0 x8 around 300, deviations
	 * 1700, 700, -300 x8: half width 2.26215716 * sqrt(4.1e6 / 90) = 482.829111;
	 * add 10 (one block, batch 0): [0, 10 * (1 + t)] = [0, 32.621572]; cmp 150 = 100 in
	 * batch 0 + 50 in batch 1: half = t * sqrt((850^2 + 350^2 + 8 * 150^2) / 90) */
	CHECK_QUERY("SELECT mnemonic, count_lo, round(count_hi * 1000) FROM mix_by_mnemonic"
		    " WHERE mnemonic IN ('add', 'cmp', 'vaddps') ORDER BY mnemonic",
		    "add|0|32622\ncmp|0|391415\nvaddps|0|782829\n");
	CHECK_QUERY("SELECT run_id, isa, count, share * 670 FROM mix_by_isa",
		    "1|base|370|370\n1|avx|300|300\n");
	CHECK_QUERY("SELECT run_id, category, count, share * 670 FROM mix_by_category",
		    "1|simd|300|300\n1|branch|180|180\n1|arith|160|160\n1|data|30|30\n");
	CHECK_QUERY("SELECT run_id, module, symbol, count, share * 670 FROM mix_by_function",
		    "1|prog|loop|600|600\n1|libc.so.6|memcpy|40|40\n1|prog|main|30|30\n");
	CHECK_QUERY("SELECT run_id, pid, tid, comm, count, share * 670 FROM mix_by_thread",
		    "1|10|10|prog|430|430\n1|10|11|prog|240|240\n");
	CHECK_QUERY("SELECT run_id, block_id, module, module_path, symbol, symbol_offset"
		    " FROM block_detail ORDER BY block_id",
		    "1|1|prog|/usr/bin/prog|main|0\n1|2|prog|/usr/bin/prog|loop|0\n"
		    "1|3|libc.so.6|NULL|memcpy|16\n");
	CHECK_QUERY("SELECT count(*) FROM sqlite_schema WHERE type = 'index'"
		    " AND name NOT LIKE 'sqlite_autoindex%'", "5\n");
	CHECK_QUERY("SELECT count(*) FROM events", "0\n");	/* created though empty */
}

static void test_writer_sqlite_append(void)
{
	struct writer_opts app = { .append = true };
	struct result *r = build(run2, 1, 0);
	struct stat st;

	CHECK(chmod(db_path, 0640) == 0);
	CHECK(writer__write(r, db_path, WRITER_SQLITE, &app) == 0);
	result__delete(r);
	CHECK(stat(db_path, &st) == 0 && (st.st_mode & 0777) == 0640);	/* mode kept */
	CHECK_QUERY("SELECT run_id FROM runs", "1\n2\n");
	CHECK_QUERY("SELECT run_id, count(*) FROM run_meta GROUP BY run_id", "1|4\n2|4\n");
	CHECK_QUERY("SELECT run_id, count(*) FROM instructions GROUP BY run_id", "1|9\n2|9\n");
	CHECK_QUERY("SELECT run_id, mnemonic, count, share FROM mix_by_mnemonic WHERE run_id = 2",
		    "2|mov|5|0.5\n2|ret|5|0.5\n");
	CHECK_QUERY("SELECT run_id, sum(share) FROM mix_by_mnemonic GROUP BY run_id",
		    "1|1\n2|1\n");
	CHECK_QUERY("SELECT * FROM mix_by_thread WHERE run_id = 2",
		    "2|10|12|prog|10|0|32.6216|1\n");
}

/* A run of other mix columns is added (the mix gets its column); failures: the previous
 * database stays byte for byte, and nothing else is left. */
static void test_writer_sqlite_append_failures(void)
{
	struct writer_opts app = { .append = true };
	struct result *r = build(run2, 1, 1);	/* mix with another column set */
	char *before, *after, junk[160];
	size_t n1 = 0, n2 = 0;
	sqlite3 *db;
	FILE *f;

	CHECK(writer__write(r, db_path, WRITER_SQLITE, &app) == 0);
	result__delete(r);
	CHECK_QUERY("SELECT run_id, value FROM run_meta WHERE key = 'mix_columns'",
		    "1|mnemonic,count,share\n2|mnemonic,count,share\n"
		    "3|mnemonic,isa,count,share\n");
	CHECK_QUERY("SELECT group_concat(name) FROM pragma_table_info('mix')",
		    "run_id,mnemonic,count,share,isa\n");
	r = build(run2, 1, 2);			/* a mix column of another type */
	before = slurp(db_path, &n1);
	CHECK(writer__write(r, db_path, WRITER_SQLITE, &app) == -HBBP_EFORMAT);
	after = slurp(db_path, &n2);
	CHECK(before && after && n1 == n2 && !memcmp(before, after, n1));
	free(after);
	result__delete(r);

	/* A database of another schema version. */
	snprintf(junk, sizeof(junk), "%s/other.db", dir);
	CHECK(sqlite3_open(junk, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "PRAGMA user_version = 7; CREATE TABLE t (x);", NULL, NULL,
			   NULL) == SQLITE_OK);
	sqlite3_close(db);
	r = build(run2, 1, 0);
	CHECK(writer__write(r, junk, WRITER_SQLITE, &app) == -HBBP_EFORMAT);
	unlink(junk);

	/* A file that is not a database. */
	snprintf(junk, sizeof(junk), "%s/text.db", dir);
	f = fopen(junk, "w");
	CHECK(f != NULL);
	if (f) {
		for (n2 = 0; n2 < 300; n2++)
			fputs("this is not an sqlite database\n", f);
		fclose(f);
	}
	CHECK(writer__write(r, junk, WRITER_SQLITE, &app) == -HBBP_EFORMAT);
	after = slurp(junk, &n2);
	CHECK(after && n2 == 300 * 31 && !memcmp(after, "this is not", 11));
	free(after);
	unlink(junk);

	/* Without --append an existing database is not replaced; with --force it is, by a
	 * one-run database. */
	CHECK(writer__write(r, db_path, WRITER_SQLITE, NULL) == -HBBP_EUSAGE);
	after = slurp(db_path, &n2);
	CHECK(after && n1 == n2 && !memcmp(before, after, n1));
	free(after);
	CHECK(writer__write(r, db_path, WRITER_SQLITE, &(struct writer_opts){ .force = true }) == 0);
	CHECK_QUERY("SELECT run_id FROM runs", "1\n");
	CHECK_QUERY("SELECT count(*) FROM instructions", "9\n");
	result__delete(r);
	free(before);
}

/* A database whose runs table has the first version's three columns: the append adds the
 * others. */
static void test_writer_sqlite_runs_v1(void)
{
	struct writer_opts app = { .append = true };
	struct result *r = build(run2, 1, 0);
	char saved[sizeof(db_path)];
	sqlite3 *db;

	memcpy(saved, db_path, sizeof(saved));
	snprintf(db_path, sizeof(db_path), "%s/v1.db", dir);
	CHECK(sqlite3_open(db_path, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "PRAGMA user_version = 3; CREATE TABLE runs (run_id INTEGER"
			   " PRIMARY KEY, created TEXT NOT NULL, format_version INTEGER NOT NULL)",
			   NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	CHECK(writer__write(r, db_path, WRITER_SQLITE, &app) == 0);
	CHECK_QUERY("SELECT group_concat(name || ' ' || type) FROM pragma_table_info('runs')",
		    "run_id INTEGER,created TEXT,format_version INTEGER,label TEXT,host TEXT,"
		    "recorded TEXT,perf_version TEXT,file TEXT\n");
	CHECK_QUERY("SELECT run_id, format_version FROM runs", "1|3\n");
	unlink(db_path);
	memcpy(db_path, saved, sizeof(saved));
	result__delete(r);
}

/* Schema tables must have the columns of schema.h and the stores' own names are reserved,
 * in both stores (writers/sql_schema.c). */
static void test_writer_sqlite_bad_results(void)
{
	static const char *const bad_blocks[] = { "block_id:int", "count:real" };
	static const char *const cols[] = { "x:int" };
	static const char *const reserved[] = {
		"runs", "run_meta", "Warnings", "format_version", "sqlite_x", "SQLITE_stat1",
		"pg_x", "mix_by_isa", "block_detail", "blocks_block", "RUNS",
	};
	char path[160];
	struct result *r;
	size_t i;

	snprintf(path, sizeof(path), "%s/bad.db", dir);
	CHECK(result__new(&r) == 0);
	CHECK(result__add_table(r, "blocks", bad_blocks, 2, NULL) == 0);
	CHECK(writer__write(r, path, WRITER_SQLITE, NULL) == -EINVAL);
	CHECK(writer__write(r, "postgresql:///nowhere?host=/nonexistent", WRITER_POSTGRES, NULL) ==
	      -EINVAL);
	result__delete(r);
	/* the names of both stores' own tables, views and indexes, in any case; PostgreSQL
	 * refuses them before it connects */
	for (i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
		CHECK(result__new(&r) == 0);
		CHECK(result__add_table(r, reserved[i], cols, 1, NULL) == 0);
		CHECK(writer__write(r, path, WRITER_SQLITE, NULL) == -EINVAL);
		CHECK(writer__write(r, "postgresql:///nowhere?host=/nonexistent", WRITER_POSTGRES,
				    NULL) == -EINVAL);
		result__delete(r);
	}
	CHECK(access(path, F_OK) != 0);
	/* A table of any other name is written with its own columns. */
	CHECK(result__new(&r) == 0);
	CHECK(result__add_table(r, "my \"odd\" table", cols, 1, NULL) == 0);
	result_cell__int(result_table__add_row(result__table(r, "my \"odd\" table")), 42);
	CHECK(writer__write(r, path, WRITER_SQLITE, NULL) == 0);
	result__delete(r);
	snprintf(db_path, sizeof(db_path), "%s", path);
	CHECK_QUERY("SELECT * FROM \"my \"\"odd\"\" table\"", "1|42\n");
	unlink(path);
}

/* A table made as it is read (result_table__rows_from): row r is n = 3r, h = r/2 (NULL,
 * NaN, where 7 divides r) and s = "r<r>" from one buffer the next row overwrites (NULL
 * where 5 divides r). */
static char fill_text[32];

static void fill_row(void *ctx, size_t row, struct result_cell *c)
{
	result_cell__int(&c[0], (int64_t)row * 3);
	result_cell__real(&c[1], row % 7 ? (double)row / 2 : NAN);
	snprintf(fill_text, sizeof(fill_text), "r%zu", row);
	if (row % 5)
		c[2] = (struct result_cell){ .type = RES_TEXT, .s = fill_text };
}

static void test_writer_sqlite_rows_made_as_read(void)
{
	static const char *const cols[] = { "n:int", "h:real", "s:text" };
	struct result *r;
	struct result_table *t;

	unlink(db_path);
	CHECK(result__new(&r) == 0);
	CHECK(result__add_table(r, "made", cols, 3, &t) == 0);
	CHECK(result_table__rows_from(t, 1000, fill_row, NULL, NULL) == 0);
	CHECK(writer__write(r, db_path, WRITER_SQLITE, NULL) == 0);
	result__delete(r);
	/* Σ 3r = 3 * 999 * 1000 / 2; 1000 - 143 multiples of 7, Σ r over the others
	 * 499500 - 7 * 142 * 143 / 2 = 428429; 1000 - 200 multiples of 5 */
	CHECK_QUERY("SELECT COUNT(*), SUM(n), COUNT(h), SUM(h * 2), COUNT(s), MIN(run_id),"
		    " MAX(run_id) FROM made", "1000|1498500|857|428429|800|1|1\n");
	CHECK_QUERY("SELECT n, h, s FROM made WHERE n IN (0, 369, 1500, 2997) ORDER BY n",
		    "0|NULL|NULL\n369|61.5|r123\n1500|250|NULL\n2997|499.5|r999\n");
	unlink(db_path);
}

int main(void)
{
	char cmd[128];
	int rc;

	snprintf(dir, sizeof(dir), "%s/wsql.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		printf("FAIL mkdtemp\n");
		return 1;
	}
	snprintf(db_path, sizeof(db_path), "%s/out.db", dir);
	RUN_TEST(test_writer_sqlite_views);
	RUN_TEST(test_writer_sqlite_append);
	RUN_TEST(test_writer_sqlite_append_failures);
	RUN_TEST(test_writer_sqlite_runs_v1);
	RUN_TEST(test_writer_sqlite_bad_results);
	RUN_TEST(test_writer_sqlite_rows_made_as_read);
	unlink(db_path);
	snprintf(db_path, sizeof(db_path), "%s/out.db", dir);
	unlink(db_path);
	rc = rmdir(dir);	/* fails if a temporary file was left behind */
	if (rc) {
		snprintf(cmd, sizeof(cmd), "ls -la %s >&2", dir);
		if (system(cmd) == -1)
			perror("system");
		printf("FAIL no files left behind\n");
		return 1;
	}
	printf("PASS no files left behind\n");
	return TEST_EXIT();
}
