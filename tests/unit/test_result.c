/* Unit tests of the result model (writers/result.c): column specs, typed cells, string
 * interning, metadata replacement, warnings, and growth to a million rows.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/harness.h"
#include "writers/result.h"

static void test_result_tables(void)
{
	static const char *const cols[] = { "name:text", "n:int", "x:real" };
	static const char *const bad_type[] = { "name:txt" };
	static const char *const no_type[] = { "name" };
	static const char *const dup[] = { "a:int", "a:real" };
	struct result *r;
	struct result_table *t = NULL, *u = NULL;
	struct result_cell *c;

	CHECK(result__new(&r) == 0);
	CHECK(result__add_table(r, "mix", cols, 3, &t) == 0);
	CHECK(t && t->nr_cols == 3 && t->nr_rows == 0);
	CHECK_STR(t->cols[0].name, "name");
	CHECK(t->cols[0].type == RES_TEXT && t->cols[1].type == RES_INT &&
	      t->cols[2].type == RES_REAL);
	CHECK(result__add_table(r, "mix", cols, 3, &u) == -EINVAL);	/* duplicate name */
	CHECK(result__add_table(r, "b", bad_type, 1, &u) == -EINVAL);
	CHECK(result__add_table(r, "b", no_type, 1, &u) == -EINVAL);
	CHECK(result__add_table(r, "b", dup, 2, &u) == -EINVAL);
	CHECK(result__add_table(r, "b", cols, 0, &u) == -EINVAL);
	CHECK(r->nr_tables == 1);
	CHECK(result__table(r, "mix") == t);
	CHECK(result__table(r, "nope") == NULL);
	CHECK(result_table__col(t, "x") == 2);
	CHECK(result_table__col(t, "y") == -1);

	c = result_table__add_row(t);
	CHECK(c != NULL);
	CHECK(c[0].type == RES_NULL && c[1].type == RES_NULL && c[2].type == RES_NULL);
	CHECK(result_cell__text(t, &c[0], "mov") == 0);
	result_cell__int(&c[1], -42);
	result_cell__real(&c[2], 0.25);
	CHECK(c[0].type == RES_TEXT);
	CHECK_STR(c[0].s, "mov");
	CHECK(c[1].type == RES_INT && c[1].i == -42);
	CHECK(c[2].type == RES_REAL && c[2].d == 0.25);
	CHECK(result_cell__num(&c[1]) == -42 && result_cell__num(&c[2]) == 0.25);
	CHECK(isnan(result_cell__num(&c[0])) && isnan(result_cell__num(NULL)));
	CHECK(result_cell__text(t, &c[0], NULL) == 0 && c[0].type == RES_NULL);
	CHECK(isnan(result_cell__num(&c[0])));

	/* another table's columns, after a first one */
	CHECK(result__add_table_from(r, "runs", "run:text", t, &u) == 0);
	CHECK(u && u->nr_cols == 4 && u->nr_rows == 0);
	CHECK_STR(u->cols[0].name, "run");
	CHECK_STR(u->cols[1].name, "name");
	CHECK_STR(u->cols[3].name, "x");
	CHECK(u->cols[0].type == RES_TEXT && u->cols[1].type == RES_TEXT &&
	      u->cols[2].type == RES_INT && u->cols[3].type == RES_REAL);
	CHECK(result__add_table_from(r, "copy", NULL, t, &u) == 0 && u->nr_cols == 3 &&
	      u->cols[2].type == RES_REAL);
	CHECK(result__add_table_from(r, "c2", "x:int", t, &u) == -EINVAL);	/* x twice */
	CHECK(result__add_table_from(r, "c3", "x", t, &u) == -EINVAL);
	result__delete(r);
	result__delete(NULL);
}

static void test_result_meta_warnings(void)
{
	struct result *r;

	CHECK(result__new(&r) == 0);
	CHECK(result__meta_text(r, "file", "a.data") == 0);
	CHECK(result__meta_int(r, "cutoff", 18) == 0);
	CHECK(result__meta_real(r, "scale", 1.5) == 0);
	CHECK(result__meta_text(r, "file", "b.data") == 0);	/* replaces, keeps position */
	CHECK(result__meta_text(r, "", "x") == -EINVAL);
	CHECK(r->nr_meta == 3);
	CHECK_STR(r->meta[0].key, "file");
	CHECK_STR(r->meta[0].val.s, "b.data");
	CHECK(r->meta[1].val.type == RES_INT && r->meta[1].val.i == 18);
	CHECK(r->meta[2].val.type == RES_REAL && r->meta[2].val.d == 1.5);
	CHECK(result__warn(r, "lost %d samples", 7) == 0);
	CHECK(result__warn(r, "%s", "second") == 0);
	CHECK(r->nr_warnings == 2);
	CHECK_STR(r->warnings[0], "lost 7 samples");
	CHECK_STR(r->warnings[1], "second");
	result__delete(r);
}

/* A million rows: cells keep their values across reallocation and equal strings share
 * one pooled copy. */
static void test_result_million_rows(void)
{
	static const char *const cols[] = { "mnemonic:text", "i:int", "count:real" };
	static const char *const names[] = { "mov", "add", "vfmadd231ps", "ret" };
	struct result *r;
	struct result_table *t;
	size_t i, n = 1000000, bad = 0;
	char buf[32];

	CHECK(result__new(&r) == 0);
	CHECK(result__add_table(r, "mix", cols, 3, &t) == 0);
	for (i = 0; i < n; i++) {
		struct result_cell *c = result_table__add_row(t);

		if (!c) {
			bad++;
			break;
		}
		/* A fresh buffer each time: interning must not keep the caller's pointer. */
		snprintf(buf, sizeof(buf), "%s", names[i % 4]);
		if (result_cell__text(t, &c[0], buf))
			bad++;
		result_cell__int(&c[1], (int64_t)i);
		result_cell__real(&c[2], (double)i / 4);
	}
	CHECK(bad == 0);
	CHECK(t->nr_rows == n);
	for (i = 0; i < n; i += 7919) {
		const struct result_cell *c = &t->cells[i * 3];

		if (strcmp(c[0].s, names[i % 4]) || c[1].i != (int64_t)i || c[2].d != (double)i / 4)
			bad++;
	}
	CHECK(bad == 0);
	CHECK(t->cells[0].s == t->cells[4 * 3].s);	/* one copy of "mov" */
	CHECK(t->cells[0].s != t->cells[1 * 3].s);
	result__delete(r);
}

/* Many distinct strings (pool rehashing) and one longer than a pool chunk. */
static void test_result_pool_growth(void)
{
	static const char *const cols[] = { "s:text" };
	struct result *r;
	struct result_table *t;
	size_t i, bad = 0, big = 200 * 1024;
	char buf[32], *huge = malloc(big + 1);

	CHECK(huge != NULL);
	if (!huge)
		return;
	memset(huge, 'x', big);
	huge[big] = '\0';
	CHECK(result__new(&r) == 0);
	CHECK(result__add_table(r, "t", cols, 1, &t) == 0);
	for (i = 0; i < 50000; i++) {
		struct result_cell *c = result_table__add_row(t);

		snprintf(buf, sizeof(buf), "sym_%zu", i);
		if (!c || result_cell__text(t, c, buf))
			bad++;
	}
	CHECK(result_cell__text(t, result_table__add_row(t), huge) == 0);
	CHECK(result_cell__text(t, result_table__add_row(t), "after") == 0);
	for (i = 0; i < 50000; i++) {
		snprintf(buf, sizeof(buf), "sym_%zu", i);
		if (strcmp(t->cells[i].s, buf))
			bad++;
	}
	CHECK(bad == 0);
	CHECK(strlen(t->cells[50000].s) == big);
	CHECK_STR(t->cells[50001].s, "after");
	result__delete(r);
	free(huge);
}

/* Two strings of one FNV-1a hash (0x6f0e8e2891aeec4a, found by a cycle search over
 * 11-character strings): each keeps a pooled copy of its own, found again by either order. */
static void test_result_pool_collision(void)
{
	static const char *const cols[] = { "s:text" };
	static const char *const s[2] = { "IFLohcEocmD", "TmsdRFIfd2F" };
	struct result *r;
	struct result_table *t;
	struct result_cell c[4];
	int k, i;

	for (k = 0; k < 2; k++) {
		CHECK(result__new(&r) == 0);
		CHECK(result__add_table(r, "t", cols, 1, &t) == 0);
		for (i = 0; i < 4; i++) {
			char buf[16];

			snprintf(buf, sizeof(buf), "%s", s[(i + k) % 2]);
			CHECK(result_cell__text(t, &c[i], buf) == 0);
		}
		CHECK_STR(c[0].s, s[k]);
		CHECK_STR(c[1].s, s[1 - k]);
		CHECK(c[0].s != c[1].s && c[2].s == c[0].s && c[3].s == c[1].s);
		result__delete(r);
	}
}

/* a table made a row at a time: row r is (names[r % 2], r * 10, NULL) */
static const char *const fill_names[] = { "mov", "add" };

static void fill_row(void *ctx, size_t r, struct result_cell *c)
{
	(*(int *)ctx)++;
	c[0].type = RES_TEXT;
	c[0].s = fill_names[r % 2];
	result_cell__int(&c[1], (int64_t)r * 10);
}

static void fill_release(void *ctx)
{
	*(int *)ctx = -1;
}

static void test_result_rows_from(void)
{
	static const char *const cols[] = { "name:text", "n:int", "x:real" };
	struct result *r;
	struct result_table *t = NULL;
	struct result_cell *c;
	int made = 0;

	CHECK(result__new(&r) == 0);
	CHECK(result__add_table(r, "mix", cols, 3, &t) == 0);
	CHECK(result_table__rows_from(t, 1000000, fill_row, fill_release, &made) == 0);
	CHECK(t->nr_rows == 1000000 && made == 0);
	c = result_table__row(t, 999999);
	CHECK(made == 1 && c[0].type == RES_TEXT && !strcmp(c[0].s, "add"));
	CHECK(c[1].type == RES_INT && c[1].i == 9999990 && c[2].type == RES_NULL);
	c[2].type = RES_INT;	/* a reader's change is not kept */
	c = result_table__row(t, 2);
	CHECK(made == 2 && !strcmp(c[0].s, "mov") && c[1].i == 20 && c[2].type == RES_NULL);
	CHECK(result_table__add_row(t) == NULL && t->nr_rows == 1000000);
	result__delete(r);
	CHECK(made == -1);	/* released with the table */
}

int main(void)
{
	RUN_TEST(test_result_tables);
	RUN_TEST(test_result_meta_warnings);
	RUN_TEST(test_result_million_rows);
	RUN_TEST(test_result_pool_growth);
	RUN_TEST(test_result_pool_collision);
	RUN_TEST(test_result_rows_from);
	return TEST_EXIT();
}
