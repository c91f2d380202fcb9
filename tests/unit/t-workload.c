/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of workload: parsing, seeded reproducibility, and the sample
 * moments of every distribution against its analytic value.  N = 100000
 * draws; each tolerance is 5 standard errors of the statistic (computed from
 * the analytic variance, stated by each check), so a correct implementation
 * fails with probability < 1e-6 per check, and the seeds are fixed anyway.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "method/workload.h"
#include "tap.h"

#define N 100000

static double x[N];

static void moments(double *mean, double *sd)
{
	double s = 0, ss = 0;

	for (int i = 0; i < N; i++)
		s += x[i];
	*mean = s / N;
	for (int i = 0; i < N; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	*sd = sqrt(ss / (N - 1));
}

static void test_parse(void)
{
	struct gp_dist d;
	char err[96], big[200];

	ok(!gp_dist_parse("2048", &d, err, sizeof(err)) && d.kind == GP_DIST_FIXED && d.a == 2048, "N");
	ok(!gp_dist_parse("fixed:7", &d, err, sizeof(err)) && d.kind == GP_DIST_FIXED && d.a == 7, "fixed:N");
	ok(!gp_dist_parse("uniform:3:9", &d, err, sizeof(err)) && d.kind == GP_DIST_UNIFORM &&
	   d.a == 3 && d.b == 9, "uniform:A:B");
	ok(!gp_dist_parse("lognormal:500:0.5", &d, err, sizeof(err)) && d.kind == GP_DIST_LOGNORMAL &&
	   d.a == 500 && d.b == 0.5, "lognormal:MEDIAN:SIGMA");
	ok(gp_dist_parse("uniform:9:3", &d, err, sizeof(err)) == -1 &&
	   !strcmp(err, "want uniform:A:B with 1 <= A <= B"), "uniform with A > B refused");
	ok(gp_dist_parse("lognormal:5", &d, err, sizeof(err)) == -1 && !strcmp(err, "want lognormal:MEDIAN:SIGMA"),
	   "lognormal without SIGMA refused");
	ok(gp_dist_parse("0", &d, err, sizeof(err)) == -1, "0 tokens refused");
	memset(big, '9', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ok(gp_dist_parse(big, &d, err, sizeof(err)) == -2, "over 127 bytes: -2");
}

int main(void)
{
	struct gp_dist u = { GP_DIST_UNIFORM, 10, 20 }, ln = { GP_DIST_LOGNORMAL, 500, 0.5 };
	gsl_rng *a = gp_workload_stream(42, 2), *b = gp_workload_stream(42, 2), *c = gp_workload_stream(42, 3);
	gsl_ran_discrete_t *z = gp_zipf_table(16, 1.0);
	double mean, sd;
	long lo = 99, hi = 0, n1 = 0, n2 = 0;
	int same = 1, differ = 0;

	test_parse();
	for (int i = 0; i < 1000; i++) {
		unsigned long p = gsl_rng_get(a), q = gsl_rng_get(b), r = gsl_rng_get(c);
		same &= p == q;
		differ += p != r;
	}
	ok(same, "stream (42, 2) twice: the same draws");
	ok(differ > 990, "streams 2 and 3 of one seed differ");
	/* Stream (1, 0) is gp-trace synth --seed 1's arrivals (t2000 pins those). */
	gsl_rng_free(a);
	gsl_rng_free(b);
	a = gp_workload_stream(1, 0);
	b = gp_workload_stream(1, 0);
	ok(gsl_rng_get(a) == gsl_rng_get(b), "stream (1, 0) reproducible");

	/* Uniform 10..20: mean 15, variance (11^2 - 1) / 12 = 10, SE 0.01. */
	for (int i = 0; i < N; i++) {
		long v = gp_dist_draw(&u, c);
		x[i] = (double)v;
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	moments(&mean, &sd);
	is_dbl(mean, 15, 0.05, "uniform 10..20: mean 15 (5 SE = 0.05)");
	is_dbl(sd * sd, 10, 0.45, "uniform 10..20: variance 10 (5 SE = 0.45, SE = sqrt((m4 - s^4)/n))");
	ok(lo == 10 && hi == 20, "uniform 10..20: both ends drawn, nothing outside");

	/* Lognormal median 500, sigma 0.5: mean 500 e^(0.125) = 566.57, sd 301.9
	 * (SE of the mean 0.955); median SE 1/(2 f(m) sqrt N) = 0.99. */
	for (int i = 0; i < N; i++)
		x[i] = (double)gp_dist_draw(&ln, c);
	moments(&mean, &sd);
	is_dbl(mean, 566.574, 4.8, "lognormal: mean 566.57 (5 SE = 4.8)");
	is_dbl(gp_quantile_select(x, N, 0.5), 500, 5.0, "lognormal: median 500 (5 SE = 5)");

	/* Exponential gaps at 4/s: mean 0.25, sd 0.25 (SE of the mean 0.00079). */
	for (int i = 0; i < N; i++)
		x[i] = gp_arrival_gap(GP_ARRIVAL_POISSON, 4, 1, c);
	moments(&mean, &sd);
	is_dbl(mean, 0.25, 0.004, "poisson gaps: mean 1/R (5 SE = 0.004)");
	is_dbl(sd / mean, 1, 0.02, "poisson gaps: CV 1 (5 SE of the sd = 0.016)");

	/* Gamma shape 0.25 at 4/s: mean 0.25, CV 1/sqrt(0.25) = 2, sd 0.5 (SE of
	 * the mean 0.0016; the sd's relative SE sqrt((kurtosis + 2) / 4N) = 0.8 %). */
	for (int i = 0; i < N; i++)
		x[i] = gp_arrival_gap(GP_ARRIVAL_GAMMA, 4, 0.25, c);
	moments(&mean, &sd);
	is_dbl(mean, 0.25, 0.008, "gamma gaps: mean 1/R (5 SE = 0.008)");
	is_dbl(sd / mean, 2, 0.1, "gamma gaps: CV 1/sqrt(B) = 2 (within 5 %%)");
	ok(gp_arrival_gap(GP_ARRIVAL_CONSTANT, 4, 1, c) == 0.25, "constant gaps: exactly 1/R");

	/* Zipf s = 1 over 16 keys: P(1) = 1/H16 = 0.29579, P(2) = 0.14790;
	 * SE sqrt(p (1 - p) / N) = 0.0014 and 0.0011. */
	for (int i = 0; i < N; i++) {
		size_t k = gsl_ran_discrete(c, z);
		n1 += k == 0;
		n2 += k == 1;
	}
	is_dbl((double)n1 / N, 0.2957942, 0.0072, "zipf: P(key-1) = 1/H16 (5 SE = 0.0072)");
	is_dbl((double)n2 / N, 0.1478971, 0.0056, "zipf: P(key-2) = 1/(2 H16) (5 SE = 0.0056)");

	gsl_ran_discrete_free(z);
	gsl_rng_free(a);
	gsl_rng_free(b);
	gsl_rng_free(c);
	return done_testing();
}
