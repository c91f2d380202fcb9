/* SPDX-License-Identifier: MIT */
/* stats — mean, sd, CV, type-7 quantiles, sorting/selection, stability verdict. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

double gp_mean(const double *x, size_t n)
{
	double s = 0;

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	return s / (double)n;
}

double gp_sd(const double *x, size_t n)
{
	double m, ss = 0, c = 0;

	if (n < 2)
		return NAN;
	m = gp_mean(x, n);
	/* Two-pass with the compensation term of Chan, Golub & LeVeque (1983):
	 * c is the rounding error of the mean and is ~0. */
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - m;
		ss += d * d;
		c += d;
	}
	ss -= c * c / (double)n;
	if (ss < 0)
		ss = 0;
	return sqrt(ss / (double)(n - 1));
}

double gp_cv(const double *x, size_t n)
{
	double m;

	if (n < 2)
		return NAN;
	m = gp_mean(x, n);
	if (m == 0)
		return NAN;
	return gp_sd(x, n) / m;
}

/* ---- sorting ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void insertion_sort(double *x, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		double v = x[i];
		size_t j = i;

		while (j > 0 && x[j - 1] > v) {
			x[j] = x[j - 1];
			j--;
		}
		x[j] = v;
	}
}

/*
 * Order-preserving map of an IEEE-754 double to an unsigned key: flip the
 * sign bit of non-negatives, all bits of negatives.  Then an LSD radix sort
 * on 8-bit digits, skipping digits on which every key agrees (the exponent
 * bytes of latencies mostly do).  Stable, O(8 n), a 2n-key scratch.
 */
static inline uint64_t dkey(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return (u & 0x8000000000000000ULL) ? ~u : (u | 0x8000000000000000ULL);
}

static inline double kdouble(uint64_t k)
{
	uint64_t u = (k & 0x8000000000000000ULL) ? (k & ~0x8000000000000000ULL) : ~k;
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

void gp_sort_doubles(double *x, size_t n)
{
	uint64_t *a, *b;
	size_t count[8][256];

	if (n < 2)
		return;
	if (n <= 32) {
		insertion_sort(x, n);
		return;
	}
	if (n < 4096 || !(a = malloc(2 * n * sizeof(*a)))) {
		qsort(x, n, sizeof(*x), cmp_double);
		return;
	}
	b = a + n;
	memset(count, 0, sizeof(count));
	for (size_t i = 0; i < n; i++) {
		uint64_t k = dkey(x[i]);

		a[i] = k;
		for (int d = 0; d < 8; d++)
			count[d][(k >> (8 * d)) & 0xff]++;
	}
	uint64_t *src = a, *dst = b;
	for (int d = 0; d < 8; d++) {
		size_t *c = count[d], sum = 0;
		int trivial = 0;

		for (int v = 0; v < 256; v++) {
			if (c[v] == n) {
				trivial = 1;
				break;
			}
		}
		if (trivial)
			continue;
		for (int v = 0; v < 256; v++) {
			size_t t = c[v];

			c[v] = sum;
			sum += t;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[(src[i] >> (8 * d)) & 0xff]++] = src[i];
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	for (size_t i = 0; i < n; i++)
		x[i] = kdouble(src[i]);
	free(a);
}

double gp_quantile_sorted(const double *s, size_t n, double p)
{
	double h, f;
	size_t lo;

	if (n == 0 || isnan(p))
		return NAN;
	if (p <= 0)
		return s[0];
	if (p >= 1)
		return s[n - 1];
	h = (double)(n - 1) * p;
	lo = (size_t)floor(h);
	if (lo >= n - 1)
		return s[n - 1];
	f = h - (double)lo;
	/* numpy's _lerp form, exact at both ends. */
	return f == 0 ? s[lo] : s[lo] + f * (s[lo + 1] - s[lo]);
}

/*
 * Quickselect with a three-way (Dijkstra) partition, so that runs of equal
 * values — common in latencies rounded to the millisecond — cost O(n), and
 * a median-of-three pivot.  Expected O(n).
 */
double gp_select(double *x, size_t n, size_t k)
{
	size_t lo = 0, hi = n; /* the k-th lies in x[lo..hi) */

	while (hi - lo > 16) {
		size_t mid = lo + (hi - lo) / 2;
		double a = x[lo], b = x[mid], c = x[hi - 1], pivot;

		pivot = (a < b) ? ((b < c) ? b : (a < c ? c : a)) : ((a < c) ? a : (b < c ? c : b));
		size_t lt = lo, i = lo, gt = hi;
		while (i < gt) {
			double v = x[i];

			if (v < pivot) {
				x[i++] = x[lt];
				x[lt++] = v;
			} else if (v > pivot) {
				x[i] = x[--gt];
				x[gt] = v;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return x[k];
	}
	insertion_sort(x + lo, hi - lo);
	return x[k];
}

double gp_quantile_select(double *x, size_t n, double p)
{
	double h, f, a, b;
	size_t lo;

	if (n == 0 || isnan(p))
		return NAN;
	if (p < 0)
		p = 0;
	if (p > 1)
		p = 1;
	h = (double)(n - 1) * p;
	lo = (size_t)floor(h);
	if (lo >= n - 1)
		lo = n - 1;
	f = h - (double)lo;
	a = gp_select(x, n, lo);
	if (f == 0 || lo == n - 1)
		return a;
	b = x[lo + 1];
	for (size_t i = lo + 2; i < n; i++)
		if (x[i] < b)
			b = x[i];
	return a + f * (b - a);
}

enum gp_stability gp_stability_verdict(long n, double cv, long min_reps, double max_cv,
				       long rep_cap)
{
	if (n < min_reps)
		return GP_STABILITY_ADD_REPLICATES;
	if (!isnan(cv) && cv <= max_cv)
		return GP_STABILITY_PUBLISHABLE;
	if (rep_cap > 0 && n >= rep_cap)
		return GP_STABILITY_PUBLISHABLE_WITH_FOOTNOTE;
	return GP_STABILITY_ADD_REPLICATES;
}

const char *gp_stability_name(enum gp_stability v)
{
	switch (v) {
	case GP_STABILITY_PUBLISHABLE:
		return "PUBLISHABLE";
	case GP_STABILITY_PUBLISHABLE_WITH_FOOTNOTE:
		return "PUBLISHABLE_WITH_FOOTNOTE";
	case GP_STABILITY_ADD_REPLICATES:
		break;
	}
	return "ADD_REPLICATES";
}
