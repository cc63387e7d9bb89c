/* Freestanding loop for the x86-32 decoding test (tests/cli/module_formats.sh): compiled
 * with cc -m32 -ffreestanding and linked with ld -m elf_i386, no libc needed. */
int hot_loop(const int *a, int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += (a[i] & 1) ? a[i] / 3 : -a[i];
	return s;
}

int other(int x)
{
	return x > 10 ? hot_loop(&x, 1) : x * 7;
}
