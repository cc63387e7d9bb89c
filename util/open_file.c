/* hbbp_open_file (util/open_file.h): stat first, so that a device or FIFO is refused
 * without being opened (opening some devices acts), then open non-blocking and check with
 * fstat that what was opened is what was looked at (a name swapped in between is refused).
 * Depends on libc and util/hbbp_err.h only.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/hbbp_err.h"
#include "util/open_file.h"

static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" :
	       S_ISDIR(m) ? "a directory" : S_ISLNK(m) ? "a symbolic link" : "a special file";
}

static bool owner_ok(const struct stat *st)
{
	return st->st_uid == 0 || st->st_uid == geteuid();
}

/* 0, or the warning and -HBBP_EREFUSED */
static int judge(const char *path, const struct stat *st, unsigned int flags, uint64_t max)
{
	if (!S_ISREG(st->st_mode)) {
		pr_warn("%s: refused: %s, not a regular file", path, file_kind(st->st_mode));
		return -HBBP_EREFUSED;
	}
	if ((uint64_t)st->st_size > max) {
		pr_warn("%s: refused: %" PRIu64 " bytes, more than the %" PRIu64 " such a file "
			"may have", path, (uint64_t)st->st_size, max);
		return -HBBP_EREFUSED;
	}
	if ((flags & HBBP_OPEN_OWNED) && !owner_ok(st)) {
		pr_warn("%s: refused: owned by uid %u, neither this user nor root", path,
			(unsigned)st->st_uid);
		return -HBBP_EREFUSED;
	}
	return 0;
}

int hbbp_open_file(const char *path, unsigned int flags, uint64_t max_size, uint64_t *size)
{
	struct stat st, lst, fst;
	int fd, err;

	if (size)
		*size = 0;
	if (stat(path, &st))
		return -errno;
	if ((flags & HBBP_OPEN_OWNED) && !lstat(path, &lst) && !owner_ok(&lst)) {
		pr_warn("%s: refused: owned by uid %u, neither this user nor root", path,
			(unsigned)lst.st_uid);
		return -HBBP_EREFUSED;
	}
	err = judge(path, &st, flags, max_size);
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &fst)) {
		err = -errno;
		close(fd);
		return err;
	}
	err = judge(path, &fst, flags, max_size);
	if (!err && (fst.st_dev != st.st_dev || fst.st_ino != st.st_ino)) {
		pr_warn("%s: refused: replaced while it was being opened", path);
		err = -HBBP_EREFUSED;
	}
	if (err) {
		close(fd);
		return err;
	}
	if (size)
		*size = (uint64_t)fst.st_size;
	return fd;
}

FILE *hbbp_open_text(const char *path, unsigned int flags, int *err)
{
	int fd = hbbp_open_file(path, flags, HBBP_OPEN_TEXT_MAX, NULL);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;

	if (!f) {
		*err = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
	}
	return f;
}
