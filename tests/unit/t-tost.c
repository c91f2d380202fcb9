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
#include "tost.h"

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
	return done_testing();
}
