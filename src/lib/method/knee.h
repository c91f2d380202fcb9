/* SPDX-License-Identifier: MIT */
/*
 * knee — where an arm's load curve stops clearing its good-fraction target.
 *
 * The input is one arm's ladder: the mean good fraction of each rung, in
 * ascending order of rate.  The policy (doc/records.md, gp-analyze(1)):
 *
 *   knee rung   the highest rung whose mean good fraction is >= target
 *               (method "highest_rung"; a NaN mean never clears).  On a
 *               non-monotone curve this is the last clearing rung, even when
 *               a rung below it fails.
 *   next rung   the rung just above the knee, the far end of the crossing
 *               interval (linear interpolation to the target); none when the
 *               knee is the top rung or there is no knee.
 *   edge        "below" no rung clears, "only" a one-rung ladder, "last" the
 *               top rung clears (saturation not reached), "first" only the
 *               bottom rung is the knee (the ladder is too coarse); else none.
 *   monotone    no rung's mean is above the mean of the rung below it.
 *   dips        the rungs below the knee whose mean does not clear the
 *               target (0 on a curve that crosses once).  A knee with dips
 *               is the highest clearing rung of a curve that fails, then
 *               clears again: the advice says so instead of "every rung
 *               clears" (gp_knee_advice).
 */
#ifndef GP_KNEE_H
#define GP_KNEE_H

#include <stddef.h>
#include <stdint.h>

#define GP_KNEE_NONE SIZE_MAX	/* no such rung */

enum gp_knee_edge {
	GP_KNEE_INSIDE,		/* the knee has rungs on both sides */
	GP_KNEE_BELOW,
	GP_KNEE_ONLY,
	GP_KNEE_LAST,
	GP_KNEE_FIRST,
};

struct gp_knee {
	size_t rung;		/* index of the knee rung, or GP_KNEE_NONE */
	size_t next;		/* index of the rung above it, or GP_KNEE_NONE */
	enum gp_knee_edge edge;
	int monotone;
	size_t dips;
};

/* Pick the knee of mean[0 .. n) (n >= 1) against target. */
void gp_knee_pick(const double *mean, size_t n, double target, struct gp_knee *k);

/* The edge's record name ("below", "only", "last", "first"), NULL inside. */
const char *gp_knee_edge_name(enum gp_knee_edge e);

/* What to do about the edge, NULL inside. */
const char *gp_knee_edge_advice(enum gp_knee_edge e);

/*
 * What to do about this knee: gp_knee_edge_advice(k->edge) when no rung below
 * the knee fails; with dips, advice that names the non-monotone curve (and,
 * at the last rung, that saturation was still not reached).  NULL when
 * there is nothing to do.  Static strings.
 */
const char *gp_knee_advice(const struct gp_knee *k);

#endif
