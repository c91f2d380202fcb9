/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of stats.  Provenance (tests/unit/stats-vectors.py, Debian 12
 * /usr/bin/python3, numpy 1.24.2): quantiles from np.quantile (default
 * method 'linear' = Hyndman–Fan type 7); mean, sd and CV from Python's
 * statistics.mean / statistics.stdev (sample sd, divisor n − 1).
 */
#include <math.h>
#include <stdlib.h>

#include "base/rng.h"
#include "stats/stats.h"
#include "tap.h"

static const double S1[25] = {
	31.2, 35.9, 38.4, 40.1, 41.7, 43.0, 44.8, 46.2, 48.0, 48.0, 49.5, 51.3,
	53.0, 55.2, 57.9, 61.5, 61.5, 64.0, 68.3, 72.9, 79.4, 88.0, 101.7, 126.3, 190.4,
};

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	const double p[9] = {0, 0.01, 0.1, 0.25, 0.5, 0.9, 0.95, 0.99, 1};
	/* np.quantile(S1, p) */
	const double q[9] = {31.2, 32.327999999999996, 39.08, 44.8, 53.0, 96.22000000000003,
			     121.37999999999992, 175.01599999999988, 190.4};
	double sh[25], one = 7.5, two[2] = {1, 3};
	struct gp_rng r;

	for (int i = 0; i < 9; i++)
		is_dbl(gp_quantile_sorted(S1, 25, p[i]), q[i], 1e-12, "type-7 quantile p=%g = np.quantile", p[i]);
	/* The same from a shuffled copy by selection. */
	gp_rng_seed(&r, 1);
	for (int i = 0; i < 9; i++) {
		for (int k = 0; k < 25; k++)
			sh[k] = S1[k];
		for (int k = 24; k > 0; k--) {
			int j = (int)gp_rng_below(&r, (uint64_t)k + 1);
			double t = sh[k];
			sh[k] = sh[j];
			sh[j] = t;
		}
		is_dbl(gp_quantile_select(sh, 25, p[i]), q[i], 1e-12, "quickselect quantile p=%g", p[i]);
	}
	is_dbl(gp_quantile_sorted(&one, 1, 0.9), 7.5, 0, "n = 1: the value");
	is_dbl(gp_quantile_sorted(two, 2, 0.9), 2.8, 1e-12, "n = 2, p = 0.9: 2.8 (np.quantile)");
	is_dbl(gp_quantile_sorted(two, 2, 0.5), 2.0, 1e-12, "n = 2, p = 0.5: 2.0");
	ok(isnan(gp_quantile_sorted(two, 0, 0.5)), "n = 0: NaN");

	const double G[5] = {0.91, 0.94, 0.89, 0.93, 0.92};
	const double G2[5] = {0.70, 0.95, 0.80, 0.99, 0.62};
	is_dbl(gp_mean(G, 5), 0.918, 1e-15, "mean = statistics.mean");
	is_dbl(gp_sd(G, 5), 0.01923538406167133, 1e-15, "sd = statistics.stdev");
	is_dbl(gp_cv(G, 5), 0.020953577409228027, 1e-14, "cv = stdev / mean");
	is_dbl(gp_cv(G2, 5), 0.19499395038125467, 1e-14, "cv of a noisy arm");
	ok(isnan(gp_cv(G, 1)), "cv with one rep: NaN (undefined)");
	const double Z[3] = {0, 0, 0};
	ok(isnan(gp_cv(Z, 3)), "cv of a zero mean: NaN");
	ok(isnan(gp_sd(G, 1)) && isnan(gp_mean(G, 0)), "sd n<2, mean n=0: NaN");
	const double big[3] = {1e9 + 4, 1e9 + 7, 1e9 + 13};
	/* statistics.stdev([1e9+4, 1e9+7, 1e9+13]) */
	is_dbl(gp_sd(big, 3), 4.58257569495584, 1e-6, "sd is stable with a large offset");

	/* Sorting: radix path (n >= 4096) with negatives, ties, -0.0. */
	enum { N = 100000 };
	double *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	gp_rng_seed(&r, 7);
	for (int i = 0; i < N; i++) {
		double v = gp_rng_normal(&r) * 100;
		if (i % 10 == 0)
			v = round(v);
		if (i % 997 == 0)
			v = -0.0;
		a[i] = b[i] = v;
	}
	gp_sort_doubles(a, N);
	qsort(b, N, sizeof(*b), cmp);
	int same = 1;
	for (int i = 0; i < N; i++)
		same &= a[i] == b[i];
	ok(same, "radix sort = qsort on 100000 values with negatives and ties");
	double kth = gp_select(b, N, 12345);
	ok(kth == a[12345], "quickselect k-th = sorted[k]");
	for (int i = 0; i < N; i++)
		b[i] = 5.0;
	ok(gp_select(b, N, 500) == 5.0, "quickselect on all-equal values");
	free(a);
	free(b);

	/* Stability verdict: N >= 5 and CV <= 0.10 → publishable; at the cap →
	 * footnote; else add replicates (method §8.2). */
	is_str(gp_stability_name(gp_stability_verdict(5, 0.05, 5, 0.10, 10)), "PUBLISHABLE", "n=5 cv=5%%");
	is_str(gp_stability_name(gp_stability_verdict(5, 0.10, 5, 0.10, 10)), "PUBLISHABLE", "cv at the bound");
	is_str(gp_stability_name(gp_stability_verdict(4, 0.01, 5, 0.10, 10)), "ADD_REPLICATES", "n=4 below floor");
	is_str(gp_stability_name(gp_stability_verdict(7, 0.15, 5, 0.10, 10)), "ADD_REPLICATES", "cv over, below cap");
	is_str(gp_stability_name(gp_stability_verdict(10, 0.15, 5, 0.10, 10)), "PUBLISHABLE_WITH_FOOTNOTE", "cv over, at cap");
	is_str(gp_stability_name(gp_stability_verdict(12, 0.15, 5, 0.10, 0)), "ADD_REPLICATES", "no cap");
	is_str(gp_stability_name(gp_stability_verdict(6, NAN, 5, 0.10, 10)), "ADD_REPLICATES", "NaN cv is over the bound");
	is_str(gp_stability_name(gp_stability_verdict(3, 0.5, 5, 0.10, 3)), "ADD_REPLICATES", "cap below floor: still add");
	return done_testing();
}
