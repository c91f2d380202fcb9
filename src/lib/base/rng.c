/* SPDX-License-Identifier: MIT */
/*
 * rng — xoshiro256** 1.0 and splitmix64, after the public-domain reference
 * descriptions by David Blackman and Sebastiano Vigna (prng.di.unimi.it).
 */
#include <math.h>

#include "base/hash.h"
#include "base/rng.h"

void gp_rng_seed(struct gp_rng *r, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		r->s[i] = gp_splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t gp_rng_u64(struct gp_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double gp_rng_uniform(struct gp_rng *r)
{
	return (double)(gp_rng_u64(r) >> 11) * 0x1.0p-53;
}

uint64_t gp_rng_below(struct gp_rng *r, uint64_t n)
{
	/* Lemire's nearly-divisionless method with 128-bit multiply. */
	unsigned __int128 m = (unsigned __int128)gp_rng_u64(r) * n;
	uint64_t lo = (uint64_t)m;

	if (lo < n) {
		uint64_t t = -n % n;

		while (lo < t) {
			m = (unsigned __int128)gp_rng_u64(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

double gp_rng_exp(struct gp_rng *r, double rate)
{
	/* 1 - U is in (0, 1], so the log is finite. */
	return -log(1.0 - gp_rng_uniform(r)) / rate;
}

double gp_rng_normal(struct gp_rng *r)
{
	double u, v, s;

	do {
		u = 2.0 * gp_rng_uniform(r) - 1.0;
		v = 2.0 * gp_rng_uniform(r) - 1.0;
		s = u * u + v * v;
	} while (s >= 1.0 || s == 0.0);
	return u * sqrt(-2.0 * log(s) / s);
}
