/* hbbp-convert --version: the release (HBBP_VERSION, set by the Makefile from `git describe`,
 * else from the VERSION file) and the versions of the libraries linked in, as bug reports
 * need them. Depends on the libraries' own version calls only.
 */
#include <capstone/capstone.h>
#include <elfutils/libdwfl.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <zstd.h>
#include <Zydis/Zydis.h>

#include "hbbp/cli/options.h"
#include "util/hbbp_err.h"

#ifndef HBBP_VERSION
#define HBBP_VERSION "unknown"
#endif

int cmd_version(void)
{
	int major = 0, minor = 0;
	const char *dw = dwfl_version(NULL);
	uint64_t zv = ZydisGetVersion();

	cs_version(&major, &minor);
	printf("hbbp-convert %s\n", HBBP_VERSION);
	printf("libraries: elfutils %s, zydis %u.%u.%u, capstone %d.%d, zstd %s, sqlite %s\n",
	       dw ? dw : "?", (unsigned)(zv >> 48 & 0xffff), (unsigned)(zv >> 32 & 0xffff),
	       (unsigned)(zv >> 16 & 0xffff), major, minor, ZSTD_versionString(),
	       sqlite3_libversion());
	return fflush(stdout) || ferror(stdout) ? HBBP_EXIT_IO : HBBP_EXIT_OK;
}
