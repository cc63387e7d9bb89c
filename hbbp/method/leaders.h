/* Block leaders learned from the LBR data (method.md §3): the addresses that start a block
 * beyond what the disassembly shows, gathered per module in the order they were found, for
 * the code to add to each module (struct hbbp_code.add_leaders).
 * Depends on util/hmap.h only.
 */
#ifndef HBBP_METHOD_LEADERS_H
#define HBBP_METHOD_LEADERS_H

#include <stddef.h>
#include <stdint.h>

#include "util/hmap.h"

struct bbmap_module;

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

#endif
