/* The maps of one address space: a sorted array of non-overlapping [start, end) ranges
 * with binary-search lookup and a last-hit cache. A new map replaces the overlapped parts
 * of older ones (as perf's maps__fixup_overlappings does), or, for the kernel image map,
 * only fills the gaps between module maps. Knows nothing of dsos beyond the pointer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/session_priv.h"
#include "util/grow.h"
#include "util/bsearch.h"

#define MAPS_MAX (1u << 24)

static int maps__reserve(struct bbmap_maps *m, size_t extra)
{
	return grow_array((void **)&m->v, &m->cap, sizeof(*m->v), m->n + extra, MAPS_MAX);
}

/* First index whose end is above addr (maps are sorted and disjoint). */
static size_t maps__first_ending_after(const struct bbmap_maps *m, uint64_t addr)
{
	return bsearch_count(m->n, mid, m->v[mid].end <= addr);
}

/* Replaces v[i, j) with the k maps in repl. */
static int maps__splice(struct bbmap_maps *m, size_t i, size_t j, const struct bbmap_map *repl,
			size_t k)
{
	int err;

	if (k > j - i) {
		err = maps__reserve(m, k - (j - i));
		if (err)
			return err;
	}
	memmove(m->v + i + k, m->v + j, (m->n - j) * sizeof(*m->v));
	memcpy(m->v + i, repl, k * sizeof(*repl));
	m->n = m->n - (j - i) + k;
	m->last = 0;
	return 0;
}

int bbmap_maps__remove(struct bbmap_maps *m, uint64_t start, uint64_t end)
{
	struct bbmap_map keep[2];
	size_t i, j, k = 0;

	if (start >= end)
		return 0;
	i = maps__first_ending_after(m, start);
	for (j = i; j < m->n && m->v[j].start < end; j++)
		;
	if (i == j)
		return 0;
	if (m->v[i].start < start) {
		keep[k] = m->v[i];
		keep[k].end = start;
		k++;
	}
	if (m->v[j - 1].end > end) {
		keep[k] = m->v[j - 1];
		keep[k].pgoff += end - keep[k].start;
		keep[k].start = end;
		k++;
	}
	return maps__splice(m, i, j, keep, k);
}

static int maps__insert_over(struct bbmap_maps *m, const struct bbmap_map *nm)
{
	int err = bbmap_maps__remove(m, nm->start, nm->end);
	size_t i;

	if (err)
		return err;
	i = maps__first_ending_after(m, nm->start);
	return maps__splice(m, i, i, nm, 1);
}

static int maps__insert_under(struct bbmap_maps *m, const struct bbmap_map *nm)
{
	uint64_t pos = nm->start;

	while (pos < nm->end) {
		size_t i = maps__first_ending_after(m, pos);
		struct bbmap_map piece = *nm;
		int err;

		if (i < m->n && m->v[i].start <= pos) {
			pos = m->v[i].end;	/* covered: skip past the existing map */
			continue;
		}
		piece.start = pos;
		piece.end = (i < m->n && m->v[i].start < nm->end) ? m->v[i].start : nm->end;
		piece.pgoff = nm->pgoff + (pos - nm->start);
		err = maps__splice(m, i, i, &piece, 1);
		if (err)
			return err;
		pos = piece.end;
	}
	return 0;
}

int bbmap_maps__insert(struct bbmap_maps *m, const struct bbmap_map *nm, bool under)
{
	if (nm->start >= nm->end)
		return -EINVAL;
	return under ? maps__insert_under(m, nm) : maps__insert_over(m, nm);
}

const struct bbmap_map *bbmap_maps__find(struct bbmap_maps *m, uint64_t addr)
{
	size_t i;

	if (m->last < m->n && m->v[m->last].start <= addr && addr < m->v[m->last].end)
		return &m->v[m->last];
	i = maps__first_ending_after(m, addr);
	if (i < m->n && m->v[i].start <= addr) {
		m->last = i;
		return &m->v[i];
	}
	return NULL;
}

int bbmap_maps__copy(struct bbmap_maps *dst, const struct bbmap_maps *src)
{
	bbmap_maps__clear(dst);
	if (maps__reserve(dst, src->n))
		return -ENOMEM;
	if (src->n)
		memcpy(dst->v, src->v, src->n * sizeof(*src->v));
	dst->n = src->n;
	return 0;
}

void bbmap_maps__clear(struct bbmap_maps *m)
{
	m->n = 0;
	m->last = 0;
}

void bbmap_maps__exit(struct bbmap_maps *m)
{
	free(m->v);
	memset(m, 0, sizeof(*m));
}
