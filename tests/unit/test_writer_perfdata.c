/* The perf.data writer alone, without the reader: the bytes it writes are compared with
 * layouts computed by hand from the perf.data format (file header, attrs, feature index
 * and payloads, pipe-mode record sequence, big-endian bit-field layouts), its compressed
 * stream is decompressed here with libzstd and must equal the uncompressed data section,
 * and its error paths (bad options, late events, oversized records, ENOSPC, abort) return
 * the documented errors.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "reader/perf_format.h"
#include "samples/perfwrite/perf_writer.h"
#include "tests/harness.h"

static char tmpdir[256];

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc((size_t)n + 1);
	if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*size = (size_t)n;
	return p;
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
}

static void tmp_path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
}

static const struct perf_evattr ev_attr = {
	.type = PERF_TYPE_RAW, .config = 0x1c0, .sample_period = 1000003,
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
	.flags = PERF_ATTR_FLAG_DISABLED | (2ULL << PERF_ATTR_FLAG_PRECISE_SHIFT) |
		 PERF_ATTR_FLAG_SAMPLE_ID_ALL,
};

/* One event (ids 7, 8, name "ev"), HOSTNAME "host", one IP|TID sample. */
static uint8_t *write_small(bool swap, size_t *size)
{
	struct perf_writer_opts o = { .swap = swap, .hostname = "host" };
	static const uint64_t ids[] = { 7, 8 };
	struct perf_sample s = { .ip = 0x1122334455667788ULL, .pid = 0x01020304,
				 .tid = 0x05060708 };
	struct perf_writer *w;
	char path[300];

	tmp_path(path, sizeof(path), "small.data");
	CHECK_EQ_U64(perf_writer__open(&w, path, &o), 0);
	CHECK_EQ_U64(perf_writer__add_event(w, &ev_attr, "ev", ids, 2), 0);
	CHECK_EQ_U64(perf_writer__sample(w, 0, PERF_RECORD_MISC_USER, &s), 0);
	CHECK_EQ_U64(perf_writer__close(w), 0);
	return slurp(path, size);
}

static void test_writer_file_layout(void)
{
	size_t size;
	uint8_t *p = write_small(false, &size);
	const uint8_t *a, *ed;

	CHECK(p != NULL);
	if (!p)
		return;
	/* header 104 | ids 104..120 | attrs 120..264 | data 264..288 | index 288..320 |
	 * HOSTNAME 320..388 | EVENT_DESC 388..612 */
	CHECK_EQ_U64(size, 612);
	CHECK(!memcmp(p, "PERFILE2", 8));
	CHECK_EQ_U64(le64(p + 8), 104);
	CHECK_EQ_U64(le64(p + 16), 144);			/* attr_size = 128 + 16 */
	CHECK_EQ_U64(le64(p + 24), 120);			/* attrs offset */
	CHECK_EQ_U64(le64(p + 32), 144);			/* attrs size */
	CHECK_EQ_U64(le64(p + 40), 264);			/* data offset */
	CHECK_EQ_U64(le64(p + 48), 24);				/* data size */
	CHECK_EQ_U64(le64(p + 56), 0);
	CHECK_EQ_U64(le64(p + 64), 0);
	CHECK_EQ_U64(le64(p + 72), (1ULL << 3) | (1ULL << 12));	/* HOSTNAME, EVENT_DESC */
	CHECK_EQ_U64(le64(p + 80) | le64(p + 88) | le64(p + 96), 0);
	CHECK_EQ_U64(le64(p + 104), 7);
	CHECK_EQ_U64(le64(p + 112), 8);
	a = p + 120;
	CHECK_EQ_U64(le32(a), PERF_TYPE_RAW);
	CHECK_EQ_U64(le32(a + 4), 128);
	CHECK_EQ_U64(le64(a + 8), 0x1c0);
	CHECK_EQ_U64(le64(a + 16), 1000003);
	CHECK_EQ_U64(le64(a + 24), PERF_SAMPLE_IP | PERF_SAMPLE_TID);
	CHECK_EQ_U64(le64(a + 40), 0x0000000000050001ULL);	/* bits 0, 16 (precise 2), 18 */
	CHECK_EQ_U64(le64(a + 128), 104);			/* ids offset */
	CHECK_EQ_U64(le64(a + 136), 16);			/* ids size */
	/* the sample */
	CHECK_EQ_U64(le32(p + 264), PERF_RECORD_SAMPLE);
	CHECK_EQ_U64(le16(p + 268), PERF_RECORD_MISC_USER);
	CHECK_EQ_U64(le16(p + 270), 24);
	CHECK_EQ_U64(le64(p + 272), 0x1122334455667788ULL);
	CHECK_EQ_U64(le32(p + 280), 0x01020304);
	CHECK_EQ_U64(le32(p + 284), 0x05060708);
	/* feature index */
	CHECK_EQ_U64(le64(p + 288), 320);
	CHECK_EQ_U64(le64(p + 296), 68);
	CHECK_EQ_U64(le64(p + 304), 388);
	CHECK_EQ_U64(le64(p + 312), 224);
	/* HOSTNAME: str64 */
	CHECK_EQ_U64(le32(p + 320), 64);
	CHECK(!memcmp(p + 324, "host\0\0\0", 8));
	/* EVENT_DESC: nr, attr_size, attr, nr_ids, name, ids */
	ed = p + 388;
	CHECK_EQ_U64(le32(ed), 1);
	CHECK_EQ_U64(le32(ed + 4), 128);
	CHECK(!memcmp(ed + 8, a, 128));
	CHECK_EQ_U64(le32(ed + 136), 2);
	CHECK_EQ_U64(le32(ed + 140), 64);
	CHECK(!memcmp(ed + 144, "ev\0", 3));
	CHECK_EQ_U64(le64(ed + 208), 7);
	CHECK_EQ_U64(le64(ed + 216), 8);
	free(p);
}

static void test_writer_swapped_layout(void)
{
	size_t size;
	uint8_t *p = write_small(true, &size);
	const uint8_t *a;

	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_EQ_U64(size, 612);
	CHECK(!memcmp(p, "2ELIFREP", 8));	/* the magic as a big-endian u64 */
	CHECK_EQ_U64(be64(p + 8), 104);
	CHECK_EQ_U64(be64(p + 16), 144);
	CHECK_EQ_U64(be64(p + 40), 264);
	CHECK_EQ_U64(be64(p + 72), (1ULL << 3) | (1ULL << 12));
	a = p + 120;
	CHECK_EQ_U64(be32(a), PERF_TYPE_RAW);
	CHECK_EQ_U64(be32(a + 4), 128);
	CHECK_EQ_U64(be64(a + 24), PERF_SAMPLE_IP | PERF_SAMPLE_TID);
	/* MSB-first bit-field: disabled -> bit 63, precise_ip:2 = 2 at bits 47..48 (value
	 * 2 << 47), sample_id_all (bit 18) -> bit 45 */
	CHECK_EQ_U64(be64(a + 40), 0x8001200000000000ULL);
	CHECK_EQ_U64(be32(p + 264), PERF_RECORD_SAMPLE);
	CHECK_EQ_U64(p[268] << 8 | p[269], PERF_RECORD_MISC_USER);
	CHECK_EQ_U64(p[270] << 8 | p[271], 24);
	CHECK_EQ_U64(be64(p + 272), 0x1122334455667788ULL);
	CHECK_EQ_U64(be32(p + 280), 0x01020304);
	CHECK_EQ_U64(be32(p + 284), 0x05060708);
	CHECK_EQ_U64(be64(p + 288), 320);
	CHECK_EQ_U64(be32(p + 320), 64);
	free(p);
}

/* Branch entries of a big-endian producer: flags bit-field MSB-first. */
static void test_writer_swapped_branch_flags(void)
{
	struct perf_writer_opts o = { .swap = true };
	struct perf_evattr a = { .type = PERF_TYPE_RAW, .sample_period = 1,
				 .sample_type = PERF_SAMPLE_BRANCH_STACK,
				 .branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
						       PERF_SAMPLE_BRANCH_HW_INDEX };
	struct perf_branch_entry br = { .from = 0x401000, .to = 0x402000,
					.flags = PERF_BR_MISPRED | 0x1234ULL << 4 | 5ULL << 20 };
	struct perf_sample s = { .nr_branches = 1, .hw_idx = 3, .branches = &br };
	struct perf_writer *w;
	char path[300];
	uint8_t *p;
	size_t size;
	uint64_t data;

	tmp_path(path, sizeof(path), "br.data");
	CHECK_EQ_U64(perf_writer__open(&w, path, &o), 0);
	CHECK_EQ_U64(perf_writer__add_event(w, &a, NULL, NULL, 0), 0);
	CHECK_EQ_U64(perf_writer__sample(w, 0, 0, &s), 0);
	CHECK_EQ_U64(perf_writer__close(w), 0);
	p = slurp(path, &size);
	CHECK(p != NULL);
	if (!p)
		return;
	data = be64(p + 40);
	CHECK_EQ_U64(be64(p + 48), 48);			/* 8 + nr + hw_idx + 24 */
	CHECK_EQ_U64(p[data + 6] << 8 | p[data + 7], 48);
	CHECK_EQ_U64(be64(p + data + 8), 1);		/* nr */
	CHECK_EQ_U64(be64(p + data + 16), 3);		/* hw_idx */
	CHECK_EQ_U64(be64(p + data + 24), 0x401000);
	CHECK_EQ_U64(be64(p + data + 32), 0x402000);
	/* mispred -> bit 63; cycles:16 at bit 4 -> bits 44..59; type:4 at bit 20 -> 40..43 */
	CHECK_EQ_U64(be64(p + data + 40), 0x8123450000000000ULL);
	free(p);
}

struct rec {
	uint32_t type;
	uint16_t size;
	const uint8_t *p;
};

static size_t walk(const uint8_t *p, size_t n, struct rec *out, size_t max)
{
	size_t nr = 0;

	for (size_t off = 0; off + 8 <= n && nr < max; ) {
		uint16_t sz = le16(p + off + 6);

		if (sz < 8 || off + sz > n)
			break;
		out[nr].type = le32(p + off);
		out[nr].size = sz;
		out[nr].p = p + off;
		nr++;
		off += sz;
	}
	return nr;
}

static void test_writer_pipe_layout(void)
{
	struct perf_writer_opts o = { .pipe = true, .attr_size = 72, .hostname = "host" };
	static const uint64_t ids[] = { 7, 8, 9 };
	static const uint8_t bid[20] = { 0xaa, 0xbb };
	struct perf_sample s = { .ip = 1, .pid = 2, .tid = 3 };
	struct perf_writer *w;
	struct rec r[16];
	char path[300];
	uint8_t *p;
	size_t size, nr;

	tmp_path(path, sizeof(path), "pipe.data");
	CHECK_EQ_U64(perf_writer__open(&w, path, &o), 0);
	CHECK_EQ_U64(perf_writer__add_event(w, &ev_attr, "ev", ids, 3), 0);
	CHECK_EQ_U64(perf_writer__add_build_id(w, -1, PERF_RECORD_MISC_USER, bid, 20, "/bin/x"), 0);
	CHECK_EQ_U64(perf_writer__sample(w, 0, PERF_RECORD_MISC_USER, &s), 0);
	CHECK_EQ_U64(perf_writer__finished_round(w), 0);
	CHECK_EQ_U64(perf_writer__close(w), 0);
	p = slurp(path, &size);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(!memcmp(p, "PERFILE2", 8));
	CHECK_EQ_U64(le64(p + 8), 16);
	nr = walk(p + 16, size - 16, r, 16);
	/* ATTR, FEATURE HOSTNAME, FEATURE EVENT_DESC, FEATURE end, BUILD_ID, SAMPLE, ROUND */
	CHECK_EQ_U64(nr, 7);
	if (nr != 7) {
		free(p);
		return;
	}
	CHECK_EQ_U64(r[0].type, PERF_RECORD_HEADER_ATTR);
	CHECK_EQ_U64(r[0].size, 8 + 72 + 24);
	CHECK_EQ_U64(le32(r[0].p + 12), 72);			/* attr.size */
	CHECK_EQ_U64(le64(r[0].p + 80), 7);
	CHECK_EQ_U64(le64(r[0].p + 96), 9);
	CHECK_EQ_U64(r[1].type, PERF_RECORD_HEADER_FEATURE);
	CHECK_EQ_U64(le64(r[1].p + 8), HEADER_HOSTNAME);
	CHECK_EQ_U64(r[1].size, 88);				/* 16 + 68 padded to 8 */
	CHECK_EQ_U64(le32(r[1].p + 16), 64);
	CHECK(!memcmp(r[1].p + 20, "host", 5));
	CHECK_EQ_U64(r[2].type, PERF_RECORD_HEADER_FEATURE);
	CHECK_EQ_U64(le64(r[2].p + 8), HEADER_EVENT_DESC);
	CHECK_EQ_U64(le32(r[2].p + 16), 1);
	CHECK_EQ_U64(le32(r[2].p + 20), 72);
	CHECK_EQ_U64(r[3].type, PERF_RECORD_HEADER_FEATURE);
	CHECK_EQ_U64(r[3].size, 16);				/* the end marker */
	CHECK_EQ_U64(le64(r[3].p + 8), 32);			/* perf 6.1 HEADER_LAST_FEATURE */
	CHECK_EQ_U64(r[4].type, PERF_RECORD_HEADER_BUILD_ID);
	CHECK_EQ_U64(r[4].size, 48);				/* 36 + "/bin/x\0" padded to 8 */
	CHECK_EQ_U64(le16(r[4].p + 4), PERF_RECORD_MISC_USER | PERF_RECORD_MISC_BUILD_ID_SIZE);
	CHECK_EQ_U64(le32(r[4].p + 8), 0xffffffffu);
	CHECK_EQ_U64(r[4].p[12], 0xaa);
	CHECK_EQ_U64(r[4].p[32], 20);
	CHECK(!memcmp(r[4].p + 36, "/bin/x", 7));
	CHECK_EQ_U64(r[5].type, PERF_RECORD_SAMPLE);
	CHECK_EQ_U64(r[6].type, PERF_RECORD_FINISHED_ROUND);
	CHECK_EQ_U64(r[6].size, 8);
	free(p);
}

/* The trailer of a non-sample record follows the event owning sid->id. */
static void test_writer_trailer_event(void)
{
	struct perf_evattr a0 = { .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID,
				  .flags = PERF_ATTR_FLAG_SAMPLE_ID_ALL };
	struct perf_evattr a1 = { .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
						 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
				  .flags = PERF_ATTR_FLAG_SAMPLE_ID_ALL };
	struct perf_sample_id s0 = { .pid = 1, .tid = 2, .time = 3, .id = 10, .cpu = 4 };
	struct perf_sample_id s1 = { .pid = 1, .tid = 2, .time = 3, .id = 11, .cpu = 4 };
	uint64_t id0 = 10, id1 = 11;
	struct perf_writer_opts o = { 0 };
	struct perf_writer *w;
	struct rec r[4];
	char path[300];
	uint8_t *p;
	size_t size, nr;

	tmp_path(path, sizeof(path), "trailer.data");
	CHECK_EQ_U64(perf_writer__open(&w, path, &o), 0);
	CHECK_EQ_U64(perf_writer__add_event(w, &a0, NULL, &id0, 1), 0);
	CHECK_EQ_U64(perf_writer__add_event(w, &a1, NULL, &id1, 1), 1);
	CHECK_EQ_U64(perf_writer__comm(w, false, 1, 2, "prog", &s0), 0);
	CHECK_EQ_U64(perf_writer__comm(w, false, 1, 2, "prog", &s1), 0);
	CHECK_EQ_U64(perf_writer__comm(w, false, 1, 2, "prog", NULL), 0);
	CHECK_EQ_U64(perf_writer__close(w), 0);
	p = slurp(path, &size);
	CHECK(p != NULL);
	if (!p)
		return;
	nr = walk(p + le64(p + 40), le64(p + 48), r, 4);
	CHECK_EQ_U64(nr, 3);
	if (nr == 3) {
		/* 8 header + 8 pid/tid + "prog\0" padded to 8 + trailer */
		CHECK_EQ_U64(r[0].size, 24 + 16);
		CHECK_EQ_U64(le64(r[0].p + 32), 10);		/* IDENTIFIER last */
		CHECK_EQ_U64(r[1].size, 24 + 32);
		CHECK_EQ_U64(le32(r[1].p + 24), 1);		/* pid, tid, time, cpu, id */
		CHECK_EQ_U64(le32(r[1].p + 28), 2);
		CHECK_EQ_U64(le64(r[1].p + 32), 3);
		CHECK_EQ_U64(le32(r[1].p + 40), 4);
		CHECK_EQ_U64(le64(r[1].p + 48), 11);
		CHECK_EQ_U64(r[2].size, 24 + 16);		/* no sid: event 0, zeros */
		CHECK_EQ_U64(le64(r[2].p + 32), 0);
	}
	free(p);
}

/* Same records written plain and compressed: decompressing the COMPRESSED(2) payloads
 * in order (one zstd stream) and keeping the FINISHED_ROUNDs between them must give back
 * the plain data section byte for byte. Every compressed record must decompress to
 * something on its own (perf 6.1 gives up otherwise) and carry at most 65519 bytes. */
static void write_many(const char *path, enum perf_writer_compress c, bool pipe)
{
	struct perf_writer_opts o = { .compress = c, .pipe = pipe };
	struct perf_evattr a = { .type = PERF_TYPE_RAW, .sample_period = 1,
				 .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						PERF_SAMPLE_TIME | PERF_SAMPLE_BRANCH_STACK,
				 .branch_sample_type = PERF_SAMPLE_BRANCH_ANY };
	struct perf_branch_entry br[32];
	struct perf_sample s = { .branches = br };
	struct perf_writer *w;
	uint64_t x = 88172645463325252ULL;

	CHECK_EQ_U64(perf_writer__open(&w, path, &o), 0);
	CHECK_EQ_U64(perf_writer__add_event(w, &a, "e", NULL, 0), 0);
	for (int i = 0; i < 6000; i++) {
		/* xorshift: nearly incompressible addresses */
		for (int k = 0; k < 32; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			br[k].from = x;
			br[k].to = x >> 3;
			br[k].flags = x & 0xffff0;
		}
		s.ip = x;
		s.pid = (uint32_t)i;
		s.tid = (uint32_t)i;
		s.time = (uint64_t)i;
		s.nr_branches = (uint64_t)(i % 33);
		CHECK_EQ_U64(perf_writer__sample(w, 0, 2, &s), 0);
		if (i % 1000 == 999)
			CHECK_EQ_U64(perf_writer__finished_round(w), 0);
	}
	CHECK_EQ_U64(perf_writer__close(w), 0);
}

static void check_compressed(const uint8_t *plain, size_t plain_size, const uint8_t *cp,
			     size_t csize, enum perf_writer_compress c)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	uint8_t *out = malloc(plain_size + 65536);
	size_t out_len = 0, nr_comp = 0;

	ZSTD_initDStream(ds);
	for (size_t off = 0; off + 8 <= csize; ) {
		uint32_t type = le32(cp + off);
		uint16_t sz = le16(cp + off + 6);

		CHECK(sz >= 8 && off + sz <= csize);
		if (sz < 8 || off + sz > csize)
			break;
		if (type == PERF_RECORD_COMPRESSED || type == PERF_RECORD_COMPRESSED2) {
			size_t n = type == PERF_RECORD_COMPRESSED ? sz - 8u : le64(cp + off + 8);
			size_t before = out_len;
			ZSTD_inBuffer in = { cp + off + (type == PERF_RECORD_COMPRESSED ? 8 : 16),
					     n, 0 };

			CHECK_EQ_U64(type, c == PERF_WRITER_COMPRESS_ZSTD ? PERF_RECORD_COMPRESSED :
					     PERF_RECORD_COMPRESSED2);
			CHECK(n <= 65519);
			if (type == PERF_RECORD_COMPRESSED2) {
				CHECK_EQ_U64(sz, (16 + n + 7) & ~(size_t)7);
				for (size_t k = 16 + n; k < sz; k++)
					CHECK_EQ_U64(cp[off + k], 0);
			}
			while (in.pos < in.size) {
				ZSTD_outBuffer o = { out, plain_size + 65536, out_len };
				size_t r = ZSTD_decompressStream(ds, &o, &in);

				CHECK(!ZSTD_isError(r));
				if (ZSTD_isError(r))
					break;
				out_len = o.pos;
			}
			CHECK(out_len > before);
			nr_comp++;
		} else {
			CHECK_EQ_U64(type, PERF_RECORD_FINISHED_ROUND);
			memcpy(out + out_len, cp + off, sz);
			out_len += sz;
		}
		off += sz;
	}
	CHECK(nr_comp > 10);	/* several slices, so several records */
	CHECK_EQ_U64(out_len, plain_size);
	CHECK(out_len == plain_size && !memcmp(out, plain, plain_size));
	ZSTD_freeDStream(ds);
	free(out);
}

static void test_writer_compressed_stream(void)
{
	char p0[300], p1[300], p2[300];
	uint8_t *plain, *c1, *c2;
	size_t n0, n1, n2;

	tmp_path(p0, sizeof(p0), "plain.data");
	tmp_path(p1, sizeof(p1), "z1.data");
	tmp_path(p2, sizeof(p2), "z2.data");
	write_many(p0, PERF_WRITER_COMPRESS_NONE, false);
	write_many(p1, PERF_WRITER_COMPRESS_ZSTD, false);
	write_many(p2, PERF_WRITER_COMPRESS_ZSTD2, false);
	plain = slurp(p0, &n0);
	c1 = slurp(p1, &n1);
	c2 = slurp(p2, &n2);
	CHECK(plain && c1 && c2);
	if (plain && c1 && c2) {
		/* bit HEADER_COMPRESSED only in the compressed files */
		CHECK_EQ_U64(le64(plain + 72) & (1ULL << HEADER_COMPRESSED), 0);
		CHECK(le64(c1 + 72) & (1ULL << HEADER_COMPRESSED));
		check_compressed(plain + le64(plain + 40), le64(plain + 48), c1 + le64(c1 + 40),
				 le64(c1 + 48), PERF_WRITER_COMPRESS_ZSTD);
		check_compressed(plain + le64(plain + 40), le64(plain + 48), c2 + le64(c2 + 40),
				 le64(c2 + 48), PERF_WRITER_COMPRESS_ZSTD2);
	}
	free(plain);
	free(c1);
	free(c2);
	unlink(p0);
	unlink(p1);
	unlink(p2);
}

static void test_writer_errors(void)
{
	struct perf_writer_opts o = { 0 }, bad = { .attr_size = 65 }, big = { .attr_size = 144 };
	struct perf_evattr a = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN |
						PERF_SAMPLE_REGS_USER,
				 .sample_regs_user = 0x7 };
	static uint64_t chain[9000];
	struct perf_sample s = { .nr_callchain = 9000, .callchain = chain };
	struct perf_writer *w;
	char path[300];
	struct stat st;

	tmp_path(path, sizeof(path), "err.data");
	CHECK_EQ_U64(perf_writer__open(&w, path, &bad), -EINVAL);
	CHECK(w == NULL);
	CHECK_EQ_U64(perf_writer__open(&w, path, &big), -EINVAL);
	CHECK_EQ_U64(perf_writer__open(&w, "-", &o), -EINVAL);	/* stdout needs pipe mode */
	CHECK_EQ_U64(perf_writer__open(&w, "/nonexistent-dir/x.data", &o), -ENOENT);

	CHECK_EQ_U64(perf_writer__open(&w, path, &o), 0);
	CHECK_EQ_U64(perf_writer__add_event(w, &a, "e", NULL, 0), 0);
	CHECK_EQ_U64(perf_writer__sample(w, 1, 0, &s), -EINVAL);	/* no event 1 */
	CHECK_EQ_U64(perf_writer__sample(w, 0, 0, &s), -E2BIG);	/* 72 KB record */
	s.nr_callchain = 2;
	s.regs_user.abi = 2;
	s.regs_user.nr = 2;					/* the mask has 3 */
	s.regs_user.regs = chain;
	CHECK_EQ_U64(perf_writer__sample(w, 0, 0, &s), -EINVAL);
	s.regs_user.nr = 3;
	CHECK_EQ_U64(perf_writer__sample(w, 0, 0, &s), 0);	/* not a sticky error */
	CHECK_EQ_U64(perf_writer__add_event(w, &a, "late", NULL, 0), -EBUSY);
	CHECK_EQ_U64(perf_writer__task(w, PERF_RECORD_COMM, 1, 1, 1, 1, 0, NULL), -EINVAL);
	CHECK_EQ_U64(perf_writer__close(w), 0);
	CHECK_EQ_U64(stat(path, &st), 0);

	/* abort removes the file */
	CHECK_EQ_U64(perf_writer__open(&w, path, &o), 0);
	CHECK_EQ_U64(perf_writer__add_event(w, &a, "e", NULL, 0), 0);
	CHECK_EQ_U64(perf_writer__comm(w, false, 1, 1, "x", NULL), 0);
	perf_writer__abort(w);
	CHECK(stat(path, &st) != 0 && errno == ENOENT);

	/* a full device: close reports ENOSPC (file and pipe mode); /dev/full stays */
	if (stat("/dev/full", &st) == 0) {
		struct perf_writer_opts po = { .pipe = true };

		CHECK_EQ_U64(perf_writer__open(&w, "/dev/full", &o), 0);
		CHECK_EQ_U64(perf_writer__add_event(w, &a, "e", NULL, 0), 0);
		CHECK_EQ_U64(perf_writer__comm(w, false, 1, 1, "x", NULL), 0);
		CHECK_EQ_U64(perf_writer__close(w), -ENOSPC);
		CHECK_EQ_U64(perf_writer__open(&w, "/dev/full", &po), 0);
		CHECK_EQ_U64(perf_writer__add_event(w, &a, "e", NULL, 0), 0);
		for (int i = 0; i < 200000; i++)	/* more than the output buffer */
			if (perf_writer__comm(w, false, 1, 1, "some command", NULL))
				break;
		CHECK_EQ_U64(perf_writer__comm(w, false, 1, 1, "x", NULL), -ENOSPC);
		CHECK_EQ_U64(perf_writer__close(w), -ENOSPC);
		CHECK(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode));
	} else {
		SKIP_TEST("test_writer_errors /dev/full", "no /dev/full");
	}
	unlink(path);
}

int main(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/hbbp-pw.XXXXXX", base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN_TEST(test_writer_file_layout);
	RUN_TEST(test_writer_swapped_layout);
	RUN_TEST(test_writer_swapped_branch_flags);
	RUN_TEST(test_writer_pipe_layout);
	RUN_TEST(test_writer_trailer_event);
	RUN_TEST(test_writer_compressed_stream);
	RUN_TEST(test_writer_errors);
	{
		char p[300];
		static const char *const names[] = { "small.data", "br.data", "pipe.data",
						     "trailer.data" };

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			tmp_path(p, sizeof(p), names[i]);
			unlink(p);
		}
	}
	rmdir(tmpdir);
	return TEST_EXIT();
}
