/* SPDX-License-Identifier: MIT */
/* probe — concentration of in-flight load over the backends (method §5). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "method/probe.h"

double gp_probe_peak_to_mean(const double *load, size_t n)
{
	double sum = 0, max = 0;

	for (size_t i = 0; i < n; i++) {
		sum += load[i];
		if (load[i] > max)
			max = load[i];
	}
	if (n == 0 || !(sum > 0))
		return NAN;
	return max / (sum / (double)n);
}

int gp_probe_acc_init(struct gp_probe_acc *a, size_t n)
{
	memset(a, 0, sizeof(*a));
	a->n = n;
	a->sum = calloc(n ? n : 1, sizeof(*a->sum));
	return a->sum ? 0 : -1;
}

void gp_probe_acc_release(struct gp_probe_acc *a)
{
	free(a->sum);
	a->sum = NULL;
}

double gp_probe_acc_add(struct gp_probe_acc *a, const double *load)
{
	double r = gp_probe_peak_to_mean(load, a->n);

	a->samples++;
	for (size_t i = 0; i < a->n; i++)
		a->sum[i] += load[i];
	if (!isnan(r)) {
		a->busy++;
		a->ratio_sum += r;
		if (r > a->ratio_max)
			a->ratio_max = r;
	}
	return r;
}

double gp_probe_concentration(const struct gp_probe_acc *a)
{
	return gp_probe_peak_to_mean(a->sum, a->n);
}

double gp_probe_mean_ratio(const struct gp_probe_acc *a)
{
	return a->busy ? a->ratio_sum / (double)a->busy : NAN;
}

/*
 * max_i (x_i / Σx) / max(1/n, e_i / Σe), e_i = cap_i (by == 1) or 1/cap_i
 * (by == -1); with cap NULL every e_i is equal and this is max / mean.
 */
static double against(const double *x, size_t n, const double *cap, int by)
{
	double sx = 0, se = 0, worst = 0;

	for (size_t i = 0; i < n; i++) {
		sx += x[i];
		se += cap ? (by > 0 ? cap[i] : 1 / cap[i]) : 1;
	}
	if (n == 0 || !(sx > 0) || !(se > 0))
		return NAN;
	for (size_t i = 0; i < n; i++) {
		double e = (cap ? (by > 0 ? cap[i] : 1 / cap[i]) : 1) / se, floor = 1 / (double)n;
		double r = x[i] / sx / (e > floor ? e : floor);

		if (r > worst)
			worst = r;
	}
	return worst;
}

double gp_probe_spread_concentration(const struct gp_probe_acc *a)
{
	return against(a->sum, a->n, a->cap, -1);
}

double gp_probe_served_spread(const double *x, size_t n, const double *cap)
{
	return against(x, n, cap, 1);
}

int gp_probe_engaged(const char *expect, const struct gp_probe_acc *a,
		     const struct gp_probe_thr *t)
{
	double c = gp_probe_concentration(a);

	if (!expect || a->busy < t->min_busy || isnan(c))
		return 0;
	if (!strcmp(expect, "concentrate"))
		return c >= t->concentrate_min;
	if (!strcmp(expect, "spread"))
		return gp_probe_spread_concentration(a) <= t->spread_max;
	return 0;
}
