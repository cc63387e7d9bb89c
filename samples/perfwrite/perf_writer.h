/* The perf.data writer: produces real perf.data files (file or pipe mode, either byte order,
 * any attr size, optionally zstd-compressed) from events described with the reader's own
 * structs. Used by the PMU simulator, the benchmarks and the round-trip and golden tests,
 * never by the tool: it lives here, outside the library, which only reads perf.data.
 * Its output must be readable by stock `perf script` (for the layouts perf supports).
 * Knows nothing of ELF, capstone, HBBP or the writers.
 */
#ifndef PERF_WRITER_H
#define PERF_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "reader/perf_reader.h"

struct perf_writer;	/* opaque */

enum perf_writer_compress {
	PERF_WRITER_COMPRESS_NONE,
	PERF_WRITER_COMPRESS_ZSTD,	/* PERF_RECORD_COMPRESSED (81), one zstd stream */
	PERF_WRITER_COMPRESS_ZSTD2,	/* PERF_RECORD_COMPRESSED2 (83) */
};

struct perf_writer_opts {
	bool pipe;			/* pipe-mode stream instead of a seekable file */
	bool swap;			/* write in the other byte order (big-endian on x86) */
	uint32_t attr_size;		/* attr.size to write: 64..136 (0: 128, perf 6.1's) */
	enum perf_writer_compress compress;
	int zstd_level;			/* 0: 1 */
	/* features (NULL: not written) */
	const char *version, *hostname, *osrelease, *arch, *cpudesc, *cpuid;
	const char *const *cmdline;	/* NULL-terminated argv */
	uint32_t nr_cpus;
	bool branch_stack;		/* write HEADER_BRANCH_STACK */
};
/* Features written: BUILD_ID (file mode; record 67 in pipe mode), HOSTNAME, OSRELEASE,
 * VERSION, ARCH, NRCPUS (avail = online = nr_cpus), CPUDESC, CPUID, CMDLINE, EVENT_DESC,
 * BRANCH_STACK and SAMPLE_TIME (file mode only, as perf), COMPRESSED (when compressing).
 * Pipe mode: HEADER_ATTR records, then HEADER_FEATURE records padded to 8, then the end
 * marker with feat_id 32 (perf 6.1's HEADER_LAST_FEATURE; 6.1 rejects larger ids). */

/* path "-" writes to stdout (pipe mode only). */
int perf_writer__open(struct perf_writer **out, const char *path,
		      const struct perf_writer_opts *opts);
/* Adds an event before any record is written; returns its index (>= 0) or an error.
 * ids: the sample ids to store with the attr (nr_ids may be 0). Fields that an attr of
 * opts.attr_size bytes cannot hold are dropped, and samples are encoded with the attr as
 * stored (e.g. attr_size 64 has no branch_sample_type, so no hw_idx and no counters).
 * name NULL: no name; EVENT_DESC is written when at least one event has a name (the
 * others get ""). */
int perf_writer__add_event(struct perf_writer *w, const struct perf_evattr *attr,
			   const char *name, const uint64_t *ids, size_t nr_ids);
/* Adds a BUILD_ID feature entry (file mode) / record 67 (pipe mode). */
int perf_writer__add_build_id(struct perf_writer *w, int32_t pid, uint16_t cpumode,
			      const uint8_t *id, uint8_t size, const char *filename);

/* Records. sid is the sample_id trailer for events with sample_id_all (may be NULL: zeros);
 * it is encoded with the sample_type of event evidx (0 for synthesized records).
 * The writer takes evidx as the event whose ids contain sid->id, else event 0; no trailer
 * when that event lacks sample_id_all. Strings are NUL-terminated and padded to 8. */
/* The layout follows event evidx's attr (sample_type, read_format, branch_sample_type,
 * register masks), not s->present. RAW data is zero-padded so that 4 + size is a multiple
 * of 8 and AUX data to a multiple of 8, as the kernel does (the sizes written include the
 * padding). Branch counters are written when branch_sample_type has COUNTERS (zeros when
 * s->branch_counters is NULL). -EINVAL when s does not match the attr (register count,
 * missing read values), -E2BIG when the record exceeds 65535 bytes. */
int perf_writer__sample(struct perf_writer *w, int evidx, uint16_t misc,
			const struct perf_sample *s);
int perf_writer__mmap2(struct perf_writer *w, uint16_t misc, uint32_t pid, uint32_t tid,
		       uint64_t start, uint64_t len, uint64_t pgoff, const uint8_t *build_id,
		       uint8_t build_id_size, uint32_t prot, uint32_t flags, const char *filename,
		       const struct perf_sample_id *sid);
int perf_writer__mmap(struct perf_writer *w, uint16_t misc, uint32_t pid, uint32_t tid,
		      uint64_t start, uint64_t len, uint64_t pgoff, const char *filename,
		      const struct perf_sample_id *sid);
int perf_writer__comm(struct perf_writer *w, bool exec, uint32_t pid, uint32_t tid,
		      const char *comm, const struct perf_sample_id *sid);
int perf_writer__task(struct perf_writer *w, uint32_t type /* FORK or EXIT */, uint32_t pid,
		      uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time,
		      const struct perf_sample_id *sid);
int perf_writer__lost(struct perf_writer *w, uint64_t id, uint64_t lost,
		      const struct perf_sample_id *sid);
int perf_writer__throttle(struct perf_writer *w, bool unthrottle, uint64_t time, uint64_t id,
			  uint64_t stream_id, const struct perf_sample_id *sid);
/* Any record given as its payload after the 8-byte header (trailer included by caller). */
int perf_writer__raw_record(struct perf_writer *w, uint32_t type, uint16_t misc,
			    const void *payload, size_t size);
int perf_writer__finished_round(struct perf_writer *w);

/* Flushes, writes features and the final header; frees w. Returns 0 or an error; on error
 * a file output is removed. */
int perf_writer__close(struct perf_writer *w);
/* Frees w and removes a file output, for error paths. */
void perf_writer__abort(struct perf_writer *w);

#endif
