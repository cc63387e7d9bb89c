/* Buffered output to a file descriptor or to memory for the text writers, and the number
 * formatting all writers share. Every write(2) result is checked (short writes continue,
 * EINTR retries); the first error sticks and later output is dropped. Locale:
 * writer__write() runs the writers under the "C" locale (uselocale), so '.' is the decimal
 * point here.
 * Depends on libc and util/grow.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/grow.h"
#include "writers/writer_int.h"

void wbuf__init(struct wbuf *w, int fd)
{
	w->fd = fd;
	w->err = 0;
	w->len = 0;
	w->mem = NULL;
	w->mem_len = w->mem_cap = 0;
	w->sink = NULL;
}

static void wbuf__write_all(struct wbuf *w, const char *p, size_t n)
{
	if (w->sink && !w->err) {
		w->err = w->sink(w->sink_ctx, p, n);
		return;
	}
	if (w->fd < 0 && !w->err) {	/* memory */
		if (grow_array((void **)&w->mem, &w->mem_cap, 1, w->mem_len + n, SIZE_MAX)) {
			w->err = -ENOMEM;
			return;
		}
		memcpy(w->mem + w->mem_len, p, n);
		w->mem_len += n;
		return;
	}
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

char *wbuf__room(struct wbuf *w, size_t n)
{
	if (n > sizeof(w->buf) - w->len)
		wbuf__flush(w);
	return w->err || n > sizeof(w->buf) - w->len ? NULL : w->buf + w->len;
}

void wbuf__printf(struct wbuf *w, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		if (!w->err)
			w->err = -ENOMEM;
		return;
	}
	wbuf__put(w, s, (size_t)n);
	free(s);
}

/* %.{p}g of the p significant digits dig (a leading digit, no point) times 10^x10: fixed
 * notation when p > x10 >= -4, else d.ddde+XX; trailing zeros of a fraction dropped. */
static void format_g(char *buf, size_t size, bool neg, const char *dig, int p, int x10)
{
	char tmp[48], *o = tmp;
	int last = p - 1, i;

	while (last > 0 && dig[last] == '0')	/* significant digits that remain */
		last--;
	if (neg)
		*o++ = '-';
	if (x10 < p && x10 >= -4) {
		if (x10 < 0) {
			*o++ = '0';
			*o++ = '.';
			for (i = -1; i > x10; i--)
				*o++ = '0';
			for (i = 0; i <= last; i++)
				*o++ = dig[i];
		} else {
			for (i = 0; i <= x10; i++)
				*o++ = i <= last ? dig[i] : '0';
			if (last > x10) {
				*o++ = '.';
				for (; i <= last; i++)
					*o++ = dig[i];
			}
		}
	} else {
		int e = x10 < 0 ? -x10 : x10;

		*o++ = dig[0];
		if (last > 0) {
			*o++ = '.';
			for (i = 1; i <= last; i++)
				*o++ = dig[i];
		}
		*o++ = 'e';
		*o++ = x10 < 0 ? '-' : '+';
		if (e >= 100)
			*o++ = (char)('0' + e / 100);
		*o++ = (char)('0' + e / 10 % 10);
		*o++ = (char)('0' + e % 10);
	}
	*o = 0;
	if (size) {		/* snprintf's truncation, without its cost */
		size_t n = (size_t)(o - tmp) < size ? (size_t)(o - tmp) : size - 1;

		memcpy(buf, tmp, n);
		buf[n] = 0;
	}
}

/* 10^0 .. 10^22: the powers of ten that are exact doubles */
static const double p10[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14,
	1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* The decimal exponent of a normal a > 0 from its binary one: floor(log10(a)), or one less. */
static int x10_of(double a)
{
	uint64_t bits;

	memcpy(&bits, &a, sizeof(bits));
	return (int)floor(((int)(bits >> 52 & 0x7ff) - 1023) * 0.30102999566398120);
}

/* The p significant digits of a > 0 (p <= 15, rounded to nearest) and the exponent of the
 * first, in 64-bit integer arithmetic: the product a * 10^k is taken in long double, whose
 * 64-bit mantissa leaves an error below 1e-4 of a unit of the last digit; false (left to
 * printf) when the product lies that close to a half, or 10^|k| is no exact double. The
 * digits are also given as the integer *d_out, a * 10^k rounded (k = *k_out). */
static bool digits_of(double a, int p, char *dig, int *x10_out, uint64_t *d_out, int *k_out)
{
	uint64_t lo = (uint64_t)p10[p - 1], hi = (uint64_t)p10[p];
	int x10, k, i, tries;

	if (!(a >= 1e-7 && a < 1e36))
		return false;
	x10 = x10_of(a);	/* right or one too small: the loop below moves up */
	for (tries = 0; tries < 2; tries++) {
		long double s, fl;
		uint64_t d;

		k = p - 1 - x10;	/* a * 10^k in [10^(p-1), 10^p) */
		if (k > 22 || k < -22)
			return false;
		s = k >= 0 ? (long double)a * (long double)p10[k] : (long double)a / (long double)p10[-k];
		if (s >= (long double)hi) {
			x10++;
			continue;
		}
		if (s < (long double)lo) {
			x10--;
			continue;
		}
		fl = floorl(s);
		if (fabsl(s - fl - 0.5L) < 1e-4L)
			return false;
		d = (uint64_t)fl + (s - fl > 0.5L);
		if (d == hi)
			return false;	/* 9.99..95 rounded up: a decade higher, left to printf */
		*d_out = d;
		*k_out = k;
		*x10_out = x10;
		for (i = p - 1; i >= 0; i--) {
			dig[i] = (char)('0' + d % 10);
			d /= 10;
		}
		return true;
	}
	return false;
}

/* The commonest case: a = D * 10^-k for a D of at most 6 digits (the pivot's shares, IPC and
 * bounds are rounded so), found with one product and proved with one IEEE division or
 * multiplication of exact doubles (D and 10^|k|, |k| <= 22), which rounds correctly: when
 * it gives a back, a is the double nearest D * 10^-k, so %.15g of a is D's digits followed
 * by zeros (a lies within 1.2e-16 of D * 10^-k, far under half a unit of the 15th digit).
 * The digits are written as the 15 of real_shortest15 below. false: not decided here. */
static bool real_short6(char *buf, size_t size, double v)
{
	double a = fabs(v), s, d;
	uint64_t u;
	char dig[16];
	int x10, k, i;

	if (!(a >= 1e-17 && a < 1e22))
		return false;
	x10 = x10_of(a);
	k = 5 - x10;		/* x10 right or one too small: a * 10^k in [1e5, 1e7) */
	if (k > 22 || k < -22)
		return false;
	s = k >= 0 ? a * p10[k] : a / p10[-k];
	if (s >= 1e6) {
		x10++;
		k--;
		if (k < -22)
			return false;
		s = k >= 0 ? a * p10[k] : a / p10[-k];
	}
	d = nearbyint(s);
	if (d < 1e5 || d >= 1e6 || (k >= 0 ? d / p10[k] : d * p10[-k]) != a)
		return false;
	u = (uint64_t)d;
	for (i = 5; i >= 0; i--) {
		dig[i] = (char)('0' + u % 10);
		u /= 10;
	}
	memset(dig + 6, '0', 9);
	format_g(buf, size, v < 0, dig, 15, x10);
	return true;
}

/* The common case of wfmt__real without printf: v rounded to 15 significant digits
 * (digits_of), when that reads back as v (a 15-digit decimal that does is the only one: two
 * of them are further apart than an ulp). The check that the digits read back is exact:
 * both D and 10^|k| (|k| <= 22) are doubles, and one IEEE division or multiplication
 * rounds correctly. false: not decided here. */
static bool real_shortest15(char *buf, size_t size, double v)
{
	double a = fabs(v), back;
	char dig[16];
	uint64_t d;
	int x10, k;

	if (!digits_of(a, 15, dig, &x10, &d, &k))
		return false;
	back = k >= 0 ? (double)d / p10[k] : (double)d * p10[-k];
	if (back != a)
		return false;
	format_g(buf, size, v < 0, dig, 15, x10);
	return true;
}

int wfmt__real(char *buf, size_t size, double v)
{
	int p;

	if (!isfinite(v))
		return -ERANGE;
	if (v == 0) {		/* -0.0 and 0.0 alike: "0" */
		snprintf(buf, size, "0");
		return 0;
	}
	/* Whole numbers below 1e15 print as integers under %.15g: skip the printf path. */
	if (size >= 24 && v > -1e15 && v < 1e15 && v == (double)(int64_t)v) {
		wfmt__int(buf, (int64_t)v);
		return 0;
	}
	if (real_short6(buf, size, v) || real_shortest15(buf, size, v))
		return 0;
	for (p = 15; p < 17; p++) {	/* the shortest of %.15g, %.16g, %.17g that reads back */
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
