/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of verdict: the noise floor's 3-rep minimum, the trust of a
 * TOST equivalence (reps, no floor, delta below the floor, each the reason in
 * that order), and WIN / LOSS / EQUIVALENT / INCONCLUSIVE /
 * INSUFFICIENT_REPS at the edges of their rules (verdict.h).  The intervals
 * are given directly: the rules, not the statistics (t-tost has those), are
 * under test.
 */
#include <math.h>
#include <string.h>

#include "method/verdict.h"
#include "tap.h"

static void names(void)
{
	is_str(gp_verdict_name(GP_VERDICT_WIN), "WIN", "name: WIN");
	is_str(gp_verdict_name(GP_VERDICT_LOSS), "LOSS", "name: LOSS");
	is_str(gp_verdict_name(GP_VERDICT_EQUIVALENT), "EQUIVALENT", "name: EQUIVALENT");
	is_str(gp_verdict_name(GP_VERDICT_INCONCLUSIVE), "INCONCLUSIVE", "name: INCONCLUSIVE");
	is_str(gp_verdict_name(GP_VERDICT_INSUFFICIENT_REPS), "INSUFFICIENT_REPS",
	       "name: INSUFFICIENT_REPS");
}

static void noise_floor(void)
{
	char buf[128];

	ok(isnan(gp_verdict_noise_half_width(0.02, 2)), "noise floor: 2 reps, none");
	is_dbl(gp_verdict_noise_half_width(0.02, 3), 0.02, 0, "noise floor: 3 reps, the half-width");
	is_str(gp_verdict_noise_reason(2, buf, sizeof(buf)),
	       "the noise floor needs at least 3 reps of the floor arm; it has 2", "noise floor: reason");
	is_int(gp_verdict_resolvable(NAN, 0.05), -1, "resolvable: no floor, unknown");
	is_int(gp_verdict_resolvable(0.05, 0.05), 1, "resolvable: delta equal to the floor");
	is_int(gp_verdict_resolvable(0.0500001, 0.05), 0, "resolvable: delta just below the floor");
}

static void tost_trust(void)
{
	ok(gp_verdict_tost_distrust(5, 5, 5, 0.02, 0.05) == NULL, "tost: 5 and 5 reps, floor below delta: trusted");
	ok(gp_verdict_tost_distrust(5, 5, 5, 0.05, 0.05) == NULL, "tost: delta exactly the floor: trusted");
	ok(strstr(gp_verdict_tost_distrust(4, 5, 5, 0.02, 0.05), "--min-reps") != NULL,
	   "tost: 4 reps in one arm: not trusted (reps)");
	ok(strstr(gp_verdict_tost_distrust(5, 4, 5, NAN, 0.05), "--min-reps") != NULL,
	   "tost: reps are the first reason, before the floor");
	ok(strstr(gp_verdict_tost_distrust(5, 5, 5, NAN, 0.05), "no noise floor") != NULL,
	   "tost: no floor: not trusted");
	ok(strstr(gp_verdict_tost_distrust(5, 5, 5, 0.06, 0.05), "below the noise floor") != NULL,
	   "tost: delta below the floor: not trusted");
}

static void verdicts(void)
{
	char buf[96];
	const char *why = NULL;

	is_int(gp_verdict_of(5, 5, 5, 1, 0.001, 0.1, 0, &why, buf, sizeof(buf)), GP_VERDICT_WIN,
	       "verdict: interval above 0: WIN");
	ok(why == NULL, "verdict: WIN has no reason");
	is_int(gp_verdict_of(5, 5, 5, 1, 0, 0.1, 0, &why, buf, sizeof(buf)), GP_VERDICT_INCONCLUSIVE,
	       "verdict: lo exactly 0 is not a WIN");
	is_int(gp_verdict_of(5, 5, 5, 1, -0.1, -0.001, 0, &why, buf, sizeof(buf)), GP_VERDICT_LOSS,
	       "verdict: interval below 0: LOSS");
	is_int(gp_verdict_of(5, 5, 5, 1, -0.1, 0, 0, &why, buf, sizeof(buf)), GP_VERDICT_INCONCLUSIVE,
	       "verdict: hi exactly 0 is not a LOSS");
	is_int(gp_verdict_of(5, 5, 5, 1, -0.01, 0.01, 1, &why, buf, sizeof(buf)), GP_VERDICT_EQUIVALENT,
	       "verdict: straddles 0, trusted equivalence: EQUIVALENT");
	is_int(gp_verdict_of(5, 5, 5, 1, 0.01, 0.02, 1, &why, buf, sizeof(buf)), GP_VERDICT_WIN,
	       "verdict: a WIN outranks an equivalence (both can hold inside delta)");
	is_int(gp_verdict_of(5, 5, 5, 1, -0.01, 0.01, 0, &why, buf, sizeof(buf)), GP_VERDICT_INCONCLUSIVE,
	       "verdict: straddles 0, no equivalence: INCONCLUSIVE");
	ok(why == NULL, "verdict: INCONCLUSIVE leaves the reason alone");
	is_int(gp_verdict_of(4, 5, 5, 1, 0.1, 0.2, 1, &why, buf, sizeof(buf)),
	       GP_VERDICT_INSUFFICIENT_REPS, "verdict: 4 reps of 5 needed: INSUFFICIENT_REPS even above 0");
	is_str(why, "a verdict needs at least 5 reps in each arm (4 and 5)", "verdict: the reps named");
	why = "kept";
	is_int(gp_verdict_of(1, 5, 5, 0, NAN, NAN, 0, &why, buf, sizeof(buf)),
	       GP_VERDICT_INSUFFICIENT_REPS, "verdict: no interval, short reps: INSUFFICIENT_REPS");
	is_str(why, "kept", "verdict: no interval: the caller's reason stays");
	is_int(gp_verdict_of(5, 5, 2, 0, NAN, NAN, 0, &why, buf, sizeof(buf)), GP_VERDICT_INCONCLUSIVE,
	       "verdict: no interval, enough reps: INCONCLUSIVE");
	is_int(gp_verdict_of(5, 5, 5, 1, NAN, NAN, 0, NULL, buf, sizeof(buf)), GP_VERDICT_INCONCLUSIVE,
	       "verdict: NaN bounds never WIN or LOSS");
}

int main(void)
{
	names();
	noise_floor();
	tost_trust();
	verdicts();
	return done_testing();
}
