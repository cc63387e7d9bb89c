/* writetest: writes a synthetic conversion result through writer__write(), for the writer
 * shell tests (fault shim, kill, paths, round trips through independent readers).
 *
 *   writetest [-a] [-f] [-l] [-x] [-r] [-n ROWS] [-b BLOCKS] [-k SCALE] [-t TAG] FORMAT PATH
 *
 *   -a  --append (SQLite)          -f  --force (replace an existing database)
 *   -l  use the environment's locale (setlocale "")
 *   -x  an extra mix column "extra" (a schema that differs from the default)
 *   -n  mix rows (default 12)      -b  blocks (default 3; 4 instructions each)
 *   -k  thread_blocks counts are multiplied by SCALE (default 1)
 *   -t  the meta value "tag"
 *   -r  a handler of its own on SIGALRM and a timer raising it every millisecond during the
 *       write (as a host program's timer would); the count of alarms caught goes to stderr
 *
 * The values are a documented function of the row index, so tests can recompute them
 * independently (tests/cli/writers_roundtrip.py):
 *   mix row i: module = MODULES[i % 10], symbol = "sym_<i>", mnemonic = MNEMONICS[i % 5],
 *              n = i * 1000000007 - 4000000000000000000, count = i * 1.1 + 1.0 / 3 (real),
 *              share = count / 7 (real); row 3 mod 10 has module NULL (see MODULES).
 *   blocks b = 0..B-1: module_id 1 + b % 2, symbol_id 1 + b % 3, address 0x1000 + 16 * b,
 *              executions (b + 1) * SCALE, instructions 4 times that,
 *              four instructions mnemonic MNEMONICS[(b + k) % 5], k = 0..3;
 *   thread_blocks: (pid 100, tid 100 + b % 2, comm "worker") count (b + 1) * SCALE.
 * Exit code: 0, or hbbp_exit_code() of the error (3 for I/O), message on stderr.
 */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "util/hbbp_err.h"
#include "writers/schema.h"
#include "writers/writer.h"

static const char *const MODULES[10] = {
	"prog", "lib,c.so.6", "say \"hi\"", NULL, "multi\nline", "crlf\r\nx", "",
	"h\xc3\xa9llo \xe2\x82\xac", " padded ", "tab\there",
};
static const char *const MNEMONICS[5] = { "mov", "add", "vfmadd231ps", "jne", "ret" };

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* -r: the program's own SIGALRM handler and a 1 ms interval timer (0 or -errno) */
static int alarm_start(void)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL))
		return -errno;
	return 0;
}

static void alarm_stop(void)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };

	setitimer(ITIMER_REAL, &off, NULL);
}

static void log_stderr(enum hbbp_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "writetest: %s%s\n", level == HBBP_LOG_ERROR ? "error: " : "", msg);
}

static int fill(struct result *r, long rows, long blocks, long scale, const char *tag, int extra)
{
	static const char *const mix_cols[] = { "module:text", "symbol:text", "mnemonic:text",
						"n:int", "count:real", "share:real", "extra:int" };
	struct result_table *t;
	struct result_cell *c;
	char buf[64];
	long i, k;
	int err;

	err = result__meta_text(r, "file", "synthetic.data");
	err = err ? err : result__meta_text(r, "tag", tag);
	err = err ? err : result__meta_int(r, "cutoff", 18);
	err = err ? err : result__meta_text(r, "method", "hbbp");
	err = err ? err : result__warn(r, "synthetic result, %ld rows", rows);
	err = err ? err : result__warn(r, "a \"quoted\", multi\nline warning");
	if (err)
		return err;

	err = result__add_table(r, "events", schema_events, SCHEMA_NR(schema_events), &t);
	for (i = 0; !err && i < 2; i++) {
		if (!(c = result_table__add_row(t)))
			return -ENOMEM;
		result_cell__int(&c[0], i);
		err = result_cell__text(t, &c[1], i ? "br_inst_retired.near_taken" :
						      "inst_retired.any");
		result_cell__int(&c[6], i ? 400009 : 2000003);
		err = err ? err : result_cell__text(t, &c[9], i ? "lbr" : "ebs");
	}
	err = err ? err : result__add_table(r, "modules", schema_modules,
					    SCHEMA_NR(schema_modules), &t);
	for (i = 1; !err && i <= 2; i++) {
		if (!(c = result_table__add_row(t)))
			return -ENOMEM;
		result_cell__int(&c[0], i);
		err = result_cell__text(t, &c[1], i == 1 ? "prog" : "libc.so.6");
		err = err ? err : result_cell__text(t, &c[2], i == 1 ? "/usr/bin/prog" :
							      "/lib/libc.so.6");
		err = err ? err : result_cell__text(t, &c[5], "ok");
	}
	err = err ? err : result__add_table(r, "symbols", schema_symbols,
					    SCHEMA_NR(schema_symbols), &t);
	for (i = 1; !err && i <= 3; i++) {
		if (!(c = result_table__add_row(t)))
			return -ENOMEM;
		result_cell__int(&c[0], i);
		result_cell__int(&c[1], 1 + (i - 1) % 2);
		snprintf(buf, sizeof(buf), "func_%ld", i);
		err = result_cell__text(t, &c[2], buf);
		result_cell__int(&c[3], 0x1000 * i);
		result_cell__int(&c[4], 0x100);
	}
	err = err ? err : result__add_table(r, "blocks", schema_blocks, SCHEMA_NR(schema_blocks),
					    &t);
	for (i = 0; !err && i < blocks; i++) {
		if (!(c = result_table__add_row(t)))
			return -ENOMEM;
		result_cell__int(&c[0], i);
		result_cell__int(&c[1], 1 + i % 2);
		result_cell__int(&c[2], 1 + i % 3);
		result_cell__int(&c[3], 0x1000 + 16 * i);
		result_cell__int(&c[4], 4);
		result_cell__int(&c[5], 16);
		result_cell__real(&c[7], (double)((i + 1) * scale));
		result_cell__real(&c[8], (double)((i + 1) * scale) * 0.9);
		result_cell__real(&c[9], (double)((i + 1) * scale) * 1.1);
		result_cell__real(&c[10], (double)((i + 1) * scale));
		result_cell__real(&c[11], (double)((i + 1) * scale));
		err = result_cell__text(t, &c[12], "lbr");
		result_cell__real(&c[17], (double)((i + 1) * scale) * 4);
	}
	err = err ? err : result__add_table(r, "instructions", schema_instructions,
					    SCHEMA_NR(schema_instructions), &t);
	for (i = 0; !err && i < blocks; i++) {
		for (k = 0; !err && k < 4; k++) {
			if (!(c = result_table__add_row(t)))
				return -ENOMEM;
			result_cell__int(&c[0], i);
			result_cell__int(&c[1], 1 + i % 2);
			result_cell__int(&c[2], 0x1000 + 16 * i + 4 * k);
			result_cell__int(&c[3], k);
			err = result_cell__text(t, &c[4], MNEMONICS[(i + k) % 5]);
			err = err ? err : result_cell__text(t, &c[6], (i + k) % 5 == 2 ? "avx2" :
											 "base");
		}
	}
	err = err ? err : result__add_table(r, "thread_blocks", schema_thread_blocks,
					    SCHEMA_NR(schema_thread_blocks), &t);
	for (i = 0; !err && i < blocks; i++) {
		if (!(c = result_table__add_row(t)))
			return -ENOMEM;
		result_cell__int(&c[0], 100);
		result_cell__int(&c[1], 100 + i % 2);
		err = result_cell__text(t, &c[2], "worker");
		result_cell__int(&c[3], i);
		result_cell__real(&c[4], (double)((i + 1) * scale));
	}
	err = err ? err : result__add_table(r, "mix", mix_cols, extra ? 7 : 6, &t);
	for (i = 0; !err && i < rows; i++) {
		double count = (double)i * 1.1 + 1.0 / 3;

		if (!(c = result_table__add_row(t)))
			return -ENOMEM;
		err = result_cell__text(t, &c[0], MODULES[i % 10]);
		snprintf(buf, sizeof(buf), "sym_%ld", i);
		err = err ? err : result_cell__text(t, &c[1], buf);
		err = err ? err : result_cell__text(t, &c[2], MNEMONICS[i % 5]);
		result_cell__int(&c[3], (int64_t)i * 1000000007 - 4000000000000000000LL);
		result_cell__real(&c[4], count);
		result_cell__real(&c[5], count / 7);
		if (extra)
			result_cell__int(&c[6], i);
	}
	return err;
}

int main(int argc, char **argv)
{
	struct writer_opts opts = { .last = true };	/* one output, as the converter's */
	long rows = 12, blocks = 3, scale = 1;
	const char *tag = "";
	struct result *r = NULL;
	enum writer_format fmt;
	int opt, err, extra = 0, own_alarm = 0;

	hbbp_log_set(log_stderr, NULL, HBBP_LOG_WARN);
	while ((opt = getopt(argc, argv, "aflxrn:b:k:t:")) != -1) {
		switch (opt) {
		case 'a': opts.append = true; break;
		case 'f': opts.force = true; break;
		case 'l': setlocale(LC_ALL, ""); break;
		case 'x': extra = 1; break;
		case 'r': own_alarm = 1; break;
		case 'n': rows = atol(optarg); break;
		case 'b': blocks = atol(optarg); break;
		case 'k': scale = atol(optarg); break;
		case 't': tag = optarg; break;
		default: goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	fmt = writer_format_from_name(argv[optind]);
	if (fmt == WRITER_NONE)
		goto usage;
	err = result__new(&r);
	if (!err)
		err = fill(r, rows, blocks, scale, tag, extra);
	if (err) {
		fprintf(stderr, "writetest: error: building the result: %s\n", hbbp_strerror(err));
		result__delete(r);
		return HBBP_EXIT_IO;
	}
	if (own_alarm && (err = alarm_start())) {
		fprintf(stderr, "writetest: error: cannot start the timer: %s\n", strerror(-err));
		result__delete(r);
		return HBBP_EXIT_IO;
	}
	err = writer__write(r, argv[optind + 1], fmt, &opts);
	if (own_alarm) {
		alarm_stop();
		fprintf(stderr, "writetest: %ld alarms caught\n", (long)alarms);
	}
	result__delete(r);
	return hbbp_exit_code(err);
usage:
	fprintf(stderr, "usage: writetest [-a] [-f] [-l] [-x] [-r] [-n ROWS] [-b BLOCKS] [-k SCALE]"
		" [-t TAG] csv|json|jsonl|sqlite PATH\n");
	return HBBP_EXIT_USAGE;
}
