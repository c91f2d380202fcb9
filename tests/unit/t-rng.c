/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of rng.  Reference values: splitmix64 with seed 0 yields
 * 0xe220a8397b1dcdaf first (Vigna's splitmix64.c); the xoshiro256** outputs
 * below were computed from the reference algorithm in Python (pure integer
 * arithmetic, transcribed from prng.di.unimi.it/xoshiro256starstar.c) with
 * the state seeded by four splitmix64 outputs of seed 0.
 */
#include <math.h>

#include "base/rng.h"
#include "tap.h"

int main(void)
{
	struct gp_rng r, r2;
	double sum = 0, sumsq = 0;
	int n = 200000, counts[7] = {0};

	gp_rng_seed(&r, 0);
	ok(r.s[0] == 0xe220a8397b1dcdafULL, "splitmix64(0) first output seeds s[0]");
	ok(r.s[1] == 0x6e789e6aa1b965f4ULL, "splitmix64(0) second output seeds s[1]");
	is_int((long long)(gp_rng_u64(&r) == 0x99ec5f36cb75f2b4ULL), 1, "xoshiro256** first output");
	is_int((long long)(gp_rng_u64(&r) == 0xbf6e1f784956452aULL), 1, "xoshiro256** second output");

	gp_rng_seed(&r, 42);
	r2 = r;
	ok(gp_rng_u64(&r) == gp_rng_u64(&r2), "copied state reproduces the stream");

	for (int i = 0; i < n; i++) {
		double u = gp_rng_uniform(&r);
		if (u < 0 || u >= 1) {
			ok(0, "uniform in [0,1)");
			return done_testing();
		}
		sum += u;
		sumsq += u * u;
		counts[gp_rng_below(&r, 7)]++;
	}
	is_dbl(sum / n, 0.5, 0.005, "uniform mean ~ 1/2");
	is_dbl(sumsq / n - (sum / n) * (sum / n), 1.0 / 12, 0.002, "uniform variance ~ 1/12");
	int fair = 1;
	for (int k = 0; k < 7; k++)
		fair &= fabs(counts[k] / (double)n - 1.0 / 7) < 0.005;
	ok(fair, "below(7) is uniform over 0..6");
	ok(gp_rng_below(&r, 1) == 0, "below(1) is 0");

	sum = 0;
	for (int i = 0; i < n; i++)
		sum += gp_rng_exp(&r, 4.0);
	is_dbl(sum / n, 0.25, 0.005, "exp(rate 4) mean ~ 0.25");
	sum = sumsq = 0;
	for (int i = 0; i < n; i++) {
		double z = gp_rng_normal(&r);
		sum += z;
		sumsq += z * z;
	}
	is_dbl(sum / n, 0.0, 0.01, "normal mean ~ 0");
	is_dbl(sumsq / n, 1.0, 0.02, "normal variance ~ 1");
	return done_testing();
}
