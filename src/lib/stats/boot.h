/* SPDX-License-Identifier: MIT */
/*
 * boot — bootstrap confidence intervals: percentile and BCa (bias-corrected
 * and accelerated; Efron 1987, Efron & Tibshirani 1993 ch. 14), over pooled
 * samples and over clusters (whole repetitions).
 *
 * The interval from a bootstrap distribution θ*_1..θ*_B, estimate θ̂ and
 * acceleration a (gp_ci_from_dist) follows scipy.stats.bootstrap 1.10
 * (_bca_interval) so that our intervals and scipy's agree within Monte Carlo
 * error:
 *   z0  = Φ⁻¹( (#{θ*_b < θ̂} + #{θ*_b ≤ θ̂}) / 2B )   — ties count one half
 *   α1  = Φ( z0 + (z0 + z_α)   / (1 − a (z0 + z_α)) ),   z_α = Φ⁻¹((1 − level)/2)
 *   α2  = Φ( z0 + (z0 + z_1−α) / (1 − a (z0 + z_1−α)) )
 *   [lo, hi] = type-7 quantiles of the sorted θ* at α1, α2 (np.percentile)
 * and a from the jackknife, summed over independent samples j (scipy's
 * multi-sample form; for one sample it is Efron's
 *   a = Σ (θ̄(.) − θ(i))³ / (6 [Σ (θ̄(.) − θ(i))²]^{3/2}) ):
 *   U_ji = (n_j − 1)(θ̄_j(.) − θ_j(i)),
 *   a = Σ_j Σ_i U_ji³ / n_j³  /  (6 [Σ_j Σ_i U_ji² / n_j²]^{3/2}).
 *
 * Conventions where the formulas break down (documented in gp-analyze(1)):
 * - empty sample: est, lo, hi are NaN (JSON null), degenerate = 1;
 * - every θ*_b equal, or θ̂ outside the bootstrap distribution so that z0
 *   is infinite: lo = hi = est, degenerate = 1 (never NaN);
 * - the jackknife has no spread (Σ U² = 0): a = 0, so BCa reduces to the
 *   bias-corrected percentile interval (scipy returns NaN there);
 * - 1 − a (z0 + z) ≤ 0: the adjusted level is taken at its limit, 0 for the
 *   lower end and 1 for the upper end.
 *
 * Resampling engines.  A quantile of a resample needs only two of its order
 * statistics, so gp_boot_quantiles never materializes a resample: it draws
 * the multinomial resample counts over the sorted sample lazily, by
 * conditional binomial splitting of the index range (the count in the left
 * half of a range holding m draws is Binomial(m, left/size); given it, the
 * halves are independent multinomials), and descends only into the halves
 * holding the wanted ranks: O(q log n) binomial draws per resample instead
 * of O(n) (counts) or O(n log n) (sort), with exactly the same distribution.
 *
 * Randomness comes from the caller's gp_rng (seeded), which advances.
 * Every function returns 0, or -1 when memory ran out.
 */
#ifndef GP_BOOT_H
#define GP_BOOT_H

#include <stddef.h>

#include "base/rng.h"

struct gp_ci {
	double est, lo, hi;	/* estimate and interval; NaN only for an empty sample */
	double level;		/* e.g. 0.95 */
	int bca;		/* 1: BCa, 0: percentile */
	int degenerate;		/* see the conventions above */
	double z0, accel;	/* BCa constants (NaN when not computed) */
	double alpha_lo, alpha_hi; /* the percentile levels the interval was read at */
	long resamples;
};

/*
 * Interval from a bootstrap distribution.  theta_star (B values) is sorted in
 * place.  bca = 0 gives the percentile interval ((1−level)/2, (1+level)/2);
 * bca = 1 uses theta_hat and accel as above.
 */
void gp_ci_from_dist(double *theta_star, size_t B, double theta_hat, double accel,
		     int bca, double level, struct gp_ci *ci);

/*
 * Jackknife acceleration over `groups` independent samples: jack holds the
 * leave-one-out statistics of group 0 (n[0] values), then group 1, ...
 * Groups with n < 2 contribute nothing.  0 when the jackknife has no spread.
 */
double gp_boot_accel(const double *jack, const size_t *n, size_t groups);

/*
 * Same, for one group given as distinct leave-one-out values v[k] each
 * occurring w[k] times (n = Σ w): the jackknife of a quantile or of a
 * proportion takes two or three values only.
 */
double gp_boot_accel_weighted(const double *v, const double *w, size_t k);

/*
 * Jackknife acceleration of the type-7 p-quantile of ascending sorted[0..n)
 * in O(1): leaving out element i gives one of three values, depending on
 * whether i <= lo, i = lo + 1 or i >= lo + 2, lo = floor((n − 2) p).
 */
double gp_boot_quantile_accel(const double *sorted, size_t n, double p);

/*
 * BCa intervals of the type-7 quantiles p[0..np) of one sample (ascending
 * `sorted`, n values), sharing B resamples.  out[j] for p[j].
 */
int gp_boot_quantiles(const double *sorted, size_t n, const double *p, size_t np,
		      long B, double level, struct gp_rng *rng, struct gp_ci *out);

/*
 * Cluster bootstrap of the pooled type-7 quantiles p[0..np): each resample
 * draws `nreps` clusters with replacement and pools their values; BCa with the
 * leave-one-cluster-out jackknife.  reps[r] (ascending, nin[r] values) is
 * cluster r; empty clusters are skipped (they hold no values).
 */
int gp_boot_cluster_quantiles(const double *const *reps, const size_t *nin, size_t nreps,
			      const double *p, size_t np, long B, double level,
			      struct gp_rng *rng, struct gp_ci *out);

/* BCa interval of the mean of x[0..n). */
int gp_boot_mean(const double *x, size_t n, long B, double level, struct gp_rng *rng,
		 struct gp_ci *out);

/*
 * Interval of mean(x) − mean(y), x and y resampled independently; bca as in
 * gp_ci_from_dist (jackknife over both samples, scipy's two-sample form).
 */
int gp_boot_mean_diff(const double *x, size_t nx, const double *y, size_t ny, long B,
		      double level, int bca, struct gp_rng *rng, struct gp_ci *out);

/*
 * BCa interval of a proportion good/n of a 0/1 sample (the resample count of
 * ones is Binomial(n, good/n)): the pooled good fraction.
 */
int gp_boot_proportion(long good, long n, long B, double level, struct gp_rng *rng,
		       struct gp_ci *out);

#endif
