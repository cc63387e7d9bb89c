/* The operand, opening and error ending shared by `hbbp-convert dump` and `stats`
 * (hbbp/cli/cmd_reader.h). Uses only the reader's public API.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/cli/cmd_reader.h"
#include "util/hbbp_err.h"

int cmd_reader__path(const struct cli_args *a, const char **path)
{
	if (a->nr_operands == 1) {
		*path = a->operands[0];
		return 0;
	}
	if (a->nr_operands)
		pr_err("%s: one FILE only ('%s' and '%s')", cli_cmd_names[a->cmd], a->operands[0],
		       a->operands[1]);
	else
		pr_err("%s: no FILE given", cli_cmd_names[a->cmd]);
	return HBBP_EXIT_USAGE;
}

int cmd_reader__open(struct perf_reader **r, const char *path,
		     const struct perf_reader_opts *opts)
{
	const char *msg = NULL;
	int err = perf_reader__open(r, path, opts, &msg);

	if (!err)
		return 0;
	pr_err("%s", msg ? msg : hbbp_strerror(err));
	return hbbp_exit_code(err);
}

int cmd_reader__roles(const struct perf_reader *r, const struct cli_args *a,
		      struct hbbp_event_role **out)
{
	char msg[512];
	int err;

	*out = calloc(perf_reader__nr_events(r) + 1, sizeof(**out));
	if (!*out) {
		pr_err("%s", hbbp_strerror(-ENOMEM));
		return HBBP_EXIT_IO;
	}
	err = hbbp_roles__assign(r, a->conv.ebs_event, a->conv.lbr_event, *out, msg, sizeof(msg));
	if (!err)
		return 0;
	pr_err("%s", msg);
	free(*out);
	*out = NULL;
	return hbbp_exit_code(err);
}

int cmd_reader__fail(struct perf_reader *r, int err)
{
	pr_err("%s", perf_reader__errmsg(r));
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
		pr_warn("%s: truncated recording: %s%" PRIu64 " bytes missing, read up to the last "
			"complete record", path, st->truncated_bytes && (h->is_pipe ||
			!h->data_size) ? "at least " : "", st->truncated_bytes);
	for (f = 0; f < 64; f++)
		if (st->bad_features & (1ULL << f))
			pr_warn("%s: header section %s is corrupt: skipped", path,
				perf_feature__name(f, buf, sizeof(buf)));
	if (st->empty_build_ids)
		pr_warn("%s: the build-id list is empty: binaries cannot be checked against the "
			"recording", path);
}
