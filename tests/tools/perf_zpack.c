/* perf_zpack IN OUT MODE: rewrites the native file-mode perf.data IN with its data section
 * compressed into one zstd stream, as `perf record -z` does, so that the reader's
 * decompression can be checked against the uncompressed original:
 *   c1     PERF_RECORD_COMPRESSED records, input fed in 3000-byte chunks (records span
 *          chunk boundaries), each chunk flushed and cut into <= 65519-byte payloads
 *   c2     PERF_RECORD_COMPRESSED2 records, same chunking, correct sizes
 *   c2bug  COMPRESSED2 with the perf 6.16 writer bug: one chunk preceded by two 40000-byte
 *          incompressible records of unknown type 100, written as one blob whose first
 *          header has size = ALIGN(total, 8) mod 65536 and data_size = total - 16
 *   nested as c1, the decompressed stream starting with a 16-byte COMPRESSED record (perf never
 *          nests them: the reader skips it and counts it)
 * Feature sections are moved behind the new data. Uses libzstd; nothing else.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define MAXP 65519u

static uint8_t *out;
static size_t olen, ocap;

static void oput(const void *p, size_t n)
{
	if (olen + n > ocap) {
		ocap = (olen + n) * 2;
		out = realloc(out, ocap);
		if (!out)
			exit(1);
	}
	memcpy(out + olen, p, n);
	olen += n;
}

static void hdr(uint32_t type, uint16_t size)
{
	uint16_t misc = 0;

	oput(&type, 4);
	oput(&misc, 2);
	oput(&size, 2);
}

static void pad8(void)
{
	static const uint8_t z[8];

	if (olen % 8)
		oput(z, 8 - olen % 8);
}

/* compresses in[0..n) as one flushed chunk; returns compressed bytes in *cbuf */
static size_t zchunk(ZSTD_CStream *zc, const uint8_t *in, size_t n, uint8_t **cbuf)
{
	static uint8_t *c;
	static size_t ccap;
	ZSTD_inBuffer zi = { in, n, 0 };
	ZSTD_outBuffer zo;
	size_t need = ZSTD_compressBound(n) + 1024, rem;

	if (need > ccap) {
		ccap = need;
		c = realloc(c, ccap);
	}
	zo.dst = c;
	zo.size = ccap;
	zo.pos = 0;
	while (zi.pos < zi.size)
		if (ZSTD_isError(ZSTD_compressStream(zc, &zo, &zi)))
			exit(2);
	do {
		rem = ZSTD_flushStream(zc, &zo);
		if (ZSTD_isError(rem))
			exit(2);
	} while (rem);
	*cbuf = c;
	return zo.pos;
}

int main(int argc, char **argv)
{
	FILE *f;
	uint8_t *buf, *c, *filler;
	long size;
	uint64_t d_off, d_size, feat_off, bits[4], new_size, delta;
	unsigned nfeat = 0, k;
	ZSTD_CStream *zc = ZSTD_createCStream();
	size_t pos, n, i;
	const char *mode;

	if (argc != 4)
		return fprintf(stderr, "usage: perf_zpack IN OUT c1|c2|c2bug|nested\n"), 1;
	mode = argv[3];
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 104 || fseek(f, 0, SEEK_SET))
		return 1;
	buf = malloc((size_t)size);
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size)
		return 1;
	fclose(f);
	memcpy(&d_off, buf + 40, 8);
	memcpy(&d_size, buf + 48, 8);
	memcpy(bits, buf + 72, 32);
	if (memcmp(buf, "PERFILE2", 8) || d_off + d_size > (uint64_t)size)
		return fprintf(stderr, "perf_zpack: unsupported input\n"), 1;
	feat_off = d_off + d_size;
	ZSTD_initCStream(zc, 3);
	oput(buf, d_off);

	if (!strcmp(mode, "c2bug")) {
		size_t fsz = 40000, total, first;
		uint8_t *chunk = malloc(2 * fsz + d_size);
		uint64_t x = 88172645463325252ULL, ds;
		uint16_t hsize;

		filler = chunk;
		for (k = 0; k < 2; k++) {
			uint8_t *r = filler + k * fsz;
			uint32_t t = 100;
			uint16_t z = 0, s = (uint16_t)fsz;

			memcpy(r, &t, 4);
			memcpy(r + 4, &z, 2);
			memcpy(r + 6, &s, 2);
			for (i = 8; i < fsz; i++) {
				x ^= x << 13; x ^= x >> 7; x ^= x << 17;
				r[i] = (uint8_t)x;
			}
		}
		memcpy(chunk + 2 * fsz, buf + d_off, d_size);
		n = zchunk(zc, chunk, 2 * fsz + d_size, &c);
		if (n <= MAXP)
			return fprintf(stderr, "perf_zpack: chunk too small for the bug\n"), 1;
		/* records of <= MAXP payload; total covers all of them */
		total = 0;
		for (pos = 0; pos < n; pos += MAXP)
			total += 16 + (n - pos < MAXP ? n - pos : MAXP);
		hsize = (uint16_t)((total + 7) & ~(size_t)7);
		ds = total - 16;
		first = 1;
		for (pos = 0; pos < n; pos += MAXP) {
			size_t part = n - pos < MAXP ? n - pos : MAXP;
			uint64_t junk = 0xdeadbeefdeadbeefULL;

			if (first) {
				hdr(83, hsize);
				oput(&ds, 8);
				first = 0;
			} else {
				hdr(83, (uint16_t)(16 + part));
				oput(&junk, 8);	/* uninitialized data_size in perf */
			}
			oput(c + pos, part);
		}
		pad8();
		free(chunk);
	} else {
		int two = !strcmp(mode, "c2"), nest = !strcmp(mode, "nested");
		size_t dn = d_size + (nest ? 16 : 0);
		uint8_t *data = malloc(dn);
		static const uint8_t inner[16] = { 81, 0, 0, 0, 0, 0, 16, 0 };

		if (!data)
			return 1;
		if (nest)
			memcpy(data, inner, 16);
		memcpy(data + (nest ? 16 : 0), buf + d_off, d_size);
		for (pos = 0; pos < dn; pos += 3000) {
			size_t in = dn - pos < 3000 ? dn - pos : 3000, p;

			n = zchunk(zc, data + pos, in, &c);
			for (p = 0; p < n; p += MAXP) {
				size_t part = n - p < MAXP ? n - p : MAXP;

				if (two) {
					uint64_t ds = part;

					hdr(83, (uint16_t)((16 + part + 7) & ~(size_t)7));
					oput(&ds, 8);
					oput(c + p, part);
					pad8();
				} else {
					hdr(81, (uint16_t)(8 + part));
					oput(c + p, part);
				}
			}
		}
		free(data);
	}
	new_size = olen - d_off;
	delta = new_size - d_size;
	memcpy(out + 48, &new_size, 8);
	for (k = 0; k < 256; k++)
		if (bits[k / 64] >> (k % 64) & 1)
			nfeat++;
	oput(buf + feat_off, (size_t)((uint64_t)size - feat_off));
	for (k = 0; k < nfeat; k++) {
		uint64_t off, at = d_off + new_size + 16ULL * k;

		if (at + 16 > olen)
			break;
		memcpy(&off, out + at, 8);
		if (off >= feat_off)
			off += delta;
		memcpy(out + at, &off, 8);
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(out, 1, olen, f) != olen || fclose(f))
		return 1;
	ZSTD_freeCStream(zc);
	free(buf);
	free(out);
	return 0;
}
