/* Atomic output files for the writers (see writers/outfile.c). Not for use outside writers/.
 */
#ifndef WRITERS_OUTFILE_H
#define WRITERS_OUTFILE_H

#include <stdbool.h>
#include <sys/types.h>

/* Removes stale temporary files of earlier writes to target (see outfile.c), creates
 * "DIR/.BASE.PID@HOST.XXXXXX" next to target (mode 0600 until the commit), registers it for
 * removal on a fatal signal, returns its malloc'd path and an open descriptor. */
int outfile__create(const char *target, char **tmp_out, int *fd_out);
/* fchmod mode, fsync, close fd, rename tmp onto target (noreplace: -EEXIST when target
 * exists, and tmp is gone); on any error tmp is removed. After the rename the output is
 * complete (outfile__on_commit). */
int outfile__commit(const char *tmp, int fd, const char *target, mode_t mode, bool noreplace);
/* Closes fd (if >= 0) and removes tmp (and a SQLite journal of it). */
void outfile__abandon(const char *tmp, int fd);
/* Installs the signal handlers for one write; _end restores the previous handlers. */
int outfile__signals_begin(void);
void outfile__signals_end(void);
/* An in-place write: between _begin and _end a signal is only recorded; outfile__pending()
 * returns it (0: none); the writer rolls back and calls outfile__exit_signalled(), which
 * logs "TARGET: interrupted by signal N: WHAT" and ends the process with exit code 3. */
void outfile__defer_begin(void);
int outfile__pending(void);
void outfile__defer_end(void);
void outfile__exit_signalled(const char *target, const char *what) __attribute__((noreturn));
/* Once the write in progress is complete (outfile__commit's rename, or outfile__committed()
 * after an in-place commit), a signal ends the process with exit code code and logs
 * "TARGET: signal N came after WHAT"; keep: the handlers stay so until the process ends
 * (outfile__signals_end leaves them), for its last output. Called before the commit. */
void outfile__on_commit(const char *target, const char *what, int code, bool keep);
/* The in-place write committed: a signal that came during it is handled now as above. */
void outfile__committed(void);

#endif
