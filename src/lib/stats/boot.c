/* SPDX-License-Identifier: MIT */
/*
 * boot — percentile and BCa bootstrap intervals (Efron 1987; Efron &
 * Tibshirani 1993 ch. 14), pooled and cluster, matching scipy.stats.bootstrap.
 * The formulas and the degenerate-case conventions are in boot.h.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "stats/boot.h"
#include "stats/stats.h"

/* ---- the interval from a bootstrap distribution ---- */

static void ci_init(struct gp_ci *ci, double est, double level, int bca, size_t B)
{
	ci->est = est;
	ci->lo = ci->hi = NAN;
	ci->level = level;
	ci->bca = bca;
	ci->degenerate = 0;
	ci->z0 = ci->accel = NAN;
	ci->alpha_lo = ci->alpha_hi = NAN;
	ci->resamples = (long)B;
}

static void ci_point(struct gp_ci *ci)
{
	ci->lo = ci->hi = ci->est;
	ci->degenerate = 1;
}

/* Number of sorted values < v (strict = 1) or <= v (strict = 0). */
static size_t count_below(const double *s, size_t n, double v, int strict)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strict ? s[mid] < v : s[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Φ(z0 + w / (1 − a w)), w = z0 + z.  When 1 − a w <= 0 the map has passed
 * its pole; take the limit on the side of w (0 below, 1 above).
 */
static double bca_level(double z0, double z, double a)
{
	double w = z0 + z, d = 1 - a * w;

	if (d <= 0)
		return w < 0 ? 0.0 : 1.0;
	return gsl_cdf_ugaussian_P(z0 + w / d);
}

void gp_ci_from_dist(double *ts, size_t B, double th, double a, int bca, double level,
		     struct gp_ci *ci)
{
	double alpha = (1 - level) / 2, a1, a2;

	ci_init(ci, th, level, bca, B);
	if (isnan(th)) {
		ci->degenerate = 1;
		return;
	}
	if (B == 0) {
		ci_point(ci);
		return;
	}
	gp_sort_doubles(ts, B);
	if (ts[0] == ts[B - 1]) {
		ci_point(ci);
		return;
	}
	if (bca) {
		size_t less = count_below(ts, B, th, 1), leq = count_below(ts, B, th, 0);
		double z0 = gsl_cdf_ugaussian_Pinv((double)(less + leq) / (2.0 * (double)B));
		double za = gsl_cdf_ugaussian_Pinv(alpha);

		if (!isfinite(a))
			a = 0;
		ci->z0 = z0;
		ci->accel = a;
		if (!isfinite(z0)) {
			ci_point(ci);
			return;
		}
		a1 = bca_level(z0, za, a);
		a2 = bca_level(z0, -za, a);
	} else {
		a1 = alpha;
		a2 = 1 - alpha;
	}
	ci->alpha_lo = a1;
	ci->alpha_hi = a2;
	ci->lo = gp_quantile_sorted(ts, B, a1);
	ci->hi = gp_quantile_sorted(ts, B, a2);
}

double gp_boot_accel(const double *jack, const size_t *n, size_t groups)
{
	double num = 0, den = 0;

	for (size_t g = 0; g < groups; g++) {
		size_t m = n[g];

		if (m >= 2) {
			double mean = gp_mean(jack, m), n3 = (double)m * m * m, n2 = (double)m * m;
			double s3 = 0, s2 = 0;

			for (size_t i = 0; i < m; i++) {
				double u = (double)(m - 1) * (mean - jack[i]);

				s2 += u * u;
				s3 += u * u * u;
			}
			num += s3 / n3;
			den += s2 / n2;
		}
		jack += m;
	}
	if (!(den > 0))
		return 0;
	return num / (6 * pow(den, 1.5));
}

double gp_boot_accel_weighted(const double *v, const double *w, size_t k)
{
	double n = 0, mean = 0, s2 = 0, s3 = 0;

	for (size_t i = 0; i < k; i++) {
		n += w[i];
		mean += w[i] * v[i];
	}
	if (n < 2)
		return 0;
	mean /= n;
	for (size_t i = 0; i < k; i++) {
		double u = (n - 1) * (mean - v[i]);

		s2 += w[i] * u * u;
		s3 += w[i] * u * u * u;
	}
	s2 /= n * n;
	s3 /= n * n * n;
	if (!(s2 > 0))
		return 0;
	return s3 / (6 * pow(s2, 1.5));
}

/* ---- a gsl_rng view of our xoshiro stream, for GSL's exact binomial ---- */

static unsigned long xo_get(void *s)
{
	return (unsigned long)(gp_rng_u64(s) >> 32);
}

static double xo_get_double(void *s)
{
	return gp_rng_uniform(s);
}

static void xo_set(void *s, unsigned long seed)
{
	gp_rng_seed(s, seed);
}

static const gsl_rng_type xo_type = {
	"gp_xoshiro256starstar", 0xffffffffUL, 0, sizeof(struct gp_rng),
	xo_set, xo_get, xo_get_double,
};

/* A gsl_rng continuing the caller's stream; give_back() hands the state back. */
static gsl_rng *borrow(struct gp_rng *rng)
{
	gsl_rng *g = gsl_rng_alloc(&xo_type);

	if (g)
		memcpy(g->state, rng, sizeof(*rng));
	return g;
}

static void give_back(gsl_rng *g, struct gp_rng *rng)
{
	memcpy(rng, g->state, sizeof(*rng));
	gsl_rng_free(g);
}

static unsigned long binom(gsl_rng *g, double p, unsigned long m)
{
	if (m == 0 || p <= 0)
		return 0;
	if (p >= 1)
		return m;
	return gsl_ran_binomial(g, p, (unsigned int)m);
}

/* ---- quantiles of one sample: lazy multinomial counts ---- */

/*
 * Cells [a, b) of the sorted sample hold m resample draws; the ranks
 * rk[i] - off (ascending, < m) are wanted: store in cell[i] the cell that
 * holds each.  Splitting the range in halves, the left half's count is
 * Binomial(m, (mid - a) / (b - a)) and the halves are then independent.
 */
static void descend(gsl_rng *g, size_t a, size_t b, unsigned long m, unsigned long off,
		    const unsigned long *rk, size_t *cell, size_t nr)
{
	while (b - a > 1) {
		size_t mid = a + (b - a) / 2, s = 0;
		unsigned long c = binom(g, (double)(mid - a) / (double)(b - a), m);

		while (s < nr && rk[s] - off < c)
			s++;
		if (s > 0 && s < nr) {
			descend(g, a, mid, c, off, rk, cell, s);
			descend(g, mid, b, m - c, off + c, rk + s, cell + s, nr - s);
			return;
		}
		if (s == nr) {
			b = mid;
			m = c;
		} else {
			a = mid;
			m -= c;
			off += c;
		}
	}
	for (size_t i = 0; i < nr; i++)
		cell[i] = a;
}

/* Type-7 quantile of sorted s[0..n) without element i (n >= 2). */
static double quantile_without(const double *s, size_t n, double p, size_t i)
{
	size_t m = n - 1, lo;
	double h = (double)(m - 1) * p, f, x0, x1;

	lo = (size_t)floor(h);
	if (lo > m - 1)
		lo = m - 1;
	f = h - (double)lo;
	x0 = s[lo < i ? lo : lo + 1];
	if (f == 0 || lo + 1 > m - 1)
		return x0;
	x1 = s[lo + 1 < i ? lo + 1 : lo + 2];
	return x0 + f * (x1 - x0);
}

double gp_boot_quantile_accel(const double *s, size_t n, double p)
{
	double v[3], w[3];
	size_t k = 0, lo;

	if (n < 2)
		return 0;
	lo = (size_t)floor((double)(n - 2) * p);
	if (lo > n - 2)
		lo = n - 2;
	v[k] = quantile_without(s, n, p, 0);
	w[k++] = (double)(lo + 1);
	v[k] = quantile_without(s, n, p, lo + 1);
	w[k++] = 1;
	if (n >= lo + 3) {
		v[k] = quantile_without(s, n, p, lo + 2);
		w[k++] = (double)(n - lo - 2);
	}
	return gp_boot_accel_weighted(v, w, k);
}

/* The ranks a type-7 quantile of m values needs: lo and, if weighted, lo + 1. */
static void quantile_ranks(size_t m, double p, size_t *lo, double *f)
{
	double h = (double)(m - 1) * p;

	*lo = (size_t)floor(h);
	if (*lo > m - 1)
		*lo = m - 1;
	*f = h - (double)*lo;
	if (*lo + 1 > m - 1)
		*f = 0;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return (x > y) - (x < y);
}

int gp_boot_quantiles(const double *s, size_t n, const double *p, size_t np, long B,
		      double level, struct gp_rng *rng, struct gp_ci *out)
{
	double *ts = NULL, *f = NULL;
	size_t *lo = NULL, *cell = NULL, nr = 0;
	unsigned long *rk = NULL;
	gsl_rng *g = NULL;
	int ret = -1;

	if (n < 2 || B < 1) {
		for (size_t j = 0; j < np; j++) {
			ci_init(&out[j], n ? gp_quantile_sorted(s, n, p[j]) : NAN, level, 1,
				(size_t)(B > 0 ? B : 0));
			if (n)
				ci_point(&out[j]);
			else
				out[j].degenerate = 1;
		}
		return 0;
	}
	ts = malloc((size_t)B * np * sizeof(*ts));
	f = malloc(np * sizeof(*f));
	lo = malloc(np * sizeof(*lo));
	rk = malloc(2 * np * sizeof(*rk));
	cell = malloc(2 * np * sizeof(*cell));
	g = borrow(rng);
	if (!ts || !f || !lo || !rk || !cell || !g)
		goto done;
	for (size_t j = 0; j < np; j++) {
		quantile_ranks(n, p[j], &lo[j], &f[j]);
		rk[nr++] = lo[j];
		if (f[j] > 0)
			rk[nr++] = lo[j] + 1;
	}
	qsort(rk, nr, sizeof(*rk), cmp_ulong);
	size_t u = 0;
	for (size_t i = 0; i < nr; i++)
		if (u == 0 || rk[u - 1] != rk[i])
			rk[u++] = rk[i];
	nr = u;
	for (long b = 0; b < B; b++) {
		descend(g, 0, n, n, 0, rk, cell, nr);
		for (size_t j = 0; j < np; j++) {
			size_t i0 = 0;
			double x0, x1;

			while (rk[i0] != lo[j])
				i0++;
			x0 = s[cell[i0]];
			if (f[j] > 0) {
				x1 = s[cell[i0 + 1]];
				x0 += f[j] * (x1 - x0);
			}
			ts[j * (size_t)B + (size_t)b] = x0;
		}
	}
	for (size_t j = 0; j < np; j++)
		gp_ci_from_dist(ts + j * (size_t)B, (size_t)B, gp_quantile_sorted(s, n, p[j]),
				gp_boot_quantile_accel(s, n, p[j]), 1, level, &out[j]);
	ret = 0;
done:
	if (g)
		give_back(g, rng);
	free(ts);
	free(f);
	free(lo);
	free(rk);
	free(cell);
	return ret;
}

/* ---- quantiles under cluster resampling ---- */

/*
 * The pooled values in ascending order (all[0..N)), the cluster of each
 * (cl[0..N)) and, for each cluster, the ascending positions of its members in
 * that order.  A resample gives cluster r the multiplicity m[r]; its rank-k
 * order statistic is all[j] for the smallest j with
 * W(j) = Σ m[r] #{pos_r <= j} >= k + 1.  Two ways to find that j give the
 * same j: a binary search over j that counts each drawn cluster's members by
 * a binary search of its own (R log N log n a rank: few large clusters), or
 * one walk of all[] adding m[cl[j]] (N a rank: many small clusters, where
 * the search's R log N grows with R and the resamples times R made the
 * analysis quadratic in reps).  walk says which is cheaper for these
 * clusters; the leave-one-out jackknife has a search of its own in
 * log N log n, not R log N log n.
 */
struct pooled {
	double *all;
	size_t N, R;
	size_t **pos;
	const size_t *n;
	size_t *cl;		/* cluster of each pooled value */
	int walk;		/* 1: find ranks by walking all[] */
};

static size_t upto(const size_t *pos, size_t n, size_t j)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pos[mid] <= j)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t weighted_rank(const struct pooled *P, const unsigned *m, size_t k)
{
	size_t lo = 0, hi = P->N - 1;

	if (P->walk) {
		size_t w = 0, j;

		for (j = 0; j < P->N - 1; j++)
			if ((w += m[P->cl[j]]) >= k + 1)
				break;
		return j;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, w = 0;

		for (size_t r = 0; r < P->R; r++)
			if (m[r])
				w += m[r] * upto(P->pos[r], P->n[r], mid);
		if (w >= k + 1)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* weighted_rank() for the leave-one-out weights (1 for every cluster but
 * out, 0 for it): W(j) = j + 1 − #{pos_out <= j}. */
static size_t loo_rank(const struct pooled *P, size_t out, size_t k)
{
	size_t lo = 0, hi = P->N - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (mid + 1 - upto(P->pos[out], P->n[out], mid) >= k + 1)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The p-quantile of the resample m (out = SIZE_MAX), or of the pool without
 * cluster out (m unused). */
static double weighted_quantile(const struct pooled *P, const unsigned *m, size_t out, double p)
{
	size_t Nstar = 0, lo;
	double f, x0;

	if (out != SIZE_MAX) {
		Nstar = P->N - P->n[out];
	} else {
		for (size_t r = 0; r < P->R; r++)
			Nstar += m[r] * P->n[r];
	}
	if (Nstar == 0)
		return NAN;
	quantile_ranks(Nstar, p, &lo, &f);
	x0 = P->all[out != SIZE_MAX ? loo_rank(P, out, lo) : weighted_rank(P, m, lo)];
	if (f > 0)
		x0 += f * (P->all[out != SIZE_MAX ? loo_rank(P, out, lo + 1) :
				  weighted_rank(P, m, lo + 1)] - x0);
	return x0;
}

/* Nothing to resample between (one cluster or none, or B < 1): each
 * quantile of the pooled x[0 .. R) is a point.  0 or -1 (out of memory). */
static int cluster_point(const double *const *x, const size_t *n, size_t R, size_t N,
			 const double *p, size_t np, long B, double level, struct gp_ci *out)
{
	double *tmp = N ? malloc(N * sizeof(*tmp)) : NULL;
	size_t k = 0;

	if (N && !tmp)
		return -1;
	for (size_t r = 0; r < R; r++)
		for (size_t i = 0; i < n[r]; i++)
			tmp[k++] = x[r][i];
	gp_sort_doubles(tmp, k);
	for (size_t j = 0; j < np; j++) {
		ci_init(&out[j], gp_quantile_sorted(tmp, k, p[j]), level, 1, (size_t)(B > 0 ? B : 0));
		if (k)
			ci_point(&out[j]);
		else
			out[j].degenerate = 1;
	}
	free(tmp);
	return 0;
}

/* Does cluster r's head sort before cluster q's?  By value, ties to the
 * lower cluster (deterministic). */
static int head_before(const double *const *x, const size_t *head, size_t r, size_t q)
{
	double a = x[r][head[r]], b = x[q][head[q]];

	return a < b || (!(b < a) && r < q);
}

/* Pool the sorted clusters x[0 .. P->R) into P->all by an R-way merge on a
 * binary heap of the clusters' heads (N log R; the scan of every head per
 * value it replaces was N R), ties to the lower cluster first, with each
 * value's pooled position in P->pos and its cluster in P->cl.  head[]
 * (zeroed) is scratch.  0 or -1. */
static int cluster_merge(struct pooled *P, const double *const *x, size_t *head)
{
	size_t *heap = malloc(P->R * sizeof(*heap)), nh = 0;
	double lg = 1;

	P->all = malloc(P->N * sizeof(*P->all));
	P->cl = malloc(P->N * sizeof(*P->cl));
	if (!heap || !P->all || !P->cl) {
		free(heap);
		return -1;
	}
	for (size_t r = 0; r < P->R; r++)
		if (!(P->pos[r] = malloc(P->n[r] * sizeof(**P->pos)))) {
			free(heap);
			return -1;
		}
	for (size_t r = 0; r < P->R; r++) {	/* every cluster is non-empty */
		size_t i = nh++;

		while (i && head_before(x, head, r, heap[(i - 1) / 2])) {
			heap[i] = heap[(i - 1) / 2];
			i = (i - 1) / 2;
		}
		heap[i] = r;
	}
	for (size_t j = 0; j < P->N; j++) {
		size_t best = heap[0], i = 0;

		P->all[j] = x[best][head[best]];
		P->cl[j] = best;
		P->pos[best][head[best]++] = j;
		if (head[best] == P->n[best])
			best = heap[--nh];
		for (;;) {	/* sift best down from the root */
			size_t c = 2 * i + 1;

			if (c >= nh)
				break;
			if (c + 1 < nh && head_before(x, head, heap[c + 1], heap[c]))
				c++;
			if (!head_before(x, head, heap[c], best))
				break;
			heap[i] = heap[c];
			i = c;
		}
		if (nh)
			heap[i] = best;
	}
	free(heap);
	for (size_t n = P->N; n > 1; n /= 2)
		lg++;
	/* A rank by search costs about R log N log(N/R) steps; by walk, N/2. */
	P->walk = (double)P->N < 2 * (double)P->R * lg * (lg - log2((double)P->R) + 1);
	return 0;
}

/* B cluster resamples and the R leave-one-cluster-out jackknife values of
 * each quantile, then its BCa interval.  m[] (R counts) is scratch.  0 or -1. */
static int cluster_resample(const struct pooled *P, unsigned *m, const double *p, size_t np,
			    long B, double level, struct gp_rng *rng, struct gp_ci *out)
{
	double *ts = malloc((size_t)B * np * sizeof(*ts));
	double *jack = malloc(P->R * np * sizeof(*jack));
	int ret = -1;

	if (!ts || !jack)
		goto done;
	for (long b = 0; b < B; b++) {
		memset(m, 0, P->R * sizeof(*m));
		for (size_t r = 0; r < P->R; r++)
			m[gp_rng_below(rng, P->R)]++;
		for (size_t j = 0; j < np; j++)
			ts[j * (size_t)B + (size_t)b] = weighted_quantile(P, m, SIZE_MAX, p[j]);
	}
	for (size_t r = 0; r < P->R; r++)
		for (size_t j = 0; j < np; j++)
			jack[j * P->R + r] = weighted_quantile(P, m, r, p[j]);
	for (size_t j = 0; j < np; j++) {
		double a = gp_boot_accel(jack + j * P->R, &P->R, 1);

		gp_ci_from_dist(ts + j * (size_t)B, (size_t)B, gp_quantile_sorted(P->all, P->N, p[j]),
				a, 1, level, &out[j]);
	}
	ret = 0;
done:
	free(ts);
	free(jack);
	return ret;
}

int gp_boot_cluster_quantiles(const double *const *reps, const size_t *nin, size_t nreps,
			      const double *p, size_t np, long B, double level,
			      struct gp_rng *rng, struct gp_ci *out)
{
	struct pooled P = {0};
	const double **x = NULL;
	size_t *n = NULL, *head = NULL;
	unsigned *m = NULL;
	int ret = -1;

	x = malloc((nreps + 1) * sizeof(*x));
	n = malloc((nreps + 1) * sizeof(*n));
	head = calloc(nreps + 1, sizeof(*head));
	m = calloc(nreps + 1, sizeof(*m));
	P.pos = calloc(nreps + 1, sizeof(*P.pos));
	if (!x || !n || !head || !m || !P.pos)
		goto done;
	for (size_t r = 0; r < nreps; r++) {
		if (nin[r] == 0)
			continue;
		x[P.R] = reps[r];
		n[P.R++] = nin[r];
		P.N += nin[r];
	}
	P.n = n;
	if (P.N == 0 || P.R < 2 || B < 1)
		ret = cluster_point(x, n, P.R, P.N, p, np, B, level, out);
	else if (!cluster_merge(&P, x, head))
		ret = cluster_resample(&P, m, p, np, B, level, rng, out);
done:
	if (P.pos)
		for (size_t r = 0; r < P.R; r++)
			free(P.pos[r]);
	free(P.pos);
	free(P.all);
	free(P.cl);
	free(x);
	free(n);
	free(head);
	free(m);
	return ret;
}

/* ---- means and proportions ---- */

static double resample_mean(const double *x, size_t n, struct gp_rng *rng)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += x[gp_rng_below(rng, n)];
	return s / (double)n;
}

/* Leave-one-out means of x, shifted by `shift`, into jack[0..n). */
static void jack_mean(const double *x, size_t n, double shift, double sign, double *jack)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += x[i];
	for (size_t i = 0; i < n; i++)
		jack[i] = sign * (s - x[i]) / (double)(n - 1) + shift;
}

int gp_boot_mean(const double *x, size_t n, long B, double level, struct gp_rng *rng,
		 struct gp_ci *out)
{
	double *ts, *jack;

	if (n < 2 || B < 1) {
		ci_init(out, gp_mean(x, n), level, 1, (size_t)(B > 0 ? B : 0));
		if (n)
			ci_point(out);
		else
			out->degenerate = 1;
		return 0;
	}
	ts = malloc((size_t)B * sizeof(*ts));
	jack = malloc(n * sizeof(*jack));
	if (!ts || !jack) {
		free(ts);
		free(jack);
		return -1;
	}
	for (long b = 0; b < B; b++)
		ts[b] = resample_mean(x, n, rng);
	jack_mean(x, n, 0, 1, jack);
	gp_ci_from_dist(ts, (size_t)B, gp_mean(x, n), gp_boot_accel(jack, &n, 1), 1, level, out);
	free(ts);
	free(jack);
	return 0;
}

int gp_boot_mean_diff(const double *x, size_t nx, const double *y, size_t ny, long B,
		      double level, int bca, struct gp_rng *rng, struct gp_ci *out)
{
	double mx = gp_mean(x, nx), my = gp_mean(y, ny), *ts, *jack;
	size_t gn[2] = {nx, ny};

	if (nx == 0 || ny == 0 || B < 1 || (nx < 2 && ny < 2)) {
		ci_init(out, mx - my, level, bca, (size_t)(B > 0 ? B : 0));
		if (nx && ny)
			ci_point(out);
		else
			out->degenerate = 1;
		return 0;
	}
	ts = malloc((size_t)B * sizeof(*ts));
	jack = malloc((nx + ny) * sizeof(*jack));
	if (!ts || !jack) {
		free(ts);
		free(jack);
		return -1;
	}
	for (long b = 0; b < B; b++) {
		double a = resample_mean(x, nx, rng);

		ts[b] = a - resample_mean(y, ny, rng);
	}
	if (nx >= 2)
		jack_mean(x, nx, -my, 1, jack);
	if (ny >= 2)
		jack_mean(y, ny, mx, -1, jack + nx);
	gp_ci_from_dist(ts, (size_t)B, mx - my, gp_boot_accel(jack, gn, 2), bca, level, out);
	free(ts);
	free(jack);
	return 0;
}

int gp_boot_proportion(long good, long n, long B, double level, struct gp_rng *rng,
		       struct gp_ci *out)
{
	double th = n > 0 ? (double)good / (double)n : NAN, *ts, v[2], w[2];
	gsl_rng *g;

	if (n < 2 || B < 1 || good <= 0 || good >= n) {
		/* n < 2, or all zeros / all ones: every resample equals the estimate. */
		ci_init(out, th, level, 1, (size_t)(B > 0 ? B : 0));
		if (n > 0)
			ci_point(out);
		else
			out->degenerate = 1;
		return 0;
	}
	ts = malloc((size_t)B * sizeof(*ts));
	g = borrow(rng);
	if (!ts || !g) {
		free(ts);
		if (g)
			give_back(g, rng);
		return -1;
	}
	for (long b = 0; b < B; b++)
		ts[b] = (double)binom(g, th, (unsigned long)n) / (double)n;
	give_back(g, rng);
	v[0] = (double)(good - 1) / (double)(n - 1);	/* a good one left out */
	w[0] = (double)good;
	v[1] = (double)good / (double)(n - 1);		/* a miss left out */
	w[1] = (double)(n - good);
	gp_ci_from_dist(ts, (size_t)B, th, gp_boot_accel_weighted(v, w, 2), 1, level, out);
	free(ts);
	return 0;
}
