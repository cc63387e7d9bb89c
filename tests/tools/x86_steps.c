/* Test tool: the instruction starts the processor itself executes. Runs PROGRAM (a small
 * static x86-64 program) under ptrace, single-stepping, and prints the address of every
 * instruction it executes ("0x<hex>", one per line, each address once, in first-execution
 * order), up to MAX steps. This is the oracle for instruction boundaries that decoders
 * (objdump, Zydis) disagree on. Exit 0 when the program ran to its end, 2 when it could not
 * be traced (no ptrace here: the calling test skips), 1 otherwise. Knows nothing of the tool.
 * Usage: x86_steps PROGRAM [MAX]
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_SEEN 65536

static uint64_t seen[MAX_SEEN];
static size_t nr_seen;

static void note(uint64_t ip)
{
	size_t i;

	for (i = 0; i < nr_seen; i++)
		if (seen[i] == ip)
			return;
	if (nr_seen < MAX_SEEN)
		seen[nr_seen++] = ip;
	printf("0x%" PRIx64 "\n", ip);
}

int main(int argc, char **argv)
{
	unsigned long max = argc > 2 ? strtoul(argv[2], NULL, 10) : 100000, steps = 0;
	pid_t pid;
	int st;

	if (argc < 2) {
		fprintf(stderr, "usage: x86_steps PROGRAM [MAX]\n");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(126);
		execl(argv[1], argv[1], (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		fprintf(stderr, "x86_steps: %s: cannot be traced (status 0x%x)\n", argv[1], st);
		return 2;
	}
	for (;;) {
		struct user_regs_struct regs;

		if (ptrace(PTRACE_GETREGS, pid, NULL, &regs)) {
			fprintf(stderr, "x86_steps: PTRACE_GETREGS: %s\n", strerror(errno));
			kill(pid, SIGKILL);
			return 2;
		}
		note(regs.rip);
		if (++steps > max) {
			fprintf(stderr, "x86_steps: more than %lu steps\n", max);
			kill(pid, SIGKILL);
			return 1;
		}
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL)) {
			fprintf(stderr, "x86_steps: PTRACE_SINGLESTEP: %s\n", strerror(errno));
			kill(pid, SIGKILL);
			return 2;
		}
		if (waitpid(pid, &st, 0) != pid)
			return 1;
		if (WIFEXITED(st))
			return 0;
		if (WIFSIGNALED(st) || (WIFSTOPPED(st) && WSTOPSIG(st) != SIGTRAP)) {
			fprintf(stderr, "x86_steps: %s stopped by signal %d\n", argv[1],
				WIFSIGNALED(st) ? WTERMSIG(st) : WSTOPSIG(st));
			kill(pid, SIGKILL);
			return 1;
		}
	}
}
