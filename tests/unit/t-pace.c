/* SPDX-License-Identifier: MIT */
/* t-pace — arrival schedules keep their shape and rate, Poisson is Poisson,
 * shards partition the trace and agree on offsets, start-at converts wall to
 * monotonic time, and the lateness histogram's quantiles are type 7. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "method/pace.h"
#include "stats/stats.h"

static void test_asis_rescale(void)
{
	/* Bursty trace: a burst of 3, a lull, a pair, a long gap. */
	static const double t[] = { 10.0, 10.5, 11.0, 13.0, 13.1, 20.0 };
	const int n = 6;
	double off[6], base[6], rps, factor;
	struct gp_pace p;
	int i, bad = 0;

	gp_pace_asis(&p);
	for (i = 0; i < n; i++)
		base[i] = gp_pace_next(&p, t[i]);
	is_dbl(base[0], 0, 0, "as is: first record at 0");
	is_dbl(base[5], 10.0, 1e-12, "as is: last at t_last - t_first");

	rps = gp_pace_trace_rps((unsigned long)n, t[0], t[n - 1]);
	is_dbl(rps, 0.5, 1e-12, "trace mean rate (n-1)/span = 5/10");
	gp_pace_rescale(&p, rps, 2.0);
	for (i = 0; i < n; i++)
		off[i] = gp_pace_next(&p, t[i]);
	is_dbl((n - 1) / off[n - 1], 2.0, 1e-12, "rescaled mean rate is exactly --rate-rps");
	factor = off[n - 1] / base[n - 1];
	for (i = 1; i < n; i++) {
		double g = off[i] - off[i - 1], g0 = base[i] - base[i - 1];

		if (fabs(g - g0 * factor) > 1e-12)
			bad++;
	}
	is_int(bad, 0, "every gap scaled by the same factor (shape kept)");
	is_dbl(factor, 0.25, 1e-12, "factor = trace_rps / rate_rps");
	is_dbl(gp_pace_trace_rps(1, 0, 0), 0, 0, "one record: rate undefined (0)");
	is_dbl(gp_pace_trace_rps(5, 3, 3), 0, 0, "zero span: rate undefined (0)");
}

static void test_poisson(void)
{
	enum { N = 100000 };
	const double rate = 100.0;
	double *gap = malloc(N * sizeof(*gap)), prev = 0, sum = 0, sum2 = 0, mean, sd, d = 0;
	struct gp_pace p, q;
	int i, same = 1, differ = 0;

	gp_pace_poisson(&p, rate, 42);
	is_dbl(gp_pace_next(&p, 123.0), 0, 0, "poisson: first arrival at 0, trace t_s ignored");
	for (i = 0; i < N; i++) {
		double o = gp_pace_next(&p, 0);

		gap[i] = o - prev;
		prev = o;
		sum += gap[i];
		sum2 += gap[i] * gap[i];
	}
	mean = sum / N;
	sd = sqrt(sum2 / N - mean * mean);
	/* The mean rate estimate has standard error rate/sqrt(N) = 0.32 %. */
	ok(fabs(1 / mean - rate) / rate < 0.01, "poisson mean rate %.3f within 1%% of %.0f (seed 42)", 1 / mean, rate);
	ok(fabs(sd / mean - 1) < 0.02, "gap CV %.4f within 2%% of 1 (exponential)", sd / mean);
	/* Kolmogorov-Smirnov against Exp(rate): D < 1.36/sqrt(N) is the 5 %
	 * critical value (Massey 1951, large-N approximation). */
	gp_sort_doubles(gap, N);
	for (i = 0; i < N; i++) {
		double f = 1 - exp(-rate * gap[i]);
		double a = fabs(f - (double)i / N), b = fabs((double)(i + 1) / N - f);

		d = fmax(d, fmax(a, b));
	}
	ok(d < 1.36 / sqrt((double)N), "KS distance %.5f below the 5%% critical value %.5f", d, 1.36 / sqrt((double)N));

	gp_pace_poisson(&p, rate, 7);
	gp_pace_poisson(&q, rate, 7);
	for (i = 0; i < 1000; i++)
		if (gp_pace_next(&p, 0) != gp_pace_next(&q, 0))
			same = 0;
	ok(same, "same seed, same schedule");
	gp_pace_poisson(&p, rate, 7);
	gp_pace_poisson(&q, rate, 8);
	for (i = 0; i < 10; i++)
		if (gp_pace_next(&p, 0) != gp_pace_next(&q, 0))
			differ = 1;
	ok(differ, "another seed, another schedule");
	free(gap);
}

static void test_shards(void)
{
	long i, n, sh, total;
	unsigned long k;
	int bad = 0, agree = 1;

	is_int(gp_pace_parse_shard("1/1", &i, &n), 0, "parse 1/1");
	is_int(gp_pace_parse_shard("3/4", &i, &n) == 0 && i == 3 && n == 4, 1, "parse 3/4");
	is_int(gp_pace_parse_shard("0/4", &i, &n), -1, "0/4 rejected (1-based)");
	is_int(gp_pace_parse_shard("5/4", &i, &n), -1, "5/4 rejected");
	is_int(gp_pace_parse_shard("-1/2", &i, &n), -1, "-1/2 rejected");
	is_int(gp_pace_parse_shard("1/", &i, &n), -1, "1/ rejected");
	is_int(gp_pace_parse_shard("/2", &i, &n), -1, "/2 rejected");
	is_int(gp_pace_parse_shard("1/2x", &i, &n), -1, "1/2x rejected");
	is_int(gp_pace_parse_shard("1/0", &i, &n), -1, "1/0 rejected");

	for (n = 1; n <= 7; n++)
		for (k = 0; k < 1000; k++) {
			total = 0;
			for (sh = 1; sh <= n; sh++)
				total += gp_pace_in_shard(k, sh, n);
			if (total != 1)
				bad++;
		}
	is_int(bad, 0, "shards 1..N partition the records, N = 1..7");
	ok(gp_pace_in_shard(0, 1, 3) && gp_pace_in_shard(4, 2, 3) && gp_pace_in_shard(8, 3, 3),
	   "record index mod N == I-1");

	/* Each shard computes the whole schedule and keeps its own records: the
	 * offsets it sends at equal the unsharded schedule's (Poisson, seeded). */
	{
		enum { R = 500 };
		double whole[R];
		struct gp_pace p;

		gp_pace_poisson(&p, 50, 99);
		for (k = 0; k < R; k++)
			whole[k] = gp_pace_next(&p, 0);
		for (sh = 1; sh <= 3; sh++) {
			gp_pace_poisson(&p, 50, 99);
			for (k = 0; k < R; k++) {
				double o = gp_pace_next(&p, 0);

				if (gp_pace_in_shard(k, sh, 3) && o != whole[k])
					agree = 0;
			}
		}
		ok(agree, "3 shards send every record at its unsharded offset");
	}
}

static void test_start_at(void)
{
	int64_t mono = 5000000000LL, wall = 1700000000LL * 1000000000LL;

	is_int(gp_pace_mono_of_epoch(1700000002.5, mono, wall), mono + 2500000000LL,
	       "start-at 2.5 s ahead maps to monotonic + 2.5 s");
	is_int(gp_pace_mono_of_epoch(1699999999.0, mono, wall), mono - 1000000000LL,
	       "start-at in the past maps before now");
	ok(llabs(gp_pace_mono_of_epoch(1700000000.123456, mono, wall) - (mono + 123456000LL)) < 1000,
	   "fractional epoch kept to the microsecond");
}

/* Type 7 on sorted data (Hyndman & Fan 1996; numpy's default). */
static double q7(const double *x, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);

	return lo + 1 < n ? x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]) : x[lo];
}

static void test_hist(void)
{
	struct gp_hist *h = malloc(sizeof(*h));
	enum { N = 20000 };
	double *v = malloc(N * sizeof(*v));
	static const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	unsigned long s = 12345;
	size_t i;

	gp_hist_init(h);
	ok(isnan(gp_hist_quantile(h, 0.5)), "empty histogram: NaN");
	for (i = 1; i <= 5; i++)
		gp_hist_add(h, (int64_t)i);
	/* numpy.percentile([1,2,3,4,5], [50, 99]) = [3.0, 4.96] */
	is_dbl(gp_hist_quantile(h, 0.5), 3.0, 1e-12, "p50 of 1..5 ns = 3 (numpy)");
	is_dbl(gp_hist_quantile(h, 0.99), 4.96, 1e-12, "p99 of 1..5 ns = 4.96 (numpy)");
	gp_hist_add(h, -7);
	is_dbl(gp_hist_quantile(h, 0), 0, 0, "negative lateness counts as 0");

	/* Log-spread values from 100 ns to ~100 ms: quantiles within 1 %. */
	gp_hist_init(h);
	for (i = 0; i < N; i++) {
		s = s * 6364136223846793005UL + 1442695040888963407UL;
		v[i] = floor(100 * pow(10, 6 * (double)(s >> 11) / 9007199254740992.0));
		gp_hist_add(h, (int64_t)v[i]);
	}
	gp_sort_doubles(v, N);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		double want = q7(v, N, qs[i]), got = gp_hist_quantile(h, qs[i]);

		ok(fabs(got - want) <= 0.01 * want, "q%.3f: %.0f vs exact %.0f (1%%)", qs[i], got, want);
	}
	is_dbl(gp_hist_quantile(h, 1), v[N - 1], 0, "q1 is the exact maximum");
	is_int(h->count, N, "count");
	free(h);
	free(v);
}

/*
 * The conditioned schedule: n arrivals, the first at 0 and the last at
 * (n − 1)/rate, so the achieved rate (n − 1)/(last − first) is the label
 * exactly, whatever the seed, where the plain process's is off by ~1/√n; the
 * interior arrivals are uniform (Kolmogorov–Smirnov against U(0, span): the
 * 1 % critical value for 2000 points is 1.628/√2000 = 0.0364, Smirnov's
 * asymptotic table); and past n nothing is sent.
 */
static void test_poisson_count(void)
{
	struct gp_pace p, q;
	double plain_dev = 0, cond_dev = 0, last, dmax = 0, span;
	unsigned long n = 9;
	int sorted = 1, inside = 1, same = 1;

	is_int((long)gp_pace_count_for(4.5, 2), 9, "count: 4.5 req/s over 2 s is 9");
	is_int((long)gp_pace_count_for(4, 2), 8, "count: 4 over 2 s is 8, not 9 (a rounding slack)");
	is_int((long)gp_pace_count_for(0.3, 1), 1, "count: 0.3 over 1 s is 1");
	is_int((long)gp_pace_count_for(0, 1), 0, "count: rate 0 is 0");
	ok(gp_pace_poisson_count(&p, 4.5, 1, 1) == -1 && p.off == NULL, "n = 1 refused");
	ok(gp_pace_poisson_count(&p, 4.5, n, 7) == 0, "n = 9 at 4.5 req/s");
	last = -1;
	for (unsigned long k = 0; k < n; k++) {
		double o = gp_pace_next(&p, 0);

		if (o < last)
			sorted = 0;
		if (!(o >= 0 && o < 2))
			inside = 0;
		last = o;
	}
	ok(sorted, "conditioned: offsets ascending");
	ok(inside, "conditioned: every arrival inside the 2-s window");
	is_dbl(last, 8 / 4.5, 1e-12, "conditioned: the last at (n - 1)/rate");
	ok(isinf(gp_pace_next(&p, 0)), "conditioned: the 10th record is never sent");
	gp_pace_poisson_count(&q, 4.5, n, 7);
	gp_pace_release(&p);
	gp_pace_poisson_count(&p, 4.5, n, 7);
	for (unsigned long k = 0; k < n; k++)
		if (gp_pace_next(&p, 0) != gp_pace_next(&q, 0))
			same = 0;
	ok(same, "conditioned: the same seed, the same schedule");
	gp_pace_release(&p);
	gp_pace_release(&q);
	/* 1000 seeds, 10 arrivals at 5 req/s: achieved-rate deviation. */
	for (uint64_t seed = 1; seed <= 1000; seed++) {
		double first = 0, t = 0;

		gp_pace_poisson(&p, 5, seed);
		for (int k = 0; k < 10; k++)
			t = gp_pace_next(&p, 0);
		plain_dev += fabs(9 / (t - first) / 5 - 1);
		gp_pace_poisson_count(&p, 5, 10, seed);
		for (int k = 0; k < 10; k++)
			t = gp_pace_next(&p, 0);
		cond_dev = fmax(cond_dev, fabs(9 / t / 5 - 1));
		gp_pace_release(&p);
	}
	ok(plain_dev / 1000 > 0.15, "plain Poisson at n = 10: mean |achieved/label - 1| %.3f (over 0.15)",
	   plain_dev / 1000);
	ok(cond_dev < 1e-12, "conditioned at n = 10: max |achieved/label - 1| over 1000 seeds %.2g", cond_dev);
	/* Uniform interior: KS over 2000 interior points. */
	gp_pace_poisson_count(&p, 100, 2002, 99);
	span = 2001 / 100.0;
	gp_pace_next(&p, 0);
	for (int k = 0; k < 2000; k++) {
		double f = gp_pace_next(&p, 0) / span, d1 = fabs(f - k / 2000.0), d2 = fabs(f - (k + 1) / 2000.0);

		dmax = fmax(dmax, fmax(d1, d2));
	}
	ok(dmax < 0.0364, "conditioned: interior arrivals uniform (KS D = %.4f < 0.0364)", dmax);
	gp_pace_release(&p);
}

int main(void)
{
	test_poisson_count();
	test_asis_rescale();
	test_poisson();
	test_shards();
	test_start_at();
	test_hist();
	return done_testing();
}
