/* The names of the recording's threads over time, as perf's thread model keeps them (each
 * thread's list of comms): every name a thread takes (COMM, exec, the name a fork inherits),
 * in record order. A sample is attributed to the name its thread has when the sample comes
 * (records are fed in time order), through a thread key: the tid itself while the thread
 * has its first name, else a key of its own for each later name (COMM_KEY_RENAMED | its
 * number), so that the sums of one thread under two names stay apart.
 * Internal to bbmap/ (the session holds one). Depends on util/ only; knows nothing of
 * perf.data.
 */
#ifndef BBMAP_COMM_TIMELINE_H
#define BBMAP_COMM_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "util/hmap.h"

#define COMM_KEY_RENAMED 0x80000000u

struct comm_name {
	uint32_t pid, tid;
	char *name;
};

struct comm_timeline {
	struct hmap threads;		/* pid << 32 | tid -> struct comm_thread */
	struct comm_name *names;	/* every name taken, in record order */
	size_t nr, cap;
};

void comm_timeline__init(struct comm_timeline *ct);
void comm_timeline__exit(struct comm_timeline *ct);
/* Thread pid/tid is called name from now on. 0 or -ENOMEM. */
int comm_timeline__set(struct comm_timeline *ct, uint32_t pid, uint32_t tid, const char *name);
/* The thread's name now, or NULL when it has none. */
const char *comm_timeline__now(const struct comm_timeline *ct, uint32_t pid, uint32_t tid);
/* The key of the thread's name now (see above): tid unless the thread was renamed. */
uint32_t comm_timeline__key(const struct comm_timeline *ct, uint32_t pid, uint32_t tid);
/* The name of thread key key of pid (and its thread's tid in *tid), or NULL (*tid = key)
 * for a thread without a name. */
const char *comm_timeline__name(const struct comm_timeline *ct, uint32_t pid, uint32_t key,
				uint32_t *tid);

#endif
