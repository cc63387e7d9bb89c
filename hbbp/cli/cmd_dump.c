/* hbbp-convert dump [--limit N] FILE: one line per sample in delivery order,
 * "EVENT PID/TID IP PERIOD [FROM/TO ...]" (addresses lowercase 0x hex, branch entries newest
 * first). Uses only the reader's public API.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/cli/cmd_reader.h"
#include "hbbp/cli/commands.h"
#include "hbbp/cli/options.h"
#include "reader/perf_reader.h"
#include "util/hbbp_err.h"

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

static const char usage_text[] =
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
	int err = 0, rc = cli_args__parse(&a, CLI_DUMP, usage_text, argc, argv);

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
	if (err < 0) {
		fflush(stdout);
		rc = cmd_reader__fail(r, err);
		r = NULL;
		goto out;
	}
	cmd_reader__warn_partial(r, path);
	if (fflush(stdout) || ferror(stdout)) {
		pr_err("write error: %s", strerror(errno));
		rc = HBBP_EXIT_IO;
	}
out:
	perf_reader__delete(r);
	cli_args__exit(&a);
	return rc;
}
