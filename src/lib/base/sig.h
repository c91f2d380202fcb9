/* SPDX-License-Identifier: MIT */
/*
 * sig — the interrupt convention: the first SIGINT/SIGTERM sets a flag (stop
 * starting work, finish or cancel what is in flight into records, flush, exit
 * non-zero); the second exits at once with 128+signo.
 */
#ifndef GP_SIG_H
#define GP_SIG_H

#include <signal.h>

/* Install the handlers for SIGINT and SIGTERM and ignore SIGPIPE (writes then
 * fail with EPIPE, which tools treat as a quiet exit). */
void gp_sig_install(void);
/* The signal number that asked us to stop, or 0. */
int gp_sig_stop(void);
/* The exit status of a tool that would end with code: 128+signo when a
 * signal asked it to stop (the shell's convention), else code. */
int gp_sig_status(int code);
/* When a signal asked us to stop: remove the files a and b (either may be
 * NULL), the ones being written, so that no half file is left under a name
 * a reader takes for whole, and return the signal number.  Else 0. */
int gp_sig_stop_unlink(const char *a, const char *b);
/* A child we waited for was killed by signo: when that is SIGINT or SIGTERM
 * it was most likely ours too (a terminal's reaches the whole process group,
 * and ours may land a moment later), so take it as the first signal now.  The
 * one that follows, if it comes, counts as that same first signal, not as a
 * second that exits at once. */
void gp_sig_shared(int signo);
/* Address of the flag, for event loops that poll it. */
volatile sig_atomic_t *gp_sig_flag(void);

#endif
