/* session_resolve: drives a bbmap session from a real perf.data through the reader and
 * prints, for every sample, "PID/TID IP<TAB>DSO<TAB>SYMBOL" (SYMBOL "[unknown]" when none),
 * then per-dso status lines ("# dso NAME STATUS DETAIL") and the session counters to
 * stderr. --perf-compat names things as perf script does: user-mode samples at kernel
 * addresses are "[unknown]", the kernel is named by the vmlinux path of the build-id
 * table. Test tool only: the conversion driver lives in hbbp/.
 *
 * usage: session_resolve [--symfs DIR] [--buildid-dir DIR] [--vmlinux F] [--kallsyms F]
 *        [--binary NAME=PATH]... [--ignore-build-id] [--perf-compat] PERF.DATA
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/session.h"
#include "reader/perf_reader.h"
#include "util/hbbp_err.h"

#define MAX_BINARIES 32
#define KERNEL_SPACE 0x8000000000000000ull

static int usage(void)
{
	fprintf(stderr, "usage: session_resolve [--symfs DIR] [--buildid-dir DIR] "
		"[--vmlinux F] [--kallsyms F] [--binary NAME=PATH]... [--ignore-build-id] "
		"[--perf-compat] PERF.DATA\n");
	return HBBP_EXIT_USAGE;
}

static const char *kernel_name = "[kernel.kallsyms]";

static void feed(struct bbmap_session *s, const struct perf_record *r, bool compat)
{
	int cpumode = r->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct bbmap_module *m;
	struct bbmap_loc loc;
	bool exec;

	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (r->misc & PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT)
			break;
		/* the kernel (and perf's /proc synthesis) mark non-exec maps with MMAP_DATA;
		 * prot is not reliable (simpleperf writes its own values) */
		exec = !(r->misc & PERF_RECORD_MISC_MMAP_DATA);
		bbmap_session__mmap(s, cpumode, r->mmap.pid, r->mmap.tid, r->mmap.start,
				    r->mmap.len, r->mmap.pgoff, r->mmap.filename,
				    r->mmap.build_id_size ? r->mmap.build_id : NULL,
				    r->mmap.build_id_size, exec);
		break;
	case PERF_RECORD_COMM:
		bbmap_session__comm(s, r->comm.pid, r->comm.tid, r->comm.comm, r->comm.exec);
		break;
	case PERF_RECORD_FORK:
		bbmap_session__fork(s, r->task.pid, r->task.ppid, r->task.tid, r->task.ptid);
		break;
	case PERF_RECORD_EXIT:
		bbmap_session__exit(s, r->task.pid, r->task.tid);
		break;
	case PERF_RECORD_KSYMBOL:
		bbmap_session__ksymbol(s, r->ksymbol.addr, r->ksymbol.len, r->ksymbol.name,
				       r->ksymbol.flags & 1);
		break;
	case PERF_RECORD_HEADER_BUILD_ID:
		bbmap_session__add_build_id(s, (r->misc & 7) != PERF_RECORD_MISC_USER,
					    r->build_id.filename, r->build_id.id,
					    r->build_id.size);
		break;
	case PERF_RECORD_SAMPLE: {
		const char *dso = "[unknown]", *sym = "[unknown]";

		if (!bbmap_session__lookup(s, r->sample.pid, cpumode, r->sample.ip, &loc) &&
		    !(compat && cpumode == PERF_RECORD_MISC_USER && r->sample.ip >= KERNEL_SPACE &&
		      (bbmap_dso__kind(loc.dso) == DSO_KIND_KERNEL ||
		       bbmap_dso__kind(loc.dso) == DSO_KIND_KMODULE))) {
			dso = bbmap_dso__name(loc.dso);
			if (compat && bbmap_dso__kind(loc.dso) == DSO_KIND_KERNEL &&
			    !strcmp(dso, "[kernel.kallsyms]"))
				dso = kernel_name;
			if (bbmap_dso__module(loc.dso, &m) == DSO_OK) {
				const struct bbmap_symbol *bs = bbmap_module__symbol_at(m, loc.vaddr);

				if (bs && !bs->from_eh_frame)
					sym = bs->name;
			} else {
				const char *n = bbmap_dso__symbol_name(loc.dso, loc.vaddr, NULL);

				if (n)
					sym = n;
			}
		}
		printf("%u/%u %#" PRIx64 "\t%s\t%s\n", r->sample.pid, r->sample.tid, r->sample.ip,
		       dso, sym);
		break;
	}
	default:
		break;
	}
}

int main(int argc, char **argv)
{
	struct bbmap_binary_override bins[MAX_BINARIES];
	struct bbmap_find_opts o = { 0 };
	const struct perf_header_info *h;
	const struct perf_record *rec;
	struct bbmap_session_stats st;
	struct perf_reader *r = NULL;
	struct bbmap_session *s = NULL;
	const char *errmsg = NULL, *path = NULL;
	struct perf_reader_opts ropts = { 0 };
	bool compat = false;
	size_t i;
	int err, a;

	for (a = 1; a < argc; a++) {
		const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;

		if (!strcmp(arg, "--no-sort")) {
			ropts.no_sort = true;
		} else if (!strcmp(arg, "--perf-compat")) {
			compat = true;
		} else if (!strcmp(arg, "--ignore-build-id")) {
			o.ignore_build_id = true;
		} else if (val && !strcmp(arg, "--symfs")) {
			o.symfs = val, a++;
		} else if (val && !strcmp(arg, "--buildid-dir")) {
			o.buildid_dir = val, a++;
		} else if (val && !strcmp(arg, "--vmlinux")) {
			o.vmlinux = val, a++;
		} else if (val && !strcmp(arg, "--kallsyms")) {
			o.kallsyms = val, a++;
		} else if (val && !strcmp(arg, "--binary") && strchr(val, '=') &&
			   o.nr_binaries < MAX_BINARIES) {
			char *eq = strchr(argv[a + 1], '=');

			*eq = '\0';
			bins[o.nr_binaries].name = argv[a + 1];
			bins[o.nr_binaries].path = eq + 1;
			o.nr_binaries++;
			a++;
		} else if (arg[0] != '-' && !path) {
			path = arg;
		} else {
			return usage();
		}
	}
	if (!path)
		return usage();
	o.binaries = bins;
	err = perf_reader__open(&r, path, &ropts, &errmsg);
	if (err) {
		fprintf(stderr, "session_resolve: %s\n", errmsg ? errmsg : hbbp_strerror(err));
		return hbbp_exit_code(err);
	}
	h = perf_reader__header(r);
	o.osrelease = h->osrelease;
	o.kcore_dir = h->kcore_dir;
	err = bbmap_session__new(&s, &o);
	if (err)
		goto out;
	for (i = 0; i < h->nr_build_ids; i++) {
		const struct perf_build_id_entry *b = &h->build_ids[i];

		bool kernel = b->cpumode != PERF_RECORD_MISC_USER &&
			      b->cpumode != PERF_RECORD_MISC_GUEST_USER;
		size_t n = strlen(b->filename);

		bbmap_session__add_build_id(s, kernel, b->filename, b->id, b->size);
		/* perf names the kernel after a vmlinux path in the table */
		if (kernel && b->filename[0] == '/' && !strstr(b->filename, ".ko") && n)
			kernel_name = b->filename;
	}
	while ((err = perf_reader__next(r, &rec)) > 0)
		feed(s, rec, compat);
	if (err < 0) {
		fprintf(stderr, "session_resolve: %s\n", perf_reader__errmsg(r));
		goto out;
	}
	for (i = 0; bbmap_session__dso(s, i); i++) {
		struct bbmap_dso *d = bbmap_session__dso(s, i);
		enum bbmap_dso_status ds = bbmap_dso__module(d, NULL);
		const char *det = bbmap_dso__status_detail(d);

		fprintf(stderr, "# dso %s %s%s%s\n", bbmap_dso__name(d), bbmap_dso_status_name(ds),
			det ? ": " : "", det ? det : "");
	}
	bbmap_session__stats(s, &st);
	fprintf(stderr, "# lookups %" PRIu64 " unmapped %" PRIu64 " kernel-fallback %" PRIu64
		" guest-unsupported %" PRIu64 " processes %" PRIu64 " dsos %" PRIu64 "\n",
		st.nr_lookups, st.nr_unmapped, st.nr_kernel_fallback, st.nr_guest_unsupported,
		st.nr_procs, st.nr_dsos);
out:
	bbmap_session__delete(s);
	perf_reader__delete(r);
	return err < 0 ? hbbp_exit_code(err) : 0;
}
