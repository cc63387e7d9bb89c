/* The one way to open a file that untrusted input names: a path a recording records, or
 * one built from it and a search directory (JIT maps /tmp/perf-PID.map, build-id cache
 * entries, --symfs paths, debuglink and debuginfo files, kallsyms, vmlinux candidates,
 * kcore, the source files annotate reads). The name is opened read-only, non-blocking (a
 * FIFO cannot block the open) and close-on-exec, following links as perf does (build-id
 * cache entries are links); fstat of what was opened then decides: a regular file (not a
 * FIFO, device, socket or directory) no larger than max_size and, with HBBP_OPEN_OWNED,
 * owned by the effective user or root, the name itself (not followed) too: perf's rule
 * for /tmp/perf-PID.map. A refusal is one warning "PATH: refused: WHY" through the log
 * sink. Depends on util/hbbp_err.h only.
 */
#ifndef HBBP_OPEN_FILE_H
#define HBBP_OPEN_FILE_H

#include <stdint.h>
#include <stdio.h>

#define HBBP_OPEN_OWNED		1u	/* owned by the effective user or root */

#define HBBP_OPEN_TEXT_MAX	(1ull << 30)	/* JIT maps, kallsyms, sources */
#define HBBP_OPEN_ELF_MAX	(1ull << 36)	/* binaries, debug files, kcore copies */

/* Returns a file descriptor (*size: the file's size; 0 for files such as /proc/kallsyms
 * that do not know theirs, whose reader must bound what it reads), or a negative errno
 * when it cannot be opened (ENOENT and the like: no warning, a search goes on), or
 * -HBBP_EREFUSED after the warning. */
int hbbp_open_file(const char *path, unsigned int flags, uint64_t max_size, uint64_t *size);
/* The same for a text file read line by line (JIT maps, kallsyms, sources, at most
 * HBBP_OPEN_TEXT_MAX): a stdio stream, or NULL with *err the negative error. */
FILE *hbbp_open_text(const char *path, unsigned int flags, int *err);

#endif
