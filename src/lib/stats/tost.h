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

/*
 * Intervals over per-rep quantities (the good fraction of a rep, its goodput):
 * the unit of replication is the rep, so at N = 3..10 reps the interval is
 * Student's / Welch's t, whose coverage holds at those sizes (a bootstrap
 * over N cluster means is too narrow there: its standard error shrinks by
 * √((N − 1)/N) and it reads z where t belongs; Hesterberg, "What teachers
 * should know about the bootstrap", Am. Stat. 69 (2015) §3).  Measured by
 * bench/bench-coverage.sh.
 *
 *   one sample  (noise floor, knee goodput):
 *     v = max(s², f);  est ± t_{1−(1−L)/2, N−1} · √(v/N)
 *   two samples (compare; Welch 1947, Satterthwaite 1946):
 *     v_x = max(s_x², f_x)/N_x,  v_y = max(s_y², f_y)/N_y
 *     df = (v_x + v_y)² / (v_x²/(N_x − 1) + v_y²/(N_y − 1))
 *     d ± t_{1−(1−L)/2, df} · √(v_x + v_y)          d = mean(x) − mean(y)
 *
 * f is a floor on the between-rep variance.  A rep's good fraction is a
 * proportion over its attempted requests, so its variance cannot honestly be
 * taken below the binomial one (gp_binom_floor_var); with it, reps that
 * happen not to differ (s = 0: every rep all good, or equal counts) give a
 * finite interval, never a zero-width one, and a TOST never reports p = 0.
 * `floored` says the floor was used (s² < f), `degenerate` that the sample
 * had no spread at all (s = 0).  f = 0 gives the textbook t-intervals
 * (scipy.stats.t, ttest_ind(equal_var=False) agree: tests/unit/t-tost.c).
 */
struct gp_tint {
	double est, lo, hi, half_width, se, df, level;
	size_t n, n_vs;		/* sample sizes (n_vs 0 for one sample) */
	int floored, degenerate;
};

/*
 * The binomial floor of one rep's good-fraction variance, from the pooled
 * counts of the cell (good of attempted, over reps reps):
 *   p̃ = (good + ½) / (attempted + 1)        (the Jeffreys correction: p̃ is never 0 or 1)
 *   f = p̃ (1 − p̃) / (attempted / reps)       (the binomial variance at the mean rep size)
 * 0 when attempted or reps is not positive.
 */
double gp_binom_floor_var(long good, long attempted, size_t reps);

/* One-sample t-interval of mean(x) with floor f (above).  0, or -1 when n < 2
 * (then est is the mean, or NaN for n = 0, and the bounds are NaN). */
int gp_t_interval(const double *x, size_t n, double f, double level, struct gp_tint *out);

/* Welch interval of mean(x) − mean(y) with floors fx, fy.  0, or -1 when
 * either sample has fewer than 2 values (bounds NaN). */
int gp_welch_interval(const double *x, size_t nx, double fx, const double *y, size_t ny,
		      double fy, double level, struct gp_tint *out);

/* TOST as gp_tost_welch with the variances floored at fx, fy (s² → max(s², f)).
 * With fx, fy > 0 the degenerate case of gp_tost_welch_summary cannot occur. */
int gp_tost_welch_floor(const double *x, size_t nx, double fx, const double *y, size_t ny,
			double fy, double delta, double alpha, struct gp_tost *out);

/*
 * The crossing rate of a target T by the good-fraction curve, interpolated
 * linearly between rung 1 (rate r1, per-rep values x, mean m1 ≥ T) and rung 2
 * (r2, y, m2 < T):
 *   c = r1 + (m1 − T)(r2 − r1)/(m1 − m2)
 * with a delta-method interval (the partial derivatives
 *   ∂c/∂m1 = (r2 − r1)(T − m2)/(m1 − m2)²,  ∂c/∂m2 = (r2 − r1)(m1 − T)/(m1 − m2)²,
 * the means' variances max(s², f)/N as above, and Satterthwaite's df over the
 * two terms):  c ± t_{df} · √(a² v1 + b² v2).  Coverage measured by
 * bench/bench-coverage.sh.  0, or -1 when a rung has fewer than 2 reps or
 * m1 = m2 (bounds NaN; est NaN when m1 = m2).
 */
int gp_crossing_interval(double r1, const double *x, size_t nx, double fx, double r2,
			 const double *y, size_t ny, double fy, double target, double level,
			 struct gp_tint *out);

/*
 * The ratio of two means over independent per-rep samples, mean(x)/mean(y)
 * (an arm's goodput at its knee over the floor arm's at its own), with
 * Fieller's interval (Fieller 1954; the form for two independent means) and
 * the floors and degrees of freedom of gp_welch_interval:
 *   v_x = max(s_x², f_x)/N_x,  v_y = max(s_y², f_y)/N_y,  R = x̄/ȳ
 *   df = (v_x + R² v_y)² / (v_x²/(N_x − 1) + R⁴ v_y²/(N_y − 1))
 *        (Satterthwaite's, for the pivot x̄ − R ȳ at the estimate)
 *   the set {ρ : (x̄ − ρ ȳ)² ≤ t² (v_x + ρ² v_y)},  t = t_{1−(1−L)/2, df}:
 *   with a = ȳ² − t² v_y and D = t² (x̄² v_y + ȳ² v_x) − t⁴ v_x v_y,
 *   [lo, hi] = (x̄ȳ ∓ √D) / a
 * The interval is not symmetric about R (half_width is NaN; se is the delta
 * method's, √(v_x + R² v_y)/|ȳ|, for reference).  When a ≤ 0 the
 * denominator's mean is not resolved from zero and the set is unbounded: -1
 * with lo, hi NaN (est stays R).  No spread at all: lo = hi = R, df NaN.
 * Also -1 when a sample has fewer than 2 values or ȳ = 0 (est NaN then).
 * Coverage measured by bench/bench-coverage.sh and tests/unit/t-tost.c.
 */
int gp_ratio_interval(const double *x, size_t nx, double fx, const double *y, size_t ny,
		      double fy, double level, struct gp_tint *out);

#endif
