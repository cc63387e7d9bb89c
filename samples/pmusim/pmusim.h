/* The PMU simulator's internal interfaces: the qemu log parser feeds the trace, the trace
 * reconstructs the retired-instruction and taken-branch streams and feeds the exact counts
 * (truth) and the simulated PMU, the PMU produces samples that the recorder writes to perf.data.
 * Only the simulator includes this header; the hbbp-convert library must not depend on it.
 */
#ifndef PMUSIM_H
#define PMUSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- instructions and translation blocks (trace.c) ---- */

enum sim_kind {
	SIM_K_OTHER = 0,
	SIM_K_JCC,		/* conditional direct jump (jcc, jrcxz, loop) */
	SIM_K_JMP,		/* unconditional jump (direct or indirect) */
	SIM_K_CALL,
	SIM_K_RET,
	SIM_K_SYSCALL,		/* syscall, int, sysenter: falls through in user mode */
};

/* Where the CPU is outside the process (kernel text): the LBR entries of syscalls and of the
 * process boundaries use it. Not 0: consumers drop 0/0 entries as LBR padding. */
#define SIM_OUTSIDE 0xffffffff81000000ULL

#define SIM_F_REP_STRING	0x1	/* rep-prefixed string op: qemu loops on itself */
#define SIM_F_LONG_LATENCY	0x2	/* div, sqrt, pointer-chasing load (shadowing rule) */

/* Timing classes (timing.c; costs in README.md, "Time"). */
enum sim_tclass {
	SIM_T_PLAIN = 0,	/* issue width: a quarter cycle */
	SIM_T_LOAD,		/* reads memory */
	SIM_T_CHASE,		/* pointer-chasing load (the shadowing rule's load) */
	SIM_T_IDIV32, SIM_T_IDIV64,
	SIM_T_DIV_S, SIM_T_DIV_D, SIM_T_SQRT_S, SIM_T_SQRT_D,
	SIM_T_X87_DIV, SIM_T_X87_SQRT,
	SIM_T_NR
};

struct sim_insn {
	uint64_t addr;
	uint32_t mn;		/* index into the mnemonic table */
	uint8_t len;
	uint8_t kind;		/* enum sim_kind */
	uint8_t flags;		/* SIM_F_* */
	uint8_t tclass;		/* enum sim_tclass */
};

struct cs_insn;
/* The timing class of a decoded instruction (long_latency: the shadowing rule holds). */
uint8_t sim_timing__class(const struct cs_insn *ci, bool long_latency);
/* Its cost in quarter cycles; mem_latency (cycles, 0 = the model's L1 latency) replaces the
 * cost of a pointer-chasing load. */
unsigned sim_timing__cost_q(unsigned tclass, unsigned mem_latency);

struct sim_tb {
	uint64_t pc;
	uint32_t n;
	struct sim_insn *insns;
	uint64_t nexec;		/* times the TB started */
	uint64_t ncont;		/* of which continued a rep-string op (first insn not retired) */
	uint64_t end_pad_q;	/* quarter cycles by which streams ending at the last insn were
				 * rounded up (charged to it: README, "Cycles per instruction") */
	struct sim_tb *all_next;	/* list of every TB ever translated */
};

struct sim_trace_stats {
	uint64_t nr_insns;	/* retired instructions */
	uint64_t nr_taken;	/* taken branches */
	uint64_t nr_tb_exec;
	uint64_t nr_tb_translated;
	uint64_t nr_retranslated;	/* translations of a pc already seen */
	uint64_t nr_rep_cont;	/* rep-string continuations */
	uint64_t nr_discont;	/* transfers after a non-branch (signals) */
	uint64_t nr_syscalls;	/* syscalls: LBR entries into and out of the kernel */
	uint64_t nr_unknown_tb;	/* Trace lines without a translation (dropped) */
	uint64_t nr_bad_decode;	/* instructions capstone could not decode */
	uint64_t nr_resegmented;	/* blocks whose qemu listing split an instruction */
	uint64_t nr_other_cpu;	/* Trace lines of another vCPU (threads: unsupported) */
};

struct sim_pmu;
struct sim_trace;

int sim_trace__new(struct sim_trace **out, struct sim_pmu *pmu);
void sim_trace__delete(struct sim_trace *t);
/* One translated block as qemu's in_asm shows it: per instruction its address and bytes. */
int sim_trace__translated(struct sim_trace *t, const uint64_t *addrs, const uint8_t *lens,
			  const uint8_t *bytes, size_t nr);
/* One Trace line: TB at host pointer `host` for guest `pc` starts executing. */
int sim_trace__exec(struct sim_trace *t, uint64_t host, uint64_t pc);
/* End of the run: flushes the PMU. */
int sim_trace__finish(struct sim_trace *t);
const struct sim_trace_stats *sim_trace__stats(const struct sim_trace *t);
const struct sim_tb *sim_trace__tbs(const struct sim_trace *t);
const char *sim_trace__mnemonic(const struct sim_trace *t, uint32_t mn);
size_t sim_trace__nr_mnemonics(const struct sim_trace *t);

/* ---- modules (modules.c) ---- */

struct sim_module {
	uint64_t start, len, pgoff;
	uint32_t prot;
	char *path;
	uint8_t build_id[20];
	uint8_t build_id_size;
};

struct sim_modules {
	struct sim_module *v;
	size_t n, cap;
	/* what the log said */
	uint64_t end_code, entry;
	bool have_end_code, have_entry;
	/* strace fd table */
	char *fd_path[1024];
	/* a strace call split by a page dump */
	char pending[4096];
	bool have_pending;
	int32_t pid;
	bool forked;		/* a fork/clone succeeded: another task shares the log */
};

void sim_modules__init(struct sim_modules *m);
void sim_modules__exit(struct sim_modules *m);
/* Feeds one log line that is not part of in_asm/exec output. */
void sim_modules__line(struct sim_modules *m, const char *line);
/* After the run: adds the executable and its interpreter at the addresses qemu chose. */
int sim_modules__add_program(struct sim_modules *m, const char *prog);
const struct sim_module *sim_modules__find(const struct sim_modules *m, uint64_t addr);
/* Reads NT_GNU_BUILD_ID of an ELF file; returns its size (0 when none or unreadable). */
int sim_elf__build_id(const char *path, uint8_t id[20]);

/* ---- the simulated PMU (pmu.c) ---- */

struct sim_effects {
	double skid_mean;	/* EBS skid: geometric, mean in instructions (0: none) */
	double group_prob;	/* P(EBS sample goes to the first insn of the next retirement group) */
	unsigned group_width;	/* instructions retired per cycle (retirement group size) */
	double shadow_prob;	/* P(sample on a long-latency insn moves to the next one) */
	unsigned rand_bits;	/* period randomisation: low bits of each period drawn at random */
	double freeze_mean;	/* LBR freeze skid: geometric, mean in taken branches */
	double freeze_insns_mean;	/* LBR PMI latency: geometric, mean in retired instructions */
	double bias_frac;	/* share of branch sites that are bias-prone */
	double bias_prob;	/* P(capture delayed so a bias-prone branch lands in the oldest slot) */
};

/* One LBR entry; cycles: core cycles since the previous entry (the duration of the stream
 * that ends at `from`), saturated at 0xffff, 0 = not reported (LBR_INFO.CYC_CNT). */
struct sim_branch { uint64_t from, to; uint16_t cycles; };

struct sim_sample {
	int event;		/* 0 EBS, 1 LBR */
	int throttle;		/* 0: a sample; 1: the event is throttled, 2: unthrottled, at
				 * `time` (PERF_RECORD_THROTTLE/UNTHROTTLE; no other field) */
	uint64_t ip;
	uint64_t time;
	uint64_t period;
	uint32_t nr;		/* branch entries, newest first */
	const struct sim_branch *stack;
};

typedef int (*sim_sample_fn)(const struct sim_sample *s, void *ctx);

enum sim_lbr_event {
	SIM_LBR_TAKEN = 0,	/* br_inst_retired.near_taken: stacks every N taken branches */
	SIM_LBR_CYCLES,		/* cycles: stacks every N core cycles (timing model) */
};

struct sim_pmu_opts {
	uint64_t ebs_period, lbr_period;
	unsigned lbr_depth;
	int lbr_event;		/* enum sim_lbr_event */
	bool no_lbr_cycles;	/* entries carry no cycle counts (before Skylake) */
	unsigned mem_latency;	/* cycles of a pointer-chasing load (0: 5, an L1 hit) */
	uint64_t seed;
	uint64_t clock_hz;	/* core clock: a sample's time is 1 s + cycles / clock_hz (0: 1 GHz) */
	uint64_t throttle_rate;	/* the kernel's perf_event_max_sample_rate (0: no throttling) */
	unsigned hz;		/* the kernel's tick rate, CONFIG_HZ (0: 250) */
	struct sim_effects fx;
	sim_sample_fn emit;
	void *ctx;
};

struct sim_pmu_stats {
	uint64_t nr_ebs, nr_lbr;
	uint64_t nr_skidded, nr_grouped, nr_shadowed, nr_frozen_late, nr_bias_delayed;
	uint64_t nr_dropped_pending;	/* samples still pending at the end (lost) */
	uint64_t nr_virtual_branches;	/* boundary entries (see README) */
	uint64_t nr_cycles;		/* core cycles of the timing model */
	uint64_t nr_saturated;		/* entries whose cycle count saturated at 0xffff */
	uint64_t nr_throttle, nr_unthrottle;	/* THROTTLE and UNTHROTTLE records */
	uint64_t nr_throttled_lost;	/* overflows whose interrupt came while throttled */
};

int sim_pmu__new(struct sim_pmu **out, const struct sim_pmu_opts *o);
void sim_pmu__delete(struct sim_pmu *p);
/* The first instruction of the process is about to retire. */
int sim_pmu__start(struct sim_pmu *p, uint64_t entry);
/* A taken branch retired (from the last instruction retired). */
int sim_pmu__branch(struct sim_pmu *p, uint64_t from, uint64_t to);
/* Instructions insns[0..n-1] retired, in order. */
int sim_pmu__retire(struct sim_pmu *p, const struct sim_insn *insns, uint32_t n);
/* The process left user mode for good after retiring `last`. */
int sim_pmu__finish(struct sim_pmu *p, uint64_t last);
const struct sim_pmu_stats *sim_pmu__stats(const struct sim_pmu *p);
/* The quarter cycles by which the running stream would be rounded up if it ended now. */
uint64_t sim_pmu__stream_pad_q(const struct sim_pmu *p);
/* The cost of a timing class in quarter cycles, as the clock counts it. */
unsigned sim_pmu__cost_q(const struct sim_pmu *p, unsigned tclass);
bool sim_pmu__bias_site(const struct sim_pmu *p, uint64_t from);

/* ---- truth output (truth.c) ---- */

/* pmu non-NULL: each row gains a last column `cycles`, the cycles of the timing model the
 * instruction accounts for (README, "Cycles per instruction"). */
int sim_truth__write_mix(const struct sim_trace *t, const char *path,
			 const struct sim_pmu *pmu);
int sim_truth__write_insns(const struct sim_trace *t, const struct sim_modules *m,
			   const char *path, const struct sim_pmu *pmu);

/* ---- qemu driver (qemu_run.c) ---- */

struct sim_run_opts {
	const char *qemu;	/* qemu-x86_64 binary */
	const char *cpu;	/* -cpu model */
	char *const *argv;	/* program and arguments (argv[0] resolved to a path) */
	const char *log_copy;	/* tee the raw log here (debugging), or NULL */
};

/* Runs the program under qemu, feeding the trace and the module table. Returns the
 * program's exit status (>= 0) or a negative error. */
int sim_run(const struct sim_run_opts *o, struct sim_trace *t, struct sim_modules *m,
	    int *child_pid);

/* ---- small PRNG (pmu.c) ---- */
uint64_t sim_rand__next(uint64_t *state);
double sim_rand__unit(uint64_t *state);

#endif
