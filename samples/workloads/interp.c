/* A branchy interpreter (like a compiler's front end): tokenises and evaluates a generated
 * arithmetic expression program of N statements (argv[1], default 300) with a recursive
 * descent parser and a switch-dispatched stack machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *p;

static long expr(void);

static void skip(void)
{
	while (*p == ' ')
		p++;
}

static long number(void)
{
	long v = 0;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (*p++ - '0');
	return v;
}

static long atom(void)
{
	skip();
	if (*p == '(') {
		p++;
		long v = expr();
		skip();
		if (*p == ')')
			p++;
		return v;
	}
	if (*p == '-') {
		p++;
		return -atom();
	}
	return number();
}

static long term(void)
{
	long v = atom();
	for (;;) {
		skip();
		char op = *p;
		if (op != '*' && op != '/' && op != '%')
			return v;
		p++;
		long r = atom();
		switch (op) {
		case '*': v *= r; break;
		case '/': v = r ? v / r : 0; break;
		default: v = r ? v % r : 0; break;
		}
	}
}

static long expr(void)
{
	long v = term();
	for (;;) {
		skip();
		char op = *p;
		if (op != '+' && op != '-')
			return v;
		p++;
		long r = term();
		v = op == '+' ? v + r : v - r;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	static const char *const stmts[] = {
		"1 + 2 * (3 - 4) % 5", "(7 * 8 - 9) / (2 + 1)", "-(3 + 4) * (5 - -6)",
		"((1 + 2) * (3 + 4) * (5 + 6)) % 97", "100 / 7 + 100 % 7 - 3 * 3",
	};
	long total = 0;
	for (int i = 0; i < n; i++) {
		p = stmts[i % 5];
		total += expr() + i;
	}
	printf("%ld\n", total);
	return 0;
}
