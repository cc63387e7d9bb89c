/* The tables of a conversion result: one source of truth for their names and columns, used by
 * hbbp/ (which fills them) and by the SQLite writer (which creates them and its views).
 * Column specs are "name:type", type in {int, real, text}; README documents them for users.
 *
 *  mix            the pivot rows: the --by key columns in the order given, then count,
 *                 count_lo, count_hi (its 95% interval for the sampling noise), share
 *                 (and with --diagnostics: source, ebs_count, lbr_count, ebs_samples,
 *                 lbr_streams, biased), and with a block key length and executions.
 *                 Columns vary with --by, so they are not listed here.
 *  events         one row per perf event of the recording
 *  modules        one row per binary (dso) that samples landed in
 *  symbols        functions with executed blocks
 *  blocks         every executed basic block with both estimates, the chosen one (executions,
 *                 and the instructions they ran) and its executions per batch of the samples
 *                 (batch0..batch9, SCHEMA_BATCHES of them): what every pivot but by thread is
 *                 computed from, its interval from the batches
 *  instructions   static attributes of every instruction of every executed block
 *  thread_blocks  per-thread block execution counts, with their batches (only when the run
 *                 keeps its sums per thread: a thread key or filter, or --store threads)
 *
 * Ids (module_id, symbol_id, block_id) are per run; SQLite adds run_id to every table.
 */
#ifndef WRITERS_SCHEMA_H
#define WRITERS_SCHEMA_H

#include <stddef.h>

#define SCHEMA_FORMAT_VERSION 3	/* 2: count_lo, count_hi, batch0..9; 3: blocks' executions,
					 * instructions and batches, instructions.isa_set, a mix
					 * of every run's columns */
#define SCHEMA_ROWS_VERSION 2	/* JSON's and JSON Lines' format_version: their rows and
				 * metadata did not change in 3 */

static const char *const schema_events[] = {
	"event_id:int", "name:text", "type:int", "config:int", "sample_type:int",
	"branch_sample_type:int", "period:int", "freq:int", "precise_ip:int", "role:text",
	"role_reason:text", "samples:int", "lost:int", "throttled:int", "time_enabled:int",
	"time_running:int",
};
static const char *const schema_modules[] = {
	"module_id:int", "name:text", "path:text", "build_id:text", "kind:text", "status:text",
	"status_detail:text",
};
static const char *const schema_symbols[] = {
	"symbol_id:int", "module_id:int", "name:text", "address:int", "size:int",
};
static const char *const schema_blocks[] = {
	"block_id:int", "module_id:int", "symbol_id:int", "address:int", "length:int",
	"bytes:int", "srcline:text", "executions:real", "executions_lo:real",
	"executions_hi:real", "ebs_count:real", "lbr_count:real",
	"source:text", "ebs_samples:int", "lbr_streams:int", "biased:int", "bias_share:real",
	"instructions:real", "batch0:real", "batch1:real", "batch2:real", "batch3:real",
	"batch4:real", "batch5:real", "batch6:real", "batch7:real", "batch8:real", "batch9:real",
};
#define SCHEMA_BLOCKS_BATCH0	18	/* column index of batch0 in schema_blocks */
static const char *const schema_instructions[] = {
	"block_id:int", "module_id:int", "address:int", "idx:int", "mnemonic:text",
	"iclass:text", "isa:text", "category:text", "packing:text", "elem:text", "width:int",
	"mem_read:int", "mem_write:int", "nr_ops:int", "length:int", "srcline:text",
	"isa_set:text",
};
static const char *const schema_thread_blocks[] = {
	"pid:int", "tid:int", "comm:text", "block_id:int", "count:real", "count_lo:real",
	"count_hi:real", "ebs_count:real", "lbr_count:real", "batch0:real", "batch1:real",
	"batch2:real", "batch3:real", "batch4:real", "batch5:real", "batch6:real", "batch7:real",
	"batch8:real", "batch9:real",
};
/* Batches of the samples (thread_blocks.batch0..): the intervals are batch means over them,
 * with Student's t at SCHEMA_BATCHES - 1 degrees of freedom (SCHEMA_T975). */
#define SCHEMA_BATCHES	10
#define SCHEMA_T975	"2.26215716"
#define SCHEMA_TB_BATCH0	9	/* column index of batch0 in schema_thread_blocks */

#define SCHEMA_NR(cols) (sizeof(cols) / sizeof((cols)[0]))

#endif
