/* Error codes and the one log sink shared by every module.
 *
 * Library functions return 0 or a negative errno / -HBBP_E* code; hbbp_strerror() names
 * either. Library code never prints and never exits: it reports through hbbp_log(), whose
 * sink the program installs (hbbp/cli/main.c sends it to stderr). Depends on nothing else.
 */
#ifndef HBBP_ERR_H
#define HBBP_ERR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

enum {
	HBBP_EFORMAT = 4096,	/* corrupt or malformed input */
	HBBP_EUNSUPP,		/* valid input this tool does not support */
	HBBP_ENOTFOUND,		/* a binary, symbol or event that is not there */
	HBBP_EBUILDID,		/* a file whose build-id differs from the recording's */
	HBBP_ELIMIT,		/* an input exceeds a sanity bound */
	HBBP_EUSAGE,		/* bad command line */
	HBBP_EREFUSED,		/* a named file is not a regular file or not trusted */
};

/* err may be negative or positive; returns a static string. */
const char *hbbp_strerror(int err);

/* Copies the text in into out (size bytes, NUL-terminated, cut at a character to fit) with
 * every byte a terminal could take as a control shown as \xNN: C0 (tab and newline
 * included), DEL, C1 (U+0080 to U+009F) and bytes that are not valid UTF-8; other UTF-8 is
 * kept. For recorded strings (paths, command names, symbols) bound for a terminal; every
 * message of the log sink goes through it. Returns the length written. */
size_t hbbp_escape(char *out, size_t size, const char *in);

/* A build-id as lowercase hex into buf (>= 41 bytes: its first 20 bytes at most); returns
 * buf. */
char *hbbp_build_id_hex(const uint8_t *id, size_t size, char *buf);

/* The text of path after its last '/' (path itself without one; NULL: ""); for a path
 * ending in '/', "" or, with whole, the path itself (a name to show). */
const char *hbbp_basename(const char *path, bool whole);
/* Whether s (NULL: no) begins with prefix. */
bool hbbp_starts(const char *s, const char *prefix);
/* Seconds on the monotonic clock (CLOCK_MONOTONIC), for durations. */
double hbbp_now(void);

/* Writes s to stderr with write(2) alone: async-signal-safe, for signal handlers. */
void hbbp_sigsafe_puts(const char *s);

/* Exit codes of the programs: 0 ok, 1 usage, 2 bad input, 3 I/O or resource failure, 4 a
 * result with no row (README, "Exit status"). */
enum {
	HBBP_EXIT_OK = 0, HBBP_EXIT_USAGE = 1, HBBP_EXIT_INPUT = 2, HBBP_EXIT_IO = 3,
	HBBP_EXIT_EMPTY = 4,
};
/* Exit code for a negative error returned by a library call. */
int hbbp_exit_code(int err);

enum hbbp_log_level { HBBP_LOG_ERROR, HBBP_LOG_WARN, HBBP_LOG_INFO, HBBP_LOG_DEBUG };
typedef void (*hbbp_log_fn)(enum hbbp_log_level level, const char *msg, void *ctx);

/* Installs the sink (NULL: messages are dropped) and the most verbose level passed on. */
void hbbp_log_set(hbbp_log_fn fn, void *ctx, enum hbbp_log_level max_level);
/* Names the input the calling thread works on (NULL: none): its errors and warnings are
 * prefixed "SUBJECT: " unless they start with it already. */
void hbbp_log_subject(const char *subject);
void hbbp_log(enum hbbp_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define pr_err(...)   hbbp_log(HBBP_LOG_ERROR, __VA_ARGS__)
#define pr_warn(...)  hbbp_log(HBBP_LOG_WARN, __VA_ARGS__)
#define pr_info(...)  hbbp_log(HBBP_LOG_INFO, __VA_ARGS__)
#define pr_debug(...) hbbp_log(HBBP_LOG_DEBUG, __VA_ARGS__)

#endif
