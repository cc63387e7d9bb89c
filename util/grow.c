/* The growth helper of util/grow.h. Depends only on libc. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/grow.h"

#define GROW_MIN	16

int grow_array(void **p, size_t *cap, size_t elem_size, size_t need, size_t max)
{
	size_t ncap;
	void *np;

	if (need <= *cap)
		return 0;
	if (need > max || !elem_size)
		return -ENOMEM;
	ncap = *cap > SIZE_MAX / 2 ? SIZE_MAX : *cap * 2;
	if (ncap < GROW_MIN)
		ncap = GROW_MIN;
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
