/* Run-to-run difference of two instruction mixes (hbbp-convert diff): the rows of two pivot
 * tables joined by their keys, each with both counts, their ratio and whether the difference
 * is beyond the sampling noise of both runs, judged from the rows' 95% intervals
 * (count_lo/count_hi, method.md §10). Also reads one run of our SQLite output as a table.
 * Depends on writers/result.h, sqlite3 and libc; never prints (errors through hbbp_log).
 */
#ifndef HBBP_DIFF_H
#define HBBP_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "writers/result.h"

/* The significance rule. a, b: the two estimates with their 95% intervals [a_lo, a_hi] and
 * [b_lo, b_hi]. The difference is significant when it exceeds the two runs' margins on the
 * sides that face each other, added in quadrature (independent runs):
 *   a > b:  a - b > sqrt((a - a_lo)^2 + (b_hi - b)^2)    (and symmetrically for a < b)
 * which, for symmetric normal intervals, is the two-sample test at 95%. Returns 1 or 0, or
 * -1 when an interval is missing (NaN) or does not contain its estimate. */
int diff__significant(double a, double a_lo, double a_hi, double b, double b_lo, double b_hi);

struct diff_opts {
	bool shares;			/* compare count / total (intervals scaled alike) */
	const char *value;		/* the column compared, "count" (NULL) or "cycles": its
					 * _lo/_hi are its interval, the output's columns are
					 * named after it (cycles_a, ...) */
};

struct diff_stats {
	size_t nr_rows;
	size_t nr_significant;
	size_t nr_undecided;		/* rows without intervals on a side */
	double total_a, total_b;
	bool intervals;			/* both tables have count_lo/count_hi */
	int lacks;			/* -HBBP_ENOTFOUND: side lacks (0 a, 1 b) the value */
};

/* Joins the pivot tables a and b (key columns: every column but count, count_lo, count_hi,
 * share and the diagnostics; the same key columns in both, else -HBBP_EUSAGE) into a new
 * table name of out: the keys, count_a, count_b, ratio (count_b / count_a, NULL when
 * count_a is 0), significant (1/0, NULL without intervals), then count_a_lo, count_a_hi,
 * count_b_lo, count_b_hi. With opts->shares the counts and intervals are divided by the
 * tables' totals. Rows are sorted significant first, then by the size of the difference
 * (descending), then by the keys. A row on one side only has 0 [0, 0] on the other. */
int diff__tables(struct result *out, const char *name, const struct result_table *a,
		 const struct result_table *b, const struct diff_opts *opts,
		 struct diff_stats *st);

/* Whether a column of a pivot table is a value (not a key). */
bool diff__value_column(const char *name);

struct sqlite3;
/* Reads run run_id of our SQLite output path as a table "mix" of out: its mix, or with keys
 * by (comma-separated; NULL: the mix's) other than its mix's, the run pivoted by them from
 * its blocks (hbbp/compare/stored_run.c: the keys, count, count_lo, count_hi). */
int diff__read_db(struct result *out, const char *path, int64_t run_id, const char *by);
/* Run run_id of the database db (of path) pivoted by keys from its blocks as a table "mix"
 * of out; what the run did not store is refused naming the option that stores it
 * (-HBBP_EUSAGE, logged). */
int diff__pivot_db(struct result *out, struct sqlite3 *db, const char *path, int64_t run_id,
		   const char *keys);

#endif
