/* The reader-only commands: `hbbp-convert dump [--limit N] FILE`, one line per sample in
 * delivery order, "EVENT PID/TID IP PERIOD [FROM/TO ...]" (addresses lowercase 0x hex,
 * branch entries newest first); and `hbbp-convert stats FILE`, which reads the whole file and
 * prints one JSON object with the header facts, the events (attr, sample count, role) and
 * record counts by type. What they share: their one FILE operand, opening the reader with its
 * one-line error, the events' roles (hbbp/method/roles.h, after --ebs-event and --lbr-event)
 * and ending a read that failed. Uses only the reader's public API.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/cli/options.h"
#include "hbbp/method/roles.h"
#include "reader/perf_reader.h"
#include "util/hbbp_err.h"
#include "util/json_escape.h"

/* The FILE operand of a (one): 0, or the exit code after one message. */
static int cmd_reader__path(const struct cli_args *a, const char **path)
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

/* Opens path; on failure logs the reader's message and returns the exit code, else 0. */
static int cmd_reader__open(struct perf_reader **r, const char *path,
			    const struct perf_reader_opts *opts)
{
	const char *msg = NULL;
	int err = perf_reader__open(r, path, opts, &msg);

	if (!err)
		return 0;
	pr_err("%s", msg ? msg : hbbp_strerror(err));
	return hbbp_exit_code(err);
}

/* The roles of r's events (a malloc'd array, *out); on failure (a named event absent or
 * unusable) logs the message and returns the exit code, else 0. */
static int cmd_reader__roles(const struct perf_reader *r, const struct cli_args *a,
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

/* Prints the reader's error message for err < 0 (after what stdout holds), returns the exit
 * code. */
static int cmd_reader__fail(const struct perf_reader *r, int err)
{
	fflush(stdout);
	pr_err("%s", perf_reader__errmsg(r));
	return hbbp_exit_code(err);
}

/* After a whole read: warnings for a recording read in part (truncated: bytes missing,
 * corrupt header sections skipped, an empty build-id list), stdout flushed; the exit code. */
static int cmd_reader__end(const struct perf_reader *r, const char *path)
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
	if (!fflush(stdout) && !ferror(stdout))
		return HBBP_EXIT_OK;
	pr_err("write error: %s", strerror(errno));
	return HBBP_EXIT_IO;
}

/* appends "0x<hex>" / decimal without printf: dump is output-bound */
static char *put_hex(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;

	*p++ = '0';
	*p++ = 'x';
	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_dec(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static const char dump_usage[] =
"usage: hbbp-convert dump [--limit N] [--no-sort] [--ebs-event NAME] [--lbr-event NAME] FILE\n"
"One line per sample, in delivery order (time order unless --no-sort):\n"
"EVENT PID/TID IP PERIOD [FROM/TO ...], branch entries newest first.\n"
"\n";

/* One sample's line into line: its end. */
static char *sample_line(char *line, const struct perf_sample *s)
{
	char *p = line;
	uint64_t b;

	*p++ = ' ';
	p = put_dec(p, s->pid);
	*p++ = '/';
	p = put_dec(p, s->tid);
	*p++ = ' ';
	p = put_hex(p, s->ip);
	*p++ = ' ';
	p = put_dec(p, s->period);
	for (b = 0; b < s->nr_branches; b++) {
		if (p - line > 4096 - 64) {
			fwrite(line, 1, (size_t)(p - line), stdout);
			p = line;
		}
		*p++ = ' ';
		p = put_hex(p, s->branches[b].from);
		*p++ = '/';
		p = put_hex(p, s->branches[b].to);
	}
	*p++ = '\n';
	return p;
}

int cmd_dump(int argc, char **argv)
{
	struct perf_reader_opts opts = { 0 };
	struct hbbp_event_role *roles;
	const struct perf_record *rec;
	struct perf_reader *r = NULL;
	struct cli_args a;
	const char *path;
	uint64_t limit, n = 0;
	static char obuf[1 << 16];
	int err = 0, rc = cli_args__parse(&a, CLI_DUMP, dump_usage, argc, argv);

	if (rc || a.done || (rc = cmd_reader__path(&a, &path)))
		goto out;
	limit = cli_args__given(&a, "limit") ? a.limit : UINT64_MAX;
	opts.no_sort = a.no_sort;
	if ((rc = cmd_reader__open(&r, path, &opts)))
		goto out;
	/* an --ebs-event / --lbr-event that names no usable event is an error here too */
	if ((rc = cmd_reader__roles(r, &a, &roles)))
		goto out;
	free(roles);
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	while (n < limit && (err = perf_reader__next(r, &rec)) > 0) {
		const struct perf_event_info *ev;
		char line[4096];

		if (rec->type != PERF_RECORD_SAMPLE)
			continue;
		ev = perf_reader__event(r, (size_t)rec->evidx);
		fputs(ev && ev->name ? ev->name : "?", stdout);
		fwrite(line, 1, (size_t)(sample_line(line, &rec->sample) - line), stdout);
		n++;
	}
	rc = err < 0 ? cmd_reader__fail(r, err) : cmd_reader__end(r, path);
out:
	perf_reader__delete(r);
	cli_args__exit(&a);
	return rc;
}

static void json_put(void *ctx, const char *s, size_t n)
{
	fwrite(s, 1, n, ctx);
}

static void json_str(const char *s)
{
	if (!s)
		fputs("null", stdout);
	else
		json_escape(s, json_put, stdout);
}

static const char *tf(bool b) { return b ? "true" : "false"; }

static const char stats_usage[] =
"usage: hbbp-convert stats [--ebs-event NAME] [--lbr-event NAME] FILE\n"
"One JSON object: the header, the events and their roles, the records, what was missing.\n\n";

/* The header's facts and what was missing. */
static void print_header(const struct perf_reader *r, const char *path)
{
	const struct perf_header_info *h = perf_reader__header(r);
	const struct perf_reader_stats *st = perf_reader__stats(r);
	const char *const text[][2] = {
		{ "file", path }, { "perf_version", h->version }, { "hostname", h->hostname },
		{ "osrelease", h->osrelease }, { "arch", h->arch }, { "cpudesc", h->cpudesc },
		{ "cpuid", h->cpuid }, { "cmdline", h->cmdline },
	};
	bool first = true;
	size_t i;
	unsigned t;

	for (i = 0; i < sizeof(text) / sizeof(text[0]); i++) {
		printf("%s\n  \"%s\": ", i ? "," : "{", text[i][0]);
		json_str(text[i][1]);
	}
	printf(",\n  \"nr_cpus_avail\": %u,\n  \"nr_cpus_online\": %u", h->nr_cpus_avail,
	       h->nr_cpus_online);
	printf(",\n  \"total_mem_kb\": %" PRIu64 ",\n  \"data_offset\": %" PRIu64 ",\n  "
	       "\"data_size\": %" PRIu64, h->total_mem_kb, h->data_offset, h->data_size);
	printf(",\n  \"pipe\": %s,\n  \"compressed\": %s,\n  \"directory\": %s,\n"
	       "  \"byte_swapped\": %s,\n  \"truncated\": %s,\n  \"truncated_bytes\": %" PRIu64,
	       tf(h->is_pipe), tf(h->compressed), tf(h->is_dir), tf(h->needs_swap),
	       tf(h->truncated), st->truncated_bytes);
	printf(",\n  \"partial_bytes\": %" PRIu64 ",\n  \"bad_features\": [", st->partial_bytes);
	for (t = 0; t < 64; t++)
		if (st->bad_features & (1ULL << t)) {
			char buf[32];

			printf("%s\"%s\"", first ? "" : ", ", perf_feature__name(t, buf, sizeof(buf)));
			first = false;
		}
	printf("],\n  \"empty_build_ids\": %s,\n  \"kcore_dir\": ", tf(st->empty_build_ids));
	json_str(h->kcore_dir);
	printf(",\n  \"branch_stack\": %s,\n  \"tracing_data\": %s", tf(h->has_branch_stack),
	       tf(h->tep != NULL));
	printf(",\n  \"build_ids\": [");
	for (i = 0; i < h->nr_build_ids; i++) {
		const struct perf_build_id_entry *b = &h->build_ids[i];
		char hex[41];

		printf("%s\n    {\"pid\": %d, \"cpumode\": %u, \"build_id\": \"%s\", \"file\": ",
		       i ? "," : "", b->pid, b->cpumode, hbbp_build_id_hex(b->id, b->size, hex));
		json_str(b->filename);
		putchar('}');
	}
	printf("%s]", h->nr_build_ids ? "\n  " : "");
}

/* The events with their roles, the records by type, the counts of the anomalies. */
static void print_events(const struct perf_reader *r, const struct hbbp_event_role *roles)
{
	const struct perf_reader_stats *st = perf_reader__stats(r);
	size_t i, nr = perf_reader__nr_events(r);
	bool first = true;
	unsigned t;

	printf(",\n  \"events\": [");
	for (i = 0; i < nr; i++) {
		const struct perf_event_info *e = perf_reader__event(r, i);

		printf("%s\n    {\"name\": ", i ? "," : "");
		json_str(e->name);
		printf(", \"type\": %u, \"config\": \"0x%" PRIx64 "\", \"sample_type\": \"0x%"
		       PRIx64 "\", \"branch_sample_type\": \"0x%" PRIx64 "\", ", e->attr.type,
		       e->attr.config, e->attr.sample_type, e->attr.branch_sample_type);
		printf("\"%s\": %" PRIu64, perf_evattr__freq(&e->attr) ? "freq" : "period",
		       e->attr.sample_period);
		printf(", \"samples\": %" PRIu64 ", \"lost\": %" PRIu64 ", \"throttled\": %"
		       PRIu64 ", \"role\": \"%s\", \"role_reason\": ", e->nr_samples, e->nr_lost,
		       e->nr_throttle, hbbp_role_name(roles[i].role));
		json_str(roles[i].reason);
		putchar('}');
	}
	printf("%s],\n  \"records\": {", nr ? "\n  " : "");
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
	       ",\n  \"nested_compressed\": %" PRIu64 "\n}\n", st->nr_compressed_bytes,
	       st->nr_decompressed_bytes, st->nr_nested_compressed);
}

int cmd_stats(int argc, char **argv)
{
	struct perf_reader_opts opts = { .no_sort = true };
	struct hbbp_event_role *roles = NULL;
	const struct perf_record *rec;
	struct perf_reader *r = NULL;
	struct cli_args a;
	const char *path;
	int err, rc = cli_args__parse(&a, CLI_STATS, stats_usage, argc, argv);

	if (rc || a.done || (rc = cmd_reader__path(&a, &path)) ||
	    (rc = cmd_reader__open(&r, path, &opts)))
		goto out;
	while ((err = perf_reader__next(r, &rec)) > 0)
		;
	if (err < 0) {
		rc = cmd_reader__fail(r, err);
		goto out;
	}
	/* the roles of every event, once all are known (pipe mode: attrs along the stream) */
	if ((rc = cmd_reader__roles(r, &a, &roles)))
		goto out;
	print_header(r, path);
	print_events(r, roles);
	rc = cmd_reader__end(r, path);
out:
	perf_reader__delete(r);
	free(roles);
	cli_args__exit(&a);
	return rc;
}
