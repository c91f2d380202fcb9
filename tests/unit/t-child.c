/* SPDX-License-Identifier: MIT */
/*
 * t-child — running a helper (io/child.h): exit status, 128 + a signal,
 * -ENOENT for a program not found, stdout and stderr where asked (else
 * /dev/null), stdin /dev/null, the working directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/child.h"
#include "tap.h"

/* What fd holds, from its start (NUL-terminated into buf). */
static const char *contents(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

int main(void)
{
	char *exit3[] = { "sh", "-c", "exit 3", NULL };
	char *killed[] = { "sh", "-c", "kill -TERM $$", NULL };
	char *missing[] = { "gp-no-such-program-here", NULL };
	char *both[] = { "sh", "-c", "echo out; echo err >&2", NULL };
	char *cat[] = { "cat", NULL };
	char *pwd[] = { "pwd", NULL };
	char tmpl_o[] = "/tmp/t-child.o.XXXXXX", tmpl_e[] = "/tmp/t-child.e.XXXXXX", buf[256];
	int o = mkstemp(tmpl_o), e = mkstemp(tmpl_e);

	if (o < 0 || e < 0)
		return 1;
	unlink(tmpl_o);
	unlink(tmpl_e);
	is_int(gp_child_run(exit3, NULL, -1, -1), 3, "the exit status");
	is_int(gp_child_run(killed, NULL, -1, -1), 128 + 15, "128 + the signal that killed it");
	is_int(gp_child_run(missing, NULL, -1, -1), -ENOENT, "a program not on PATH: -ENOENT");
	is_int(gp_child_run(both, NULL, o, e), 0, "stdout and stderr to fds");
	is_str(contents(o, buf, sizeof(buf)), "out\n", "stdout where asked");
	is_str(contents(e, buf, sizeof(buf)), "err\n", "stderr where asked");
	if (ftruncate(o, 0) || ftruncate(e, 0))
		return 1;
	lseek(o, 0, SEEK_SET);
	is_int(gp_child_run(both, NULL, o, -1), 0, "stderr -1: /dev/null");
	is_str(contents(e, buf, sizeof(buf)), "", "nothing reached our stderr fd");
	if (ftruncate(o, 0))
		return 1;
	lseek(o, 0, SEEK_SET);
	is_int(gp_child_run(cat, NULL, o, -1), 0, "cat returns at once: stdin is /dev/null");
	is_str(contents(o, buf, sizeof(buf)), "", "and read nothing");
	lseek(o, 0, SEEK_SET);
	is_int(gp_child_run(pwd, "/", o, -1), 0, "run in a directory");
	is_str(contents(o, buf, sizeof(buf)), "/\n", "pwd there is /");
	close(o);
	close(e);
	return done_testing();
}
