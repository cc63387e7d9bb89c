/* writer__write(): picks the format's ops table, creates the temporary output next to the
 * target (writers/outfile.c), runs open -> begin/row/end per table -> close under the "C"
 * locale, and renames the result into place only when every step succeeded. Every failure
 * is logged once with the path and the step and returned as a negative errno / -HBBP_E*.
 * Depends on writers/ and util/hbbp_err.h only.
 */
#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/hbbp_err.h"
#include "writers/outfile.h"
#include "writers/writer.h"
#include "writers/writer_int.h"

static const struct {
	const char *name;
	enum writer_format fmt;
} format_names[] = {
	{ "csv", WRITER_CSV },
	{ "json", WRITER_JSON },
	{ "jsonl", WRITER_JSONL },
	{ "ndjson", WRITER_JSONL },
	{ "sqlite", WRITER_SQLITE },
	{ "sqlite3", WRITER_SQLITE },
	{ "db", WRITER_SQLITE },
};

enum writer_format writer_format_from_name(const char *name)
{
	size_t i;

	if (!name)
		return WRITER_NONE;
	for (i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (!strcasecmp(name, format_names[i].name))
			return format_names[i].fmt;
	return WRITER_NONE;
}

enum writer_format writer_format_from_path(const char *path)
{
	const char *slash, *dot;

	if (!path)
		return WRITER_NONE;
	slash = strrchr(path, '/');
	dot = strrchr(slash ? slash + 1 : path, '.');
	return dot && dot[1] ? writer_format_from_name(dot + 1) : WRITER_NONE;
}

static const struct writer_ops *writer__ops(enum writer_format fmt)
{
	switch (fmt) {
	case WRITER_CSV: return &csv_writer_ops;
	case WRITER_JSON: return &json_writer_ops;
	case WRITER_JSONL: return &jsonl_writer_ops;
	case WRITER_SQLITE: return &sqlite_writer_ops;
	case WRITER_NONE: break;
	}
	return NULL;
}

int writer__close_flush(struct writer_ctx *w, bool ok)
{
	return ok ? wbuf__flush(w->out) : 0;
}

bool writer_format_writes_table(enum writer_format fmt, const char *name)
{
	const struct writer_ops *ops = writer__ops(fmt);
	size_t i;

	if (!ops)
		return false;
	if (!ops->tables)
		return true;
	for (i = 0; ops->tables[i]; i++)
		if (!strcmp(ops->tables[i], name))
			return true;
	return false;
}

static int writer__tables(struct writer_ctx *w, const struct writer_ops *ops)
{
	const struct result *r = w->res;
	size_t i, k, nr = ops->tables ? 0 : r->nr_tables;
	int err;

	if (ops->tables)
		while (ops->tables[nr])
			nr++;
	for (i = 0; i < nr; i++) {
		const struct result_table *t = ops->tables ? result__table(r, ops->tables[i])
							   : r->tables[i];

		if (!t)
			continue;
		err = ops->begin(w, t);
		for (k = 0; !err && k < t->nr_rows; k++)
			err = ops->row(w, t, k);
		if (!err)
			err = ops->end(w, t);
		if (err)
			return err;
		w->nr_tables_done++;
	}
	return 0;
}

/* The mode of a new output: an existing target's, else 0666 minus the umask. */
static mode_t writer__mode(const char *target)
{
	struct stat st;
	mode_t mask;

	if (!stat(target, &st) && S_ISREG(st.st_mode))
		return st.st_mode & 07777;
	mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

/* A symlink target is followed, so the link keeps pointing at the new file. */
static char *writer__target(const char *path)
{
	struct stat st;
	char *real;

	if (!lstat(path, &st) && S_ISLNK(st.st_mode) && (real = realpath(path, NULL)))
		return real;
	return strdup(path);
}

static int writer__run(struct writer_ctx *w, const struct writer_ops *ops)
{
	int err = ops->open(w);

	if (!err)
		err = writer__tables(w, ops);
	if (err) {
		ops->close(w, false);
		return err;
	}
	return ops->close(w, true);
}

int writer__write(const struct result *res, const char *path, enum writer_format fmt,
		  const struct writer_opts *opts)
{
	static const struct writer_opts defaults;
	const struct writer_ops *ops = writer__ops(fmt);
	struct writer_ctx w = { 0 };
	struct wbuf *out = NULL;
	locale_t cloc, oldloc = (locale_t)0;
	char *target = NULL, *tmp = NULL;
	int err, fd = -1;

	if (!res || !path || !*path || !ops) {
		pr_err("%s: no output format or nothing to write", path ? path : "(null)");
		return -EINVAL;
	}
	if (!opts)
		opts = &defaults;
	if (ops->sqlite && !strcmp(path, "-")) {
		pr_err("SQLite output cannot go to stdout: give a file name with -o");
		return -HBBP_EUSAGE;
	}
	if (opts->append && !ops->sqlite) {
		pr_err("%s: --append needs SQLite output", path);
		return -HBBP_EUSAGE;
	}
	cloc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (cloc)
		oldloc = uselocale(cloc);
	err = outfile__signals_begin();
	if (err)
		goto out;
	if (!ops->sqlite) {
		out = malloc(sizeof(*out));
		if (!out) {
			err = -ENOMEM;
			goto out;
		}
	}
	if (!strcmp(path, "-")) {
		fd = STDOUT_FILENO;
		target = strdup("(stdout)");
	} else {
		target = writer__target(path);
	}
	if (!target) {
		err = -ENOMEM;
		goto out;
	}
	if (fd < 0) {
		err = outfile__create(target, writer__mode(target), &tmp, &fd);
		if (err) {
			pr_err("%s: cannot create a temporary file in its directory: %s", target,
			       hbbp_strerror(err));
			goto out;
		}
	}
	if (out)
		wbuf__init(out, fd);
	w.res = res;
	w.opts = opts;
	w.path = target;
	w.tmp_path = tmp;
	w.fd = fd;
	w.precision = opts->precision;
	w.out = out;
	err = writer__run(&w, ops);
	if (err) {
		if (!w.logged)
			pr_err("%s: writing %s output failed: %s", target, ops->name,
			       hbbp_strerror(err));
		if (tmp)
			outfile__abandon(tmp, fd);
		goto out;
	}
	if (tmp) {
		err = outfile__commit(tmp, fd, target);
		if (err)
			pr_err("%s: finishing the output failed: %s", target, hbbp_strerror(err));
	}
out:
	outfile__signals_end();
	if (cloc) {
		uselocale(oldloc);
		freelocale(cloc);
	}
	free(out);
	free(tmp);
	free(target);
	return err;
}
