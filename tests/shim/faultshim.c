/* I/O fault shim for the writer tests, loaded with LD_PRELOAD. It wraps write, pwrite,
 * pwrite64, fsync, fdatasync, close and rename, and acts only on regular files whose path
 * contains $FAULTSHIM_PATH (all regular files when unset); everything else passes through.
 *
 *   FAULTSHIM_ENOSPC_AFTER=N  the disk is full after N bytes written (total over matching
 *                             files): the write crossing N is short, later ones fail
 *   FAULTSHIM_FAIL=func:N     the Nth matching call of func fails (func: write, pwrite,
 *                             fsync, fdatasync, close, rename); close still closes the fd
 *   FAULTSHIM_ERRNO=E         errno of the failures (default ENOSPC = 28)
 *   FAULTSHIM_DELAY_US=U      sleep U microseconds before each matching write
 *
 * Depends only on libc and libdl; it is test code, never linked into the tool.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static long long bytes_left = -1;	/* -1: no limit */
static char fail_func[16];
static long fail_nth;
static int fail_errno = ENOSPC;
static long delay_us;
static const char *path_filter;
static long calls_write, calls_pwrite, calls_fsync, calls_fdatasync, calls_close, calls_rename;
static int configured;

static void shim__configure(void)
{
	const char *s;

	if (configured)
		return;
	configured = 1;
	if ((s = getenv("FAULTSHIM_ENOSPC_AFTER")) && *s)
		bytes_left = atoll(s);
	if ((s = getenv("FAULTSHIM_FAIL")) && *s) {
		const char *colon = strchr(s, ':');

		if (colon && (size_t)(colon - s) < sizeof(fail_func)) {
			memcpy(fail_func, s, (size_t)(colon - s));
			fail_nth = atol(colon + 1);
		}
	}
	if ((s = getenv("FAULTSHIM_ERRNO")) && *s)
		fail_errno = atoi(s);
	if ((s = getenv("FAULTSHIM_DELAY_US")) && *s)
		delay_us = atol(s);
	if ((s = getenv("FAULTSHIM_PATH")) && *s)
		path_filter = s;
}

static int shim__match_fd(int fd)
{
	struct stat st;
	char link[64], path[PATH_MAX];
	ssize_t n;
	int saved = errno, ok;

	shim__configure();
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		errno = saved;
		return 0;
	}
	ok = 1;
	if (path_filter) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = '\0';
		ok = strstr(path, path_filter) != NULL;
	}
	errno = saved;
	return ok;
}

/* Counts a matching call of func; 1 if it must fail. */
static int shim__nth(const char *func, long *counter)
{
	++*counter;
	return fail_nth > 0 && !strcmp(fail_func, func) && *counter == fail_nth;
}

/* How many of n bytes may be written; 0 with errno set when none. */
static size_t shim__budget(size_t n)
{
	if (bytes_left < 0)
		return n;
	if (bytes_left == 0) {
		errno = ENOSPC;
		return 0;
	}
	if ((unsigned long long)bytes_left < n)
		n = (size_t)bytes_left;
	return n;
}

#define REAL(name) \
	static __typeof__(&name) real_##name; \
	if (!real_##name) real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buf, size_t n)
{
	REAL(write);
	ssize_t k;

	if (!shim__match_fd(fd))
		return real_write(fd, buf, n);
	if (delay_us)
		usleep((useconds_t)delay_us);
	if (shim__nth("write", &calls_write)) {
		errno = fail_errno;
		return -1;
	}
	if (n && !(n = shim__budget(n)))
		return -1;
	k = real_write(fd, buf, n);
	if (k > 0 && bytes_left >= 0)
		bytes_left -= k;
	return k;
}

static ssize_t shim__pwrite(ssize_t (*real)(int, const void *, size_t, off_t), int fd,
			    const void *buf, size_t n, off_t off)
{
	ssize_t k;

	if (!shim__match_fd(fd))
		return real(fd, buf, n, off);
	if (delay_us)
		usleep((useconds_t)delay_us);
	if (shim__nth("pwrite", &calls_pwrite)) {
		errno = fail_errno;
		return -1;
	}
	if (n && !(n = shim__budget(n)))
		return -1;
	k = real(fd, buf, n, off);
	if (k > 0 && bytes_left >= 0)
		bytes_left -= k;
	return k;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	REAL(pwrite);
	return shim__pwrite(real_pwrite, fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	REAL(pwrite64);
	return shim__pwrite(real_pwrite64, fd, buf, n, off);
}

int fsync(int fd)
{
	REAL(fsync);

	if (shim__match_fd(fd) && shim__nth("fsync", &calls_fsync)) {
		errno = fail_errno;
		return -1;
	}
	return real_fsync(fd);
}

int fdatasync(int fd)
{
	REAL(fdatasync);

	if (shim__match_fd(fd) && shim__nth("fdatasync", &calls_fdatasync)) {
		errno = fail_errno;
		return -1;
	}
	return real_fdatasync(fd);
}

int close(int fd)
{
	REAL(close);

	if (shim__match_fd(fd) && shim__nth("close", &calls_close)) {
		real_close(fd);
		errno = fail_errno;
		return -1;
	}
	return real_close(fd);
}

int rename(const char *from, const char *to)
{
	REAL(rename);

	shim__configure();
	if ((!path_filter || strstr(from, path_filter)) && shim__nth("rename", &calls_rename)) {
		errno = fail_errno;
		return -1;
	}
	return real_rename(from, to);
}
