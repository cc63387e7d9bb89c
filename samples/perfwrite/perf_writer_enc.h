/* Private to the perf.data writer: a bounded byte buffer that stores integers in the
 * producer's byte order (native, or swapped to imitate a big-endian producer), and the
 * encoders for attrs, samples and sample_id trailers (perf_writer_enc.c).
 * Used only by samples/perfwrite/perf_writer*.c; depends on nothing but perf_reader.h's structs.
 */
#ifndef PERF_WRITER_ENC_H
#define PERF_WRITER_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "reader/perf_reader.h"

/* p[0..len) holds bytes; cap is what is allocated; max bounds growth (0: fixed cap).
 * A put past max sets overflow and writes nothing. */
struct pw_buf {
	uint8_t *p;
	size_t len, cap, max;
	bool swap;
	bool overflow;
};

int pw_buf__reserve(struct pw_buf *b, size_t n);	/* 0 or -ENOMEM/-E2BIG (overflow) */

static inline void pw_put_bytes(struct pw_buf *b, const void *src, size_t n)
{
	if (n > b->cap - b->len && pw_buf__reserve(b, n))
		return;
	if (n)
		memcpy(b->p + b->len, src, n);
	b->len += n;
}

static inline void pw_put_zeros(struct pw_buf *b, size_t n)
{
	if (n > b->cap - b->len && pw_buf__reserve(b, n))
		return;
	memset(b->p + b->len, 0, n);
	b->len += n;
}

static inline void pw_put_u8(struct pw_buf *b, uint8_t v)
{
	pw_put_bytes(b, &v, 1);
}

static inline void pw_put_u16(struct pw_buf *b, uint16_t v)
{
	if (b->swap)
		v = __builtin_bswap16(v);
	pw_put_bytes(b, &v, 2);
}

static inline void pw_put_u32(struct pw_buf *b, uint32_t v)
{
	if (b->swap)
		v = __builtin_bswap32(v);
	pw_put_bytes(b, &v, 4);
}

static inline void pw_put_u64(struct pw_buf *b, uint64_t v)
{
	if (b->swap)
		v = __builtin_bswap64(v);
	pw_put_bytes(b, &v, 8);
}

/* Overwrites a u16/u32/u64 already in the buffer at off. */
static inline void pw_set_u16(struct pw_buf *b, size_t off, uint16_t v)
{
	if (b->swap)
		v = __builtin_bswap16(v);
	memcpy(b->p + off, &v, 2);
}


/* str64 (perf_header_string): u32 len, then the string, NUL and zero padding to 64. */
void pw_put_str64(struct pw_buf *b, const char *s);
/* A NUL-terminated string zero-padded to a multiple of align bytes. */
void pw_put_padded_str(struct pw_buf *b, const char *s, size_t align);

/* Bit-field words as a big-endian producer lays them out (MSB-first): field k of width w
 * moves to bits [64-k-w, 64-k), keeping its significance. */
uint64_t pw_attr_flags_to_be(uint64_t flags);
uint64_t pw_branch_flags_to_be(uint64_t flags);

/* perf_event_attr of attr_size bytes (attr.size = attr_size). */
void pw_put_attr(struct pw_buf *b, const struct perf_evattr *a, uint32_t attr_size);
/* A SAMPLE body for an event with attr a. Returns 0 or -EINVAL when s does not fit the
 * attr (read values, register counts). */
int pw_put_sample(struct pw_buf *b, const struct perf_evattr *a, const struct perf_sample *s);
/* The sample_id trailer for sample_type st (only TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER
 * matter); sid NULL writes zeros. */
void pw_put_sample_id(struct pw_buf *b, uint64_t st, const struct perf_sample_id *sid);
/* Size in bytes of that trailer. */
size_t pw_sample_id_size(uint64_t st);

#endif
