/* What the reader-only commands (dump, stats) share: the options every one of them takes
 * (--ebs-event, --lbr-event, the FILE operand), opening the reader with its one-line error,
 * and ending a read that failed. Depends on reader/perf_reader.h only.
 */
#ifndef HBBP_CMD_READER_H
#define HBBP_CMD_READER_H

#include "reader/perf_reader.h"

/* Takes argv[*i] as a common option (advancing *i past its value) or as the FILE operand:
 * returns 0, or -1 on a usage error (a second FILE, an unknown option, a missing value),
 * which it names on stderr.
 * Call it for what the command's own options did not take. */
int cmd_reader__arg(int argc, char **argv, int *i, struct perf_reader_opts *opts,
		    const char **path);

/* Opens path; on failure prints "hbbp-convert: MESSAGE" and returns the exit code, else 0. */
int cmd_reader__open(struct perf_reader **r, const char *path,
		     const struct perf_reader_opts *opts);

/* Prints the reader's error message for err < 0, deletes r, returns the exit code. */
int cmd_reader__fail(struct perf_reader *r, int err);
/* Warnings for a recording read in part: truncated (bytes missing), corrupt header sections
 * skipped, an empty build-id list. */
void cmd_reader__warn_partial(const struct perf_reader *r, const char *path);

#endif
