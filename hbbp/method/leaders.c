/* The LBR-learned block leaders of method.md §3, gathered per module (see
 * hbbp/method/leaders.h).
 * Depends on hbbp/method/leaders.h, util/hmap.h and util/grow.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "hbbp/method/leaders.h"
#include "util/grow.h"

void hbbp_leaders__init(struct hbbp_leaders *l)
{
	l->lists = NULL;
	l->nr = l->alloc = 0;
	hmap__init(&l->by_mod, 1, sizeof(size_t));
}

void hbbp_leaders__exit(struct hbbp_leaders *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		free(l->lists[i].vaddrs);
	free(l->lists);
	hmap__exit(&l->by_mod);
	l->lists = NULL;
	l->nr = l->alloc = 0;
}

int hbbp_leaders__add(struct hbbp_leaders *l, struct bbmap_module *mod, uint64_t vaddr)
{
	uint64_t key = (uintptr_t)mod;
	struct hbbp_leader_list *ll;
	int ins;
	size_t *idx = hmap__get(&l->by_mod, &key, &ins);

	if (!idx)
		return -ENOMEM;
	if (ins) {
		if (grow_one((void **)&l->lists, &l->alloc, sizeof(*l->lists), l->nr))
			return -ENOMEM;
		*idx = l->nr++;
		l->lists[*idx] = (struct hbbp_leader_list){ .mod = mod };
	}
	ll = &l->lists[*idx];
	if (grow_one((void **)&ll->vaddrs, &ll->alloc, sizeof(*ll->vaddrs), ll->nr))
		return -ENOMEM;
	ll->vaddrs[ll->nr++] = vaddr;
	return 0;
}
