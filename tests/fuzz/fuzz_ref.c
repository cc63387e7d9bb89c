/* libFuzzer target on the reference readers of `compare`: reads the input as compare does
 * (the format detected from its content: our CSV and JSON outputs, pmusim truth CSV,
 * callgrind profiles, Intel SDE mix output) and aggregates it by each key it has. Module files
 * a reference names are looked up as compare does (paths that mostly do not exist here).
 * Depends only on hbbp/compare and what it links (bbmap, SQLite).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hbbp/compare/ref.h"
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "module", "mnemonic", "iclass", "symbol", "block" };
	struct ref_mix *m;
	const char *path;
	double sink = 0;
	size_t i;

	/* SQLite references are SQLite's own parser: not fuzzed here */
	if (size >= 15 && !memcmp(data, "SQLite format 3", 15))
		return 0;
	path = fuzz_file(data, size);
	if (!path || ref_mix__read(path, "count", &m))
		goto out;
	sink += m->total + m->unresolved + (double)m->nr_rows + (double)m->nr_ips;
	for (i = 0; i < m->nr_cols + sizeof(keys) / sizeof(keys[0]); i++) {
		const char *k = i < m->nr_cols ? m->cols[i] : keys[i - m->nr_cols];
		struct ref_agg agg;

		if (!ref_mix__has_key(m, k) || ref_mix__aggregate(m, &k, 1, &agg))
			continue;
		sink += agg.total + (double)agg.nr;
		ref_agg__exit(&agg);
	}
	if (m->nr_cols >= 2) {
		const char *two[2] = { m->cols[0], m->cols[m->nr_cols - 1] };
		struct ref_agg agg;

		if (!ref_mix__aggregate(m, two, 2, &agg)) {
			sink += agg.total;
			ref_agg__exit(&agg);
		}
	}
	ref_mix__delete(m);
out:
	ref_decode__exit();
	fuzz_sink += sink > 0;
	return 0;
}
