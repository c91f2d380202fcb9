/* SPDX-License-Identifier: MIT */
/*
 * plot — gp-report's plots, drawn by gnuplot: for each plot the records
 * allow, data files NAME-I.dat and a script NAME.gp in a scripts folder
 * (re-runnable there by hand: `gnuplot NAME.gp`), and the images NAME.png
 * and NAME.svg in its parent.  The plots: goodfrac (good fraction against
 * offered rate per arm, CIs and knees; from arm_summary and knee records),
 * ttft_cdf and tpot_cdf (the request records at one rate), probe
 * (probe_sample records), calib (calib_step and capacity records) and turns
 * (TTFT p50 and p90 by turn of a session; gp-analyze's turns records).  An
 * arm keeps one colour across plots (the model's palette).
 *
 * Errors: gp_plot_draw returns one of the classes below and writes the
 * message (the file and the cause, no program name) into msg; it neither
 * prints nor exits.  A SIGINT/SIGTERM seen before or after gnuplot runs
 * (base/sig.h) removes the images being drawn and returns GP_PLOT_STOPPED.
 * After an error the plots drawn so far stay, and the memory of the plot
 * under way is not reclaimed (the caller is expected to end).
 */
#ifndef GP_REPORT_PLOT_H
#define GP_REPORT_PLOT_H

#include <stddef.h>

#include "report/model.h"

enum gp_plot_err {
	GP_PLOT_OK = 0,
	GP_PLOT_EIO,		/* a data file or script cannot be written */
	GP_PLOT_ERUN,		/* gnuplot cannot be started */
	GP_PLOT_EDRAW,		/* gnuplot failed, or left no image */
	GP_PLOT_ENOMEM,
	GP_PLOT_STOPPED,	/* a signal asked to stop */
};

/* Which plots were drawn (1) or had nothing to draw (0), and how many. */
struct gp_plot_drawn {
	int goodfrac, cdf[2], probe, calib, turns, n;
};

/*
 * Every plot of m, scripts in gdir (which exists), images in gdir/..,
 * with the gnuplot program gnuplot (a name on PATH or an absolute path: it
 * runs in gdir).  The CDFs are of the requests at rate; none when rate is
 * NaN.  m's palette must be built (gp_records_palette).
 */
enum gp_plot_err gp_plot_draw(const struct gp_records *m, const char *gnuplot, const char *gdir,
			      double rate, struct gp_plot_drawn *dr, char *msg, size_t msglen);

#endif
