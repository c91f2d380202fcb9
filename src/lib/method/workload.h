/* SPDX-License-Identifier: MIT */
/*
 * workload — the distributions gp-trace synth draws from, with GSL:
 *
 *  - token counts: N (fixed), uniform:A:B (integers A..B, each 1/(B-A+1)),
 *    lognormal:MEDIAN:SIGMA (exp of a normal with mean ln MEDIAN and standard
 *    deviation SIGMA, rounded to the nearest integer, clamped to
 *    1..GP_DIST_MAX_TOKENS);
 *  - arrival gaps at a mean rate R: Poisson (exponential gaps, mean 1/R),
 *    gamma of shape B and scale 1/(R B) (mean 1/R, CV 1/sqrt B: B < 1 is
 *    burstier than Poisson), or constant 1/R;
 *  - durations in seconds (think times): S (fixed), uniform:A:B (continuous
 *    on [A, B]), exp:MEAN (exponential), lognormal:MEDIAN:SIGMA (not rounded);
 *  - key popularity: Zipf, P(k) proportional to 1/k^s for k = 1..K (GSL's
 *    Walker alias table).
 *
 * Streams: gp_workload_stream(seed, k) is an MT19937 seeded from splitmix64
 * of (seed, k), so each purpose has its own stream and changing one option
 * leaves the draws of the others as they were.  Seeded outputs depend on the
 * exact order of draws here: keep it.
 *
 * Ownership: the caller frees what the constructors return (gsl_rng_free,
 * gsl_ran_discrete_free).  Nothing here prints or exits.
 */
#ifndef GP_WORKLOAD_H
#define GP_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#define GP_DIST_MAX_TOKENS 0x7fffffffL

enum gp_dist_kind { GP_DIST_FIXED, GP_DIST_UNIFORM, GP_DIST_LOGNORMAL };

struct gp_dist {
	enum gp_dist_kind kind;
	double a, b;		/* N; A, B; MEDIAN, SIGMA */
};

/*
 * Parse "N", "fixed:N", "uniform:A:B" or "lognormal:MEDIAN:SIGMA": 0, or -1
 * with what was wanted in err ("want uniform:A:B with 1 <= A <= B"), or -2
 * when s is over 127 bytes.
 */
int gp_dist_parse(const char *s, struct gp_dist *d, char *err, size_t errlen);
long gp_dist_draw(const struct gp_dist *d, gsl_rng *r);

/* A distribution of durations, seconds >= 0. */
struct gp_secs {
	int kind;		/* 0 fixed, 1 uniform, 2 exp, 3 lognormal */
	double a, b;		/* S; A, B; MEAN; MEDIAN, SIGMA */
};

/* Parse "S", "uniform:A:B", "exp:MEAN" or "lognormal:MEDIAN:SIGMA" (all
 * >= 0, A <= B, SIGMA <= 20, at most 1e6 s): 0, or -1 with what was wanted
 * in err, or -2 when s is over 127 bytes. */
int gp_secs_parse(const char *s, struct gp_secs *d, char *err, size_t errlen);
/* One draw (one draw from r, none for a fixed value). */
double gp_secs_draw(const struct gp_secs *d, gsl_rng *r);

enum gp_arrival { GP_ARRIVAL_POISSON, GP_ARRIVAL_GAMMA, GP_ARRIVAL_CONSTANT };

/* The next gap in seconds at rate_rps (> 0); burstiness is the gamma shape. */
double gp_arrival_gap(enum gp_arrival a, double rate_rps, double burstiness, gsl_rng *r);

/* MT19937 stream k of seed; NULL when out of memory. */
gsl_rng *gp_workload_stream(uint64_t seed, unsigned k);
/* Zipf(s) over keys 1..n as a table for gsl_ran_discrete (which returns
 * 0..n-1: add 1); NULL when out of memory. */
gsl_ran_discrete_t *gp_zipf_table(long n, double s);

#endif
