/* Output writers: CSV (RFC 4180), JSON, JSON Lines and SQLite, behind one ops table.
 * Every writer writes a temporary ".NAME.XXXXXX" in the target's directory and renames it
 * into place, so an error leaves nothing behind; "-" writes to stdout (not SQLite).
 * Depends only on writers/result.h, libc and sqlite3.
 */
#ifndef WRITERS_WRITER_H
#define WRITERS_WRITER_H

#include <stdbool.h>

#include "writers/result.h"

enum writer_format { WRITER_CSV, WRITER_JSON, WRITER_JSONL, WRITER_SQLITE, WRITER_NONE };

struct writer_opts {
	bool append;		/* SQLite: add this run to an existing database */
	int precision;		/* significant digits for reals (0: 17, round-trip exact) */
};

/* "csv", "json", "jsonl", "sqlite"/"db" -> format; WRITER_NONE if unknown. */
enum writer_format writer_format_from_name(const char *name);
/* From the output path's extension; WRITER_NONE if unknown. */
enum writer_format writer_format_from_path(const char *path);

/* Whether fmt writes the table named name (CSV and JSON Lines: mix; JSON: events and mix;
 * SQLite: every table). */
bool writer_format_writes_table(enum writer_format fmt, const char *name);

/* Writes res to path in fmt. Returns 0 or a negative errno / -HBBP_E* code; on error no
 * output file exists (an --append target keeps its previous content). */
int writer__write(const struct result *res, const char *path, enum writer_format fmt,
		  const struct writer_opts *opts);

/* Removes the partial output of the write in progress, if any; async-signal-safe, for a
 * handler of a fatal signal that then exits (util/mapguard.h). */
void writer__cleanup_on_fault(void);

#endif
