/* Object-oriented pointer chasing with short virtual methods (like the paper's Test40): a
 * shuffled linked list of shapes, each visited through a function-pointer table; N rounds
 * (argv[1], default 200) over 500 objects. Many tiny blocks, indirect calls and returns.
 */
#include <stdio.h>
#include <stdlib.h>

struct shape;
struct shape_ops {
	long (*area)(const struct shape *s);
	long (*perimeter)(const struct shape *s);
};
struct shape {
	const struct shape_ops *ops;
	struct shape *next;
	long a, b;
};

static long rect_area(const struct shape *s) { return s->a * s->b; }
static long rect_perimeter(const struct shape *s) { return 2 * (s->a + s->b); }
static long square_area(const struct shape *s) { return s->a * s->a; }
static long square_perimeter(const struct shape *s) { return 4 * s->a; }
static long tri_area(const struct shape *s) { return s->a * s->b / 2; }
static long tri_perimeter(const struct shape *s) { return s->a + s->b + (s->a > s->b ? s->a : s->b); }

static const struct shape_ops ops[3] = {
	{ rect_area, rect_perimeter },
	{ square_area, square_perimeter },
	{ tri_area, tri_perimeter },
};

#define NOBJ 500

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	static struct shape pool[NOBJ];
	static int order[NOBJ];
	unsigned seed = 12345;
	for (int i = 0; i < NOBJ; i++) {
		order[i] = i;
		pool[i].ops = &ops[i % 3];
		pool[i].a = i % 17 + 1;
		pool[i].b = i % 5 + 2;
	}
	for (int i = NOBJ - 1; i > 0; i--) {	/* deterministic shuffle */
		seed = seed * 1103515245u + 12345u;
		int j = (int)((seed >> 8) % (unsigned)(i + 1));
		int t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (int i = 0; i + 1 < NOBJ; i++)
		pool[order[i]].next = &pool[order[i + 1]];
	long sum = 0;
	for (int r = 0; r < rounds; r++)
		for (const struct shape *s = &pool[order[0]]; s; s = s->next)
			sum += s->ops->area(s) + (r & 1 ? s->ops->perimeter(s) : 0);
	printf("%ld\n", sum);
	return 0;
}
