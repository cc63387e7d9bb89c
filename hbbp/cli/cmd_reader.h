/* What the reader-only commands (dump, stats) share: their one FILE operand, opening the
 * reader with its one-line error, the events' roles (hbbp/method/roles.h, after --ebs-event
 * and --lbr-event) and ending a read that failed.
 * Depends on reader/perf_reader.h, hbbp/method/roles.h and hbbp/cli/options.h.
 */
#ifndef HBBP_CMD_READER_H
#define HBBP_CMD_READER_H

#include "hbbp/cli/options.h"
#include "hbbp/method/roles.h"
#include "reader/perf_reader.h"

/* The FILE operand of a (one): 0, or the exit code after one message. */
int cmd_reader__path(const struct cli_args *a, const char **path);

/* Opens path; on failure logs the reader's message and returns the exit code, else 0. */
int cmd_reader__open(struct perf_reader **r, const char *path,
		     const struct perf_reader_opts *opts);

/* The roles of r's events (a malloc'd array, *out); on failure (a named event absent or
 * unusable) logs the message and returns the exit code, else 0. */
int cmd_reader__roles(const struct perf_reader *r, const struct cli_args *a,
		      struct hbbp_event_role **out);

/* Prints the reader's error message for err < 0, deletes r, returns the exit code. */
int cmd_reader__fail(struct perf_reader *r, int err);
/* Warnings for a recording read in part: truncated (bytes missing), corrupt header sections
 * skipped, an empty build-id list. */
void cmd_reader__warn_partial(const struct perf_reader *r, const char *path);

#endif
