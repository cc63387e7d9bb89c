/* The text of one instruction (mnemonic and operands) of a converted run, by module name
 * and module vaddr, for listings (annotate, report). The one place that asks the
 * disassembler for listing text: today bbmap's decoded instruction (mnemonic + operands).
 * Depends on bbmap/session.h and bbmap/module.h; never prints.
 */
#include <stdio.h>
#include <string.h>

#include "hbbp/engine/convert.h"
#include "util/hbbp_err.h"

int convert__insn_text(void *ctx, const char *module, uint64_t addr, char *buf, size_t len)
{
	const struct convert_run *run = ctx;
	struct bbmap_module *m = NULL;
	const struct bbmap_block *blk;
	struct bbmap_dso *d;
	size_t i;

	if (!run || !run->session || !module || !len)
		return -HBBP_ENOTFOUND;
	for (i = 0; (d = bbmap_session__dso(run->session, i)); i++) {
		const char *n = bbmap_dso__name(d);

		if (n && !strcmp(n, module))
			break;
	}
	if (!d || bbmap_dso__module(d, &m) != DSO_OK || !m)
		return -HBBP_ENOTFOUND;
	if (bbmap_module__block_at(m, addr, &blk))
		return -HBBP_ENOTFOUND;
	for (i = 0; i < blk->nr_insns; i++) {
		const struct bbmap_insn *in = &blk->insns[i];

		if (in->addr != addr)
			continue;
		snprintf(buf, len, "%s%s%s", in->mnemonic ? in->mnemonic : "?",
			 in->operands && *in->operands ? " " : "",
			 in->operands ? in->operands : "");
		return 0;
	}
	return -HBBP_ENOTFOUND;
}
