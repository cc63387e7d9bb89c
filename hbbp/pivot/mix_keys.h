/* What the three parts of the mix share (hbbp/pivot/mix.h): the mix being built, the pivot
 * keys' descriptors (hbbp/pivot/mix_keys.c, one per key: adding a key is one row of its table
 * and one function), the filters, and the names of dsos and of missing values.
 * Depends on hbbp/pivot/mix.h; never prints.
 */
#ifndef HBBP_MIX_KEYS_H
#define HBBP_MIX_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hbbp/pivot/mix.h"

/* One mix being built. */
struct mix_ctx {
	const struct hbbp_counts *c;
	struct hbbp_accum *d;
	const struct hbbp_code_ops *ops;
	const struct hbbp_mix_opts *o;
	const struct perf_reader_stats *rs;	/* lost and throttled records */
};

/* Where a key's value is read: in mix x, instruction in (NULL: the pseudo instruction of a
 * block without code) of block b, in thread block t. */
struct key_at {
	const struct mix_ctx *x;
	const struct hbbp_tblock *t;
	const struct hbbp_block *b;
	const struct bbmap_insn *in;
};

#define KEY_NONE	UINT64_MAX	/* an int key without a value (a NULL cell) */
#define KEY_TEXT_MAX	4096		/* room for a text a key makes */

/* A key's value: an int key's number (or KEY_NONE), a text key's text. */
struct key_val {
	uint64_t num;
	const char *text;		/* a string that lives as long as the mix, or buf */
	char buf[KEY_TEXT_MAX];
};

enum key_type { KEY_TEXT, KEY_INT };

struct hbbp_key {
	const char *name;		/* NULL: the --taxonomy column */
	enum key_type type;
	/* HBBP_KEY_*: what value reads beyond the block: the thread or the instruction (not
	 * both: the first is valued once a thread block, the second once a block instruction,
	 * a key that reads neither once a block) */
	unsigned needs;
	void (*value)(const struct key_at *at, struct key_val *v);
	const char *alias;		/* perf's name for the same key (the column keeps name) */
};

/* The markers of missing values in key columns, one per kind (writers/SCHEMA.md): the code
 * was not found ([no code], [undecoded], [unmapped]: every instruction-level key of such
 * weight), the tool cannot tell ([unknown]: symbol, source line, command), the attribute
 * does not apply (none: no memory access, no packing, in no taxonomy group). */
#define MARK_UNKNOWN "[unknown]"
#define MARK_NONE "none"

/* The marker of a block without code of kind k ("" for code). */
const char *mix__kind_marker(enum hbbp_block_kind k);
/* A dso's full (recorded) name; "[unmapped]" for NULL. */
const char *mix__dso_full(const struct mix_ctx *x, const struct bbmap_dso *dso);
/* "file:line" of in, its path normalized ("" without line information). */
void mix__srcline(const struct bbmap_insn *in, char *out, size_t size);

/* Whether thread block t passes the filters (hbbp_mix__filtered). */
bool mix__passes(const struct mix_ctx *x, const struct hbbp_tblock *t);

#endif
