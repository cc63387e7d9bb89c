/* The perf.data reader: opens a perf.data file, pipe stream or perf.data directory, decodes
 * its header, features and attrs, and delivers its records one by one, in timestamp order
 * where the file has times (FINISHED_ROUND semantics, memory bounded by one round).
 *
 * Every input is untrusted: every size is checked, nothing is allocated that a size field
 * asks for without a bound, and on corrupt input the calls return -HBBP_EFORMAT with
 * perf_reader__errmsg() saying "FILE: ... at 0xOFFSET: what is wrong".
 * Knows nothing of ELF, capstone, HBBP or the writers.
 */
#ifndef PERF_READER_H
#define PERF_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reader/perf_format.h"

struct perf_reader;	/* opaque */

/* A perf_event_attr, in native byte order, whatever size the producer wrote
 * (missing fields zero; the flag bit-field normalised to little-endian bit numbers). */
struct perf_evattr {
	uint32_t type;
	uint32_t size;			/* attr.size as written (0 was turned into 64) */
	uint64_t config;
	uint64_t sample_period;		/* or sample_freq when freq */
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags;			/* PERF_ATTR_FLAG_* */
	uint32_t wakeup_events;
	uint32_t bp_type;
	uint64_t config1;
	uint64_t config2;
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	int32_t clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack;
	uint32_t aux_sample_size;
	uint32_t aux_action;
	uint64_t sig_data;
	uint64_t config3;
};

static inline bool perf_evattr__freq(const struct perf_evattr *a)
{
	return a->flags & PERF_ATTR_FLAG_FREQ;
}
static inline unsigned perf_evattr__precise_ip(const struct perf_evattr *a)
{
	return (a->flags & PERF_ATTR_FLAG_PRECISE_MASK) >> PERF_ATTR_FLAG_PRECISE_SHIFT;
}
static inline bool perf_evattr__sample_id_all(const struct perf_evattr *a)
{
	return a->flags & PERF_ATTR_FLAG_SAMPLE_ID_ALL;
}

struct perf_event_info {
	int idx;			/* position in the attr list */
	const char *name;		/* as perf stored it (EVENT_DESC / EVENT_UPDATE), else
					 * a perf-style name made from type/config */
	struct perf_evattr attr;
	const uint64_t *ids;
	size_t nr_ids;
	bool name_stored;		/* name came from the file (else made from type/config) */
	uint64_t nr_samples;		/* samples delivered so far for this event */
	uint64_t nr_lost;		/* LOST records naming this event's ids */
	uint64_t nr_lost_samples;	/* LOST_SAMPLES records of this event */
	uint64_t nr_throttle;		/* THROTTLE records naming this event's ids */
	/* multiplexing, from READ records or sample READ values (method.md §7) */
	uint64_t time_enabled;
	uint64_t time_running;
};

struct perf_build_id_entry {
	int32_t pid;			/* machine pid: -1 host */
	uint16_t cpumode;		/* misc & 7 */
	uint8_t size;			/* 1..20 */
	uint8_t id[20];
	const char *filename;
};

struct perf_header_info {
	const char *path;		/* as given to open */
	bool is_pipe;
	bool is_dir;			/* perf.data directory (--kcore, --threads) */
	const char *dir_path;		/* the directory, when is_dir */
	const char *kcore_dir;		/* <dir>/kcore_dir if it exists, else NULL */
	bool needs_swap;		/* producer had the other byte order */
	bool compressed;		/* COMPRESSED or COMPRESSED2 records seen / feature set */
	bool truncated;			/* data size 0 in the header, or a partial last record */
	uint64_t file_size;
	uint64_t data_offset, data_size;
	uint32_t attr_size;		/* stride of the attrs section (file mode) */
	/* features; NULL / 0 when absent */
	const char *version;		/* perf version */
	const char *hostname, *osrelease, *arch, *cpudesc, *cpuid;
	const char *cmdline;		/* arguments joined with spaces */
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem_kb;
	bool has_branch_stack;		/* HEADER_BRANCH_STACK */
	uint64_t first_sample_time, last_sample_time;
	uint32_t clock_id;
	uint64_t clock_tod_ns, clock_ref_ns;	/* CLOCK_DATA pair, both 0 when absent */
	uint32_t comp_type, comp_level;	/* HEADER_COMPRESSED */
	const struct perf_build_id_entry *build_ids;	/* BUILD_ID feature (+ record 67) */
	size_t nr_build_ids;
	struct tep_handle *tep;		/* libtraceevent handle from TRACING_DATA, or NULL */
};

/* One branch-stack entry. flags is normalised to little-endian bit numbers (PERF_BR_*). */
struct perf_branch_entry {
	uint64_t from;
	uint64_t to;
	uint64_t flags;
};

struct perf_read_value {
	uint64_t value, id, lost;
};

struct perf_regs {
	uint64_t abi;			/* 0 none, 1 32-bit, 2 64-bit */
	uint32_t nr;
	const uint64_t *regs;		/* nr values, in ascending register-bit order */
};

/* A decoded SAMPLE. Pointers stay valid until the next perf_reader__next() call.
 * Absent fields are 0/NULL; `present` is the event's sample_type. */
struct perf_sample {
	uint64_t present;		/* sample_type of the event */
	uint64_t id;			/* IDENTIFIER or ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;		/* PERIOD if present, else the attr's sample_period */
	/* READ */
	uint64_t read_nr;		/* values in read_values (1 without GROUP) */
	uint64_t time_enabled, time_running;
	const struct perf_read_value *read_values;
	/* CALLCHAIN */
	uint64_t nr_callchain;
	const uint64_t *callchain;
	/* RAW */
	uint32_t raw_size;
	const uint8_t *raw;
	/* BRANCH_STACK, newest entry first */
	uint64_t nr_branches;
	bool has_hw_idx;
	uint64_t hw_idx;
	const struct perf_branch_entry *branches;
	const uint64_t *branch_counters;	/* nr_branches values, or NULL */
	struct perf_regs regs_user, regs_intr;
	/* STACK_USER */
	uint64_t stack_size, stack_dyn_size;
	const uint8_t *stack;
	uint64_t weight;		/* WEIGHT or WEIGHT_STRUCT (bits as in the UAPI union) */
	uint64_t data_src;
	uint64_t transaction;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size, code_page_size;
	uint64_t aux_size;
	const uint8_t *aux;
};

/* The sample_id trailer of a non-sample record (or the same fields of a sample). */
struct perf_sample_id {
	uint32_t pid, tid;
	uint64_t time, id, stream_id;
	uint32_t cpu;
};

struct perf_record {
	uint32_t type;			/* PERF_RECORD_* */
	uint16_t misc;
	uint16_t size;
	uint64_t file_offset;		/* of the record, or of its COMPRESSED container */
	const char *file;		/* the file it came from (data.N in directories) */
	int evidx;			/* event index (perf_reader__event), -1 when unknown */
	bool has_sid;			/* sid holds a parsed trailer / sample fields */
	struct perf_sample_id sid;
	union {
		struct perf_sample sample;		/* SAMPLE */
		struct {				/* MMAP, MMAP2 */
			uint32_t pid, tid;
			uint64_t start, len, pgoff;
			uint32_t maj, min;
			uint64_t ino, ino_generation;
			uint32_t prot, flags;
			uint8_t build_id_size;		/* > 0 when MMAP2 carried a build-id */
			uint8_t build_id[20];
			const char *filename;
		} mmap;
		struct {				/* COMM (exec: misc COMM_EXEC) */
			uint32_t pid, tid;
			const char *comm;
			bool exec;
		} comm;
		struct {				/* FORK, EXIT */
			uint32_t pid, ppid, tid, ptid;
			uint64_t time;
		} task;
		struct { uint64_t id, lost; } lost;	/* LOST */
		struct { uint64_t lost; } lost_samples;	/* LOST_SAMPLES */
		struct { uint64_t time, id, stream_id; } throttle;	/* (UN)THROTTLE */
		struct {				/* READ */
			uint32_t pid, tid;
			uint64_t nr, time_enabled, time_running;
			const struct perf_read_value *values;
		} read;
		struct {				/* KSYMBOL */
			uint64_t addr;
			uint32_t len;
			uint16_t ksym_type, flags;
			const char *name;
		} ksymbol;
		struct { uint64_t id; const char *path; } cgroup;
		struct {				/* HEADER_BUILD_ID (67) */
			int32_t pid;
			uint8_t size;
			uint8_t id[20];
			const char *filename;
		} build_id;
	};
};

struct perf_reader_opts {
	bool no_sort;			/* deliver in file order */
	bool samples_unordered;		/* samples between two other timed records may come in
					 * file order rather than time order (a consumer whose
					 * result does not depend on the order of samples): no
					 * sort of a round that holds samples only */
};

struct perf_reader_stats {
	uint64_t nr_records[PERF_RECORD_TYPE_MAX];
	uint64_t nr_unknown_type;	/* records of types >= PERF_RECORD_TYPE_MAX or unknown */
	uint64_t nr_lost;		/* sum of LOST.lost */
	uint64_t nr_lost_samples;	/* sum of LOST_SAMPLES.lost */
	uint64_t nr_throttle, nr_unthrottle;
	uint64_t nr_unknown_id;		/* samples whose id maps to no event (dropped) */
	uint64_t nr_out_of_order;
	uint64_t nr_compressed_bytes, nr_decompressed_bytes;
	uint64_t nr_nested_compressed;	/* compressed records inside compressed data: skipped
					 * (perf never writes them) */
	uint64_t truncated_bytes;	/* bytes the recording lacks: exact when the file header
					 * gives the data size (its end - the file's size), else
					 * at least the rest of the cut last record */
	uint64_t partial_bytes;		/* bytes of a cut last record present, not read */
	uint64_t nr_bad_features;	/* feature sections skipped because malformed */
	uint64_t bad_features;		/* their feature numbers as bits (HEADER_*, < 64) */
	bool empty_build_ids;		/* a BUILD_ID section of size 0: nothing to check
					 * binaries against */
};
/* Name of a header feature (HEADER_BUILD_ID -> "BUILD_ID"), or "FEATURE_<n>". */
const char *perf_feature__name(unsigned feat, char *buf, size_t len);

/* Opens path (file, pipe stream, '-' for stdin, or perf.data directory). Reads the header,
 * attrs and features (in pipe mode: the leading HEADER_* records).
 * On error *out is NULL and, if errmsg is not NULL, *errmsg points to a thread-local copy
 * of the message (valid until the same thread's next open). */
int perf_reader__open(struct perf_reader **out, const char *path,
		      const struct perf_reader_opts *opts, const char **errmsg);
void perf_reader__delete(struct perf_reader *r);

/* Next record: 1 and *rec set, 0 at the end, or a negative error (message in errmsg).
 * SAMPLE records of unknown id are counted and skipped, never returned. User records that
 * only describe the file (HEADER_*, FINISHED_ROUND, COMPRESSED containers) are consumed
 * internally but counted. */
int perf_reader__next(struct perf_reader *r, const struct perf_record **rec);

const char *perf_reader__errmsg(const struct perf_reader *r);
const struct perf_header_info *perf_reader__header(const struct perf_reader *r);
size_t perf_reader__nr_events(const struct perf_reader *r);
const struct perf_event_info *perf_reader__event(const struct perf_reader *r, size_t idx);
/* The name of the PMU of attr type `type` (HEADER_PMU_MAPPINGS), or NULL. */
const char *perf_reader__pmu_name(const struct perf_reader *r, uint32_t type);
const struct perf_reader_stats *perf_reader__stats(const struct perf_reader *r);

#endif
