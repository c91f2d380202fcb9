/* SPDX-License-Identifier: MIT */
/*
 * verdict — the rules that turn a comparison's interval into a verdict
 * (method §8.3, §10; doc/records.md "compare", "noise_floor"): the noise
 * floor, when a TOST equivalence can be trusted, and WIN / LOSS /
 * EQUIVALENT / INCONCLUSIVE / INSUFFICIENT_REPS.  gp-analyze computes the
 * intervals (stats/tost.h) and renders the records; the decisions are here,
 * each a function of its arguments, so the tests drive every edge.
 *
 * The rules:
 *   noise floor   the floor arm's t half-width over its reps at a rung; it
 *                 exists only from GP_VERDICT_FLOOR_MIN_REPS (3) reps: below,
 *                 NaN ("not resolvable").
 *   equivalence   trusted only when the TOST passed AND both arms have
 *                 min_reps reps AND a noise floor exists AND delta >= its
 *                 half-width (a margin below the noise is one the run cannot
 *                 resolve).  The first rule that fails is the reason.
 *   verdict       INSUFFICIENT_REPS when either arm has fewer than min_reps
 *                 reps; else WIN when the whole interval of the difference is
 *                 above 0, LOSS when it is below 0; else EQUIVALENT when a
 *                 trusted equivalence holds; else INCONCLUSIVE.  An interval
 *                 that could not be computed (fewer than 2 reps) is
 *                 INSUFFICIENT_REPS when the reps are short of min_reps, else
 *                 INCONCLUSIVE.
 *
 * Strings returned are static or written into the caller's buffer; nothing
 * is allocated.
 */
#ifndef GP_VERDICT_H
#define GP_VERDICT_H

#include <stddef.h>

#define GP_VERDICT_FLOOR_MIN_REPS 3

enum gp_verdict {
	GP_VERDICT_WIN,
	GP_VERDICT_LOSS,
	GP_VERDICT_EQUIVALENT,
	GP_VERDICT_INCONCLUSIVE,
	GP_VERDICT_INSUFFICIENT_REPS,
};

/* The record spelling ("WIN", "LOSS", ...). */
const char *gp_verdict_name(enum gp_verdict v);

/* The noise floor's half-width from a cell's t half-width over n reps: hw, or
 * NaN when n < GP_VERDICT_FLOOR_MIN_REPS. */
double gp_verdict_noise_half_width(double half_width, size_t n);

/* Why a noise floor of n reps is not resolvable, written into buf (len
 * bytes); buf. */
const char *gp_verdict_noise_reason(size_t n, char *buf, size_t len);

/*
 * Why an equivalence between arms of nx and ny reps cannot be trusted
 * (static string), or NULL when it can: reps below min_reps, no noise floor
 * (noise_hw NaN), or delta below noise_hw.  The TOST's own result is not an
 * argument: equivalent = TOST passed && reason == NULL.
 */
const char *gp_verdict_tost_distrust(size_t nx, size_t ny, long min_reps, double noise_hw,
				     double delta);

/* 1 when the run resolves delta (delta >= noise_hw), 0 when not, -1 when there
 * is no noise floor (NaN). */
int gp_verdict_resolvable(double noise_hw, double delta);

/*
 * The verdict of an interval [lo, hi] of arm − comparator over nx and ny reps.
 * have_interval 0 means none could be computed (the bounds are ignored).
 * equivalent: a trusted equivalence (see above; pass 0 when no TOST was run).
 * *reason (may be NULL) is set for INSUFFICIENT_REPS (written into buf, len
 * bytes) and left alone otherwise.
 */
enum gp_verdict gp_verdict_of(size_t nx, size_t ny, long min_reps, int have_interval, double lo,
			      double hi, int equivalent, const char **reason, char *buf,
			      size_t len);

#endif
