/* Event names and HBBP roles. Events without a stored name get the name perf would print
 * (cycles, instructions:u, cpu-clock, r1c0, L1-dcache-load-misses, sys:tracepoint,
 * type8/cfg0x4000 ...). Roles (method.md §2): EBS = instructions retired, LBR = a taken-branch
 * event with an all-branches stack (else any single event with one, reported as LBR-only),
 * everything else unused, each with a reason. Also perf_record_type_name().
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

static const char *pmu_name(const struct perf_reader *r, uint32_t type)
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
	bool colon = false, guest_default = false;
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
	(void)colon;
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
		const char *pmu = pmu_name(r, a->type);

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
	free(e->name);
	e->name = strdup(buf);
}

/* ---- roles ---- */

static bool is_cpu_pmu(const struct perf_reader *r, uint32_t type)
{
	const char *pmu;

	if (type == PERF_TYPE_RAW)
		return true;
	pmu = pmu_name(r, type);
	return pmu && (!strcmp(pmu, "cpu") || !strncmp(pmu, "cpu_", 4));
}

static bool is_amd(const struct perf_reader *r)
{
	return r->hdr.cpuid && !strncmp(r->hdr.cpuid, "AuthenticAMD", 12);
}

static bool is_intel(const struct perf_reader *r)
{
	return r->hdr.cpuid && !strncmp(r->hdr.cpuid, "GenuineIntel", 12);
}

/* event select and umask of an x86 raw config, rejecting counter-mask/invert/edge forms */
static bool raw_event(uint64_t cfg, unsigned *ev, unsigned *umask)
{
	if ((cfg >> 24) & 0xff)		/* cmask */
		return false;
	if (cfg & ((1ULL << 23) | (1ULL << 18)))	/* inv, edge */
		return false;
	if ((cfg >> 32) & 0xf)		/* AMD extended event select */
		return false;
	*ev = cfg & 0xff;
	*umask = (cfg >> 8) & 0xff;
	return true;
}

static bool name_has(const char *name, const char *what)
{
	return name && strcasestr(name, what);
}

static bool name_starts(const char *name, const char *what)
{
	return name && !strncasecmp(name, what, strlen(what));
}

static bool is_inst_retired(const struct perf_reader *r, const struct perf_event_int *e)
{
	const struct perf_evattr *a = &e->info.attr;
	unsigned ev, um;

	if (a->type == PERF_TYPE_HARDWARE &&
	    (a->config & 0xffffffff) == PERF_COUNT_HW_INSTRUCTIONS)
		return true;
	if (is_cpu_pmu(r, a->type) && raw_event(a->config, &ev, &um) && ev == 0xc0 &&
	    (um == 0 || um == 1))
		return true;
	if (e->name_stored)
		return name_starts(e->name, "inst_retired") || name_starts(e->name, "instructions") ||
		       name_starts(e->name, "ex_ret_instr") ||
		       (name_has(e->name, "event=0xc0") && !name_has(e->name, "cmask") &&
			!name_has(e->name, "umask=0x2"));
	return false;
}

static bool is_taken_branches(const struct perf_reader *r, const struct perf_event_int *e)
{
	const struct perf_evattr *a = &e->info.attr;
	unsigned ev, um;

	if (is_cpu_pmu(r, a->type) && raw_event(a->config, &ev, &um) && ev == 0xc4) {
		if (um == 0x20)
			return !is_amd(r);
		if (um == 0)
			return !is_intel(r);	/* AMD ex_ret_brn_tkn */
	}
	if (e->name_stored)
		return name_starts(e->name, "br_inst_retired.near_taken") ||
		       name_starts(e->name, "br_inst_exec:taken") ||
		       name_starts(e->name, "br_inst_exec.taken") ||
		       name_starts(e->name, "ex_ret_brn_tkn") ||
		       (name_has(e->name, "event=0xc4") && name_has(e->name, "umask=0x20"));
	return false;
}

static const char *branch_filter_reason(uint64_t bst)
{
	if (bst & PERF_SAMPLE_BRANCH_CALL_STACK)
		return "branch stack is a call stack (--call-graph lbr), not all taken branches";
	if (bst & (PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_CALL |
		   PERF_SAMPLE_BRANCH_IND_CALL))
		return "branch stack filters calls only, not all taken branches";
	if (bst & PERF_SAMPLE_BRANCH_ANY_RETURN)
		return "branch stack filters returns only, not all taken branches";
	if (bst & PERF_SAMPLE_BRANCH_COND)
		return "branch stack filters conditional branches only, not all taken branches";
	if (bst & PERF_SAMPLE_BRANCH_IND_JUMP)
		return "branch stack filters indirect jumps only, not all taken branches";
	return "branch stack without PERF_SAMPLE_BRANCH_ANY: streams not contiguous";
}

static int find_by_name(const struct perf_reader *r, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < r->nr_events; i++)
		if (r->events[i].name && !strcmp(r->events[i].name, name))
			return (int)i;
	/* "cycles" also matches "cycles:u" */
	for (i = 0; i < r->nr_events; i++)
		if (r->events[i].name && !strncmp(r->events[i].name, name, n) &&
		    r->events[i].name[n] == ':')
			return (int)i;
	return -1;
}

void perf_event__assign_roles(struct perf_reader *r)
{
	int ebs = -1, lbr = -1, any_stack = -1, nr_stack = 0;
	bool lbr_only = false;
	size_t i;

	for (i = 0; i < r->nr_events; i++) {
		struct perf_event_int *e = &r->events[i];
		const struct perf_evattr *a = &e->info.attr;

		e->info.role = PERF_ROLE_UNUSED;
		e->info.branch_any = (a->sample_type & PERF_SAMPLE_BRANCH_STACK) &&
				     (a->branch_sample_type & PERF_SAMPLE_BRANCH_ANY);
		if (a->sample_type & PERF_SAMPLE_BRANCH_STACK)
			e->info.role_reason = e->info.branch_any ? "branch stack not needed" :
				branch_filter_reason(a->branch_sample_type);
		else if (a->type == PERF_TYPE_SOFTWARE && a->config == 9)
			e->info.role_reason = "dummy tracking event";
		else
			e->info.role_reason = "neither instructions retired nor an all-branches stack";
	}
	if (r->opts.ebs_event)
		ebs = find_by_name(r, r->opts.ebs_event);
	if (r->opts.lbr_event)
		lbr = find_by_name(r, r->opts.lbr_event);
	if (!r->opts.ebs_event)
		for (i = 0; i < r->nr_events && ebs < 0; i++)
			if (is_inst_retired(r, &r->events[i]) &&
			    (r->events[i].info.attr.sample_type & PERF_SAMPLE_IP))
				ebs = (int)i;
	if (!r->opts.lbr_event) {
		for (i = 0; i < r->nr_events && lbr < 0; i++)
			if ((int)i != ebs && r->events[i].info.branch_any &&
			    is_taken_branches(r, &r->events[i]))
				lbr = (int)i;
		for (i = 0; i < r->nr_events; i++)
			if ((int)i != ebs && r->events[i].info.branch_any) {
				if (any_stack < 0)
					any_stack = (int)i;
				nr_stack++;
			}
		if (lbr < 0 && any_stack >= 0) {
			lbr = any_stack;
			lbr_only = true;
		}
	}
	if (ebs >= 0) {
		r->events[ebs].info.role = PERF_ROLE_EBS;
		r->events[ebs].info.role_reason = r->opts.ebs_event ?
			"selected with --ebs-event" : "instructions retired";
	}
	if (lbr >= 0 && lbr != ebs) {
		struct perf_event_info *li = &r->events[lbr].info;

		if (!li->branch_any) {
			li->role_reason = branch_filter_reason(li->attr.branch_sample_type);
			if (!(li->attr.sample_type & PERF_SAMPLE_BRANCH_STACK))
				li->role_reason = "selected with --lbr-event but has no branch stack";
		} else {
			li->role = PERF_ROLE_LBR;
			li->role_reason = r->opts.lbr_event ? "selected with --lbr-event" :
				lbr_only ? "not a taken-branches event: its all-branches stack is used"
					   " (LBR-only recording)" :
				"taken branches with an all-branches stack";
			if (lbr_only)
				pr_warn("%s: no taken-branches event; using the branch stacks of '%s'",
					r->hdr.path, li->name ? li->name : "?");
		}
	}
	(void)nr_stack;
}
