/* The instructions of the code blocks the mix table reads, decoded ahead on a thread of their
 * own while the table sums the batch before: batches of HBBP_MIX_READ_BLOCKS blocks, each
 * decoded on the code ops' threads (fill_blocks), copied out of the block map and dropped
 * from it, so that the block map is used by that thread alone and its decoded instructions
 * stay bounded. The blocks read are those of the thread blocks, in order, with a count, of
 * code (HBBP_BLK_CODE) and passing the table's filters (pass, NULL: all).
 * Depends on hbbp/method/method.h and pthreads.
 */
#ifndef HBBP_MIX_READER_H
#define HBBP_MIX_READER_H

#include <stdbool.h>
#include <stddef.h>

#include "hbbp/method/method.h"

#define HBBP_MIX_READ_BLOCKS	4096	/* blocks decoded, copied and dropped at a time */

struct hbbp_mix_reader;

/* Starts the thread (ops->fill_blocks and ops->drop_insns needed); pass[i] (when not NULL)
 * whether thread block i is read, for every i < c->nr_tblocks; batch blocks at a time (at
 * most HBBP_MIX_READ_BLOCKS; smaller batches let tests cross their boundaries with small
 * inputs). 0, -ENOMEM or the error of pthread_create. */
int hbbp_mix_reader__start(struct hbbp_mix_reader **out, const struct hbbp_counts *c,
			   const struct hbbp_code_ops *ops, const bool *pass, size_t batch);
/* The instructions of thread block i, the next read (in order: every thread block read,
 * none skipped), its block's nr_insns of them in *insns (their operand text NULL), valid
 * until the next call. 0, or the error met decoding them. */
int hbbp_mix_reader__insns(struct hbbp_mix_reader *r, size_t i, const struct bbmap_insn **insns);
/* Stops the thread (at once, if the table did not read all) and frees the reader. */
void hbbp_mix_reader__exit(struct hbbp_mix_reader *r);

#endif
