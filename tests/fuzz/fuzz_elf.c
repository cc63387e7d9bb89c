/* libFuzzer target on the ELF side of bbmap: opens the input as a module (ELF headers,
 * symbols, .eh_frame, build-id, DWARF line tables) and disassembles some of it: the blocks
 * of the first symbols and their fall-through successors, a leader added inside one, the
 * symbol and file-offset lookups. Every other input is opened as the conversion opens its
 * modules (lazy instructions, no operands) and also takes the conversion's path: leaders
 * added in a batch (on two threads for some inputs), block spans, blocks decoded in full on
 * two threads, their instructions dropped, then all the code dropped or forgotten and the
 * blocks walked again. Work per input is bounded (symbols and blocks visited).
 * Depends only on bbmap.
 */
#include <stdint.h>
#include <stdio.h>

#include "bbmap/module.h"
#include "tests/fuzz/fuzz_common.h"

#define MAX_SYMS	6
#define MAX_CHAIN	4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t walk(struct bbmap_module *m, uint64_t vaddr)
{
	const struct bbmap_block *b, *next;
	uint64_t sink = 0;
	int i;

	if (bbmap_module__block_at(m, vaddr, &b))
		return 0;
	for (i = 0; i < MAX_CHAIN; i++) {
		uint32_t k;

		sink += b->end - b->start;
		for (k = 0; k < b->nr_insns; k++)
			sink += b->insns[k].len + b->insns[k].mnemonic[0] + b->insns[k].iclass[0];
		if (bbmap_module__block_at(m, b->end, &next) || !next)
			break;
		b = next;
	}
	return sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int inited;
	struct bbmap_module_stats st;
	struct bbmap_module *m;
	const uint8_t *id;
	const char *path;
	uint64_t sink = 0, v;
	size_t i, n;
	unsigned int flags;

	if (!inited) {
		bbmap_module__threads_init();
		inited = 1;
	}
	path = fuzz_file(data, size);
	flags = size & 1 ? BBMAP_MODULE_NO_LINES : 0;
	if (size & 2)
		flags |= BBMAP_MODULE_LAZY_INSNS | BBMAP_MODULE_NO_OPERANDS;
	if (!path || bbmap_module__open_flags(&m, path, NULL, flags))
		return 0;
	sink += bbmap_module__arch(m) + bbmap_module__build_id(m, &id);
	if (!bbmap_module__symbol_addr(m, "_start", &v))
		sink += walk(m, v);
	if (!bbmap_module__offset_to_vaddr(m, 0x1000, &v))
		sink += walk(m, v);
	n = bbmap_module__nr_symbols(m);
	for (i = 0; i < n && i < MAX_SYMS; i++) {
		const struct bbmap_symbol *s = bbmap_module__symbol(m, i);
		const struct bbmap_symbol *at;

		if (!s)
			continue;
		sink += walk(m, s->start);
		at = bbmap_module__symbol_at(m, s->start + s->size / 2);
		if (at)
			sink += at->start + (uint8_t)at->name[0];
		if (i == 0 && s->size > 2) {
			bbmap_module__add_leader(m, s->start + 2);
			sink += walk(m, s->start);
		}
	}
	if (size & 2) {	/* the conversion's path through a lazy module */
		uint64_t at[MAX_SYMS * 2];
		size_t k = 0;

		for (i = 0; i < n && i < MAX_SYMS; i++) {
			const struct bbmap_symbol *s = bbmap_module__symbol(m, i);

			if (s && s->size > 1) {
				at[k++] = s->start;
				at[k++] = s->start + s->size - 1;
			}
		}
		for (i = 0; i < k; i++)
			bbmap_module__add_leader(m, at[i]);
		for (i = 0; i < k; i++) {
			const struct bbmap_block *b;

			if (!bbmap_module__block_span(m, at[i], &b))
				sink += b->end - b->start + b->nr_insns;
		}
		for (i = 0; i < k; i++)
			sink += walk(m, at[i]);
		bbmap_module__drop_insns(m);
		if (k)
			sink += walk(m, at[0]);
		if (size & 8)
			bbmap_module__forget_code(m);
		else
			bbmap_module__drop_code(m);
		for (i = 0; i < k; i++)
			sink += walk(m, at[i]);
	}
	bbmap_module__stats(m, &st);
	sink += st.nr_insns + st.nr_bad;
	bbmap_module__delete(m);
	fuzz_sink += (uint64_t)sink;
	return 0;
}
