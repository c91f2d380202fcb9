/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of boot (percentile/BCa, pooled and cluster bootstrap).
 *
 * Provenance of every reference value: tests/unit/stats-vectors.py, run with
 * Debian 12's /usr/bin/python3 (numpy 1.24.2, scipy 1.10.1):
 *  - "fixed resamples": the bootstrap distribution is built from resample
 *    indices that both sides derive identically (splitmix64 from seed 12345,
 *    index = output % n), then scipy's own scipy.stats._resampling.
 *    _bca_interval gives z0, a and the adjusted levels and np.percentile the
 *    interval — so our formulas must agree to rounding error;
 *  - "Monte Carlo": scipy.stats.bootstrap(method='BCa', n_resamples=200000)
 *    on a deterministic sample; ours uses different random draws, so they
 *    agree within Monte Carlo error (tolerances below: 4 standard errors
 *    of the difference, measured over 20 seeds of ours);
 *  - "cluster": a brute-force numpy cluster bootstrap (20000 resamples of
 *    whole reps, pooled with np.concatenate, np.quantile) with BCa by the
 *    formulas of boot.h.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include "stats/boot.h"
#include "base/hash.h"
#include "base/rng.h"
#include "stats/stats.h"
#include "tap.h"

static const double S1[25] = {
	31.2, 35.9, 38.4, 40.1, 41.7, 43.0, 44.8, 46.2, 48.0, 48.0, 49.5, 51.3,
	53.0, 55.2, 57.9, 61.5, 61.5, 64.0, 68.3, 72.9, 79.4, 88.0, 101.7, 126.3, 190.4,
};

enum { NB = 2000 };

static void fixed_resamples(void)
{
	static double tp50[NB], tp90[NB], tmean[NB], pc[NB];
	double r[25], jack[25], sorted[25], S2[25];
	uint64_t seed = 12345;
	size_t n = 25;
	struct gp_ci ci;

	/* S2 = S1 rounded to quarters: resample sums are exact, so ties of a
	 * resample mean with the estimate are exact on both sides. */
	for (size_t i = 0; i < n; i++)
		S2[i] = round(S1[i] * 4) / 4;
	for (int b = 0; b < NB; b++) {
		double s = 0;

		for (size_t i = 0; i < n; i++) {
			size_t k = gp_splitmix64(&seed) % n;

			r[i] = S1[k];
			s += S2[k];
		}
		gp_sort_doubles(r, n);
		tp50[b] = gp_quantile_sorted(r, n, 0.5);
		tp90[b] = gp_quantile_sorted(r, n, 0.9);
		tmean[b] = s / (double)n;
	}
	for (size_t i = 0; i < n; i++)
		sorted[i] = S1[i];

	/* Brute-force jackknife vs the O(1) quantile jackknife vs scipy's a_hat. */
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		for (size_t j = 0; j < n; j++)
			if (j != i)
				r[k++] = S1[j];
		jack[i] = gp_quantile_sorted(r, n - 1, 0.9);
	}
	is_dbl(gp_boot_accel(jack, &n, 1), 0.07578568667039733, 1e-12, "p90 jackknife a (brute force) = scipy a_hat");
	is_dbl(gp_boot_quantile_accel(sorted, n, 0.9), 0.07578568667039733, 1e-12, "p90 jackknife a (O(1)) = scipy a_hat");
	is_dbl(gp_boot_quantile_accel(sorted, n, 0.5), 0.0005202439023196376, 1e-12, "p50 jackknife a (O(1)) = scipy a_hat");
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		for (size_t j = 0; j < n; j++)
			if (j != i)
				r[k++] = S2[j];
		jack[i] = gp_mean(r, n - 1);
	}
	double amean = gp_boot_accel(jack, &n, 1);
	is_dbl(amean, 0.07824370982420133, 1e-12, "mean jackknife a = scipy a_hat");
	/* O(1) quantile jackknife against brute force over many n and p. */
	int agree = 1;
	for (size_t m = 2; m <= 25; m++) {
		for (double p = 0; p <= 1.0001; p += 0.05) {
			for (size_t i = 0; i < m; i++) {
				size_t k = 0;
				for (size_t j = 0; j < m; j++)
					if (j != i)
						r[k++] = S1[j];
				jack[i] = gp_quantile_sorted(r, m - 1, p);
			}
			double want = gp_boot_accel(jack, &m, 1), got = gp_boot_quantile_accel(S1, m, p);
			if (fabs(want - got) > 1e-9) {
				diag("n=%zu p=%g: %g vs %g", m, p, got, want);
				agree = 0;
			}
		}
	}
	ok(agree, "O(1) quantile jackknife a = brute force for n 2..25, p 0..1");

	for (int b = 0; b < NB; b++)
		pc[b] = tp50[b];
	gp_ci_from_dist(tp50, NB, 53.0, gp_boot_quantile_accel(sorted, n, 0.5), 1, 0.95, &ci);
	is_dbl(ci.z0, 0.016920548225211118, 1e-12, "p50 z0 (ties count one half) = scipy");
	is_dbl(ci.lo, 48.0, 1e-9, "p50 BCa lo = scipy");
	is_dbl(ci.hi, 64.0, 1e-9, "p50 BCa hi = scipy");
	gp_ci_from_dist(pc, NB, 53.0, 0, 0, 0.95, &ci);
	is_dbl(ci.lo, 48.0, 1e-9, "p50 percentile lo = np.percentile 2.5");
	is_dbl(ci.hi, 61.5, 1e-9, "p50 percentile hi = np.percentile 97.5");

	for (int b = 0; b < NB; b++)
		pc[b] = tp90[b];
	gp_ci_from_dist(tp90, NB, 96.22000000000003, gp_boot_quantile_accel(sorted, n, 0.9), 1, 0.95, &ci);
	is_dbl(ci.z0, 0.04638925570538985, 1e-12, "p90 z0 = scipy");
	is_dbl(ci.lo, 71.06, 1e-9, "p90 BCa lo = scipy");
	is_dbl(ci.hi, 190.4, 1e-9, "p90 BCa hi = scipy");
	is_int(ci.degenerate, 0, "p90 not degenerate");
	gp_ci_from_dist(pc, NB, 96.22000000000003, 0, 0, 0.95, &ci);
	is_dbl(ci.lo, 66.58, 1e-9, "p90 percentile lo");
	is_dbl(ci.hi, 164.7600000000001, 1e-9, "p90 percentile hi");

	for (int b = 0; b < NB; b++)
		pc[b] = tmean[b];
	gp_ci_from_dist(tmean, NB, gp_mean(S2, n), amean, 1, 0.95, &ci);
	is_dbl(ci.est, 63.95, 1e-12, "mean estimate (S2)");
	is_dbl(ci.z0, 0.06333468067801973, 1e-12, "mean z0 = scipy");
	is_dbl(ci.lo, 54.35917121925325, 1e-9, "mean BCa lo = scipy (interpolated)");
	is_dbl(ci.hi, 82.20555756436893, 1e-9, "mean BCa hi = scipy (interpolated)");
	gp_ci_from_dist(pc, NB, 63.95, 0, 0, 0.95, &ci);
	is_dbl(ci.lo, 52.769000000000005, 1e-9, "mean percentile lo");
	is_dbl(ci.hi, 77.54474999999998, 1e-9, "mean percentile hi");
}

/* The deterministic lognormal-shaped sample of stats-vectors.py. */
static void lognormal_sample(double *x, size_t n, int round_it)
{
	for (size_t i = 0; i < n; i++) {
		x[i] = exp(0.5 * gsl_cdf_ugaussian_Pinv(((double)i + 0.5) / (double)n)) * 100.0;
		if (round_it)
			x[i] = round(x[i]);
	}
}

static void monte_carlo(void)
{
	enum { N = 2000 };
	static double L[N], LR[N];
	const double p[3] = {0.5, 0.9, 0.99};
	/* scipy.stats.bootstrap BCa, 200000 resamples. */
	const double want[2][3][2] = {
		{{97.27901849887132, 102.76486403775957}, {182.90630810369223, 197.2103580199964},
		 {296.9631928165637, 348.6857566299265}},
		{{NAN, NAN}, {183.10000000000014, 198.0}, {297.02, 349.04999999999995}},
	};
	/*
	 * Tolerances: 4 SE of (ours − scipy), SE = √2 × the sd of our endpoint
	 * over 20 seeds at 200000 resamples (p50 0.017, p90 lo 0.075, hi 0.012;
	 * p99 and most rounded-sample endpoints sit on one order statistic in
	 * every run, sd 0: allow half a grid step).  Rounded p90 lo: sd 0.32.
	 */
	const double tol[2][3][2] = {
		{{0.1, 0.1}, {0.45, 0.1}, {0.5, 0.5}},
		{{0, 0}, {1.8, 0.5}, {0.5, 0.5}},
	};
	struct gp_ci ci[3];
	struct gp_rng rng;

	lognormal_sample(L, N, 0);
	lognormal_sample(LR, N, 1);
	gp_rng_seed(&rng, 2024);
	ok(gp_boot_quantiles(L, N, p, 3, 200000, 0.95, &rng, ci) == 0, "gp_boot_quantiles runs");
	for (int j = 0; j < 3; j++) {
		is_dbl(ci[j].est, gp_quantile_sorted(L, N, p[j]), 0, "L p%g estimate", p[j] * 100);
		is_dbl(ci[j].lo, want[0][j][0], tol[0][j][0], "L p%g BCa lo ~ scipy.stats.bootstrap", p[j] * 100);
		is_dbl(ci[j].hi, want[0][j][1], tol[0][j][1], "L p%g BCa hi ~ scipy.stats.bootstrap", p[j] * 100);
	}
	ok(gp_boot_quantiles(LR, N, p, 3, 200000, 0.95, &rng, ci) == 0, "gp_boot_quantiles runs (ties)");
	for (int j = 1; j < 3; j++) {
		is_dbl(ci[j].lo, want[1][j][0], tol[1][j][0], "LR (ties) p%g BCa lo ~ scipy", p[j] * 100);
		is_dbl(ci[j].hi, want[1][j][1], tol[1][j][1], "LR (ties) p%g BCa hi ~ scipy", p[j] * 100);
	}
	/* LR p50: the jackknife has no spread (every leave-one-out median is
	 * 100), scipy's a_hat is 0/0 = NaN and its interval NaN; ours takes a = 0. */
	ok(ci[0].accel == 0 && isfinite(ci[0].lo) && isfinite(ci[0].hi) &&
	   ci[0].lo <= ci[0].est && ci[0].est <= ci[0].hi,
	   "LR p50: no jackknife spread → a = 0, finite interval around the estimate");

	static const double G3[7] = {0.91, 0.94, 0.89, 0.93, 0.92, 0.90, 0.95};
	static const double H[5] = {0.85, 0.88, 0.83, 0.86, 0.90};
	/* Over 20 seeds of ours: mean and proportion endpoints land on the same
	 * grid point every time (sd 0); the difference's sd is 0.00015. */
	ok(gp_boot_mean(G3, 7, 200000, 0.95, &rng, ci) == 0, "gp_boot_mean runs");
	is_dbl(ci[0].lo, 0.9071428571428571, 1e-6, "mean BCa lo ~ scipy");
	is_dbl(ci[0].hi, 0.9357142857142857, 1e-6, "mean BCa hi ~ scipy");
	ok(gp_boot_mean_diff(G3, 7, H, 5, 200000, 0.95, 1, &rng, ci) == 0, "gp_boot_mean_diff runs");
	is_dbl(ci[0].est, 0.92 - 0.864, 1e-12, "diff estimate");
	is_dbl(ci[0].lo, 0.029999999999999916, 0.001, "two-sample diff BCa lo ~ scipy");
	is_dbl(ci[0].hi, 0.0814285714285714, 0.001, "two-sample diff BCa hi ~ scipy");
	ok(gp_boot_proportion(331, 400, 200000, 0.95, &rng, ci) == 0, "gp_boot_proportion runs");
	is_dbl(ci[0].lo, 0.7875, 1e-6, "proportion BCa lo ~ scipy on the 0/1 sample");
	is_dbl(ci[0].hi, 0.8625, 1e-6, "proportion BCa hi ~ scipy on the 0/1 sample");
}

static void cluster(void)
{
	enum { M = 300, R = 5 };
	static double base[M], reps[R][M];
	const double *rp[R];
	size_t n[R];
	const double p[3] = {0.5, 0.9, 0.99};
	const double want[3][4] = { /* est, a, lo, hi */
		{114.0, 0.0004605944947581247, 105.5, 122.44999999999999},
		{211.82000000000005, 0.014168665948509867, 198.6, 224.7},
		{355.318, 0.045881416998075214, 331.0, 372.5},
	};
	const double tol[3] = {1.0, 1.5, 4.0};
	struct gp_ci ci[3];
	struct gp_rng rng;

	lognormal_sample(base, M, 0);
	for (int r = 0; r < R; r++) {
		for (int i = 0; i < M; i++)
			reps[r][i] = round((base[i] * (1 + 0.04 * r) + 3 * r) * 10) / 10;
		rp[r] = reps[r];
		n[r] = M;
	}
	gp_rng_seed(&rng, 99);
	ok(gp_boot_cluster_quantiles(rp, n, R, p, 3, 20000, 0.95, &rng, ci) == 0, "cluster bootstrap runs");
	for (int j = 0; j < 3; j++) {
		is_dbl(ci[j].est, want[j][0], 1e-9, "cluster p%g estimate = pooled np.quantile", p[j] * 100);
		is_dbl(ci[j].accel, want[j][1], 1e-9, "cluster p%g leave-one-rep-out a = numpy", p[j] * 100);
		is_dbl(ci[j].lo, want[j][2], tol[j], "cluster p%g lo ~ numpy brute force", p[j] * 100);
		is_dbl(ci[j].hi, want[j][3], tol[j], "cluster p%g hi ~ numpy brute force", p[j] * 100);
	}
	/* An empty rep is skipped; one non-empty rep is a point. */
	n[1] = n[2] = n[3] = n[4] = 0;
	gp_boot_cluster_quantiles(rp, n, R, p, 1, 1000, 0.95, &rng, ci);
	ok(ci[0].degenerate && ci[0].lo == ci[0].est && ci[0].est == gp_quantile_sorted(reps[0], M, 0.5),
	   "one non-empty cluster: degenerate, lo = hi = est");
	n[0] = 0;
	gp_boot_cluster_quantiles(rp, n, R, p, 1, 1000, 0.95, &rng, ci);
	ok(ci[0].degenerate && isnan(ci[0].est), "no values: degenerate, NaN (null)");
}

/*
 * The cluster bootstrap against a brute force on the same draws: every
 * resample's pooled values sorted and their quantile taken, and each
 * leave-one-cluster-out pool likewise, then the same interval.  Two shapes:
 * 400 clusters of 1-3 values (ranks found by walking the pool) and 6
 * clusters of 400 (ranks found by binary search), so both ways are checked.
 */
static void cluster_exact_one(size_t R, size_t per_max, const char *what)
{
	enum { B = 300 };
	const double p[3] = {0.5, 0.9, 0.99};
	double **x = calloc(R, sizeof(*x)), *pool = malloc(R * per_max * 5 * sizeof(*pool));
	double ts[3][B], *jack = malloc(3 * R * sizeof(*jack));
	size_t *n = calloc(R, sizeof(*n)), N = 0;
	unsigned *m = calloc(R, sizeof(*m));
	struct gp_ci got[3], want[3];
	struct gp_rng rng;
	uint64_t st = 12345;
	int same = 1;

	for (size_t r = 0; r < R; r++) {
		n[r] = R < 10 ? per_max - r : 1 + (size_t)(r * 7 % per_max);
		x[r] = malloc(n[r] * sizeof(**x));
		for (size_t i = 0; i < n[r]; i++) {
			st = st * 6364136223846793005ULL + 1442695040888963407ULL;
			x[r][i] = (double)(st >> 40) / 1e3 + (double)(r % 3);	/* ties across clusters */
			if (i % 5 == 4)
				x[r][i] = x[r][i - 1];	/* ties within one */
		}
		gp_sort_doubles(x[r], n[r]);
		N += n[r];
	}
	gp_rng_seed(&rng, 4242);
	ok(gp_boot_cluster_quantiles((const double *const *)x, n, R, p, 3, B, 0.95, &rng, got) == 0,
	   "%s: cluster bootstrap runs", what);
	gp_rng_seed(&rng, 4242);
	for (int b = 0; b < B; b++) {
		size_t k = 0;

		memset(m, 0, R * sizeof(*m));
		for (size_t r = 0; r < R; r++)
			m[gp_rng_below(&rng, R)]++;
		for (size_t r = 0; r < R; r++)
			for (unsigned c = 0; c < m[r]; c++)
				for (size_t i = 0; i < n[r]; i++)
					pool[k++] = x[r][i];
		gp_sort_doubles(pool, k);
		for (int j = 0; j < 3; j++)
			ts[j][b] = gp_quantile_sorted(pool, k, p[j]);
	}
	for (size_t out = 0; out < R; out++) {
		size_t k = 0;

		for (size_t r = 0; r < R; r++)
			for (size_t i = 0; r != out && i < n[r]; i++)
				pool[k++] = x[r][i];
		gp_sort_doubles(pool, k);
		for (int j = 0; j < 3; j++)
			jack[j * R + out] = gp_quantile_sorted(pool, k, p[j]);
	}
	for (size_t k = 0, r = 0; r < R; r++)
		for (size_t i = 0; i < n[r]; i++)
			pool[k++] = x[r][i];
	gp_sort_doubles(pool, N);
	for (int j = 0; j < 3; j++) {
		gp_ci_from_dist(ts[j], B, gp_quantile_sorted(pool, N, p[j]),
				gp_boot_accel(jack + j * R, &R, 1), 1, 0.95, &want[j]);
		same &= fabs(got[j].est - want[j].est) <= 1e-9 * fabs(want[j].est) &&
			fabs(got[j].accel - want[j].accel) <= 1e-9 * fmax(1e-12, fabs(want[j].accel)) &&
			fabs(got[j].lo - want[j].lo) <= 1e-9 * fabs(want[j].lo) &&
			fabs(got[j].hi - want[j].hi) <= 1e-9 * fabs(want[j].hi);
		if (!same)
			diag("p%g: got %.17g [%.17g, %.17g] a %.17g, want %.17g [%.17g, %.17g] a %.17g",
			     p[j] * 100, got[j].est, got[j].lo, got[j].hi, got[j].accel, want[j].est,
			     want[j].lo, want[j].hi, want[j].accel);
	}
	ok(same, "%s: estimate, acceleration and interval = the brute force on the same draws", what);
	for (size_t r = 0; r < R; r++)
		free(x[r]);
	free(x);
	free(n);
	free(m);
	free(pool);
	free(jack);
}

static void cluster_exact(void)
{
	cluster_exact_one(400, 3, "400 clusters of 1-3 values");
	cluster_exact_one(6, 400, "6 clusters of up to 400 values");
}

static void edges(void)
{
	struct gp_ci ci[2];
	struct gp_rng rng;
	const double p[2] = {0.5, 0.99};
	double same[50], two[2] = {1.0, 3.0}, one[1] = {7.5};
	double ts[4] = {1, 1, 1, 1};

	gp_rng_seed(&rng, 1);
	for (int i = 0; i < 50; i++)
		same[i] = 42.0;
	gp_boot_quantiles(same, 50, p, 2, 1000, 0.95, &rng, ci);
	ok(ci[0].degenerate && ci[0].lo == 42 && ci[0].hi == 42 && ci[1].hi == 42,
	   "all-equal sample: degenerate, lo = hi = est, no NaN");
	gp_boot_mean(same, 50, 1000, 0.95, &rng, ci);
	ok(ci[0].degenerate && ci[0].lo == 42 && ci[0].hi == 42, "all-equal mean: degenerate");
	gp_boot_quantiles(one, 1, p, 1, 1000, 0.95, &rng, ci);
	ok(ci[0].degenerate && ci[0].lo == 7.5 && ci[0].hi == 7.5, "n = 1: degenerate point");
	gp_boot_quantiles(two, 2, p, 2, 5000, 0.95, &rng, ci);
	ok(!ci[0].degenerate && isfinite(ci[0].lo) && isfinite(ci[0].hi) && ci[0].lo >= 1 && ci[0].hi <= 3,
	   "n = 2: finite interval within the sample range");
	gp_boot_quantiles(two, 0, p, 1, 1000, 0.95, &rng, ci);
	ok(ci[0].degenerate && isnan(ci[0].est) && isnan(ci[0].lo), "n = 0: NaN (null), degenerate");
	gp_ci_from_dist(ts, 4, 0.5, 0.1, 1, 0.95, ci);
	ok(ci[0].degenerate && ci[0].lo == 0.5 && ci[0].hi == 0.5, "constant bootstrap distribution: point");
	double ts2[4] = {1, 2, 3, 4};
	gp_ci_from_dist(ts2, 4, 0.5, 0.1, 1, 0.95, ci);
	ok(ci[0].degenerate && isinf(ci[0].z0) && ci[0].lo == 0.5,
	   "estimate below every resample: z0 infinite → degenerate point, no NaN");
	double ts3[4] = {1, 2, 3, 4};
	gp_ci_from_dist(ts3, 4, 2.5, 0.9, 1, 0.95, ci);
	ok(!ci[0].degenerate && isfinite(ci[0].lo) && isfinite(ci[0].hi), "huge a: levels clamp, finite");
	gp_boot_proportion(0, 100, 1000, 0.95, &rng, ci);
	ok(ci[0].degenerate && ci[0].est == 0 && ci[0].lo == 0 && ci[0].hi == 0, "proportion 0/100: point 0");
	gp_boot_proportion(100, 100, 1000, 0.95, &rng, ci);
	ok(ci[0].degenerate && ci[0].est == 1 && ci[0].hi == 1, "proportion 100/100: point 1");
	double a[3] = {0.9, 0.9, 0.9}, b[3] = {0.8, 0.8, 0.8};
	gp_boot_mean_diff(a, 3, b, 3, 1000, 0.95, 1, &rng, ci);
	ok(ci[0].degenerate && fabs(ci[0].lo - 0.1) < 1e-12 && fabs(ci[0].hi - 0.1) < 1e-12,
	   "difference of two constant arms: exact point");

	/* Determinism: the same seed gives the same interval. */
	struct gp_rng r1, r2;
	struct gp_ci c1, c2;
	double L[500];
	lognormal_sample(L, 500, 0);
	gp_rng_seed(&r1, 5);
	gp_rng_seed(&r2, 5);
	gp_boot_quantiles(L, 500, p + 1, 1, 3000, 0.95, &r1, &c1);
	gp_boot_quantiles(L, 500, p + 1, 1, 3000, 0.95, &r2, &c2);
	ok(c1.lo == c2.lo && c1.hi == c2.hi, "same seed, same interval");
}

/*
 * The lazy multinomial draws against materialized resamples: the mean and
 * sd of the bootstrap distribution of p90 agree (both from our rng, so this
 * checks the descent, not the generator).
 */
static void lazy_vs_materialized(void)
{
	enum { N = 400, B = 40000 };
	static double x[N], r[N], ta[B], tb[B];
	struct gp_rng rng;
	double p = 0.9;

	lognormal_sample(x, N, 0);
	gp_rng_seed(&rng, 3);
	for (int b = 0; b < B; b++) {
		for (int i = 0; i < N; i++)
			r[i] = x[gp_rng_below(&rng, N)];
		ta[b] = gp_quantile_select(r, N, p);
	}
	/* Lazy draws, one resample at a time via B = 1 calls would re-jackknife;
	 * instead read the distribution back through a percentile interval at
	 * several levels: compare quantiles of the two distributions. */
	struct gp_ci ci;
	int okq = 1;
	const double lv[4] = {0.5, 0.8, 0.9, 0.98};
	gp_sort_doubles(ta, B);
	for (int k = 0; k < 4; k++) {
		gp_boot_quantiles(x, N, &p, 1, B, lv[k], &rng, &ci);
		(void)tb;
		/* Percentile ends of the lazy distribution at level lv equal the
		 * (1 ± lv)/2 quantiles; recompute from the BCa levels reported. */
		double lo_m = gp_quantile_sorted(ta, B, ci.alpha_lo), hi_m = gp_quantile_sorted(ta, B, ci.alpha_hi);
		if (fabs(lo_m - ci.lo) > 1.0 || fabs(hi_m - ci.hi) > 1.5) {
			diag("level %g: lazy [%g, %g] materialized [%g, %g]", lv[k], ci.lo, ci.hi, lo_m, hi_m);
			okq = 0;
		}
	}
	ok(okq, "lazy multinomial descent has the distribution of materialized resamples");
}

int main(void)
{
	fixed_resamples();
	monte_carlo();
	cluster();
	cluster_exact();
	edges();
	lazy_vs_materialized();
	return done_testing();
}
