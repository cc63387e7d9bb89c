/* Bus errors on mapped input files. A file the process has mapped can shrink under it
 * (another process truncates or rewrites it); touching a page past the new end raises SIGBUS.
 * The reader registers each input mapping here (address range and file name); the program
 * installs one SIGBUS handler that names the file and the offset, lets the program clean up
 * (e.g. remove a partial output), and exits with HBBP_EXIT_INPUT instead of dying.
 * Registration and lookup are lock-free and async-signal-safe; a full table (64 inputs)
 * only loses the file name in the message. Depends on libc only.
 */
#ifndef HBBP_MAPGUARD_H
#define HBBP_MAPGUARD_H

#include <stddef.h>

/* Registers [base, base + len) as the mapping of file name (kept by pointer: it must live
 * until hbbp_mapguard__remove). Returns a slot for __remove, or -1 if the table is full. */
int hbbp_mapguard__add(const void *base, size_t len, const char *name);
void hbbp_mapguard__remove(int slot);

/* Installs the SIGBUS handler. cleanup, if not NULL, runs first in the handler and must be
 * async-signal-safe. The handler writes "PROG: error: FILE: the file shrank while it was
 * being read (bus error at 0xOFFSET)" to stderr and calls _exit(HBBP_EXIT_INPUT).
 * Returns 0 or -errno. */
int hbbp_mapguard__install(const char *prog, void (*cleanup)(void));

#endif
