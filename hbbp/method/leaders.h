/* Block leaders learned from the LBR data (method.md §3): the addresses that start a block
 * beyond what the disassembly shows, gathered per module in the order they were found and
 * then added to each module. Adding leaders decodes the code around them; modules are
 * independent, so the engine may add them its own way (hbbp/engine/leaders_threads.h,
 * through struct hbbp_code_ops.apply_leaders) with the same result as
 * hbbp_leaders__apply_each here.
 * Depends on util/hmap.h; reaches code only through struct hbbp_code_ops.
 */
#ifndef HBBP_METHOD_LEADERS_H
#define HBBP_METHOD_LEADERS_H

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
/* Adds one list's leaders to its module through ops->add_leader, in order. A leader that
 * cannot be added for a reason of the code (no instruction start, undecodable) is skipped;
 * running out of memory is not: returns 0 or -ENOMEM (after trying the whole list). */
int hbbp_leaders__apply_list(const struct hbbp_leader_list *ll, const struct hbbp_code_ops *ops);
/* Every list in order, here (hbbp_leaders__apply_list). 0 or -ENOMEM. */
int hbbp_leaders__apply_each(const struct hbbp_leaders *l, const struct hbbp_code_ops *ops);

#endif
