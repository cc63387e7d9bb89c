/* perf_craft DIR: writes small crafted malformed perf.data files into DIR, one per case,
 * and prints "NAME|expected message fragment" for each on stdout. Used by
 * tests/cli/reader_malformed.sh. Native byte order; depends on nothing but libc.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint8_t buf[1 << 16];
static size_t len;
static const char *dir;

static void put(const void *p, size_t n) { memcpy(buf + len, p, n); len += n; }
static void p64(uint64_t v) { put(&v, 8); }
static void p32(uint32_t v) { put(&v, 4); }
static void at64(size_t off, uint64_t v) { memcpy(buf + off, &v, 8); }
static void rec_hdr(uint32_t type, uint16_t misc, uint16_t size)
{
	p32(type);
	put(&misc, 2);
	put(&size, 2);
}

/* The file as DIR/NAME (listed nowhere: emit lists it). */
static void emit_quiet(const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		perror(path);
}

/* The file, and "NAME|expected message fragment" on stdout. */
static void emit(const char *name, const char *expect)
{
	emit_quiet(name);
	printf("%s|%s\n", name, expect);
}

#define ATTR_SZ 136
#define STRIDE (ATTR_SZ + 16)

/* header + one attr (sample_type st) + data section start; returns nothing, len = data start */
static void file_start(uint64_t st, uint64_t bst, uint64_t read_format)
{
	uint8_t attr[ATTR_SZ];

	len = 0;
	memset(buf, 0, sizeof(buf));
	put("PERFILE2", 8);
	p64(104);		/* header size */
	p64(STRIDE);		/* attr_size */
	p64(104); p64(STRIDE);	/* attrs */
	p64(104 + STRIDE); p64(0);	/* data: size patched by file_end */
	p64(0); p64(0);		/* event_types */
	p64(0); p64(0); p64(0); p64(0);	/* features */
	memset(attr, 0, sizeof(attr));
	memcpy(attr + 4, &(uint32_t){ ATTR_SZ }, 4);
	memcpy(attr + 16, &(uint64_t){ 1000 }, 8);
	memcpy(attr + 24, &st, 8);
	memcpy(attr + 32, &read_format, 8);
	memcpy(attr + 72, &bst, 8);
	put(attr, ATTR_SZ);
	p64(0); p64(0);		/* ids */
}

static void file_end(void)
{
	at64(48, len - (104 + STRIDE));
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: perf_craft DIR\n");
		return 1;
	}
	dir = argv[1];

	len = 0;
	emit("empty", "file too small");

	len = 0;
	put("PERFILE2", 8);
	p64(104);
	emit("truncated_header", "file header truncated (16 bytes) at 0x0");

	file_start(1, 0, 0);
	file_end();
	memcpy(buf, "PERFILE3", 8);
	emit("bad_magic", "bad magic");

	file_start(1, 0, 0);
	file_end();
	at64(16, 0);
	emit("attr_size_zero", "attr_size is 0");

	file_start(1, 0, 0);
	file_end();
	at64(16, 20);
	emit("attr_size_tiny", "attr_size 20 invalid at 0x10");

	file_start(1, 0, 0);
	rec_hdr(9, 0, 16); p64(0x1234);
	file_end();
	at64(40, 104 + 8);	/* data starts inside the attrs */
	emit("attrs_data_overlap", "attrs and data sections overlap");

	file_start(1, 0, 0);
	file_end();
	at64(32, 1000000ULL * STRIDE);
	emit("huge_attr_count", "attrs section out of bounds at 0x18");

	file_start(1, 0, 0);
	memcpy(buf + 104 + 4, &(uint32_t){ 32 }, 4);
	file_end();
	emit("attr_size_field_small", "attr size 32 < 64 at 0x68");

	file_start(1, 0, 0);
	rec_hdr(9, 0, 16); p64(0x1234);
	rec_hdr(9, 0, 0); p64(0);
	file_end();
	emit("record_size_zero", "record size 0 < header size at 0x110");

	file_start(1, 0, 0);
	rec_hdr(9, 0, 4); p64(0);
	file_end();
	emit("record_size_4", "record size 4 < header size at 0x100");

	file_start(1, 0, 0);
	rec_hdr(9, 0, 64); p64(0x1234);
	file_end();
	emit("size_past_eof", "runs past the end of the data section at 0x100");

	file_start(1 | (1 << 11), 8, 0);	/* IP | BRANCH_STACK, ANY */
	rec_hdr(9, 0, 40); p64(0x1234); p64(1000000000ULL); p64(1); p64(2);
	file_end();
	emit("huge_branch_nr", "sample branch stack does not fit in record of size 40 (event cycles:HG) at 0x100");

	file_start(1 | (1 << 5), 0, 0);	/* IP | CALLCHAIN */
	rec_hdr(9, 0, 32); p64(0x1234); p64(~0ULL / 2); p64(1);
	file_end();
	emit("huge_callchain_nr", "sample callchain does not fit in record of size 32 (event cycles:HG) at 0x100");

	file_start(1 | (1 << 4), 0, 8 | 4);	/* IP | READ, GROUP | ID */
	rec_hdr(9, 0, 40); p64(0x1234); p64(1ULL << 40); p64(1); p64(2);
	file_end();
	emit("huge_read_group_nr", "sample READ group does not fit in record of size 40 (event cycles:HG) at 0x100");

	file_start(1 | 2 | 4, 0, 0);	/* IP | TID | TIME */
	rec_hdr(9, 0, 16); p64(0x1234);
	file_end();
	emit("sample_truncated", "sample does not fit in record of size 16 (event cycles:HG) at 0x100");

	file_start(1, 0, 0);
	rec_hdr(81, 0, 40); p64(0x0123456789abcdefULL); p64(0xfeedfacecafebeefULL);
	p64(0x1111111111111111ULL); p64(0x2222222222222222ULL);
	file_end();
	emit("zstd_garbage", "compressed record: zstd: Unknown frame descriptor at 0x100");

	file_start(1, 0, 0);
	rec_hdr(83, 0, 32); p64(100); p64(0); p64(0);
	file_end();
	emit("compressed2_size_mismatch", "COMPRESSED2 record: size 32 does not match data_size 100 at 0x100");

	file_start(1, 0, 0);
	rec_hdr(9, 0, 16); p64(0x1234);
	file_end();
	at64(72, 1ULL << 3);	/* HOSTNAME set, but no feature index after the data */
	emit("feature_index_oob", "feature 3 index entry out of bounds at 0x110");

	file_start(1, 0, 0);
	rec_hdr(9, 0, 16); p64(0x1234);
	file_end();
	at64(72, 1ULL << 3);
	p64(1ULL << 40); p64(64);	/* index entry pointing far away */
	emit("feature_section_oob", "feature 3 section out of bounds at 0x110");

	file_start(1, 0, 0);
	rec_hdr(1, 0, 24); p64(1); p64(2);	/* MMAP shorter than its fixed part */
	file_end();
	emit("mmap_too_small", "MMAP record size 24 too small at 0x100");

	/* A KSYMBOL whose one byte is the last of the address space (its end wraps to its
	 * start), and a sample: the converter leaves the symbol out and says so. Not read by
	 * reader_malformed.sh (no "|" line): convert_bad_records.sh converts it. */
	file_start(3, 0, 0);
	rec_hdr(17, 0, 32); p64(UINT64_MAX); p32(1); p32(0); put("bpf_x\0\0", 8);
	rec_hdr(9, 1, 24); p64(UINT64_MAX); p32(7); p32(7);
	file_end();
	emit_quiet("ksymbol_wraps");

	/* pipe mode */
	len = 0;
	put("PERFILE2", 8);
	p64(16);
	rec_hdr(64, 0, 24); p64(0); p64(0);
	emit("pipe_attr_too_small", "HEADER_ATTR record size 24 too small at 0x10");

	len = 0;
	put("PERFILE2", 8);
	p64(16);
	rec_hdr(66, 0, 16); p32(0x7ffffff8); p32(0);
	emit("pipe_tracing_huge", "TRACING_DATA record: size 2147483640 too large at 0x10");

	len = 0;
	put("PERFILE2", 8);
	p64(16);
	rec_hdr(68, 0, 2);
	emit("pipe_record_size_2", "record size 2 < header size at 0x10");
	return 0;
}
