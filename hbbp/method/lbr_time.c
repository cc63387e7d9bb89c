/* The statistics behind the time-weighted LBR estimate (method.md §5b, hbbp/method/lbr_time.h):
 * per (process, stream start, stream end) the summed recorded durations of complete streams
 * and of their reciprocals, then, per (process, start), the ends in ascending order with
 * suffix sums, so that the mean over the streams starting at s that contain an IP (end >= ip)
 * is one binary search.
 * Depends on reader/perf_reader.h, reader/perf_format.h, util/hmap.h and hbbp/method/method.h
 * only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/method/lbr_time.h"
#include "hbbp/method/method.h"
#include "reader/perf_format.h"

struct hbbp_lbr_time_sum { double sum; uint64_t n; double inv; };

/* One (pid, start, end) after finish; suf_*: sums over this end and every later end of the
 * same (pid, start). */
struct hbbp_lbr_time_end {
	uint64_t pid, start, end;
	double suf_sum;
	uint64_t suf_n;
	double suf_inv;
};

struct hbbp_lbr_time_group { uint64_t first, count; double sum; uint64_t n; };

void hbbp_lbr_time__init(struct hbbp_lbr_time *t)
{
	memset(t, 0, sizeof(*t));
	hmap__init(&t->ends, 3, sizeof(struct hbbp_lbr_time_sum));
	hmap__init(&t->starts, 2, sizeof(struct hbbp_lbr_time_group));
	t->status = HBBP_LBR_TIME_NO_CYCLES;
}

void hbbp_lbr_time__exit(struct hbbp_lbr_time *t)
{
	if (!t)
		return;
	hmap__exit(&t->ends);
	hmap__exit(&t->starts);
	free(t->sorted);
	memset(t, 0, sizeof(*t));
}

int hbbp_lbr_time__ends(struct hbbp_lbr_time *t, uint32_t pid, const struct perf_branch_entry *e,
			uint64_t n, uint32_t *ids)
{
	uint64_t k;

	/* e[k-1].cycles: the duration of the stream e[k].to .. e[k-1].from */
	for (k = 1; k < n; k++) {
		uint64_t key[3] = { pid, e[k].to, e[k - 1].from };
		unsigned char *v;

		ids[k - 1] = HBBP_LBR_TIME_NO_END;
		if (key[1] > key[2] || PERF_BR_SPEC(e[k].flags) == PERF_BR_SPEC_WRONG_PATH ||
		    PERF_BR_SPEC(e[k - 1].flags) == PERF_BR_SPEC_WRONG_PATH)
			continue;
		v = hmap__get(&t->ends, key, NULL);
		if (!v)
			return -ENOMEM;
		ids[k - 1] = (uint32_t)((size_t)(v - t->ends.slots) / t->ends.slot_size);
	}
	return 0;
}

void hbbp_lbr_time__add(struct hbbp_lbr_time *t, const struct perf_branch_entry *e, uint64_t n,
			const uint32_t *ids)
{
	uint64_t k;

	t->st.streams += n - 1;
	for (k = 1; k < n; k++) {
		unsigned c = PERF_BR_CYCLES(e[k - 1].flags);
		struct hbbp_lbr_time_sum *v;

		if (!c)	/* not reported */
			continue;
		if (c >= HBBP_LBR_CYCLES_MAX)
			t->st.saturated++;
		if (ids[k - 1] == HBBP_LBR_TIME_NO_END)
			continue;
		v = hmap__val_at(&t->ends, ids[k - 1]);
		v->sum += c;
		v->n++;
		v->inv += 1.0 / c;
		t->st.timed++;
		t->sum += c;
	}
}

static int end_cmp(const void *a, const void *b)
{
	const struct hbbp_lbr_time_end *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

int hbbp_lbr_time__finish(struct hbbp_lbr_time *t)
{
	size_t i, j, n = 0;

	t->sorted = t->ends.nr ? calloc(t->ends.nr, sizeof(*t->sorted)) : NULL;
	if (t->ends.nr && !t->sorted)
		return -ENOMEM;
	for (i = 0; i < t->ends.nr; i++) {
		const uint64_t *key = hmap__key_at(&t->ends, i);
		const struct hbbp_lbr_time_sum *v = hmap__val_at(&t->ends, i);

		if (!v->n)	/* named by a stack, no duration recorded */
			continue;
		t->sorted[n].pid = key[0];
		t->sorted[n].start = key[1];
		t->sorted[n].end = key[2];
		t->sorted[n].suf_sum = v->sum;
		t->sorted[n].suf_n = v->n;
		t->sorted[n].suf_inv = v->inv;
		n++;
	}
	if (n)
		qsort(t->sorted, n, sizeof(*t->sorted), end_cmp);
	for (i = 0; i < n; i = j) {
		uint64_t key[2] = { t->sorted[i].pid, t->sorted[i].start };
		struct hbbp_lbr_time_group *g;

		for (j = i + 1; j < n && t->sorted[j].pid == key[0] && t->sorted[j].start == key[1];)
			j++;
		for (size_t k = j - 1; k > i; k--) {
			t->sorted[k - 1].suf_sum += t->sorted[k].suf_sum;
			t->sorted[k - 1].suf_n += t->sorted[k].suf_n;
			t->sorted[k - 1].suf_inv += t->sorted[k].suf_inv;
		}
		g = hmap__get(&t->starts, key, NULL);
		if (!g)
			return -ENOMEM;
		g->first = i;
		g->count = j - i;
		g->sum = t->sorted[i].suf_sum;
		g->n = t->sorted[i].suf_n;
	}
	t->st.mean = t->st.timed ? t->sum / (double)t->st.timed : 0;
	if (!t->st.timed)
		t->status = HBBP_LBR_TIME_NO_CYCLES;
	else if ((double)t->st.saturated > HBBP_LBR_TIME_MAX_SATURATED * (double)t->st.timed)
		t->status = HBBP_LBR_TIME_SATURATED;
	else
		t->status = HBBP_LBR_TIME_OK;
	return 0;
}

const struct hbbp_lbr_time_group *hbbp_lbr_time__starts(const struct hbbp_lbr_time *t,
							 uint32_t pid, uint64_t start)
{
	uint64_t key[2] = { pid, start };

	return hmap__find(&t->starts, key);
}

double hbbp_lbr_time__duration(const struct hbbp_lbr_time *t, const struct hbbp_lbr_time_group *g,
			       uint64_t start, uint64_t ip, bool *fallback, bool *by_ip)
{
	size_t lo, hi;

	*fallback = false;
	*by_ip = false;
	if (!g || !g->n) {
		*fallback = true;
		return t->st.mean >= 1 ? t->st.mean : 1;
	}
	/* the streams from start that contain ip: the first end >= ip and all after it */
	lo = g->first;
	hi = g->first + g->count;
	if (ip >= start && ip <= t->sorted[hi - 1].end) {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (t->sorted[mid].end < ip)
				lo = mid + 1;
			else
				hi = mid;
		}
		*by_ip = true;
		/* the harmonic mean: 1/D is the mean of 1/dur over the streams holding ip */
		return (double)t->sorted[lo].suf_n / t->sorted[lo].suf_inv;
	}
	return g->sum / (double)g->n;
}

static bool name_starts(const char *s, const char *p)
{
	return s && !strncmp(s, p, strlen(p));
}

bool hbbp_lbr_time__event_is_time(const struct perf_event_info *e)
{
	const struct perf_evattr *a = &e->attr;
	uint64_t c = a->config & 0xffffffffULL;	/* hybrid PMUs put the PMU type above */
	const char *n = e->name;

	if (a->type == PERF_TYPE_HARDWARE)
		return c == PERF_COUNT_HW_CPU_CYCLES || c == PERF_COUNT_HW_BUS_CYCLES ||
		       c == PERF_COUNT_HW_REF_CPU_CYCLES;
	if (a->type == PERF_TYPE_SOFTWARE)
		return c == 0 || c == 1;	/* cpu-clock, task-clock */
	if (a->type == PERF_TYPE_RAW) {
		/* CPU_CLK_UNHALTED.THREAD_P (0x3c), .REF_XCLK (0x13c), fixed ref-tsc (0x300) */
		uint64_t ev = a->config & 0xffff;
		return ev == 0x3c || ev == 0x13c || ev == 0x300 || ev == 0x76;	/* AMD cycles */
	}
	/* named PMU events: cpu_core/cycles/, cpu_clk_unhalted.*, ... */
	return name_starts(n, "cycles") || name_starts(n, "cpu-cycles") ||
	       name_starts(n, "ref-cycles") || name_starts(n, "cpu-clock") ||
	       name_starts(n, "task-clock") || name_starts(n, "cpu_clk_unhalted") ||
	       (n && (strstr(n, "/cycles/") || strstr(n, "/cpu-cycles/") ||
		      strstr(n, "/ref-cycles/")));
}

const char *hbbp_lbr_time__status_name(enum hbbp_lbr_time_status s)
{
	switch (s) {
	case HBBP_LBR_TIME_OK:
		return "cycle counts present";
	case HBBP_LBR_TIME_NO_CYCLES:
		return "no cycle counts in the branch entries";
	case HBBP_LBR_TIME_SATURATED:
		return "most cycle counts in the branch entries are saturated (0xffff)";
	}
	return "?";
}
