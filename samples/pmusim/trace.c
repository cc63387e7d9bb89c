/* Reconstructs the exact retired-instruction stream and taken branches of a program from
 * qemu's in_asm (translated blocks) and exec/nochain (every executed block, in order) logs.
 * Decodes instructions with capstone to name them as capstone names them and to classify
 * control transfers. Knows nothing of perf.data or of the qemu log text format.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "samples/pmusim/pmusim.h"
#include "util/hbbp_err.h"
#include "util/grow.h"

struct sim_map_slot { uint64_t key; void *val; };
struct sim_map { struct sim_map_slot *s; size_t cap, n; };

struct sim_trace {
	struct sim_pmu *pmu;
	csh cs;
	cs_insn *ci;
	struct sim_map by_host, by_pc;
	struct sim_tb *all;
	struct sim_tb *pending;		/* translated, not yet executed */
	struct sim_tb *prev;		/* last executed */
	bool started;
	char **mn;
	size_t nr_mn, cap_mn;
	struct sim_map mn_hash;		/* string hash -> index+1 chain head (linear probe) */
	struct sim_trace_stats st;
};

static uint64_t sim_hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static int sim_map__put(struct sim_map *m, uint64_t key, void *val)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 1024;
		struct sim_map_slot *ns = calloc(ncap, sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->s[i].val)
				continue;
			size_t j = sim_hash64(m->s[i].key) & (ncap - 1);
			while (ns[j].val)
				j = (j + 1) & (ncap - 1);
			ns[j] = m->s[i];
		}
		free(m->s);
		m->s = ns;
		m->cap = ncap;
	}
	size_t j = sim_hash64(key) & (m->cap - 1);
	while (m->s[j].val && m->s[j].key != key)
		j = (j + 1) & (m->cap - 1);
	if (!m->s[j].val)
		m->n++;
	m->s[j].key = key;
	m->s[j].val = val;
	return 0;
}

static void *sim_map__get(const struct sim_map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	size_t j = sim_hash64(key) & (m->cap - 1);
	while (m->s[j].val) {
		if (m->s[j].key == key)
			return m->s[j].val;
		j = (j + 1) & (m->cap - 1);
	}
	return NULL;
}

static uint64_t sim_strhash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	return h;
}

/* Interns a mnemonic; returns its index or a negative error. Keys are string hashes, with
 * collisions resolved by probing on hash+1. */
static int64_t sim_trace__intern(struct sim_trace *t, const char *name)
{
	uint64_t h = sim_strhash(name);
	for (;; h++) {
		void *v = sim_map__get(&t->mn_hash, h);
		if (!v)
			break;
		size_t idx = (size_t)(uintptr_t)v - 1;
		if (!strcmp(t->mn[idx], name))
			return (int64_t)idx;
	}
	if (grow_one((void **)&t->mn, &t->cap_mn, sizeof(*t->mn), t->nr_mn))
		return -ENOMEM;
	char *copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	t->mn[t->nr_mn] = copy;
	int err = sim_map__put(&t->mn_hash, h, (void *)(uintptr_t)(t->nr_mn + 1));
	if (err) {
		free(copy);
		return err;
	}
	return (int64_t)t->nr_mn++;
}

int sim_trace__new(struct sim_trace **out, struct sim_pmu *pmu)
{
	struct sim_trace *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->pmu = pmu;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &t->cs) != CS_ERR_OK) {
		free(t);
		return -HBBP_EUNSUPP;
	}
	cs_option(t->cs, CS_OPT_DETAIL, CS_OPT_ON);
	t->ci = cs_malloc(t->cs);
	if (!t->ci) {
		cs_close(&t->cs);
		free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

void sim_trace__delete(struct sim_trace *t)
{
	if (!t)
		return;
	struct sim_tb *tb = t->all;
	while (tb) {
		struct sim_tb *n = tb->all_next;
		free(tb->insns);
		free(tb);
		tb = n;
	}
	for (size_t i = 0; i < t->nr_mn; i++)
		free(t->mn[i]);
	free(t->mn);
	free(t->by_host.s);
	free(t->by_pc.s);
	free(t->mn_hash.s);
	cs_free(t->ci, 1);
	cs_close(&t->cs);
	free(t);
}

static bool sim_is_string_op(unsigned id)
{
	switch (id) {
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD: case X86_INS_MOVSQ:
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
	case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
	case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSD: case X86_INS_CMPSQ:
	case X86_INS_SCASB: case X86_INS_SCASW: case X86_INS_SCASD: case X86_INS_SCASQ:
	case X86_INS_INSB: case X86_INS_INSW: case X86_INS_INSD:
	case X86_INS_OUTSB: case X86_INS_OUTSW: case X86_INS_OUTSD:
		return true;
	default:
		return false;
	}
}

static bool sim_is_long_latency(const cs_insn *ci)
{
	switch (ci->id) {
	case X86_INS_DIV: case X86_INS_IDIV:
	case X86_INS_DIVSD: case X86_INS_DIVSS: case X86_INS_DIVPD: case X86_INS_DIVPS:
	case X86_INS_VDIVSD: case X86_INS_VDIVSS: case X86_INS_VDIVPD: case X86_INS_VDIVPS:
	case X86_INS_SQRTSD: case X86_INS_SQRTSS: case X86_INS_SQRTPD: case X86_INS_SQRTPS:
	case X86_INS_VSQRTSD: case X86_INS_VSQRTSS: case X86_INS_VSQRTPD: case X86_INS_VSQRTPS:
	case X86_INS_FDIV: case X86_INS_FDIVP: case X86_INS_FDIVR: case X86_INS_FDIVRP:
	case X86_INS_FIDIV: case X86_INS_FIDIVR: case X86_INS_FSQRT:
		return true;
	default:
		break;
	}
	/* The cache-missing-load rule: a pointer-chasing load `mov reg, [reg + disp]`
	 * (destination is the base register, no index) depends on the previous load. */
	if (ci->id == X86_INS_MOV && ci->detail) {
		const cs_x86 *x = &ci->detail->x86;
		if (x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
		    x->operands[1].type == X86_OP_MEM &&
		    x->operands[1].mem.base == x->operands[0].reg &&
		    x->operands[1].mem.index == X86_REG_INVALID && x->operands[1].size == 8)
			return true;
	}
	return false;
}

static uint8_t sim_kind_of(const cs_insn *ci)
{
	const cs_detail *d = ci->detail;
	if (!d)
		return SIM_K_OTHER;
	bool jump = false, call = false, ret = false, intr = false;
	for (unsigned i = 0; i < d->groups_count; i++) {
		switch (d->groups[i]) {
		case CS_GRP_JUMP: jump = true; break;
		case CS_GRP_CALL: call = true; break;
		case CS_GRP_RET: ret = true; break;
		case CS_GRP_INT: case CS_GRP_IRET: intr = true; break;
		default: break;
		}
	}
	if (ci->id == X86_INS_SYSCALL || ci->id == X86_INS_SYSENTER || intr)
		return SIM_K_SYSCALL;
	if (call)
		return SIM_K_CALL;
	if (ret)
		return SIM_K_RET;
	if (jump)
		return (ci->id == X86_INS_JMP || ci->id == X86_INS_LJMP) ? SIM_K_JMP : SIM_K_JCC;
	return SIM_K_OTHER;
}

/* Fills in the attributes of a decoded instruction (t->ci). */
static void sim_trace__attrs(struct sim_trace *t, struct sim_insn *in)
{
	in->kind = sim_kind_of(t->ci);
	if (sim_is_long_latency(t->ci))
		in->flags |= SIM_F_LONG_LATENCY;
	in->tclass = sim_timing__class(t->ci, in->flags & SIM_F_LONG_LATENCY);
	if (t->ci->detail && t->ci->detail->x86.prefix[0] &&
	    (t->ci->detail->x86.prefix[0] == X86_PREFIX_REP ||
	     t->ci->detail->x86.prefix[0] == X86_PREFIX_REPNE) &&
	    sim_is_string_op(t->ci->id))
		in->flags |= SIM_F_REP_STRING;
}

/* A translation block is contiguous guest code, but qemu's in_asm listing may split an
 * instruction that straddles its disassembler's buffer (a ".byte 0x0f" line, then the rest
 * as another "instruction"). So the block's bytes are decoded again as one run with capstone;
 * qemu's lines are used only when that fails (or the listing is not contiguous). Returns the
 * number of instructions, 0 to fall back. */
static size_t sim_trace__decode_run(struct sim_trace *t, struct sim_insn *v, uint64_t pc,
				    const uint8_t *bytes, size_t total)
{
	const uint8_t *code = bytes;
	size_t size = total, n = 0;
	uint64_t addr = pc;
	while (size) {
		uint64_t at = addr;
		if (!cs_disasm_iter(t->cs, &code, &size, &addr, t->ci))
			return 0;
		struct sim_insn *in = &v[n++];
		memset(in, 0, sizeof(*in));
		in->addr = at;
		in->len = (uint8_t)t->ci->size;
		sim_trace__attrs(t, in);
		int64_t mn = sim_trace__intern(t, t->ci->mnemonic);
		if (mn < 0)
			return 0;
		in->mn = (uint32_t)mn;
	}
	return n;
}

int sim_trace__translated(struct sim_trace *t, const uint64_t *addrs, const uint8_t *lens,
			  const uint8_t *bytes, size_t nr)
{
	if (!nr)
		return 0;
	struct sim_tb *tb = calloc(1, sizeof(*tb));
	if (!tb)
		return -ENOMEM;
	size_t total = 0;
	bool contiguous = true;
	for (size_t i = 0; i < nr; i++) {
		total += lens[i];
		if (i + 1 < nr && addrs[i + 1] != addrs[i] + lens[i])
			contiguous = false;
	}
	tb->insns = calloc(total > nr ? total : nr, sizeof(*tb->insns));
	if (!tb->insns) {
		free(tb);
		return -ENOMEM;
	}
	tb->pc = addrs[0];
	size_t n = contiguous ? sim_trace__decode_run(t, tb->insns, addrs[0], bytes, total) : 0;
	if (n) {
		tb->n = (uint32_t)n;
		if (n != nr)
			t->st.nr_resegmented++;
	} else {
		memset(tb->insns, 0, (total > nr ? total : nr) * sizeof(*tb->insns));
		tb->n = (uint32_t)nr;
	}
	size_t off = 0;
	for (size_t i = 0; !n && i < nr; i++) {
		struct sim_insn *in = &tb->insns[i];
		const uint8_t *code = bytes + off;
		size_t size = lens[i];
		uint64_t addr = addrs[i];
		const char *name = "(bad)";
		in->addr = addrs[i];
		in->len = lens[i];
		if (cs_disasm_iter(t->cs, &code, &size, &addr, t->ci) && t->ci->size == lens[i]) {
			name = t->ci->mnemonic;
			sim_trace__attrs(t, in);
		} else {
			t->st.nr_bad_decode++;
		}
		int64_t mn = sim_trace__intern(t, name);
		if (mn < 0) {
			free(tb->insns);
			free(tb);
			return (int)mn;
		}
		in->mn = (uint32_t)mn;
		off += lens[i];
	}
	tb->all_next = t->all;
	t->all = tb;
	t->pending = tb;
	t->st.nr_tb_translated++;
	if (sim_map__get(&t->by_pc, tb->pc))
		t->st.nr_retranslated++;
	return sim_map__put(&t->by_pc, tb->pc, tb);
}

/* The running stream ends at the last instruction retired, by a transfer to `to`; the
 * stream's rounding up to whole cycles is charged to that instruction. */
static int sim_trace__leave(struct sim_trace *t, uint64_t to)
{
	t->prev->end_pad_q += sim_pmu__stream_pad_q(t->pmu);
	return sim_pmu__branch(t->pmu, t->prev->insns[t->prev->n - 1].addr, to);
}

int sim_trace__exec(struct sim_trace *t, uint64_t host, uint64_t pc)
{
	struct sim_tb *tb = NULL;
	int err;

	if (t->pending && t->pending->pc == pc) {
		tb = t->pending;
		err = sim_map__put(&t->by_host, host, tb);
		if (err)
			return err;
	} else {
		tb = sim_map__get(&t->by_host, host);
		if (!tb || tb->pc != pc)
			tb = sim_map__get(&t->by_pc, pc);
	}
	t->pending = NULL;
	if (!tb) {
		t->st.nr_unknown_tb++;
		return 0;
	}
	if (!t->started) {
		t->started = true;
		err = sim_pmu__start(t->pmu, pc);
		if (err)
			return err;
	}
	uint32_t first = 0;
	if (t->prev) {
		const struct sim_insn *last = &t->prev->insns[t->prev->n - 1];
		uint64_t fall = last->addr + last->len;
		if ((last->flags & SIM_F_REP_STRING) && pc == last->addr) {
			first = 1;	/* the same rep instruction, next iteration */
			tb->ncont++;
			t->st.nr_rep_cont++;
		} else if (last->kind == SIM_K_SYSCALL) {
			/* into the kernel and back (or into a signal handler) */
			t->st.nr_syscalls++;
			err = sim_trace__leave(t, SIM_OUTSIDE);
			if (!err)
				err = sim_pmu__branch(t->pmu, SIM_OUTSIDE, pc);
			if (err)
				return err;
		} else if (pc != fall || last->kind == SIM_K_JMP || last->kind == SIM_K_CALL ||
			   last->kind == SIM_K_RET) {
			if (last->kind == SIM_K_OTHER) {
				/* a signal delivered between blocks: through the kernel */
				t->st.nr_discont++;
				err = sim_trace__leave(t, SIM_OUTSIDE);
				if (!err)
					err = sim_pmu__branch(t->pmu, SIM_OUTSIDE, pc);
			} else {
				t->st.nr_taken++;
				err = sim_trace__leave(t, pc);
			}
			if (err)
				return err;
		}
	}
	tb->nexec++;
	t->st.nr_tb_exec++;
	t->st.nr_insns += tb->n - first;
	t->prev = tb;
	if (first < tb->n)
		return sim_pmu__retire(t->pmu, tb->insns + first, tb->n - first);
	return 0;
}

int sim_trace__finish(struct sim_trace *t)
{
	if (!t->prev)
		return 0;
	t->prev->end_pad_q += sim_pmu__stream_pad_q(t->pmu);
	return sim_pmu__finish(t->pmu, t->prev->insns[t->prev->n - 1].addr);
}

const struct sim_trace_stats *sim_trace__stats(const struct sim_trace *t) { return &t->st; }
const struct sim_tb *sim_trace__tbs(const struct sim_trace *t) { return t->all; }
const char *sim_trace__mnemonic(const struct sim_trace *t, uint32_t mn)
{
	return mn < t->nr_mn ? t->mn[mn] : "(bad)";
}
size_t sim_trace__nr_mnemonics(const struct sim_trace *t) { return t->nr_mn; }
