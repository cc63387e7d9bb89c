/* Prime search by trial division (like the paper's Table 7 test program): counts the primes
 * below N (argv[1], default 20000). Integer division dominates; blocks are short and hot.
 */
#include <stdio.h>
#include <stdlib.h>

static int is_prime(unsigned n)
{
	if (n < 2)
		return 0;
	for (unsigned d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 20000;
	unsigned count = 0;
	for (unsigned i = 0; i < n; i++)
		count += (unsigned)is_prime(i);
	printf("%u primes below %u\n", count, n);
	return 0;
}
