/* pmusim's timing model: the instruction class of each decoded instruction (from capstone's
 * detail) and the cycles each class costs on a Skylake-class core (README.md, "Time"). The
 * costs are in quarter cycles so that the issue width (4 per cycle) stays integral. Depends on
 * capstone and samples/pmusim/pmusim.h only; knows nothing of the PMU or of perf.data.
 */
#include <capstone/capstone.h>

#include "samples/pmusim/pmusim.h"

/* Cost of each class in quarter cycles; SIM_T_CHASE is replaced by the memory latency.
 * Latencies from Agner Fog's instruction tables (Skylake) and uops.info, taken as if each
 * such instruction waited for the previous one (a dependency chain): the lower bound of a
 * range where the table gives one. */
static const uint16_t sim_timing_cost_q[SIM_T_NR] = {
	[SIM_T_PLAIN] = 1,		/* issue width 4: a quarter cycle */
	[SIM_T_LOAD] = 2,		/* 2 load ports: half a cycle */
	[SIM_T_CHASE] = 4 * 5,		/* pointer-chasing load: L1 latency 5 (or --mem-latency) */
	[SIM_T_IDIV32] = 4 * 26,	/* div/idiv r8/r16/r32: 26 */
	[SIM_T_IDIV64] = 4 * 42,	/* div/idiv r64: 35-88 / 42-95, 42 */
	[SIM_T_DIV_S] = 4 * 11,		/* (v)divss/(v)divps: 11 */
	[SIM_T_DIV_D] = 4 * 14,		/* (v)divsd/(v)divpd: 13-14, 14 */
	[SIM_T_SQRT_S] = 4 * 12,	/* (v)sqrtss/(v)sqrtps: 12 */
	[SIM_T_SQRT_D] = 4 * 16,	/* (v)sqrtsd/(v)sqrtpd: 15-16, 16 */
	[SIM_T_X87_DIV] = 4 * 15,	/* fdiv family: 14-16, 15 */
	[SIM_T_X87_SQRT] = 4 * 21,	/* fsqrt: 14-21, 21 */
};

unsigned sim_timing__cost_q(unsigned tclass, unsigned mem_latency)
{
	if (tclass >= SIM_T_NR)
		return 1;
	if (tclass == SIM_T_CHASE && mem_latency)
		return mem_latency > 16383 ? 65532 : 4 * mem_latency;
	return sim_timing_cost_q[tclass];
}

static bool sim_timing__reads_memory(const cs_insn *ci)
{
	const cs_x86 *x = &ci->detail->x86;
	if (ci->id == X86_INS_LEA || ci->id == X86_INS_NOP)
		return false;
	for (unsigned i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && (x->operands[i].access & CS_AC_READ))
			return true;
	return false;
}

/* The divisor's size: the last operand (register or memory) of div/idiv. */
static unsigned sim_timing__div_size(const cs_insn *ci)
{
	const cs_x86 *x = &ci->detail->x86;
	return x->op_count ? x->operands[x->op_count - 1].size : 4;
}

uint8_t sim_timing__class(const cs_insn *ci, bool long_latency)
{
	switch (ci->id) {
	case X86_INS_DIV: case X86_INS_IDIV:
		return ci->detail && sim_timing__div_size(ci) == 8 ? SIM_T_IDIV64 : SIM_T_IDIV32;
	case X86_INS_DIVSS: case X86_INS_DIVPS: case X86_INS_VDIVSS: case X86_INS_VDIVPS:
		return SIM_T_DIV_S;
	case X86_INS_DIVSD: case X86_INS_DIVPD: case X86_INS_VDIVSD: case X86_INS_VDIVPD:
		return SIM_T_DIV_D;
	case X86_INS_SQRTSS: case X86_INS_SQRTPS: case X86_INS_VSQRTSS: case X86_INS_VSQRTPS:
		return SIM_T_SQRT_S;
	case X86_INS_SQRTSD: case X86_INS_SQRTPD: case X86_INS_VSQRTSD: case X86_INS_VSQRTPD:
		return SIM_T_SQRT_D;
	case X86_INS_FDIV: case X86_INS_FDIVP: case X86_INS_FDIVR: case X86_INS_FDIVRP:
	case X86_INS_FIDIV: case X86_INS_FIDIVR:
		return SIM_T_X87_DIV;
	case X86_INS_FSQRT:
		return SIM_T_X87_SQRT;
	default:
		break;
	}
	if (!ci->detail)
		return SIM_T_PLAIN;
	/* the shadowing rule's pointer-chasing load (trace.c) */
	if (long_latency)
		return SIM_T_CHASE;
	return sim_timing__reads_memory(ci) ? SIM_T_LOAD : SIM_T_PLAIN;
}
