/* Decoding of single records: record -> event mapping (IDENTIFIER / ID position / single
 * attr), the timestamp used for ordering, PERF_RECORD_SAMPLE bodies (every sample_type bit),
 * the sample_id trailer of other kernel records (parsed backwards), the kernel record
 * payloads and the user records that describe the stream (HEADER_ATTR, HEADER_FEATURE,
 * EVENT_UPDATE, TRACING_DATA, BUILD_ID). Every size is checked against the record size.
 * Knows nothing outside reader/.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reader/perf_reader_int.h"
#include "util/hbbp_err.h"

#define MAX_U64S	(65536 / 8 + 64)
#define MAX_BRANCHES	(65536 / 24 + 1)

static bool producer_be(const struct perf_reader *r)
{
	return r->swap == perf_reader__host_le();
}

int perf_decode__event_of(struct perf_reader *r, const uint8_t *p, uint32_t size,
			  uint32_t type)
{
	uint64_t n, id;
	int idx;

	if (!r->nr_events)
		return -1;
	if (r->nr_events == 1)
		return 0;
	if (type >= PERF_RECORD_USER_TYPE_START)
		return -1;
	if (type != PERF_RECORD_SAMPLE && !r->sample_id_all)
		return 0;
	n = (size - 8u) / 8;
	if (type == PERF_RECORD_SAMPLE) {
		if (r->id_pos < 0)
			return 0;
		if ((uint64_t)r->id_pos >= n)
			return -2;
		id = rd64(r, p + 8 + 8 * r->id_pos);
	} else {
		if (r->is_pos < 0)
			return 0;
		if ((uint64_t)r->is_pos > n)
			return -2;
		id = rd64(r, p + 8 + 8 * (n - r->is_pos));
	}
	if (!id)
		return 0;
	idx = perf_reader__event_of_id(r, id);
	return idx >= 0 ? idx : -2;
}

static const struct perf_evattr *attr_of(const struct perf_reader *r, int evidx)
{
	if (evidx >= 0 && (size_t)evidx < r->nr_events)
		return &r->events[evidx].info.attr;
	return r->nr_events ? &r->events[0].info.attr : NULL;
}

bool perf_decode__time(struct perf_reader *r, const uint8_t *p, uint32_t size, uint32_t type,
		       int evidx, uint64_t *time)
{
	const struct perf_evattr *a = attr_of(r, evidx);
	uint64_t st, t;
	uint32_t pos;

	if (!a || type >= PERF_RECORD_USER_TYPE_START)
		return false;
	st = a->sample_type;
	if (!(st & PERF_SAMPLE_TIME))
		return false;
	if (type == PERF_RECORD_SAMPLE) {
		pos = 8 + 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
			       !!(st & PERF_SAMPLE_TID));
		if (pos + 8 > size)
			return false;
	} else {
		uint32_t back;

		if (!perf_evattr__sample_id_all(a))
			return false;
		back = 8 * (1 + !!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_CPU) +
			    !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_ID));
		if (back + 8 > size)
			return false;
		pos = size - back;
	}
	t = rd64(r, p + pos);
	if (t == 0 || t == ~0ULL)
		return false;
	*time = t;
	return true;
}

static int ensure_scratch(struct perf_reader *r)
{
	if (r->u64buf)
		return 0;
	r->u64buf = malloc(MAX_U64S * sizeof(uint64_t));
	r->brbuf = malloc(MAX_BRANCHES * sizeof(struct perf_branch_entry));
	r->rvbuf = malloc(MAX_U64S * sizeof(struct perf_read_value));
	if (!r->u64buf || !r->brbuf || !r->rvbuf)
		return -ENOMEM;
	r->u64cap = MAX_U64S;
	r->brcap = MAX_BRANCHES;
	r->rvcap = MAX_U64S;
	return 0;
}

struct dcur {
	struct perf_reader *r;
	const uint8_t *p;
	uint32_t pos, end;
	size_t u64used;
};

static bool has(struct dcur *c, uint64_t n) { return n <= (uint64_t)(c->end - c->pos); }
static uint64_t g64(struct dcur *c)
{
	uint64_t v = rd64(c->r, c->p + c->pos);

	c->pos += 8;
	return v;
}

/* copies n u64s into the scratch area; returns NULL when it does not fit */
static const uint64_t *g64s(struct dcur *c, uint64_t n)
{
	uint64_t *dst;
	uint64_t i;

	if (!has(c, n * 8) || n > c->r->u64cap - c->u64used)
		return NULL;
	dst = c->r->u64buf + c->u64used;
	for (i = 0; i < n; i++)
		dst[i] = g64(c);
	c->u64used += n;
	return dst;
}

static int decode_read(struct dcur *c, uint64_t rf, uint64_t *nr, uint64_t *te, uint64_t *tr,
		       const struct perf_read_value **vals)
{
	struct perf_read_value *v = c->r->rvbuf;
	uint64_t i, n = 1, per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);

	if (rf & PERF_FORMAT_GROUP) {
		if (!has(c, 8))
			return -1;
		n = g64(c);
	} else {
		if (!has(c, 8))
			return -1;
		memset(&v[0], 0, sizeof(v[0]));
		v[0].value = g64(c);
	}
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) {
		if (!has(c, 8))
			return -1;
		*te = g64(c);
	}
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) {
		if (!has(c, 8))
			return -1;
		*tr = g64(c);
	}
	if (rf & PERF_FORMAT_GROUP) {
		if (n > c->r->rvcap || !has(c, n * per * 8))
			return -1;
		for (i = 0; i < n; i++) {
			v[i].value = g64(c);
			v[i].id = (rf & PERF_FORMAT_ID) ? g64(c) : 0;
			v[i].lost = (rf & PERF_FORMAT_LOST) ? g64(c) : 0;
		}
	} else {
		if (!has(c, (per - 1) * 8))
			return -1;
		if (rf & PERF_FORMAT_ID)
			v[0].id = g64(c);
		if (rf & PERF_FORMAT_LOST)
			v[0].lost = g64(c);
	}
	*nr = n;
	*vals = v;
	return 0;
}

static int decode_regs(struct dcur *c, uint64_t mask, struct perf_regs *regs)
{
	if (!has(c, 8))
		return -1;
	regs->abi = g64(c);
	if (regs->abi) {
		regs->nr = (uint32_t)__builtin_popcountll(mask);
		regs->regs = g64s(c, regs->nr);
		if (!regs->regs)
			return -1;
	}
	return 0;
}

/* fields after BRANCH_STACK; 0 ok, -1 out of bounds */
static int decode_tail(struct dcur *c, const struct perf_evattr *a, struct perf_sample *s)
{
	uint64_t st = a->sample_type;

	if ((st & PERF_SAMPLE_REGS_USER) && decode_regs(c, a->sample_regs_user, &s->regs_user))
		return -1;
	if (st & PERF_SAMPLE_STACK_USER) {
		if (!has(c, 8))
			return -1;
		s->stack_size = g64(c);
		if (s->stack_size) {
			if (!has(c, s->stack_size) || !has(c, s->stack_size + 8))
				return -1;
			s->stack = c->p + c->pos;
			c->pos += (uint32_t)s->stack_size;
			s->stack_dyn_size = g64(c);
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		if (!has(c, 8))
			return -1;
		s->weight = g64(c);
	}
#define FIELD(bit, f) do { if (st & (bit)) { if (!has(c, 8)) return -1; s->f = g64(c); } } while (0)
	FIELD(PERF_SAMPLE_DATA_SRC, data_src);
	FIELD(PERF_SAMPLE_TRANSACTION, transaction);
	if ((st & PERF_SAMPLE_REGS_INTR) && decode_regs(c, a->sample_regs_intr, &s->regs_intr))
		return -1;
	FIELD(PERF_SAMPLE_PHYS_ADDR, phys_addr);
	FIELD(PERF_SAMPLE_CGROUP, cgroup);
	FIELD(PERF_SAMPLE_DATA_PAGE_SIZE, data_page_size);
	FIELD(PERF_SAMPLE_CODE_PAGE_SIZE, code_page_size);
#undef FIELD
	if (st & PERF_SAMPLE_AUX) {
		if (!has(c, 8))
			return -1;
		s->aux_size = g64(c);
		if (!has(c, s->aux_size))
			return -1;
		s->aux = c->p + c->pos;
		c->pos += (uint32_t)s->aux_size;
	}
	return 0;
}

static int decode_branches(struct dcur *c, struct perf_reader *r, int evidx, uint64_t nr,
			   struct perf_sample *s)
{
	const struct perf_event_int *e = &r->events[evidx];
	struct perf_branch_entry *b = r->brbuf;
	uint64_t i;

	if (nr > r->brcap || !has(c, nr * 24))
		return -1;
	if (!r->swap && !producer_be(r) && !((uintptr_t)(c->p + c->pos) & 7)) {
		/* the file's own layout: used in place, no copy */
		s->branches = (const struct perf_branch_entry *)(const void *)(c->p + c->pos);
		c->pos += (uint32_t)(nr * 24);
	} else {
		for (i = 0; i < nr; i++) {
			b[i].from = g64(c);
			b[i].to = g64(c);
			b[i].flags = g64(c);
			if (producer_be(r))
				b[i].flags = perf__remap_bitfields(b[i].flags,
								   perf_branch_flag_widths);
		}
		s->branches = b;
	}
	s->nr_branches = nr;
	if (e->branch_counters && nr) {
		s->branch_counters = g64s(c, nr);
		if (!s->branch_counters)
			return -1;
	}
	return 0;
}

/* A sample's branch stack at c (hw_idx first when the event asks for it): 0, or 1 when the
 * tail after it was decoded too, or -1 when it does not fit. */
static int decode_branch_stack(struct dcur *c, const struct perf_evattr *a, int evidx,
			       struct perf_sample *s)
{
	bool hw = a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX;
	uint64_t nr;

	if (!has(c, 8))
		return -1;
	nr = g64(c);
	if (nr > c->end / 24)
		return -1;
	if (hw && nr == 0) {
		/* the kernel writes a bare nr=0 when it had no stack: try both */
		struct dcur save = *c;
		struct perf_sample ss = *s;

		if (has(c, 8)) {
			c->pos += 8;
			if (!decode_tail(c, a, s) && c->pos == c->end) {
				s->has_hw_idx = true;
				s->hw_idx = rd64(c->r, c->p + save.pos);
				return 1;
			}
		}
		*c = save;
		*s = ss;
		hw = false;
	}
	if (hw) {
		if (!has(c, 8))
			return -1;
		s->has_hw_idx = true;
		s->hw_idx = g64(c);
	}
	return decode_branches(c, c->r, evidx, nr, s) ? -1 : 0;
}

static int decode_sample(struct perf_reader *r, const uint8_t *p, uint32_t size, uint64_t off,
			 const char *file, int evidx)
{
	struct perf_event_int *e = &r->events[evidx];
	const struct perf_evattr *a = &e->info.attr;
	struct perf_sample *s = &r->rec.sample;
	struct dcur c = { r, p, 8, size, 0 };
	uint64_t st = a->sample_type;
	const char *what = "sample";
	int fixed, tail = 0;	/* tail: 1 once decoded with the branch stack */

	memset(s, 0, sizeof(*s));
	s->present = st;
	fixed = __builtin_popcountll(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
			PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD));
	if (!has(&c, 8ULL * fixed))
		goto bad;
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->id = g64(&c);
	if (st & PERF_SAMPLE_IP)
		s->ip = g64(&c);
	if (st & PERF_SAMPLE_TID) {
		s->pid = rd32(r, p + c.pos);
		s->tid = rd32(r, p + c.pos + 4);
		c.pos += 8;
	}
	if (st & PERF_SAMPLE_TIME)
		s->time = g64(&c);
	if (st & PERF_SAMPLE_ADDR)
		s->addr = g64(&c);
	if (st & PERF_SAMPLE_ID)
		s->id = g64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		s->stream_id = g64(&c);
	if (st & PERF_SAMPLE_CPU) {
		s->cpu = rd32(r, p + c.pos);
		c.pos += 8;
	}
	s->period = a->sample_period;
	if (st & PERF_SAMPLE_PERIOD)
		s->period = g64(&c);
	if (st & PERF_SAMPLE_READ) {
		what = "sample READ group";
		if (decode_read(&c, a->read_format, &s->read_nr, &s->time_enabled,
				&s->time_running, &s->read_values))
			goto bad;
		if (s->time_enabled) {
			e->info.time_enabled = s->time_enabled;
			e->info.time_running = s->time_running;
		}
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		what = "sample callchain";
		if (!has(&c, 8))
			goto bad;
		s->nr_callchain = g64(&c);
		if (s->nr_callchain > size / 8)
			goto bad;
		s->callchain = g64s(&c, s->nr_callchain);
		if (!s->callchain && s->nr_callchain)
			goto bad;
	}
	if (st & PERF_SAMPLE_RAW) {
		what = "sample raw data";
		if (!has(&c, 4))
			goto bad;
		s->raw_size = rd32(r, p + c.pos);
		if (!has(&c, 4ULL + s->raw_size))
			goto bad;
		s->raw = p + c.pos + 4;
		c.pos += 4 + s->raw_size;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		what = "sample branch stack";
		tail = decode_branch_stack(&c, a, evidx, s);
		if (tail < 0)
			goto bad;
	}
	what = "sample";
	if (!tail && decode_tail(&c, a, s))
		goto bad;
	r->rec.has_sid = true;
	r->rec.sid.pid = s->pid;
	r->rec.sid.tid = s->tid;
	r->rec.sid.time = s->time;
	r->rec.sid.id = s->id;
	r->rec.sid.stream_id = s->stream_id;
	r->rec.sid.cpu = s->cpu;
	e->info.nr_samples++;
	return 0;
bad:
	return perf_reader__fail(r, file, off, "%s does not fit in record of size %u (event %s)",
				 what, size, e->info.name ? e->info.name : "?");
}

/* parses the trailer backwards; returns the payload end */
static uint32_t decode_trailer(struct perf_reader *r, const uint8_t *p, uint32_t size, int evidx)
{
	const struct perf_evattr *a = attr_of(r, evidx);
	struct perf_sample_id *sid = &r->rec.sid;
	uint32_t pos = size;
	uint64_t st;

	if (!a || !perf_evattr__sample_id_all(a))
		return size;
	st = a->sample_type;
	if (8u * (1 + __builtin_popcountll(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CPU |
			PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_ID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_TID))) > size)
		return size;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		pos -= 8;
		sid->id = rd64(r, p + pos);
	}
	if (st & PERF_SAMPLE_CPU) {
		pos -= 8;
		sid->cpu = rd32(r, p + pos);
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		pos -= 8;
		sid->stream_id = rd64(r, p + pos);
	}
	if (st & PERF_SAMPLE_ID) {
		pos -= 8;
		sid->id = rd64(r, p + pos);
	}
	if (st & PERF_SAMPLE_TIME) {
		pos -= 8;
		sid->time = rd64(r, p + pos);
	}
	if (st & PERF_SAMPLE_TID) {
		pos -= 8;
		sid->pid = rd32(r, p + pos);
		sid->tid = rd32(r, p + pos + 4);
	}
	r->rec.has_sid = true;
	return pos;
}

/* a NUL-terminated string inside [p+from, p+to), or a bounded copy */
static const char *rec_str(struct perf_reader *r, const uint8_t *p, uint32_t from, uint32_t to)
{
	size_t n;

	if (from >= to)
		return "";
	if (memchr(p + from, 0, to - from))
		return (const char *)p + from;
	n = to - from;
	if (n >= sizeof(r->strbuf))
		n = sizeof(r->strbuf) - 1;
	memcpy(r->strbuf, p + from, n);
	r->strbuf[n] = 0;
	return r->strbuf;
}

/* The smallest body of each record type below (its trailer apart), decoded or not. */
static const uint8_t record_min[] = {
	[PERF_RECORD_MMAP] = 40, [PERF_RECORD_MMAP2] = 72, [PERF_RECORD_COMM] = 16,
	[PERF_RECORD_FORK] = 32, [PERF_RECORD_EXIT] = 32, [PERF_RECORD_LOST] = 24,
	[PERF_RECORD_LOST_SAMPLES] = 16, [PERF_RECORD_THROTTLE] = 32,
	[PERF_RECORD_UNTHROTTLE] = 32, [PERF_RECORD_READ] = 16, [PERF_RECORD_KSYMBOL] = 24,
	[PERF_RECORD_TEXT_POKE] = 20, [PERF_RECORD_SWITCH_CPU_WIDE] = 16,
	[PERF_RECORD_CGROUP] = 16, [PERF_RECORD_NAMESPACES] = 24, [PERF_RECORD_TIME_CONV] = 32,
	[PERF_RECORD_AUXTRACE] = 16,
};

/* MMAP and MMAP2 (end: where the body ends, at least record_min) */
static void decode_mmap(struct perf_reader *r, const uint8_t *p, uint32_t end)
{
	struct perf_record *rec = &r->rec;

	rec->mmap.pid = rd32(r, p + 8);
	rec->mmap.tid = rd32(r, p + 12);
	rec->mmap.start = rd64(r, p + 16);
	rec->mmap.len = rd64(r, p + 24);
	rec->mmap.pgoff = rd64(r, p + 32);
	if (rec->type == PERF_RECORD_MMAP) {
		rec->mmap.filename = rec_str(r, p, 40, end);
		return;
	}
	if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		uint8_t n = p[40];

		rec->mmap.build_id_size = n > 20 ? 20 : n;
		memcpy(rec->mmap.build_id, p + 44, 20);
	} else {
		rec->mmap.maj = rd32(r, p + 40);
		rec->mmap.min = rd32(r, p + 44);
		rec->mmap.ino = rd64(r, p + 48);
		rec->mmap.ino_generation = rd64(r, p + 56);
	}
	rec->mmap.prot = rd32(r, p + 64);
	rec->mmap.flags = rd32(r, p + 68);
	rec->mmap.filename = rec_str(r, p, 72, end);
}

/* LOST, LOST_SAMPLES, THROTTLE, UNTHROTTLE and READ, counted in the stats and the event's:
 * 0 or an error */
static int decode_counts(struct perf_reader *r, const uint8_t *p, uint32_t size, uint32_t end,
			 int evidx)
{
	struct perf_record *rec = &r->rec;
	struct perf_event_info *e = evidx >= 0 ? &r->events[evidx].info : NULL;
	const struct perf_evattr *a;
	int idx;

	switch (rec->type) {
	case PERF_RECORD_LOST:
		rec->lost.id = rd64(r, p + 8);
		rec->lost.lost = rd64(r, p + 16);
		r->stats.nr_lost += rec->lost.lost;
		if (e)
			e->nr_lost += rec->lost.lost;
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		rec->lost_samples.lost = rd64(r, p + 8);
		r->stats.nr_lost_samples += rec->lost_samples.lost;
		if (e)
			e->nr_lost_samples += rec->lost_samples.lost;
		return 0;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		rec->throttle.time = rd64(r, p + 8);
		rec->throttle.id = rd64(r, p + 16);
		rec->throttle.stream_id = rd64(r, p + 24);
		idx = perf_reader__event_of_id(r, rec->throttle.id);
		if (idx < 0 && r->nr_events == 1)
			idx = 0;
		if (rec->evidx < 0)	/* the event the record names */
			rec->evidx = idx;
		if (rec->type == PERF_RECORD_UNTHROTTLE) {
			r->stats.nr_unthrottle++;
			return 0;
		}
		r->stats.nr_throttle++;
		if (idx >= 0)
			r->events[idx].info.nr_throttle++;
		return 0;
	default:	/* READ */
		a = attr_of(r, evidx);
		rec->read.pid = rd32(r, p + 8);
		rec->read.tid = rd32(r, p + 12);
		if (a) {
			struct dcur c = { r, p, 16, end, 0 };

			if (decode_read(&c, a->read_format, &rec->read.nr, &rec->read.time_enabled,
					&rec->read.time_running, &rec->read.values))
				return perf_reader__fail(r, rec->file, rec->file_offset,
					"READ values do not fit in record of size %u", size);
		}
		if (e && rec->read.time_enabled) {
			e->time_enabled = rec->read.time_enabled;
			e->time_running = rec->read.time_running;
		}
		return 0;
	}
}

int perf_decode__record(struct perf_reader *r, const uint8_t *p, uint32_t size,
			uint64_t off, struct perf_input *in, int evidx)
{
	struct perf_record *rec = &r->rec;
	const char *file = in ? in->name : r->hdr.path;
	uint32_t type = rd32(r, p), end = size;
	int err = ensure_scratch(r);

	if (err)
		return err;
	memset(rec, 0, sizeof(*rec));
	rec->type = type;
	rec->misc = rd16(r, p + 4);
	rec->size = (uint16_t)size;
	rec->file_offset = off;
	rec->file = file;
	rec->evidx = evidx;
	if (type == PERF_RECORD_SAMPLE)
		return decode_sample(r, p, size, off, file, evidx);
	if (type < PERF_RECORD_USER_TYPE_START)
		end = decode_trailer(r, p, size, evidx);
	if (type < sizeof(record_min) && end < record_min[type])
		goto short_rec;
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		decode_mmap(r, p, end);
		break;
	case PERF_RECORD_COMM:
		rec->comm.pid = rd32(r, p + 8);
		rec->comm.tid = rd32(r, p + 12);
		rec->comm.comm = rec_str(r, p, 16, end);
		rec->comm.exec = rec->misc & PERF_RECORD_MISC_COMM_EXEC;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		rec->task.pid = rd32(r, p + 8);
		rec->task.ppid = rd32(r, p + 12);
		rec->task.tid = rd32(r, p + 16);
		rec->task.ptid = rd32(r, p + 20);
		rec->task.time = rd64(r, p + 24);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_READ:
		return decode_counts(r, p, size, end, evidx);
	case PERF_RECORD_KSYMBOL:
		rec->ksymbol.addr = rd64(r, p + 8);
		rec->ksymbol.len = rd32(r, p + 16);
		rec->ksymbol.ksym_type = rd16(r, p + 20);
		rec->ksymbol.flags = rd16(r, p + 22);
		rec->ksymbol.name = rec_str(r, p, 24, end);
		break;
	case PERF_RECORD_TEXT_POKE:	/* old and new bytes inside the record */
		if (20u + rd16(r, p + 16) + rd16(r, p + 18) > end)
			goto short_rec;
		break;
	case PERF_RECORD_CGROUP:
		rec->cgroup.id = rd64(r, p + 8);
		rec->cgroup.path = rec_str(r, p, 16, end);
		break;
	default:	/* the others' bodies are checked for size only: no consumer reads them */
		break;
	}
	return 0;
short_rec:
	return perf_reader__fail(r, file, off, "%s record size %u too small",
				 perf_record_type_name(type) ? perf_record_type_name(type) : "?",
				 size);
}

/* ---- user records describing the stream ---- */

static int header_attr(struct perf_reader *r, const struct perf_raw *raw)
{
	const char *f = raw->in->name;
	struct perf_evattr a;
	uint32_t asz;
	int err;

	if (raw->size < 8 + PERF_ATTR_SIZE_VER0)
		return perf_reader__fail(r, f, raw->offset, "HEADER_ATTR record size %u too small",
					 raw->size);
	err = perf_reader__parse_attr(r, raw->p + 8, raw->size - 8u, &a, f, raw->offset);
	if (err)
		return err;
	asz = a.size;
	if (asz > raw->size - 8u)
		return perf_reader__fail(r, f, raw->offset,
			"HEADER_ATTR attr size %u exceeds record size %u", asz, raw->size);
	err = perf_reader__add_event(r, &a, raw->p + 8 + asz, (raw->size - 8u - asz) / 8, f,
				     raw->offset);
	if (err)
		return err;
	if (r->pipe_header_done)
		perf_reader__finish_events(r);
	return 0;
}

static int event_update(struct perf_reader *r, const struct perf_raw *raw)
{
	uint64_t type, id;
	int idx;

	if (raw->size < 24)
		return 0;
	type = rd64(r, raw->p + 8);
	id = rd64(r, raw->p + 16);
	if (type != 2)		/* PERF_EVENT_UPDATE__NAME */
		return 0;
	idx = perf_reader__event_of_id(r, id);
	if (idx < 0 || raw->size <= 24)
		return 0;
	{
		struct perf_event_int *e = &r->events[idx];
		char *name = strndup((const char *)raw->p + 24, raw->size - 24u);

		if (!name)
			return -ENOMEM;
		if (!name[0] || (e->info.name && !strcmp(name, e->info.name))) {
			free(name);
			return 0;
		}
		/* a consumer may hold the previous name (copied when the events were set
		 * up, before this record): keep it until the reader is deleted */
		if (e->info.name) {
			int err = perf_reader__retire_name(r, (char *)e->info.name);

			if (err == -E2BIG) {	/* a file renaming events without end */
				pr_debug("%s: EVENT_UPDATE at %#llx: more than %d "
					 "renames, ignored", raw->in->name,
					 (unsigned long long)raw->offset, 4096);
				r->stats.nr_bad_features++;
				free(name);
				return 0;
			}
			if (err) {
				free(name);
				return err;
			}
		}
		e->info.name = name;
		e->info.name_stored = true;
	}
	return 0;
}

int perf_decode__user_record(struct perf_reader *r, const struct perf_raw *raw)
{
	const char *f = raw->in->name;

	switch (raw->type) {
	case PERF_RECORD_HEADER_ATTR:
		return header_attr(r, raw);
	case PERF_RECORD_HEADER_TRACING_DATA:
		return raw->extra ? perf_feature__process(r, HEADER_TRACING_DATA, raw->extra,
							  raw->extra_size, f,
							  raw->offset + raw->size) : 0;
	case PERF_RECORD_HEADER_BUILD_ID:
		return perf_reader__add_build_id(r, raw->p, raw->size, false, f, raw->offset);
	case PERF_RECORD_EVENT_UPDATE:
		return event_update(r, raw);
	case PERF_RECORD_HEADER_FEATURE: {
		uint64_t feat;

		if (raw->size < 16)
			return perf_reader__fail(r, f, raw->offset,
				"HEADER_FEATURE record size %u too small", raw->size);
		feat = rd64(r, raw->p + 8);
		if (raw->size == 16 || feat >= HEADER_FEAT_BITS)
			return 0;	/* end marker or unknown */
		return perf_feature__process(r, (unsigned)feat, raw->p + 16, raw->size - 16u, f,
					     raw->offset + 16);
	}
	default:
		return 0;
	}
}
