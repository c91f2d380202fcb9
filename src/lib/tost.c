/* SPDX-License-Identifier: MIT */
/* tost — Welch t-test and Welch TOST equivalence (formulas in tost.h). */
#include <math.h>

#include <gsl/gsl_cdf.h>

#include "stats.h"
#include "tost.h"

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
