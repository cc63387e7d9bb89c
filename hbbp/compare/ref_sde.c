/* Reads Intel SDE -mix output (sde-mix-out.txt) as a reference mix for `compare`.
 *
 * The layout is that of the mix tool SDE shares with Intel Pin (mix-mt): sections opened by a
 * comment "# $NAME" and, for per-thread data, a "# TID n" line; each section lists rows
 * "NAME COUNT [COUNT-PREDICATED-TRUE]" where NAME is a XED iclass (ADD, JNZ, RET_NEAR, ...)
 * or, starting with '*', a group that is not an instruction (*isa-ext-BASE, *category-BINARY,
 * *mem-read-8, ...), and ends with "*total COUNT", the sum of the iclass rows (checked).
 * Sections read: $dynamic-counts (one per thread), "$dynamic-counts-for-function: NAME at
 * [A, B) P%" (per thread and function) and $global-dynamic-counts; $static-counts, top
 * blocks and function-total tables are skipped.
 *
 * Rows have key columns iclass, symbol and tid (SDE's thread number, not the OS tid): one
 * row per (thread, function, iclass), plus, per thread and iclass, what the thread's
 * histogram has beyond its functions' (symbol "[unknown]"), so that any pivot sums to the
 * thread histograms. Without thread sections the global histogram is used (symbol
 * "[unknown]", tid ""); with both, a global count that differs from the sum over threads is
 * reported. Compare by iclass: SDE names XED iclasses, as `hbbp-convert --by iclass` does.
 * Depends on hbbp/compare/ref.h and libc.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/compare/ref.h"
#include "util/hbbp_err.h"

enum sec { SEC_NONE, SEC_THREAD, SEC_FUNC, SEC_GLOBAL, SEC_OTHER };

struct sde {
	const char *path;
	unsigned long line;
	enum sec sec;
	char tid[24];
	char fn[1024];
	double sum;		/* of the iclass rows of the current section */
	bool total_seen;
	struct ref_mix *thr;	/* tid, iclass */
	struct ref_mix *fns;	/* tid, symbol, iclass */
	struct ref_mix *glob;	/* iclass */
	size_t nr_threads, nr_funcs;
};

static int sde_err(const struct sde *s, const char *what, const char *text)
{
	pr_err("%s:%lu: %s%s%.80s%s", s->path, s->line, what, text ? " '" : "",
	       text ? text : "", text ? "'" : "");
	return -HBBP_EFORMAT;
}

static int end_section(struct sde *s)
{
	if (s->sec != SEC_NONE && s->sec != SEC_OTHER && !s->total_seen)
		return sde_err(s, "section ends without '*total'", NULL);
	s->sec = SEC_NONE;
	return 0;
}

static int section(struct sde *s, const char *t)
{
	int err = end_section(s);

	if (err)
		return err;
	s->total_seen = false;
	s->sum = 0;
	snprintf(s->tid, sizeof(s->tid), "0");
	if (!strncmp(t, "$global-dynamic-counts", 22)) {
		s->sec = SEC_GLOBAL;
		s->tid[0] = 0;
	} else if (!strncmp(t, "$dynamic-counts-for-function:", 29)) {
		const char *n = t + 29, *at;
		size_t len;

		while (*n == ' ')
			n++;
		/* the name may hold spaces (C++): it ends at the last " at [" */
		for (at = strstr(n, " at ["); at && strstr(at + 1, " at ["); at = strstr(at + 1, " at ["))
			;
		len = at ? (size_t)(at - n) : strcspn(n, "\r\n");
		if (!len || len >= sizeof(s->fn))
			return sde_err(s, "bad function section title", t);
		memcpy(s->fn, n, len);
		s->fn[len] = 0;
		s->sec = SEC_FUNC;
		s->nr_funcs++;
	} else if (!strncmp(t, "$dynamic-counts", 15) && strspn(t + 15, " \t\r\n") == strlen(t + 15)) {
		s->sec = SEC_THREAD;
		s->nr_threads++;
	} else {
		s->sec = SEC_OTHER;	/* $static-counts and others */
	}
	return 0;
}

static int data_row(struct sde *s, char *line)
{
	char *save = NULL, *name = strtok_r(line, " \t\r\n", &save);
	char *cnt = strtok_r(NULL, " \t\r\n", &save), *end;
	unsigned long long v;

	if (!name || s->sec == SEC_NONE || s->sec == SEC_OTHER)
		return 0;	/* top blocks, function totals, static counts */
	if (!cnt)
		return sde_err(s, "row without a count:", name);
	errno = 0;
	v = strtoull(cnt, &end, 10);
	if (*end || errno || *cnt == '-')
		return sde_err(s, "bad count", cnt);
	if (s->total_seen)
		return sde_err(s, "row after '*total':", name);
	if (!strcmp(name, "*total")) {
		char msg[128];

		if ((double)v != s->sum) {
			snprintf(msg, sizeof(msg), "'*total' %llu but the iclass rows sum to %.0f",
				 v, s->sum);
			return sde_err(s, msg, NULL);
		}
		s->total_seen = true;
		return 0;
	}
	if (*name == '*')
		return 0;	/* a group, not an instruction */
	if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") !=
	    strlen(name))
		return sde_err(s, "not an iclass:", name);
	s->sum += (double)v;
	if (s->sec == SEC_THREAD)
		return ref_mix__add_row(s->thr, (const char *const[]){ s->tid, name }, (double)v);
	if (s->sec == SEC_FUNC)
		return ref_mix__add_row(s->fns, (const char *const[]){ s->tid, s->fn, name },
					(double)v);
	return ref_mix__add_row(s->glob, (const char *const[]){ name }, (double)v);
}

static int sde_parse(struct sde *s, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	int err = 0;

	while (!err && getline(&line, &cap, f) >= 0) {
		char *t = line;

		s->line++;
		if (*t != '#') {
			err = data_row(s, t);
			continue;
		}
		while (*t == '#' || *t == ' ' || *t == '\t')
			t++;
		if (*t == '$')
			err = section(s, t);
		else if (!strncmp(t, "TID ", 4) && s->sec != SEC_NONE) {
			char *end;
			unsigned long tid = strtoul(t + 4, &end, 10);

			if (end == t + 4)
				err = sde_err(s, "bad TID line", t);
			else
				snprintf(s->tid, sizeof(s->tid), "%lu", tid);
		} else if (!strncmp(t, "END", 3))
			err = end_section(s);
	}
	if (!err)
		err = end_section(s);
	free(line);
	return err;
}

/* Builds the result rows from the sections (see the top of the file). */
static int sde_build(struct sde *s, struct ref_mix *m)
{
	static const char *const k_ti[] = { "tid", "iclass" }, *const k_i[] = { "iclass" };
	struct ref_agg thr = { 0 }, fn = { 0 }, ga = { 0 }, ta = { 0 };
	size_t i, j;
	int err = 0;

	for (i = 0; i < s->fns->nr_rows && !err; i++) {
		const char *keys[3] = { s->fns->keys[i * 3 + 2], s->fns->keys[i * 3 + 1],
					s->fns->keys[i * 3] };

		err = ref_mix__add_row(m, keys, s->fns->counts[i]);
	}
	if (!err && !s->thr->nr_rows) {
		/* no thread sections: the global histogram (or the functions alone) */
		for (i = 0; i < s->glob->nr_rows && !err; i++) {
			const char *keys[3] = { s->glob->keys[i], "[unknown]", "" };

			err = ref_mix__add_row(m, keys, s->glob->counts[i]);
		}
		return err;
	}
	if (!err)
		err = ref_mix__aggregate(s->thr, k_ti, 2, &thr);
	if (!err && s->fns->nr_rows)
		err = ref_mix__aggregate(s->fns, k_ti, 2, &fn);
	/* per (tid, iclass): thread count minus its functions' */
	for (i = 0, j = 0; i < thr.nr && !err; i++) {
		double in_fns = 0, rest;

		if (j < fn.nr && strcmp(fn.rows[j].key, thr.rows[i].key) < 0)
			break;	/* a function's (tid, iclass) the threads lack: said below */
		if (j < fn.nr && !strcmp(fn.rows[j].key, thr.rows[i].key))
			in_fns = fn.rows[j++].count;
		rest = thr.rows[i].count - in_fns;
		if (rest < 0) {
			err = sde_err(s, "functions count more than their thread for", thr.rows[i].key);
			break;
		}
		if (rest > 0) {
			char *sep = strchr(thr.rows[i].key, '\x1f');

			*sep = 0;	/* the key: tid, then iclass */
			err = ref_mix__add_row(m, (const char *const[]){ sep + 1, "[unknown]",
							       thr.rows[i].key }, rest);
			*sep = '\x1f';
		}
	}
	if (!err && j < fn.nr)
		err = sde_err(s, "a function counts an iclass its thread does not have:",
			      fn.rows[j].key);
	/* the global histogram, when present, must be the sum over threads */
	if (!err && s->glob->nr_rows) {
		size_t bad = 0;

		err = ref_mix__aggregate(s->glob, k_i, 1, &ga);
		if (!err)
			err = ref_mix__aggregate(s->thr, k_i + 0, 1, &ta);
		for (i = 0; !err && i < ga.nr; i++) {
			for (j = 0; j < ta.nr && strcmp(ta.rows[j].key, ga.rows[i].key); j++)
				;
			if (j == ta.nr || ta.rows[j].count != ga.rows[i].count)
				bad++;
		}
		if (!err && (bad || ga.nr != ta.nr))
			pr_warn("%s: the global histogram differs from the sum of the threads' in "
				"%zu iclasses: the threads' are used", s->path, bad);
	}
	ref_agg__exit(&thr);
	ref_agg__exit(&fn);
	ref_agg__exit(&ga);
	ref_agg__exit(&ta);
	return err;
}

int ref_sde__read(const char *path, struct ref_mix **out)
{
	static const char *const k_thr[] = { "tid", "iclass" },
			  *const k_fn[] = { "tid", "symbol", "iclass" },
			  *const k_gl[] = { "iclass" },
			  *const k_out[] = { "iclass", "symbol", "tid" };
	struct sde s = { .path = path };
	struct ref_mix *m = NULL;
	FILE *f;
	int err = ref_mix__fopen(path, "r", &f);

	if (err)
		return err;
	err = ref_mix__new(path, "sde", k_thr, 2, &s.thr);
	err = err ? err : ref_mix__new(path, "sde", k_fn, 3, &s.fns);
	err = err ? err : ref_mix__new(path, "sde", k_gl, 1, &s.glob);
	err = err ? err : sde_parse(&s, f);
	fclose(f);
	if (!err && !s.thr->nr_rows && !s.glob->nr_rows) {
		pr_err("%s: no $dynamic-counts or $global-dynamic-counts section: not an SDE "
		       "-mix output", path);
		err = -HBBP_EFORMAT;
	}
	err = err ? err : ref_mix__new(path, "sde", k_out, 3, &m);
	err = err ? err : sde_build(&s, m);
	if (!err) {
		char note[160];

		snprintf(note, sizeof(note), "%zu thread sections, %zu function sections%s",
			 s.nr_threads, s.nr_funcs,
			 s.glob->nr_rows ? ", global histogram" : "");
		err = ref_mix__set_note(m, note);
	}
	ref_mix__delete(s.thr);
	ref_mix__delete(s.fns);
	ref_mix__delete(s.glob);
	return ref_mix__finish(m, err, out);
}
