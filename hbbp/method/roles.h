/* Event roles (method.md §2): which event of a recording is the EBS source (instructions
 * retired: its sample IPs), which the LBR source (taken branches with an all-branches branch
 * stack: its stacks), and why every other event is unused. Decided from the reader's facts
 * about each event (attr, stored name, PMU name, the recording's CPU vendor) through one
 * table of known encodings per vendor (Intel, AMD, Arm); --ebs-event / --lbr-event name the
 * roles explicitly. A recording with branch stacks but no taken-branches event (`cycles -b`)
 * gets its LBR role on the first event with an all-branches stack, with a warning (LBR-only).
 * Depends on reader/perf_reader.h only; never prints but through the log sink.
 */
#ifndef HBBP_ROLES_H
#define HBBP_ROLES_H

#include <stdbool.h>
#include <stddef.h>

#include "reader/perf_reader.h"

enum hbbp_role {
	HBBP_ROLE_UNUSED = 0,
	HBBP_ROLE_EBS,		/* instructions retired: its sample IPs are used */
	HBBP_ROLE_LBR,		/* taken branches (or any event) with an all-branches stack */
};
const char *hbbp_role_name(enum hbbp_role role);	/* "unused", "ebs", "lbr" */

struct hbbp_event_role {
	enum hbbp_role role;
	const char *reason;	/* why this role, or why not usable as LBR source (static) */
	bool branch_any;	/* branch stack with PERF_SAMPLE_BRANCH_ANY (streams valid) */
};

/* The roles of r's events into roles[0..perf_reader__nr_events(r)); ebs_event / lbr_event
 * (or NULL) name them (an event name, or "cycles" for "cycles:u"). 0, or -HBBP_ENOTFOUND when a
 * named event is absent or unusable, with "PATH: event 'NAME' not found or not usable" in err. */
int hbbp_roles__assign(const struct perf_reader *r, const char *ebs_event, const char *lbr_event,
		       struct hbbp_event_role *roles, char *err, size_t errlen);

#endif
