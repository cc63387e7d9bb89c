/* The options, opening and error ending shared by `hbbp-convert dump` and `stats`
 * (hbbp/cli/cmd_reader.h). Uses only the reader's public API.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/cli/cmd_reader.h"
#include "util/hbbp_err.h"

int cmd_reader__arg(int argc, char **argv, int *i, struct cmd_reader_roles *opts,
		    const char **path)
{
	const char *a = argv[*i];

	if (!strcmp(a, "--ebs-event") && *i + 1 < argc) {
		opts->ebs_event = argv[++*i];
		return 0;
	}
	if (!strcmp(a, "--lbr-event") && *i + 1 < argc) {
		opts->lbr_event = argv[++*i];
		return 0;
	}
	if ((a[0] == '-' && a[1]) || *path)
		return -1;
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
	fprintf(stderr, "hbbp-convert: %s\n", msg ? msg : hbbp_strerror(err));
	return hbbp_exit_code(err);
}

int cmd_reader__roles(const struct perf_reader *r, const struct cmd_reader_roles *ro,
		      struct hbbp_event_role **out)
{
	char msg[512];
	int err;

	*out = calloc(perf_reader__nr_events(r) + 1, sizeof(**out));
	if (!*out) {
		fprintf(stderr, "hbbp-convert: %s\n", hbbp_strerror(-ENOMEM));
		return HBBP_EXIT_IO;
	}
	err = hbbp_roles__assign(r, ro->ebs_event, ro->lbr_event, *out, msg, sizeof(msg));
	if (!err)
		return 0;
	fprintf(stderr, "hbbp-convert: %s\n", msg);
	free(*out);
	*out = NULL;
	return hbbp_exit_code(err);
}

int cmd_reader__fail(struct perf_reader *r, int err)
{
	fprintf(stderr, "hbbp-convert: %s\n", perf_reader__errmsg(r));
	perf_reader__delete(r);
	return hbbp_exit_code(err);
}
