/* SQLite writer: not yet available in this build. */
#include <errno.h>
#include "util/hbbp_err.h"
#include "writers/writer_int.h"

static int sqlite__open(struct writer_ctx *w)
{
	pr_err("%s: SQLite output is not available yet", w->path);
	return -HBBP_EUNSUPP;
}

static int sqlite__close(struct writer_ctx *w, bool ok)
{
	return 0;
}

const struct writer_ops sqlite_writer_ops = {
	.name = "sqlite",
	.sqlite = true,
	.open = sqlite__open,
	.close = sqlite__close,
};
