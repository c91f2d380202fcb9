/* SPDX-License-Identifier: MIT */
/*
 * rng — seeded, reproducible pseudo-random numbers: xoshiro256** (Blackman &
 * Vigna 2018) seeded through splitmix64.  Small and fast for the bootstrap's
 * inner loop; for distributions beyond these, tools use GSL with a gsl_rng
 * seeded from gp_rng_u64().  State is plain data: copy it to fork a stream.
 */
#ifndef GP_RNG_H
#define GP_RNG_H

#include <stdint.h>

struct gp_rng {
	uint64_t s[4];
};

void gp_rng_seed(struct gp_rng *r, uint64_t seed);
uint64_t gp_rng_u64(struct gp_rng *r);
/* Uniform double in [0, 1) with 53 random bits. */
double gp_rng_uniform(struct gp_rng *r);
/* Uniform integer in [0, n), n >= 1, without modulo bias (Lemire 2019). */
uint64_t gp_rng_below(struct gp_rng *r, uint64_t n);
/* Exponential variate with the given rate (mean 1/rate), rate > 0. */
double gp_rng_exp(struct gp_rng *r, double rate);
/* Standard normal variate (Marsaglia polar method). */
double gp_rng_normal(struct gp_rng *r);

#endif
