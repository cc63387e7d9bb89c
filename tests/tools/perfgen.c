/* perfgen: writes a perf.data file from a line-oriented text spec, with the project's
 * perf.data writer (samples/perfwrite/perf_writer.h). For golden tests, malformed inputs and
 * benchmarks. Depends only on the writer and the reader's structs.
 *
 * Usage: perfgen SPEC OUT.data      (SPEC '-' = stdin, OUT '-' = stdout, needs `option pipe`)
 * Errors: "perfgen: SPEC:LINE: message" on stderr, exit 2 (exit 3 for I/O errors).
 *
 * Spec: one directive per line; '#' starts a comment; tokens are separated by blanks and
 * are `word` or `key=value` (value may be "double quoted"). Numbers are decimal or 0x hex.
 * Lists are comma-separated. Options, header and events come before any record.
 *
 *   option pipe | swap | attr_size=N | compress=none|zstd|zstd2 | level=N
 *   header [hostname=S] [osrelease=S] [version=S] [arch=S] [cpudesc=S] [cpuid=S]
 *          [nrcpus=N] [cmdline="perf record ..."] [branch_stack]
 *   event  [name=S] [type=N] [config=N] [period=N | freq=N] [sample_type=LIST]
 *          [read_format=LIST] [branch_sample_type=LIST] [precise=0..3]
 *          [ids=N,N,...|none]   (default: one id, the event index + 1)
 *          [flags=LIST]         (disabled,inherit,pinned,exclusive,exclude_user,
 *                                exclude_kernel,exclude_hv,exclude_idle,mmap,comm,
 *                                inherit_stat,enable_on_exec,task,watermark,mmap_data,
 *                                exclude_host,exclude_guest,mmap2,comm_exec,use_clockid,
 *                                context_switch,ksymbol,bpf_event,cgroup,build_id)
 *          [sample_id_all=0|1]  (default 1)
 *          [config1= config2= config3= regs_user_mask= regs_intr_mask= stack_user=
 *           wakeup= bp_type= clockid= aux_watermark= max_stack= aux_sample_size=
 *           aux_action= sig_data=]
 *     sample_type: ip,tid,time,addr,read,callchain,id,cpu,period,stream_id,raw,
 *       branch_stack,regs_user,stack_user,weight,data_src,identifier,transaction,
 *       regs_intr,phys_addr,aux,cgroup,data_page_size,code_page_size,weight_struct
 *     read_format: total_time_enabled,total_time_running,id,group,lost
 *     branch_sample_type: user,kernel,hv,any,any_call,any_return,ind_call,abort_tx,in_tx,
 *       no_tx,cond,call_stack,ind_jump,call,no_flags,no_cycles,type_save,hw_index,
 *       priv_save,counters
 *   Records (the sample_id trailer, when the event has sample_id_all, takes
 *   pid/tid/time/id/stream_id/cpu from the same keys; id defaults to event 0's first id):
 *   comm   pid= tid= name=S [exec]
 *   mmap2  pid= tid= start= len= pgoff= file=S [buildid=HEX] [prot=N] [flags=N] [misc=M]
 *   mmap   pid= tid= start= len= pgoff= file=S [misc=M]
 *   fork | exit  pid= ppid= tid= ptid= [time=]
 *   sample [ev=INDEX|NAME] [misc=M] [ip= pid= tid= time= addr= id= stream_id= cpu= period=
 *          weight= data_src= transaction= phys_addr= cgroup= data_page_size=
 *          code_page_size= time_enabled= time_running=]
 *          [br=FROM/TO[/FLAGS[/CYCLES]],...]  FLAGS: a number, or letters M (mispred)
 *                                  P (predicted) X (in_tx) A (abort), '-' for none
 *          [hw_idx=N] [counters=N,...] [callchain=N,...] [raw=HEX] [aux=HEX]
 *          [read=VALUE[:ID[:LOST]],...] [regs_user=ABI:V,V,...] [regs_intr=ABI:V,...]
 *          [stack=HEX] [dyn_size=N]
 *     misc: user (default), kernel, hv, guest_kernel, guest_user, unknown, or a number;
 *       append +exact for EXACT_IP (e.g. misc=user+exact). id defaults to the event's
 *       first id, period to the event's period. time=+N advances a running clock by N
 *       and uses it (handy inside repeat).
 *   lost   id= n=
 *   throttle | unthrottle  time= id= [stream_id=]
 *   round                          FINISHED_ROUND
 *   buildid file=S id=HEX [pid=N (default -1)] [kernel|user|guest_kernel|guest_user]
 *   raw    type=N [misc=N] [hex=HEX]  any record, payload given as hex bytes
 *   repeat N ... end               repeats the enclosed lines (nestable)
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/perf_format.h"
#include "samples/perfwrite/perf_writer.h"
#include "util/hbbp_err.h"

#define MAX_TOK		64
#define MAX_LIST	256

struct tok {
	char *key;	/* the word, or the key of key=value */
	char *val;	/* NULL for a bare word */
};

struct line {
	char *buf;	/* the tokens point into it */
	int lineno;
	int ntok;
	struct tok tok[MAX_TOK];
};

struct gen {
	const char *spec_name;
	struct line *lines;
	int nr_lines;
	int cur_line;			/* for messages */
	struct perf_writer_opts opts;
	char *cmdline_store[MAX_LIST + 1];
	char *cmdline_buf;
	const char *out_path;
	struct perf_writer *w;
	bool records_started;
	/* events */
	int nr_ev;
	char *ev_name[4096];
	struct perf_evattr ev_attr[4096];
	uint64_t ev_id0[4096];
	uint64_t clock;
};

static struct gen g;

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "perfgen: %s:%d: ", g.spec_name, g.cur_line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (g.w)
		perf_writer__abort(g.w);
	exit(2);
}

static void check(int err, const char *what)
{
	if (err == -E2BIG)
		die("%s: record larger than 65535 bytes", what);
	if (err < 0)
		die("%s: %s", what, hbbp_strerror(err));
}

/* ---- lexing ---- */

static void tokenize(char *s, struct line *l)
{
	l->ntok = 0;
	for (;;) {
		char *key, *d;

		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
			s++;
		if (!*s || *s == '#')
			return;
		if (l->ntok == MAX_TOK)
			die("more than %d tokens", MAX_TOK);
		key = s;
		while (*s && *s != '=' && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
			s++;
		l->tok[l->ntok].key = key;
		l->tok[l->ntok].val = NULL;
		if (*s == '=') {
			*s++ = 0;
			l->tok[l->ntok].val = d = s;
			if (*s == '"') {
				s++;
				while (*s && *s != '"')
					*d++ = *s++;
				if (*s != '"')
					die("unterminated quoted value of '%s'", key);
				s++;
				if (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
					die("text after the quoted value of '%s'", key);
			} else {
				while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
					*d++ = *s++;
			}
			if (*s)
				s++;
			*d = 0;
		} else if (*s) {
			*s++ = 0;
		}
		l->ntok++;
	}
}

static void read_spec(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *buf = NULL;
	size_t cap = 0, cap_lines = 0;
	int lineno = 0;

	if (!f) {
		fprintf(stderr, "perfgen: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while (getline(&buf, &cap, f) >= 0) {
		struct line *l;

		lineno++;
		g.cur_line = lineno;
		if ((size_t)g.nr_lines == cap_lines) {	/* doubling: realloc copies the array */
			cap_lines = cap_lines ? 2 * cap_lines : 256;
			l = realloc(g.lines, cap_lines * sizeof(*l));
			if (!l)
				die("out of memory");
			g.lines = l;
		}
		l = &g.lines[g.nr_lines];
		l->lineno = lineno;
		l->buf = strdup(buf);
		if (!l->buf)
			die("out of memory");
		tokenize(l->buf, l);
		if (l->ntok)
			g.nr_lines++;
		else
			free(l->buf);
	}
	free(buf);
	if (ferror(f)) {
		fprintf(stderr, "perfgen: %s: read error\n", path);
		exit(2);
	}
	if (f != stdin)
		fclose(f);
}

/* ---- values ---- */

static uint64_t parse_u64(const char *key, const char *v)
{
	char *end;
	unsigned long long x;

	if (!v || !*v)
		die("'%s' needs a value", key);
	if (*v == '-') {
		long long sx;

		errno = 0;
		sx = strtoll(v, &end, 0);
		if (errno || *end)
			die("bad number '%s' for '%s'", v, key);
		return (uint64_t)sx;
	}
	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno || *end)
		die("bad number '%s' for '%s'", v, key);
	return x;
}

static uint32_t parse_u32(const char *key, const char *v)
{
	uint64_t x = parse_u64(key, v);

	if (x > 0xffffffffULL && x < 0xffffffff80000000ULL)
		die("'%s' out of range: %s", key, v);
	return (uint32_t)x;
}

static size_t parse_hex(const char *key, const char *v, uint8_t *out, size_t max)
{
	size_t n = strlen(v);

	if (n % 2)
		die("odd number of hex digits in '%s'", key);
	if (n / 2 > max)
		die("'%s' longer than %zu bytes", key, max);
	for (size_t i = 0; i < n / 2; i++) {
		unsigned int b;

		if (sscanf(v + 2 * i, "%2x", &b) != 1 || !strchr("0123456789abcdefABCDEF", v[2 * i]) ||
		    !strchr("0123456789abcdefABCDEF", v[2 * i + 1]))
			die("bad hex digits in '%s'", key);
		out[i] = (uint8_t)b;
	}
	return n / 2;
}

static size_t parse_list_u64(const char *key, const char *v, uint64_t *out, size_t max)
{
	char *copy = strdup(v), *save = NULL, *t;
	size_t n = 0;

	for (t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == max)
			die("more than %zu values in '%s'", max, key);
		out[n++] = parse_u64(key, t);
	}
	free(copy);
	return n;
}

struct name_bit {
	const char *name;
	uint64_t bit;
};

static const struct name_bit sample_bits[] = {
	{ "ip", PERF_SAMPLE_IP }, { "tid", PERF_SAMPLE_TID }, { "time", PERF_SAMPLE_TIME },
	{ "addr", PERF_SAMPLE_ADDR }, { "read", PERF_SAMPLE_READ },
	{ "callchain", PERF_SAMPLE_CALLCHAIN }, { "id", PERF_SAMPLE_ID },
	{ "cpu", PERF_SAMPLE_CPU }, { "period", PERF_SAMPLE_PERIOD },
	{ "stream_id", PERF_SAMPLE_STREAM_ID }, { "raw", PERF_SAMPLE_RAW },
	{ "branch_stack", PERF_SAMPLE_BRANCH_STACK }, { "regs_user", PERF_SAMPLE_REGS_USER },
	{ "stack_user", PERF_SAMPLE_STACK_USER }, { "weight", PERF_SAMPLE_WEIGHT },
	{ "data_src", PERF_SAMPLE_DATA_SRC }, { "identifier", PERF_SAMPLE_IDENTIFIER },
	{ "transaction", PERF_SAMPLE_TRANSACTION }, { "regs_intr", PERF_SAMPLE_REGS_INTR },
	{ "phys_addr", PERF_SAMPLE_PHYS_ADDR }, { "aux", PERF_SAMPLE_AUX },
	{ "cgroup", PERF_SAMPLE_CGROUP }, { "data_page_size", PERF_SAMPLE_DATA_PAGE_SIZE },
	{ "code_page_size", PERF_SAMPLE_CODE_PAGE_SIZE },
	{ "weight_struct", PERF_SAMPLE_WEIGHT_STRUCT }, { NULL, 0 },
};

static const struct name_bit read_bits[] = {
	{ "total_time_enabled", PERF_FORMAT_TOTAL_TIME_ENABLED },
	{ "total_time_running", PERF_FORMAT_TOTAL_TIME_RUNNING },
	{ "id", PERF_FORMAT_ID }, { "group", PERF_FORMAT_GROUP }, { "lost", PERF_FORMAT_LOST },
	{ NULL, 0 },
};

static const struct name_bit branch_bits[] = {
	{ "user", PERF_SAMPLE_BRANCH_USER }, { "kernel", PERF_SAMPLE_BRANCH_KERNEL },
	{ "hv", PERF_SAMPLE_BRANCH_HV }, { "any", PERF_SAMPLE_BRANCH_ANY },
	{ "any_call", PERF_SAMPLE_BRANCH_ANY_CALL },
	{ "any_return", PERF_SAMPLE_BRANCH_ANY_RETURN },
	{ "ind_call", PERF_SAMPLE_BRANCH_IND_CALL }, { "abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX },
	{ "in_tx", PERF_SAMPLE_BRANCH_IN_TX }, { "no_tx", PERF_SAMPLE_BRANCH_NO_TX },
	{ "cond", PERF_SAMPLE_BRANCH_COND }, { "call_stack", PERF_SAMPLE_BRANCH_CALL_STACK },
	{ "ind_jump", PERF_SAMPLE_BRANCH_IND_JUMP }, { "call", PERF_SAMPLE_BRANCH_CALL },
	{ "no_flags", PERF_SAMPLE_BRANCH_NO_FLAGS }, { "no_cycles", PERF_SAMPLE_BRANCH_NO_CYCLES },
	{ "type_save", PERF_SAMPLE_BRANCH_TYPE_SAVE }, { "hw_index", PERF_SAMPLE_BRANCH_HW_INDEX },
	{ "priv_save", PERF_SAMPLE_BRANCH_PRIV_SAVE }, { "counters", PERF_SAMPLE_BRANCH_COUNTERS },
	{ NULL, 0 },
};

static const struct name_bit flag_bits[] = {
	{ "disabled", 1ULL << 0 }, { "inherit", 1ULL << 1 }, { "pinned", 1ULL << 2 },
	{ "exclusive", 1ULL << 3 }, { "exclude_user", 1ULL << 4 },
	{ "exclude_kernel", 1ULL << 5 }, { "exclude_hv", 1ULL << 6 },
	{ "exclude_idle", 1ULL << 7 }, { "mmap", 1ULL << 8 }, { "comm", 1ULL << 9 },
	{ "inherit_stat", 1ULL << 11 }, { "enable_on_exec", 1ULL << 12 },
	{ "task", 1ULL << 13 }, { "watermark", 1ULL << 14 }, { "mmap_data", 1ULL << 17 },
	{ "exclude_host", 1ULL << 19 }, { "exclude_guest", 1ULL << 20 },
	{ "mmap2", 1ULL << 23 }, { "comm_exec", 1ULL << 24 }, { "use_clockid", 1ULL << 25 },
	{ "context_switch", 1ULL << 26 }, { "ksymbol", 1ULL << 29 },
	{ "bpf_event", 1ULL << 30 }, { "cgroup", 1ULL << 32 }, { "build_id", 1ULL << 34 },
	{ NULL, 0 },
};

static uint64_t parse_bits(const char *key, const char *v, const struct name_bit *tab)
{
	char *copy, *save = NULL, *t;
	uint64_t bits = 0;

	if (!v)
		die("'%s' needs a value", key);
	if (v[0] >= '0' && v[0] <= '9')
		return parse_u64(key, v);
	copy = strdup(v);
	for (t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct name_bit *nb;

		for (nb = tab; nb->name && strcmp(nb->name, t); nb++)
			;
		if (!nb->name)
			die("unknown %s '%s'", key, t);
		bits |= nb->bit;
	}
	free(copy);
	return bits;
}

static uint16_t parse_misc(const char *v)
{
	static const struct { const char *name; uint16_t mode; } modes[] = {
		{ "unknown", 0 }, { "kernel", 1 }, { "user", 2 }, { "hv", 3 },
		{ "guest_kernel", 4 }, { "guest_user", 5 },
	};
	char copy[64], *plus;
	uint16_t misc = 0;
	size_t i;

	if (v[0] >= '0' && v[0] <= '9')
		return (uint16_t)parse_u64("misc", v);
	snprintf(copy, sizeof(copy), "%s", v);
	plus = strchr(copy, '+');
	if (plus) {
		*plus++ = 0;
		if (strcmp(plus, "exact"))
			die("unknown misc modifier '%s'", plus);
		misc |= PERF_RECORD_MISC_EXACT_IP;
	}
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(modes[i].name, copy))
			return misc | modes[i].mode;
	die("unknown misc '%s'", v);
}

/* ---- directives ---- */

static const char *get(const struct line *l, const char *key)
{
	for (int i = 1; i < l->ntok; i++)
		if (!strcmp(l->tok[i].key, key))
			return l->tok[i].val ? l->tok[i].val : "";
	return NULL;
}

static bool has_word(const struct line *l, const char *word)
{
	for (int i = 1; i < l->ntok; i++)
		if (!l->tok[i].val && !strcmp(l->tok[i].key, word))
			return true;
	return false;
}

/* Every token must be one of the allowed keys (a trailing '!' marks a bare word). */
static void allow(const struct line *l, const char *const *keys)
{
	for (int i = 1; i < l->ntok; i++) {
		const char *const *k;
		bool ok = false;

		for (k = keys; *k && !ok; k++) {
			size_t n = strlen(*k);
			bool word = (*k)[n - 1] == '!';

			if (word)
				ok = !l->tok[i].val && !strncmp(l->tok[i].key, *k, n - 1) &&
				     strlen(l->tok[i].key) == n - 1;
			else
				ok = l->tok[i].val && !strcmp(l->tok[i].key, *k);
		}
		if (!ok)
			die("unexpected '%s%s' in '%s'", l->tok[i].key, l->tok[i].val ? "=" : "",
			    l->tok[0].key);
	}
}

static uint64_t num(const struct line *l, const char *key, uint64_t dflt)
{
	const char *v = get(l, key);

	return v ? parse_u64(key, v) : dflt;
}

static uint64_t need(const struct line *l, const char *key)
{
	const char *v = get(l, key);

	if (!v)
		die("'%s' needs '%s='", l->tok[0].key, key);
	return parse_u64(key, v);
}

static const char *need_str(const struct line *l, const char *key)
{
	const char *v = get(l, key);

	if (!v)
		die("'%s' needs '%s='", l->tok[0].key, key);
	return v;
}

static void do_option(const struct line *l)
{
	static const char *const keys[] = { "pipe!", "swap!", "attr_size", "compress", "level",
					    NULL };

	if (g.w)
		die("'option' after events or records");
	allow(l, keys);
	if (has_word(l, "pipe"))
		g.opts.pipe = true;
	if (has_word(l, "swap"))
		g.opts.swap = true;
	if (get(l, "attr_size"))
		g.opts.attr_size = parse_u32("attr_size", get(l, "attr_size"));
	if (get(l, "level"))
		g.opts.zstd_level = (int)parse_u32("level", get(l, "level"));
	if (get(l, "compress")) {
		const char *c = get(l, "compress");

		if (!strcmp(c, "none"))
			g.opts.compress = PERF_WRITER_COMPRESS_NONE;
		else if (!strcmp(c, "zstd"))
			g.opts.compress = PERF_WRITER_COMPRESS_ZSTD;
		else if (!strcmp(c, "zstd2"))
			g.opts.compress = PERF_WRITER_COMPRESS_ZSTD2;
		else
			die("unknown compress '%s' (none, zstd, zstd2)", c);
	}
}

static const char *dup_val(const struct line *l, const char *key)
{
	const char *v = get(l, key);

	return v ? strdup(v) : NULL;
}

static void do_header(const struct line *l)
{
	static const char *const keys[] = { "hostname", "osrelease", "version", "arch",
		"cpudesc", "cpuid", "nrcpus", "cmdline", "branch_stack!", NULL };
	const char *v;

	if (g.w)
		die("'header' after events or records");
	allow(l, keys);
	if (get(l, "hostname"))
		g.opts.hostname = dup_val(l, "hostname");
	if (get(l, "osrelease"))
		g.opts.osrelease = dup_val(l, "osrelease");
	if (get(l, "version"))
		g.opts.version = dup_val(l, "version");
	if (get(l, "arch"))
		g.opts.arch = dup_val(l, "arch");
	if (get(l, "cpudesc"))
		g.opts.cpudesc = dup_val(l, "cpudesc");
	if (get(l, "cpuid"))
		g.opts.cpuid = dup_val(l, "cpuid");
	if (get(l, "nrcpus"))
		g.opts.nr_cpus = parse_u32("nrcpus", get(l, "nrcpus"));
	if (has_word(l, "branch_stack"))
		g.opts.branch_stack = true;
	v = get(l, "cmdline");
	if (v) {
		char *save = NULL, *t;
		int n = 0;

		g.cmdline_buf = strdup(v);
		for (t = strtok_r(g.cmdline_buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
			if (n == MAX_LIST)
				die("cmdline has more than %d words", MAX_LIST);
			g.cmdline_store[n++] = t;
		}
		g.cmdline_store[n] = NULL;
		g.opts.cmdline = (const char *const *)g.cmdline_store;
	}
}

static void open_writer(void)
{
	int err;

	if (g.w)
		return;
	if (!strcmp(g.out_path, "-") && !g.opts.pipe)
		die("output '-' needs 'option pipe'");
	err = perf_writer__open(&g.w, g.out_path, &g.opts);
	if (err < 0) {
		fprintf(stderr, "perfgen: %s: %s\n", g.out_path, hbbp_strerror(err));
		exit(err == -EINVAL ? 2 : 3);
	}
}

static void do_event(const struct line *l)
{
	static const char *const keys[] = { "name", "type", "config", "period", "freq",
		"sample_type", "read_format", "branch_sample_type", "precise", "ids", "flags",
		"sample_id_all", "config1", "config2", "config3", "regs_user_mask",
		"regs_intr_mask", "stack_user", "wakeup", "bp_type", "clockid", "aux_watermark",
		"max_stack", "aux_sample_size", "aux_action", "sig_data", NULL };
	struct perf_evattr a = { 0 };
	uint64_t ids[MAX_LIST];
	size_t nr_ids = 1;
	const char *v;
	int idx;

	open_writer();
	if (g.records_started)
		die("'event' after records");
	if (g.nr_ev == 4096)
		die("too many events");
	allow(l, keys);
	a.type = parse_u32("type", get(l, "type") ? get(l, "type") : "0");
	a.config = num(l, "config", 0);
	if (get(l, "freq")) {
		a.sample_period = need(l, "freq");
		a.flags |= PERF_ATTR_FLAG_FREQ;
	} else {
		a.sample_period = num(l, "period", 0);
	}
	if (get(l, "sample_type"))
		a.sample_type = parse_bits("sample_type", get(l, "sample_type"), sample_bits);
	if (get(l, "read_format"))
		a.read_format = parse_bits("read_format", get(l, "read_format"), read_bits);
	if (get(l, "branch_sample_type"))
		a.branch_sample_type = parse_bits("branch_sample_type",
						  get(l, "branch_sample_type"), branch_bits);
	if (get(l, "flags"))
		a.flags |= parse_bits("flags", get(l, "flags"), flag_bits);
	if (num(l, "sample_id_all", 1))
		a.flags |= PERF_ATTR_FLAG_SAMPLE_ID_ALL;
	if (num(l, "precise", 0) > 3)
		die("precise must be 0..3");
	a.flags |= num(l, "precise", 0) << PERF_ATTR_FLAG_PRECISE_SHIFT;
	a.config1 = num(l, "config1", 0);
	a.config2 = num(l, "config2", 0);
	a.config3 = num(l, "config3", 0);
	a.sample_regs_user = num(l, "regs_user_mask", 0);
	a.sample_regs_intr = num(l, "regs_intr_mask", 0);
	a.sample_stack_user = (uint32_t)num(l, "stack_user", 0);
	a.wakeup_events = (uint32_t)num(l, "wakeup", 0);
	a.bp_type = (uint32_t)num(l, "bp_type", 0);
	a.clockid = (int32_t)num(l, "clockid", 0);
	a.aux_watermark = (uint32_t)num(l, "aux_watermark", 0);
	a.sample_max_stack = (uint16_t)num(l, "max_stack", 0);
	a.aux_sample_size = (uint32_t)num(l, "aux_sample_size", 0);
	a.aux_action = (uint32_t)num(l, "aux_action", 0);
	a.sig_data = num(l, "sig_data", 0);
	ids[0] = (uint64_t)g.nr_ev + 1;
	v = get(l, "ids");
	if (v)
		nr_ids = strcmp(v, "none") ? parse_list_u64("ids", v, ids, MAX_LIST) : 0;
	idx = perf_writer__add_event(g.w, &a, get(l, "name"), ids, nr_ids);
	check(idx, "event");
	g.ev_attr[g.nr_ev] = a;
	g.ev_name[g.nr_ev] = get(l, "name") ? strdup(get(l, "name")) : NULL;
	g.ev_id0[g.nr_ev] = nr_ids ? ids[0] : 0;
	g.nr_ev++;
}

static uint64_t get_time(const struct line *l)
{
	const char *v = get(l, "time");

	if (!v)
		return 0;
	if (v[0] == '+') {
		g.clock += parse_u64("time", v + 1);
		return g.clock;
	}
	g.clock = parse_u64("time", v);
	return g.clock;
}

/* sample_id trailer from the record's own keys */
static void get_sid(const struct line *l, struct perf_sample_id *sid)
{
	memset(sid, 0, sizeof(*sid));
	sid->pid = parse_u32("pid", get(l, "pid") ? get(l, "pid") : "0");
	sid->tid = parse_u32("tid", get(l, "tid") ? get(l, "tid") : "0");
	sid->time = get_time(l);
	sid->id = num(l, "id", g.nr_ev ? g.ev_id0[0] : 0);
	sid->stream_id = num(l, "stream_id", 0);
	sid->cpu = (uint32_t)num(l, "cpu", 0);
}

static void begin_records(void)
{
	open_writer();
	g.records_started = true;
}

#define SID_KEYS "pid", "tid", "time", "id", "stream_id", "cpu"

static void do_comm(const struct line *l)
{
	static const char *const keys[] = { SID_KEYS, "name", "exec!", NULL };
	struct perf_sample_id sid;

	begin_records();
	allow(l, keys);
	get_sid(l, &sid);
	check(perf_writer__comm(g.w, has_word(l, "exec"), sid.pid, sid.tid, need_str(l, "name"),
				&sid), "comm");
}

static void do_mmap(const struct line *l, bool v2)
{
	static const char *const keys[] = { SID_KEYS, "start", "len", "pgoff", "file",
					    "buildid", "prot", "flags", "misc", NULL };
	struct perf_sample_id sid;
	uint8_t bid[20];
	size_t bid_size = 0;
	uint16_t misc;

	begin_records();
	allow(l, keys);
	get_sid(l, &sid);
	misc = get(l, "misc") ? parse_misc(get(l, "misc")) : PERF_RECORD_MISC_USER;
	if (!v2) {
		if (get(l, "buildid") || get(l, "prot") || get(l, "flags"))
			die("'mmap' has no buildid/prot/flags (use mmap2)");
		check(perf_writer__mmap(g.w, misc, sid.pid, sid.tid, need(l, "start"),
					need(l, "len"), num(l, "pgoff", 0), need_str(l, "file"),
					&sid), "mmap");
		return;
	}
	if (get(l, "buildid"))
		bid_size = parse_hex("buildid", get(l, "buildid"), bid, sizeof(bid));
	check(perf_writer__mmap2(g.w, misc, sid.pid, sid.tid, need(l, "start"), need(l, "len"),
				 num(l, "pgoff", 0), get(l, "buildid") ? bid : NULL,
				 (uint8_t)bid_size, (uint32_t)num(l, "prot", 5),
				 (uint32_t)num(l, "flags", 2), need_str(l, "file"), &sid), "mmap2");
}

static void do_task(const struct line *l, uint32_t type)
{
	static const char *const keys[] = { SID_KEYS, "ppid", "ptid", NULL };
	struct perf_sample_id sid;

	begin_records();
	allow(l, keys);
	get_sid(l, &sid);
	check(perf_writer__task(g.w, type, (uint32_t)need(l, "pid"), (uint32_t)need(l, "ppid"),
				(uint32_t)need(l, "tid"), (uint32_t)need(l, "ptid"), sid.time, &sid),
	      type == PERF_RECORD_FORK ? "fork" : "exit");
}

static int find_event(const char *v)
{
	if (!g.nr_ev)
		die("'sample' before any 'event'");
	if (!v)
		return 0;
	if (v[0] >= '0' && v[0] <= '9') {
		uint64_t i = parse_u64("ev", v);

		if (i >= (uint64_t)g.nr_ev)
			die("no event %s (%d defined)", v, g.nr_ev);
		return (int)i;
	}
	for (int i = 0; i < g.nr_ev; i++)
		if (g.ev_name[i] && !strcmp(g.ev_name[i], v))
			return i;
	die("no event named '%s'", v);
}

static void parse_branches(const char *v, struct perf_branch_entry *br, uint64_t *nr)
{
	char *copy = strdup(v), *save = NULL, *t;

	*nr = 0;
	for (t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *parts[4] = { NULL }, *s2 = NULL, *p;
		int np = 0;
		struct perf_branch_entry *e;

		if (*nr == MAX_LIST)
			die("more than %d branch entries", MAX_LIST);
		for (p = strtok_r(t, "/", &s2); p && np < 4; p = strtok_r(NULL, "/", &s2))
			parts[np++] = p;
		if (np < 2 || p)
			die("branch entry needs FROM/TO[/FLAGS[/CYCLES]]");
		e = &br[(*nr)++];
		e->from = parse_u64("br", parts[0]);
		e->to = parse_u64("br", parts[1]);
		e->flags = 0;
		if (np > 2) {
			if (parts[2][0] >= '0' && parts[2][0] <= '9') {
				e->flags = parse_u64("br", parts[2]);
			} else {
				for (const char *c = parts[2]; *c; c++) {
					switch (*c) {
					case 'M': e->flags |= PERF_BR_MISPRED; break;
					case 'P': e->flags |= PERF_BR_PREDICTED; break;
					case 'X': e->flags |= PERF_BR_IN_TX; break;
					case 'A': e->flags |= PERF_BR_ABORT; break;
					case '-': break;
					default: die("unknown branch flag '%c' (M, P, X, A, -)", *c);
					}
				}
			}
		}
		if (np > 3) {
			uint64_t cyc = parse_u64("br", parts[3]);

			if (cyc > 0xffff)
				die("branch cycles > 65535");
			e->flags = (e->flags & ~(0xffffULL << 4)) | cyc << 4;
		}
	}
	free(copy);
}

static void parse_regs(const char *key, const char *v, struct perf_regs *r, uint64_t *store)
{
	const char *colon = strchr(v, ':');
	char abi[32];

	if (!colon) {
		r->abi = parse_u64(key, v);
		r->nr = 0;
		r->regs = NULL;
		return;
	}
	snprintf(abi, sizeof(abi), "%.*s", (int)(colon - v), v);
	r->abi = parse_u64(key, abi);
	r->nr = (uint32_t)parse_list_u64(key, colon + 1, store, 64);
	r->regs = store;
}

static void do_sample(const struct line *l)
{
	static const char *const keys[] = { SID_KEYS, "ev", "misc", "ip", "addr", "period",
		"weight", "data_src", "transaction", "phys_addr", "cgroup", "data_page_size",
		"code_page_size", "time_enabled", "time_running", "br", "hw_idx", "counters",
		"callchain", "raw", "aux", "read", "regs_user", "regs_intr", "stack", "dyn_size",
		NULL };
	static struct perf_branch_entry br[MAX_LIST];
	static uint64_t counters[MAX_LIST], callchain[MAX_LIST], ru[64], ri[64];
	static uint8_t raw[60000], aux[60000], stack[60000];
	static struct perf_read_value rv[MAX_LIST];
	struct perf_sample s = { 0 };
	const struct perf_evattr *a;
	const char *v;
	int ev;

	begin_records();
	allow(l, keys);
	ev = find_event(get(l, "ev"));
	a = &g.ev_attr[ev];
	s.present = a->sample_type;
	s.id = num(l, "id", g.ev_id0[ev]);
	s.ip = num(l, "ip", 0);
	s.pid = (uint32_t)num(l, "pid", 0);
	s.tid = (uint32_t)num(l, "tid", 0);
	s.time = get_time(l);
	s.addr = num(l, "addr", 0);
	s.stream_id = num(l, "stream_id", 0);
	s.cpu = (uint32_t)num(l, "cpu", 0);
	s.period = num(l, "period", a->sample_period);
	s.weight = num(l, "weight", 0);
	s.data_src = num(l, "data_src", 0);
	s.transaction = num(l, "transaction", 0);
	s.phys_addr = num(l, "phys_addr", 0);
	s.cgroup = num(l, "cgroup", 0);
	s.data_page_size = num(l, "data_page_size", 0);
	s.code_page_size = num(l, "code_page_size", 0);
	s.time_enabled = num(l, "time_enabled", 0);
	s.time_running = num(l, "time_running", 0);
	if ((v = get(l, "br"))) {
		parse_branches(v, br, &s.nr_branches);
		s.branches = br;
	}
	s.hw_idx = num(l, "hw_idx", 0);
	s.has_hw_idx = a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX;
	if ((v = get(l, "counters"))) {
		if (parse_list_u64("counters", v, counters, MAX_LIST) != s.nr_branches)
			die("'counters' needs one value per branch entry");
		s.branch_counters = counters;
	}
	if ((v = get(l, "callchain"))) {
		s.nr_callchain = parse_list_u64("callchain", v, callchain, MAX_LIST);
		s.callchain = callchain;
	}
	if ((v = get(l, "raw"))) {
		s.raw_size = (uint32_t)parse_hex("raw", v, raw, sizeof(raw));
		s.raw = raw;
	}
	if ((v = get(l, "aux"))) {
		s.aux_size = parse_hex("aux", v, aux, sizeof(aux));
		s.aux = aux;
	}
	if ((v = get(l, "stack"))) {
		s.stack_size = parse_hex("stack", v, stack, sizeof(stack));
		s.stack = stack;
		s.stack_dyn_size = num(l, "dyn_size", s.stack_size);
	}
	if ((v = get(l, "read"))) {
		char *copy = strdup(v), *save = NULL, *t;

		for (t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			char *c1, *c2;

			if (s.read_nr == MAX_LIST)
				die("more than %d read values", MAX_LIST);
			c1 = strchr(t, ':');
			if (c1)
				*c1++ = 0;
			c2 = c1 ? strchr(c1, ':') : NULL;
			if (c2)
				*c2++ = 0;
			rv[s.read_nr].value = parse_u64("read", t);
			rv[s.read_nr].id = c1 ? parse_u64("read", c1) : s.id;
			rv[s.read_nr].lost = c2 ? parse_u64("read", c2) : 0;
			s.read_nr++;
		}
		free(copy);
		s.read_values = rv;
	} else if (a->sample_type & PERF_SAMPLE_READ) {
		rv[0].value = 0;
		rv[0].id = s.id;
		rv[0].lost = 0;
		s.read_values = rv;
		s.read_nr = (a->read_format & PERF_FORMAT_GROUP) ? 0 : 1;
	}
	if ((v = get(l, "regs_user")))
		parse_regs("regs_user", v, &s.regs_user, ru);
	if ((v = get(l, "regs_intr")))
		parse_regs("regs_intr", v, &s.regs_intr, ri);
	check(perf_writer__sample(g.w, ev, get(l, "misc") ? parse_misc(get(l, "misc")) :
				  PERF_RECORD_MISC_USER, &s), "sample");
}

static void do_lost(const struct line *l)
{
	static const char *const keys[] = { SID_KEYS, "n", NULL };
	struct perf_sample_id sid;

	begin_records();
	allow(l, keys);
	get_sid(l, &sid);
	check(perf_writer__lost(g.w, need(l, "id"), need(l, "n"), &sid), "lost");
}

static void do_throttle(const struct line *l, bool un)
{
	static const char *const keys[] = { SID_KEYS, NULL };
	struct perf_sample_id sid;

	begin_records();
	allow(l, keys);
	get_sid(l, &sid);
	check(perf_writer__throttle(g.w, un, sid.time, need(l, "id"), sid.stream_id, &sid),
	      "throttle");
}

static void do_buildid(const struct line *l)
{
	static const char *const keys[] = { "file", "id", "pid", "kernel!", "user!",
					    "guest_kernel!", "guest_user!", NULL };
	uint8_t id[20];
	size_t n;
	uint16_t mode = PERF_RECORD_MISC_USER;

	open_writer();
	allow(l, keys);
	n = parse_hex("id", need_str(l, "id"), id, sizeof(id));
	if (has_word(l, "kernel"))
		mode = PERF_RECORD_MISC_KERNEL;
	if (has_word(l, "guest_kernel"))
		mode = PERF_RECORD_MISC_GUEST_KERNEL;
	if (has_word(l, "guest_user"))
		mode = PERF_RECORD_MISC_GUEST_USER;
	check(perf_writer__add_build_id(g.w, (int32_t)num(l, "pid", (uint64_t)-1), mode, id,
					(uint8_t)n, need_str(l, "file")), "buildid");
}

static void do_raw(const struct line *l)
{
	static const char *const keys[] = { "type", "misc", "hex", NULL };
	static uint8_t payload[65536];
	size_t n = 0;

	begin_records();
	allow(l, keys);
	if (get(l, "hex"))
		n = parse_hex("hex", get(l, "hex"), payload, 65535 - 8);
	check(perf_writer__raw_record(g.w, (uint32_t)need(l, "type"), (uint16_t)num(l, "misc", 0),
				      payload, n), "raw");
}

static void exec_range(int from, int to);

/* Returns the index of the 'end' matching the 'repeat' at i. */
static int matching_end(int i, int to)
{
	int depth = 0;

	for (int k = i; k < to; k++) {
		const char *d = g.lines[k].tok[0].key;

		if (!strcmp(d, "repeat"))
			depth++;
		else if (!strcmp(d, "end") && --depth == 0)
			return k;
	}
	g.cur_line = g.lines[i].lineno;
	die("'repeat' without 'end'");
}

static void exec_range(int from, int to)
{
	for (int i = from; i < to; i++) {
		const struct line *l = &g.lines[i];
		const char *d = l->tok[0].key;

		g.cur_line = l->lineno;
		if (l->tok[0].val)
			die("a line starts with a directive, not '%s='", d);
		if (!strcmp(d, "repeat")) {
			int end = matching_end(i, to);
			uint64_t n;

			if (l->ntok != 2 || l->tok[1].val)
				die("usage: repeat N");
			n = parse_u64("repeat", l->tok[1].key);
			for (uint64_t k = 0; k < n; k++)
				exec_range(i + 1, end);
			i = end;
		} else if (!strcmp(d, "end")) {
			die("'end' without 'repeat'");
		} else if (!strcmp(d, "option")) {
			do_option(l);
		} else if (!strcmp(d, "header")) {
			do_header(l);
		} else if (!strcmp(d, "event")) {
			do_event(l);
		} else if (!strcmp(d, "comm")) {
			do_comm(l);
		} else if (!strcmp(d, "mmap2")) {
			do_mmap(l, true);
		} else if (!strcmp(d, "mmap")) {
			do_mmap(l, false);
		} else if (!strcmp(d, "fork")) {
			do_task(l, PERF_RECORD_FORK);
		} else if (!strcmp(d, "exit")) {
			do_task(l, PERF_RECORD_EXIT);
		} else if (!strcmp(d, "sample")) {
			do_sample(l);
		} else if (!strcmp(d, "lost")) {
			do_lost(l);
		} else if (!strcmp(d, "throttle") || !strcmp(d, "unthrottle")) {
			do_throttle(l, d[0] == 'u');
		} else if (!strcmp(d, "round")) {
			if (l->ntok != 1)
				die("'round' takes no arguments");
			begin_records();
			check(perf_writer__finished_round(g.w), "round");
		} else if (!strcmp(d, "buildid")) {
			do_buildid(l);
		} else if (!strcmp(d, "raw")) {
			do_raw(l);
		} else {
			die("unknown directive '%s'", d);
		}
	}
}

int main(int argc, char **argv)
{
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: perfgen SPEC OUT.data   (OUT '-' = stdout, pipe mode)\n");
		return 1;
	}
	g.spec_name = argv[1];
	g.out_path = argv[2];
	read_spec(argv[1]);
	exec_range(0, g.nr_lines);
	g.cur_line = g.nr_lines ? g.lines[g.nr_lines - 1].lineno : 0;
	open_writer();
	err = perf_writer__close(g.w);
	g.w = NULL;
	if (err < 0) {
		fprintf(stderr, "perfgen: %s: %s\n", g.out_path, hbbp_strerror(err));
		return err == -E2BIG || err == -EINVAL ? 2 : 3;
	}
	return 0;
}
