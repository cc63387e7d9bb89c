/* The text of one instruction (mnemonic and operands) of a converted run, by module name
 * and module vaddr, for listings (annotate, report). The one place that asks the
 * disassembler for listing text (bbmap_module__insn_text).
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
	return bbmap_module__insn_text(m, addr, buf, len);
}
