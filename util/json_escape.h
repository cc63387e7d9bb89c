/* The one JSON string escaper (the JSON and JSON Lines writers, `hbbp-convert stats`): '"',
 * '\\' and control characters are escaped (\n \r \t \b \f, else \u00XX; also DEL as \u007f);
 * valid UTF-8 is passed through; each byte that is not part of a valid UTF-8 sequence (stray
 * continuation, overlong form, surrogate, > U+10FFFF, truncated) is written as \u00XX, the
 * code point with the byte's value, so the output is always valid UTF-8 JSON and no byte is
 * lost. Output goes through a caller's put function, in runs. Its UTF-8 check is the tool's
 * one (util/err.c's escaping of terminal text uses it too).
 * Depends only on libc.
 */
#ifndef HBBP_JSON_ESCAPE_H
#define HBBP_JSON_ESCAPE_H

#include <stddef.h>

typedef void json_put_fn(void *ctx, const char *s, size_t n);

/* The length of the valid UTF-8 sequence at s (2 to 4 bytes), 0 when s does not start one. */
size_t json_utf8_len(const unsigned char *s);
/* Writes the JSON string literal of str, quotes included. */
void json_escape(const char *str, json_put_fn *put, void *ctx);

#endif
