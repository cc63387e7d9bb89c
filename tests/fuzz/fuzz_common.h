/* Shared pieces of the libFuzzer targets: the input as a named regular file (the parsers
 * open paths), and sanitizer defaults suited to many short runs. Header-only, so that each
 * target stays one translation unit; depends only on libc and Linux (memfd_create).
 */
#ifndef HBBP_FUZZ_COMMON_H
#define HBBP_FUZZ_COMMON_H

#include <stdio.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* What the targets read of the parsed data goes here, so that the reads are not optimised
 * away (nothing is printed). */
static volatile uint64_t fuzz_sink;

/* The input as a regular file in memory: one memfd per process, rewritten for each input and
 * named through /proc/self/fd (no file system work per input, nothing left behind). NULL if
 * it cannot be made (the input is then skipped). */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;
	size_t done = 0;

	if (fd < 0) {
		fd = memfd_create("fuzz_input", MFD_CLOEXEC);
		if (fd < 0)
			return NULL;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, (off_t)size) < 0)
		return NULL;
	while (done < size) {
		ssize_t k = pwrite(fd, data + done, size - done, (off_t)done);

		if (k <= 0)
			return NULL;
		done += (size_t)k;
	}
	return path;
}

#endif
