/* SPDX-License-Identifier: MIT */
/*
 * fork.h — run a piece of a unit test in a child process, for the code that
 * exits or takes signals (log's gp_die, sig's handlers): fn(arg) runs in the
 * child with stderr into a pipe, and the child exits 0 when fn returns.
 * Header-only.
 *
 *   char err[512];
 *   int st = fork_run(die_65, NULL, err, sizeof(err));
 *   is_int(st, 65, "exit 65");  is_str(err, "prog: ...\n", "the message");
 */
#ifndef GP_FORK_H
#define GP_FORK_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* The child's exit status, 128 + the signal that killed it, or -1; err (NUL
 * terminated, at most errlen - 1 bytes) gets what it wrote on stderr. */
static inline int fork_run(void (*fn)(void *), void *arg, char *err, size_t errlen)
{
	int p[2], st;
	size_t got = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(p))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], 2);
		close(p[1]);
		fn(arg);
		fflush(stdout);
		exit(0);
	}
	close(p[1]);
	while (got + 1 < errlen && (r = read(p[0], err + got, errlen - 1 - got)) > 0)
		got += (size_t)r;
	err[got] = '\0';
	close(p[0]);
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

#endif
