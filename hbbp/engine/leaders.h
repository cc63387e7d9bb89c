/* The block leaders of the stream targets (method.md §3), gathered per module and then added
 * to each module in the order they were gathered. Adding leaders decodes the code around them,
 * most of the attribution's time; modules are independent of each other, so the lists of
 * distinct modules may be applied on several threads with the same result.
 * Depends on hbbp/method/method.h (struct hbbp_code_ops) and util/hmap.h.
 */
#ifndef HBBP_LEADERS_H
#define HBBP_LEADERS_H

#include <stddef.h>
#include <stdint.h>

#include "util/hmap.h"

struct bbmap_module;
struct hbbp_code_ops;

struct hbbp_leader_list {
	struct bbmap_module *mod;
	uint64_t *vaddrs;
	size_t nr, alloc;
};

struct hbbp_leaders {
	struct hbbp_leader_list *lists;		/* in order of each module's first leader */
	size_t nr, alloc;
	struct hmap by_mod;			/* module -> index in lists */
};

void hbbp_leaders__init(struct hbbp_leaders *l);
void hbbp_leaders__exit(struct hbbp_leaders *l);
/* Appends vaddr to mod's list. 0 or -ENOMEM. */
int hbbp_leaders__add(struct hbbp_leaders *l, struct bbmap_module *mod, uint64_t vaddr);
/* Adds every list's leaders to its module through ops->add_leader, each list in order, on up
 * to ops->leader_threads threads (each takes the largest list left when it is free). A leader
 * that cannot be added is skipped, as one that is no instruction start. */
void hbbp_leaders__apply(const struct hbbp_leaders *l, const struct hbbp_code_ops *ops);

#endif
