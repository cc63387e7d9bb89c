/* Event roles (method.md §2; see hbbp/method/roles.h): one table of the encodings that mean
 * "instructions retired" (EBS) and "taken branches retired" (LBR) per CPU vendor, raw PMU
 * codes first, then the names perf stores.
 * Depends on reader/perf_reader.h and util/hbbp_err.h only.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "hbbp/method/roles.h"
#include "util/hbbp_err.h"

enum vendor { V_UNKNOWN = 1, V_INTEL = 2, V_AMD = 4, V_ARM = 8 };
#define V_X86	(V_UNKNOWN | V_INTEL | V_AMD)

/* A raw code on the CPU's PMU: x86 event select and unit mask (no counter mask, invert or edge
 * bits), or an Arm PMUv3 event number. */
struct role_code {
	enum hbbp_role role;
	unsigned vendors;	/* enum vendor bits it holds for */
	unsigned event, umask;
	const char *what;	/* the event's name, for the reader of this table */
};

static const struct role_code role_codes[] = {
	{ HBBP_ROLE_EBS, V_X86, 0xc0, 0x00, "INST_RETIRED.ANY_P / AMD ex_ret_instr" },
	{ HBBP_ROLE_EBS, V_X86, 0xc0, 0x01, "INST_RETIRED.PREC_DIST" },
	/* on AMD 0x20c4 is another event; on Intel 0xc4/0x00 counts all branches */
	{ HBBP_ROLE_LBR, V_UNKNOWN | V_INTEL, 0xc4, 0x20, "BR_INST_RETIRED.NEAR_TAKEN" },
	{ HBBP_ROLE_LBR, V_UNKNOWN | V_AMD, 0xc4, 0x00, "AMD ex_ret_brn_tkn" },
	/* Arm PMUv3 architected INST_RETIRED; Arm has no architected taken-branch event
	 * (BR_RETIRED counts every branch): a BRBE recording's LBR role comes from its
	 * all-branches stack (LBR-only) or --lbr-event */
	{ HBBP_ROLE_EBS, V_ARM, 0x08, 0x00, "INST_RETIRED" },
};

/* Names perf stores (EVENT_DESC / EVENT_UPDATE), case-insensitive prefixes, any vendor. */
struct role_name {
	enum hbbp_role role;
	const char *prefix;
};

static const struct role_name role_names[] = {
	{ HBBP_ROLE_EBS, "inst_retired" },
	{ HBBP_ROLE_EBS, "instructions" },
	{ HBBP_ROLE_EBS, "ex_ret_instr" },
	{ HBBP_ROLE_LBR, "br_inst_retired.near_taken" },
	{ HBBP_ROLE_LBR, "br_inst_exec:taken" },
	{ HBBP_ROLE_LBR, "br_inst_exec.taken" },
	{ HBBP_ROLE_LBR, "ex_ret_brn_tkn" },
};

const char *hbbp_role_name(enum hbbp_role role)
{
	switch (role) {
	case HBBP_ROLE_EBS: return "ebs";
	case HBBP_ROLE_LBR: return "lbr";
	case HBBP_ROLE_UNUSED: break;
	}
	return "unused";
}

static enum vendor recording_vendor(const struct perf_header_info *h)
{
	if (h->cpuid && !strncmp(h->cpuid, "GenuineIntel", 12))
		return V_INTEL;
	if (h->cpuid && !strncmp(h->cpuid, "AuthenticAMD", 12))
		return V_AMD;
	if (h->arch && (!strcmp(h->arch, "aarch64") || !strcmp(h->arch, "arm64")))
		return V_ARM;
	return V_UNKNOWN;
}

static bool is_cpu_pmu(const struct perf_reader *r, uint32_t type)
{
	const char *pmu;

	if (type == PERF_TYPE_RAW)
		return true;
	pmu = perf_reader__pmu_name(r, type);
	return pmu && (!strcmp(pmu, "cpu") || !strncmp(pmu, "cpu_", 4) ||
		       !strncmp(pmu, "armv8_", 6) || !strncmp(pmu, "armv9_", 6));
}

/* The event and unit mask of a raw config, or false for a form the table does not hold
 * (x86: counter mask, invert, edge, extended event select; Arm: any bit past the number). */
static bool raw_code(uint64_t cfg, enum vendor v, unsigned *ev, unsigned *umask)
{
	if (v == V_ARM) {
		if (cfg >> 16)
			return false;
		*ev = cfg & 0xffff;
		*umask = 0;
		return true;
	}
	if ((cfg >> 24) & 0xff)				/* cmask */
		return false;
	if (cfg & ((1ULL << 23) | (1ULL << 18)))	/* inv, edge */
		return false;
	if ((cfg >> 32) & 0xf)				/* AMD extended event select */
		return false;
	*ev = cfg & 0xff;
	*umask = (cfg >> 8) & 0xff;
	return true;
}

static bool name_has(const char *name, const char *what)
{
	return name && strcasestr(name, what);
}

/* The role the table gives event e (HBBP_ROLE_UNUSED when none). */
static enum hbbp_role table_role(const struct perf_reader *r, const struct perf_event_info *e,
				 enum vendor v)
{
	const struct perf_evattr *a = &e->attr;
	unsigned ev, um;
	size_t i;

	if (a->type == PERF_TYPE_HARDWARE && (a->config & 0xffffffff) == PERF_COUNT_HW_INSTRUCTIONS)
		return HBBP_ROLE_EBS;
	if (is_cpu_pmu(r, a->type) && raw_code(a->config, v, &ev, &um))
		for (i = 0; i < sizeof(role_codes) / sizeof(role_codes[0]); i++)
			if ((role_codes[i].vendors & v) && role_codes[i].event == ev &&
			    role_codes[i].umask == um)
				return role_codes[i].role;
	if (!e->name_stored || !e->name)
		return HBBP_ROLE_UNUSED;
	for (i = 0; i < sizeof(role_names) / sizeof(role_names[0]); i++)
		if (!strncasecmp(e->name, role_names[i].prefix, strlen(role_names[i].prefix)))
			return role_names[i].role;
	/* a perf-style spec: cpu/event=0xc0,.../ */
	if (name_has(e->name, "event=0xc0") && !name_has(e->name, "cmask") &&
	    !name_has(e->name, "umask=0x2"))
		return HBBP_ROLE_EBS;
	if (name_has(e->name, "event=0xc4") && name_has(e->name, "umask=0x20"))
		return HBBP_ROLE_LBR;
	return HBBP_ROLE_UNUSED;
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
	size_t i, n = strlen(name), nr = perf_reader__nr_events(r);

	for (i = 0; i < nr; i++) {
		const char *en = perf_reader__event(r, i)->name;

		if (en && !strcmp(en, name))
			return (int)i;
	}
	/* "cycles" also matches "cycles:u" */
	for (i = 0; i < nr; i++) {
		const char *en = perf_reader__event(r, i)->name;

		if (en && !strncmp(en, name, n) && en[n] == ':')
			return (int)i;
	}
	return -1;
}

int hbbp_roles__assign(const struct perf_reader *r, const char *ebs_event, const char *lbr_event,
		       struct hbbp_event_role *roles, char *err, size_t errlen)
{
	const struct perf_header_info *h = perf_reader__header(r);
	enum vendor v = recording_vendor(h);
	size_t i, nr = perf_reader__nr_events(r);
	int ebs = -1, lbr = -1, any_stack = -1;
	bool lbr_only = false;

	for (i = 0; i < nr; i++) {
		const struct perf_evattr *a = &perf_reader__event(r, i)->attr;
		struct hbbp_event_role *ro = &roles[i];

		ro->role = HBBP_ROLE_UNUSED;
		ro->branch_any = (a->sample_type & PERF_SAMPLE_BRANCH_STACK) &&
				 (a->branch_sample_type & PERF_SAMPLE_BRANCH_ANY);
		if (a->sample_type & PERF_SAMPLE_BRANCH_STACK)
			ro->reason = ro->branch_any ? "branch stack not needed" :
				branch_filter_reason(a->branch_sample_type);
		else if (a->type == PERF_TYPE_SOFTWARE && a->config == 9)
			ro->reason = "dummy tracking event";
		else
			ro->reason = "neither instructions retired nor an all-branches stack";
	}
	if (ebs_event)
		ebs = find_by_name(r, ebs_event);
	if (lbr_event)
		lbr = find_by_name(r, lbr_event);
	if (!ebs_event)
		for (i = 0; i < nr && ebs < 0; i++)
			if (table_role(r, perf_reader__event(r, i), v) == HBBP_ROLE_EBS &&
			    (perf_reader__event(r, i)->attr.sample_type & PERF_SAMPLE_IP))
				ebs = (int)i;
	if (!lbr_event) {
		for (i = 0; i < nr && lbr < 0; i++)
			if ((int)i != ebs && roles[i].branch_any &&
			    table_role(r, perf_reader__event(r, i), v) == HBBP_ROLE_LBR)
				lbr = (int)i;
		for (i = 0; i < nr && any_stack < 0; i++)
			if ((int)i != ebs && roles[i].branch_any)
				any_stack = (int)i;
		if (lbr < 0 && any_stack >= 0) {
			lbr = any_stack;
			lbr_only = true;
		}
	}
	if (ebs >= 0) {
		roles[ebs].role = HBBP_ROLE_EBS;
		roles[ebs].reason = ebs_event ? "selected with --ebs-event" : "instructions retired";
	}
	if (lbr >= 0 && lbr != ebs) {
		const struct perf_event_info *e = perf_reader__event(r, (size_t)lbr);
		struct hbbp_event_role *ro = &roles[lbr];

		if (!ro->branch_any) {
			ro->reason = branch_filter_reason(e->attr.branch_sample_type);
			if (!(e->attr.sample_type & PERF_SAMPLE_BRANCH_STACK))
				ro->reason = "selected with --lbr-event but has no branch stack";
		} else {
			ro->role = HBBP_ROLE_LBR;
			ro->reason = lbr_event ? "selected with --lbr-event" :
				lbr_only ? "not a taken-branches event: its all-branches stack is used"
					   " (LBR-only recording)" :
				"taken branches with an all-branches stack";
			if (lbr_only)
				pr_warn("%s: no taken-branches event; using the branch stacks of '%s'",
					h->path, e->name ? e->name : "?");
		}
	}
	if (ebs_event || lbr_event) {
		bool has_ebs = !ebs_event, has_lbr = !lbr_event;

		for (i = 0; i < nr; i++) {
			has_ebs |= roles[i].role == HBBP_ROLE_EBS;
			has_lbr |= roles[i].role == HBBP_ROLE_LBR;
		}
		if (!has_ebs || !has_lbr) {
			snprintf(err, errlen, "%s: event '%s' not found or not usable", h->path,
				 !has_ebs ? ebs_event : lbr_event);
			return -HBBP_ENOTFOUND;
		}
	}
	return 0;
}
