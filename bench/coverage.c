/* SPDX-License-Identifier: MIT */
/*
 * coverage — the real coverage of every interval gp reports, by simulation
 * (bench/bench-coverage.sh builds and runs it; it prints figures, it is not a
 * test).  Each interval is computed by the library functions gp-analyze calls
 * (tost.h, boot.h), on data drawn from a model whose truth is known:
 *
 *   rep good fraction  Binomial(M, p_r) / M,  p_r = p + N(0, TAU²) clamped to [0, 1]
 *                      (M requests per rep, TAU the between-rep spread)
 *   achieved rate      label × (1 + N(0, 0.01²))
 *   latencies          lognormal(0, 1): the true p-quantile is exp(Φ⁻¹(p))
 *
 * Per cell S simulations (default 2000: the Monte Carlo standard error of a
 * coverage near 95 % is √(.95·.05/2000) = 0.49 %, so ±1 % at 95 %).  Usage:
 *   coverage [S] [B]     (B: bootstrap resamples of the BCa cells, default 1000)
 * The verdict logic below mirrors gp-analyze's verdict_of() and tost_json():
 * INSUFFICIENT_REPS under MIN_REPS, WIN/LOSS from the Welch interval, EQUIVALENT
 * when the floored TOST passes, δ ≥ the noise floor and both arms have MIN_REPS.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/boot.h"
#include "base/rng.h"
#include "stats/stats.h"
#include "stats/tost.h"

enum { MIN_REPS = 5, MAXN = 16 };
static const double LEVEL = 0.95, M = 200, TAU = 0.01;
static gsl_rng *R;

struct arm {
	double gf[MAXN], gp[MAXN];
	long good, att;
	size_t n;
	double floor_var;
};

static void draw_arm(struct arm *a, size_t n, double p, double tau, double rate)
{
	a->n = n;
	a->good = a->att = 0;
	for (size_t i = 0; i < n; i++) {
		double pr = p + (tau > 0 ? gsl_ran_gaussian(R, tau) : 0);
		unsigned g;

		pr = pr < 0 ? 0 : pr > 1 ? 1 : pr;
		g = gsl_ran_binomial(R, pr, (unsigned)M);
		a->gf[i] = g / M;
		a->gp[i] = a->gf[i] * rate * (1 + gsl_ran_gaussian(R, 0.01));
		a->good += g;
		a->att += (long)M;
	}
	a->floor_var = gp_binom_floor_var(a->good, a->att, n);
}

static int covers(double lo, double hi, double truth)
{
	return lo <= truth && truth <= hi;
}

/* compare: Welch coverage, false WIN, and the old BCa-over-means for contrast. */
static void cell_compare(size_t n, double p, double tau, double d, long S, long B)
{
	long cov = 0, win = 0, rawwin = 0, bcov = 0, bwin = 0, nfcov = 0;
	double width = 0;
	struct gp_rng rng;

	gp_rng_seed(&rng, 7 + n);
	for (long s = 0; s < S; s++) {
		struct arm x, y;
		struct gp_tint ti;
		struct gp_ci ci;

		draw_arm(&y, n, p, tau, 10);
		draw_arm(&x, n, p + d, tau, 10);
		gp_welch_interval(x.gf, n, x.floor_var, y.gf, n, y.floor_var, LEVEL, &ti);
		cov += covers(ti.lo, ti.hi, d);
		width += ti.hi - ti.lo;
		rawwin += ti.lo > 0;
		win += ti.lo > 0 && n >= MIN_REPS;
		gp_t_interval(y.gf, n, y.floor_var, LEVEL, &ti);
		nfcov += covers(ti.lo, ti.hi, p);
		if (B > 0) {
			gp_boot_mean_diff(x.gf, n, y.gf, n, B, LEVEL, 1, &rng, &ci);
			bcov += covers(ci.lo, ci.hi, d);
			bwin += ci.lo > 0;
		}
	}
	printf("compare   N=%-2zu p=%.3f sd=%.2f diff=%+.3f  welch cover %5.1f%%  mean width %.4f  "
	       "noise-floor cover %5.1f%%", n, p, tau, d, 100.0 * cov / S, width / S, 100.0 * nfcov / S);
	if (d == 0)
		printf("  WIN %4.1f%% (lo>0 %4.1f%%)", 100.0 * win / S, 100.0 * rawwin / S);
	if (B > 0)
		printf("  | old BCa-over-means cover %5.1f%%%s", 100.0 * bcov / S,
		       d == 0 ? "" : "");
	if (B > 0 && d == 0)
		printf(" false WIN %4.1f%%", 100.0 * bwin / S);
	printf("\n");
}

/* EQUIVALENT rate when the true difference is exactly ±δ (goal ≤ 5 %). */
static void cell_equiv(size_t n, double delta, long S)
{
	long eq = 0, passed = 0;

	for (long s = 0; s < S; s++) {
		struct arm x, y;
		struct gp_tost t;
		struct gp_tint nf;
		double d = (s & 1) ? delta : -delta;

		draw_arm(&y, n, 0.90, TAU, 10);
		draw_arm(&x, n, 0.90 + d, TAU, 10);
		gp_tost_welch_floor(x.gf, n, x.floor_var, y.gf, n, y.floor_var, delta, 0.05, &t);
		gp_t_interval(y.gf, n, y.floor_var, LEVEL, &nf);
		passed += t.equivalent;
		eq += t.equivalent && n >= MIN_REPS && n >= 3 && delta >= nf.half_width;
	}
	printf("equiv     N=%-2zu |true diff| = delta = %.3f  EQUIVALENT %4.1f%%  (TOST alone %4.1f%%)\n",
	       n, delta, 100.0 * eq / S, 100.0 * passed / S);
}

/*
 * The knee: rungs 10, 20, 30 req/s with true good fractions 0.98, 0.93, 0.80
 * and target 0.9: knee rung 20, true goodput 0.93 × 20 = 18.6 req/s, true
 * crossing 20 + (0.93 − 0.9)/(0.93 − 0.80) × 10 = 22.3077 req/s.
 */
static void cell_knee(size_t n, long S)
{
	static const double rate[3] = {10, 20, 30}, mean[3] = {0.98, 0.93, 0.80};
	const double T = 0.9, true_gp = 0.93 * 20, true_cross = 20 + 0.03 / 0.13 * 10;
	long right = 0, gcov = 0, ccov = 0;

	for (long s = 0; s < S; s++) {
		struct arm a[3];
		int k = -1;

		for (int r = 0; r < 3; r++) {
			draw_arm(&a[r], n, mean[r], TAU, rate[r]);
			if (gp_mean(a[r].gf, n) >= T)
				k = r;
		}
		if (k != 1)
			continue;	/* the wrong rung: counted in the selection rate */
		right++;
		struct gp_tint ti;
		double ach = 20, f = a[1].floor_var * ach * ach;

		gp_t_interval(a[1].gp, n, f, LEVEL, &ti);
		gcov += covers(ti.lo, ti.hi, true_gp);
		gp_crossing_interval(rate[1], a[1].gf, n, a[1].floor_var, rate[2], a[2].gf, n,
				     a[2].floor_var, T, LEVEL, &ti);
		ccov += covers(ti.lo, ti.hi, true_cross);
	}
	printf("knee      N=%-2zu right rung %5.1f%%  goodput cover %5.1f%%  crossing cover %5.1f%%"
	       "  (of the sims on the right rung)\n", n, 100.0 * right / S,
	       right ? 100.0 * gcov / right : NAN, right ? 100.0 * ccov / right : NAN);
}

/*
 * The knee comparison's ratio: per-rep goodput at two knees, arm 0.93 x 20
 * req/s over floor 0.96 x 10 req/s (truth 1.9375), Fieller's interval with
 * the binomial floors carried to goodput as gp-analyze does.
 */
static void cell_ratio(size_t n, double tau, long S)
{
	const double truth = 0.93 * 20 / (0.96 * 10);
	long cov = 0, bounded = 0;

	for (long s = 0; s < S; s++) {
		struct arm x, y;
		struct gp_tint ti;

		draw_arm(&x, n, 0.93, tau, 20);
		draw_arm(&y, n, 0.96, tau, 10);
		if (gp_ratio_interval(x.gp, n, x.floor_var * 400, y.gp, n, y.floor_var * 100, LEVEL,
				      &ti) == 0) {
			bounded++;
			cov += covers(ti.lo, ti.hi, truth);
		}
	}
	printf("ratio     N=%-2zu tau %.2f  Fieller cover %5.1f%%  bounded %5.1f%%\n", n, tau,
	       100.0 * cov / S, 100.0 * bounded / S);
}

/* BCa of p50/p90/p99 over n lognormal latencies. */
static void cell_bca(size_t n, long S, long B)
{
	static const double p[3] = {0.5, 0.9, 0.99};
	double *x = malloc(n * sizeof(*x));
	long cov[3] = {0, 0, 0};
	struct gp_rng rng;

	gp_rng_seed(&rng, 11 + n);
	for (long s = 0; s < S; s++) {
		struct gp_ci ci[3];

		for (size_t i = 0; i < n; i++)
			x[i] = gsl_ran_lognormal(R, 0, 1);
		gp_sort_doubles(x, n);
		gp_boot_quantiles(x, n, p, 3, B, LEVEL, &rng, ci);
		for (int k = 0; k < 3; k++)
			cov[k] += covers(ci[k].lo, ci[k].hi, exp(gsl_cdf_ugaussian_Pinv(p[k])));
	}
	printf("bca       n=%-5zu p50 cover %5.1f%%  p90 cover %5.1f%%  p99 cover %5.1f%%%s\n", n,
	       100.0 * cov[0] / S, 100.0 * cov[1] / S, 100.0 * cov[2] / S,
	       "");
	free(x);
}

int main(int argc, char **argv)
{
	long S = argc > 1 ? atol(argv[1]) : 2000, B = argc > 2 ? atol(argv[2]) : 1000;
	static const size_t ns[3] = {3, 5, 10};
	static const size_t ln[6] = {100, 200, 500, 1000, 2000, 5000};

	gsl_rng_env_setup();
	R = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(R, 20240611);
	printf("# %ld simulations per cell (Monte Carlo SE of a 95 %% coverage: %.2f %%), "
	       "%ld resamples per BCa; M = %.0f requests per rep, between-rep sd %.3f\n", S,
	       100 * sqrt(0.95 * 0.05 / (double)S), B, M, TAU);
	for (int i = 0; i < 3; i++) {
		cell_compare(ns[i], 0.90, TAU, 0, S, B);
		cell_compare(ns[i], 0.90, TAU, 0.03, S, 0);
		cell_compare(ns[i], 0.90, 0.03, 0, S, 0);	/* a larger spread */
		/* near 1 with binomial noise only: most reps all good (the floor) */
		cell_compare(ns[i], 0.995, 0, 0, S, 0);
	}
	for (int i = 0; i < 3; i++)
		cell_equiv(ns[i], 0.05, S);
	for (int i = 0; i < 3; i++)
		cell_knee(ns[i], S);
	for (int i = 0; i < 3; i++) {
		cell_ratio(ns[i], TAU, S);
		cell_ratio(ns[i], 0.03, S);
	}
	for (int i = 0; i < 6; i++)
		cell_bca(ln[i], S, B);
	gsl_rng_free(R);
	return 0;
}
