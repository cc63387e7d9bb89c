/* Writes the simulated recording as a real perf.data through samples/perfwrite/perf_writer.h,
 * laid out like `perf record -b -e inst_retired.prec_dist -e br_inst_retired.near_taken -- PROGRAM`
 * on Intel (with the cycles event, `-e cycles` in place of the second: the generic hardware
 * event 0): two events (raw 0x1c0 precise, raw 0x20c4 or cycles) with
 * IP|TID|TIME|ID|PERIOD|BRANCH_STACK|IDENTIFIER, user-only ANY branch stacks, FORK/COMM/MMAP2
 * before the samples (modules are only known after the run, so samples are spilled to a
 * temporary file first), THROTTLE/UNTHROTTLE among them where the kernel would log them, EXIT
 * last, and the build-id feature. Knows nothing of qemu.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "samples/perfwrite/perf_writer.h"
#include "samples/pmusim/record.h"
#include "util/hbbp_err.h"

struct sim_recorder {
	char *path;
	struct sim_pmu_opts po;
	char **argv;
	FILE *spill;
	uint64_t nr;
	uint64_t first_time, last_time;
	int err;
};

struct sim_spill_hdr {
	uint64_t ip, time, period;
	uint32_t nr;
	uint16_t event;
	uint16_t throttle;	/* sim_sample.throttle */
};

int sim_recorder__new(struct sim_recorder **out, const char *path, const struct sim_pmu_opts *po,
		      const char *const *argv)
{
	struct sim_recorder *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->path = strdup(path);
	r->po = *po;
	size_t n = 0;
	while (argv && argv[n])
		n++;
	r->argv = calloc(n + 1, sizeof(*r->argv));
	r->spill = tmpfile();
	if (!r->path || !r->argv || !r->spill) {
		int err = r->spill ? -ENOMEM : -errno;
		sim_recorder__abort(r);
		return err;
	}
	for (size_t i = 0; i < n; i++)
		if (!(r->argv[i] = strdup(argv[i]))) {
			sim_recorder__abort(r);
			return -ENOMEM;
		}
	/* fail early if the output cannot be created */
	FILE *f = fopen(path, "w");
	if (!f) {
		int err = -errno;
		sim_recorder__abort(r);
		return err;
	}
	fclose(f);
	*out = r;
	return 0;
}

int sim_recorder__sample(const struct sim_sample *s, void *ctx)
{
	struct sim_recorder *r = ctx;
	struct sim_spill_hdr h = { .ip = s->ip, .time = s->time, .period = s->period,
				   .nr = s->throttle ? 0 : s->nr, .event = (uint16_t)s->event,
				   .throttle = (uint16_t)s->throttle };
	if (fwrite(&h, sizeof(h), 1, r->spill) != 1 ||
	    (h.nr && fwrite(s->stack, sizeof(*s->stack), h.nr, r->spill) != h.nr))
		return -EIO;
	if (!r->nr)
		r->first_time = s->time;
	r->last_time = s->time;
	r->nr++;
	return 0;
}

void sim_recorder__abort(struct sim_recorder *r)
{
	if (!r)
		return;
	if (r->spill)
		fclose(r->spill);
	if (r->path)
		unlink(r->path);
	for (size_t i = 0; r->argv && r->argv[i]; i++)
		free(r->argv[i]);
	free(r->argv);
	free(r->path);
	free(r);
}

#define SIM_SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_IDENTIFIER)
#define SIM_ATTR_FLAG_ENABLE_ON_EXEC (1ULL << 12)
#define SIM_ATTR_FLAG_TASK (1ULL << 13)
#define SIM_ROUND_SAMPLES 512	/* samples between FINISHED_ROUNDs (EBS and 32-deep LBR mixed) */

static void sim_recorder__attrs(const struct sim_recorder *r, struct perf_evattr *ebs,
				struct perf_evattr *lbr)
{
	uint64_t common = PERF_ATTR_FLAG_DISABLED | PERF_ATTR_FLAG_INHERIT |
			  PERF_ATTR_FLAG_EXCLUDE_KERNEL | PERF_ATTR_FLAG_EXCLUDE_HV |
			  SIM_ATTR_FLAG_ENABLE_ON_EXEC | PERF_ATTR_FLAG_SAMPLE_ID_ALL |
			  PERF_ATTR_FLAG_EXCLUDE_GUEST;
	memset(ebs, 0, sizeof(*ebs));
	ebs->type = PERF_TYPE_RAW;
	ebs->config = 0x1c0;			/* INST_RETIRED.PREC_DIST */
	ebs->sample_period = r->po.ebs_period;
	ebs->sample_type = SIM_SAMPLE_TYPE;
	ebs->read_format = PERF_FORMAT_ID;
	/* the first event tracks mmaps, comms and tasks, as in perf record */
	ebs->flags = common | PERF_ATTR_FLAG_MMAP | PERF_ATTR_FLAG_COMM | SIM_ATTR_FLAG_TASK |
		     PERF_ATTR_FLAG_MMAP2 | PERF_ATTR_FLAG_COMM_EXEC | PERF_ATTR_FLAG_KSYMBOL |
		     (2ULL << PERF_ATTR_FLAG_PRECISE_SHIFT);
	ebs->branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
				  PERF_SAMPLE_BRANCH_HW_INDEX;
	*lbr = *ebs;
	lbr->config = 0x20c4;			/* BR_INST_RETIRED.NEAR_TAKEN */
	if (r->po.lbr_event == SIM_LBR_CYCLES) {
		lbr->type = PERF_TYPE_HARDWARE;
		lbr->config = 0;		/* PERF_COUNT_HW_CPU_CYCLES */
	}
	lbr->sample_period = r->po.lbr_period;
	lbr->flags = common;
}

static const char *sim_basename(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Replays the spilled samples into the writer. */
static int sim_recorder__replay(struct sim_recorder *r, struct perf_writer *w, uint32_t pid,
				const int evidx[2])
{
	struct perf_branch_entry br[64];
	struct sim_branch sb[64];
	struct sim_spill_hdr h;
	uint64_t hw_idx = 0;
	int err = 0;
	if (fflush(r->spill) || fseek(r->spill, 0, SEEK_SET))
		return -EIO;
	for (uint64_t i = 0; i < r->nr; i++) {
		if (fread(&h, sizeof(h), 1, r->spill) != 1 || h.nr > 64 || h.event > 1 ||
		    h.throttle > 2 || (h.nr && fread(sb, sizeof(*sb), h.nr, r->spill) != h.nr))
			return -EIO;
		if (h.throttle) {
			/* as perf_log_throttle: id and stream_id are the event's own id (the
			 * task's event, not an inherited one) */
			uint64_t id = h.event ? SIM_ID_LBR : SIM_ID_EBS;
			struct perf_sample_id sid = { .pid = pid, .tid = pid, .time = h.time,
						      .id = id };
			err = perf_writer__throttle(w, h.throttle == 2, h.time, id, id, &sid);
			if (err)
				return err;
			continue;
		}
		for (uint32_t k = 0; k < h.nr; k++) {
			br[k].from = sb[k].from;
			br[k].to = sb[k].to;
			/* the cycles field: bits 4..19 (PERF_BR_CYCLES) */
			br[k].flags = (uint64_t)sb[k].cycles << 4;
		}
		struct perf_sample s = {
			.present = SIM_SAMPLE_TYPE,
			.id = h.event ? SIM_ID_LBR : SIM_ID_EBS,
			.ip = h.ip, .pid = pid, .tid = pid, .time = h.time, .period = h.period,
			.nr_branches = h.nr, .has_hw_idx = true, .hw_idx = hw_idx++ % h.nr,
			.branches = br,
		};
		uint16_t misc = PERF_RECORD_MISC_USER | (h.event ? 0 : PERF_RECORD_MISC_EXACT_IP);
		err = perf_writer__sample(w, evidx[h.event], misc, &s);
		if (err)
			return err;
		/* perf record writes a round after each pass over the ring buffer, woken at
		 * half of its 512 KiB: about every 256 KiB of samples */
		if ((i + 1) % SIM_ROUND_SAMPLES == 0 && (err = perf_writer__finished_round(w)))
			return err;
	}
	return 0;
}

int sim_recorder__close(struct sim_recorder *r, const struct sim_modules *m, uint32_t pid,
			const struct sim_pmu_stats *st)
{
	struct utsname un;
	char cmd_ebs[64], cmd_lbr[64];
	const char **cmdline = NULL;
	struct perf_writer *w = NULL;
	struct perf_evattr ebs, lbr;
	int evidx[2];
	int err;
	size_t argc = 0;

	while (r->argv[argc])
		argc++;
	cmdline = calloc(argc + 8, sizeof(*cmdline));
	if (!cmdline) {
		err = -ENOMEM;
		goto out;
	}
	snprintf(cmd_ebs, sizeof(cmd_ebs), "inst_retired.prec_dist/period=%llu/",
		 (unsigned long long)r->po.ebs_period);
	const char *lbr_name = r->po.lbr_event == SIM_LBR_CYCLES ? "cycles" :
			       "br_inst_retired.near_taken";
	snprintf(cmd_lbr, sizeof(cmd_lbr), "%s/period=%llu/", lbr_name,
		 (unsigned long long)r->po.lbr_period);
	size_t k = 0;
	cmdline[k++] = "perf";
	cmdline[k++] = "record";
	cmdline[k++] = "-b";
	cmdline[k++] = "-e";
	cmdline[k++] = cmd_ebs;
	cmdline[k++] = "-e";
	cmdline[k++] = cmd_lbr;
	for (size_t i = 0; i < argc; i++)
		cmdline[k++] = r->argv[i];
	if (uname(&un))
		memset(&un, 0, sizeof(un));
	struct perf_writer_opts wo = {
		.version = "6.1.pmusim",
		.hostname = un.nodename[0] ? un.nodename : "pmusim",
		.osrelease = un.release[0] ? un.release : "6.1.0",
		.arch = "x86_64",
		.cpudesc = "pmusim simulated Intel PMU (qemu-x86_64 trace)",
		.cpuid = "GenuineIntel-6-55-4",
		.cmdline = cmdline,
		.nr_cpus = 1,
		.branch_stack = true,
	};
	err = perf_writer__open(&w, r->path, &wo);
	if (err)
		goto out;
	sim_recorder__attrs(r, &ebs, &lbr);
	uint64_t id_ebs = SIM_ID_EBS, id_lbr = SIM_ID_LBR;
	evidx[0] = perf_writer__add_event(w, &ebs, "inst_retired.prec_dist", &id_ebs, 1);
	evidx[1] = perf_writer__add_event(w, &lbr, lbr_name, &id_lbr, 1);
	if (evidx[0] < 0 || evidx[1] < 0) {
		err = evidx[0] < 0 ? evidx[0] : evidx[1];
		goto out;
	}
	for (size_t i = 0; i < m->n; i++) {
		bool dup = false;
		for (size_t j = 0; j < i; j++)
			dup |= !strcmp(m->v[j].path, m->v[i].path);
		if (dup || !m->v[i].build_id_size)
			continue;
		err = perf_writer__add_build_id(w, -1, PERF_RECORD_MISC_USER, m->v[i].build_id,
						m->v[i].build_id_size, m->v[i].path);
		if (err)
			goto out;
	}
	uint64_t t0 = r->nr ? r->first_time - 1000 : 1;
	struct perf_sample_id sid = { .pid = pid, .tid = pid, .time = t0, .id = SIM_ID_EBS };
	uint32_t ppid = (uint32_t)getpid();
	err = perf_writer__task(w, PERF_RECORD_FORK, pid, ppid, pid, ppid, t0, &sid);
	if (!err)
		err = perf_writer__comm(w, true, pid, pid, sim_basename(r->argv[0]), &sid);
	for (size_t i = 0; !err && i < m->n; i++) {
		const struct sim_module *mod = &m->v[i];
		err = perf_writer__mmap2(w, PERF_RECORD_MISC_USER, pid, pid, mod->start, mod->len,
					 mod->pgoff, mod->build_id, mod->build_id_size, mod->prot,
					 MAP_PRIVATE, mod->path, &sid);
	}
	if (!err)
		err = sim_recorder__replay(r, w, pid, evidx);
	if (!err) {
		sid.time = r->last_time + 1;
		err = perf_writer__task(w, PERF_RECORD_EXIT, pid, ppid, pid, ppid, sid.time, &sid);
	}
	if (!err)
		err = perf_writer__finished_round(w);
	(void)st;
	if (!err) {
		err = perf_writer__close(w);
		w = NULL;
	}
out:
	if (w)
		perf_writer__abort(w);
	free(cmdline);
	if (err) {
		sim_recorder__abort(r);
	} else {
		r->path[0] = 0;		/* keep the output */
		free(r->path);
		r->path = NULL;
		sim_recorder__abort(r);
	}
	return err;
}
