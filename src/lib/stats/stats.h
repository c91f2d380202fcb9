/* SPDX-License-Identifier: MIT */
/*
 * stats — descriptive statistics over arrays of doubles: mean, sample
 * standard deviation, coefficient of variation, Hyndman–Fan type 7 quantiles
 * (the numpy and R default; doc/design.md), sorting and selection helpers, and
 * the stability verdict of the publish gate (method §8.2).
 *
 * Ownership: every function works on caller-owned arrays and allocates
 * nothing, except gp_sort_doubles which may allocate a scratch buffer (and
 * falls back to an in-place sort when it cannot).  Undefined results (an
 * empty sample, a CV of a zero mean) are NaN: callers turn NaN into JSON
 * null with gp_json_real().  No function prints or exits.
 */
#ifndef GP_STATS_H
#define GP_STATS_H

#include <stddef.h>

/* Arithmetic mean; NaN when n == 0. */
double gp_mean(const double *x, size_t n);

/* Sample standard deviation (divisor n - 1, two-pass); NaN when n < 2. */
double gp_sd(const double *x, size_t n);

/*
 * Coefficient of variation: sample sd / mean.  NaN when n < 2 or the mean
 * is 0 (a CV of a zero mean is undefined, not zero).
 */
double gp_cv(const double *x, size_t n);

/* Sort ascending (NaN must not occur).  O(n) LSD radix sort for large n. */
void gp_sort_doubles(double *x, size_t n);

/*
 * Type-7 quantile of an ascending sorted sample: with h = (n - 1) p,
 * x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).  p is clamped to
 * [0, 1]; NaN when n == 0 or p is NaN.
 */
double gp_quantile_sorted(const double *sorted, size_t n, double p);

/*
 * Type-7 quantile of an unsorted sample by selection (Floyd–Rivest style
 * quickselect, expected O(n)); the array is reordered.  Same value as
 * gp_quantile_sorted on the sorted array.
 */
double gp_quantile_select(double *x, size_t n, double p);

/*
 * k-th smallest element (0-based, k < n) by quickselect; x is reordered so
 * that x[k] holds it, smaller-or-equal values before, larger-or-equal after.
 */
double gp_select(double *x, size_t n, size_t k);

/* Verdict of the stability gate (method §8.2; doc/design.md, "The rules"). */
enum gp_stability {
	GP_STABILITY_ADD_REPLICATES = 0,
	GP_STABILITY_PUBLISHABLE = 1,
	GP_STABILITY_PUBLISHABLE_WITH_FOOTNOTE = 2,
};

/*
 * gp_stability_verdict — the publish policy as a pure function.
 *   n        replicates (reps) of the arm at the rate
 *   cv       CV of the per-rep good fraction (NaN = undefined)
 *   min_reps repetition floor (5 by default in gp-verify)
 *   max_cv   CV bound (0.10)
 *   rep_cap  repetition cap; <= 0 means no cap
 * Rules, in order:
 *   n < min_reps                         → ADD_REPLICATES (never ship a noisy number)
 *   cv <= max_cv                         → PUBLISHABLE
 *   rep_cap > 0 and n >= rep_cap         → PUBLISHABLE_WITH_FOOTNOTE
 *   otherwise                            → ADD_REPLICATES
 * A NaN cv (mean good fraction 0, or n < 2) is treated as over the bound: the
 * CV cannot certify it.  A caller that wants to call a run of all-zero
 * good fractions stable passes cv = 0 itself.
 */
enum gp_stability gp_stability_verdict(long n, double cv, long min_reps, double max_cv,
				       long rep_cap);

/* "PUBLISHABLE", "PUBLISHABLE_WITH_FOOTNOTE", "ADD_REPLICATES" (static string). */
const char *gp_stability_name(enum gp_stability v);

#endif
