/* SPDX-License-Identifier: MIT */
/*
 * proc — the process's own resources, for load drivers: a driver with many
 * streams in flight needs one file descriptor per connection, and the soft
 * limit (often 1024) is lower than what the hard limit allows.
 * No allocation, no output.
 */
#ifndef GP_PROC_H
#define GP_PROC_H

/*
 * Raise the soft RLIMIT_NOFILE to the hard limit.  Returns the soft limit in
 * force afterwards, or -1 when it cannot be read.
 */
long gp_proc_raise_nofile(void);

#endif
