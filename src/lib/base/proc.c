/* SPDX-License-Identifier: MIT */
/* proc — the process's own resource limits (proc.h). */
#include <sys/resource.h>

#include "base/proc.h"
#include "base/banned.h"

long gp_proc_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	if (rl.rlim_cur < rl.rlim_max) {
		struct rlimit up = { rl.rlim_max, rl.rlim_max };

		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			rl.rlim_cur = rl.rlim_max;
	}
	return rl.rlim_cur == RLIM_INFINITY ? (long)(~0UL >> 1) : (long)rl.rlim_cur;
}
