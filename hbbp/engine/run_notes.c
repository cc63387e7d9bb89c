/* What a finished conversion must say about itself: each way the result is built from less
 * than the input, or from something other than what the user may believe (a truncated
 * recording, corrupt header sections, a filter or --binary that selected nothing, a binary
 * refused or unchecked, code not found, a time-based EBS event, an event with no samples).
 * Each note goes to the run's notes (which hbbp/cli prints naming the input) and to the
 * result's warnings (JSON and SQLite metadata); the figures go to the metadata too. Also the
 * one error of a recording with no usable event, naming its events and the option to use;
 * the unit of the counts; and whether a result is empty, with the cause and the fix.
 * Reads the finished run; depends on hbbp/engine/convert.h (reader, bbmap session, mix).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hbbp/engine/convert.h"
#include "util/hbbp_err.h"

enum ebs_unit { UNIT_INSNS, UNIT_NS, UNIT_CYCLES, UNIT_PERIOD };

static enum ebs_unit event_unit(const struct perf_event_info *e)
{
	const struct perf_evattr *a = &e->attr;
	const char *n = e->name;

	if (a->type == PERF_TYPE_SOFTWARE && (a->config == 0 || a->config == 1))
		return UNIT_NS;			/* cpu-clock, task-clock */
	if (a->type == PERF_TYPE_HARDWARE && a->config == 1)
		return UNIT_INSNS;
	if (hbbp_starts(n, "inst_retired") || hbbp_starts(n, "instructions") ||
	    hbbp_starts(n, "ex_ret_instr") || (n && strstr(n, "/instructions/")))
		return UNIT_INSNS;
	if (a->type == PERF_TYPE_HARDWARE && (a->config == 0 || a->config == 9))
		return UNIT_CYCLES;		/* cycles, ref-cycles */
	if (n && strstr(n, "cycles"))
		return UNIT_CYCLES;
	return UNIT_PERIOD;
}

const char *convert__ebs_unit(const struct convert_run *run)
{
	static const char *const names[] = { "insns", "ns", "cycles", "period" };
	size_t i;

	for (i = 0; i < run->nr_events; i++)
		if (run->roles[i].role == HBBP_ROLE_EBS)
			return names[event_unit(run->events[i])];
	return names[UNIT_INSNS];
}

const char *convert__count_unit(const struct convert_run *run)
{
	const char *u = convert__ebs_unit(run);

	if (run->method == HBBP_METHOD_LBR || !strcmp(u, "insns"))
		return "instructions";
	if (run->method == HBBP_METHOD_HBBP)
		return "mixed units";	/* LBR blocks in instructions, EBS blocks weighted */
	return strcmp(u, "period") ? u : "periods";
}

static bool time_based(const struct perf_event_info *e)
{
	enum ebs_unit u = event_unit(e);

	return u == UNIT_NS || u == UNIT_CYCLES;
}

void convert__no_event(const struct convert_run *run, const struct convert_opts *o)
{
	char list[1024], suggest[256] = "";
	size_t i, len = 0;

	list[0] = 0;
	for (i = 0; i < run->nr_events; i++) {
		const struct perf_event_info *e = run->events[i];
		const char *n = e->name ? e->name : "?";
		int w;

		if (e->attr.type == PERF_TYPE_SOFTWARE && e->attr.config == 9)
			continue;			/* the dummy tracking event */
		w = snprintf(list + len, sizeof(list) - len, "%s'%s'%s", len ? ", " : "", n,
			     time_based(e) ? " (time-based)" : "");
		if (w < 0 || (size_t)w >= sizeof(list) - len)
			break;
		len += (size_t)w;
		if (!suggest[0] && (e->attr.sample_type & PERF_SAMPLE_IP) &&
		    (e->attr.sample_period || perf_evattr__freq(&e->attr)))
			snprintf(suggest, sizeof(suggest), "; to weight the mix by %s instead, "
				 "use --ebs-event %s", time_based(e) ? "time" : "its samples", n);
	}
	pr_err("%s: no usable event among %s: need an instructions-retired event (EBS) or an "
	       "event with an all-branches LBR stack (perf record -b)%s", o->input,
	       len ? list : "none", suggest);
}

/* ---- notes after the run ---- */

struct notes {
	struct convert_run *run;
	const struct convert_opts *o;
	int err;
};

static void note(struct notes *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct notes *n, const char *fmt, ...)
{
	struct convert_run *run = n->run;
	char **v, *msg;
	va_list ap;

	if (n->err)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0) {
		va_end(ap);
		n->err = -ENOMEM;
		return;
	}
	va_end(ap);
	v = realloc(run->notes, (run->nr_notes + 1) * sizeof(*v));
	if (!v) {
		free(msg);
		n->err = -ENOMEM;
		return;
	}
	run->notes = v;
	run->notes[run->nr_notes++] = msg;
	n->err = result__warn(run->res, "%s", msg);
}

static void meta_int(struct notes *n, const char *key, int64_t v)
{
	if (!n->err)
		n->err = result__meta_int(n->run->res, key, v);
}

static void notes_reader(struct notes *n)
{
	const struct perf_header_info *h = perf_reader__header(n->run->reader);
	const struct perf_reader_stats *st = perf_reader__stats(n->run->reader);
	char names[512], buf[32];
	size_t len = 0;
	unsigned f;

	meta_int(n, "truncated", h->truncated);
	if (h->truncated) {
		meta_int(n, "truncated_bytes", (int64_t)st->truncated_bytes);
		note(n, "truncated recording: %s%" PRIu64 " bytes missing; the counts cover the "
		     "records up to the cut", st->truncated_bytes && (h->is_pipe || !h->data_size) ?
		     "at least " : "", st->truncated_bytes);
	}
	if (st->nr_nested_compressed)
		note(n, "%" PRIu64 " compressed record(s) inside compressed data skipped: perf never "
		     "writes them (another writer, or a damaged file)", st->nr_nested_compressed);
	names[0] = 0;
	for (f = 0; f < 64; f++)
		if (st->bad_features & (1ULL << f)) {
			int w = snprintf(names + len, sizeof(names) - len, "%s%s", len ? "," : "",
					 perf_feature__name(f, buf, sizeof(buf)));

			if (w > 0 && (size_t)w < sizeof(names) - len)
				len += (size_t)w;
		}
	if (len) {
		if (!n->err)
			n->err = result__meta_text(n->run->res, "corrupt_sections", names);
		note(n, "corrupt header sections skipped: %s", names);
	}
	if (st->empty_build_ids)
		note(n, "the build-id list is empty: binaries are taken by path, unchecked");
}

static void notes_events(struct notes *n)
{
	const struct convert_run *run = n->run;
	size_t i;

	for (i = 0; i < run->nr_events && i < run->drv.acc.nr_events; i++) {
		const struct perf_event_info *e = run->events[i];
		const struct hbbp_event_state *s = &run->drv.acc.ev[i];
		const char *name = e->name ? e->name : "?";

		if (s->role == HBBP_ROLE_UNUSED)
			continue;
		if (!s->samples) {
			bool counting = !e->attr.sample_period && !perf_evattr__freq(&e->attr);

			note(n, "event '%s' (%s) has no samples%s: its part of the estimate is empty%s",
			     name, hbbp_role_name(s->role),
			     counting ? " (recorded as a counting event, without sampling)" : "",
			     n->o->ebs_event || n->o->lbr_event ? "" :
			     "; choose another with --ebs-event or --lbr-event");
		}
		if (s->role == HBBP_ROLE_EBS && event_unit(e) != UNIT_INSNS) {
			enum ebs_unit u = event_unit(e);

			if (!n->err)
				n->err = result__meta_text(run->res, "ebs_weight_unit",
							   convert__ebs_unit(run));
			note(n, "event '%s' %s: the counts are %s, not instruction counts", name,
			     u == UNIT_NS ? "counts time (ns)" : u == UNIT_CYCLES ? "counts cycles" :
			     "has no known unit", u == UNIT_NS ? "ns of time" :
			     u == UNIT_CYCLES ? "cycles" : "sums of its periods");
		}
	}
}

static int unmatched_cb(void *ctx, const char *option, const char *value)
{
	struct notes *n = ctx;

	note(n, "%s '%s' matched no sample", option, value);
	return n->err;
}

/* per dso: instructions in decoded blocks and in blocks without code */
struct dso_weight {
	struct bbmap_dso *dso;
	double code, other;
};

static struct dso_weight *dso_weights(const struct convert_run *run, size_t *nr)
{
	const struct hbbp_counts *c = &run->counts;
	struct dso_weight *v = calloc(c->nr_blocks + 1, sizeof(*v));
	size_t i, j, n = 0;

	if (!v)
		return NULL;
	for (i = 0; i < c->nr_blocks; i++) {
		const struct hbbp_block *b = &c->blocks[i];

		if (!b->dso || b->count <= 0)
			continue;
		for (j = 0; j < n && v[j].dso != b->dso; j++)
			;
		if (j == n)
			v[n++].dso = b->dso;
		if (b->kind == HBBP_BLK_CODE)	/* executions x instructions */
			v[j].code += b->count * b->nr_insns;
		else				/* pseudo blocks count instructions */
			v[j].other += b->count;
	}
	*nr = n;
	return v;
}

static void notes_binaries(struct notes *n)
{
	const struct convert_run *run = n->run;
	const struct hbbp_code_ops *ops = &run->ops;
	const struct convert_opts *o = n->o;
	struct dso_weight *w;
	double total = 0, missing = 0;
	char miss[512] = "";
	size_t i, nr = 0, len = 0, nmiss = 0;
	bool user_missing = false, kernel_missing = false;
	const struct perf_header_info *h = perf_reader__header(run->reader);
	struct bbmap_session_stats bs;
	char kfix[512];

	for (i = 0; i < o->find.nr_binaries; i++) {
		const char *detail;
		enum bbmap_override_use use = bbmap_session__override_use(run->session, i, &detail);

		if (use == BBMAP_OVR_UNMATCHED)
			note(n, "--binary %s=%s: no module of that name has samples (the names are "
			     "those of the recording: see the modules table or --by module)",
			     o->find.binaries[i].name, o->find.binaries[i].path);
		else if (use == BBMAP_OVR_REFUSED)
			note(n, "--binary %s=%s: not used: %s", o->find.binaries[i].name,
			     o->find.binaries[i].path, detail ? detail : "cannot read it");
		else if (use == BBMAP_OVR_UNCHECKED)
			note(n, "--binary %s=%s: the file has no build-id to check against the "
			     "recording's: accepted by name", o->find.binaries[i].name,
			     o->find.binaries[i].path);
	}
	w = dso_weights(run, &nr);
	if (!w) {
		n->err = -ENOMEM;
		return;
	}
	for (i = 0; i < nr; i++)
		total += w[i].code + w[i].other;
	for (i = 0; i < nr && total > 0; i++) {
		struct bbmap_module *m = NULL;
		enum bbmap_dso_status st = ops->dso_module(ops->ctx, w[i].dso, &m);
		const char *name = ops->dso_name(ops->ctx, w[i].dso);
		enum bbmap_dso_kind k = ops->dso_kind ? ops->dso_kind(ops->ctx, w[i].dso) :
					DSO_KIND_USER;
		double all = w[i].code + w[i].other;

		if (st == DSO_OK && w[i].other > 0.5 * all && all > 0.01 * total) {
			const char *path = ops->dso_path ? ops->dso_path(ops->ctx, w[i].dso) : NULL;

			note(n, "'%s': %.0f%% of its weight falls where %s has no code: is it the "
			     "binary that ran?", name ? name : "?", 100 * w[i].other / all,
			     path ? path : "the file found");
		}
		if ((st == DSO_MISSING || st == DSO_BAD) &&
		    (k == DSO_KIND_USER || k == DSO_KIND_KERNEL || k == DSO_KIND_KMODULE)) {
			const char *s = name ? name : "?";
			int wn;

			missing += all;
			nmiss++;
			user_missing |= k == DSO_KIND_USER;
			kernel_missing |= k != DSO_KIND_USER;
			wn = nmiss <= 4 ? snprintf(miss + len, sizeof(miss) - len, "%s%s",
						   len ? ", " : "", s) : 0;
			if (wn > 0 && (size_t)wn < sizeof(miss) - len)
				len += (size_t)wn;
		}
	}
	snprintf(kfix, sizeof(kfix), "%sthe kernel with --vmlinux FILE or --kallsyms FILE (a copy "
		 "of /proc/kallsyms of %s%s%s%s%s, made while it ran the recording)",
		 user_missing ? " and " : "", h->hostname ? "host '" : "the recording machine",
		 h->hostname ? h->hostname : "", h->hostname ? "'" : "",
		 h->osrelease ? ", kernel " : "", h->osrelease ? h->osrelease : "");
	if (nmiss)
		note(n, "no code found for %zu module%s (%s%s): %.1f%% of the weight is counted "
		     "as [no code]; give %s%s", nmiss, nmiss > 1 ? "s" : "", miss,
		     nmiss > 4 ? ", ..." : "", 100 * missing / total, user_missing ?
		     "the binaries with --binary NAME=PATH, --symfs DIR or --buildid-dir DIR" : "",
		     kernel_missing ? kfix : "");
	bbmap_session__stats(run->session, &bs);
	if (bs.nr_host_kallsyms)
		note(n, "kernel names from this machine's /proc/kallsyms: the recording holds no "
		     "kernel image or symbols and was made here (host '%s', kernel %s)",
		     h->hostname, h->osrelease);
	free(w);
}

/* A binary at hand whose build-id is not the recording's (rebuilt since): its own note,
 * naming the option that uses it, whatever the method. */
static void notes_mismatch(struct notes *n)
{
	const struct convert_run *run = n->run;
	size_t i, nr;
	const struct hbbp_unresolved **v = hbbp_unresolved__weighted(&run->drv.acc, false, &nr);

	if (!v) {
		n->err = -ENOMEM;
		return;
	}
	for (i = 0; i < nr; i++) {
		struct bbmap_module *m = NULL;
		const char *detail;

		if (!v[i]->dso ||
		    run->ops.dso_module(run->ops.ctx, v[i]->dso, &m) != DSO_BUILDID_MISMATCH)
			continue;
		detail = bbmap_dso__status_detail(v[i]->dso);
		note(n, "code not used: %s", detail ? detail : "build-id mismatch "
		     "(--ignore-build-id accepts it)");
	}
	free(v);
}

/* LBR-only: weight whose code was not found has no instruction count, hence no row */
static void notes_lbr_unresolved(struct notes *n)
{
	const struct hbbp_accum *d = &n->run->drv.acc;
	const struct hbbp_unresolved *u;
	const uint64_t *key;
	double sw = 0, uw = 0;
	size_t i;

	if (n->run->method != HBBP_METHOD_LBR)
		return;
	for (i = 0; i < d->nr_events; i++)
		if (d->ev[i].role == HBBP_ROLE_LBR)
			sw += d->ev[i].stream_weight;
	hmap__for_each(&d->unres, i, key, u)
		uw += u->lbr_weight;
	if (sw > 0 && uw > 0)
		note(n, "%.1f%% of the LBR stream weight falls where no code was found: LBR-only "
		     "counts have no row for it (the mix's total leaves it out; see "
		     "unresolved_lbr_weight)", 100 * uw / sw);
}

int convert__notes(struct convert_run *run, const struct convert_opts *o)
{
	struct notes n = { run, o, 0 };

	notes_reader(&n);
	if (run->drv.nr_record_errors)
		note(&n, "malformed mmap, ksymbol or build-id records left out: %" PRIu64
		     " (samples in what they describe are unattributed)", run->drv.nr_record_errors);
	notes_events(&n);
	if (!n.err)	/* the unit of the count columns, for the stores and the report */
		n.err = result__meta_text(run->res, "count_unit", convert__count_unit(run));
	if (!n.err && (o->mix.pid || o->mix.comm || o->mix.module || o->mix.symbol))
		n.err = n.err ? n.err : hbbp_mix__unmatched(&run->counts, &run->drv.acc, &run->ops,
							    &o->mix, unmatched_cb, &n);
	if (!n.err)
		notes_binaries(&n);
	if (!n.err)
		notes_mismatch(&n);
	if (!n.err)
		notes_lbr_unresolved(&n);
	return n.err;
}

/* ---- a result with no row (README, "Exit status") ---- */

bool convert__mix_empty(const struct result_table *mix)
{
	static const char *const no_code[] = { "[no code]", "[undecoded]", "[unmapped]" };
	int count = mix ? result_table__col(mix, "count") : -1;
	size_t r, c, k, nr_keys = count < 0 ? 0 : (size_t)count;

	for (r = 0; mix && r < mix->nr_rows; r++) {
		const struct result_cell *cell = result_table__row(mix, r);
		bool marked = false;

		for (c = 0; c < nr_keys && !marked; c++)
			for (k = 0; k < 3 && !marked; k++)
				marked = cell[c].type == RES_TEXT && !strcmp(cell[c].s, no_code[k]);
		if (!marked)
			return false;
	}
	return true;
}

/* The names of the dsos with unresolved weight, kernel ones or not, refused for their
 * build-id or else missing or unreadable, the first 4 comma-separated into buf: how many. */
static size_t dso_list(const struct convert_run *run, bool kernel, bool mismatch, char *buf,
		       size_t size)
{
	const struct hbbp_code_ops *ops = &run->ops;
	size_t i, n, nr = 0, len = 0;
	const struct hbbp_unresolved **v = hbbp_unresolved__weighted(&run->drv.acc, false, &n);

	buf[0] = 0;
	for (i = 0; v && i < n; i++) {
		struct bbmap_module *m = NULL;
		enum bbmap_dso_status st;
		enum bbmap_dso_kind k;
		int w;

		if (!v[i]->dso)
			continue;
		st = ops->dso_module(ops->ctx, v[i]->dso, &m);
		k = ops->dso_kind ? ops->dso_kind(ops->ctx, v[i]->dso) : DSO_KIND_USER;
		if ((mismatch ? st != DSO_BUILDID_MISMATCH : st != DSO_MISSING && st != DSO_BAD) ||
		    kernel != (k == DSO_KIND_KERNEL || k == DSO_KIND_KMODULE) ||
		    (k != DSO_KIND_USER && k != DSO_KIND_KERNEL && k != DSO_KIND_KMODULE))
			continue;
		w = nr < 4 ? snprintf(buf + len, size - len, "%s'%s'", nr ? ", " : "",
				      ops->dso_name(ops->ctx, v[i]->dso)) : 0;
		if (w > 0 && (size_t)w < size - len)
			len += (size_t)w;
		nr++;
	}
	if (nr > 4)
		snprintf(buf + len, size - len, " and %zu more", nr - 4);
	free(v);
	return nr;
}

void convert__empty_why(const struct convert_run *run, const struct convert_opts *o,
			char *buf, size_t size)
{
	const struct hbbp_mix_opts *f = &o->mix;
	const struct result_table *mix = result__table(run->res, "mix");
	uint64_t samples = 0;
	char names[1024];
	size_t i, nr;

	for (i = 0; i < run->drv.acc.nr_events; i++)
		if (run->drv.acc.ev[i].role != HBBP_ROLE_UNUSED)
			samples += run->drv.acc.ev[i].samples;
	if (!samples) {
		snprintf(buf, size, "the events used have no sample; choose others with "
			 "--ebs-event or --lbr-event, or record more (a longer run, perf record "
			 "-c N)");
	} else if ((!mix || !mix->nr_rows) && (f->pid || f->comm || f->module || f->symbol ||
						f->user_only || f->kernel_only)) {
		snprintf(names, sizeof(names), "%s%s%s%s%s%s", f->pid ? ", --pid" : "",
			 f->comm ? ", --comm" : "", f->module ? ", --module" : "",
			 f->symbol ? ", --symbol" : "", f->user_only ? ", --user-only" : "",
			 f->kernel_only ? ", --kernel-only" : "");
		snprintf(buf, size, "no sample passes the filters (%s); without them, --by "
			 "comm,module shows what the recording holds", names + 2);
	} else if ((nr = dso_list(run, false, true, names, sizeof(names))) ||
		   (nr = dso_list(run, true, true, names, sizeof(names)))) {
		snprintf(buf, size, "the binar%s %s at hand ha%s another build-id than the "
			 "recording's (rebuilt since?); --ignore-build-id uses %s as %s", nr > 1 ?
			 "ies" : "y", names, nr > 1 ? "ve" : "s", nr > 1 ? "them" : "it",
			 nr > 1 ? "they are" : "it is");
	} else if (dso_list(run, false, false, names, sizeof(names))) {
		snprintf(buf, size, "no code found for %s; give the binaries with --binary "
			 "NAME=PATH, --symfs DIR or --buildid-dir DIR", names);
	} else if (dso_list(run, true, false, names, sizeof(names))) {
		snprintf(buf, size, "no code found for %s; give the kernel with --vmlinux FILE or "
			 "--kallsyms FILE, or record with perf record --kcore", names);
	} else {
		snprintf(buf, size, "no sample was attributed to code");
	}
}
