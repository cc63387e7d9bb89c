/* Buffered output to a file descriptor for the text writers, and the number formatting all
 * writers share. Every write(2) result is checked (short writes continue, EINTR retries);
 * the first error sticks and later output is dropped. Locale: writer__write() runs the
 * writers under the "C" locale (uselocale), so '.' is the decimal point here.
 * Depends only on libc.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "writers/writer_int.h"

void wbuf__init(struct wbuf *w, int fd)
{
	w->fd = fd;
	w->err = 0;
	w->len = 0;
}

static void wbuf__write_all(struct wbuf *w, const char *p, size_t n)
{
	while (n && !w->err) {
		ssize_t k = write(w->fd, p, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			w->err = -errno;
		} else if (k == 0) {
			w->err = -EIO;
		} else {
			p += k;
			n -= (size_t)k;
		}
	}
}

int wbuf__flush(struct wbuf *w)
{
	if (w->len && !w->err)
		wbuf__write_all(w, w->buf, w->len);
	w->len = 0;
	return w->err;
}

void wbuf__put(struct wbuf *w, const char *s, size_t n)
{
	if (w->err)
		return;
	if (n > sizeof(w->buf) - w->len) {
		wbuf__flush(w);
		if (n >= sizeof(w->buf)) {
			wbuf__write_all(w, s, n);
			return;
		}
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

void wbuf__puts(struct wbuf *w, const char *s)
{
	wbuf__put(w, s, strlen(s));
}

void wbuf__putc(struct wbuf *w, char c)
{
	if (w->len == sizeof(w->buf))
		wbuf__flush(w);
	if (!w->err)
		w->buf[w->len++] = c;
}

int wfmt__real(char *buf, size_t size, double v, int prec)
{
	int p;

	if (!isfinite(v))
		return -ERANGE;
	if (v == 0) {		/* -0.0 and 0.0 alike: "0" */
		snprintf(buf, size, "0");
		return 0;
	}
	/* Whole numbers below 1e15 print as integers under %.15g: skip the printf path. */
	if (prec <= 0 && size >= 24 && v > -1e15 && v < 1e15 && v == (double)(int64_t)v) {
		wfmt__int(buf, (int64_t)v);
		return 0;
	}
	if (prec > 0) {
		snprintf(buf, size, "%.*g", prec > 17 ? 17 : prec, v);
		return 0;
	}
	for (p = 15; p < 17; p++) {
		snprintf(buf, size, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			return 0;
	}
	snprintf(buf, size, "%.17g", v);
	return 0;
}

size_t wfmt__int(char *buf, int64_t v)
{
	char tmp[24];
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	size_t n = 0, len = 0;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		buf[len++] = '-';
	while (n)
		buf[len++] = tmp[--n];
	buf[len] = '\0';
	return len;
}
