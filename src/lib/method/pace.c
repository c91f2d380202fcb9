/* SPDX-License-Identifier: MIT */
/* pace — arrival schedules (as is, rescaled, Poisson, Poisson conditioned on its count),
 * shards, lateness histogram. */
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "method/pace.h"
#include "base/clock.h"
#include "stats/stats.h"
#include "base/banned.h"

void gp_pace_asis(struct gp_pace *p)
{
	memset(p, 0, sizeof(*p));
	p->mode = GP_PACE_ASIS;
	p->factor = 1.0;
}

void gp_pace_rescale(struct gp_pace *p, double trace_rps, double rate_rps)
{
	memset(p, 0, sizeof(*p));
	p->mode = GP_PACE_RESCALE;
	p->factor = trace_rps / rate_rps;
}

void gp_pace_poisson(struct gp_pace *p, double rate_rps, uint64_t seed)
{
	memset(p, 0, sizeof(*p));
	p->mode = GP_PACE_POISSON;
	p->rate_rps = rate_rps;
	gp_rng_seed(&p->rng, seed);
}

int gp_pace_poisson_count(struct gp_pace *p, double rate_rps, unsigned long n, uint64_t seed)
{
	double span;

	gp_pace_asis(p);
	if (n < 2 || !(rate_rps > 0) || n > SIZE_MAX / sizeof(double) ||
	    !(p->off = malloc(n * sizeof(double))))
		return -1;
	p->mode = GP_PACE_POISSON_COUNT;
	p->rate_rps = rate_rps;
	p->n = n;
	span = (double)(n - 1) / rate_rps;
	gp_rng_seed(&p->rng, seed);
	p->off[0] = 0;
	for (unsigned long k = 1; k + 1 < n; k++)
		p->off[k] = span * gp_rng_uniform(&p->rng);
	p->off[n - 1] = span;
	gp_sort_doubles(p->off + 1, n - 2);
	return 0;
}

unsigned long gp_pace_count_for(double rate_rps, double duration_s)
{
	double x = ceil(rate_rps * duration_s - 1e-9);

	return x > 0 && x < 1e18 ? (unsigned long)x : 0;
}

void gp_pace_release(struct gp_pace *p)
{
	free(p->off);
	p->off = NULL;
	p->n = p->i = 0;
}

double gp_pace_next(struct gp_pace *p, double t_s)
{
	double off;

	if (p->mode == GP_PACE_POISSON_COUNT)
		return p->i < p->n ? p->off[p->i++] : INFINITY;

	if (p->mode == GP_PACE_POISSON) {
		off = p->next_s;
		p->next_s += gp_rng_exp(&p->rng, p->rate_rps);
		return off;
	}
	if (!p->started) {
		p->started = 1;
		p->t_first = t_s;
	}
	off = (t_s - p->t_first) * p->factor;
	return off > 0 ? off : 0;
}

double gp_pace_trace_rps(unsigned long n, double t_first, double t_last)
{
	if (n < 2 || !(t_last > t_first))
		return 0;
	return (double)(n - 1) / (t_last - t_first);
}

int gp_pace_parse_shard(const char *s, long *i, long *n)
{
	char *end;
	long a, b;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	a = strtol(s, &end, 10);
	if (errno || *end != '/' || end[1] < '0' || end[1] > '9')
		return -1;
	b = strtol(end + 1, &end, 10);
	if (errno || *end || a < 1 || b < 1 || a > b)
		return -1;
	*i = a;
	*n = b;
	return 0;
}

int64_t gp_pace_mono_of_epoch(double epoch_s, int64_t now_mono_ns, int64_t now_wall_ns)
{
	/* Split seconds and fraction so that ns precision survives a double
	 * holding ~1.7e9 s (53 bits give ~0.2 µs there; keep what we have). */
	double whole = floor(epoch_s);
	int64_t target_wall = (int64_t)whole * GP_NS_PER_S +
			      (int64_t)llround((epoch_s - whole) * 1e9);

	return now_mono_ns + (target_wall - now_wall_ns);
}
