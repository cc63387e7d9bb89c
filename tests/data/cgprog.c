/* A small deterministic program for the compare tests (callgrind and pmusim references):
 * cg_loop(1000) executes its loop body (add, rol, dec, jnz) exactly 1000 times and its xor and
 * ret once; cg_leaf is called 250 times from main and executes each of its three
 * instructions (lea, imul, ret) 250 times. Both are written in assembly so that their
 * instructions do not depend on the compiler.
 */
__asm__(".text\n"
	".globl cg_loop\n.type cg_loop, @function\ncg_loop:\n"
	"\txor %eax, %eax\n"
	"1:\tadd %rdi, %rax\n"
	"\trol $5, %rax\n"
	"\tdec %rdi\n"
	"\tjnz 1b\n"
	"\tret\n"
	".size cg_loop, .-cg_loop\n"
	".globl cg_leaf\n.type cg_leaf, @function\ncg_leaf:\n"
	"\tlea 1(%rdi), %rax\n"
	"\timul $3, %rax, %rax\n"
	"\tret\n"
	".size cg_leaf, .-cg_leaf\n");

long cg_loop(long n);
long cg_leaf(long x);

int main(void)
{
	volatile long n = 1000, sink;
	long s = 0, i;

	s += cg_loop(n);
	for (i = 0; i < 250; i++)
		s += cg_leaf(i);
	sink = s;
	(void)sink;
	return 0;
}
