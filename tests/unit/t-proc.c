/* SPDX-License-Identifier: MIT */
/* t-proc — raising the descriptor limit: to the hard limit, idempotent. */
#include <sys/resource.h>

#include "tap.h"
#include "base/proc.h"

int main(void)
{
	struct rlimit rl;
	long got;

	ok(getrlimit(RLIMIT_NOFILE, &rl) == 0, "getrlimit");
	if (rl.rlim_max > 64) {
		struct rlimit low = { 64, rl.rlim_max };

		ok(setrlimit(RLIMIT_NOFILE, &low) == 0, "soft limit lowered to 64");
	}
	got = gp_proc_raise_nofile();
	ok(getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur == rl.rlim_max,
	   "soft limit raised to the hard limit");
	ok(got == (rl.rlim_cur == RLIM_INFINITY ? (long)(~0UL >> 1) : (long)rl.rlim_cur),
	   "returns the limit in force (%ld)", got);
	ok(gp_proc_raise_nofile() == got, "idempotent");
	return done_testing();
}
