/* libFuzzer target on the store's trust check: the input as an existing SQLite database that
 * a run is appended to (--append: writers/writer.c, writers/sqlite_writer.c,
 * writers/sql_schema.c). The run is the demo recording's, converted once (samples/demo, its
 * vector found wherever the checkout is). An append either adds the run or is refused; a
 * refused database must be byte for byte what it was and the refusal an input error (exit
 * 2, one error line naming the file), never I/O (exit 3): otherwise the target aborts, which
 * libFuzzer reports as a crash.
 * Seeds: databases of the tool mutated at the SQL level by store_gen.py (foreign tables,
 * triggers, views, indexes, column types, versions, page sizes, journal modes).
 * Depends on the library (hbbp/engine/convert.h, writers/writer.h and what they use).
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hbbp/cli/options.h"
#include "hbbp/engine/convert.h"
#include "util/hbbp_err.h"
#include "writers/writer.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct convert_run run;
static char db[PATH_MAX], side[PATH_MAX + 8];
static uint8_t *back;
static int named;	/* error lines of this append that name the database */

static void store_log(enum hbbp_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (getenv("FUZZ_STORE_SAY"))	/* to read what the refusals say */
		fprintf(stderr, "fuzz_store: %s\n", msg);
	named += level == HBBP_LOG_ERROR && strstr(msg, db);
}

/* The demo converted once; the database's path in a directory of this process. */
static int store_init(void)
{
	static char demo[PATH_MAX], vector[PATH_MAX], dir[64];
	static struct bbmap_binary_override bin = { "vector", vector };
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct convert_opts o;

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(demo, sizeof(demo), "%s/../../samples/demo/perf.data", exe);
	snprintf(vector, sizeof(vector), "%s/../../samples/demo/vector", exe);
	snprintf(dir, sizeof(dir), "%s/fuzz_store.XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	if (!mkdtemp(dir) || cli_convert__defaults(&o))
		return -1;
	snprintf(db, sizeof(db), "%s/db.sqlite", dir);
	o.input = demo;
	o.format = WRITER_SQLITE;
	o.find.symfs = "/nonexistent/fuzz_store-symfs";
	o.find.buildid_dir = "";
	o.find.binaries = &bin;
	o.find.nr_binaries = 1;
	if (convert__compute(&run, &o))
		return -1;
	hbbp_log_set(store_log, NULL, HBBP_LOG_ERROR);
	return 0;
}

static void remove_side_files(void)
{
	static const char *const ext[] = { "-journal", "-wal", "-shm" };
	size_t i;

	for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		snprintf(side, sizeof(side), "%s%s", db, ext[i]);
		unlink(side);
	}
}

static int write_file(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(data, 1, size, f) == size;

	return (f && fclose(f)) || !ok ? -1 : 0;
}

/* Whether the file at db holds exactly data[0..size). */
static int same_bytes(const uint8_t *data, size_t size)
{
	FILE *f = fopen(db, "rb");
	size_t got;

	if (!f)
		return 0;
	back = realloc(back, size + 1);
	got = back ? fread(back, 1, size + 1, f) : 0;
	fclose(f);
	return back && got == size && !memcmp(back, data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int inited;
	struct writer_opts wo;
	int err;

	if (!inited)
		inited = store_init() ? -1 : 1;
	if (inited < 0)
		abort();	/* the demo must convert: nothing else is tested without it */
	remove_side_files();
	if (write_file(db, data, size))
		return 0;
	memset(&wo, 0, sizeof(wo));
	wo.append = true;
	named = 0;
	err = writer__check_target(db, WRITER_SQLITE, &wo);
	if (!err)
		err = writer__write(run.res, db, WRITER_SQLITE, &wo);
	if (err && !same_bytes(data, size)) {
		fprintf(stderr, "fuzz_store: refused (%s) but the database changed\n",
			hbbp_strerror(err));
		abort();
	}
	if (err && hbbp_exit_code(err) != HBBP_EXIT_INPUT) {
		fprintf(stderr, "fuzz_store: refused with exit %d (%s), not 2\n",
			hbbp_exit_code(err), hbbp_strerror(err));
		abort();
	}
	if (err && !named) {
		fprintf(stderr, "fuzz_store: refused (%s) without an error naming %s\n",
			hbbp_strerror(err), db);
		abort();
	}
	fuzz_sink += (uint64_t)err;
	return 0;
}
