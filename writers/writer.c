/* writer__write(): picks the format's ops table and where the output goes, runs open ->
 * begin/row/end per table -> close under the "C" locale. Where it goes (writer__place):
 *  - a new or replaced file: a temporary file next to the target (writers/outfile.c),
 *    renamed into place only when every step succeeded;
 *  - an existing SQLite database with --append: the database itself, in one transaction;
 *  - a character device or FIFO: written directly (nothing to rename, nothing to destroy);
 *  - stdout ("-"), or a server (PostgreSQL).
 * Refused: an output that is one of the inputs (device and inode, through symlinks), a block
 * device or socket, SQLite into anything but a regular file, an existing file the process
 * may not write (as the shell's '>' would refuse it), and replacing a database that has a
 * -wal or -journal file beside it (in use, or not closed cleanly).
 * Every failure is logged once with the path and the step and returned as a negative errno
 * / -HBBP_E*. Depends on writers/ and util/hbbp_err.h only.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
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
	{ "postgresql", WRITER_POSTGRES },
	{ "postgres", WRITER_POSTGRES },
	{ "pg", WRITER_POSTGRES },
	{ "table", WRITER_TABLE },
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
	if (!strncmp(path, "postgresql://", 13) || !strncmp(path, "postgres://", 11))
		return WRITER_POSTGRES;
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
	case WRITER_POSTGRES: return &pg_writer_ops;
	case WRITER_TABLE: return &table_writer_ops;
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

/* The rows of t. */
static int writer__rows(struct writer_ctx *w, const struct writer_ops *ops,
			const struct result_table *t)
{
	size_t k;
	int err = 0;

	for (k = 0; !err && k < t->nr_rows; k++) {
		err = ops->row(w, t, k);
		if (!err && writer__interrupted())
			err = -EINTR;
	}
	return err;
}

static int writer__tables(struct writer_ctx *w, const struct writer_ops *ops)
{
	const struct result *r = w->res;
	size_t i, nr = ops->tables ? 0 : r->nr_tables;
	int err;

	if (ops->tables)
		while (ops->tables[nr])
			nr++;
	for (i = 0; i < nr; i++) {
		const struct result_table *t = ops->tables ? result__table(r, ops->tables[i])
							   : r->tables[i];

		if (!t)
			continue;
		err = ops->begin ? ops->begin(w, t) : 0;
		if (!err && ops->row)
			err = writer__rows(w, ops, t);
		if (!err && ops->end)
			err = ops->end(w, t);
		if (err)
			return err;
		w->nr_tables_done++;
	}
	return 0;
}

bool writer_format_is_file(enum writer_format fmt)
{
	const struct writer_ops *ops = writer__ops(fmt);

	return ops && !ops->server;
}

bool writer__interrupted(void)
{
	return outfile__pending() != 0;
}

void writer__run_info(const struct writer_ctx *w, const char *info[WRITER_RUN_INFO])
{
	static const char *const meta[WRITER_RUN_INFO] = {
		NULL, "hostname", "recorded", "perf_version", "file",
	};
	size_t i, k;

	info[0] = w->opts->label;
	for (i = 1; i < WRITER_RUN_INFO; i++)
		for (info[i] = NULL, k = 0; k < w->res->nr_meta; k++)
			if (!strcmp(w->res->meta[k].key, meta[i]) &&
			    w->res->meta[k].val.type == RES_TEXT)
				info[i] = w->res->meta[k].val.s;
}

/* Where the output goes. */
enum writer_place {
	PLACE_NEW,		/* a new file: temporary file, then rename (no replace for --append) */
	PLACE_REPLACE,		/* an existing regular file: temporary file, then rename over it */
	PLACE_IN_PLACE,		/* an existing SQLite database with --append */
	PLACE_DIRECT,		/* a character device or FIFO */
};

/* A symlink is followed, so the link keeps pointing at the file (which may not exist yet). */
static char *writer__target(const char *path)
{
	struct stat st;
	char *real;

	if (!lstat(path, &st) && S_ISLNK(st.st_mode) && (real = realpath(path, NULL)))
		return real;
	return strdup(path);
}

/* The input that is the same file as st (a regular file), or NULL. */
static const char *writer__same_input(const struct stat *st, const struct writer_opts *opts)
{
	struct stat in;
	size_t i;

	for (i = 0; i < opts->nr_inputs; i++) {
		const char *p = opts->inputs[i];

		if (!p || (strcmp(p, "-") ? stat(p, &in) : fstat(STDIN_FILENO, &in)))
			continue;
		if (in.st_dev == st->st_dev && in.st_ino == st->st_ino)
			return strcmp(p, "-") ? p : "stdin";
	}
	return NULL;
}

static const char *writer__kind(mode_t m)
{
	return S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ?
	       "a directory" : S_ISCHR(m) ? "a character device" : S_ISFIFO(m) ? "a FIFO" :
	       "not a regular file";
}

/* Decides where the output to target goes, or refuses it (logged). */
static int writer__place(const char *target, const struct writer_ops *ops,
			 const struct writer_opts *opts, enum writer_place *place, mode_t *mode)
{
	static const char *const sidecars[] = { "-wal", "-journal" };
	struct stat st;
	const char *in;
	mode_t mask;
	size_t i;

	if (stat(target, &st)) {
		if (errno != ENOENT) {
			int err = -errno;

			pr_err("%s: %s", target, hbbp_strerror(err));
			return err;
		}
		mask = umask(0);
		umask(mask);
		*mode = 0666 & ~mask;
		*place = PLACE_NEW;
		return 0;
	}
	*mode = st.st_mode & 07777;
	if (S_ISDIR(st.st_mode)) {
		pr_err("%s: %s", target, hbbp_strerror(-EISDIR));
		return -EISDIR;
	}
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		if (ops->sqlite) {
			pr_err("%s: is %s: SQLite output needs a regular file", target,
			       writer__kind(st.st_mode));
			return -HBBP_EUSAGE;
		}
		*place = PLACE_DIRECT;
		return 0;
	}
	if (!S_ISREG(st.st_mode)) {
		pr_err("%s: is %s: refusing to write output into it", target,
		       writer__kind(st.st_mode));
		return -HBBP_EUSAGE;
	}
	in = writer__same_input(&st, opts);
	if (in) {
		pr_err("%s: is the input '%s': refusing to overwrite an input with the output",
		       target, in);
		return -HBBP_EUSAGE;
	}
	if (faccessat(AT_FDCWD, target, W_OK, AT_EACCESS)) {
		int err = -errno;

		pr_err("%s: not writable (mode %04o): %s; an existing output is replaced or"
		       " appended to only when it may be written", target, (unsigned)*mode,
		       hbbp_strerror(err));
		return err;
	}
	if (ops->sqlite && opts->append) {
		*place = PLACE_IN_PLACE;
		return 0;
	}
	if (ops->sqlite && st.st_size && !opts->force) {	/* an archive, or another's file */
		pr_err("%s: exists (a database, or another program's file): it is not replaced; "
		       "add the run to a database with --append, or replace the file with --force",
		       target);
		return -HBBP_EUSAGE;
	}
	if (ops->sqlite) {
		for (i = 0; i < sizeof(sidecars) / sizeof(sidecars[0]); i++) {
			char side[PATH_MAX + 16];

			snprintf(side, sizeof(side), "%s%s", target, sidecars[i]);
			if (!access(side, F_OK)) {
				pr_err("%s: '%s' exists: the database is in use or was not closed"
				       " cleanly, so it is not replaced; add the run with --append,"
				       " or remove the database", target, side);
				return -EBUSY;
			}
		}
	}
	*place = PLACE_REPLACE;
	return 0;
}

int writer__check_target(const char *path, enum writer_format fmt,
			 const struct writer_opts *opts)
{
	static const struct writer_opts defaults;
	const struct writer_ops *ops = writer__ops(fmt);
	enum writer_place place;
	char *target;
	mode_t mode;
	int err;

	if (!ops || ops->server || !path || !strcmp(path, "-"))
		return 0;
	target = writer__target(path);
	if (!target)
		return -ENOMEM;
	err = writer__place(target, ops, opts ? opts : &defaults, &place, &mode);
	free(target);
	return err;
}

static int writer__run(struct writer_ctx *w, const struct writer_ops *ops)
{
	int err = ops->open(w);

	if (!err)
		err = writer__tables(w, ops);
	if (!err && writer__interrupted())
		err = -EINTR;
	if (err) {
		ops->close(w, false);
		return err;
	}
	return ops->close(w, true);
}

/* From the commit on, a signal ends the process saying that the run (or the output) is
 * stored, with exit code 0: a caller that retries what failed must not store it twice; 3
 * when more runs were to follow in this process (they are not written). */
static void writer__on_commit(const struct writer_ctx *w)
{
	bool more = w->opts->more;
	char what[96];

	if (w->run_id[0])
		snprintf(what, sizeof(what), "run %s was committed: it is stored%s", w->run_id,
			 more ? "; the runs after it are not written" : "");
	else
		snprintf(what, sizeof(what), "the output was complete: it is in place");
	outfile__on_commit(w->path, what, more ? HBBP_EXIT_IO : HBBP_EXIT_OK, w->opts->last);
}

/* Runs the writer on a place without a temporary file; a signal before the commit rolls
 * back, one after it is said as such. */
static int writer__run_deferred(struct writer_ctx *w, const struct writer_ops *ops,
				const char *what_on_signal)
{
	int err;

	outfile__defer_begin();
	err = writer__run(w, ops);
	if (!err) {
		writer__on_commit(w);
		outfile__committed();
	}
	outfile__defer_end();
	if (outfile__pending())
		outfile__exit_signalled(w->path, what_on_signal);
	return err;
}

/* A file output: stdout, a device or FIFO, a file written through a temporary file, or a
 * SQLite database appended to in place. */
static int writer__write_file(struct writer_ctx *w, const struct writer_ops *ops,
			      const char *path)
{
	char *target = NULL, *tmp = NULL;
	enum writer_place place = PLACE_DIRECT;
	mode_t mode = 0;
	int err = 0, fd = -1, tries;

	if (!strcmp(path, "-")) {
		target = strdup("(stdout)");
		fd = STDOUT_FILENO;
	} else {
		target = writer__target(path);
		if (target)
			err = writer__place(target, ops, w->opts, &place, &mode);
	}
	if (!target) {
		pr_err("%s: out of memory", path);
		return -ENOMEM;
	}
	if (err)
		goto out;
	w->path = target;
	/* A new --append database created meanwhile by another writer: append to it. */
	for (tries = 0; tries < 2; tries++) {
		w->tmp_path = NULL;
		w->db_path = NULL;
		w->in_place = false;
		w->nr_tables_done = 0;
		if (place == PLACE_IN_PLACE) {
			w->in_place = true;
			w->db_path = target;
			w->fd = -1;
			err = writer__run_deferred(w, ops, "the run was rolled back, the database"
						   " is unchanged");
			if (err && !w->logged)
				pr_err("%s: adding the run failed: %s", target, hbbp_strerror(err));
			goto out;
		}
		if (place == PLACE_DIRECT && fd < 0) {
			fd = open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
			if (fd < 0) {
				err = -errno;
				pr_err("%s: cannot open: %s", target, hbbp_strerror(err));
				goto out;
			}
		}
		if (place == PLACE_NEW || place == PLACE_REPLACE) {
			err = outfile__create(target, &tmp, &fd);
			if (err) {
				pr_err("%s: cannot create a temporary file in its directory: %s",
				       target, hbbp_strerror(err));
				goto out;
			}
		}
		if (w->out)
			wbuf__init(w->out, fd);
		w->tmp_path = tmp;
		w->db_path = tmp;
		w->fd = fd;
		err = writer__run(w, ops);
		if (err) {
			if (!w->logged)
				pr_err("%s: writing %s output failed: %s", target, ops->name,
				       hbbp_strerror(err));
			if (tmp)
				outfile__abandon(tmp, fd);
			else if (fd != STDOUT_FILENO)
				close(fd);
			fd = -1;
			goto out;
		}
		if (!tmp) {
			if (fd != STDOUT_FILENO && close(fd)) {
				err = -errno;
				pr_err("%s: closing failed: %s", target, hbbp_strerror(err));
			}
			fd = -1;
			goto out;
		}
		writer__on_commit(w);
		err = outfile__commit(tmp, fd, target, mode,
				      place == PLACE_NEW && ops->sqlite && w->opts->append);
		fd = -1;
		free(tmp);
		tmp = NULL;
		if (err == -EEXIST) {
			place = PLACE_IN_PLACE;
			err = writer__place(target, ops, w->opts, &place, &mode);
			if (err)
				goto out;
			continue;
		}
		if (err)
			pr_err("%s: finishing the output failed: %s", target, hbbp_strerror(err));
		goto out;
	}
out:
	free(tmp);
	w->path = NULL;
	free(target);
	return err;
}

int writer__write(const struct result *res, const char *path, enum writer_format fmt,
		  const struct writer_opts *opts)
{
	static const struct writer_opts defaults;
	const struct writer_ops *ops = writer__ops(fmt);
	struct writer_ctx w = { 0 };
	struct wbuf *out = NULL;
	locale_t cloc, oldloc = (locale_t)0;
	char *display = path ? conninfo__mask(path, NULL) : NULL;
	bool said = false;	/* the failure was logged */
	int err;

	if (!res || !display || !*display || !ops) {
		pr_err("%s: no output format or nothing to write", display ? display : "(null)");
		free(display);
		return display ? -EINVAL : -ENOMEM;
	}
	if (!opts)
		opts = &defaults;
	if ((ops->sqlite && !strcmp(path, "-")) || (opts->append && !ops->sqlite && !ops->server)) {
		pr_err(ops->sqlite ? "SQLite output cannot go to stdout: give a file name with -o" :
		       "%s: --append needs SQLite output", display);
		free(display);
		return -HBBP_EUSAGE;
	}
	cloc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (cloc)
		oldloc = uselocale(cloc);
	err = outfile__signals_begin();
	if (!err && !ops->sqlite && !ops->server && !(out = malloc(sizeof(*out))))
		err = -ENOMEM;
	if (err)
		goto out;
	w.res = res;
	w.opts = opts;
	w.out = out;
	w.fd = -1;
	said = true;
	if (ops->server) {
		w.conninfo = path;
		w.path = display;
		err = writer__run_deferred(&w, ops, "the run was rolled back");
		if (err && !w.logged)
			pr_err("%s: writing %s output failed: %s", display, ops->name,
			       hbbp_strerror(err));
	} else {
		err = writer__write_file(&w, ops, path);
	}
out:
	if (err && !said)
		pr_err("%s: cannot write: %s", display, hbbp_strerror(err));
	outfile__signals_end();
	if (cloc) {
		uselocale(oldloc);
		freelocale(cloc);
	}
	free(out);
	free(display);
	return err;
}
