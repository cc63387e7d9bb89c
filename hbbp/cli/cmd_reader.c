/* The options, opening and error ending shared by `hbbp-convert dump` and `stats`
 * (hbbp/cli/cmd_reader.h). Uses only the reader's public API.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hbbp/cli/cmd_reader.h"
#include "util/hbbp_err.h"

int cmd_reader__arg(int argc, char **argv, int *i, struct perf_reader_opts *opts,
		    const char **path)
{
	const char *a = argv[*i];

	if (!strcmp(a, "--ebs-event") || !strcmp(a, "--lbr-event")) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "hbbp-convert: error: %s needs an event NAME\n", a);
			return -1;
		}
		if (a[2] == 'e')
			opts->ebs_event = argv[++*i];
		else
			opts->lbr_event = argv[++*i];
		return 0;
	}
	if (a[0] == '-' && a[1]) {
		fprintf(stderr, "hbbp-convert: error: unknown option '%s'\n", a);
		return -1;
	}
	if (*path) {
		fprintf(stderr, "hbbp-convert: error: one FILE only ('%s' and '%s')\n", *path, a);
		return -1;
	}
	*path = a;
	return 0;
}

int cmd_reader__open(struct perf_reader **r, const char *path,
		     const struct perf_reader_opts *opts)
{
	const char *msg = NULL;
	int err = perf_reader__open(r, path, opts, &msg);

	if (!err)
		return 0;
	fprintf(stderr, "hbbp-convert: error: %s\n", msg ? msg : hbbp_strerror(err));
	return hbbp_exit_code(err);
}

int cmd_reader__fail(struct perf_reader *r, int err)
{
	fprintf(stderr, "hbbp-convert: error: %s\n", perf_reader__errmsg(r));
	perf_reader__delete(r);
	return hbbp_exit_code(err);
}

void cmd_reader__warn_partial(const struct perf_reader *r, const char *path)
{
	const struct perf_header_info *h = perf_reader__header(r);
	const struct perf_reader_stats *st = perf_reader__stats(r);
	char buf[32];
	unsigned f;

	if (h->truncated)
		fprintf(stderr, "hbbp-convert: warning: %s: truncated recording: %s%" PRIu64
			" bytes missing, read up to the last complete record\n", path,
			st->truncated_bytes && (h->is_pipe || !h->data_size) ? "at least " : "",
			st->truncated_bytes);
	for (f = 0; f < 64; f++)
		if (st->bad_features & (1ULL << f))
			fprintf(stderr, "hbbp-convert: warning: %s: header section %s is corrupt: "
				"skipped\n", path, perf_feature__name(f, buf, sizeof(buf)));
	if (st->empty_build_ids)
		fprintf(stderr, "hbbp-convert: warning: %s: the build-id list is empty: "
			"binaries cannot be checked against the recording\n", path);
}
