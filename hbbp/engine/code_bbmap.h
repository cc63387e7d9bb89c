/* struct hbbp_code_ops over a bbmap_session (hbbp/engine/code_bbmap.c). */
#ifndef HBBP_CODE_BBMAP_H
#define HBBP_CODE_BBMAP_H

#include "bbmap/session.h"
#include "hbbp/method/method.h"

void hbbp_code_bbmap__init(struct hbbp_code_ops *ops, struct bbmap_session *s);

#endif
