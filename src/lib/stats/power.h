/* SPDX-License-Identifier: MIT */
/*
 * power — what a campaign's reps and run lengths can resolve, and what it
 * would take to resolve a margin δ, for the t-interval of a mean over reps
 * (the noise floor, tost.h):
 *
 *   half-width   h(v, N) = t_{1−(1−L)/2, N−1} · √(v/N)
 *                v the per-rep variance (s² floored at the binomial one)
 *   reps for δ   the smallest N ≥ 2 with h(v, N) ≤ δ
 *   requests for δ at N reps: a rep's good fraction over n requests has the
 *                binomial variance p(1 − p)/n plus a between-rep part τ²
 *                that longer runs do not shrink, so
 *                n = ⌈p(1 − p) / (N δ²/t² − τ²)⌉, none when N δ²/t² ≤ τ²
 *
 * Planning (before any run): τ² = 0 and p the good fraction the protocol
 * plans for.  After the runs: τ² = max(0, s² − p(1 − p)/n̄), p the observed
 * mean (Jeffreys-corrected as the floor is, gp_binom_floor_var), n̄ the mean
 * requests per rep.  t quantiles from GSL.  Nothing allocates.
 */
#ifndef GP_POWER_H
#define GP_POWER_H

#include <stddef.h>

/* h(v, N); NaN when N < 2 or v is not a number. */
double gp_power_half_width(double v, size_t reps, double level);

/* Reps for δ: the smallest N in [2, cap] with h(v, N) ≤ delta, 0 when none. */
size_t gp_power_reps(double v, double delta, double level, size_t cap);

/*
 * Requests per rep for δ at `reps` reps (above): a count ≥ 1, or 0 when no
 * run length suffices (the between-rep part tau2 alone is too wide) or the
 * arguments are out of range (reps < 2, delta ≤ 0, p outside [0, 1]).
 */
double gp_power_requests(double p, double tau2, size_t reps, double delta, double level);

#endif
