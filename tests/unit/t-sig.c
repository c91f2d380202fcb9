/* SPDX-License-Identifier: MIT */
/*
 * t-sig — the interrupt convention (base/sig.h, doc/conventions.md): the
 * first SIGINT/SIGTERM sets the flag and interrupts a blocking call (no
 * SA_RESTART), the second exits at once with 128 + N; SIGPIPE is ignored.
 * Each case runs in a child (fork.h): the handlers are process-wide.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/sig.h"
#include "fork.h"
#include "tap.h"

/* Exit with a code that says what the child saw (the parent checks it). */
static void first_then_second(void *a)
{
	(void)a;
	gp_sig_install();
	if (gp_sig_stop() != 0 || gp_sig_status(5) != 5)
		exit(10);
	raise(SIGTERM);
	if (gp_sig_stop() != SIGTERM || *gp_sig_flag() != SIGTERM)
		exit(11);
	if (gp_sig_status(0) != 143 || gp_sig_status(1) != 143)
		exit(12);
	raise(SIGINT);		/* the second: _exit(128 + SIGINT) */
	exit(13);
}

/* A blocking sleep ends early with -1 when the first signal comes (sent by
 * a grandchild 50 ms in), and the flag is set. */
static void interrupts_sleep(void *a)
{
	pid_t me = getpid(), k;
	int64_t t0;

	(void)a;
	gp_sig_install();
	k = fork();
	if (k == 0) {
		usleep(50000);
		kill(me, SIGINT);
		_exit(0);
	}
	t0 = gp_now_ns();
	if (gp_sleep_until_ns(t0 + 5 * GP_NS_PER_S) != -1)
		exit(20);
	if (gp_now_ns() - t0 > 2 * GP_NS_PER_S)
		exit(21);
	waitpid(k, NULL, 0);
	exit(gp_sig_stop() == SIGINT ? 0 : 22);
}

static void pipe_ignored(void *a)
{
	int p[2];

	(void)a;
	gp_sig_install();
	if (pipe(p))
		exit(30);
	close(p[0]);
	/* SIGPIPE would kill us; ignored, the write fails with EPIPE */
	exit(write(p[1], "x", 1) < 0 && errno == EPIPE ? 0 : 31);
}

static void unlink_on_stop(void *a)
{
	const char *dir = a;
	char f1[256], f2[256];
	struct stat sb;

	gp_sig_install();
	snprintf(f1, sizeof(f1), "%s/a", dir);
	snprintf(f2, sizeof(f2), "%s/b", dir);
	close(open(f1, O_CREAT | O_WRONLY, 0644));
	close(open(f2, O_CREAT | O_WRONLY, 0644));
	if (gp_sig_stop_unlink(f1, f2) != 0 || stat(f1, &sb) || stat(f2, &sb))
		exit(40);	/* no signal: nothing removed */
	raise(SIGTERM);
	if (gp_sig_stop_unlink(f1, NULL) != SIGTERM || !stat(f1, &sb) || stat(f2, &sb))
		exit(41);
	exit(0);
}

int main(void)
{
	char err[256], dir[] = "/tmp/t-sig.XXXXXX";

	is_int(fork_run(first_then_second, NULL, err, sizeof(err)), 130,
	       "first SIGTERM sets the flag and status 143; a second signal exits 128 + SIGINT");
	is_int(fork_run(interrupts_sleep, NULL, err, sizeof(err)), 0,
	       "the first signal ends a blocking sleep early (-1) and sets the flag");
	is_int(fork_run(pipe_ignored, NULL, err, sizeof(err)), 0, "SIGPIPE ignored: EPIPE instead");
	if (!mkdtemp(dir))
		return 1;
	is_int(fork_run(unlink_on_stop, dir, err, sizeof(err)), 0,
	       "gp_sig_stop_unlink removes the files only once a signal asked to stop");
	rmdir(dir);
	return done_testing();
}
