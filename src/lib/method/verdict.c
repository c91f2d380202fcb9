/* SPDX-License-Identifier: MIT */
/*
 * verdict — WIN/LOSS/EQUIVALENT/INCONCLUSIVE/INSUFFICIENT_REPS, the noise
 * floor and the trust of a TOST (the rules are written out in verdict.h).
 */
#include <math.h>
#include <stdio.h>

#include "method/verdict.h"
#include "base/banned.h"

const char *gp_verdict_name(enum gp_verdict v)
{
	switch (v) {
	case GP_VERDICT_WIN: return "WIN";
	case GP_VERDICT_LOSS: return "LOSS";
	case GP_VERDICT_EQUIVALENT: return "EQUIVALENT";
	case GP_VERDICT_INSUFFICIENT_REPS: return "INSUFFICIENT_REPS";
	case GP_VERDICT_INCONCLUSIVE: break;
	}
	return "INCONCLUSIVE";
}

double gp_verdict_noise_half_width(double half_width, size_t n)
{
	return n >= GP_VERDICT_FLOOR_MIN_REPS ? half_width : NAN;
}

const char *gp_verdict_noise_reason(size_t n, char *buf, size_t len)
{
	snprintf(buf, len, "the noise floor needs at least %d reps of the floor arm; it has %zu",
		 GP_VERDICT_FLOOR_MIN_REPS, n);
	return buf;
}

const char *gp_verdict_tost_distrust(size_t nx, size_t ny, long min_reps, double noise_hw,
				     double delta)
{
	if ((long)nx < min_reps || (long)ny < min_reps)
		return "equivalence needs --min-reps reps in each arm";
	if (isnan(noise_hw))
		return "no noise floor to judge delta against (fewer than 3 reps)";
	if (delta < noise_hw)
		return "delta is below the noise floor's half-width: the run cannot resolve a "
		       "difference that small";
	return NULL;
}

int gp_verdict_resolvable(double noise_hw, double delta)
{
	return isnan(noise_hw) ? -1 : delta >= noise_hw;
}

enum gp_verdict gp_verdict_of(size_t nx, size_t ny, long min_reps, int have_interval, double lo,
			      double hi, int equivalent, const char **reason, char *buf,
			      size_t len)
{
	int short_reps = (long)nx < min_reps || (long)ny < min_reps;

	if (!have_interval)
		return short_reps ? GP_VERDICT_INSUFFICIENT_REPS : GP_VERDICT_INCONCLUSIVE;
	if (short_reps) {
		snprintf(buf, len, "a verdict needs at least %ld reps in each arm (%zu and %zu)",
			 min_reps, nx, ny);
		if (reason)
			*reason = buf;
		return GP_VERDICT_INSUFFICIENT_REPS;
	}
	if (lo > 0)
		return GP_VERDICT_WIN;
	if (hi < 0)
		return GP_VERDICT_LOSS;
	return equivalent ? GP_VERDICT_EQUIVALENT : GP_VERDICT_INCONCLUSIVE;
}
