/* SPDX-License-Identifier: MIT */
/* workload — token-count, arrival and key-popularity distributions (see workload.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "base/hash.h"
#include "method/workload.h"
#include "base/banned.h"

static int want(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "want %s", what);
	return -1;
}

static int parse_pair(char *p, char **q)
{
	*q = strchr(p, ':');
	if (!*q)
		return -1;
	*(*q)++ = '\0';
	return 0;
}

int gp_dist_parse(const char *s, struct gp_dist *d, char *err, size_t errlen)
{
	char buf[128], *p, *q;

	if (strlen(s) >= sizeof(buf))
		return -2;
	memcpy(buf, s, strlen(s) + 1);
	if (!strncmp(buf, "uniform:", 8)) {
		long a, b;

		if (parse_pair(p = buf + 8, &q))
			return want(err, errlen, "uniform:A:B");
		if (gp_parse_long(p, 1, GP_DIST_MAX_TOKENS, &a) ||
		    gp_parse_long(q, 1, GP_DIST_MAX_TOKENS, &b) || a > b)
			return want(err, errlen, "uniform:A:B with 1 <= A <= B");
		d->kind = GP_DIST_UNIFORM;
		d->a = (double)a;
		d->b = (double)b;
	} else if (!strncmp(buf, "lognormal:", 10)) {
		if (parse_pair(p = buf + 10, &q))
			return want(err, errlen, "lognormal:MEDIAN:SIGMA");
		if (gp_parse_double(p, 1e-9, (double)GP_DIST_MAX_TOKENS, &d->a) ||
		    gp_parse_double(q, 0, 20, &d->b))
			return want(err, errlen, "lognormal:MEDIAN:SIGMA with MEDIAN > 0, 0 <= SIGMA <= 20");
		d->kind = GP_DIST_LOGNORMAL;
	} else {
		long n;

		p = !strncmp(buf, "fixed:", 6) ? buf + 6 : buf;
		if (gp_parse_long(p, 1, GP_DIST_MAX_TOKENS, &n))
			return want(err, errlen, "N, uniform:A:B or lognormal:MEDIAN:SIGMA");
		d->kind = GP_DIST_FIXED;
		d->a = (double)n;
	}
	return 0;
}

long gp_dist_draw(const struct gp_dist *d, gsl_rng *r)
{
	double v;

	switch (d->kind) {
	case GP_DIST_UNIFORM:
		return (long)d->a + (long)gsl_rng_uniform_int(r, (unsigned long)(d->b - d->a) + 1);
	case GP_DIST_LOGNORMAL:
		v = nearbyint(gsl_ran_lognormal(r, log(d->a), d->b));
		if (!(v >= 1))
			return 1;
		return v > (double)GP_DIST_MAX_TOKENS ? GP_DIST_MAX_TOKENS : (long)v;
	default:
		return (long)d->a;
	}
}

int gp_secs_parse(const char *s, struct gp_secs *d, char *err, size_t errlen)
{
	char buf[128], *p, *q;

	if (strlen(s) >= sizeof(buf))
		return -2;
	memcpy(buf, s, strlen(s) + 1);
	memset(d, 0, sizeof(*d));
	if (!strncmp(buf, "uniform:", 8)) {
		if (parse_pair(p = buf + 8, &q) || gp_parse_double(p, 0, 1e6, &d->a) ||
		    gp_parse_double(q, 0, 1e6, &d->b) || d->a > d->b)
			return want(err, errlen, "uniform:A:B with 0 <= A <= B");
		d->kind = 1;
	} else if (!strncmp(buf, "exp:", 4)) {
		if (gp_parse_double(buf + 4, 0, 1e6, &d->a))
			return want(err, errlen, "exp:MEAN with MEAN >= 0");
		d->kind = 2;
	} else if (!strncmp(buf, "lognormal:", 10)) {
		if (parse_pair(p = buf + 10, &q) || gp_parse_double(p, 1e-9, 1e6, &d->a) ||
		    gp_parse_double(q, 0, 20, &d->b))
			return want(err, errlen, "lognormal:MEDIAN:SIGMA with MEDIAN > 0, 0 <= SIGMA <= 20");
		d->kind = 3;
	} else if (gp_parse_double(buf, 0, 1e6, &d->a)) {
		return want(err, errlen, "S, uniform:A:B, exp:MEAN or lognormal:MEDIAN:SIGMA (seconds)");
	}
	return 0;
}

double gp_secs_draw(const struct gp_secs *d, gsl_rng *r)
{
	double v;

	switch (d->kind) {
	case 1:
		return d->a + (d->b - d->a) * gsl_rng_uniform(r);
	case 2:
		return d->a > 0 ? gsl_ran_exponential(r, d->a) : 0;
	case 3:
		v = gsl_ran_lognormal(r, log(d->a), d->b);
		return v < 1e6 ? v : 1e6;
	default:
		return d->a;
	}
}

double gp_arrival_gap(enum gp_arrival a, double rate_rps, double burstiness, gsl_rng *r)
{
	switch (a) {
	case GP_ARRIVAL_GAMMA:
		return gsl_ran_gamma(r, burstiness, 1.0 / (rate_rps * burstiness));
	case GP_ARRIVAL_CONSTANT:
		return 1.0 / rate_rps;
	default:
		return gsl_ran_exponential(r, 1.0 / rate_rps);
	}
}

/* MT19937 takes a 32-bit seed; 0 is avoided because GSL maps it to its default. */
gsl_rng *gp_workload_stream(uint64_t seed, unsigned k)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	unsigned long s;

	if (!r)
		return NULL;
	s = (unsigned long)(gp_splitmix64_of(seed * 8 + k) & 0xffffffffUL);
	gsl_rng_set(r, s ? s : 1);
	return r;
}

gsl_ran_discrete_t *gp_zipf_table(long n, double s)
{
	double *w = malloc((size_t)n * sizeof(*w));
	gsl_ran_discrete_t *t;

	if (!w)
		return NULL;
	for (long k = 0; k < n; k++)
		w[k] = pow((double)(k + 1), -s);
	t = gsl_ran_discrete_preproc((size_t)n, w);
	free(w);
	return t;
}
