/* A libc-heavy workload that crosses modules when linked dynamically: formats, sorts,
 * searches and copies N strings (argv[1], default 300) with snprintf, qsort, strcmp,
 * strlen, memcpy and strtol from the shared C library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	char **v = calloc((size_t)n, sizeof(*v));
	if (!v)
		return 1;
	for (int i = 0; i < n; i++) {
		char buf[64];
		snprintf(buf, sizeof(buf), "item-%d-%x", (i * 7919) % 1000, i);
		v[i] = malloc(strlen(buf) + 1);
		if (!v[i])
			return 1;
		memcpy(v[i], buf, strlen(buf) + 1);
	}
	qsort(v, (size_t)n, sizeof(*v), cmp);
	long sum = 0;
	for (int i = 0; i < n; i++) {
		sum += strtol(v[i] + 5, NULL, 10) + (long)strlen(v[i]);
		free(v[i]);
	}
	free(v);
	printf("%ld\n", sum);
	return 0;
}
