/* The conversion options shared by annotate, report and diff (hbbp/cli/convert_args.h).
 * Depends on hbbp/engine/convert.h, hbbp/train/model.h and libc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hbbp/cli/convert_args.h"
#include "hbbp/train/model.h"
#include "util/hbbp_err.h"

enum {
	OPT_METHOD = CONVERT_ARGS_FIRST, OPT_CUTOFF, OPT_MODEL, OPT_EBS_EVENT, OPT_LBR_EVENT,
	OPT_BUILDID_DIR, OPT_SYMFS, OPT_BINARY, OPT_IGNORE_BUILDID, OPT_VMLINUX, OPT_KALLSYMS,
	OPT_COMM, OPT_PID, OPT_USER, OPT_KERNEL, OPT_SPLIT,
};

static const struct option shared_opts[] = {
	{ "method", required_argument, NULL, OPT_METHOD },
	{ "cutoff", required_argument, NULL, OPT_CUTOFF },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "ebs-event", required_argument, NULL, OPT_EBS_EVENT },
	{ "lbr-event", required_argument, NULL, OPT_LBR_EVENT },
	{ "buildid-dir", required_argument, NULL, OPT_BUILDID_DIR },
	{ "symfs", required_argument, NULL, OPT_SYMFS },
	{ "binary", required_argument, NULL, OPT_BINARY },
	{ "ignore-build-id", no_argument, NULL, OPT_IGNORE_BUILDID },
	{ "vmlinux", required_argument, NULL, OPT_VMLINUX },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "user-only", no_argument, NULL, OPT_USER },
	{ "kernel-only", no_argument, NULL, OPT_KERNEL },
	{ "split", required_argument, NULL, OPT_SPLIT },
	{ "jobs", required_argument, NULL, 'j' },
	{ "quiet", no_argument, NULL, 'q' },
	{ NULL, 0, NULL, 0 },
};

const char convert_args__help[] =
"Conversion options (as for the conversion itself):\n"
"      --method M  --cutoff N  --model FILE  --ebs-event NAME  --lbr-event NAME\n"
"      --buildid-dir DIR  --symfs DIR  --binary NAME=PATH  --ignore-build-id\n"
"      --vmlinux FILE  --kallsyms FILE  --comm LIST  --pid LIST  --user-only\n"
"      --kernel-only  --split SIZE  -j, --jobs N  -q, --quiet\n";

void convert_args__init(struct convert_opts *o)
{
	/* it fails only on the default keys, which convert_args__finish parses again (and
	 * reports) after --by; the options are set either way */
	(void)convert_opts__init(o);
	o->jobs = 0;	/* convert_args__finish: the online CPUs, at most 8 (as the conversion) */
}

int convert_args__merge(const struct option *own, struct option *out, size_t cap)
{
	size_t n = 0, i;

	for (i = 0; own[i].name; i++) {
		if (n + 1 >= cap)
			return -1;
		out[n++] = own[i];
	}
	for (i = 0; shared_opts[i].name; i++) {
		if (n + 1 >= cap)
			return -1;
		out[n++] = shared_opts[i];
	}
	memset(&out[n], 0, sizeof(out[n]));
	return 0;
}

int convert_args__uint(const char *opt, const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-')
		goto bad;
	v = strtoul(s, &end, 10);
	if (*end || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	pr_err("%s: '%s' is not a number in 0..%lu", opt, s, max);
	return -1;
}

int convert_args__size(const char *opt, const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!*s || *s == '-')
		goto bad;
	v = strtoull(s, &end, 10);
	if (end == s)
		goto bad;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (*end || v > (UINT64_MAX >> shift))
		goto bad;
	*out = (uint64_t)v << shift;
	return 0;
bad:
	pr_err("%s: '%s' is not a size (a number with an optional K, M or G)", opt, s);
	return -1;
}

int convert_args__handle(struct convert_opts *o, int c, char *arg)
{
	unsigned long v;
	char err[512];

	switch (c) {
	case OPT_METHOD:
		if (!strcmp(arg, "hbbp"))
			o->method = HBBP_METHOD_HBBP;
		else if (!strcmp(arg, "ebs"))
			o->method = HBBP_METHOD_EBS;
		else if (!strcmp(arg, "lbr"))
			o->method = HBBP_METHOD_LBR;
		else {
			pr_err("--method: unknown method '%s' (hbbp, ebs, lbr)", arg);
			return -1;
		}
		o->method_given = true;
		return 1;
	case OPT_CUTOFF:
		if (convert_args__uint("--cutoff", arg, 1000000, &v))
			return -1;
		o->cutoff = (unsigned)v;
		return 1;
	case OPT_MODEL: {
		struct hbbp_model mdl;

		if (hbbp_model__load(arg, &mdl, err, sizeof(err))) {
			pr_err("--model: %s", err);
			return -2;
		}
		o->cutoff = mdl.cutoff;
		return 1;
	}
	case OPT_EBS_EVENT: o->ebs_event = arg; return 1;
	case OPT_LBR_EVENT: o->lbr_event = arg; return 1;
	case OPT_BUILDID_DIR: o->find.buildid_dir = arg; return 1;
	case OPT_SYMFS: o->find.symfs = arg; return 1;
	case OPT_BINARY: {
		char *eq = strchr(arg, '=');
		struct bbmap_binary_override *nb;

		if (!eq || eq == arg || !eq[1]) {
			pr_err("--binary: expected NAME=PATH, got '%s'", arg);
			return -1;
		}
		nb = realloc(o->binaries, (o->nr_binaries + 1) * sizeof(*nb));
		if (!nb) {
			pr_err("out of memory");
			return -2;
		}
		o->binaries = nb;
		*eq = 0;
		nb[o->nr_binaries].name = arg;
		nb[o->nr_binaries].path = eq + 1;
		o->nr_binaries++;
		return 1;
	}
	case OPT_IGNORE_BUILDID: o->find.ignore_build_id = true; return 1;
	case OPT_VMLINUX: o->find.vmlinux = arg; return 1;
	case OPT_KALLSYMS: o->find.kallsyms = arg; return 1;
	case OPT_COMM: o->mix.comm = arg; return 1;
	case OPT_PID: o->mix.pid = arg; return 1;
	case OPT_USER: o->mix.user_only = true; return 1;
	case OPT_KERNEL: o->mix.kernel_only = true; return 1;
	case OPT_SPLIT:
		return convert_args__size("--split", arg, &o->split_min) ? -1 : 1;
	case 'j':
		if (convert_args__uint("--jobs", arg, 1024, &v))
			return -1;
		if (!v) {
			pr_err("--jobs: at least 1");
			return -1;
		}
		o->jobs = (unsigned)v;
		return 1;
	case 'q': o->quiet = true; return 1;
	}
	return 0;
}

int convert_args__finish(struct convert_opts *o)
{
	char err[512];

	if (hbbp_mix__parse_keys(&o->mix, o->by, NULL, err, sizeof(err))) {
		pr_err("%s", err);
		return -1;
	}
	if (o->mix.user_only && o->mix.kernel_only) {
		pr_err("--user-only and --kernel-only exclude each other");
		return -1;
	}
	if (!o->jobs) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		o->jobs = n < 1 ? 1 : n > 8 ? 8 : (unsigned)n;
	}
	o->progress = !o->quiet && isatty(2);
	return 0;
}

void convert_args__exit(struct convert_opts *o)
{
	free(o->binaries);
	o->binaries = NULL;
	o->nr_binaries = 0;
}
