/* SPDX-License-Identifier: MIT */
/*
 * child — run a helper program (gnuplot, jq, awk) as a child process and
 * wait for it.  Nothing is shared with the child but the file descriptors
 * named here; stdin is /dev/null.
 *
 * Ownership: argv and the strings are the caller's; nothing is kept.
 */
#ifndef GP_CHILD_H
#define GP_CHILD_H

/*
 * Run argv (argv[0] searched on PATH) in directory dir (NULL: ours), with
 * stdout on out_fd and stderr on err_fd (-1: /dev/null).  Returns the exit
 * status (0..255), 128 + the signal that killed it, or a negative errno when
 * it could not be started (-ENOENT: no such program).  A child killed by
 * SIGINT or SIGTERM shared our signal (sig.h gp_sig_shared): the caller then
 * sees gp_sig_stop() and stops as if the signal had reached it first.
 */
int gp_child_run(char *const argv[], const char *dir, int out_fd, int err_fd);

#endif
