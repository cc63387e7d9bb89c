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

static const char dump_usage[] =
	"usage: hbbp-convert dump [--limit N] [--no-sort] [--ebs-event NAME] [--lbr-event NAME] "
	"FILE\n";

static int usage(void)
{
	fputs(dump_usage, stderr);
	return HBBP_EXIT_USAGE;
}

int cmd_dump(int argc, char **argv)
{
	struct perf_reader_opts opts = { 0 };
	const struct perf_record *rec;
	struct perf_reader *r;
	const char *path = NULL;
	uint64_t limit = UINT64_MAX, n = 0;
	static char obuf[1 << 16];
	int i, err;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(dump_usage, stdout);
			return HBBP_EXIT_OK;
		} else if (!strcmp(argv[i], "--limit")) {
			char *end;

			if (i + 1 >= argc) {
				fprintf(stderr, "hbbp-convert: error: --limit needs a number\n");
				return usage();
			}
			errno = 0;
			limit = strtoull(argv[++i], &end, 10);
			if (errno || *end || !argv[i][0] || argv[i][0] == '-') {
				fprintf(stderr, "hbbp-convert: error: --limit: '%s' is not a number "
					"of records\n", argv[i]);
				return usage();
			}
		} else if (!strcmp(argv[i], "--no-sort")) {
			opts.no_sort = true;
		} else if (cmd_reader__arg(argc, argv, &i, &opts, &path)) {
			return usage();
		}
	}
	if (!path) {
		fprintf(stderr, "hbbp-convert: error: dump: no FILE given\n");
		return usage();
	}
	if ((err = cmd_reader__open(&r, path, &opts)))
		return err;
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	while (n < limit && (err = perf_reader__next(r, &rec)) > 0) {
		const struct perf_sample *s = &rec->sample;
		const struct perf_event_info *ev;
		char line[4096], *p;
		uint64_t b;

		if (rec->type != PERF_RECORD_SAMPLE)
			continue;
		ev = perf_reader__event(r, (size_t)rec->evidx);
		fputs(ev && ev->name ? ev->name : "?", stdout);
		p = line;
		*p++ = ' ';
		p = put_dec(p, s->pid);
		*p++ = '/';
		p = put_dec(p, s->tid);
		*p++ = ' ';
		p = put_hex(p, s->ip);
		*p++ = ' ';
		p = put_dec(p, s->period);
		for (b = 0; b < s->nr_branches; b++) {
			if (p - line > (long)sizeof(line) - 64) {
				fwrite(line, 1, (size_t)(p - line), stdout);
				p = line;
			}
			*p++ = ' ';
			p = put_hex(p, s->branches[b].from);
			*p++ = '/';
			p = put_hex(p, s->branches[b].to);
		}
		*p++ = '\n';
		fwrite(line, 1, (size_t)(p - line), stdout);
		n++;
	}
	if (err < 0) {
		fflush(stdout);
		return cmd_reader__fail(r, err);
	}
	cmd_reader__warn_partial(r, path);
	perf_reader__delete(r);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "hbbp-convert: error: write error: %s\n", strerror(errno));
		return HBBP_EXIT_IO;
	}
	return HBBP_EXIT_OK;
}
