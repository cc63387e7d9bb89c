/* Unit tests of util/json_escape.c against hand-written expected literals: ASCII, quotes and
 * backslashes, control characters (named and \u00XX), DEL, valid UTF-8 of 2, 3 and 4 bytes
 * passed through, and every kind of invalid byte (stray continuation, overlong, surrogate,
 * past U+10FFFF, truncated) as \u00XX.
 */
#include <string.h>

#include "tests/harness.h"
#include "util/json_escape.h"

struct sbuf { char b[512]; size_t n; };

static void put(void *ctx, const char *s, size_t n)
{
	struct sbuf *o = ctx;

	if (o->n + n < sizeof(o->b)) {
		memcpy(o->b + o->n, s, n);
		o->n += n;
		o->b[o->n] = 0;
	}
}

static void expect(const char *in, const char *want)
{
	struct sbuf o = { .n = 0 };

	o.b[0] = 0;
	json_escape(in, put, &o);
	CHECK_STR(o.b, want);
}

static void test_escape(void)
{
	expect("", "\"\"");
	expect("abc", "\"abc\"");
	expect("a\"b\\c", "\"a\\\"b\\\\c\"");
	expect("\n\r\t\b\f\x01\x1f\x7f", "\"\\n\\r\\t\\b\\f\\u0001\\u001f\\u007f\"");
	/* é (2 bytes), € (3), 😀 (4): passed through */
	expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	/* stray continuation, overlong 0xc0 0xaf, surrogate 0xed 0xa0 0x80, 0xf4 0x90 (> U+10FFFF),
	 * truncated 0xc3 at the end */
	expect("\x80", "\"\\u0080\"");
	expect("\xc0\xaf", "\"\\u00c0\\u00af\"");
	expect("\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"");
	expect("\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\"");
	expect("x\xc3", "\"x\\u00c3\"");
}

int main(void)
{
	RUN_TEST(test_escape);
	return TEST_EXIT();
}
