/* SPDX-License-Identifier: MIT */
/* sig — first signal: graceful stop flag; second: immediate exit. */
#include <string.h>
#include <unistd.h>

#include "base/sig.h"

static volatile sig_atomic_t stop_signo;
/* set by gp_sig_shared: the next delivery is the signal already taken */
static volatile sig_atomic_t shared_pending;

static void on_signal(int signo)
{
	if (shared_pending) {
		shared_pending = 0;
		return;
	}
	if (stop_signo)
		_exit(128 + signo);
	stop_signo = signo;
}

void gp_sig_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: blocking calls return EINTR so loops see the flag. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int gp_sig_stop(void)
{
	return stop_signo;
}

int gp_sig_status(int code)
{
	return stop_signo ? 128 + stop_signo : code;
}

void gp_sig_shared(int signo)
{
	if ((signo != SIGINT && signo != SIGTERM) || stop_signo)
		return;
	shared_pending = 1;
	stop_signo = signo;
}

volatile sig_atomic_t *gp_sig_flag(void)
{
	return &stop_signo;
}

int gp_sig_stop_unlink(const char *a, const char *b)
{
	int sig = gp_sig_stop();

	if (!sig)
		return 0;
	if (a)
		unlink(a);
	if (b)
		unlink(b);
	return sig;
}
