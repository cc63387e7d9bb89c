/* Event names: events without a stored name get the name perf would print (cycles,
 * instructions:u, cpu-clock, r1c0, L1-dcache-load-misses, sys:tracepoint, type8/cfg0x4000 ...);
 * the PMU name of an attr type. Also perf_record_type_name(). What an event is used for is
 * not the reader's business (hbbp/method/roles.c).
 * Knows nothing outside reader/.
 */
#include <event-parse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "reader/perf_reader_int.h"
#include "util/hbbp_err.h"

const char *perf_record_type_name(uint32_t type)
{
	static const char *const names[] = {
		[1] = "MMAP", [2] = "LOST", [3] = "COMM", [4] = "EXIT", [5] = "THROTTLE",
		[6] = "UNTHROTTLE", [7] = "FORK", [8] = "READ", [9] = "SAMPLE", [10] = "MMAP2",
		[11] = "AUX", [12] = "ITRACE_START", [13] = "LOST_SAMPLES", [14] = "SWITCH",
		[15] = "SWITCH_CPU_WIDE", [16] = "NAMESPACES", [17] = "KSYMBOL",
		[18] = "BPF_EVENT", [19] = "CGROUP", [20] = "TEXT_POKE",
		[21] = "AUX_OUTPUT_HW_ID", [22] = "CALLCHAIN_DEFERRED",
		[64] = "ATTR", [65] = "EVENT_TYPE", [66] = "TRACING_DATA", [67] = "BUILD_ID",
		[68] = "FINISHED_ROUND", [69] = "ID_INDEX", [70] = "AUXTRACE_INFO",
		[71] = "AUXTRACE", [72] = "AUXTRACE_ERROR", [73] = "THREAD_MAP",
		[74] = "CPU_MAP", [75] = "STAT_CONFIG", [76] = "STAT", [77] = "STAT_ROUND",
		[78] = "EVENT_UPDATE", [79] = "TIME_CONV", [80] = "FEATURE",
		[81] = "COMPRESSED", [82] = "FINISHED_INIT", [83] = "COMPRESSED2",
		[84] = "BPF_METADATA", [85] = "SCHEDSTAT_CPU", [86] = "SCHEDSTAT_DOMAIN",
	};

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : NULL;
}

static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};
static const char *const cache_names[] = {
	"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
};
static const char *const cache_op[][2] = {
	{ "load", "loads" }, { "store", "stores" }, { "prefetch", "prefetches" },
};

const char *perf_reader__pmu_name(const struct perf_reader *r, uint32_t type)
{
	size_t i;

	for (i = 0; i < r->nr_pmus; i++)
		if (r->pmu_types[i] == type)
			return r->pmu_names[i];
	return NULL;
}

/* perf's modifier suffix (evsel.c __evsel__add_modifiers) */
static void add_modifiers(const struct perf_evattr *a, char *buf, size_t size)
{
	size_t n = strlen(buf);
	bool guest_default = false;
	char mods[16];
	size_t m = 0;

#define MOD(flag, c) do { if (!(a->flags & (flag))) mods[m++] = (c); } while (0)
	if (a->flags & (PERF_ATTR_FLAG_EXCLUDE_KERNEL | PERF_ATTR_FLAG_EXCLUDE_USER |
			PERF_ATTR_FLAG_EXCLUDE_HV)) {
		MOD(PERF_ATTR_FLAG_EXCLUDE_KERNEL, 'k');
		MOD(PERF_ATTR_FLAG_EXCLUDE_USER, 'u');
		MOD(PERF_ATTR_FLAG_EXCLUDE_HV, 'h');
		guest_default = true;
	}
	if (perf_evattr__precise_ip(a)) {
		unsigned i;

		for (i = 0; i < perf_evattr__precise_ip(a); i++)
			mods[m++] = 'p';
		guest_default = true;
	}
	if ((a->flags & PERF_ATTR_FLAG_EXCLUDE_HOST) ||
	    !!(a->flags & PERF_ATTR_FLAG_EXCLUDE_GUEST) == guest_default) {
		MOD(PERF_ATTR_FLAG_EXCLUDE_HOST, 'H');
		MOD(PERF_ATTR_FLAG_EXCLUDE_GUEST, 'G');
	}
#undef MOD
	if (m && n + m + 2 < size) {
		buf[n++] = ':';
		memcpy(buf + n, mods, m);
		buf[n + m] = 0;
	}
}

void perf_event__default_name(struct perf_reader *r, struct perf_event_int *e)
{
	const struct perf_evattr *a = &e->info.attr;
	uint64_t cfg = a->config;
	char buf[256];
	bool mods = true;

	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		if ((cfg & 0xffffffff) < sizeof(hw_names) / sizeof(hw_names[0]))
			snprintf(buf, sizeof(buf), "%s", hw_names[cfg & 0xffffffff]);
		else
			snprintf(buf, sizeof(buf), "unknown-hardware");
		break;
	case PERF_TYPE_SOFTWARE:
		if (cfg < sizeof(sw_names) / sizeof(sw_names[0]))
			snprintf(buf, sizeof(buf), "%s", sw_names[cfg]);
		else
			snprintf(buf, sizeof(buf), "unknown-software");
		break;
	case PERF_TYPE_TRACEPOINT: {
		struct tep_event *ev = r->tep ? tep_find_event(r->tep, (int)cfg) : NULL;

		if (ev && ev->system && ev->name)
			snprintf(buf, sizeof(buf), "%s:%s", ev->system, ev->name);
		else
			snprintf(buf, sizeof(buf), "type2/cfg0x%llx", (unsigned long long)cfg);
		mods = false;
		break;
	}
	case PERF_TYPE_HW_CACHE: {
		unsigned c = cfg & 0xff, op = (cfg >> 8) & 0xff, res = (cfg >> 16) & 0xff;

		if (c < 7 && op < 3 && res < 2) {
			if (res)
				snprintf(buf, sizeof(buf), "%s-%s-misses", cache_names[c],
					 cache_op[op][0]);
			else
				snprintf(buf, sizeof(buf), "%s-%s", cache_names[c], cache_op[op][1]);
		} else {
			snprintf(buf, sizeof(buf), "unknown-ext-hardware-cache-type");
		}
		break;
	}
	case PERF_TYPE_RAW:
		snprintf(buf, sizeof(buf), "r%llx", (unsigned long long)cfg);
		break;
	case PERF_TYPE_BREAKPOINT:
		snprintf(buf, sizeof(buf), "mem:0x%llx", (unsigned long long)a->config1);
		break;
	default: {
		const char *pmu = perf_reader__pmu_name(r, a->type);

		if (pmu)
			snprintf(buf, sizeof(buf), "%s/config=0x%llx/", pmu,
				 (unsigned long long)cfg);
		else
			snprintf(buf, sizeof(buf), "type%u/cfg0x%llx", a->type,
				 (unsigned long long)cfg);
		mods = false;
		break;
	}
	}
	if (mods)
		add_modifiers(a, buf, sizeof(buf));
	free((char *)e->info.name);
	e->info.name = strdup(buf);
}
