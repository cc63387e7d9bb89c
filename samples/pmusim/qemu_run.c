/* Runs a program under qemu-x86_64 with `-d in_asm,exec,nochain,page,strace` logging into a
 * FIFO, and parses the log while qemu runs (no log file ever grows on disk): in_asm blocks go
 * to the trace as translated blocks, Trace lines as executed blocks, everything else to the
 * module table. Knows the qemu 7.x log text format and nothing of the PMU or perf.data.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "samples/pmusim/pmusim.h"
#include "util/hbbp_err.h"

#define SIM_TB_MAX 1024
#define SIM_INSN_MAX 16

struct sim_parser {
	struct sim_trace *t;
	struct sim_modules *m;
	FILE *copy;
	bool in_block;
	size_t n;		/* instructions in the block */
	size_t nbytes;
	uint64_t addr[SIM_TB_MAX];
	uint8_t len[SIM_TB_MAX];
	uint8_t bytes[SIM_TB_MAX * SIM_INSN_MAX];
	bool overflow;
	int err;
};

static int sim_parser__flush(struct sim_parser *ps)
{
	int err = 0;
	if (ps->in_block && ps->n && !ps->overflow)
		err = sim_trace__translated(ps->t, ps->addr, ps->len, ps->bytes, ps->n);
	ps->in_block = false;
	ps->n = 0;
	ps->nbytes = 0;
	ps->overflow = false;
	return err;
}

static int sim_hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* "0xADDR:  b1 b2 ...  mnemonic operands" or a continuation "0xADDR:  b9 b10" */
static void sim_parser__insn(struct sim_parser *ps, const char *line)
{
	char *end;
	uint64_t addr = strtoull(line + 2, &end, 16);
	if (*end != ':')
		return;
	const char *p = end + 1;
	while (*p == ' ')
		p++;
	uint8_t b[SIM_INSN_MAX];
	size_t nb = 0;
	while (nb < 8 && sim_hex(p[0]) >= 0 && sim_hex(p[1]) >= 0 && (p[2] == ' ' || !p[2])) {
		b[nb++] = (uint8_t)(sim_hex(p[0]) << 4 | sim_hex(p[1]));
		p += p[2] ? 3 : 2;
	}
	while (*p == ' ')
		p++;
	bool continuation = !*p;
	if (!nb)
		return;
	if (continuation && ps->n) {
		size_t i = ps->n - 1;
		if (ps->addr[i] + ps->len[i] != addr || ps->len[i] + nb > SIM_INSN_MAX) {
			ps->overflow = true;
			return;
		}
		memcpy(ps->bytes + ps->nbytes, b, nb);
		ps->nbytes += nb;
		ps->len[i] = (uint8_t)(ps->len[i] + nb);
		return;
	}
	if (ps->n == SIM_TB_MAX) {
		ps->overflow = true;
		return;
	}
	ps->addr[ps->n] = addr;
	ps->len[ps->n] = (uint8_t)nb;
	memcpy(ps->bytes + ps->nbytes, b, nb);
	ps->nbytes += nb;
	ps->n++;
}

/* "Trace 0: 0xHOST [CSBASE/PC/FLAGS/CFLAGS] sym" */
static int sim_parser__trace(struct sim_parser *ps, const char *line)
{
	char *end;
	long cpu = strtol(line + 6, &end, 10);
	if (*end != ':')
		return 0;
	if (cpu != 0) {
		/* another vCPU: a threaded program, whose streams interleave */
		return -HBBP_EUNSUPP;
	}
	uint64_t host = strtoull(end + 1, &end, 16);
	const char *b = strchr(end, '[');
	if (!b)
		return 0;
	const char *s = strchr(b, '/');
	if (!s)
		return 0;
	uint64_t pc = strtoull(s + 1, &end, 16);
	if (*end != '/')
		return 0;
	return sim_trace__exec(ps->t, host, pc);
}

static int sim_parser__line(struct sim_parser *ps, char *line)
{
	if (ps->copy)
		fprintf(ps->copy, "%s\n", line);
	if (line[0] == '0' && line[1] == 'x') {
		if (ps->in_block)
			sim_parser__insn(ps, line);
		return 0;
	}
	if (!strncmp(line, "Trace ", 6)) {
		int err = sim_parser__flush(ps);
		return err ? err : sim_parser__trace(ps, line);
	}
	if (!strncmp(line, "IN:", 3)) {
		int err = sim_parser__flush(ps);
		ps->in_block = true;
		return err;
	}
	if (!line[0] || !strncmp(line, "----", 4))
		return sim_parser__flush(ps);
	if (!ps->in_block)
		sim_modules__line(ps->m, line);
	return 0;
}

static int sim_read_fifo(int fd, pid_t child, struct sim_parser *ps, int *status)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	bool exited = false;
	int err = 0;
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t r = read(fd, buf + len, cap - len - 1);
		if (r > 0) {
			len += (size_t)r;
			size_t start = 0;
			for (size_t i = 0; i < len; i++) {
				if (buf[i] != '\n')
					continue;
				buf[i] = 0;
				if (!err)
					err = sim_parser__line(ps, buf + start);
				start = i + 1;
			}
			memmove(buf, buf + start, len - start);
			len -= start;
			if (len == cap - 1) {	/* an absurdly long line: drop it */
				len = 0;
			}
			if (err) {
				kill(child, SIGKILL);
				break;
			}
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN) {
			struct pollfd pf = { .fd = fd, .events = POLLIN };
			poll(&pf, 1, 100);
			continue;
		}
		if (r < 0) {
			err = -errno;
			break;
		}
		/* r == 0: no writer (not yet opened, or gone) */
		if (exited)
			break;
		pid_t w = waitpid(child, status, WNOHANG);
		if (w == child) {
			exited = true;	/* one more read drains what is left */
			continue;
		}
		usleep(2000);
	}
	if (!exited)
		waitpid(child, status, 0);
	if (len && !err) {
		buf[len] = 0;
		err = sim_parser__line(ps, buf);
	}
	if (!err)
		err = sim_parser__flush(ps);
	free(buf);
	return err;
}

int sim_run(const struct sim_run_opts *o, struct sim_trace *t, struct sim_modules *m,
	    int *child_pid)
{
	char dir[] = "/tmp/pmusim.XXXXXX";
	char fifo[64];
	int err, status = 0;
	if (!mkdtemp(dir))
		return -errno;
	snprintf(fifo, sizeof(fifo), "%s/log", dir);
	if (mkfifo(fifo, 0600)) {
		err = -errno;
		rmdir(dir);
		return err;
	}
	int fd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out_rm;
	}
	size_t argc = 0;
	while (o->argv[argc])
		argc++;
	const char **av = calloc(argc + 12, sizeof(*av));
	if (!av) {
		err = -ENOMEM;
		goto out_close;
	}
	size_t k = 0;
	av[k++] = o->qemu;
	av[k++] = "-cpu";
	av[k++] = o->cpu;
	av[k++] = "-d";
	av[k++] = "in_asm,exec,nochain,page,strace";
	av[k++] = "-D";
	av[k++] = fifo;
	for (size_t i = 0; i < argc; i++)
		av[k++] = o->argv[i];
	av[k] = NULL;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		err = -errno;
		free(av);
		goto out_close;
	}
	if (pid == 0) {
		execvp(av[0], (char *const *)av);
		_exit(127);
	}
	free(av);
	*child_pid = pid;
	struct sim_parser *ps = calloc(1, sizeof(*ps));
	if (!ps) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		err = -ENOMEM;
		goto out_close;
	}
	ps->t = t;
	ps->m = m;
	if (o->log_copy)
		ps->copy = fopen(o->log_copy, "w");
	err = sim_read_fifo(fd, pid, ps, &status);
	if (ps->copy)
		fclose(ps->copy);
	free(ps);
	if (!err) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !sim_trace__stats(t)->nr_tb_exec)
			err = -HBBP_ENOTFOUND;	/* qemu could not be started */
		else if (WIFEXITED(status))
			err = WEXITSTATUS(status);
		else
			err = 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	}
out_close:
	close(fd);
out_rm:
	unlink(fifo);
	rmdir(dir);
	return err;
}
