/* Atomic output files: a temporary file next to the target (".NAME.XXXXXX" via mkstemp),
 * renamed into place only when complete, and a signal handler that removes it when the
 * process is interrupted (SIGINT, SIGTERM, SIGHUP): the handler is async-signal-safe
 * (unlink, write, _exit) and ends the process with exit code 3 (HBBP_EXIT_IO).
 * Signals the process ignores when the handlers are installed stay ignored.
 * One temporary file is registered at a time (writer__write is not reentrant). SIGKILL
 * cannot be caught: it leaves the hidden temporary file, never a partial NAME.
 * Depends only on libc.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/hbbp_err.h"
#include "writers/outfile.h"

static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_SIGNALS (sizeof(cleanup_signals) / sizeof(cleanup_signals[0]))

static volatile sig_atomic_t cleanup_armed;
static char cleanup_path[PATH_MAX + 64];
static char cleanup_journal[PATH_MAX + 72];	/* SQLite's rollback journal of the file */
static struct sigaction saved_actions[NR_SIGNALS];
static int handlers_installed;	/* for the write in progress */

static void outfile__on_signal(int sig)
{
	char num[4] = { 0 };

	if (cleanup_armed) {
		unlink(cleanup_path);
		unlink(cleanup_journal);
		num[0] = (char)('0' + (sig / 10) % 10);
		num[1] = (char)('0' + sig % 10);
		hbbp_sigsafe_puts(program_invocation_short_name);
		hbbp_sigsafe_puts(": error: interrupted by signal ");
		hbbp_sigsafe_puts(sig >= 10 ? num : num + 1);
		hbbp_sigsafe_puts(": removed partial output '");
		hbbp_sigsafe_puts(cleanup_path);
		hbbp_sigsafe_puts("'\n");
		_exit(HBBP_EXIT_IO);
	}
	/* Nothing to clean up: die of the signal as if no handler were installed. */
	signal(sig, SIG_DFL);
	raise(sig);
}

void writer__cleanup_on_fault(void)
{
	if (cleanup_armed) {
		unlink(cleanup_path);
		unlink(cleanup_journal);
	}
}

static int outfile__install(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = outfile__on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NR_SIGNALS; i++)
		sigaddset(&sa.sa_mask, cleanup_signals[i]);
	for (i = 0; i < NR_SIGNALS; i++) {
		if (sigaction(cleanup_signals[i], NULL, &saved_actions[i]))
			return -errno;
		/* A signal the caller ignores (nohup, background jobs of a shell) stays ignored. */
		if (saved_actions[i].sa_handler == SIG_IGN)
			continue;
		if (sigaction(cleanup_signals[i], &sa, NULL))
			return -errno;
	}
	return 0;
}

int outfile__signals_begin(void)
{
	int err;

	if (handlers_installed)
		return 0;
	err = outfile__install();
	if (!err)
		handlers_installed = 1;
	return err;
}

void outfile__signals_end(void)
{
	size_t i;

	if (!handlers_installed)
		return;
	for (i = 0; i < NR_SIGNALS; i++)
		sigaction(cleanup_signals[i], &saved_actions[i], NULL);
	handlers_installed = 0;
}

static void outfile__block(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < NR_SIGNALS; i++)
		sigaddset(&set, cleanup_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void outfile__unblock(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

int outfile__create(const char *target, mode_t mode, char **tmp_out, int *fd_out)
{
	const char *slash = strrchr(target, '/');
	size_t dirlen = slash ? (size_t)(slash - target) + 1 : 0;
	const char *base = target + dirlen;
	sigset_t old;
	char *tmp;
	int fd, err = 0;

	if (!*base)
		return -EISDIR;
	if (strlen(target) + 16 > PATH_MAX)
		return -ENAMETOOLONG;
	if (asprintf(&tmp, "%.*s.%s.XXXXXX", (int)dirlen, target, base) < 0)
		return -ENOMEM;
	outfile__block(&old);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
	} else {
		snprintf(cleanup_path, sizeof(cleanup_path), "%s", tmp);
		snprintf(cleanup_journal, sizeof(cleanup_journal), "%s-journal", tmp);
		cleanup_armed = 1;
	}
	outfile__unblock(&old);
	if (err) {
		free(tmp);
		return err;
	}
	if (fchmod(fd, mode)) {
		err = -errno;
		outfile__abandon(tmp, fd);
		free(tmp);
		return err;
	}
	*tmp_out = tmp;
	*fd_out = fd;
	return 0;
}

void outfile__abandon(const char *tmp, int fd)
{
	sigset_t old;
	char journal[PATH_MAX + 72];

	if (fd >= 0)
		close(fd);
	snprintf(journal, sizeof(journal), "%s-journal", tmp);
	outfile__block(&old);
	unlink(tmp);
	unlink(journal);
	cleanup_armed = 0;
	outfile__unblock(&old);
}

int outfile__commit(const char *tmp, int fd, const char *target)
{
	const char *slash = strrchr(target, '/');
	sigset_t old;
	int err = 0;

	if (fsync(fd)) {
		err = -errno;
		outfile__abandon(tmp, -1);
		close(fd);
		return err;
	}
	if (close(fd)) {
		err = -errno;
		outfile__abandon(tmp, -1);
		return err;
	}
	outfile__block(&old);
	if (rename(tmp, target)) {
		err = -errno;
		unlink(tmp);
	}
	cleanup_armed = 0;
	outfile__unblock(&old);
	if (err)
		return err;
	/* Make the rename durable; best effort, as the output is already complete and in place. */
	if (slash) {
		char *dir = strndup(target, (size_t)(slash - target) + 1);
		int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
		free(dir);
	} else {
		int dfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
	}
	return 0;
}
