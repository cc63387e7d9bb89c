/* The pivot views of the database stores (writers/SCHEMA.md), one definition for SQLite and
 * PostgreSQL: each is "CREATE VIEW <name> AS <select>", in SQL both accept (every selected
 * column grouped, window functions, sqrt, no other dialect functions). Depends on
 * writers/schema.h only.
 */
#ifndef WRITERS_VIEWS_H
#define WRITERS_VIEWS_H

#include "writers/schema.h"

/* count: executions of the instructions, Σ over the blocks of a block's executions, once per
 * instruction of the block (blocks ⋈ instructions); a block without code (length NULL, no
 * instructions, no executions: its weight is instructions already) once, keyed by its
 * marker (in srcline); share: count over the run's total of every row, as in the CSV
 * (writers/SCHEMA.md, "share"). Module names are the recorded names' last component, as
 * the CSV's. count_lo, count_hi: the 95% interval of count from its batch estimates b0..b9
 * over 10 (the columns batch0..9 summed as count is; batch means, as hbbp/method/interval.c
 * computes it for the mix table): count -/+ t(9) * sqrt(Σ (10 b_i - count)^2 / 90), the low
 * end at least 0. sqrt: SQLite's math functions, PostgreSQL's own. */
_Static_assert(SCHEMA_BATCHES == 10, "the views below spell out 10 batches");
#define VIEW_B(t, i, f)	", SUM(" t ".batch" #i f ") AS b" #i
#define VIEW_BATCHES(t, f)								\
	VIEW_B(t, 0, f) VIEW_B(t, 1, f) VIEW_B(t, 2, f) VIEW_B(t, 3, f) VIEW_B(t, 4, f)	\
	VIEW_B(t, 5, f) VIEW_B(t, 6, f) VIEW_B(t, 7, f) VIEW_B(t, 8, f) VIEW_B(t, 9, f)
#define VIEW_D(i)	"(10 * b" #i " - count) * (10 * b" #i " - count)"
#define VIEW_HALF	" " SCHEMA_T975 " * sqrt((" VIEW_D(0) " + " VIEW_D(1) " + " VIEW_D(2)	\
			" + " VIEW_D(3) " + " VIEW_D(4) " + " VIEW_D(5) " + " VIEW_D(6) " + "	\
			VIEW_D(7) " + " VIEW_D(8) " + " VIEW_D(9) ") / 90.0) AS half"
/* the outer selects of a view over a subquery (run_id, key..., count, b0..b9) that follows,
 * closed by VIEW_TAIL */
#define VIEW_HEAD(key)									\
	"SELECT run_id, " key ", count,"						\
	" CASE WHEN count > 0 AND count - half > 0 THEN count - half ELSE 0 END AS count_lo," \
	" CASE WHEN count > 0 THEN count + half ELSE 0 END AS count_hi,"		\
	" count / SUM(count) OVER (PARTITION BY run_id) AS share FROM"			\
	" (SELECT run_id, " key ", count," VIEW_HALF " FROM"
#define VIEW_TAIL(order)	" t) u ORDER BY run_id, count DESC, " order
#define VIEW_MIX(key, col)								\
	VIEW_HEAD(key)									\
	" (SELECT b.run_id AS run_id, COALESCE(i." col ", b.srcline) AS " key ","	\
	" SUM(COALESCE(b.executions, b.instructions)) AS count" VIEW_BATCHES("b", "")	\
	" FROM blocks b"								\
	" LEFT JOIN instructions i ON i.run_id = b.run_id AND i.block_id = b.block_id"	\
	" WHERE b.instructions > 0 AND (i.block_id IS NOT NULL OR b.length IS NULL)"	\
	" GROUP BY b.run_id, COALESCE(i." col ", b.srcline))" VIEW_TAIL(key)
/* instructions per block: the decoded ones, 1 for a block without code */
#define VIEW_NI										\
	" JOIN blocks b ON b.run_id = tb.run_id AND b.block_id = tb.block_id"		\
	" LEFT JOIN (SELECT run_id, block_id, COUNT(*) AS n FROM instructions"		\
	" GROUP BY run_id, block_id) ni ON ni.run_id = tb.run_id AND ni.block_id = tb.block_id"
#define VIEW_NI_WHERE " WHERE tb.count > 0 AND (ni.n IS NOT NULL OR b.length IS NULL)"
/* a module's short name (its recorded name's last component), as the CSV's */
#define VIEW_MODULE(name)								\
	"COALESCE(replace(" name ", rtrim(" name ", replace(" name ", '/', '')), ''), '[unmapped]')"
/* block_detail, with the address as hex text (the tables keep the 64-bit value as a signed
 * integer, so kernel addresses are negative there): the one dialect difference. A block's
 * executions and the instructions they ran (x length; a block without code, length NULL,
 * has no executions: its weight is already instructions), each with its interval. */
#define VIEW_BLOCK_DETAIL(hex_address)							\
	"SELECT b.run_id AS run_id,"							\
	" b.block_id AS block_id, " VIEW_MODULE("m.name") " AS module,"		\
	" m.path AS module_path,"							\
	" s.name AS symbol, " hex_address " AS address,"				\
	" b.address - s.address AS symbol_offset,"					\
	" b.length AS length, b.bytes AS bytes, b.srcline AS srcline,"		\
	" b.executions AS executions, b.executions_lo AS executions_lo,"		\
	" b.executions_hi AS executions_hi, b.instructions AS instructions,"		\
	" b.executions_lo * b.length AS instructions_lo,"				\
	" b.executions_hi * b.length AS instructions_hi,"				\
	" b.ebs_count AS ebs_count, b.lbr_count AS lbr_count, b.source AS source,"	\
	" b.ebs_samples AS ebs_samples, b.lbr_streams AS lbr_streams, b.biased AS biased," \
	" b.bias_share AS bias_share"							\
	" FROM blocks b"								\
	" LEFT JOIN modules m ON m.run_id = b.run_id AND m.module_id = b.module_id"	\
	" LEFT JOIN symbols s ON s.run_id = b.run_id AND s.symbol_id = b.symbol_id"

/* select: SQLite's; select_pg: PostgreSQL's where it differs (else NULL). */
static const struct {
	const char *name;
	const char *select;
	const char *select_pg;
} store_views[] = {
	{ "mix_by_mnemonic", VIEW_MIX("mnemonic", "mnemonic"), NULL },
	{ "mix_by_isa", VIEW_MIX("isa", "isa"), NULL },
	{ "mix_by_category", VIEW_MIX("category", "category"), NULL },
	{ "mix_by_function",
	  VIEW_HEAD("module, symbol")
	  " (SELECT b.run_id AS run_id,"
	  " " VIEW_MODULE("m.name") " AS module, COALESCE(s.name, '[unknown]') AS symbol,"
	  " SUM(b.instructions) AS count" VIEW_BATCHES("b", " * COALESCE(b.length, 1)")
	  " FROM blocks b"
	  " LEFT JOIN modules m ON m.run_id = b.run_id AND m.module_id = b.module_id"
	  " LEFT JOIN symbols s ON s.run_id = b.run_id AND s.symbol_id = b.symbol_id"
	  " WHERE b.instructions > 0"
	  " GROUP BY b.run_id, 2, 3)" VIEW_TAIL("module, symbol"), NULL },
	{ "mix_by_thread",
	  VIEW_HEAD("pid, tid, comm")
	  " (SELECT tb.run_id AS run_id, tb.pid AS pid, tb.tid AS tid,"
	  " COALESCE(NULLIF(tb.comm, ''), '[unknown]') AS comm,"
	  " SUM(tb.count * COALESCE(ni.n, 1)) AS count"
	  VIEW_BATCHES("tb", " * COALESCE(ni.n, 1)")
	  " FROM thread_blocks tb" VIEW_NI VIEW_NI_WHERE
	  " GROUP BY tb.run_id, tb.pid, tb.tid, 4)" VIEW_TAIL("pid, tid"), NULL },
	{ "block_detail", VIEW_BLOCK_DETAIL("printf('0x%x', b.address)"),
	  VIEW_BLOCK_DETAIL("'0x' || to_hex(b.address)") },
};
#define NR_STORE_VIEWS (sizeof(store_views) / sizeof(store_views[0]))

/* Indexes: name, table, columns (after run_id). */
static const struct {
	const char *name, *table, *col;
} store_indexes[] = {
	{ "instructions_block", "instructions", "block_id" },
	{ "thread_blocks_block", "thread_blocks", "block_id" },
	{ "blocks_block", "blocks", "block_id" },
	{ "modules_module", "modules", "module_id" },
	{ "symbols_symbol", "symbols", "symbol_id" },
};
#define NR_STORE_INDEXES (sizeof(store_indexes) / sizeof(store_indexes[0]))

#endif
