/* SPDX-License-Identifier: MIT */
/* cmd — a fleet file's shell command, bounded; its output against a regex. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "io/cmd.h"

static void child(const char *cmd, int wfd)
{
	int nul = open("/dev/null", O_RDWR);

	setpgid(0, 0);
	if (nul >= 0) {
		dup2(nul, 0);
		dup2(nul, 2);
	}
	dup2(wfd, 1);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	_exit(127);
}

int gp_cmd_run(const char *cmd, long timeout_ms, char *out, size_t cap, int *status,
	       char *err, size_t errlen)
{
	int fd[2], st = 0, timed_out = 0;
	size_t len = 0;
	int64_t end = gp_now_ns() + (int64_t)timeout_ms * 1000000;
	pid_t pid;

	out[0] = 0;
	if (pipe2(fd, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0)
		child(cmd, fd[1]);
	setpgid(pid, pid);
	close(fd[1]);
	for (;;) {
		struct pollfd p = { fd[0], POLLIN, 0 };
		int64_t left = end - gp_now_ns();
		char buf[4096];
		ssize_t n;

		if (left <= 0) {
			timed_out = 1;
			break;
		}
		if (poll(&p, 1, (int)(left / 1000000 + 1)) < 0 && errno != EINTR)
			break;
		if (!(p.revents & (POLLIN | POLLHUP)))
			continue;
		n = read(fd[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len < cap - 1) {
			size_t k = (size_t)n < cap - 1 - len ? (size_t)n : cap - 1 - len;

			memcpy(out + len, buf, k);
			len += k;
			out[len] = 0;
		}
	}
	close(fd[0]);
	if (timed_out)
		kill(-pid, SIGKILL);
	/* The pipe is closed: wait for the shell itself, bounded as well. */
	while (waitpid(pid, &st, timed_out ? 0 : WNOHANG) == 0) {
		if (gp_now_ns() >= end) {
			kill(-pid, SIGKILL);
			timed_out = 1;
		} else {
			gp_sleep_until_ns(gp_now_ns() + 1000000);
		}
	}
	if (timed_out)
		*status = -1;
	else
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return 0;
}

int gp_cmd_match(const char *regex, const char *text, char *line, size_t cap, char *err,
		 size_t errlen)
{
	regex_t re;
	regmatch_t m;
	int rc = regcomp(&re, regex, REG_EXTENDED | REG_NEWLINE);

	if (rc) {
		regerror(rc, &re, err, errlen);
		return -1;
	}
	rc = regexec(&re, text, 1, &m, 0) == 0;
	regfree(&re);
	line[0] = 0;
	if (rc) {
		const char *b = text + m.rm_so, *e = text + m.rm_eo;

		while (b > text && b[-1] != '\n')
			b--;
		while (*e && *e != '\n')
			e++;
		snprintf(line, cap, "%.*s", (int)(e - b), b);
	}
	return rc;
}
