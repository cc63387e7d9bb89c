/* Benchmark: decodes every function of a binary through bbmap_module__block_at and prints
 * the decoding rate (per second of CPU time, so that a loaded machine does not skew it). Usage: bbmap_bench FILE [MIN_MB_PER_S]; with a minimum, exits 1 when
 * the rate is below it. Prints "MB/s insns/s bytes insns seconds".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bbmap/module.h"
#include "util/hbbp_err.h"

int main(int argc, char **argv)
{
	struct bbmap_module *m;
	struct bbmap_module_stats st;
	struct timespec t0, t1;
	const struct bbmap_block *b;
	double sec, mbs;
	size_t i;
	int err;

	if (argc < 2) {
		fprintf(stderr, "usage: bbmap_bench FILE [MIN_MB_PER_S]\n");
		return 2;
	}
	err = bbmap_module__open_flags(&m, argv[1], NULL, 0);
	if (err) {
		fprintf(stderr, "%s: %s\n", argv[1], hbbp_strerror(err));
		return 2;
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	for (i = 0; i < bbmap_module__nr_symbols(m); i++)
		bbmap_module__block_at(m, bbmap_module__symbol(m, i)->start, &b);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	bbmap_module__stats(m, &st);
	sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	mbs = (double)st.bytes_decoded / 1e6 / sec;
	printf("%.1f MB/s %.2f Minsns/s %" PRIu64 " bytes %" PRIu64 " insns %.3f s lines=%d\n",
	       mbs, (double)st.nr_insns / 1e6 / sec, st.bytes_decoded, st.nr_insns, sec,
	       bbmap_module__has_lines(m));
	bbmap_module__delete(m);
	return argc > 2 && mbs < atof(argv[2]) ? 1 : 0;
}
