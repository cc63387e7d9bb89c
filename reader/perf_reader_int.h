/* Internal state of the perf.data reader, shared by the reader's own .c files only
 * (perf_reader.c: open/header/attrs, perf_feature.c: header features, perf_input.c: byte
 * streams and zstd, perf_decode.c: record and sample decoding, perf_order.c: time ordering,
 * perf_event_name.c: event names). Nothing outside reader/ includes it.
 */
#ifndef PERF_READER_INT_H
#define PERF_READER_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "reader/perf_reader.h"
#include "util/grow.h"
#include "util/hmap.h"

struct ZSTD_DCtx_s;

/* Upper bounds for sizes taken from the file. */
#define PERF_MAX_ATTRS		4096
#define PERF_MAX_IDS		(1u << 22)
#define PERF_MAX_FEATURE_SIZE	(512u << 20)	/* one feature section */
#define PERF_MAX_BLOB		(256u << 20)	/* pipe TRACING_DATA blob */
#define PERF_MAX_COMP2_BLOB	(16u << 20)	/* one COMPRESSED2 blob (writer bug) */

/* One stream of records: a range of an mmapped file, or a pipe read with read(2) into a
 * reused buffer. Compressed records are decompressed into zbuf and cut from there first. */
struct perf_input {
	char *name;			/* file name, for messages and perf_record.file */
	int fd;
	bool streaming;			/* read(2) from fd; else map */
	const uint8_t *map;		/* whole file when mapped */
	uint64_t map_size;
	int guard;			/* util/mapguard.h slot of the map + 1; 0: none */
	uint64_t pos, end;		/* file offsets: next byte, end of the record stream */
	uint64_t keep_from;		/* lowest offset the order queue still points into
					 * (UINT64_MAX: none); pread window bytes from here are
					 * kept */
	/* the pread window of a file, or the buffer of a stream: buf[0..len) holds file
	 * bytes from buf_off */
	uint8_t *buf;
	size_t cap, len, start;		/* start: index of file offset pos in buf */
	uint64_t buf_off;
	bool eof;
	/* zstd */
	struct ZSTD_DCtx_s *zds;
	uint8_t *zbuf;
	size_t zcap, zlen, zpos;
	uint64_t zoff;			/* file offset of the COMPRESSED record being cut */
	bool done;
};

/* A raw record ready to be decoded: bytes in producer order. */
struct perf_raw {
	const uint8_t *p;
	uint32_t size;
	uint32_t type;
	uint64_t offset;
	struct perf_input *in;
	const uint8_t *extra;		/* TRACING_DATA blob after the record, else NULL */
	uint64_t extra_size;		/* TRACING_DATA blob / AUXTRACE payload size */
};

struct perf_qent {			/* a queued timed record */
	uint64_t time, seq;
	uint64_t offset;		/* file offset */
	size_t arena_off;		/* the bytes in the arena, unless in_place */
	uint32_t size;
	uint16_t in_idx;
	bool sample;			/* a PERF_RECORD_SAMPLE */
	bool in_place;			/* the bytes at offset in the input's pread window */
};

struct perf_event_int {
	struct perf_event_info info;	/* its name and ids owned */
	int group_leader;		/* index of the leader, or own index */
	bool branch_counters;		/* samples carry branch counters */
};

struct perf_reader {
	struct perf_reader_opts opts;
	struct perf_header_info hdr;
	struct perf_reader_stats stats;
	char errbuf[512];
	int err;			/* sticky error */

	bool swap;
	bool legacy_v1;
	uint64_t feat_bits[4];

	struct perf_event_int *events;
	size_t nr_events, cap_events;
	struct hmap idmap;		/* sample id -> event index (int) */
	int id_pos, is_pos;		/* from the first attr; -1 when none */
	bool sample_id_all;

	struct perf_build_id_entry *build_ids;
	size_t nr_build_ids, cap_build_ids;
	char *cmdline_buf;
	char *strs[8];			/* owned header strings */
	bool missing_known;		/* stats.truncated_bytes set from the file header */
	char **retired_names;		/* event names replaced by EVENT_UPDATE: consumers may
					 * hold them until the reader is deleted */
	size_t nr_retired_names, cap_retired_names;

	/* inputs: [0] = main stream; more for data.N files of a directory */
	struct perf_input *inputs;
	size_t nr_inputs, cap_inputs, cur_input;
	bool dir_merge;			/* directory: flush only at the end */
	bool pipe_header_done;		/* pipe: leading HEADER_* records read */
	struct perf_raw pending;	/* pipe: first non-header record, already read */
	bool has_pending;
	uint64_t dir_format;		/* DIR_FORMAT feature */
	uint32_t *pmu_types;		/* PMU_MAPPINGS */
	char **pmu_names;
	size_t nr_pmus;

	/* ordering */
	uint8_t *arena;
	size_t arena_len, arena_cap;
	size_t q_bytes;			/* queued bytes, in the arena or in place in a map */
	struct perf_qent *q;
	size_t q_nr, q_cap;
	struct perf_qent *q_tmp;		/* samples_unordered: scratch of the partition */
	size_t q_tmp_cap;
	size_t q_deliver, q_deliver_end;	/* delivering q[q_deliver..q_deliver_end) */
	bool q_delivering;
	uint64_t next_flush, max_time, last_flush, seq;
	bool at_end;
	bool have_round;			/* a FINISHED_ROUND seen */

	/* decode scratch, reused */
	struct perf_record rec;
	uint64_t *u64buf;
	size_t u64cap;
	struct perf_branch_entry *brbuf;
	size_t brcap;
	struct perf_read_value *rvbuf;
	size_t rvcap;
	char strbuf[4352];
	uint8_t *recbuf;			/* aligned copy of the record being decoded */
	size_t recbuf_cap;

	struct tep_handle *tep;
};

/* errors: the first one sticks */
int perf_reader__fail(struct perf_reader *r, const char *file, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* byte-order aware unaligned loads */
static inline uint64_t perf__bswap64(uint64_t v) { return __builtin_bswap64(v); }
static inline uint16_t rd16(const struct perf_reader *r, const void *p)
{
	uint16_t v; memcpy(&v, p, 2); return r->swap ? __builtin_bswap16(v) : v;
}
static inline uint32_t rd32(const struct perf_reader *r, const void *p)
{
	uint32_t v; memcpy(&v, p, 4); return r->swap ? __builtin_bswap32(v) : v;
}
static inline uint64_t rd64(const struct perf_reader *r, const void *p)
{
	uint64_t v; memcpy(&v, p, 8); return r->swap ? __builtin_bswap64(v) : v;
}

/* perf_reader.c */
int perf_reader__parse_attr(struct perf_reader *r, const uint8_t *p, size_t avail,
			    struct perf_evattr *a, const char *file, uint64_t off);
int perf_reader__add_event(struct perf_reader *r, const struct perf_evattr *a,
			   const uint8_t *ids, size_t nr_ids, const char *file, uint64_t off);
void perf_reader__finish_events(struct perf_reader *r);
int perf_reader__retire_name(struct perf_reader *r, char *name);
/* one build-id table entry or record 67; ancient: the pre-2.6.37 layout without pid */
int perf_reader__add_build_id(struct perf_reader *r, const uint8_t *p, size_t size,
			      bool ancient, const char *file, uint64_t off);
/* The index of the event of sample id `id`, or -1. */
static inline int perf_reader__event_of_id(const struct perf_reader *r, uint64_t id)
{
	const int *idx = hmap__find(&r->idmap, &id);

	return idx ? *idx : -1;
}
uint64_t perf__remap_bitfields(uint64_t v, const uint8_t *widths);
extern const uint8_t perf_branch_flag_widths[];
bool perf_reader__host_le(void);

/* perf_feature.c */
/* One feature section; a malformed one is counted and skipped (0), as perf does. */
int perf_feature__process(struct perf_reader *r, unsigned feat, const uint8_t *p,
			  uint64_t size, const char *file, uint64_t off);
void perf_feature__free(struct perf_reader *r);

/* perf_input.c */
int perf_input__open_file(struct perf_reader *r, struct perf_input *in, const char *path,
			  bool allow_stdin);
void perf_input__close(struct perf_input *in);
/* Makes n bytes at the current position available; 1 ok, 0 fewer remain (*avail set). */
int perf_input__peek(struct perf_reader *r, struct perf_input *in, size_t n,
		     const uint8_t **p, size_t *avail);
/* Next raw record of the input (decompressing as needed): 1, 0 at end, <0 error. */
int perf_input__next(struct perf_reader *r, struct perf_input *in, struct perf_raw *raw);

/* perf_decode.c */
int perf_decode__user_record(struct perf_reader *r, const struct perf_raw *raw);
int perf_decode__event_of(struct perf_reader *r, const uint8_t *p, uint32_t size,
			  uint32_t type);
bool perf_decode__time(struct perf_reader *r, const uint8_t *p, uint32_t size, uint32_t type,
		       int evidx, uint64_t *time);
int perf_decode__record(struct perf_reader *r, const uint8_t *p, uint32_t size,
			uint64_t off, struct perf_input *in, int evidx);


/* perf_event_name.c */
void perf_event__default_name(struct perf_reader *r, struct perf_event_int *e);

/* perf_order.c (and perf_reader__next) */
void perf_order__free(struct perf_reader *r);
/* Copies the records of input k queued in place (pread window) below file offset
 * upto into the queue's arena, and recomputes the input's keep_from. */
int perf_order__unpin(struct perf_reader *r, size_t k, uint64_t upto);

#endif
