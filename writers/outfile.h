/* Atomic output files for the writers (see writers/outfile.c). Not for use outside writers/.
 */
#ifndef WRITERS_OUTFILE_H
#define WRITERS_OUTFILE_H

#include <sys/types.h>

/* Creates "DIR/.BASE.XXXXXX" next to target with mode, registers it for removal on
 * SIGINT/SIGTERM/SIGHUP, returns its malloc'd path and an open descriptor. */
int outfile__create(const char *target, mode_t mode, char **tmp_out, int *fd_out);
/* fsync + close fd, rename tmp onto target; on any error tmp is removed. */
int outfile__commit(const char *tmp, int fd, const char *target);
/* Closes fd (if >= 0) and removes tmp (and a SQLite journal of it). */
void outfile__abandon(const char *tmp, int fd);
/* Installs the signal handlers for one write; _end restores the previous handlers. */
int outfile__signals_begin(void);
void outfile__signals_end(void);

#endif
