/* Output files for the writers: a temporary file next to the target
 * (".NAME.PID@HOST.XXXXXX" via mkstemp), renamed into place only when complete, and signal
 * handlers for every asynchronous signal whose default action ends the process (HUP, INT,
 * QUIT, PIPE, ALRM, TERM, USR1, USR2, XCPU, XFSZ, VTALRM, PROF, POLL, PWR).
 *
 * Three modes while a write is in progress:
 *  - a temporary file is registered: the handler removes it (async-signal-safe: unlink,
 *    write, _exit) and ends the process with exit code 3 (HBBP_EXIT_IO);
 *  - an in-place write (a database appended to in its own transaction): the handler only
 *    records the signal; the writer sees it (outfile__pending), rolls its transaction back
 *    and calls outfile__exit_signalled();
 *  - the output is complete (the temporary file renamed into place, the transaction
 *    committed) and the writer asked for it (outfile__on_commit): the handler says so and
 *    ends the process with the exit code the writer gave (0: a caller that retries on
 *    failure must not store the run twice); these handlers stay until the process ends
 *    when the writer asked for that too (its last output).
 * Otherwise the handler dies of the signal as the default action would. Signals the process
 * ignores or handles itself when the handlers are installed keep their disposition: they
 * do not end it (a host program's timer on SIGALRM, libFuzzer's among them, goes on
 * working and never interrupts a write). One write at a time (writer__write
 * is not reentrant). SIGKILL cannot be caught: it can leave the temporary file, which the
 * next write to the same target removes (its PID is in the name: removed when that process
 * is gone on this host; reported when it is of another host or of an older version).
 * Depends only on libc and util/hbbp_err.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/hbbp_err.h"
#include "writers/outfile.h"

static const int cleanup_signals[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ,
	SIGVTALRM, SIGPROF, SIGPOLL, SIGPWR,
};
#define NR_SIGNALS (sizeof(cleanup_signals) / sizeof(cleanup_signals[0]))

static volatile sig_atomic_t cleanup_armed;
static volatile sig_atomic_t deferred;		/* an in-place write is in progress */
static volatile sig_atomic_t pending_sig;	/* first signal seen while deferred */
static volatile sig_atomic_t committed;		/* the output is complete */
static int commit_note;				/* outfile__on_commit() was called */
static int commit_code;				/* the exit code on a signal once committed */
static int commit_keep;				/* the handlers stay after signals_end */
static char commit_target[PATH_MAX + 64];	/* "TARGET: signal " */
static char commit_what[PATH_MAX + 192];	/* " came after ...\n" */
static char cleanup_path[PATH_MAX + 64];
static char cleanup_journal[PATH_MAX + 72];	/* SQLite's rollback journal of the file */
static struct sigaction saved_actions[NR_SIGNALS];
static int handlers_installed;	/* for the write in progress */

static void sig_number(int sig, char num[4])
{
	num[0] = (char)('0' + (sig / 10) % 10);
	num[1] = (char)('0' + sig % 10);
	num[2] = 0;
	if (sig < 10) {
		num[0] = num[1];
		num[1] = 0;
	}
}

static void outfile__on_signal(int sig)
{
	char num[4];

	if (cleanup_armed) {
		unlink(cleanup_path);
		unlink(cleanup_journal);
		sig_number(sig, num);
		hbbp_sigsafe_puts(program_invocation_short_name);
		hbbp_sigsafe_puts(": error: interrupted by signal ");
		hbbp_sigsafe_puts(num);
		hbbp_sigsafe_puts(": removed partial output '");
		hbbp_sigsafe_puts(cleanup_path);
		hbbp_sigsafe_puts("'\n");
		_exit(HBBP_EXIT_IO);
	}
	if (committed) {
		sig_number(sig, num);
		hbbp_sigsafe_puts(commit_target);
		hbbp_sigsafe_puts(num);
		hbbp_sigsafe_puts(commit_what);
		_exit(commit_code);
	}
	if (deferred) {
		if (!pending_sig)
			pending_sig = sig;
		return;
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
		/* Only where the signal would end the process: a signal the caller ignores
		 * (nohup, background jobs of a shell) stays ignored, one it handles stays its. */
		if ((saved_actions[i].sa_flags & SA_SIGINFO) ||
		    saved_actions[i].sa_handler != SIG_DFL)
			continue;
		if (sigaction(cleanup_signals[i], &sa, NULL))
			return -errno;
	}
	return 0;
}

int outfile__signals_begin(void)
{
	int err;

	committed = 0;		/* a new write: the last one's note no longer applies */
	commit_note = 0;
	commit_keep = 0;
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

	if (!handlers_installed || (committed && commit_keep))
		return;
	committed = 0;
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

void outfile__defer_begin(void)
{
	pending_sig = 0;
	deferred = 1;
}

int outfile__pending(void)
{
	return pending_sig;
}

void outfile__defer_end(void)
{
	deferred = 0;
}

void outfile__on_commit(const char *target, const char *what, int code, bool keep)
{
	sigset_t old;

	outfile__block(&old);
	snprintf(commit_target, sizeof(commit_target), "%s: %s: signal ",
		 program_invocation_short_name, target);
	snprintf(commit_what, sizeof(commit_what), " came after %s\n", what);
	commit_code = code;
	commit_keep = keep;
	commit_note = 1;
	outfile__unblock(&old);
}

void outfile__committed(void)
{
	sigset_t old;

	outfile__block(&old);
	if (commit_note) {
		committed = 1;
		deferred = 0;
		if (pending_sig)	/* it came during the commit: said now, as it would be later */
			outfile__on_signal(pending_sig);
	}
	outfile__unblock(&old);
}

void outfile__exit_signalled(const char *target, const char *what)
{
	pr_err("%s: interrupted by signal %d: %s", target, (int)pending_sig, what);
	_exit(HBBP_EXIT_IO);
}

/* This host's name as it appears in temporary file names: [A-Za-z0-9-], at most 32. */
static void outfile__host(char *buf, size_t size)
{
	char h[256];
	size_t i, n = 0;

	if (gethostname(h, sizeof(h)))
		h[0] = 0;
	h[sizeof(h) - 1] = 0;
	for (i = 0; h[i] && n + 1 < size && n < 32; i++) {
		char c = h[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-')
			buf[n++] = c;
	}
	if (!n)
		buf[n++] = 'x';
	buf[n] = 0;
}

/* Temporary files of earlier writes to DIR/BASE: ".BASE.PID@HOST.XXXXXX" of a process that
 * is gone from this host are removed; those of other hosts or of a live process are left;
 * a ".BASE.XXXXXX" (a version without the PID) older than a minute is reported. */
static void outfile__stale(const char *dir, const char *base, const char *host)
{
	size_t blen = strlen(base), hlen = strlen(host);
	DIR *d = opendir(*dir ? dir : ".");
	struct dirent *e;
	time_t now = time(NULL);

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *p = e->d_name, *at, *dot;
		char path[PATH_MAX];
		struct stat st;
		char *end;
		long pid;

		if (p[0] != '.' || strncmp(p + 1, base, blen) || p[1 + blen] != '.')
			continue;
		p += 2 + blen;
		if (snprintf(path, sizeof(path), "%s%s", dir, e->d_name) >= (int)sizeof(path))
			continue;
		if (lstat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (strlen(p) == 6 && !strchr(p, '.') && !strchr(p, '@')) {
			if (now - st.st_mtime > 60)
				pr_warn("%s: a temporary file of an interrupted earlier write, it seems:"
					" remove it if no conversion is writing there", path);
			continue;
		}
		pid = strtol(p, &end, 10);
		if (end == p || *end != '@' || pid <= 0 || pid > INT_MAX)
			continue;
		at = end + 1;
		dot = strchr(at, '.');
		if (!dot || strlen(dot + 1) != 6 || strchr(dot + 1, '.'))
			continue;
		if ((size_t)(dot - at) != hlen || strncmp(at, host, hlen)) {
			if (now - st.st_mtime > 3600)
				pr_warn("%s: a temporary file of process %ld on host '%.*s', older than"
					" an hour: remove it if no conversion is running there", path,
					pid, (int)(dot - at), at);
			continue;
		}
		if (pid == (long)getpid() || !kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		if (!unlink(path))
			pr_warn("%s: removed the temporary file of process %ld, which is gone",
				path, pid);
	}
	closedir(d);
}

int outfile__create(const char *target, char **tmp_out, int *fd_out)
{
	const char *slash = strrchr(target, '/');
	size_t dirlen = slash ? (size_t)(slash - target) + 1 : 0;
	const char *base = target + dirlen;
	char host[40], *dir;
	sigset_t old;
	char *tmp;
	int fd, err = 0;

	if (!*base)
		return -EISDIR;
	if (strlen(target) + 64 > PATH_MAX)
		return -ENAMETOOLONG;
	outfile__host(host, sizeof(host));
	dir = strndup(target, dirlen);
	if (!dir)
		return -ENOMEM;
	outfile__stale(dir, base, host);
	free(dir);
	if (asprintf(&tmp, "%.*s.%s.%ld@%s.XXXXXX", (int)dirlen, target, base, (long)getpid(),
		     host) < 0)
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

static void outfile__sync_dir(const char *target)
{
	const char *slash = strrchr(target, '/');
	char *dir = slash ? strndup(target, (size_t)(slash - target) + 1) : strdup(".");
	int dfd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(dir);
}

int outfile__commit(const char *tmp, int fd, const char *target, mode_t mode, bool noreplace)
{
	sigset_t old;
	int err = 0;

	/* The mode is set last, so a writer can reopen a temporary file whose final mode is
	 * read-only (SQLite does). */
	if (fchmod(fd, mode) || fsync(fd)) {
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
	if (noreplace) {
		/* never over a file another writer created meanwhile: the caller appends to it */
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_NOREPLACE)) {
			err = -errno;
			if (err == -EINVAL || err == -ENOSYS) {
				err = link(tmp, target) ? -errno : 0;
				unlink(tmp);
			}
		}
	} else if (rename(tmp, target)) {
		err = -errno;
	}
	if (err)
		unlink(tmp);
	cleanup_armed = 0;
	committed = !err && commit_note;
	outfile__unblock(&old);
	if (err)
		return err;
	/* Make the rename durable; best effort, as the output is already complete and in place. */
	outfile__sync_dir(target);
	return 0;
}
