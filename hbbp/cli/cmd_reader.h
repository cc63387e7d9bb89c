/* What the reader-only commands (dump, stats) share: the options every one of them takes
 * (--ebs-event, --lbr-event, the FILE operand), opening the reader with its one-line error,
 * the events' roles (hbbp/method/roles.h) and ending a read that failed.
 * Depends on reader/perf_reader.h and hbbp/method/roles.h.
 */
#ifndef HBBP_CMD_READER_H
#define HBBP_CMD_READER_H

#include "hbbp/method/roles.h"
#include "reader/perf_reader.h"

/* --ebs-event, --lbr-event */
struct cmd_reader_roles {
	const char *ebs_event, *lbr_event;
};

/* Takes argv[*i] as a common option (advancing *i past its value) or as the FILE operand:
 * returns 0, or -1 on a usage error (a second FILE, an unknown option, a missing value),
 * which it names on stderr.
 * Call it for what the command's own options did not take. */
int cmd_reader__arg(int argc, char **argv, int *i, struct cmd_reader_roles *ro,
		    const char **path);

/* Opens path; on failure prints "hbbp-convert: MESSAGE" and returns the exit code, else 0. */
int cmd_reader__open(struct perf_reader **r, const char *path,
		     const struct perf_reader_opts *opts);

/* The roles of r's events (a malloc'd array, *out); on failure (a named event absent or
 * unusable) prints "hbbp-convert: MESSAGE" and returns the exit code, else 0. */
int cmd_reader__roles(const struct perf_reader *r, const struct cmd_reader_roles *ro,
		      struct hbbp_event_role **out);

/* Prints the reader's error message for err < 0, deletes r, returns the exit code. */
int cmd_reader__fail(struct perf_reader *r, int err);
/* Warnings for a recording read in part: truncated (bytes missing), corrupt header sections
 * skipped, an empty build-id list. */
void cmd_reader__warn_partial(const struct perf_reader *r, const char *path);

#endif
