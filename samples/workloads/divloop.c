/* A long-latency loop: integer and floating-point divisions and square roots in a tight
 * dependent chain, N iterations (argv[1], default 20000). The instructions after each
 * division are where shadowed samples pile up.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	unsigned long a = 0x9e3779b97f4a7c15ULL, acc = 0;
	double d = 1.0;
	for (long i = 1; i <= n; i++) {
		acc += a / (unsigned long)(i | 1);
		a ^= acc + (unsigned long)i;
		d = sqrt(d + 1.0 / (double)i);
	}
	printf("%lu %.6f\n", acc, d);
	return 0;
}
