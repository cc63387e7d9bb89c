/* hbbp_strerror(), exit-code mapping, the replaceable log sink and a signal-safe stderr write
 * (see hbbp_err.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/hbbp_err.h"

const char *hbbp_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case HBBP_EFORMAT: return "malformed input";
	case HBBP_EUNSUPP: return "unsupported input";
	case HBBP_ENOTFOUND: return "not found";
	case HBBP_EBUILDID: return "build-id mismatch";
	case HBBP_ELIMIT: return "input exceeds a sanity limit";
	case HBBP_EUSAGE: return "bad usage";
	case HBBP_EREDO: return "records out of time order around a part read apart";
	}
	return strerror(err);
}

int hbbp_exit_code(int err)
{
	if (err >= 0)
		return HBBP_EXIT_OK;
	switch (-err) {
	case HBBP_EUSAGE:
		return HBBP_EXIT_USAGE;
	case HBBP_EFORMAT:
	case HBBP_EUNSUPP:
	case HBBP_ENOTFOUND:
	case HBBP_EBUILDID:
	case HBBP_ELIMIT:
	case EINVAL:
		return HBBP_EXIT_INPUT;
	}
	return HBBP_EXIT_IO;
}

static hbbp_log_fn log_fn;
static void *log_ctx;
static enum hbbp_log_level log_max = HBBP_LOG_WARN;

void hbbp_log_set(hbbp_log_fn fn, void *ctx, enum hbbp_log_level max_level)
{
	log_fn = fn;
	log_ctx = ctx;
	log_max = max_level;
}

static __thread const char *log_subject;

void hbbp_log_subject(const char *subject)
{
	log_subject = subject;
}

void hbbp_vlog(enum hbbp_log_level level, const char *fmt, va_list ap)
{
	char buf[1024];
	size_t n = 0;

	if (!log_fn || level > log_max)
		return;
	if (log_subject && level <= HBBP_LOG_WARN)
		n = (size_t)snprintf(buf, sizeof(buf), "%s: ", log_subject);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	/* a message that names its subject already keeps one */
	if (n && !strncmp(buf + n, buf, n))
		memmove(buf, buf + n, strlen(buf + n) + 1);
	log_fn(level, buf, log_ctx);
}

void hbbp_log(enum hbbp_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hbbp_vlog(level, fmt, ap);
	va_end(ap);
}

void hbbp_sigsafe_puts(const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t k = write(STDERR_FILENO, s, n);

		if (k <= 0)
			return;
		s += k;
		n -= (size_t)k;
	}
}
