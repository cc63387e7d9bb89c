/* Byte streams of perf records: a range of a file (mapped for its headers; its records read
 * with pread(2) in large chunks into a reused window: cheaper than faulting the map's
 * pages in) or a pipe read into one reused buffer, and the zstd stream behind PERF_RECORD_COMPRESSED / COMPRESSED2 (one DStream per
 * input; records may span compressed chunks). Cuts records by header.size and
 * hands out raw producer-order bytes; knows nothing of attrs or samples.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "reader/perf_reader_int.h"
#include "util/hbbp_err.h"
#include "util/mapguard.h"
#include "util/open_file.h"
#include "util/grow.h"

#define COMP_MAX_PAYLOAD	65519u
#define ZBUF_MAX		(64u << 20)
#define ZBUF_START		(256u << 10)	/* the decompression buffer's first size */
#define ZBUF_ROOM		65536u		/* free bytes kept ahead of each step */
#define STREAM_START		65536u		/* the stream buffer's first size */
#define PREAD_CHUNK		(1u << 20)
#define PREAD_WINDOW		(4u << 20)	/* initial size of the pread window */

int perf_input__open_file(struct perf_reader *r, struct perf_input *in, const char *path,
			  bool allow_stdin)
{
	struct stat st;

	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->name = strdup(path);
	if (!in->name)
		return -ENOMEM;
	if (allow_stdin && !strcmp(path, "-")) {
		in->fd = dup(0);	/* stdin redirected from a regular file is mapped */
	} else if (r->hdr.is_dir) {
		/* the files of a perf.data directory, found in it: regular files only */
		in->fd = hbbp_open_file(path, 0, UINT64_MAX, NULL);
		errno = in->fd < 0 ? -in->fd : 0;
	} else {
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (in->fd < 0) {
		int err = -errno;

		snprintf(r->errbuf, sizeof(r->errbuf), "%s: %s", path, hbbp_strerror(err));
		r->err = err;
		return err;
	}
	if (fstat(in->fd, &st) < 0) {
		int err = -errno;

		snprintf(r->errbuf, sizeof(r->errbuf), "%s: %s", path, strerror(errno));
		r->err = err;
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		in->streaming = true;
		in->end = UINT64_MAX;
		return 0;
	}
	in->map_size = (uint64_t)st.st_size;
	in->end = in->map_size;
	if (in->map_size) {
		void *m = mmap(NULL, in->map_size, PROT_READ, MAP_PRIVATE, in->fd, 0);

		if (m == MAP_FAILED) {
			int err = -errno;

			snprintf(r->errbuf, sizeof(r->errbuf), "%s: mmap: %s", path,
				 strerror(errno));
			r->err = err;
			return err;
		}
		madvise(m, in->map_size, MADV_SEQUENTIAL);
		in->map = m;
		in->guard = hbbp_mapguard__add(m, in->map_size, in->name) + 1;
		in->keep_from = UINT64_MAX;
	}
	return 0;
}

void perf_input__close(struct perf_input *in)
{
	if (!in)
		return;
	if (in->map) {
		hbbp_mapguard__remove(in->guard - 1);
		munmap((void *)in->map, in->map_size);
	}
	if (in->fd >= 0)
		close(in->fd);
	free(in->buf);
	free(in->zbuf);
	if (in->zds)
		ZSTD_freeDStream((ZSTD_DStream *)in->zds);
	free(in->name);
	memset(in, 0, sizeof(*in));
	in->fd = -1;
}

/* A failed read(2) or pread(2) of in: the message, kept as the reader's error. */
static int input__read_error(struct perf_reader *r, const struct perf_input *in)
{
	snprintf(r->errbuf, sizeof(r->errbuf), "%s: read: %s", in->name, strerror(errno));
	r->err = -errno;
	return r->err;
}

static int input__fill(struct perf_reader *r, struct perf_input *in, size_t n)
{
	if (in->start) {
		memmove(in->buf, in->buf + in->start, in->len - in->start);
		in->len -= in->start;
		in->buf_off += in->start;
		in->start = 0;
	}
	/* at least STREAM_START bytes: the size of each read(2) */
	if (grow_array((void **)&in->buf, &in->cap, 1, n < STREAM_START ? STREAM_START : n,
		       SIZE_MAX))
		return -ENOMEM;
	while (in->len < n && !in->eof) {
		ssize_t got = read(in->fd, in->buf + in->len, in->cap - in->len);

		if (got < 0) {
			if (errno == EINTR)
				continue;
			return input__read_error(r, in);
		}
		if (got == 0)
			in->eof = true;
		in->len += (size_t)got;
	}
	return 0;
}

/* pread mode: makes buf hold [pos, pos + want), reading PREAD_CHUNK or more at once. buf is
 * a window of the file that also keeps the bytes from keep_from on (records the order queue
 * holds in place); it is compacted (those bytes moved to its start) only when full, and
 * grows only when they and the next read do not fit. */
static int input__pread(struct perf_reader *r, struct perf_input *in, size_t want)
{
	size_t chunk = PREAD_CHUNK;
	uint64_t keep = in->keep_from < in->pos ? in->keep_from : in->pos;
	uint64_t to = in->pos + (want > chunk ? want : chunk);
	uint64_t have_end = in->buf_off + in->len;

	if (in->pos >= in->buf_off && in->pos + want <= have_end)
		return 0;
	if (to > in->end)
		to = in->end;
	if (in->pos > have_end || in->pos < in->buf_off) {
		/* skipped past the window (AUXTRACE payload): records queued in it are copied
		 * out by the order queue, and the window starts again at pos */
		if (in->keep_from != UINT64_MAX &&
		    perf_order__unpin(r, (size_t)(in - r->inputs), UINT64_MAX))
			return -ENOMEM;
		in->buf_off = in->pos;
		in->len = 0;
		keep = in->pos;
		have_end = in->pos;
	}
	if (to - in->buf_off > in->cap && keep > in->buf_off) {
		size_t drop = (size_t)(keep - in->buf_off);

		memmove(in->buf, in->buf + drop, in->len - drop);
		in->len -= drop;
		in->buf_off = keep;
	}
	if (to - in->buf_off > in->cap) {
		/* by what is needed, in chunks: not doubled, which would add to peak RSS */
		size_t cap = (size_t)(to - in->buf_off) + chunk - 1;
		uint8_t *nb;

		cap -= cap % chunk;
		if (cap < PREAD_WINDOW)
			cap = PREAD_WINDOW;
		if (in->end != UINT64_MAX && cap > in->end - in->buf_off)
			cap = (size_t)(in->end - in->buf_off);	/* no more than the file holds */
		/* grown in place (mremap) when a record queued for long holds it */
		nb = realloc(in->buf, cap);
		if (!nb)
			return -ENOMEM;
		in->buf = nb;
		in->cap = cap;
	}
	while (have_end < to) {
		ssize_t k = pread(in->fd, in->buf + in->len, (size_t)(to - have_end),
				  (off_t)have_end);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return input__read_error(r, in);
		}
		if (k == 0)	/* in->end is within the size the file had at open */
			return perf_reader__fail(r, in->name, have_end,
						 "the file shrank while it was being read");
		in->len += (size_t)k;
		have_end += (uint64_t)k;
	}
	return 0;
}

int perf_input__peek(struct perf_reader *r, struct perf_input *in, size_t n,
		     const uint8_t **p, size_t *avail)
{
	*p = NULL;	/* set on every path, errors included */
	*avail = 0;
	if (!in->streaming) {
		uint64_t left = in->map && in->pos <= in->end ? in->end - in->pos : 0;

		if (left) {
			size_t want = left < n ? (size_t)left : n;
			size_t have;
			int err = input__pread(r, in, want);

			if (err)
				return err;
			have = in->len - (size_t)(in->pos - in->buf_off);
			*p = in->buf + (in->pos - in->buf_off);
			*avail = have < want ? have : want;
			return *avail == n;
		}
		*p = in->map ? in->map + in->pos : NULL;
		*avail = left < n ? (size_t)left : n;
		return left >= n;
	}
	if (in->len - in->start < n) {
		int err = input__fill(r, in, n);

		if (err)
			return err;
	}
	*p = in->buf + in->start;
	*avail = in->len - in->start < n ? in->len - in->start : n;
	return *avail == n;
}

static int perf_input__skip(struct perf_reader *r, struct perf_input *in, uint64_t n)
{
	if (!in->streaming) {
		if (n > in->end - in->pos) {
			in->pos = in->end;
			return 0;
		}
		in->pos += n;
		return 1;
	}
	while (n) {
		size_t have = in->len - in->start;

		if (have >= n) {
			in->start += n;
			in->pos += n;
			return 1;
		}
		in->start += have;
		in->pos += have;
		n -= have;
		if (in->eof)
			return 0;
		in->start = in->len = 0;
		int err = input__fill(r, in, n < in->cap ? n : (in->cap ? in->cap : 65536));

		if (err)
			return err;
		if (in->len == 0)
			return 0;
	}
	return 1;
}

static int perf_input__decompress(struct perf_reader *r, struct perf_input *in,
				  const uint8_t *p, size_t n, uint64_t off)
{
	ZSTD_inBuffer zin = { p, n, 0 };

	if (!in->zds) {
		in->zds = (struct ZSTD_DCtx_s *)ZSTD_createDStream();
		if (!in->zds)
			return -ENOMEM;
		ZSTD_initDStream((ZSTD_DStream *)in->zds);
	}
	if (in->zpos) {
		memmove(in->zbuf, in->zbuf + in->zpos, in->zlen - in->zpos);
		in->zlen -= in->zpos;
		in->zpos = 0;
	}
	in->zoff = off;
	r->stats.nr_compressed_bytes += n;
	while (zin.pos < zin.size) {
		ZSTD_outBuffer zout;
		size_t ret;

		if (in->zcap - in->zlen < ZBUF_ROOM) {
			size_t want = in->zlen + ZBUF_ROOM;

			if (want > ZBUF_MAX)
				return perf_reader__fail(r, in->name, off,
					"compressed record: decompressed data exceeds %u bytes",
					ZBUF_MAX);
			if (grow_array((void **)&in->zbuf, &in->zcap, 1,
				       want < ZBUF_START ? ZBUF_START : want, ZBUF_MAX))
				return -ENOMEM;
		}
		zout.dst = in->zbuf;
		zout.size = in->zcap;
		zout.pos = in->zlen;
		ret = ZSTD_decompressStream((ZSTD_DStream *)in->zds, &zout, &zin);
		if (ZSTD_isError(ret))
			return perf_reader__fail(r, in->name, off, "compressed record: zstd: %s",
						 ZSTD_getErrorName(ret));
		r->stats.nr_decompressed_bytes += zout.pos - in->zlen;
		in->zlen = zout.pos;
	}
	return 0;
}

/* A cut recording: have bytes of a record (or blob) of want bytes are there. The missing
 * count is exact when the file header gave the data size (set at open), else at least the
 * rest of the cut record. */
static void input__cut(struct perf_reader *r, uint64_t have, uint64_t want)
{
	r->hdr.truncated = true;
	r->stats.partial_bytes += have;
	if (!r->missing_known && want > have)
		r->stats.truncated_bytes += want - have;
}

static int input__compressed2(struct perf_reader *r, struct perf_input *in,
			      const uint8_t *p, uint16_t hsize, uint64_t off)
{
	uint64_t ds = rd64(r, p + 8);
	uint64_t total, skip;
	const uint8_t *blob;
	size_t avail;
	int ret;

	if (ds > PERF_MAX_COMP2_BLOB)
		return perf_reader__fail(r, in->name, off,
			"COMPRESSED2 record: data_size %llu too large", (unsigned long long)ds);
	total = 16 + ds;
	skip = (total + 7) & ~7ULL;
	if ((skip & 0xffff) != hsize && !(ds <= COMP_MAX_PAYLOAD && hsize >= 16 &&
					   hsize >= total && hsize - total < 8))
		return perf_reader__fail(r, in->name, off,
			"COMPRESSED2 record: size %u does not match data_size %llu",
			hsize, (unsigned long long)ds);
	ret = perf_input__peek(r, in, skip, &blob, &avail);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		if (avail < total) {
			input__cut(r, avail, total);
			perf_input__skip(r, in, avail);
			return 0;
		}
		skip = avail;	/* padding missing at the very end */
	}
	r->stats.nr_records[PERF_RECORD_COMPRESSED2]++;
	r->hdr.compressed = true;
	if (ds <= COMP_MAX_PAYLOAD) {
		ret = perf_input__decompress(r, in, blob + 16, ds, off);
	} else {
		/* writer bug: first payload is full, more 16-byte headers follow inside */
		uint64_t pos = 16 + COMP_MAX_PAYLOAD;

		ret = perf_input__decompress(r, in, blob + 16, COMP_MAX_PAYLOAD, off);
		while (!ret && pos < total) {
			uint16_t sz;

			if (total - pos < 16)
				return perf_reader__fail(r, in->name, off + pos,
					"COMPRESSED2 record: truncated inner header");
			sz = rd16(r, blob + pos + 6);
			if (sz < 16 || sz > total - pos)
				return perf_reader__fail(r, in->name, off + pos,
					"COMPRESSED2 record: inner size %u invalid", sz);
			ret = perf_input__decompress(r, in, blob + pos + 16, sz - 16u, off);
			pos += sz;
		}
	}
	if (ret)
		return ret;
	perf_input__skip(r, in, skip);
	return 1;
}

/* Size of the record at p. simpleperf's own record types (type >= 32768, never used by
 * Linux perf) carry a 32-bit size: its high half in the header's misc field, its low half
 * in size (simpleperf record.h, RecordHeader). Bounded so that a pipe buffer stays small. */
#define SIMPLEPERF_TYPE_START 32768u
#define SIMPLEPERF_MAX_RECORD (64u << 20)
static uint32_t record_size(const struct perf_reader *r, const uint8_t *p)
{
	if (rd32(r, p) >= SIMPLEPERF_TYPE_START)
		return (uint32_t)rd16(r, p + 4) << 16 | rd16(r, p + 6);
	return rd16(r, p + 6);
}

static void raw_set(struct perf_raw *raw, struct perf_input *in, const uint8_t *p, uint32_t size,
		    uint32_t type, uint64_t off)
{
	raw->p = p;
	raw->size = size;
	raw->type = type;
	raw->offset = off;
	raw->in = in;
	raw->extra = NULL;
	raw->extra_size = 0;
}

/* The next record of the decompressed buffer into raw: 1, 0 when it holds none whole, or an
 * error. Compressed records inside are skipped and counted: perf never nests them. */
static int input__next_decompressed(struct perf_reader *r, struct perf_input *in,
				    struct perf_raw *raw)
{
	const uint8_t *p;
	uint32_t size;

	do {
		if (in->zlen - in->zpos < 8)
			return 0;	/* zbuf may be NULL: no pointer into it before this */
		p = in->zbuf + in->zpos;
		size = record_size(r, p);
		if (size < 8)
			return perf_reader__fail(r, in->name, in->zoff,
				"decompressed record: size %u < header size", size);
		if (in->zlen - in->zpos < size)
			return 0;
		raw_set(raw, in, p, size, rd32(r, p), in->zoff);
		in->zpos += size;
	} while ((raw->type == PERF_RECORD_COMPRESSED || raw->type == PERF_RECORD_COMPRESSED2) &&
		 ++r->stats.nr_nested_compressed);
	return 1;
}

/* HEADER_TRACING_DATA (raw set to its record of size bytes at p): the data after it, or
 * (simpleperf) inside it. 1, 0 at a cut end, or an error. */
static int input__tracing_data(struct perf_reader *r, struct perf_input *in,
			       struct perf_raw *raw, const uint8_t *p, uint32_t size, uint64_t off)
{
	uint32_t blob = rd32(r, p + 8);
	size_t have;
	int ret;

	if (blob > PERF_MAX_BLOB)
		return perf_reader__fail(r, in->name, off,
			"TRACING_DATA record: size %u too large", blob);
	if (size > 16 && size >= 12 + (uint64_t)blob) {
		/* simpleperf: the data inside the record, after the u32 size */
		raw->extra = p + 12;
		raw->extra_size = blob;
		perf_input__skip(r, in, size);
		return 1;
	}
	ret = perf_input__peek(r, in, (size_t)size + blob, &p, &have);
	if (ret <= 0) {
		if (!ret)
			input__cut(r, have, (uint64_t)size + blob);
		return ret;
	}
	raw->p = p;
	raw->extra = p + size;
	raw->extra_size = blob;
	perf_input__skip(r, in, (uint64_t)size + blob);
	return 1;
}

/* AUXTRACE (raw set to its record of size bytes at p): its payload skipped, its size in
 * raw->extra_size. 1 or an error. */
static int input__auxtrace(struct perf_reader *r, struct perf_input *in, struct perf_raw *raw,
			   const uint8_t *p, uint32_t size)
{
	uint64_t payload = rd64(r, p + 8);
	int ret;

	raw->extra_size = payload;
	if (in->streaming) {
		/* the record bytes must survive skipping the payload */
		if (r->recbuf_cap < size) {
			uint8_t *nb = realloc(r->recbuf, 65536);

			if (!nb)
				return -ENOMEM;
			r->recbuf = nb;
			r->recbuf_cap = 65536;
		}
		memcpy(r->recbuf, p, size);
		raw->p = r->recbuf;
	}
	perf_input__skip(r, in, size);
	ret = perf_input__skip(r, in, payload);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		r->hdr.truncated = true;
		in->done = true;
	}
	return 1;
}

/* The record at in's position, size bytes long, of this type: 1 with raw set, 2 when it was
 * consumed (a compressed one: its records are in the decompressed buffer), 0 at a cut end,
 * or an error. */
static int input__record(struct perf_reader *r, struct perf_input *in, struct perf_raw *raw,
			 uint32_t type, uint32_t size, uint64_t off)
{
	const uint8_t *p;
	size_t avail;
	int ret;

	if (size < 8) {
		if (!r->hdr.truncated)
			return perf_reader__fail(r, in->name, off,
				"record size %u < header size", size);
		/* zeros where the killed recorder wrote nothing more */
		r->stats.partial_bytes += in->end == UINT64_MAX ? 0 : in->end - off;
		return 0;
	}
	ret = perf_input__peek(r, in, size, &p, &avail);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		/* partial last record: normal after a killed recorder or in a pipe */
		if (!in->streaming && r->hdr.data_size && !r->hdr.truncated &&
		    !r->hdr.is_pipe && in == &r->inputs[0])
			return perf_reader__fail(r, in->name, off,
				"record size %u runs past the end of the data section", size);
		input__cut(r, avail, size);
		return 0;
	}
	raw_set(raw, in, p, size, type, off);
	if (type == PERF_RECORD_COMPRESSED) {
		r->stats.nr_records[type]++;
		r->hdr.compressed = true;
		ret = perf_input__decompress(r, in, p + 8, size - 8u, off);
		if (ret)
			return ret;
		perf_input__skip(r, in, size);
		return 2;
	}
	if (type == PERF_RECORD_HEADER_TRACING_DATA && size >= 12)
		return input__tracing_data(r, in, raw, p, size, off);
	if (type == PERF_RECORD_AUXTRACE && size >= 16)
		return input__auxtrace(r, in, raw, p, size);
	perf_input__skip(r, in, size);
	return 1;
}

int perf_input__next(struct perf_reader *r, struct perf_input *in, struct perf_raw *raw)
{
	for (;;) {
		const uint8_t *p;
		size_t avail;
		uint32_t type, size;
		uint64_t off;
		int ret = input__next_decompressed(r, in, raw);

		if (ret)
			return ret;
		if (in->done)
			return 0;
		off = in->pos;
		ret = perf_input__peek(r, in, 8, &p, &avail);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			if (avail)
				input__cut(r, avail, 8);
			break;
		}
		type = rd32(r, p);
		size = record_size(r, p);
		if (size > SIMPLEPERF_MAX_RECORD && in->streaming)	/* bounds the buffer */
			return perf_reader__fail(r, in->name, off,
				"record type %u: size %u exceeds %u", type, size,
				SIMPLEPERF_MAX_RECORD);
		if (type == PERF_RECORD_COMPRESSED2) {
			ret = perf_input__peek(r, in, 16, &p, &avail);
			if (ret == 0)
				input__cut(r, avail, size > 16 ? size : 16);
			else if (ret > 0 && (ret = input__compressed2(r, in, p, size, off)) == 1)
				ret = 2;	/* its records are in the decompressed buffer */
		} else {
			ret = input__record(r, in, raw, type, size, off);
		}
		if (ret < 0 || ret == 1)
			return ret;
		if (ret == 0)
			break;
	}
	/* the end: what the decompressed buffer still holds is a cut record */
	in->done = true;
	if (in->zlen - in->zpos) {
		input__cut(r, in->zlen - in->zpos, in->zlen - in->zpos);
		in->zpos = in->zlen;
	}
	return 0;
}
