/* hbbp-convert stats FILE: reads the whole file and prints one JSON object with the header
 * facts, the events (attr, sample count, role) and record counts by type. Uses only the
 * reader's public API.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hbbp/cli/cmd_reader.h"
#include "hbbp/cli/commands.h"
#include "reader/perf_reader.h"
#include "util/hbbp_err.h"

static void json_str(const char *s)
{
	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c < 0x20 || c >= 0x7f)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static const char *tf(bool b) { return b ? "true" : "false"; }

static const char stats_usage[] =
	"usage: hbbp-convert stats [--ebs-event NAME] [--lbr-event NAME] FILE\n";

static int usage(void)
{
	fputs(stats_usage, stderr);
	return HBBP_EXIT_USAGE;
}

int cmd_stats(int argc, char **argv)
{
	struct perf_reader_opts opts = { .no_sort = true };
	const struct perf_reader_stats *st;
	const struct perf_header_info *h;
	const struct perf_record *rec;
	struct perf_reader *r;
	const char *path = NULL;
	size_t i, nr;
	unsigned t;
	int err, a;
	bool first;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) {
			fputs(stats_usage, stdout);
			return HBBP_EXIT_OK;
		}
		if (cmd_reader__arg(argc, argv, &a, &opts, &path))
			return usage();
	}
	if (!path) {
		fprintf(stderr, "hbbp-convert: error: stats: no FILE given\n");
		return usage();
	}
	if ((err = cmd_reader__open(&r, path, &opts)))
		return err;
	while ((err = perf_reader__next(r, &rec)) > 0)
		;
	if (err < 0)
		return cmd_reader__fail(r, err);
	h = perf_reader__header(r);
	st = perf_reader__stats(r);
	printf("{\n  \"file\": ");
	json_str(path);
	printf(",\n  \"perf_version\": ");
	json_str(h->version);
	printf(",\n  \"hostname\": ");
	json_str(h->hostname);
	printf(",\n  \"osrelease\": ");
	json_str(h->osrelease);
	printf(",\n  \"arch\": ");
	json_str(h->arch);
	printf(",\n  \"cpudesc\": ");
	json_str(h->cpudesc);
	printf(",\n  \"cpuid\": ");
	json_str(h->cpuid);
	printf(",\n  \"cmdline\": ");
	json_str(h->cmdline);
	printf(",\n  \"nr_cpus_avail\": %u,\n  \"nr_cpus_online\": %u", h->nr_cpus_avail,
	       h->nr_cpus_online);
	printf(",\n  \"total_mem_kb\": %" PRIu64, h->total_mem_kb);
	printf(",\n  \"data_offset\": %" PRIu64 ",\n  \"data_size\": %" PRIu64, h->data_offset,
	       h->data_size);
	printf(",\n  \"pipe\": %s,\n  \"compressed\": %s,\n  \"directory\": %s,\n"
	       "  \"byte_swapped\": %s,\n  \"truncated\": %s,\n  \"truncated_bytes\": %" PRIu64,
	       tf(h->is_pipe), tf(h->compressed), tf(h->is_dir), tf(h->needs_swap),
	       tf(h->truncated), st->truncated_bytes);
	printf(",\n  \"partial_bytes\": %" PRIu64 ",\n  \"bad_features\": [", st->partial_bytes);
	first = true;
	for (t = 0; t < 64; t++)
		if (st->bad_features & (1ULL << t)) {
			char buf[32];

			printf("%s\"%s\"", first ? "" : ", ", perf_feature__name(t, buf, sizeof(buf)));
			first = false;
		}
	printf("],\n  \"empty_build_ids\": %s", tf(st->empty_build_ids));
	printf(",\n  \"kcore_dir\": ");
	json_str(h->kcore_dir);
	printf(",\n  \"branch_stack\": %s,\n  \"tracing_data\": %s", tf(h->has_branch_stack),
	       tf(h->tep != NULL));
	printf(",\n  \"build_ids\": [");
	for (i = 0; i < h->nr_build_ids; i++) {
		const struct perf_build_id_entry *b = &h->build_ids[i];
		char hex[41];

		printf("%s\n    {\"pid\": %d, \"cpumode\": %u, \"build_id\": \"%s\", \"file\": ",
		       i ? "," : "", b->pid, b->cpumode, perf_build_id__hex(b->id, b->size, hex));
		json_str(b->filename);
		putchar('}');
	}
	printf("%s]", h->nr_build_ids ? "\n  " : "");
	printf(",\n  \"events\": [");
	nr = perf_reader__nr_events(r);
	for (i = 0; i < nr; i++) {
		const struct perf_event_info *e = perf_reader__event(r, i);

		printf("%s\n    {\"name\": ", i ? "," : "");
		json_str(e->name);
		printf(", \"type\": %u, \"config\": \"0x%" PRIx64 "\", \"sample_type\": \"0x%"
		       PRIx64 "\", \"branch_sample_type\": \"0x%" PRIx64 "\", ", e->attr.type,
		       e->attr.config, e->attr.sample_type, e->attr.branch_sample_type);
		if (perf_evattr__freq(&e->attr))
			printf("\"freq\": %" PRIu64, e->attr.sample_period);
		else
			printf("\"period\": %" PRIu64, e->attr.sample_period);
		printf(", \"samples\": %" PRIu64 ", \"lost\": %" PRIu64 ", \"throttled\": %"
		       PRIu64 ", \"role\": \"%s\", \"role_reason\": ", e->nr_samples, e->nr_lost,
		       e->nr_throttle, perf_role_name(e->role));
		json_str(e->role_reason);
		putchar('}');
	}
	printf("%s],\n  \"records\": {", nr ? "\n  " : "");
	first = true;
	for (t = 0; t < PERF_RECORD_TYPE_MAX; t++) {
		const char *name = perf_record_type_name(t);

		if (!st->nr_records[t])
			continue;
		if (name)
			printf("%s\"%s\": %" PRIu64, first ? "" : ", ", name, st->nr_records[t]);
		else
			printf("%s\"type%u\": %" PRIu64, first ? "" : ", ", t, st->nr_records[t]);
		first = false;
	}
	printf("},\n  \"unknown_types\": %" PRIu64 ",\n  \"unknown_id_samples\": %" PRIu64,
	       st->nr_unknown_type, st->nr_unknown_id);
	printf(",\n  \"lost\": %" PRIu64 ",\n  \"lost_samples\": %" PRIu64
	       ",\n  \"throttled\": %" PRIu64 ",\n  \"unthrottled\": %" PRIu64,
	       st->nr_lost, st->nr_lost_samples, st->nr_throttle, st->nr_unthrottle);
	printf(",\n  \"compressed_bytes\": %" PRIu64 ",\n  \"decompressed_bytes\": %" PRIu64
	       "\n}\n", st->nr_compressed_bytes, st->nr_decompressed_bytes);
	cmd_reader__warn_partial(r, path);
	perf_reader__delete(r);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "hbbp-convert: error: write error: %s\n", strerror(errno));
		return HBBP_EXIT_IO;
	}
	return HBBP_EXIT_OK;
}
