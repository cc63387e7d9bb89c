/* Encoders of the perf.data writer: attrs, SAMPLE bodies and sample_id trailers laid out
 * exactly as the kernel writes them (include/uapi/linux/perf_event.h, perf_output_sample),
 * in either byte order. Pure byte layout: no I/O, no compression, no file structure.
 * Depends only on reader/perf_format.h and the reader's structs.
 */
#include <errno.h>
#include <stdlib.h>

#include "reader/perf_format.h"
#include "samples/perfwrite/perf_writer_enc.h"
#include "util/grow.h"

#define PW_BUF_START	256	/* bytes: a record buffer's first size */

int pw_buf__reserve(struct pw_buf *b, size_t n)
{
	size_t need, want;

	if (b->overflow)
		return -E2BIG;
	if (n <= b->cap - b->len)
		return 0;
	need = b->len + n;
	if (need < b->len || !b->max || need > b->max) {
		b->overflow = true;
		return -E2BIG;
	}
	want = need;
	if (want < PW_BUF_START)	/* need <= max: so is want */
		want = PW_BUF_START < b->max ? PW_BUF_START : b->max;
	if (grow_array((void **)&b->p, &b->cap, 1, want, b->max)) {
		b->overflow = true;
		return -ENOMEM;
	}
	return 0;
}

void pw_put_str64(struct pw_buf *b, const char *s)
{
	size_t n = strlen(s) + 1, len = (n + 63) & ~(size_t)63;

	pw_put_u32(b, (uint32_t)len);
	pw_put_bytes(b, s, n);
	pw_put_zeros(b, len - n);
}

void pw_put_padded_str(struct pw_buf *b, const char *s, size_t align)
{
	size_t n = strlen(s) + 1, len = (n + align - 1) / align * align;

	pw_put_bytes(b, s, n);
	pw_put_zeros(b, len - n);
}

/* widths of consecutive bit-fields starting at bit 0; they must add up to 64 */
static uint64_t bitfields_to_be(uint64_t v, const uint8_t *widths, size_t n)
{
	uint64_t out = 0;
	unsigned k = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned w = widths[i];
		uint64_t mask = w == 64 ? ~0ULL : (1ULL << w) - 1;
		uint64_t field = (v >> k) & mask;

		out |= field << (64 - k - w);
		k += w;
	}
	return out;
}

uint64_t pw_attr_flags_to_be(uint64_t flags)
{
	/* single bits, except precise_ip:2 at bit 15 */
	uint64_t out = ((flags & PERF_ATTR_FLAG_PRECISE_MASK) >> 15) << 47;

	for (unsigned k = 0; k < 64; k++)
		if (k != 15 && k != 16 && (flags >> k) & 1)
			out |= 1ULL << (63 - k);
	return out;
}

uint64_t pw_branch_flags_to_be(uint64_t flags)
{
	/* mispred, predicted, in_tx, abort, cycles:16, type:4, spec:2, new_type:4, priv:3,
	 * reserved:31 */
	static const uint8_t widths[] = { 1, 1, 1, 1, 16, 4, 2, 4, 3, 31 };

	return bitfields_to_be(flags, widths, sizeof(widths));
}

void pw_put_attr(struct pw_buf *b, const struct perf_evattr *a, uint32_t attr_size)
{
	struct pw_buf t = { .swap = b->swap };
	uint8_t img[PERF_ATTR_SIZE_VER8];
	uint64_t flags = b->swap ? pw_attr_flags_to_be(a->flags) : a->flags;

	t.p = img;
	t.cap = sizeof(img);
	pw_put_u32(&t, a->type);
	pw_put_u32(&t, attr_size);
	pw_put_u64(&t, a->config);
	pw_put_u64(&t, a->sample_period);
	pw_put_u64(&t, a->sample_type);
	pw_put_u64(&t, a->read_format);
	pw_put_u64(&t, flags);
	pw_put_u32(&t, a->wakeup_events);
	pw_put_u32(&t, a->bp_type);
	pw_put_u64(&t, a->config1);
	pw_put_u64(&t, a->config2);			/* 64 */
	pw_put_u64(&t, a->branch_sample_type);		/* 72 */
	pw_put_u64(&t, a->sample_regs_user);		/* 80 */
	pw_put_u32(&t, a->sample_stack_user);
	pw_put_u32(&t, (uint32_t)a->clockid);
	pw_put_u64(&t, a->sample_regs_intr);		/* 96 */
	pw_put_u32(&t, a->aux_watermark);		/* 104 */
	pw_put_u16(&t, a->sample_max_stack);
	pw_put_u16(&t, 0);
	pw_put_u32(&t, a->aux_sample_size);		/* 112 */
	pw_put_u32(&t, a->aux_action);
	pw_put_u64(&t, a->sig_data);			/* 120 */
	pw_put_u64(&t, a->config3);			/* 128 */
	if (attr_size <= sizeof(img)) {
		pw_put_bytes(b, img, attr_size);
	} else {
		pw_put_bytes(b, img, sizeof(img));
		pw_put_zeros(b, attr_size - sizeof(img));
	}
}

static void put_pid_tid(struct pw_buf *b, uint32_t pid, uint32_t tid)
{
	pw_put_u32(b, pid);
	pw_put_u32(b, tid);
}

static int put_read(struct pw_buf *b, uint64_t rf, const struct perf_sample *s)
{
	const struct perf_read_value *v = s->read_values;

	if (rf & PERF_FORMAT_GROUP) {
		if (s->read_nr && !v)
			return -EINVAL;
		pw_put_u64(b, s->read_nr);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			pw_put_u64(b, s->time_enabled);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			pw_put_u64(b, s->time_running);
		for (uint64_t i = 0; i < s->read_nr && !b->overflow; i++) {
			pw_put_u64(b, v[i].value);
			if (rf & PERF_FORMAT_ID)
				pw_put_u64(b, v[i].id);
			if (rf & PERF_FORMAT_LOST)
				pw_put_u64(b, v[i].lost);
		}
		return 0;
	}
	if (!v)
		return -EINVAL;
	pw_put_u64(b, v[0].value);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		pw_put_u64(b, s->time_enabled);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		pw_put_u64(b, s->time_running);
	if (rf & PERF_FORMAT_ID)
		pw_put_u64(b, v[0].id);
	if (rf & PERF_FORMAT_LOST)
		pw_put_u64(b, v[0].lost);
	return 0;
}

static int put_regs(struct pw_buf *b, uint64_t mask, const struct perf_regs *r)
{
	pw_put_u64(b, r->abi);
	if (!r->abi)
		return 0;
	if (r->nr != (uint32_t)__builtin_popcountll(mask) || (r->nr && !r->regs))
		return -EINVAL;
	for (uint32_t i = 0; i < r->nr; i++)
		pw_put_u64(b, r->regs[i]);
	return 0;
}

static void put_u64_array(struct pw_buf *b, const uint64_t *v, uint64_t n)
{
	if (!b->swap) {
		if (n > SIZE_MAX / 8) {
			b->overflow = true;
			return;
		}
		pw_put_bytes(b, v, n * 8);
		return;
	}
	for (uint64_t i = 0; i < n && !b->overflow; i++)
		pw_put_u64(b, v[i]);
}

static int put_branches(struct pw_buf *b, uint64_t bst, const struct perf_sample *s)
{
	uint64_t n = s->nr_branches;

	if (n && !s->branches)
		return -EINVAL;
	pw_put_u64(b, n);
	if (bst & PERF_SAMPLE_BRANCH_HW_INDEX)
		pw_put_u64(b, s->hw_idx);
	for (uint64_t i = 0; i < n && !b->overflow; i++) {
		const struct perf_branch_entry *e = &s->branches[i];

		pw_put_u64(b, e->from);
		pw_put_u64(b, e->to);
		pw_put_u64(b, b->swap ? pw_branch_flags_to_be(e->flags) : e->flags);
	}
	if (bst & PERF_SAMPLE_BRANCH_COUNTERS) {
		if (s->branch_counters)
			put_u64_array(b, s->branch_counters, n);
		else if (n <= SIZE_MAX / 8)
			pw_put_zeros(b, n * 8);
		else
			b->overflow = true;
	}
	return 0;
}

/* u64 size, the bytes, zero padding to 8 (size counts the padding, as the kernel's AUX) */
static void put_sized_blob(struct pw_buf *b, const uint8_t *p, uint64_t size)
{
	uint64_t padded = (size + 7) & ~7ULL;

	if (size > SIZE_MAX - 8 || padded < size) {
		b->overflow = true;
		return;
	}
	pw_put_u64(b, padded);
	if (size && p)
		pw_put_bytes(b, p, size);
	else
		pw_put_zeros(b, size);
	pw_put_zeros(b, padded - size);
}

int pw_put_sample(struct pw_buf *b, const struct perf_evattr *a, const struct perf_sample *s)
{
	uint64_t st = a->sample_type;
	int err;

	if (st & PERF_SAMPLE_IDENTIFIER)
		pw_put_u64(b, s->id);
	if (st & PERF_SAMPLE_IP)
		pw_put_u64(b, s->ip);
	if (st & PERF_SAMPLE_TID)
		put_pid_tid(b, s->pid, s->tid);
	if (st & PERF_SAMPLE_TIME)
		pw_put_u64(b, s->time);
	if (st & PERF_SAMPLE_ADDR)
		pw_put_u64(b, s->addr);
	if (st & PERF_SAMPLE_ID)
		pw_put_u64(b, s->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		pw_put_u64(b, s->stream_id);
	if (st & PERF_SAMPLE_CPU)
		put_pid_tid(b, s->cpu, 0);
	if (st & PERF_SAMPLE_PERIOD)
		pw_put_u64(b, s->period);
	if (st & PERF_SAMPLE_READ) {
		err = put_read(b, a->read_format, s);
		if (err)
			return err;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (s->nr_callchain && !s->callchain)
			return -EINVAL;
		pw_put_u64(b, s->nr_callchain);
		put_u64_array(b, s->callchain, s->nr_callchain);
	}
	if (st & PERF_SAMPLE_RAW) {
		/* the kernel pads so that the u32 size plus the data is a multiple of 8 */
		uint32_t size = ((s->raw_size + 4 + 7) & ~7U) - 4;

		if (s->raw_size > 0xffff)
			return -E2BIG;
		pw_put_u32(b, size);
		if (s->raw_size && s->raw)
			pw_put_bytes(b, s->raw, s->raw_size);
		else
			pw_put_zeros(b, s->raw_size);
		pw_put_zeros(b, size - s->raw_size);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		err = put_branches(b, a->branch_sample_type, s);
		if (err)
			return err;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		err = put_regs(b, a->sample_regs_user, &s->regs_user);
		if (err)
			return err;
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		pw_put_u64(b, s->stack_size);
		if (s->stack_size) {
			if (s->stack_size > 0xffff || !s->stack)
				return -EINVAL;
			pw_put_bytes(b, s->stack, s->stack_size);
			pw_put_u64(b, s->stack_dyn_size);
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		pw_put_u64(b, s->weight);
	if (st & PERF_SAMPLE_DATA_SRC)
		pw_put_u64(b, s->data_src);
	if (st & PERF_SAMPLE_TRANSACTION)
		pw_put_u64(b, s->transaction);
	if (st & PERF_SAMPLE_REGS_INTR) {
		err = put_regs(b, a->sample_regs_intr, &s->regs_intr);
		if (err)
			return err;
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		pw_put_u64(b, s->phys_addr);
	if (st & PERF_SAMPLE_CGROUP)
		pw_put_u64(b, s->cgroup);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		pw_put_u64(b, s->data_page_size);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		pw_put_u64(b, s->code_page_size);
	if (st & PERF_SAMPLE_AUX) {
		if (s->aux_size && !s->aux)
			return -EINVAL;
		put_sized_blob(b, s->aux, s->aux_size);
	}
	return 0;
}

size_t pw_sample_id_size(uint64_t st)
{
	return 8 * (size_t)__builtin_popcountll(st & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER));
}

void pw_put_sample_id(struct pw_buf *b, uint64_t st, const struct perf_sample_id *sid)
{
	static const struct perf_sample_id zero;

	if (!sid)
		sid = &zero;
	if (st & PERF_SAMPLE_TID)
		put_pid_tid(b, sid->pid, sid->tid);
	if (st & PERF_SAMPLE_TIME)
		pw_put_u64(b, sid->time);
	if (st & PERF_SAMPLE_ID)
		pw_put_u64(b, sid->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		pw_put_u64(b, sid->stream_id);
	if (st & PERF_SAMPLE_CPU)
		put_pid_tid(b, sid->cpu, 0);
	if (st & PERF_SAMPLE_IDENTIFIER)
		pw_put_u64(b, sid->id);
}
