/* The JSON string escaper (see util/json_escape.h). Depends only on libc. */
#include "util/json_escape.h"

/* Length of the valid UTF-8 sequence at s (first byte >= 0x80), or 0 if invalid. */
size_t json_utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;

		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;

		return s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 &&
		       (s[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

void json_escape(const char *str, json_put_fn *put, void *ctx)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str, *run = s;
	char esc[7] = "\\u00";

	put(ctx, "\"", 1);
	while (*s) {
		unsigned char c = *s;
		size_t n;

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			s++;
			continue;
		}
		if (c >= 0x80 && (n = json_utf8_len(s))) {
			s += n;
			continue;
		}
		if (s > run)
			put(ctx, (const char *)run, (size_t)(s - run));
		switch (c) {
		case '"': put(ctx, "\\\"", 2); break;
		case '\\': put(ctx, "\\\\", 2); break;
		case '\n': put(ctx, "\\n", 2); break;
		case '\r': put(ctx, "\\r", 2); break;
		case '\t': put(ctx, "\\t", 2); break;
		case '\b': put(ctx, "\\b", 2); break;
		case '\f': put(ctx, "\\f", 2); break;
		default:
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			put(ctx, esc, 6);
		}
		run = ++s;
	}
	if (s > run)
		put(ctx, (const char *)run, (size_t)(s - run));
	put(ctx, "\"", 1);
}
