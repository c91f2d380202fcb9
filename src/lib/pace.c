/* SPDX-License-Identifier: MIT */
/* pace — arrival schedules (as is, rescaled, Poisson), shards, lateness histogram. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pace.h"
#include "clock.h"
#include "banned.h"

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

double gp_pace_next(struct gp_pace *p, double t_s)
{
	double off;

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

/* ---- lateness histogram ---- */

void gp_pace_hist_init(struct gp_pace_hist *h)
{
	memset(h, 0, sizeof(*h));
}

static unsigned bin_of(int64_t v)
{
	unsigned m, shift, idx;

	if (v < 128)
		return (unsigned)(v < 0 ? 0 : v);
	m = 63u - (unsigned)__builtin_clzll((unsigned long long)v);	/* m >= 7 */
	shift = m - 6;
	idx = 128 + (m - 7) * 64 + (unsigned)(((uint64_t)v >> shift) - 64);
	return idx < GP_PACE_HIST_BINS ? idx : GP_PACE_HIST_BINS - 1;
}

/* Midpoint of bin b. */
static double mid_of(unsigned b)
{
	unsigned oct, j;

	if (b < 128)
		return b;
	oct = (b - 128) / 64;
	j = (b - 128) % 64;
	/* bin covers [(64 + j) << shift, (65 + j) << shift), shift = oct + 1 */
	return ((64.0 + j) + 0.5) * (double)(1ull << (oct + 1));
}

void gp_pace_hist_add(struct gp_pace_hist *h, int64_t ns)
{
	if (ns < 0)
		ns = 0;
	h->bin[bin_of(ns)]++;
	h->count++;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

/* Value of the k-th order statistic (0-based), approximated by its bin. */
static double order_stat(const struct gp_pace_hist *h, uint64_t k)
{
	uint64_t seen = 0;
	unsigned b;

	if (k + 1 >= h->count)
		return (double)h->max_ns;
	for (b = 0; b < GP_PACE_HIST_BINS; b++) {
		seen += h->bin[b];
		if (seen > k) {
			double m = mid_of(b);
			return m < (double)h->max_ns ? m : (double)h->max_ns;
		}
	}
	return (double)h->max_ns;
}

double gp_pace_hist_quantile(const struct gp_pace_hist *h, double q)
{
	double pos, lo, hi, frac;
	uint64_t k;

	if (!h->count)
		return NAN;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	pos = q * (double)(h->count - 1);
	k = (uint64_t)floor(pos);
	frac = pos - (double)k;
	lo = order_stat(h, k);
	hi = frac > 0 ? order_stat(h, k + 1) : lo;
	return lo + frac * (hi - lo);
}
