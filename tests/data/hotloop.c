/* Test program for the bbmap block and source-line checks (tests/cli/module_hotloop.sh):
 * one hot loop with a data-dependent branch, compiled at test time with cc -O2 -g. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long hot_loop(const long *a, long n)
{
	long s = 0;

	for (long i = 0; i < n; i++) {
		if (a[i] & 1)
			s += a[i] / 3;
		else
			s -= a[i];
	}
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, *a = malloc(sizeof(*a) * (size_t)n), s = 0;

	for (long i = 0; i < n; i++)
		a[i] = i * 7 + 1;
	for (int r = 0; r < 100; r++)
		s += hot_loop(a, n);
	printf("%ld\n", s);
	free(a);
	return 0;
}
