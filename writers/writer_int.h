/* Internals shared by the writers: the per-format ops table, the buffered output every
 * text writer uses, and the value formatting they share. Not for use outside writers/.
 *
 * writer__write() (writers/writer.c) decides where the output goes (a temporary file, the
 * SQLite database itself with --append, a device or FIFO, stdout, a server), then calls
 *   open -> for each table the format writes: begin, row (per row), end -> close
 * and renames a temporary file into place only when all of them returned 0. Between rows
 * it stops with -EINTR when writer__interrupted() (a signal during an in-place write).
 * Output goes through write(2) directly (not stdio), so every byte's fate is checked and
 * the I/O fault shim of the tests sees every call.
 */
#ifndef WRITERS_WRITER_INT_H
#define WRITERS_WRITER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "writers/result.h"
#include "writers/writer.h"

/* Buffered output to a file descriptor, or to memory (fd -1: mem[0..mem_len), freed by the
 * user), or to sink (set after wbuf__init); the first error is sticky. */
struct wbuf {
	int fd;
	int err;		/* 0 or negative errno of the first failed write */
	int (*sink)(void *ctx, const char *p, size_t n);	/* 0 or a negative errno */
	void *sink_ctx;
	size_t len;
	char *mem;
	size_t mem_len, mem_cap;
	char buf[64 * 1024];
};

void wbuf__init(struct wbuf *w, int fd);
void wbuf__put(struct wbuf *w, const char *s, size_t n);
void wbuf__puts(struct wbuf *w, const char *s);
void wbuf__putc(struct wbuf *w, char c);
/* Room for n bytes at the end of the buffer (flushing it first if needed), which the caller
 * fills and adds to len; NULL after an error or when n is larger than the buffer. */
char *wbuf__room(struct wbuf *w, size_t n);
void wbuf__printf(struct wbuf *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes out the buffer; returns w->err. */
int wbuf__flush(struct wbuf *w);

/* Formats a real: shortest of %.15g/%.16g/%.17g that reads back exactly, always with '.'
 * as decimal point. Returns 0 and fills buf, or -ERANGE for NaN/Inf (the caller decides how
 * to write those). buf has at least 32 bytes. */
int wfmt__real(char *buf, size_t size, double v);
/* Formats an int64 in decimal; returns the length. buf has at least 24 bytes. */
size_t wfmt__int(char *buf, int64_t v);

struct writer_ctx {
	const struct result *res;
	const struct writer_opts *opts;
	const char *path;	/* the final path ("-" for stdout; PostgreSQL: the URI without its
				 * password): for messages */
	const char *conninfo;	/* PostgreSQL: the connection string as given */
	const char *tmp_path;	/* the file being written (NULL for stdout, a device, in place) */
	const char *db_path;	/* SQLite: the database file opened (tmp_path or, in place, the
				 * target) */
	bool in_place;		/* SQLite: adding a run to the existing database db_path */
	int fd;			/* open on tmp_path, a device or stdout; -1 in place */
	struct wbuf *out;	/* text writers */
	void *priv;		/* per-format state */
	size_t nr_tables_done;
	char run_id[24];	/* SQLite, PostgreSQL: the run's id, once added */
	bool logged;		/* the format already logged why it failed */
};

struct writer_ops {
	const char *name;
	bool sqlite;				/* writes through SQLite: no stdout, no wbuf */
	bool server;				/* writes to a server: no file, no wbuf */
	/* Tables written, in this order; NULL: every table of the result in its order. */
	const char *const *tables;
	int (*open)(struct writer_ctx *w);
	/* a table: begin, each row, end, each of them when not NULL (NULL row: begin writes
	 * every row) */
	int (*begin)(struct writer_ctx *w, const struct result_table *t);
	int (*row)(struct writer_ctx *w, const struct result_table *t, size_t row);
	int (*end)(struct writer_ctx *w, const struct result_table *t);
	/* Finishes the output (ok) or abandons it (!ok, whose return value is ignored). */
	int (*close)(struct writer_ctx *w, bool ok);
};

/* The close of a text writer with nothing to add at the end: flushes its buffer when ok. */
int writer__close_flush(struct writer_ctx *w, bool ok);

extern const struct writer_ops csv_writer_ops;
extern const struct writer_ops json_writer_ops;
extern const struct writer_ops jsonl_writer_ops;
extern const struct writer_ops sqlite_writer_ops;
extern const struct writer_ops pg_writer_ops;
extern const struct writer_ops table_writer_ops;

/* Logs "PATH: message" (pr_err, util/hbbp_err.h), marks the failure said, gives err. */
#define writer__fail(w, err, fmt, ...) \
	(pr_err("%s: " fmt, (w)->path, ##__VA_ARGS__), (w)->logged = true, (err))

/* Whether the writer should stop: a signal arrived during an in-place write (the caller
 * rolls back and exits; writers/outfile.c). */
bool writer__interrupted(void);
/* The runs columns every database store fills from the result's metadata and the options, in
 * this order: label (opts), host (meta hostname), recorded (meta recorded, ISO 8601 UTC),
 * perf_version, file. NULL where there is none. */
#define WRITER_RUN_INFO 5
void writer__run_info(const struct writer_ctx *w, const char *info[WRITER_RUN_INFO]);

#endif
