/* SPDX-License-Identifier: MIT */
/* power — the half-width a design resolves, and the reps or requests for δ. */
#include <math.h>

#include <gsl/gsl_cdf.h>

#include "stats/power.h"

static double tq(size_t reps, double level)
{
	return gsl_cdf_tdist_Pinv(1 - (1 - level) / 2, (double)(reps - 1));
}

double gp_power_half_width(double v, size_t reps, double level)
{
	if (reps < 2 || isnan(v) || v < 0)
		return NAN;
	return tq(reps, level) * sqrt(v / (double)reps);
}

size_t gp_power_reps(double v, double delta, double level, size_t cap)
{
	if (isnan(v) || v < 0 || !(delta > 0))
		return 0;
	for (size_t n = 2; n <= cap; n++)
		if (gp_power_half_width(v, n, level) <= delta)
			return n;
	return 0;
}

double gp_power_requests(double p, double tau2, size_t reps, double delta, double level)
{
	double t, room;

	if (reps < 2 || !(delta > 0) || !(p >= 0 && p <= 1) || isnan(tau2))
		return 0;
	t = tq(reps, level);
	room = (double)reps * delta * delta / (t * t) - fmax(tau2, 0);
	if (!(room > 0))
		return 0;
	return fmax(1, ceil(p * (1 - p) / room - 1e-9));
}
