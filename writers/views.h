/* The pivot views of the database stores (writers/SCHEMA.md), one definition for SQLite and
 * PostgreSQL: each is "CREATE VIEW <name> AS <select>", in SQL both accept (every selected
 * column grouped, window functions, no dialect functions). Depends on nothing.
 */
#ifndef WRITERS_VIEWS_H
#define WRITERS_VIEWS_H

/* count: executions of the instructions, Σ over thread_blocks rows of the block's count,
 * once per instruction of the block; share: count over the run's total. */
#define VIEW_MIX(key, keyexpr)								\
	"SELECT run_id, " key ", count,"						\
	" count / SUM(count) OVER (PARTITION BY run_id) AS share FROM"			\
	" (SELECT tb.run_id AS run_id, " keyexpr ", SUM(tb.count) AS count"		\
	" FROM thread_blocks tb JOIN instructions i"					\
	" ON i.run_id = tb.run_id AND i.block_id = tb.block_id"			\
	" GROUP BY tb.run_id, " key ") t"						\
	" ORDER BY run_id, count DESC, " key

static const struct {
	const char *name;
	const char *select;
} store_views[] = {
	{ "mix_by_mnemonic", VIEW_MIX("mnemonic", "i.mnemonic AS mnemonic") },
	{ "mix_by_isa", VIEW_MIX("isa", "i.isa AS isa") },
	{ "mix_by_category", VIEW_MIX("category", "i.category AS category") },
	{ "mix_by_function",
	  "SELECT run_id, module, symbol, count,"
	  " count / SUM(count) OVER (PARTITION BY run_id) AS share FROM"
	  " (SELECT tb.run_id AS run_id, m.name AS module, s.name AS symbol,"
	  " SUM(tb.count * ni.n) AS count"
	  " FROM thread_blocks tb"
	  " JOIN (SELECT run_id, block_id, COUNT(*) AS n FROM instructions"
	  " GROUP BY run_id, block_id) ni ON ni.run_id = tb.run_id AND ni.block_id = tb.block_id"
	  " JOIN blocks b ON b.run_id = tb.run_id AND b.block_id = tb.block_id"
	  " LEFT JOIN modules m ON m.run_id = b.run_id AND m.module_id = b.module_id"
	  " LEFT JOIN symbols s ON s.run_id = b.run_id AND s.symbol_id = b.symbol_id"
	  " GROUP BY tb.run_id, b.module_id, b.symbol_id, m.name, s.name) t"
	  " ORDER BY run_id, count DESC, module, symbol" },
	{ "mix_by_thread",
	  "SELECT run_id, pid, tid, comm, count,"
	  " count / SUM(count) OVER (PARTITION BY run_id) AS share FROM"
	  " (SELECT tb.run_id AS run_id, tb.pid AS pid, tb.tid AS tid, tb.comm AS comm,"
	  " SUM(tb.count * ni.n) AS count"
	  " FROM thread_blocks tb"
	  " JOIN (SELECT run_id, block_id, COUNT(*) AS n FROM instructions"
	  " GROUP BY run_id, block_id) ni ON ni.run_id = tb.run_id AND ni.block_id = tb.block_id"
	  " GROUP BY tb.run_id, tb.pid, tb.tid, tb.comm) t"
	  " ORDER BY run_id, count DESC, pid, tid" },
	{ "block_detail",
	  "SELECT b.run_id AS run_id,"
	  " b.block_id AS block_id, m.name AS module, m.path AS module_path,"
	  " s.name AS symbol, b.address AS address, b.address - s.address AS symbol_offset,"
	  " b.length AS length, b.bytes AS bytes, b.srcline AS srcline, b.count AS count,"
	  " b.ebs_count AS ebs_count, b.lbr_count AS lbr_count, b.source AS source,"
	  " b.ebs_samples AS ebs_samples, b.lbr_streams AS lbr_streams, b.biased AS biased,"
	  " b.bias_share AS bias_share"
	  " FROM blocks b"
	  " LEFT JOIN modules m ON m.run_id = b.run_id AND m.module_id = b.module_id"
	  " LEFT JOIN symbols s ON s.run_id = b.run_id AND s.symbol_id = b.symbol_id" },
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
