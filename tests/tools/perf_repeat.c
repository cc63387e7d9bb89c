/* perf_repeat IN OUT N: writes a copy of the file-mode perf.data IN whose data section is
 * repeated N times (feature sections moved behind it, index offsets fixed), for memory and
 * throughput tests of the reader on big inputs. Only native-endian 104-byte headers.
 * Depends on nothing but libc.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int die(const char *m)
{
	fprintf(stderr, "perf_repeat: %s\n", m);
	return 1;
}

int main(int argc, char **argv)
{
	FILE *in, *out;
	uint8_t *buf;
	long size;
	uint64_t d_off, d_size, delta, feat_off, bits[4], i;
	unsigned n, k, nfeat = 0;

	if (argc != 4 || !(n = (unsigned)atoi(argv[3])))
		return die("usage: perf_repeat IN OUT N");
	in = fopen(argv[1], "rb");
	if (!in || fseek(in, 0, SEEK_END) || (size = ftell(in)) < 104 || fseek(in, 0, SEEK_SET))
		return die("cannot read input");
	buf = malloc((size_t)size);
	if (!buf || fread(buf, 1, (size_t)size, in) != (size_t)size)
		return die("cannot read input");
	fclose(in);
	if (memcmp(buf, "PERFILE2", 8))
		return die("not a native file-mode perf.data");
	memcpy(&d_off, buf + 40, 8);
	memcpy(&d_size, buf + 48, 8);
	memcpy(bits, buf + 72, 32);
	if (d_off + d_size > (uint64_t)size || !d_size)
		return die("bad data section");
	delta = (uint64_t)(n - 1) * d_size;
	feat_off = d_off + d_size;
	for (k = 0; k < 256; k++)
		if (bits[k / 64] >> (k % 64) & 1)
			nfeat++;
	for (k = 0; k < nfeat && feat_off + 16 * (k + 1) <= (uint64_t)size; k++) {
		uint64_t off;

		memcpy(&off, buf + feat_off + 16 * k, 8);
		if (off >= feat_off)
			off += delta;
		memcpy(buf + feat_off + 16 * k, &off, 8);
	}
	d_size *= n;
	memcpy(buf + 48, &d_size, 8);
	d_size /= n;
	out = fopen(argv[2], "wb");
	if (!out)
		return die("cannot write output");
	fwrite(buf, 1, (size_t)(d_off + d_size), out);
	for (i = 1; i < n; i++)
		fwrite(buf + d_off, 1, (size_t)d_size, out);
	fwrite(buf + feat_off, 1, (size_t)((uint64_t)size - feat_off), out);
	if (fclose(out))
		return die("write failed");
	free(buf);
	return 0;
}
