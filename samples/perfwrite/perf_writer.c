/* The perf.data writer (contract in perf_writer.h): file structure, buffered output,
 * zstd compression and header features. Record bodies are laid out by perf_writer_enc.c.
 *
 * File mode: [header 104][ids][attrs][data][feature index][feature payloads]; the header is
 * rewritten at close. Pipe mode: [pipe header][HEADER_ATTR...][HEADER_FEATURE... end marker]
 * [records]. With compression, kernel records are gathered into chunks; each chunk goes
 * through one long-lived ZSTD_CStream (compress, then flush; the frame is never ended) and
 * is cut into COMPRESSED/COMPRESSED2 records of at most 65519 payload bytes, as
 * `perf record -z` does; user records (FINISHED_ROUND, build-ids) stay uncompressed.
 * Knows nothing of ELF, capstone, HBBP or the result writers.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <zstd.h>

#include "reader/perf_format.h"
#include "samples/perfwrite/perf_writer.h"
#include "samples/perfwrite/perf_writer_enc.h"
#include "util/grow.h"

#define OUT_BUF_SIZE	(4u << 20)	/* output buffer handed to write(2) */
#define OUT_BUF_START	(64u << 10)	/* it starts small and doubles up to OUT_BUF_SIZE */
#define CHUNK_SIZE	(256u << 10)	/* uncompressed bytes per compressed chunk */
#define SLICE_SIZE	(48u << 10)	/* compressed then flushed: output < COMP_MAX, so
					 * every record holds whole zstd blocks (perf 6.1
					 * fails on a record that decompresses to nothing) */
#define COMP_MAX	65519u		/* PERF_SAMPLE_MAX_SIZE - 16 - 1: payload per record */
#define REC_MAX		65535u		/* header.size is a u16 */
/* The feature id perf 6.1 uses to end the HEADER_FEATURE block (its HEADER_LAST_FEATURE).
 * perf 6.1 rejects larger ids; newer readers treat an empty payload as the marker. */
#define PIPE_FEATURE_END	32

struct pw_event {
	struct perf_evattr attr;
	char *name;
	uint64_t *ids;
	size_t nr_ids;
};

struct pw_build_id {
	int32_t pid;
	uint16_t cpumode;
	uint8_t size;
	uint8_t id[20];
	char *filename;
};

struct perf_writer {
	struct perf_writer_opts opts;	/* strings point into owned copies below */
	char *strs[6];
	char **cmdline;
	char *path;			/* regular file to remove on error, else NULL */
	int fd;
	bool fd_owned;			/* fd to close although path is NULL */
	bool started;			/* header/attrs (pipe: and features) emitted */
	int err;			/* sticky first error */
	/* output */
	uint8_t *out;
	size_t out_len, out_cap;
	uint64_t out_pos;		/* file offset of out[0] */
	uint64_t data_offset, data_size;
	/* events and build-ids */
	struct pw_event *ev;
	size_t nr_ev, cap_ev;
	struct pw_build_id *bid;
	size_t nr_bid, cap_bid;
	uint64_t first_time, last_time;
	bool have_time;
	/* compression */
	ZSTD_CStream *zcs;
	uint8_t *chunk;
	size_t chunk_len;
	uint8_t *zout;
	size_t zout_cap;
	uint64_t raw_bytes, comp_bytes;
	/* one record being encoded */
	struct pw_buf rec;
};

static int set_err(struct perf_writer *w, int err)
{
	if (err && !w->err)
		w->err = err;
	return w->err;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = write(fd, p, n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int out_flush(struct perf_writer *w)
{
	int err;

	if (w->err)
		return w->err;
	if (!w->out_len)
		return 0;
	err = write_all(w->fd, w->out, w->out_len);
	w->out_pos += w->out_len;
	w->out_len = 0;
	return set_err(w, err);
}

/* Appends bytes to the output stream (not the compressor). */
static int out_put(struct perf_writer *w, const void *p, size_t n)
{
	const uint8_t *s = p;

	if (w->err)
		return w->err;
	while (n) {
		size_t room = w->out_cap - w->out_len, k = n < room ? n : room;

		if (n > room && w->out_cap < OUT_BUF_SIZE) {
			size_t want = n > OUT_BUF_SIZE - w->out_len ? OUT_BUF_SIZE : w->out_len + n;

			if (grow_array((void **)&w->out, &w->out_cap, 1, want, OUT_BUF_SIZE))
				return set_err(w, -ENOMEM);
			continue;
		}
		if (!room) {
			if (out_flush(w))
				return w->err;
			continue;
		}
		if (k == OUT_BUF_SIZE && !w->out_len) {	/* large write: bypass the buffer */
			int err = write_all(w->fd, s, n);

			w->out_pos += n;
			return set_err(w, err);
		}
		memcpy(w->out + w->out_len, s, k);
		w->out_len += k;
		s += k;
		n -= k;
	}
	return 0;
}

static uint64_t out_offset(const struct perf_writer *w)
{
	return w->out_pos + w->out_len;
}

static void hdr_start(struct pw_buf *b, uint32_t type, uint16_t misc)
{
	b->len = 0;
	b->overflow = false;
	pw_put_u32(b, type);
	pw_put_u16(b, misc);
	pw_put_u16(b, 0);	/* size, set by hdr_finish */
}

static int hdr_finish(struct pw_buf *b)
{
	if (b->overflow || b->len > REC_MAX)
		return -E2BIG;
	pw_set_u16(b, 6, (uint16_t)b->len);
	return 0;
}

static int comp_records(struct perf_writer *w, struct pw_buf *h, size_t len);

/* Compresses the gathered chunk and emits it as COMPRESSED/COMPRESSED2 records. */
static int chunk_flush(struct perf_writer *w)
{
	ZSTD_inBuffer in = { w->chunk, w->chunk_len, 0 };
	ZSTD_outBuffer zo = { w->zout, w->zout_cap, 0 };
	struct pw_buf h = { .swap = w->opts.swap };
	uint8_t hb[16];
	size_t r;

	if (w->err || !w->chunk_len)
		return w->err;
	h.p = hb;
	h.cap = sizeof(hb);
	while (in.pos < in.size) {
		size_t end = in.size;

		/* one slice: compress, flush; its output always fits one record */
		in.size = in.pos + SLICE_SIZE < end ? in.pos + SLICE_SIZE : end;
		zo.pos = 0;
		while (in.pos < in.size) {
			r = ZSTD_compressStream(w->zcs, &zo, &in);
			if (ZSTD_isError(r) || zo.pos == zo.size)
				return set_err(w, -EIO);
		}
		do {
			r = ZSTD_flushStream(w->zcs, &zo);
			if (ZSTD_isError(r) || (r && zo.pos == zo.size))
				return set_err(w, -EIO);
		} while (r);
		in.size = end;
		w->comp_bytes += zo.pos;
		if (comp_records(w, &h, zo.pos))
			return w->err;
	}
	w->raw_bytes += w->chunk_len;
	w->chunk_len = 0;
	return w->err;
}

/* Cuts n bytes of zstd output into COMPRESSED/COMPRESSED2 records of at most COMP_MAX. */
static int comp_records(struct perf_writer *w, struct pw_buf *h, size_t len)
{
	uint8_t *hb = h->p;

	for (size_t off = 0; off < len; ) {
		size_t n = len - off < COMP_MAX ? len - off : COMP_MAX;
		static const uint8_t pad[8];

		h->len = 0;
		if (w->opts.compress == PERF_WRITER_COMPRESS_ZSTD) {
			pw_put_u32(h, PERF_RECORD_COMPRESSED);
			pw_put_u16(h, 0);
			pw_put_u16(h, (uint16_t)(8 + n));
			out_put(w, hb, h->len);
			out_put(w, w->zout + off, n);
		} else {
			size_t total = (16 + n + 7) & ~(size_t)7;

			pw_put_u32(h, PERF_RECORD_COMPRESSED2);
			pw_put_u16(h, 0);
			pw_put_u16(h, (uint16_t)total);
			pw_put_u64(h, n);
			out_put(w, hb, h->len);
			out_put(w, w->zout + off, n);
			out_put(w, pad, total - 16 - n);
		}
		off += n;
	}
	return w->err;
}

/* Emits one finished record; kernel records go through the compressor when enabled. */
static int emit(struct perf_writer *w, const uint8_t *p, size_t n, bool compressible)
{
	if (w->err)
		return w->err;
	if (w->opts.compress == PERF_WRITER_COMPRESS_NONE)
		return out_put(w, p, n);
	if (!compressible) {
		if (chunk_flush(w))
			return w->err;
		return out_put(w, p, n);
	}
	if (n > CHUNK_SIZE - w->chunk_len && chunk_flush(w))
		return w->err;
	memcpy(w->chunk + w->chunk_len, p, n);
	w->chunk_len += n;
	return 0;
}

static int emit_rec(struct perf_writer *w, bool compressible)
{
	int err = hdr_finish(&w->rec);

	if (err)
		return err;	/* a too-large record is the caller's error, not sticky */
	return emit(w, w->rec.p, w->rec.len, compressible);
}

/* ---- features ---- */

static void put_build_id_entry(struct pw_buf *b, const struct pw_build_id *e, uint32_t type,
			       size_t name_align)
{
	size_t start = b->len;

	pw_put_u32(b, type);
	pw_put_u16(b, e->cpumode | PERF_RECORD_MISC_BUILD_ID_SIZE);
	pw_put_u16(b, 0);
	pw_put_u32(b, (uint32_t)e->pid);
	pw_put_bytes(b, e->id, 20);
	pw_put_u8(b, e->size);
	pw_put_zeros(b, 3);
	if (name_align == 64) {
		pw_put_padded_str(b, e->filename, 64);
	} else {	/* whole record padded to 8, as current perf writes record 67 */
		size_t n = strlen(e->filename) + 1;
		size_t len = ((36 + n + 7) & ~(size_t)7) - 36;

		pw_put_bytes(b, e->filename, n);
		pw_put_zeros(b, len - n);
	}
	if (!b->overflow && b->len - start <= 0xffff)
		pw_set_u16(b, start + 6, (uint16_t)(b->len - start));
	else
		b->overflow = true;
}

/* Builds the payload of feature feat into b; returns false when it is not written. */
static bool feature_payload(struct perf_writer *w, int feat, struct pw_buf *b)
{
	const struct perf_writer_opts *o = &w->opts;
	const char *s = NULL;
	size_t n;

	switch (feat) {
	case HEADER_BUILD_ID:
		if (o->pipe || !w->nr_bid)
			return false;
		for (size_t i = 0; i < w->nr_bid; i++)
			put_build_id_entry(b, &w->bid[i], 0, 64);
		return true;
	case HEADER_HOSTNAME: s = o->hostname; break;
	case HEADER_OSRELEASE: s = o->osrelease; break;
	case HEADER_VERSION: s = o->version; break;
	case HEADER_ARCH: s = o->arch; break;
	case HEADER_CPUDESC: s = o->cpudesc; break;
	case HEADER_CPUID: s = o->cpuid; break;
	case HEADER_NRCPUS:
		if (!o->nr_cpus)
			return false;
		pw_put_u32(b, o->nr_cpus);	/* available */
		pw_put_u32(b, o->nr_cpus);	/* online */
		return true;
	case HEADER_CMDLINE:
		if (!o->cmdline)
			return false;
		for (n = 0; o->cmdline[n]; n++)
			;
		pw_put_u32(b, (uint32_t)n);
		for (size_t i = 0; i < n; i++)
			pw_put_str64(b, o->cmdline[i]);
		return true;
	case HEADER_EVENT_DESC: {
		bool named = false;

		for (size_t i = 0; i < w->nr_ev; i++)
			named |= w->ev[i].name != NULL;
		if (!named)
			return false;
		pw_put_u32(b, (uint32_t)w->nr_ev);
		pw_put_u32(b, o->attr_size);
		for (size_t i = 0; i < w->nr_ev; i++) {
			const struct pw_event *e = &w->ev[i];

			pw_put_attr(b, &e->attr, o->attr_size);
			pw_put_u32(b, (uint32_t)e->nr_ids);
			pw_put_str64(b, e->name ? e->name : "");
			for (size_t k = 0; k < e->nr_ids; k++)
				pw_put_u64(b, e->ids[k]);
		}
		return true;
	}
	case HEADER_BRANCH_STACK:
		return !o->pipe && o->branch_stack;
	case HEADER_SAMPLE_TIME:
		if (o->pipe || !w->have_time)
			return false;
		pw_put_u64(b, w->first_time);
		pw_put_u64(b, w->last_time);
		return true;
	case HEADER_COMPRESSED:
		if (o->compress == PERF_WRITER_COMPRESS_NONE)
			return false;
		pw_put_u32(b, 1);			/* version */
		pw_put_u32(b, 1);			/* zstd */
		pw_put_u32(b, (uint32_t)o->zstd_level);
		pw_put_u32(b, w->comp_bytes ?
			  (uint32_t)((w->raw_bytes + w->comp_bytes / 2) / w->comp_bytes) : 0);
		pw_put_u32(b, CHUNK_SIZE);		/* decompression buffer perf needs */
		return true;
	default:
		return false;
	}
	if (!s)
		return false;
	pw_put_str64(b, s);
	return true;
}

static const int feature_ids[] = {
	HEADER_BUILD_ID, HEADER_HOSTNAME, HEADER_OSRELEASE, HEADER_VERSION, HEADER_ARCH,
	HEADER_NRCPUS, HEADER_CPUDESC, HEADER_CPUID, HEADER_CMDLINE, HEADER_EVENT_DESC,
	HEADER_BRANCH_STACK, HEADER_SAMPLE_TIME, HEADER_COMPRESSED,
};
#define NR_FEATURES (sizeof(feature_ids) / sizeof(feature_ids[0]))

/* Pipe mode: one HEADER_FEATURE record per feature, then the end marker. */
static int write_pipe_features(struct perf_writer *w)
{
	struct pw_buf b = { .swap = w->opts.swap, .max = REC_MAX };
	int err = 0;

	for (size_t i = 0; i < NR_FEATURES + 1 && !err; i++) {
		int feat = i < NR_FEATURES ? feature_ids[i] : PIPE_FEATURE_END;

		hdr_start(&b, PERF_RECORD_HEADER_FEATURE, 0);
		pw_put_u64(&b, (uint64_t)feat);
		if (i < NR_FEATURES && !feature_payload(w, feat, &b))
			continue;
		pw_put_zeros(&b, ((b.len + 7) & ~(size_t)7) - b.len);
		err = hdr_finish(&b);
		if (!err)
			err = emit(w, b.p, b.len, false);
	}
	free(b.p);
	return set_err(w, err);
}

/* File mode: feature index then payloads at data end; fills the bitmap. */
static int write_file_features(struct perf_writer *w, uint64_t bitmap[4])
{
	struct pw_buf pay[NR_FEATURES];
	struct pw_buf idx = { .swap = w->opts.swap, .max = 1 << 12 };
	uint64_t off;
	size_t nr = 0;
	int err = 0;

	memset(pay, 0, sizeof(pay));
	for (size_t i = 0; i < NR_FEATURES; i++) {
		struct pw_buf *b = &pay[nr];

		b->swap = w->opts.swap;
		b->max = 1u << 30;
		b->len = 0;
		if (!feature_payload(w, feature_ids[i], b)) {
			free(b->p);
			b->p = NULL;
			b->cap = 0;
			continue;
		}
		if (b->overflow) {
			err = -E2BIG;
			nr++;
			break;
		}
		bitmap[feature_ids[i] / 64] |= 1ULL << (feature_ids[i] % 64);
		nr++;
	}
	off = out_offset(w) + 16 * nr;
	for (size_t i = 0; i < nr && !err; i++) {
		pw_put_u64(&idx, off);
		pw_put_u64(&idx, pay[i].len);
		off += pay[i].len;
	}
	if (!err)
		err = out_put(w, idx.p, idx.len);
	for (size_t i = 0; i < nr && !err; i++)
		err = out_put(w, pay[i].p, pay[i].len);
	for (size_t i = 0; i < nr; i++)
		free(pay[i].p);
	free(idx.p);
	return set_err(w, err);
}

/* ---- start: header, ids and attrs (file) or HEADER_ATTR + features (pipe) ---- */

static int start(struct perf_writer *w)
{
	struct pw_buf b = { .swap = w->opts.swap, .max = 1u << 30 };
	uint32_t asz = w->opts.attr_size;
	int err = 0;

	if (w->started || w->err)
		return w->err;
	w->started = true;
	if (w->opts.pipe) {
		pw_put_u64(&b, PERF_MAGIC2);
		pw_put_u64(&b, PERF_PIPE_HEADER_SIZE);
		err = b.overflow ? -ENOMEM : out_put(w, b.p, b.len);
		for (size_t i = 0; i < w->nr_ev && !err; i++) {
			const struct pw_event *e = &w->ev[i];

			b.max = REC_MAX;
			hdr_start(&b, PERF_RECORD_HEADER_ATTR, 0);
			pw_put_attr(&b, &e->attr, asz);
			for (size_t k = 0; k < e->nr_ids; k++)
				pw_put_u64(&b, e->ids[k]);
			err = hdr_finish(&b);
			if (!err)
				err = out_put(w, b.p, b.len);
		}
		free(b.p);
		if (!err)
			err = write_pipe_features(w);
		for (size_t i = 0; i < w->nr_bid && !err; i++) {
			struct pw_buf r = { .swap = w->opts.swap, .max = REC_MAX };

			put_build_id_entry(&r, &w->bid[i], PERF_RECORD_HEADER_BUILD_ID, 8);
			err = r.overflow ? -E2BIG : out_put(w, r.p, r.len);
			free(r.p);
		}
		return set_err(w, err);
	}
	/* file: header placeholder (rewritten at close), the id arrays, the attr entries */
	uint64_t ids_off = PERF_FILE_HEADER_SIZE;

	pw_put_zeros(&b, PERF_FILE_HEADER_SIZE);
	for (size_t i = 0; i < w->nr_ev; i++)
		for (size_t k = 0; k < w->ev[i].nr_ids; k++)
			pw_put_u64(&b, w->ev[i].ids[k]);
	for (size_t i = 0; i < w->nr_ev; i++) {
		pw_put_attr(&b, &w->ev[i].attr, asz);
		pw_put_u64(&b, ids_off);
		pw_put_u64(&b, 8 * w->ev[i].nr_ids);
		ids_off += 8 * w->ev[i].nr_ids;
	}
	err = b.overflow ? -ENOMEM : out_put(w, b.p, b.len);
	free(b.p);
	w->data_offset = out_offset(w);
	return set_err(w, err);
}

static int write_file_header(struct perf_writer *w, const uint64_t bitmap[4])
{
	uint8_t hb[PERF_FILE_HEADER_SIZE];
	struct pw_buf b = { .p = hb, .cap = sizeof(hb), .swap = w->opts.swap };
	uint64_t ids_total = 0;
	ssize_t r;

	for (size_t i = 0; i < w->nr_ev; i++)
		ids_total += 8 * w->ev[i].nr_ids;
	pw_put_u64(&b, PERF_MAGIC2);
	pw_put_u64(&b, PERF_FILE_HEADER_SIZE);
	pw_put_u64(&b, w->opts.attr_size + 16);
	pw_put_u64(&b, PERF_FILE_HEADER_SIZE + ids_total);		/* attrs */
	pw_put_u64(&b, (uint64_t)w->nr_ev * (w->opts.attr_size + 16));
	pw_put_u64(&b, w->data_offset);					/* data */
	pw_put_u64(&b, w->data_size);
	pw_put_u64(&b, 0);						/* event_types */
	pw_put_u64(&b, 0);
	for (int i = 0; i < 4; i++)	/* unsigned long[] on a 64-bit producer */
		pw_put_u64(&b, bitmap[i]);
	do {
		r = pwrite(w->fd, hb, sizeof(hb), 0);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return set_err(w, -errno);
	if (r != (ssize_t)sizeof(hb))
		return set_err(w, -EIO);
	return 0;
}

/* ---- public API ---- */

static char *dup_opt(const char *s, int *err)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*err = -ENOMEM;
	return d;
}

static void writer_free(struct perf_writer *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nr_ev; i++) {
		free(w->ev[i].name);
		free(w->ev[i].ids);
	}
	free(w->ev);
	for (size_t i = 0; i < w->nr_bid; i++)
		free(w->bid[i].filename);
	free(w->bid);
	for (size_t i = 0; i < 6; i++)
		free(w->strs[i]);
	if (w->cmdline)
		for (size_t i = 0; w->cmdline[i]; i++)
			free(w->cmdline[i]);
	free(w->cmdline);
	ZSTD_freeCStream(w->zcs);
	free(w->chunk);
	free(w->zout);
	free(w->out);
	free(w->rec.p);
	free(w->path);
	free(w);
}

static int copy_opts(struct perf_writer *w, const struct perf_writer_opts *o)
{
	const char *src[6] = { o->version, o->hostname, o->osrelease, o->arch, o->cpudesc,
			       o->cpuid };
	int err = 0;
	size_t n = 0;

	w->opts = *o;
	for (int i = 0; i < 6; i++)
		w->strs[i] = dup_opt(src[i], &err);
	w->opts.version = w->strs[0];
	w->opts.hostname = w->strs[1];
	w->opts.osrelease = w->strs[2];
	w->opts.arch = w->strs[3];
	w->opts.cpudesc = w->strs[4];
	w->opts.cpuid = w->strs[5];
	if (o->cmdline) {
		while (o->cmdline[n])
			n++;
		w->cmdline = calloc(n + 1, sizeof(*w->cmdline));
		if (!w->cmdline)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			w->cmdline[i] = dup_opt(o->cmdline[i], &err);
		w->opts.cmdline = (const char *const *)w->cmdline;
	}
	return err;
}

int perf_writer__open(struct perf_writer **out, const char *path,
		      const struct perf_writer_opts *opts)
{
	static const struct perf_writer_opts defaults;
	struct perf_writer *w;
	struct stat st;
	int err;

	*out = NULL;
	if (!opts)
		opts = &defaults;
	if (!path || (!strcmp(path, "-") && !opts->pipe))
		return -EINVAL;
	if (opts->attr_size && (opts->attr_size < PERF_ATTR_SIZE_VER0 ||
				opts->attr_size > PERF_ATTR_SIZE_VER8 || opts->attr_size % 8))
		return -EINVAL;
	if (opts->compress > PERF_WRITER_COMPRESS_ZSTD2)
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	err = copy_opts(w, opts);
	if (err)
		goto out_free;
	if (!w->opts.attr_size)
		w->opts.attr_size = PERF_ATTR_SIZE_VER7;
	if (!w->opts.zstd_level)
		w->opts.zstd_level = 1;
	w->out = malloc(OUT_BUF_START);
	w->out_cap = OUT_BUF_START;
	w->rec.p = malloc(REC_MAX + 1);
	w->rec.cap = REC_MAX + 1;
	w->rec.swap = w->opts.swap;
	if (!w->out || !w->rec.p) {
		err = -ENOMEM;
		goto out_free;
	}
	if (w->opts.compress != PERF_WRITER_COMPRESS_NONE) {
		w->zcs = ZSTD_createCStream();
		w->chunk = malloc(CHUNK_SIZE);
		w->zout_cap = ZSTD_compressBound(CHUNK_SIZE) + 4096;
		w->zout = malloc(w->zout_cap);
		if (!w->zcs || !w->chunk || !w->zout) {
			err = -ENOMEM;
			goto out_free;
		}
		if (ZSTD_isError(ZSTD_initCStream(w->zcs, w->opts.zstd_level))) {
			err = -EINVAL;
			goto out_free;
		}
	}
	if (!strcmp(path, "-")) {
		w->fd = STDOUT_FILENO;
	} else {
		w->path = strdup(path);
		if (!w->path) {
			err = -ENOMEM;
			goto out_free;
		}
		w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (w->fd < 0) {
			err = -errno;
			goto out_free;
		}
		/* only a regular file is removed on error (never /dev/full, a FIFO, ...) */
		if (fstat(w->fd, &st)) {
			err = -errno;
			close(w->fd);
			goto out_free;
		}
		if (!S_ISREG(st.st_mode)) {
			free(w->path);
			w->path = NULL;
			w->fd_owned = true;
		}
		/* file mode rewrites the header at close: no FIFOs or sockets */
		if (!w->opts.pipe && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
			err = -ESPIPE;
			close(w->fd);
			goto out_free;
		}
	}
	*out = w;
	return 0;
out_free:
	writer_free(w);
	return err;
}

/* Drops the fields an attr of size asz cannot hold, so that samples are encoded with the
 * attr exactly as a reader will see it (e.g. no hw_idx when branch_sample_type is cut). */
static void attr_truncate(struct perf_evattr *a, uint32_t asz)
{
	a->size = asz;
	if (asz < PERF_ATTR_SIZE_VER1)
		a->config2 = 0;
	if (asz < PERF_ATTR_SIZE_VER2)
		a->branch_sample_type = 0;
	if (asz < PERF_ATTR_SIZE_VER3) {
		a->sample_regs_user = 0;
		a->sample_stack_user = 0;
		a->clockid = 0;
	}
	if (asz < PERF_ATTR_SIZE_VER4)
		a->sample_regs_intr = 0;
	if (asz < PERF_ATTR_SIZE_VER5) {
		a->aux_watermark = 0;
		a->sample_max_stack = 0;
	}
	if (asz < PERF_ATTR_SIZE_VER6) {
		a->aux_sample_size = 0;
		a->aux_action = 0;
	}
	if (asz < PERF_ATTR_SIZE_VER7)
		a->sig_data = 0;
	if (asz < PERF_ATTR_SIZE_VER8)
		a->config3 = 0;
}

int perf_writer__add_event(struct perf_writer *w, const struct perf_evattr *attr,
			   const char *name, const uint64_t *ids, size_t nr_ids)
{
	struct pw_event *e;

	if (w->started)
		return -EBUSY;
	if (!attr || (nr_ids && !ids) || nr_ids > (REC_MAX - 8 - PERF_ATTR_SIZE_VER8) / 8)
		return -EINVAL;
	if (w->nr_ev >= 4096)
		return -E2BIG;
	if (grow_one((void **)&w->ev, &w->cap_ev, sizeof(*w->ev), w->nr_ev))
		return -ENOMEM;
	e = &w->ev[w->nr_ev];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	attr_truncate(&e->attr, w->opts.attr_size);
	if (name && !(e->name = strdup(name)))
		return -ENOMEM;
	if (nr_ids) {
		e->ids = malloc(nr_ids * sizeof(*ids));
		if (!e->ids) {
			free(e->name);
			return -ENOMEM;
		}
		memcpy(e->ids, ids, nr_ids * sizeof(*ids));
	}
	e->nr_ids = nr_ids;
	return (int)w->nr_ev++;
}

int perf_writer__add_build_id(struct perf_writer *w, int32_t pid, uint16_t cpumode,
			      const uint8_t *id, uint8_t size, const char *filename)
{
	struct pw_build_id e = { .pid = pid, .cpumode = cpumode & 7, .size = size };

	if (!id || !filename || size > 20 || strlen(filename) > 4000)
		return -EINVAL;
	memcpy(e.id, id, size);
	if (w->opts.pipe && w->started) {	/* record 67 in the stream */
		struct pw_buf r = { .swap = w->opts.swap, .max = REC_MAX };
		int err;

		e.filename = (char *)filename;
		put_build_id_entry(&r, &e, PERF_RECORD_HEADER_BUILD_ID, 8);
		err = r.overflow ? -E2BIG : emit(w, r.p, r.len, false);
		free(r.p);
		return err;
	}
	if (grow_one((void **)&w->bid, &w->cap_bid, sizeof(*w->bid), w->nr_bid))
		return -ENOMEM;
	e.filename = strdup(filename);
	if (!e.filename)
		return -ENOMEM;
	w->bid[w->nr_bid++] = e;
	return 0;
}

/* Event whose trailer layout a non-sample record uses: the one owning sid->id, else 0. */
static const struct perf_evattr *trailer_attr(const struct perf_writer *w,
					      const struct perf_sample_id *sid)
{
	if (!w->nr_ev)
		return NULL;
	if (sid && sid->id && w->nr_ev > 1)
		for (size_t i = 0; i < w->nr_ev; i++)
			for (size_t k = 0; k < w->ev[i].nr_ids; k++)
				if (w->ev[i].ids[k] == sid->id)
					return &w->ev[i].attr;
	return &w->ev[0].attr;
}

static void put_trailer(struct perf_writer *w, const struct perf_sample_id *sid)
{
	const struct perf_evattr *a = trailer_attr(w, sid);

	if (a && perf_evattr__sample_id_all(a))
		pw_put_sample_id(&w->rec, a->sample_type, sid);
}

static int begin_rec(struct perf_writer *w, uint32_t type, uint16_t misc)
{
	if (!w->started && start(w))
		return w->err;
	if (w->err)
		return w->err;
	hdr_start(&w->rec, type, misc);
	return 0;
}

int perf_writer__sample(struct perf_writer *w, int evidx, uint16_t misc,
			const struct perf_sample *s)
{
	const struct perf_evattr *a;
	int err;

	if (evidx < 0 || (size_t)evidx >= w->nr_ev || !s)
		return -EINVAL;
	if (begin_rec(w, PERF_RECORD_SAMPLE, misc))
		return w->err;
	a = &w->ev[evidx].attr;
	err = pw_put_sample(&w->rec, a, s);
	if (err)
		return err;
	err = emit_rec(w, true);
	if (!err && (a->sample_type & PERF_SAMPLE_TIME)) {
		if (!w->have_time || s->time < w->first_time)
			w->first_time = s->time;
		if (!w->have_time || s->time > w->last_time)
			w->last_time = s->time;
		w->have_time = true;
	}
	return err;
}

static int put_filename(struct perf_writer *w, const char *filename)
{
	if (!filename)
		return -EINVAL;
	pw_put_padded_str(&w->rec, filename, 8);
	return 0;
}

int perf_writer__mmap2(struct perf_writer *w, uint16_t misc, uint32_t pid, uint32_t tid,
		       uint64_t start_addr, uint64_t len, uint64_t pgoff, const uint8_t *build_id,
		       uint8_t build_id_size, uint32_t prot, uint32_t flags, const char *filename,
		       const struct perf_sample_id *sid)
{
	struct pw_buf *b = &w->rec;

	if (build_id && build_id_size > 20)
		return -EINVAL;
	if (build_id)
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	else
		misc &= (uint16_t)~PERF_RECORD_MISC_MMAP_BUILD_ID;
	if (begin_rec(w, PERF_RECORD_MMAP2, misc))
		return w->err;
	pw_put_u32(b, pid);
	pw_put_u32(b, tid);
	pw_put_u64(b, start_addr);
	pw_put_u64(b, len);
	pw_put_u64(b, pgoff);
	if (build_id) {
		uint8_t id[20] = { 0 };

		memcpy(id, build_id, build_id_size);
		pw_put_u8(b, build_id_size);
		pw_put_zeros(b, 3);
		pw_put_bytes(b, id, 20);
	} else {
		pw_put_zeros(b, 24);	/* maj, min, ino, ino_generation */
	}
	pw_put_u32(b, prot);
	pw_put_u32(b, flags);
	if (put_filename(w, filename))
		return -EINVAL;
	put_trailer(w, sid);
	return emit_rec(w, true);
}

int perf_writer__mmap(struct perf_writer *w, uint16_t misc, uint32_t pid, uint32_t tid,
		      uint64_t start_addr, uint64_t len, uint64_t pgoff, const char *filename,
		      const struct perf_sample_id *sid)
{
	struct pw_buf *b = &w->rec;

	if (begin_rec(w, PERF_RECORD_MMAP, misc))
		return w->err;
	pw_put_u32(b, pid);
	pw_put_u32(b, tid);
	pw_put_u64(b, start_addr);
	pw_put_u64(b, len);
	pw_put_u64(b, pgoff);
	if (put_filename(w, filename))
		return -EINVAL;
	put_trailer(w, sid);
	return emit_rec(w, true);
}

int perf_writer__comm(struct perf_writer *w, bool exec, uint32_t pid, uint32_t tid,
		      const char *comm, const struct perf_sample_id *sid)
{
	if (begin_rec(w, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0))
		return w->err;
	pw_put_u32(&w->rec, pid);
	pw_put_u32(&w->rec, tid);
	if (put_filename(w, comm))
		return -EINVAL;
	put_trailer(w, sid);
	return emit_rec(w, true);
}

int perf_writer__task(struct perf_writer *w, uint32_t type, uint32_t pid, uint32_t ppid,
		      uint32_t tid, uint32_t ptid, uint64_t time, const struct perf_sample_id *sid)
{
	if (type != PERF_RECORD_FORK && type != PERF_RECORD_EXIT)
		return -EINVAL;
	if (begin_rec(w, type, 0))
		return w->err;
	pw_put_u32(&w->rec, pid);
	pw_put_u32(&w->rec, ppid);
	pw_put_u32(&w->rec, tid);
	pw_put_u32(&w->rec, ptid);
	pw_put_u64(&w->rec, time);
	put_trailer(w, sid);
	return emit_rec(w, true);
}

int perf_writer__lost(struct perf_writer *w, uint64_t id, uint64_t lost,
		      const struct perf_sample_id *sid)
{
	if (begin_rec(w, PERF_RECORD_LOST, 0))
		return w->err;
	pw_put_u64(&w->rec, id);
	pw_put_u64(&w->rec, lost);
	put_trailer(w, sid);
	return emit_rec(w, true);
}

int perf_writer__throttle(struct perf_writer *w, bool unthrottle, uint64_t time, uint64_t id,
			  uint64_t stream_id, const struct perf_sample_id *sid)
{
	if (begin_rec(w, unthrottle ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE, 0))
		return w->err;
	pw_put_u64(&w->rec, time);
	pw_put_u64(&w->rec, id);
	pw_put_u64(&w->rec, stream_id);
	put_trailer(w, sid);
	return emit_rec(w, true);
}

int perf_writer__raw_record(struct perf_writer *w, uint32_t type, uint16_t misc,
			    const void *payload, size_t size)
{
	if (size > REC_MAX - 8 || (size && !payload))
		return -E2BIG;
	if (begin_rec(w, type, misc))
		return w->err;
	pw_put_bytes(&w->rec, payload, size);
	return emit_rec(w, type < PERF_RECORD_USER_TYPE_START);
}

int perf_writer__finished_round(struct perf_writer *w)
{
	if (begin_rec(w, PERF_RECORD_FINISHED_ROUND, 0))
		return w->err;
	return emit_rec(w, false);	/* uncompressed, after the chunk, like perf record -z */
}

int perf_writer__close(struct perf_writer *w)
{
	uint64_t bitmap[4] = { 0 };
	int err;

	if (!w)
		return -EINVAL;
	if (!w->started)
		start(w);
	if (w->opts.compress != PERF_WRITER_COMPRESS_NONE)
		chunk_flush(w);
	if (!w->opts.pipe) {
		w->data_size = out_offset(w) - w->data_offset;
		write_file_features(w, bitmap);
		out_flush(w);
		if (!w->err)
			write_file_header(w, bitmap);
	} else {
		out_flush(w);
	}
	err = w->err;
	if ((w->path || w->fd_owned) && w->fd >= 0) {
		if (close(w->fd) && !err)
			err = -errno;
		w->fd = -1;
		if (err && w->path)
			unlink(w->path);
	}
	writer_free(w);
	return err;
}

void perf_writer__abort(struct perf_writer *w)
{
	if (!w)
		return;
	if ((w->path || w->fd_owned) && w->fd >= 0) {
		close(w->fd);
		if (w->path)
			unlink(w->path);
	}
	writer_free(w);
}
