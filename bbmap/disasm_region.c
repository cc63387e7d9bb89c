/* Decodes one region of a module's code: picks the decoder by architecture (Zydis for x86
 * and x86-64, disasm_zydis.c; capstone for AArch64 and ARM, disasm_capstone.c), decodes
 * into the module's scratch buffers (reused, already touched) and keeps exact copies, so
 * that decoding touches as little fresh memory as possible. Also gives one instruction's
 * operand text again from the file's bytes. Knows nothing of perf.data, symbols or blocks.
 */
#include <errno.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "bbmap/module_priv.h"
#include "util/hbbp_err.h"
#include "util/grow.h"

void bbmap_module__threads_init(void)
{
	elf_version(EV_CURRENT);
	cs_support(CS_ARCH_ALL);	/* fills capstone's architecture tables, once */
	mod_zydis__init();		/* Zydis's name tables, once */
}

void mod_decoder__drop_scratch(struct mod_decoder *d)
{
	free(d->scr_insns);
	free(d->scr_text);
	d->scr_insns = NULL;
	d->scr_text = NULL;
	d->scr_cap = d->scr_text_cap = 0;
}

void mod_decoder__exit(struct mod_decoder *d)
{
	mod_capstone__close(d);
	mod_decoder__drop_scratch(d);
	d->zy_open = false;
}

int mod_disasm__grow(struct mod_decoder *d, size_t need)
{
	return grow_array((void **)&d->scr_insns, &d->scr_cap, sizeof(*d->scr_insns), need,
			  SIZE_MAX);
}

#define TEXT_START	4096	/* bytes: the operand text's first size */

size_t mod_text__add(struct mod_text_buf *t, const char *s)
{
	size_t n = strlen(s) + 1, off = t->len;

	if (t->len + n > t->cap &&
	    grow_array((void **)&t->p, &t->cap, 1,
		       t->len + n < TEXT_START ? TEXT_START : t->len + n, SIZE_MAX))
		return (size_t)-1;
	memcpy(t->p + off, s, n);
	t->len += n;
	return off;
}

static bool is_x86(const struct bbmap_module *m)
{
	return m->arch == BBMAP_ARCH_X86_64 || m->arch == BBMAP_ARCH_X86_32;
}

/* The code bytes of [r->start, r->end), or NULL when they are not all in the file. */
static const uint8_t *region_code(const struct bbmap_module *m, const struct mod_region *r)
{
	const struct mod_code_range *cr = mod_elf__code_range(m, r->start);

	if (!cr || r->end <= r->start || r->end - cr->vaddr > cr->size)
		return NULL;
	return m->image + cr->file_off + (r->start - cr->vaddr);
}

int mod_disasm__scratch(const struct bbmap_module *m, struct mod_decoder *d, struct mod_region *r,
			struct mod_text_buf *text)
{
	const uint8_t *code = region_code(m, r);
	int err;

	if (!code)
		return -HBBP_ENOTFOUND;
	if (text) {
		text->p = d->scr_text;
		text->cap = d->scr_text_cap;
		text->len = 0;
	}
	r->nr_insns = 0;
	err = mod_disasm__grow(d, (r->end - r->start) / 4 + 16);
	if (!err)
		err = is_x86(m) ? mod_zydis__region(m, d, r, code, text) :
				  mod_capstone__region(m, d, r, code, text);
	if (text) {
		d->scr_text = text->p;
		d->scr_text_cap = text->cap;
	}
	if (!err) {
		d->stats.bytes_decoded += r->end - r->start;
		d->stats.nr_insns += r->nr_insns;
	}
	return err;
}

bool mod_disasm__can_outline(const struct bbmap_module *m)
{
	return is_x86(m);
}

int mod_disasm__region(const struct bbmap_module *m, struct mod_decoder *d, struct mod_region *r)
{
	struct mod_text_buf text = { 0 };
	uint32_t i;
	int err;

	err = mod_disasm__scratch(m, d, r, &text);
	if (err)
		return err;
	r->insns = malloc((r->nr_insns ? r->nr_insns : 1) * sizeof(*r->insns));
	r->text = malloc(text.len ? text.len : 1);
	if (!r->insns || !r->text)
		return -ENOMEM;
	memcpy(r->insns, d->scr_insns, r->nr_insns * sizeof(*r->insns));
	memcpy(r->text, text.p, text.len);
	/* Operands were offsets into text until text stopped moving. */
	for (i = 0; i < r->nr_insns; i++)
		r->insns[i].operands = r->text + (uintptr_t)r->insns[i].operands;
	return 0;
}
