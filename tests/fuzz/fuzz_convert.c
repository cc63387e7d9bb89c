/* libFuzzer target on the whole conversion: the input as a perf.data file through
 * convert__compute (reader, address spaces, stack cache, accumulation, blocks, intervals,
 * mix), then written as CSV or JSON for some inputs. Bits of the input's size pick the
 * variant: the method and the output. Binaries: samples/demo/vector by the override "vector"
 * (wherever the checkout is, inputs made from the demo recording reach code); other recorded
 * paths are looked up under a --symfs directory that does not exist, then as recorded (an
 * input naming a library of the host decodes it, as a conversion would); no build-id cache
 * is read. Each output goes to a fresh directory in /dev/shm (memory: the writer's fsync
 * costs nothing) or /tmp, removed after the write (libFuzzer ends with _Exit: nothing is
 * left for an atexit handler). The fuzz build's stack cache holds 256 stacks (Makefile).
 * Depends on the library (hbbp/engine/convert.h and what it uses).
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

static const char symfs[] = "/nonexistent/fuzz_convert-symfs";
static char vector_path[PATH_MAX];
static struct bbmap_binary_override vector_bin = { "vector", vector_path };
static const char *out_tmpl = "/tmp/fuzz_convert.XXXXXX";

static void fuzz_init(void)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		snprintf(vector_path, sizeof(vector_path), "%s/../../samples/demo/vector", exe);
	}
	if (!access("/dev/shm", W_OK))
		out_tmpl = "/dev/shm/fuzz_convert.XXXXXX";
}

/* The result written as `format` into a fresh directory, removed with it. */
static void write_out(const struct convert_run *run, const struct convert_opts *o,
		      enum writer_format format)
{
	char dir[64], path[sizeof(dir) + 8];
	struct writer_opts wo;

	snprintf(dir, sizeof(dir), "%s", out_tmpl);
	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "%s/out", dir);
	memset(&wo, 0, sizeof(wo));
	wo.inputs = &o->input;
	wo.nr_inputs = 1;
	writer__write(run->res, path, format, &wo);
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum hbbp_method methods[4] = {
		HBBP_METHOD_HBBP, HBBP_METHOD_EBS, HBBP_METHOD_LBR, HBBP_METHOD_HBBP,
	};
	static int inited;
	struct convert_opts o;
	struct convert_run run;
	const char *path;
	int rc;

	if (!inited) {
		fuzz_init();
		inited = 1;
	}
	path = fuzz_file(data, size);
	if (!path || cli_convert__defaults(&o))
		return 0;
	o.input = path;
	o.method = methods[(size >> 1) & 3];
	o.find.symfs = symfs;
	o.find.buildid_dir = "";
	o.find.binaries = &vector_bin;
	o.find.nr_binaries = vector_path[0] ? 1 : 0;
	memset(&run, 0, sizeof(run));
	rc = convert__compute(&run, &o);
	if (getenv("FUZZ_CONVERT_SAY")) {	/* what the input gave: to see it reach code */
		size_t i, code = 0;

		for (i = 0; i < run.counts.nr_blocks; i++)
			code += run.counts.blocks[i].kind == HBBP_BLK_CODE;
		fprintf(stderr, "fuzz_convert: exit %d, method %d, total %g, %zu code blocks\n",
			rc, (int)o.method, run.total, code);
	}
	if (!rc && (size & 8)) {
		write_out(&run, &o, size & 16 ? WRITER_JSON : WRITER_CSV);
		fuzz_sink += run.total > 1.0;	/* read, whatever its size */
	}
	convert__run_exit(&run);
	return 0;
}
