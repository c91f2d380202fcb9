/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of tost.  Provenance (tests/unit/stats-vectors.py, Debian 12
 * /usr/bin/python3, scipy 1.10.1): Welch's t and two-sided p from
 * scipy.stats.ttest_ind(equal_var=False), df by the Satterthwaite formula in
 * numpy; TOST by hand from scipy.stats.t: p_lower = t.sf((d+δ)/se, df),
 * p_upper = t.cdf((d−δ)/se, df), CI = d ± t.ppf(0.95, df)·se.
 */
#include <math.h>

#include "tap.h"
#include "base/rng.h"
#include "stats/tost.h"

static const double A[5] = {0.91, 0.94, 0.89, 0.93, 0.92};
static const double B[6] = {0.88, 0.90, 0.86, 0.91, 0.87, 0.89};

int main(void)
{
	struct gp_tost t;
	double tt, df, p;

	ok(gp_welch_t(A, 5, B, 6, &tt, &df, &p) == 0, "welch t runs");
	is_dbl(tt, 2.868661559608758, 1e-12, "Welch t = scipy ttest_ind");
	is_dbl(p, 0.019509518496248157, 1e-10, "Welch two-sided p = scipy ttest_ind");
	is_dbl(df, 8.54434565759515, 1e-10, "Welch–Satterthwaite df");

	ok(gp_tost_welch(A, 5, B, 6, 0.05, 0.05, &t) == 0, "tost runs");
	is_dbl(t.diff, 0.03300000000000025, 1e-12, "diff");
	is_dbl(t.p_lower, 3.2660817334805016e-05, 1e-12, "p_lower = t.sf");
	is_dbl(t.p_upper, 0.08767454754505881, 1e-10, "p_upper = t.cdf");
	is_dbl(t.p, 0.08767454754505881, 1e-10, "p = max");
	is_dbl(t.lo, 0.011783805038516417, 1e-10, "90%% CI lo");
	is_dbl(t.hi, 0.05421619496148408, 1e-10, "90%% CI hi");
	is_int(t.equivalent, 0, "δ = 0.05: CI hi 0.054 > δ → not equivalent");

	gp_tost_welch(A, 5, B, 6, 0.06, 0.05, &t);
	is_int(t.equivalent, 1, "δ = 0.06: CI inside [−δ, δ] → equivalent");
	ok(t.p < 0.05, "equivalent ⇔ p < α");

	gp_tost_welch(A, 5, B, 6, 0.03, 0.05, &t);
	is_dbl(t.p_lower, 0.0002348748675818863, 1e-12, "δ = 0.03 p_lower");
	is_dbl(t.p_upper, 0.5997837855242353, 1e-10, "δ = 0.03 p_upper");
	is_int(t.equivalent, 0, "δ = 0.03: not equivalent");

	const double X[5] = {0.80, 0.95, 0.70, 0.99, 0.85}, Y[5] = {0.90, 0.88, 0.92, 0.86, 0.89};
	gp_tost_welch(X, 5, Y, 5, 0.05, 0.05, &t);
	is_dbl(t.df, 4.2943682281885245, 1e-10, "straddle df");
	is_dbl(t.p_lower, 0.3751596961584731, 1e-10, "straddle p_lower");
	is_dbl(t.p_upper, 0.09610864773304517, 1e-10, "straddle p_upper");
	/* GSL's t quantile at fractional df agrees with scipy's to ~1e-9. */
	is_dbl(t.lo, -0.14289744521158387, 1e-8, "straddle lo90");
	is_dbl(t.hi, 0.07889744521158382, 1e-8, "straddle hi90");
	is_int(t.equivalent, 0, "CI straddles both bounds → never equivalent");

	/* Degenerate: no spread in either arm. */
	const double C1[3] = {0.9, 0.9, 0.9}, C2[3] = {0.88, 0.88, 0.88};
	gp_tost_welch(C1, 3, C2, 3, 0.05, 0.05, &t);
	ok(t.degenerate && t.equivalent && t.p == 0 && fabs(t.lo - 0.02) < 1e-12 && fabs(t.hi - 0.02) < 1e-12,
	   "sd = 0 both arms, |d| = 0.02 < δ: equivalent, p = 0, CI = d");
	gp_tost_welch(C1, 3, C2, 3, 0.01, 0.05, &t);
	ok(t.degenerate && !t.equivalent && t.p == 1, "sd = 0 both arms, |d| > δ: not equivalent, p = 1");
	ok(isnan(t.df), "degenerate df is NaN (null)");

	/* One arm without spread: df from the other arm alone (n − 1). */
	gp_tost_welch(A, 5, C1, 3, 0.05, 0.05, &t);
	is_dbl(t.df, 4, 1e-12, "one constant arm: df = n − 1 of the other");

	ok(gp_tost_welch(A, 1, B, 6, 0.05, 0.05, &t) == -1 && !t.equivalent && isnan(t.p),
	   "n < 2: cannot test, not equivalent, NaN");
	ok(gp_welch_t(C1, 3, C2, 3, &tt, &df, &p) == -1, "welch t with se = 0: -1");

	/*
	 * Per-rep intervals (tost.h).  Vectors: tests/unit/stats-vectors.py, the
	 * section "per-rep intervals" (/usr/bin/python3, scipy 1.10.1 stats.t.ppf,
	 * numpy 1.24 var(ddof=1)).  The issue-13 example: arm {.95 .93 .96 .94 .92}
	 * vs floor {.92 .91 .93 .90 .935} — Welch 95 % [−0.001035, 0.043035],
	 * inconclusive (a bootstrap over the 5 means said [0.005, 0.038]).
	 */
	{
		const double W1[5] = {.95, .93, .96, .94, .92}, W2[5] = {.92, .91, .93, .90, .935};
		const double D1[2] = {1, 1}, D2[2] = {.99, .99};
		const double Y2[5] = {.85, .80, .88, .83, .86};
		struct gp_tint ti;
		double fa, fb;

		ok(gp_welch_interval(W1, 5, 0, W2, 5, 0, 0.95, &ti) == 0, "welch interval runs");
		is_dbl(ti.est, 0.020999999999999908, 1e-12, "welch diff");
		is_dbl(ti.df, 7.922506577373839, 1e-10, "welch df = Satterthwaite");
		is_dbl(ti.lo, -0.0010353871092423465, 1e-9, "welch 95%% lo = scipy t.ppf (below 0: inconclusive)");
		is_dbl(ti.hi, 0.043035387109242165, 1e-9, "welch 95%% hi");
		ok(!ti.floored && !ti.degenerate, "no floor at f = 0");
		fa = gp_binom_floor_var(4700, 5000, 5);
		fb = gp_binom_floor_var(4595, 5000, 5);
		is_dbl(fa, 5.647741677419367e-05, 1e-15, "binomial floor (Jeffreys p) at 1000 per rep");
		is_dbl(fb, 7.450920333829653e-05, 1e-15, "binomial floor, floor arm");
		gp_welch_interval(W1, 5, fa, W2, 5, fb, 0.95, &ti);
		ok(!ti.floored && fabs(ti.lo + 0.0010353871092423465) < 1e-9,
		   "floor below s²: the textbook Welch interval");
		/* Two constant reps per arm, 100 requests each: 1.0, 1.0 vs 0.99, 0.99. */
		fa = gp_binom_floor_var(200, 200, 2);
		fb = gp_binom_floor_var(198, 200, 2);
		is_dbl(fa, 2.4813742234103556e-05, 1e-15, "floor at p = 1 is positive (Jeffreys)");
		gp_welch_interval(D1, 2, fa, D2, 2, fb, 0.95, &ti);
		ok(ti.degenerate && ti.floored && ti.hi > ti.lo, "zero spread: floored, degenerate, not zero-width");
		is_dbl(ti.lo, -0.04794900263885513, 1e-9, "degenerate welch lo = scipy with floors");
		is_dbl(ti.hi, 0.06794900263885514, 1e-9, "degenerate welch hi");
		is_dbl(ti.df, 1.388188224117581, 1e-9, "degenerate welch df");
		gp_tost_welch_floor(D1, 2, fa, D2, 2, fb, 0.02, 0.05, &t);
		ok(!t.degenerate && t.p > 0 && !t.equivalent, "floored TOST: p > 0, not equivalent");
		is_dbl(t.p_lower, 0.06000775330348878, 1e-9, "floored TOST p_lower = scipy t.sf");
		is_dbl(t.p_upper, 0.20322456883081624, 1e-9, "floored TOST p_upper = scipy t.cdf");
		ok(gp_t_interval(W2, 5, 0, 0.95, &ti) == 0, "t interval runs");
		is_dbl(ti.est, 0.9190000000000002, 1e-12, "one-sample mean");
		is_dbl(ti.half_width, 0.017777922946993836, 1e-12, "noise-floor half-width = t.ppf(.975, 4) s/√5");
		ok(gp_t_interval(W2, 1, 0, 0.95, &ti) == -1 && isnan(ti.lo), "one rep: no interval");
		ok(gp_crossing_interval(10, W1, 5, 0, 20, Y2, 5, 0, 0.9, 0.95, &ti) == 0, "crossing runs");
		is_dbl(ti.est, 14.166666666666668, 1e-12, "crossing rate by linear interpolation");
		is_dbl(ti.lo, 12.45136202033511, 1e-8, "crossing delta-method lo");
		is_dbl(ti.hi, 15.881971312998227, 1e-8, "crossing delta-method hi");
		is_dbl(ti.df, 7.299185520361985, 1e-9, "crossing Satterthwaite df");
	}
	{
		/* Fieller's interval of a ratio of means: stats-vectors.py finds the
		 * interval's ends by root-finding on the pivot (scipy 1.10 brentq,
		 * t.ppf), not by the closed form. */
		const double G1[5] = {18.2, 17.1, 19.4, 18.8, 17.9};
		const double G2[6] = {8.1, 7.6, 8.4, 7.9, 8.3, 8.0}, Z[3] = {0.1, -0.2, 0.15};
		struct gp_tint ti;

		ok(gp_ratio_interval(G1, 5, 0, G2, 6, 0, 0.95, &ti) == 0, "ratio interval runs");
		is_dbl(ti.est, 2.2708074534161495, 1e-12, "ratio of the means");
		is_dbl(ti.lo, 2.1353363956403673, 1e-9, "Fieller lo = scipy brentq on the pivot");
		is_dbl(ti.hi, 2.4116110181582697, 1e-9, "Fieller hi");
		is_dbl(ti.df, 7.318932534038712, 1e-9, "Fieller Satterthwaite df");
		ok(isnan(ti.half_width) && ti.hi - ti.est > ti.est - ti.lo, "asymmetric: longer above");
		gp_ratio_interval(G1, 5, 0.9, G2, 6, 0.2, 0.95, &ti);
		is_dbl(ti.lo, 2.109342780449429, 1e-9, "Fieller with floors lo");
		is_dbl(ti.hi, 2.4443255348321027, 1e-9, "Fieller with floors hi");
		is_dbl(ti.df, 8.838894468197571, 1e-9, "Fieller with floors df");
		ok(ti.floored, "floored");
		ok(gp_ratio_interval(G1, 5, 0, Z, 3, 0, 0.95, &ti) == -1 && isnan(ti.lo) && isnan(ti.hi) &&
		   !isnan(ti.est), "denominator not resolved from 0: unbounded, no interval");
		ok(gp_ratio_interval(G1, 1, 0, G2, 6, 0, 0.95, &ti) == -1 && isnan(ti.lo), "one rep: none");
	}
	{
		/* Coverage by simulation.  (a) Normal per-rep goodput, no floor: the
		 * construction itself, within 93.5-96.5 %.  (b) per-rep goodput =
		 * rate x Binomial(m, p_r)/m x (1 + N(0, 0.01^2)), p_r = p + N(0, tau^2),
		 * with the binomial floor carried to goodput as gp-analyze does; the
		 * floor may only make it wider (at tau = 0 it covers ~99 %: the floor
		 * is near the true variance, and max(s^2, f) is above it), never
		 * narrower: at least 93.5 %.  Truth (18 x 0.93)/(8 x 0.96).  4000 sims
		 * a cell: Monte Carlo SE 0.34 % on a 95 % coverage.
		 * bench/bench-coverage.sh measures more cells. */
		static const size_t ms[3] = {15, 60, 60};
		static const double tau[3] = {0, 0, 0.03};
		const double truth = 18 * 0.93 / (8 * 0.96);
		struct gp_rng r;
		long cover = 0, S = 4000;

		gp_rng_seed(&r, 27);
		for (long s = 0; s < S; s++) {
			double x[5], y[6];
			struct gp_tint ti;

			for (int k = 0; k < 6; k++) {
				if (k < 5)
					x[k] = 16.74 + 1.1 * gp_rng_normal(&r);
				y[k] = 7.68 + 0.6 * gp_rng_normal(&r);
			}
			if (gp_ratio_interval(x, 5, 0, y, 6, 0, 0.95, &ti) == 0)
				cover += ti.lo <= truth && truth <= ti.hi;
		}
		diag("ratio coverage, normal, 5 and 6 reps, no floor: %.2f %% of %ld",
		     100.0 * (double)cover / (double)S, S);
		ok((double)cover / (double)S >= 0.935 && (double)cover / (double)S <= 0.965,
		   "ratio: 95 %% Fieller covers 93.5-96.5 %% (normal reps, no floor)");
		for (int c = 0; c < 3; c++) {
			long bounded = 0;

			cover = 0;
			for (long s = 0; s < S; s++) {
				double x[5], y[5], fx, fy;
				long gx = 0, gy = 0;
				struct gp_tint ti;

				for (int k = 0; k < 5; k++) {
					double px = 0.93 + tau[c] * gp_rng_normal(&r);
					double py = 0.96 + tau[c] * gp_rng_normal(&r);
					long a = 0, b = 0;

					for (size_t q = 0; q < ms[c]; q++) {
						a += gp_rng_uniform(&r) < px;
						b += gp_rng_uniform(&r) < py;
					}
					x[k] = 18 * (double)a / (double)ms[c] * (1 + 0.01 * gp_rng_normal(&r));
					y[k] = 8 * (double)b / (double)ms[c] * (1 + 0.01 * gp_rng_normal(&r));
					gx += a;
					gy += b;
				}
				fx = gp_binom_floor_var(gx, 5 * (long)ms[c], 5) * 18 * 18;
				fy = gp_binom_floor_var(gy, 5 * (long)ms[c], 5) * 8 * 8;
				if (gp_ratio_interval(x, 5, fx, y, 5, fy, 0.95, &ti) == 0) {
					bounded++;
					cover += ti.lo <= truth && truth <= ti.hi;
				}
			}
			diag("ratio coverage, binomial, 5 reps x %zu requests, tau %.2f, floored: %.2f %% of %ld",
			     ms[c], tau[c], 100.0 * (double)cover / (double)S, S);
			ok(bounded == S, "ratio: every interval bounded (%zu requests, tau %.2f)", ms[c], tau[c]);
			ok((double)cover / (double)S >= 0.935,
			   "ratio: floored Fieller covers >= 93.5 %% (%zu requests, tau %.2f)", ms[c], tau[c]);
		}
	}
	return done_testing();
}
