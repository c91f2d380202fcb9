/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of power.  Provenance (tests/unit/stats-vectors.py, Debian 12
 * /usr/bin/python3, scipy 1.10.1): half-widths from scipy.stats.t.ppf; the
 * reps and requests for δ by a linear search over N and n there, not by the
 * closed form power.c uses for the requests.
 */
#include <math.h>

#include "tap.h"
#include "stats/power.h"

int main(void)
{
	is_dbl(gp_power_half_width(0.0291 / 18, 5, 0.95), 0.049924569767839135, 1e-12,
	       "half-width: 5 reps of 18 requests at p 0.97");
	is_dbl(gp_power_half_width(0.01, 10, 0.95), 0.07153569059525722, 1e-9, "half-width: 10 reps");
	ok(isnan(gp_power_half_width(0.01, 1, 0.95)), "one rep: no half-width");
	ok(gp_power_reps(0.01, 0.05, 0.95, 100) == 18, "reps for delta 0.05 at v 0.01: 18");
	ok(gp_power_reps(0.01, 0.05, 0.95, 17) == 0, "... none up to a cap of 17");
	ok(gp_power_requests(0.97, 0, 5, 0.05, 0.95) == 18, "requests for delta at p 0.97, 5 reps: 18");
	ok(gp_power_requests(0.9, 0, 5, 0.05, 0.95) == 56, "at p 0.9: 56");
	ok(gp_power_requests(0.9, 0.0003, 5, 0.05, 0.95) == 69, "with a between-rep part 0.0003: 69");
	ok(gp_power_requests(0.9, 0.01, 5, 0.05, 0.95) == 0, "a between-rep part wider than delta: none");
	ok(gp_power_requests(1, 0, 5, 0.05, 0.95) == 1, "p = 1: one request");
	ok(gp_power_requests(0.9, 0, 1, 0.05, 0.95) == 0, "one rep: none");
	return done_testing();
}
