/* One growth helper for arrays that grow by doubling (libbpf's libbpf_add_mem is the model):
 * grow_array(&p, &cap, elem_size, need, max) makes room for at least `need` elements,
 * doubling the capacity (at least 64 bytes; by half once the array passes 4 MiB), never past
 * `max` elements, with every count x size
 * product checked for overflow. On failure (out of memory, past max, overflow) *p and *cap are
 * unchanged and -ENOMEM is returned: the caller keeps what it had and reports it.
 * Depends only on libc.
 */
#ifndef HBBP_GROW_H
#define HBBP_GROW_H

#include <stddef.h>

/* 0 when *cap >= need already or after growing; -ENOMEM otherwise. */
int grow_array(void **p, size_t *cap, size_t elem_size, size_t need, size_t max);

/* Shrinks *p to nr elements (nr <= *cap, at least one kept): for an array done growing
 * that lives on. A failed shrink keeps it as it was. */
void grow_fit(void **p, size_t *cap, size_t elem_size, size_t nr);

/* Room for one more element after *nr: the usual append. */
static inline int grow_one(void **p, size_t *cap, size_t elem_size, size_t nr)
{
	return nr < *cap ? 0 : grow_array(p, cap, elem_size, nr + 1, (size_t)-1);
}

#endif
