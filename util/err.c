/* hbbp_strerror(), exit-code mapping, the replaceable log sink, the escaping of control
 * characters in text bound for a terminal, build-ids as hex, a signal-safe stderr write, a
 * path's basename, a prefix test and the monotonic clock (see hbbp_err.h).
 * Depends on libc and util/json_escape.h (its UTF-8 check) only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/hbbp_err.h"
#include "util/json_escape.h"

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
	case HBBP_EREFUSED: return "refused: not a regular file, or not trusted";
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
	case HBBP_EREFUSED:
	case EINVAL:
		return HBBP_EXIT_INPUT;
	}
	return HBBP_EXIT_IO;
}

const char *hbbp_basename(const char *path, bool whole)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s && (s[1] || !whole) ? s + 1 : path ? path : "";
}

bool hbbp_starts(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

double hbbp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

char *hbbp_build_id_hex(const uint8_t *id, size_t size, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	if (size > 20)
		size = 20;
	for (i = 0; i < size; i++) {
		buf[2 * i] = hex[id[i] >> 4];
		buf[2 * i + 1] = hex[id[i] & 15];
	}
	buf[2 * size] = 0;
	return buf;
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

/* The length of the valid UTF-8 sequence at s that is not a C1 control character (U+0080
 * to U+009F), or 0. */
static size_t utf8_printable(const unsigned char *s)
{
	return s[0] == 0xc2 && s[1] <= 0x9f ? 0 : json_utf8_len(s);
}

size_t hbbp_escape(char *out, size_t size, const char *in)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)in;
	size_t len = 0;

	if (!size)
		return 0;
	while (*s) {
		size_t n = *s >= 0x20 && *s < 0x7f ? 1 : *s >= 0x80 ? utf8_printable(s) : 0;

		if (len + (n ? n : 4) >= size)
			break;
		if (n) {
			memcpy(out + len, s, n);
			len += n;
			s += n;
			continue;
		}
		out[len++] = '\\';
		out[len++] = 'x';
		out[len++] = hex[*s >> 4];
		out[len++] = hex[*s & 15];
		s++;
	}
	out[len] = 0;
	return len;
}

void hbbp_log(enum hbbp_log_level level, const char *fmt, ...)
{
	char buf[1024], shown[2048];
	size_t n = 0;
	va_list ap;

	if (!log_fn || level > log_max)
		return;
	if (log_subject && level <= HBBP_LOG_WARN)
		n = (size_t)snprintf(buf, sizeof(buf), "%s: ", log_subject);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	/* a message that names its subject already keeps one */
	if (n && !strncmp(buf + n, buf, n))
		memmove(buf, buf + n, strlen(buf + n) + 1);
	/* the message is one line: a control character in it came from a recorded string */
	hbbp_escape(shown, sizeof(shown), buf);
	log_fn(level, shown, log_ctx);
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
