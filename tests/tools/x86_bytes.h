/* The byte sources of the x86 decoder test tools (x86_fastcmp): a file's
 * first bytes, and random bytes biased to the prefixes and opcodes of compiled code. */
#ifndef HBBP_TESTS_X86_BYTES_H
#define HBBP_TESTS_X86_BYTES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Up to max bytes of path, malloc'd (*len of them), or NULL (said on stderr by tool). */
static inline uint8_t *x86_bytes__file(const char *tool, const char *path, size_t max,
				       size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "%s: cannot read %s\n", tool, path);
		if (f)
			fclose(f);
		return NULL;
	}
	*len = (size_t)n < max ? (size_t)n : max;
	buf = malloc(*len + 1);
	if (buf && fread(buf, 1, *len, f) != *len) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (!buf)
		fprintf(stderr, "%s: cannot read %s\n", tool, path);
	return buf;
}

/* n random bytes (the same every run): one in three a prefix or opcode byte of compiled
 * code (0x66, a REX.W, 0x0f, or any), malloc'd, or NULL. */
static inline uint8_t *x86_bytes__random(size_t n)
{
	uint8_t *buf = malloc(n ? n : 1);
	uint64_t s = 0x2545f4914f6cdd1dull;
	size_t i;

	if (!buf)
		return NULL;
	for (i = 0; i < n; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		buf[i] = (uint8_t)(i % 3 ? s : (s >> 8) % 4 == 0 ? 0x66 : (s >> 8) % 4 == 1 ?
				   0x48 | (s >> 16 & 7) : (s >> 8) % 4 == 2 ? 0x0f : s >> 24);
	}
	return buf;
}

#endif
