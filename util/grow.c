/* The growth helper of util/grow.h: doubling up to 4 MiB, then by half. Depends only on
 * libc. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/grow.h"

#define GROW_MIN	64		/* bytes: a first array of large elements holds few */
#define GROW_SLOW	(4u << 20)	/* bytes: larger arrays grow by half, not double */

int grow_array(void **p, size_t *cap, size_t elem_size, size_t need, size_t max)
{
	size_t ncap;
	void *np;

	if (need <= *cap)
		return 0;
	if (need > max || !elem_size)
		return -ENOMEM;
	/* doubling, then by half: a large array (the blocks of a big program) holds at
	 * most a third more than it needs, not twice it */
	if (*cap > SIZE_MAX / 2)
		ncap = SIZE_MAX;
	else if (elem_size && *cap >= GROW_SLOW / elem_size)
		ncap = *cap + *cap / 2;
	else
		ncap = *cap * 2;
	if (ncap < GROW_MIN / elem_size)
		ncap = GROW_MIN / elem_size;
	if (!ncap)
		ncap = 1;
	if (ncap < need)
		ncap = need;
	if (ncap > max)
		ncap = max;
	if (ncap > SIZE_MAX / elem_size)
		return -ENOMEM;
	np = realloc(*p, ncap * elem_size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

void grow_fit(void **p, size_t *cap, size_t elem_size, size_t nr)
{
	void *np;

	if (!nr)
		nr = 1;
	if (!*p || nr >= *cap)
		return;
	np = realloc(*p, nr * elem_size);	/* smaller: no overflow */
	if (!np)
		return;
	*p = np;
	*cap = nr;
}
