/* SPDX-License-Identifier: MIT */
/* tost — Welch t-test and Welch TOST equivalence (formulas in tost.h). */
#include <math.h>

#include <gsl/gsl_cdf.h>

#include "stats/stats.h"
#include "stats/tost.h"

static void tost_nan(struct gp_tost *o, double delta, double alpha)
{
	o->diff = o->se = o->df = NAN;
	o->t_lower = o->t_upper = NAN;
	o->p_lower = o->p_upper = o->p = NAN;
	o->lo = o->hi = NAN;
	o->delta = delta;
	o->alpha = alpha;
	o->equivalent = 0;
	o->degenerate = 0;
}

/* Welch–Satterthwaite; vx = s_x²/n_x, vy = s_y²/n_y. */
static double welch_df(double vx, size_t nx, double vy, size_t ny)
{
	double den = vx * vx / (double)(nx - 1) + vy * vy / (double)(ny - 1);

	return (vx + vy) * (vx + vy) / den;
}

int gp_tost_welch_summary(double mx, double sx, size_t nx, double my, double sy, size_t ny,
			  double delta, double alpha, struct gp_tost *o)
{
	double vx, vy, tq;

	tost_nan(o, delta, alpha);
	if (nx < 2 || ny < 2 || isnan(sx) || isnan(sy) || isnan(mx) || isnan(my))
		return -1;
	o->diff = mx - my;
	vx = sx * sx / (double)nx;
	vy = sy * sy / (double)ny;
	o->se = sqrt(vx + vy);
	if (o->se == 0) {
		o->degenerate = 1;
		o->lo = o->hi = o->diff;
		o->p_lower = o->diff > -delta ? 0 : 1;
		o->p_upper = o->diff < delta ? 0 : 1;
		o->p = fmax(o->p_lower, o->p_upper);
		o->equivalent = fabs(o->diff) < delta;
		return 0;
	}
	o->df = welch_df(vx, nx, vy, ny);
	o->t_lower = (o->diff + delta) / o->se;
	o->t_upper = (o->diff - delta) / o->se;
	o->p_lower = gsl_cdf_tdist_Q(o->t_lower, o->df);
	o->p_upper = gsl_cdf_tdist_P(o->t_upper, o->df);
	o->p = fmax(o->p_lower, o->p_upper);
	tq = gsl_cdf_tdist_Pinv(1 - alpha, o->df);
	o->lo = o->diff - tq * o->se;
	o->hi = o->diff + tq * o->se;
	o->equivalent = o->lo > -delta && o->hi < delta;
	return 0;
}

int gp_tost_welch(const double *x, size_t nx, const double *y, size_t ny, double delta,
		  double alpha, struct gp_tost *o)
{
	return gp_tost_welch_summary(gp_mean(x, nx), gp_sd(x, nx), nx, gp_mean(y, ny),
				     gp_sd(y, ny), ny, delta, alpha, o);
}

int gp_welch_t(const double *x, size_t nx, const double *y, size_t ny, double *t, double *df,
	       double *p)
{
	double vx, vy, se;

	*t = *df = *p = NAN;
	if (nx < 2 || ny < 2)
		return -1;
	vx = gp_sd(x, nx);
	vy = gp_sd(y, ny);
	vx = vx * vx / (double)nx;
	vy = vy * vy / (double)ny;
	se = sqrt(vx + vy);
	if (!(se > 0))
		return -1;
	*t = (gp_mean(x, nx) - gp_mean(y, ny)) / se;
	*df = welch_df(vx, nx, vy, ny);
	*p = 2 * gsl_cdf_tdist_Q(fabs(*t), *df);
	return 0;
}

/* ---- intervals over per-rep quantities (formulas in tost.h) ---- */

double gp_binom_floor_var(long good, long attempted, size_t reps)
{
	double p;

	if (attempted <= 0 || reps == 0 || good < 0)
		return 0;
	p = ((double)good + 0.5) / ((double)attempted + 1);
	return p * (1 - p) / ((double)attempted / (double)reps);
}

static void tint_nan(struct gp_tint *o, double level)
{
	o->est = o->lo = o->hi = o->half_width = o->se = o->df = NAN;
	o->level = level;
	o->n = o->n_vs = 0;
	o->floored = o->degenerate = 0;
}

/* s² floored at f; *floored and *degenerate are or-ed in. */
static double floored_var(const double *x, size_t n, double f, struct gp_tint *o)
{
	double s = gp_sd(x, n), v = s * s;

	if (s == 0)
		o->degenerate = 1;
	if (v < f) {
		o->floored = 1;
		v = f;
	}
	return v;
}

static void tint_finish(struct gp_tint *o, double var_of_est)
{
	double tq;

	o->se = sqrt(var_of_est);
	tq = o->se > 0 ? gsl_cdf_tdist_Pinv(1 - (1 - o->level) / 2, o->df) : 0;
	o->half_width = tq * o->se;
	o->lo = o->est - o->half_width;
	o->hi = o->est + o->half_width;
}

int gp_t_interval(const double *x, size_t n, double f, double level, struct gp_tint *o)
{
	tint_nan(o, level);
	o->n = n;
	o->est = n ? gp_mean(x, n) : NAN;
	if (n < 2)
		return -1;
	o->df = (double)(n - 1);
	tint_finish(o, floored_var(x, n, f, o) / (double)n);
	return 0;
}

int gp_welch_interval(const double *x, size_t nx, double fx, const double *y, size_t ny,
		      double fy, double level, struct gp_tint *o)
{
	double vx, vy;

	tint_nan(o, level);
	o->n = nx;
	o->n_vs = ny;
	if (nx && ny)
		o->est = gp_mean(x, nx) - gp_mean(y, ny);
	if (nx < 2 || ny < 2)
		return -1;
	vx = floored_var(x, nx, fx, o) / (double)nx;
	vy = floored_var(y, ny, fy, o) / (double)ny;
	o->df = vx + vy > 0 ? welch_df(vx, nx, vy, ny) : NAN;
	tint_finish(o, vx + vy);
	return 0;
}

int gp_tost_welch_floor(const double *x, size_t nx, double fx, const double *y, size_t ny,
			double fy, double delta, double alpha, struct gp_tost *out)
{
	double sx, sy;

	if (nx < 2 || ny < 2)
		return gp_tost_welch_summary(NAN, NAN, nx, NAN, NAN, ny, delta, alpha, out);
	sx = gp_sd(x, nx);
	sy = gp_sd(y, ny);
	sx = sqrt(fmax(sx * sx, fx));
	sy = sqrt(fmax(sy * sy, fy));
	return gp_tost_welch_summary(gp_mean(x, nx), sx, nx, gp_mean(y, ny), sy, ny, delta,
				     alpha, out);
}

int gp_crossing_interval(double r1, const double *x, size_t nx, double fx, double r2,
			 const double *y, size_t ny, double fy, double target, double level,
			 struct gp_tint *o)
{
	double m1, m2, d, a, b, v1, v2, t1, t2;

	tint_nan(o, level);
	o->n = nx;
	o->n_vs = ny;
	if (!nx || !ny)
		return -1;
	m1 = gp_mean(x, nx);
	m2 = gp_mean(y, ny);
	d = m1 - m2;
	if (d == 0)
		return -1;
	o->est = r1 + (m1 - target) * (r2 - r1) / d;
	if (nx < 2 || ny < 2)
		return -1;
	a = (r2 - r1) * (target - m2) / (d * d);
	b = (r2 - r1) * (m1 - target) / (d * d);
	v1 = floored_var(x, nx, fx, o) / (double)nx;
	v2 = floored_var(y, ny, fy, o) / (double)ny;
	t1 = a * a * v1;
	t2 = b * b * v2;
	o->df = t1 + t2 > 0 ? (t1 + t2) * (t1 + t2) /
			      (t1 * t1 / (double)(nx - 1) + t2 * t2 / (double)(ny - 1)) : NAN;
	tint_finish(o, t1 + t2);
	return 0;
}

int gp_ratio_interval(const double *x, size_t nx, double fx, const double *y, size_t ny,
		      double fy, double level, struct gp_tint *o)
{
	double mx, my, vx, vy, r, tx, ty, tq, a, b, disc;

	tint_nan(o, level);
	o->n = nx;
	o->n_vs = ny;
	if (!nx || !ny)
		return -1;
	mx = gp_mean(x, nx);
	my = gp_mean(y, ny);
	if (my == 0)
		return -1;
	o->est = r = mx / my;
	if (nx < 2 || ny < 2)
		return -1;
	vx = floored_var(x, nx, fx, o) / (double)nx;
	vy = floored_var(y, ny, fy, o) / (double)ny;
	tx = vx;
	ty = r * r * vy;
	if (!(tx + ty > 0)) {		/* no spread at all: the ratio is known */
		o->df = NAN;
		o->se = o->half_width = 0;
		o->lo = o->hi = r;
		return 0;
	}
	o->df = (tx + ty) * (tx + ty) /
		(tx * tx / (double)(nx - 1) + ty * ty / (double)(ny - 1));
	o->se = sqrt(tx + ty) / fabs(my);	/* the delta method's, for reference */
	tq = gsl_cdf_tdist_Pinv(1 - (1 - level) / 2, o->df);
	a = my * my - tq * tq * vy;
	b = mx * my;
	disc = tq * tq * (mx * mx * vy + my * my * vx) - tq * tq * tq * tq * vx * vy;
	if (!(a > 0) || disc < 0)	/* my not resolved from 0: unbounded */
		return -1;
	o->lo = (b - sqrt(disc)) / a;
	o->hi = (b + sqrt(disc)) / a;
	return 0;
}
