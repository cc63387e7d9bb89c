/* The conversion options that annotate, report and diff accept as the conversion does
 * (method, cutoff, model, events, binaries, filters, jobs, quiet): one option table to merge
 * into a command's own and one handler, so that each command parses them the same way.
 * Depends on hbbp/engine/convert.h and libc getopt; prints usage errors through hbbp_log.
 */
#ifndef HBBP_CONVERT_ARGS_H
#define HBBP_CONVERT_ARGS_H

#include <getopt.h>
#include <stdbool.h>

#include "hbbp/engine/convert.h"

/* Option values of the shared options start here; a command's own use values below. */
#define CONVERT_ARGS_FIRST 400
#define CONVERT_ARGS_SHORT "j:q"

/* Text for a command's --help: the shared options, one per line. */
extern const char convert_args__help[];

/* Defaults of a conversion (method hbbp, default cutoff and keys). */
void convert_args__init(struct convert_opts *o);
/* Merges own[] (terminated by a NULL name) and the shared options into out (room for
 * cap entries, terminator included). Returns 0 or -1 when cap is too small. */
int convert_args__merge(const struct option *own, struct option *out, size_t cap);
/* Handles option c with its argument: 1 handled, 0 not a shared option, -1 usage error
 * (message logged), -2 out of memory or an unreadable --model (message logged). */
int convert_args__handle(struct convert_opts *o, int c, char *arg);
/* After parsing: checks the combination, fills jobs and progress. 0 or -1 (usage). */
int convert_args__finish(struct convert_opts *o);
void convert_args__exit(struct convert_opts *o);
/* A whole number in 0..max for option opt: 0, or -1 with a message. */
int convert_args__uint(const char *opt, const char *s, unsigned long max, unsigned long *out);
/* A byte count with an optional K, M or G suffix (powers of 1024): 0, or -1 with a message. */
int convert_args__size(const char *opt, const char *s, uint64_t *out);

#endif
