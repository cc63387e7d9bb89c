/* A user taxonomy of instructions: a small text file of lines `group: pattern pattern ...`
 * (patterns are mnemonics or shell globs such as `div* sqrt* lock*`; `#` starts a
 * comment). A mnemonic belongs to the first group, in file order, with a matching pattern;
 * a pattern matches the whole mnemonic ("lock xadd") or its last word ("xadd"), ignoring
 * case. The group name becomes a pivot column; "" when no group matches.
 * Depends on nothing but libc and util/hbbp_err.h.
 */
#ifndef BBMAP_TAXONOMY_H
#define BBMAP_TAXONOMY_H

#include <stddef.h>

struct bbmap_taxonomy;	/* opaque */

/* Reads a taxonomy file; -HBBP_EFORMAT (logged with file:line) on a malformed line. */
int bbmap_taxonomy__load(struct bbmap_taxonomy **out, const char *path);
/* Parses taxonomy text; name is used in messages. */
int bbmap_taxonomy__parse(struct bbmap_taxonomy **out, const char *text, const char *name);
void bbmap_taxonomy__delete(struct bbmap_taxonomy *t);

/* The group of a mnemonic, or "" (never NULL). */
const char *bbmap_taxonomy__group(const struct bbmap_taxonomy *t, const char *mnemonic);
size_t bbmap_taxonomy__nr_groups(const struct bbmap_taxonomy *t);
const char *bbmap_taxonomy__group_name(const struct bbmap_taxonomy *t, size_t idx);

#endif
