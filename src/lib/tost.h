/* SPDX-License-Identifier: MIT */
/*
 * tost — Welch's t-test and Welch's two one-sided tests (TOST) for
 * equivalence within a margin ±δ (Schuirmann 1987), with the Welch–
 * Satterthwaite degrees of freedom.  t quantiles and tail probabilities come
 * from GSL (gsl_cdf_tdist_P/Q/Pinv).
 *
 * With d = mean(x) − mean(y), se = sqrt(s_x²/n_x + s_y²/n_y) and
 *   df = se⁴ / ((s_x²/n_x)²/(n_x − 1) + (s_y²/n_y)²/(n_y − 1)):
 *   p_lower = P(T_df ≥ (d + δ)/se)      H0: d ≤ −δ
 *   p_upper = P(T_df ≤ (d − δ)/se)      H0: d ≥ +δ
 *   p = max(p_lower, p_upper)
 *   the (1 − 2α) interval d ± t_{1−α,df} se       (α = 0.05 → 90 %)
 *   equivalent ⇔ −δ < lo and hi < +δ  (⇔ p < α): the CI lies inside the
 *   margin; a CI that touches or straddles a bound is not equivalence.
 *
 * Degenerate case (both samples without spread, se = 0): d is known exactly;
 * lo = hi = d, df = NaN, p_lower = 0 if d > −δ else 1, p_upper = 0 if d < δ
 * else 1, equivalent ⇔ |d| < δ.  Flagged with degenerate = 1.
 *
 * Fewer than 2 values in either sample: nothing can be tested; every number
 * is NaN, equivalent = 0, and the functions return -1.
 */
#ifndef GP_TOST_H
#define GP_TOST_H

#include <stddef.h>

struct gp_tost {
	double diff, se, df;
	double delta, alpha;
	double t_lower, t_upper;
	double p_lower, p_upper, p;
	double lo, hi;		/* the (1 − 2α) CI of the difference */
	int equivalent;
	int degenerate;
};

/* TOST from summary statistics (means, sample sds, sizes).  0 or -1. */
int gp_tost_welch_summary(double mx, double sx, size_t nx, double my, double sy, size_t ny,
			  double delta, double alpha, struct gp_tost *out);

/* TOST on two samples.  0 or -1. */
int gp_tost_welch(const double *x, size_t nx, const double *y, size_t ny, double delta,
		  double alpha, struct gp_tost *out);

/*
 * Welch's two-sided t-test of equal means (as scipy.stats.ttest_ind with
 * equal_var=False): t, df and the two-sided p.  0, or -1 (n < 2 or se = 0:
 * outputs NaN).
 */
int gp_welch_t(const double *x, size_t nx, const double *y, size_t ny, double *t, double *df,
	       double *p);

#endif
