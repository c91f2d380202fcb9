/* SPDX-License-Identifier: MIT */
/* gate — replicate advice, timeout evidence and counter deltas of the gates. */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "method/gate.h"
#include "stats/stats.h"

long gp_gate_add_reps(long n, double cv, long min_reps, double max_cv, long rep_cap)
{
	if (gp_stability_verdict(n, cv, min_reps, max_cv, rep_cap) != GP_STABILITY_ADD_REPLICATES)
		return 0;
	if (n < min_reps)
		return min_reps - n;
	return rep_cap > 0 ? rep_cap - n : n;
}

int gp_gate_backend_timeout(const char *error, long http_status, const char *detail)
{
	if (!error || !strcmp(error, "timeout") || !strcmp(error, "connect") ||
	    !strcmp(error, "cancelled"))
		return 0;
	if (!strcmp(error, "http_status") && (http_status == 408 || http_status == 504))
		return 1;
	if (!detail)
		return 0;
	return strcasestr(detail, "timeout") || strcasestr(detail, "time-out") ||
	       strcasestr(detail, "timed out");
}

double gp_gate_counter_delta(double before, double after)
{
	return after >= before ? after - before : after;
}

int gp_gate_miss_climb(double delta_miss, double attempted, double ratio)
{
	if (attempted <= 0)
		return 0;
	return delta_miss >= ratio * attempted;
}

double gp_gate_stability_cv(long reps, double cv, double mean)
{
	return isnan(cv) && reps >= 2 && mean == 0 ? 0 : cv;
}

enum gp_probe_state gp_gate_probe(int seen, int confirmed, int engaged)
{
	if (!seen)
		return GP_PROBE_MISSING;
	if (!confirmed)
		return GP_PROBE_NOT_CONFIRMED;
	return engaged ? GP_PROBE_OK : GP_PROBE_NOT_ENGAGED;
}
