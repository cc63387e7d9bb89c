/* The names of the recording's threads over time (see bbmap/comm_timeline.h).
 * Depends on util/hmap and util/grow only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/comm_timeline.h"
#include "util/grow.h"

/* a thread's first name and its name now: indexes into names */
struct comm_thread {
	uint32_t first, now;
};

void comm_timeline__init(struct comm_timeline *ct)
{
	memset(ct, 0, sizeof(*ct));
	hmap__init(&ct->threads, 1, sizeof(struct comm_thread));
}

void comm_timeline__exit(struct comm_timeline *ct)
{
	size_t i;

	for (i = 0; i < ct->nr; i++)
		free(ct->names[i].name);
	free(ct->names);
	hmap__exit(&ct->threads);
	memset(ct, 0, sizeof(*ct));
}

static const struct comm_thread *timeline__thread(const struct comm_timeline *ct, uint32_t pid,
						  uint32_t tid)
{
	const uint64_t key = (uint64_t)pid << 32 | tid;

	return hmap__find(&ct->threads, &key);
}

int comm_timeline__set(struct comm_timeline *ct, uint32_t pid, uint32_t tid, const char *name)
{
	const uint64_t key = (uint64_t)pid << 32 | tid;
	const struct comm_thread *old = timeline__thread(ct, pid, tid);
	struct comm_thread *t;
	char *dup;

	if (!name)
		name = "";
	if (old && !strcmp(ct->names[old->now].name, name))
		return 0;		/* the same name again: nothing to tell apart */
	dup = strdup(name);
	if (!dup || grow_array((void **)&ct->names, &ct->cap, sizeof(*ct->names), ct->nr + 1,
			       COMM_KEY_RENAMED - 1)) {
		free(dup);
		return -ENOMEM;
	}
	t = hmap__get(&ct->threads, &key, NULL);
	if (!t) {
		free(dup);
		return -ENOMEM;
	}
	ct->names[ct->nr] = (struct comm_name){ .pid = pid, .tid = tid, .name = dup };
	t->now = (uint32_t)ct->nr;
	if (!old)
		t->first = t->now;
	ct->nr++;
	return 0;
}

const char *comm_timeline__now(const struct comm_timeline *ct, uint32_t pid, uint32_t tid)
{
	const struct comm_thread *t = timeline__thread(ct, pid, tid);

	return t ? ct->names[t->now].name : NULL;
}

uint32_t comm_timeline__key(const struct comm_timeline *ct, uint32_t pid, uint32_t tid)
{
	const struct comm_thread *t = timeline__thread(ct, pid, tid);

	return !t || t->now == t->first ? tid : COMM_KEY_RENAMED | t->now;
}

const char *comm_timeline__name(const struct comm_timeline *ct, uint32_t pid, uint32_t key,
				uint32_t *tid)
{
	const struct comm_thread *t = timeline__thread(ct, pid, key);
	uint32_t i = key & ~COMM_KEY_RENAMED;

	*tid = key;
	if (t)		/* a tid: the thread's first name */
		return ct->names[t->first].name;
	if (!(key & COMM_KEY_RENAMED) || i >= ct->nr || ct->names[i].pid != pid)
		return NULL;
	*tid = ct->names[i].tid;
	return ct->names[i].name;
}
