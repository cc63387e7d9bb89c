/* perf_reader__open and friends: file/pipe/directory detection, the file header (byte order,
 * legacy PERFFILE, 72/104-byte headers), the attrs section, the feature index, pipe-mode
 * leading HEADER_* records, the id -> event map and the public getters.
 * Knows nothing of ELF, HBBP or the writers.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "reader/perf_reader_int.h"
#include "util/hbbp_err.h"
#include "util/grow.h"

/* field widths of the attr flag word, from bit 0 (precise_ip is the 2-bit field) */
static const uint8_t perf_attr_flag_widths[] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 };
/* branch entry flags: mispred, predicted, in_tx, abort, cycles, type, spec, new_type, priv,
 * reserved */
const uint8_t perf_branch_flag_widths[] = { 1, 1, 1, 1, 16, 4, 2, 4, 3, 31, 0 };

bool perf_reader__host_le(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 1;
}

/* A bit-field word written MSB-first (big-endian producer), already byte-swapped to native:
 * field k of width w sits at bits [64-k-w, 64-k). Returns it with fields at bit k. */
uint64_t perf__remap_bitfields(uint64_t v, const uint8_t *widths)
{
	uint64_t out = 0;
	unsigned k = 0;

	for (; *widths && k < 64; k += *widths++) {
		unsigned w = *widths;
		uint64_t mask = w >= 64 ? ~0ULL : (1ULL << w) - 1;

		if (k + w > 64)
			break;
		out |= ((v >> (64 - k - w)) & mask) << k;
	}
	return out;
}

int perf_reader__fail(struct perf_reader *r, const char *file, uint64_t off, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	if (r->err)
		return r->err;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->errbuf, sizeof(r->errbuf), "%s: %s at 0x%llx", file ? file : r->hdr.path,
		 msg, (unsigned long long)off);
	r->err = -HBBP_EFORMAT;
	return r->err;
}

/* Keeps a replaced event name alive until the reader is deleted (a consumer may hold it).
 * Bounded: past PERF_MAX_RETIRED_NAMES the name is freed and the caller told (-E2BIG). */
#define PERF_MAX_RETIRED_NAMES 4096
int perf_reader__retire_name(struct perf_reader *r, char *name)
{
	if (r->nr_retired_names >= PERF_MAX_RETIRED_NAMES)
		return -E2BIG;
	if (grow_array((void **)&r->retired_names, &r->cap_retired_names,
		       sizeof(*r->retired_names), r->nr_retired_names + 1, PERF_MAX_RETIRED_NAMES))
		return -ENOMEM;
	r->retired_names[r->nr_retired_names++] = name;
	return 0;
}

/* ---- attrs and events ---- */

int perf_reader__parse_attr(struct perf_reader *r, const uint8_t *p, size_t avail,
			    struct perf_evattr *a, const char *file, uint64_t off)
{
	uint8_t t[PERF_ATTR_SIZE_VER8];
	uint32_t size;
	size_t n;

	memset(a, 0, sizeof(*a));
	if (avail < PERF_ATTR_SIZE_VER0)
		return perf_reader__fail(r, file, off, "attr truncated (%zu bytes)", avail);
	size = rd32(r, p + 4);
	if (size == 0)
		size = PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0)
		return perf_reader__fail(r, file, off, "attr size %u < 64", size);
	n = size < avail ? size : avail;
	if (n > sizeof(t))
		n = sizeof(t);
	memset(t, 0, sizeof(t));
	memcpy(t, p, n);
	a->type = rd32(r, t);
	a->size = size;
	a->config = rd64(r, t + 8);
	a->sample_period = rd64(r, t + 16);
	a->sample_type = rd64(r, t + 24);
	a->read_format = rd64(r, t + 32);
	a->flags = rd64(r, t + 40);
	if (r->swap == perf_reader__host_le())	/* producer was big-endian */
		a->flags = perf__remap_bitfields(a->flags, perf_attr_flag_widths);
	a->wakeup_events = rd32(r, t + 48);
	a->bp_type = rd32(r, t + 52);
	a->config1 = rd64(r, t + 56);
	a->config2 = rd64(r, t + 64);
	a->branch_sample_type = rd64(r, t + 72);
	a->sample_regs_user = rd64(r, t + 80);
	a->sample_stack_user = rd32(r, t + 88);
	a->clockid = (int32_t)rd32(r, t + 92);
	a->sample_regs_intr = rd64(r, t + 96);
	a->aux_watermark = rd32(r, t + 104);
	a->sample_max_stack = rd16(r, t + 108);
	a->aux_sample_size = rd32(r, t + 112);
	a->aux_action = rd32(r, t + 116);
	a->sig_data = rd64(r, t + 120);
	a->config3 = rd64(r, t + 128);
	return 0;
}

int perf_reader__add_event(struct perf_reader *r, const struct perf_evattr *a,
			   const uint8_t *ids, size_t nr_ids, const char *file, uint64_t off)
{
	struct perf_event_int *e;
	size_t i;
	int idx, added;

	if (r->nr_events >= PERF_MAX_ATTRS)
		return perf_reader__fail(r, file, off, "more than %d events", PERF_MAX_ATTRS);
	if (r->idmap.nr + nr_ids > PERF_MAX_IDS)
		return perf_reader__fail(r, file, off, "more than %u event ids", PERF_MAX_IDS);
	if (grow_one((void **)&r->events, &r->cap_events, sizeof(*r->events), r->nr_events))
		return -ENOMEM;
	idx = (int)r->nr_events;
	e = &r->events[idx];
	memset(e, 0, sizeof(*e));
	e->info.idx = idx;
	e->info.attr = *a;
	e->group_leader = idx;
	r->nr_events++;
	if (nr_ids) {
		uint64_t *own = malloc(nr_ids * sizeof(uint64_t));

		e->info.ids = own;
		if (!own)
			return -ENOMEM;
		for (i = 0; i < nr_ids; i++) {
			int *owner;

			own[i] = rd64(r, ids + 8 * i);
			owner = hmap__get(&r->idmap, &own[i], &added);
			if (!owner)
				return -ENOMEM;
			if (added)	/* first owner wins */
				*owner = idx;
		}
		e->info.nr_ids = nr_ids;
	}
	return 0;
}

void perf_reader__finish_events(struct perf_reader *r)
{
	size_t i;

	r->id_pos = r->is_pos = -1;
	r->sample_id_all = false;
	if (r->nr_events) {
		const struct perf_evattr *a = &r->events[0].info.attr;
		uint64_t st = a->sample_type;

		if (st & PERF_SAMPLE_IDENTIFIER) {
			r->id_pos = 0;
			r->is_pos = 1;
		} else if (st & PERF_SAMPLE_ID) {
			r->id_pos = __builtin_popcountll(st & (PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR));
			r->is_pos = 1 + !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_STREAM_ID);
		}
		r->sample_id_all = perf_evattr__sample_id_all(a);
	}
	for (i = 0; i < r->nr_events; i++)
		if (!r->events[i].info.name)
			perf_event__default_name(r, &r->events[i]);
	/* branch counters are present when any member of the group asked for them */
	for (i = 0; i < r->nr_events; i++)
		r->events[i].branch_counters = false;
	for (i = 0; i < r->nr_events; i++) {
		struct perf_event_int *e = &r->events[i];

		if (e->info.attr.branch_sample_type & PERF_SAMPLE_BRANCH_COUNTERS) {
			size_t j, l = (size_t)e->group_leader;

			for (j = 0; j < r->nr_events; j++)
				if ((size_t)r->events[j].group_leader == l)
					r->events[j].branch_counters = true;
		}
	}
}

/* ---- build ids ---- */

#define PERF_MAX_BUILD_IDS (1u << 20)
int perf_reader__add_build_id(struct perf_reader *r, const uint8_t *p, size_t size,
			      bool ancient, const char *file, uint64_t off)
{
	struct perf_build_id_entry *b;
	uint16_t misc = rd16(r, p + 4);
	const uint8_t *name;
	size_t name_max;

	if (size < 36)
		return perf_reader__fail(r, file, off, "build-id entry size %zu < 36", size);
	if (r->nr_build_ids >= PERF_MAX_BUILD_IDS)
		return perf_reader__fail(r, file, off, "too many build-id entries");
	if (grow_array((void **)&r->build_ids, &r->cap_build_ids, sizeof(*r->build_ids),
		       r->nr_build_ids + 1, PERF_MAX_BUILD_IDS))
		return -ENOMEM;
	b = &r->build_ids[r->nr_build_ids];
	memset(b, 0, sizeof(*b));
	b->cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	name = p + 36;
	name_max = size - 36;
	if (ancient) {
		/* ancient layout without the pid field */
		b->pid = (b->cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
			  b->cpumode == PERF_RECORD_MISC_GUEST_USER) ? 0 : -1;
		memcpy(b->id, p + 8, 20);
		b->size = 20;
		name = p + 32;
		name_max = size - 32;
	} else {
		/* current layout: s32 pid, 20 id bytes, u8 size, 3 pad, name */
		b->pid = (int32_t)rd32(r, p + 8);
		memcpy(b->id, p + 12, 20);
		b->size = (misc & PERF_RECORD_MISC_BUILD_ID_SIZE) ? p[32] : 20;
		if (b->size == 0 || b->size > 20)
			b->size = 20;
	}
	b->filename = strndup((const char *)name, name_max);
	if (!b->filename)
		return -ENOMEM;
	r->nr_build_ids++;
	r->hdr.build_ids = r->build_ids;
	r->hdr.nr_build_ids = r->nr_build_ids;
	return 0;
}

/* ---- file mode ---- */

static bool feat_isset(const struct perf_reader *r, unsigned f)
{
	return f < 256 && (r->feat_bits[f / 64] >> (f % 64)) & 1;
}

static void read_feature_bits(struct perf_reader *r, const uint8_t *p)
{
	unsigned i;

	for (i = 0; i < 4; i++)
		r->feat_bits[i] = rd64(r, p + 8 * i);
	if (!r->swap || feat_isset(r, HEADER_HOSTNAME))
		return;
	/* written as 32-bit longs on the other-endian producer */
	for (i = 0; i < 4; i++) {
		uint32_t lo, hi;

		memcpy(&lo, p + 8 * i, 4);
		memcpy(&hi, p + 8 * i + 4, 4);
		r->feat_bits[i] = __builtin_bswap32(lo) | (uint64_t)__builtin_bswap32(hi) << 32;
	}
	if (feat_isset(r, HEADER_HOSTNAME))
		return;
	memset(r->feat_bits, 0, sizeof(r->feat_bits));
	r->feat_bits[0] = 1ULL << HEADER_BUILD_ID;
}

static bool range_ok(uint64_t off, uint64_t size, uint64_t limit)
{
	return off <= limit && size <= limit - off;
}

/* The file's attrs: nr of attr_size bytes at a_off (checked in the file), each with its
 * ids. 0 or an error. */
static int read_attrs(struct perf_reader *r, struct perf_input *in, uint64_t a_off,
		      uint64_t nr, uint64_t attr_size)
{
	const uint8_t *p = in->map;
	uint64_t i;
	int err;

	for (i = 0; i < nr; i++) {
		uint64_t eoff = a_off + i * attr_size;
		const uint8_t *e = p + eoff;
		struct perf_evattr a;
		uint64_t ids_off, ids_size;

		err = perf_reader__parse_attr(r, e, attr_size - 16, &a, in->name, eoff);
		if (err)
			return err;
		ids_off = rd64(r, e + attr_size - 16);
		ids_size = rd64(r, e + attr_size - 8);
		if (ids_size && !range_ok(ids_off, ids_size, in->map_size))
			return perf_reader__fail(r, in->name, eoff + attr_size - 16,
						 "attr ids out of bounds");
		/* no ids: ids_off is not checked and may point anywhere */
		err = perf_reader__add_event(r, &a, ids_size ? p + ids_off : p, ids_size / 8,
					     in->name, eoff);
		if (err)
			return err;
	}
	return 0;
}

/* The feature sections the header's bits announce, their index at idx_off. A bad payload
 * is counted and skipped, as perf does. 0 or an error. */
static int read_features(struct perf_reader *r, struct perf_input *in, uint64_t idx_off)
{
	const char *f = in->name;
	const uint8_t *p = in->map;
	uint64_t fsize = in->map_size;
	unsigned feat, n = 0;
	int err;

	for (feat = 1; feat < HEADER_FEAT_BITS; feat++) {
		uint64_t e_off, s_off, s_size;

		if (!feat_isset(r, feat))
			continue;
		e_off = idx_off + 16ULL * n++;
		if (!range_ok(e_off, 16, fsize))
			return perf_reader__fail(r, f, e_off,
				"feature %u index entry out of bounds", feat);
		s_off = rd64(r, p + e_off);
		s_size = rd64(r, p + e_off + 8);
		if (!range_ok(s_off, s_size, fsize))
			return perf_reader__fail(r, f, e_off,
				"feature %u section out of bounds", feat);
		if (s_size > PERF_MAX_FEATURE_SIZE)
			return perf_reader__fail(r, f, e_off, "feature %u section too large", feat);
		err = perf_feature__process(r, feat, p + s_off, s_size, f, s_off);
		if (err)
			return err;
	}
	return 0;
}

static int read_file_header(struct perf_reader *r, struct perf_input *in)
{
	const char *f = in->name;
	const uint8_t *p = in->map;
	uint64_t fsize = in->map_size;
	uint64_t hsize, attr_size, a_off, a_size, d_off, d_size, nr_attrs;
	int err;

	if (fsize < 72)
		return perf_reader__fail(r, f, 0, "file header truncated (%llu bytes)",
					 (unsigned long long)fsize);
	hsize = rd64(r, p + 8);
	attr_size = rd64(r, p + 16);
	if (r->legacy_v1) {
		uint64_t sw = perf__bswap64(attr_size);
		bool native = false, swapped = false;
		unsigned v;

		for (v = PERF_ATTR_SIZE_VER0; v <= PERF_ATTR_SIZE_VER8; v += 8) {
			native |= attr_size == v + 16;
			swapped |= sw == v + 16;
		}
		if (!native && swapped) {
			r->swap = true;
			hsize = rd64(r, p + 8);
			attr_size = rd64(r, p + 16);
		}
	}
	a_off = rd64(r, p + 24);
	a_size = rd64(r, p + 32);
	d_off = rd64(r, p + 40);
	d_size = rd64(r, p + 48);
	if (hsize < 72 || (hsize > 72 && hsize < PERF_FILE_HEADER_SIZE) || hsize > fsize)
		return perf_reader__fail(r, f, 8, "header size %llu invalid",
					 (unsigned long long)hsize);
	if (hsize >= PERF_FILE_HEADER_SIZE)
		read_feature_bits(r, p + 72);
	if (attr_size == 0)
		return perf_reader__fail(r, f, 16,
			"attr_size is 0 (perf record was not properly terminated)");
	if (attr_size < PERF_ATTR_SIZE_VER0 + 16 || attr_size > 65536)
		return perf_reader__fail(r, f, 16, "attr_size %llu invalid",
					 (unsigned long long)attr_size);
	if (!range_ok(a_off, a_size, fsize) || (a_size && a_off < hsize))
		return perf_reader__fail(r, f, 24, "attrs section out of bounds");
	if (d_off < hsize || d_off > fsize)
		return perf_reader__fail(r, f, 40, "data section offset 0x%llx out of bounds",
					 (unsigned long long)d_off);
	if (a_size && d_size && a_off < d_off + d_size && d_off < a_off + a_size)
		return perf_reader__fail(r, f, 24, "attrs and data sections overlap");
	nr_attrs = a_size / attr_size;
	if (nr_attrs > PERF_MAX_ATTRS)
		return perf_reader__fail(r, f, 32, "%llu attrs (more than %d)",
					 (unsigned long long)nr_attrs, PERF_MAX_ATTRS);
	r->hdr.attr_size = (uint32_t)attr_size;
	r->hdr.data_offset = d_off;
	r->hdr.data_size = d_size;
	if (d_size == 0 || !range_ok(d_off, d_size, fsize)) {
		/* killed recorder: no feature sections; read the data to EOF */
		r->hdr.truncated = true;
		memset(r->feat_bits, 0, sizeof(r->feat_bits));
		in->end = fsize;
		if (d_size && d_off + d_size > fsize) {	/* cut: the header knows how much */
			r->stats.truncated_bytes = d_off + d_size - fsize;
			r->missing_known = true;
		}
	} else {
		in->end = d_off + d_size;
	}
	in->pos = d_off;
	err = read_attrs(r, in, a_off, nr_attrs, attr_size);
	if (!err && !r->hdr.truncated)	/* the feature index follows the data section */
		err = read_features(r, in, d_off + d_size);
	return err;
}

/* ---- pipe mode: leading HEADER_* records ---- */

static bool is_header_record(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_HEADER_ATTR: case PERF_RECORD_HEADER_EVENT_TYPE:
	case PERF_RECORD_HEADER_TRACING_DATA: case PERF_RECORD_HEADER_BUILD_ID:
	case PERF_RECORD_ID_INDEX: case PERF_RECORD_AUXTRACE_INFO:
	case PERF_RECORD_THREAD_MAP: case PERF_RECORD_CPU_MAP:
	case PERF_RECORD_EVENT_UPDATE: case PERF_RECORD_TIME_CONV:
	case PERF_RECORD_HEADER_FEATURE: case PERF_RECORD_STAT_CONFIG:
		return true;
	}
	return false;
}

static int read_pipe_header(struct perf_reader *r, struct perf_input *in)
{
	struct perf_raw raw;
	int ret;

	in->pos = 16;
	if (in->streaming)
		in->start = 16;
	for (;;) {
		ret = perf_input__next(r, in, &raw);
		if (ret <= 0)
			return ret;
		if (!is_header_record(raw.type)) {
			r->pending = raw;
			r->has_pending = true;
			return 0;
		}
		ret = perf_decode__user_record(r, &raw);
		if (ret < 0)
			return ret;
	}
}

/* ---- directories ---- */

static int open_dir_inputs(struct perf_reader *r)
{
	DIR *d = opendir(r->hdr.dir_path);
	struct dirent *de;
	int err = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[4096];
		struct stat st;

		if (strncmp(de->d_name, "data.", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s", r->hdr.dir_path, de->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (grow_one((void **)&r->inputs, &r->cap_inputs, sizeof(*r->inputs),
			     r->nr_inputs)) {
			err = -ENOMEM;
			break;
		}
		err = perf_input__open_file(r, &r->inputs[r->nr_inputs], path, false);
		r->nr_inputs++;
		if (err)
			break;
		r->inputs[r->nr_inputs - 1].pos = 0;
	}
	closedir(d);
	r->dir_merge = true;
	return err;
}

/* ---- open / delete ---- */

static _Thread_local char open_errmsg[512];	/* -j opens files on several threads */

int perf_reader__open(struct perf_reader **out, const char *path,
		      const struct perf_reader_opts *opts, const char **errmsg)
{
	struct perf_reader *r = calloc(1, sizeof(*r));
	struct perf_input *in;
	const char *main_path = path;
	char *dpath = NULL;
	const uint8_t *p;
	size_t avail;
	uint64_t magic, size;
	struct stat st;
	int err;

	*out = NULL;
	if (errmsg)
		*errmsg = NULL;
	if (!r)
		return -ENOMEM;
	hmap__init(&r->idmap, 1, sizeof(int));
	if (opts)
		r->opts = *opts;
	r->hdr.path = r->strs[0] = strdup(path);
	r->inputs = calloc(1, sizeof(*r->inputs));
	if (!r->hdr.path || !r->inputs) {
		err = -ENOMEM;
		goto out_err;
	}
	r->nr_inputs = r->cap_inputs = 1;
	if (strcmp(path, "-") && !stat(path, &st) && S_ISDIR(st.st_mode)) {
		size_t n = strlen(path) + 16;
		struct stat kst;

		r->hdr.is_dir = true;
		r->hdr.dir_path = r->hdr.path;
		dpath = malloc(n);
		r->strs[1] = malloc(n);
		if (!dpath || !r->strs[1]) {
			err = -ENOMEM;
			goto out_err;
		}
		snprintf(dpath, n, "%s/data", path);
		if (access(dpath, F_OK)) {
			snprintf(r->errbuf, sizeof(r->errbuf), "%s: a directory, not a perf.data "
				 "file (nor a perf.data directory: no 'data' file in it)", path);
			err = r->err = -HBBP_EFORMAT;
			goto out_err;
		}
		snprintf(r->strs[1], n, "%s/kcore_dir", path);
		if (!stat(r->strs[1], &kst) && S_ISDIR(kst.st_mode))
			r->hdr.kcore_dir = r->strs[1];
		main_path = dpath;
	}
	in = &r->inputs[0];
	err = perf_input__open_file(r, in, main_path, true);
	if (err)
		goto out_err;
	r->hdr.file_size = in->streaming ? 0 : in->map_size;
	err = perf_input__peek(r, in, 16, &p, &avail);
	if (err < 0)
		goto out_err;
	if (err == 0) {
		err = perf_reader__fail(r, in->name, 0, "file too small for a perf.data header");
		goto out_err;
	}
	memcpy(&magic, p, 8);
	if (magic == PERF_MAGIC2) {
		r->swap = false;
	} else if (magic == PERF_MAGIC2_SWAPPED) {
		r->swap = true;
	} else if (!memcmp(p, "PERFFILE", 8)) {
		r->legacy_v1 = true;
		memcpy(&size, p + 8, 8);
		if (size != 16 && __builtin_bswap64(size) == 16)
			r->swap = true;
	} else {
		err = perf_reader__fail(r, in->name, 0, "bad magic (not a perf.data file)");
		goto out_err;
	}
	r->hdr.needs_swap = r->swap;
	size = rd64(r, p + 8);
	if (size == PERF_PIPE_HEADER_SIZE) {
		r->hdr.is_pipe = true;
		err = read_pipe_header(r, in);
	} else if (in->streaming) {
		err = perf_reader__fail(r, in->name, 8,
			"file-mode perf.data (header size %llu) cannot be read from a pipe",
			(unsigned long long)size);
	} else {
		err = read_file_header(r, in);
		r->hdr.needs_swap = r->swap;	/* legacy headers may decide it late */
		if (!err && r->hdr.is_dir && r->dir_format >= 1)
			err = open_dir_inputs(r);
	}
	if (err)
		goto out_err;
	perf_reader__finish_events(r);
	r->pipe_header_done = true;
	free(dpath);
	*out = r;
	return 0;

out_err:
	if (errmsg) {
		if (!r->errbuf[0])
			snprintf(r->errbuf, sizeof(r->errbuf), "%s: %s", path, hbbp_strerror(err));
		snprintf(open_errmsg, sizeof(open_errmsg), "%s", r->errbuf);
		*errmsg = open_errmsg;
	}
	free(dpath);
	perf_reader__delete(r);
	return err < 0 ? err : -HBBP_EFORMAT;
}

void perf_reader__delete(struct perf_reader *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_inputs; i++)
		perf_input__close(&r->inputs[i]);
	free(r->inputs);
	for (i = 0; i < r->nr_events; i++) {
		free((char *)r->events[i].info.name);
		free((uint64_t *)r->events[i].info.ids);
	}
	free(r->events);
	hmap__exit(&r->idmap);
	for (i = 0; i < r->nr_build_ids; i++)
		free((char *)r->build_ids[i].filename);
	free(r->build_ids);
	for (i = 0; i < sizeof(r->strs) / sizeof(r->strs[0]); i++)
		free(r->strs[i]);
	for (i = 0; i < r->nr_retired_names; i++)
		free(r->retired_names[i]);
	free(r->retired_names);
	perf_feature__free(r);
	perf_order__free(r);
	free(r->u64buf);
	free(r->brbuf);
	free(r->rvbuf);
	free(r->recbuf);
	free(r);
}

const char *perf_reader__errmsg(const struct perf_reader *r)
{
	return r->errbuf[0] ? r->errbuf : "no error";
}

const struct perf_header_info *perf_reader__header(const struct perf_reader *r)
{
	return &r->hdr;
}

size_t perf_reader__nr_events(const struct perf_reader *r)
{
	return r->nr_events;
}

const struct perf_event_info *perf_reader__event(const struct perf_reader *r, size_t idx)
{
	return idx < r->nr_events ? &r->events[idx].info : NULL;
}

const struct perf_reader_stats *perf_reader__stats(const struct perf_reader *r)
{
	return &r->stats;
}

