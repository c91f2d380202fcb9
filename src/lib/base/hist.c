/* SPDX-License-Identifier: MIT */
/* hist — log-binned histogram with type-7 quantiles (see hist.h). */
#include <math.h>
#include <string.h>

#include "base/hist.h"
#include "base/banned.h"

void gp_hist_init(struct gp_hist *h)
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
	return idx < GP_HIST_BINS ? idx : GP_HIST_BINS - 1;
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

void gp_hist_add(struct gp_hist *h, int64_t ns)
{
	if (ns < 0)
		ns = 0;
	h->bin[bin_of(ns)]++;
	h->count++;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

/* Value of the k-th order statistic (0-based), approximated by its bin. */
static double order_stat(const struct gp_hist *h, uint64_t k)
{
	uint64_t seen = 0;
	unsigned b;

	if (k + 1 >= h->count)
		return (double)h->max_ns;
	for (b = 0; b < GP_HIST_BINS; b++) {
		seen += h->bin[b];
		if (seen > k) {
			double m = mid_of(b);
			return m < (double)h->max_ns ? m : (double)h->max_ns;
		}
	}
	return (double)h->max_ns;
}

double gp_hist_quantile(const struct gp_hist *h, double q)
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
