/* Output writers: CSV (RFC 4180), JSON, JSON Lines, SQLite and PostgreSQL, behind one ops
 * table. A new or replaced file is written as a temporary ".NAME.PID@HOST.XXXXXX" in the
 * target's directory and renamed into place, so an error leaves nothing behind; an existing
 * SQLite database is appended to in place in one transaction; character devices and FIFOs
 * are written directly; "-" writes to stdout (not SQLite); a PostgreSQL connection URI adds
 * the run to a server in one transaction. An output that is one of the inputs is refused.
 * Depends only on writers/result.h, libc, sqlite3 and libpq.
 */
#ifndef WRITERS_WRITER_H
#define WRITERS_WRITER_H

#include <stdbool.h>
#include <stddef.h>

#include "writers/result.h"

enum writer_format {
	WRITER_CSV, WRITER_JSON, WRITER_JSONL, WRITER_SQLITE, WRITER_POSTGRES,
	WRITER_TABLE,		/* aligned text for a terminal (writers/table_writer.c) */
	WRITER_NONE
};

struct writer_opts {
	bool append;		/* SQLite: add this run to an existing database */
	bool force;		/* SQLite: replace an existing file (not empty) instead of refusing it */
	/* A signal that comes once the output is complete (renamed into place, committed)
	 * ends the process with exit code 0 saying so (writers/SCHEMA.md, Signals); more:
	 * with 3, as more runs were to follow in this process; last: also after the write
	 * returns, until the process ends (the handlers stay: its last output). */
	bool more, last;
	const char *label;	/* SQLite, PostgreSQL: runs.label (NULL: none) */
	/* Files read for this output ("-": stdin): the output must not be one of them. */
	const char *const *inputs;
	size_t nr_inputs;
};

/* "csv", "json", "jsonl", "sqlite"/"db", "postgresql"/"postgres"/"pg", "table" -> format;
 * WRITER_NONE if unknown. */
enum writer_format writer_format_from_name(const char *name);
/* From the output path: "postgresql://" or "postgres://" (a libpq URI), else the
 * extension; WRITER_NONE if unknown. */
enum writer_format writer_format_from_path(const char *path);
/* Whether fmt writes into a file (CSV, JSON, JSON Lines, SQLite) or a server (PostgreSQL). */
bool writer_format_is_file(enum writer_format fmt);

/* Checks, before any work, that path can take fmt output without destroying anything: not
 * one of opts->inputs, not a block device or socket, SQLite into a regular file, an existing
 * file writable. Logs the reason; returns 0 or a negative errno / -HBBP_E* code.
 * writer__write() checks the same again. */
int writer__check_target(const char *path, enum writer_format fmt,
			 const struct writer_opts *opts);

/* Whether fmt writes the table named name (CSV and JSON Lines: mix; JSON: events and mix;
 * SQLite: every table). */
bool writer_format_writes_table(enum writer_format fmt, const char *name);

/* Writes res to path in fmt. Returns 0 or a negative errno / -HBBP_E* code; on error no
 * output file exists (a replaced file or an --append database keeps its previous content;
 * a device or FIFO may have received part of the output). */
int writer__write(const struct result *res, const char *path, enum writer_format fmt,
		  const struct writer_opts *opts);

/* s[0..n) as a CSV field (RFC 4180, writers/SCHEMA.md): quoted when it holds a comma, a
 * double quote, CR or LF, begins or ends with a space, or is empty, a double quote inside
 * doubled; quoted with a single quote first when it begins with = + - @, tab or CR (a
 * spreadsheet's formula). dst has room for 2 * n + 3 bytes; returns the bytes written. */
size_t writer__csv_field(char *dst, const char *s, size_t n);

/* A PostgreSQL connection string (a libpq URI or keyword/value string) for a message, with
 * its secrets (the password of a URI, the values of password, passfile, sslpassword) as
 * "***" (text NULL); or text, which may quote parts of conninfo (libpq's messages, a
 * recording's metadata), with every secret of conninfo in it as "***". A string that is
 * neither a URI nor holds '=' is returned as it is. malloc'd; NULL when out of memory.
 * (writers/conninfo.c) */
char *conninfo__mask(const char *conninfo, const char *text);

/* Removes the partial output of the write in progress, if any; async-signal-safe, for a
 * handler of a fatal signal that then exits (util/mapguard.h). */
void writer__cleanup_on_fault(void);

#endif
