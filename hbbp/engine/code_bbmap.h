/* The code over a bbmap_session, as the method and the mix reach it (hbbp/engine/code_bbmap.c):
 * struct hbbp_code (the method's: locations, modules, leaders, blocks without their
 * instructions, symbols, names) and struct hbbp_code_ops (the mix's: blocks with their
 * instructions, dsos' names, kinds, paths and build-ids, freeing), and the records that
 * change the address spaces.
 */
#ifndef HBBP_CODE_BBMAP_H
#define HBBP_CODE_BBMAP_H

#include "bbmap/session.h"
#include "hbbp/method/method.h"
#include "hbbp/pivot/mix.h"

/* Binds code and ops to session s (their ctx). */
void hbbp_code_bbmap__init(struct hbbp_code *code, struct hbbp_code_ops *ops,
			   struct bbmap_session *s);
/* A non-sample record (MMAP, MMAP2, COMM, FORK, EXIT, KSYMBOL, HEADER_BUILD_ID) to the
 * address spaces; others are ignored. 0 or an error of the session. */
int hbbp_code_bbmap__record(struct bbmap_session *s, const struct perf_record *rec);

#endif
