/* SPDX-License-Identifier: MIT */
/*
 * probe — the arithmetic of the mechanism probe (method §5): how concentrated
 * the in-flight load over the backends is, per sample and over a burst, and
 * whether that is what the arm expects.  Pure: no I/O; the tool samples.
 *
 * A sample is each backend's in-flight load (the sum of the fleet's
 * inflight_metrics).  Its peak-to-mean is max / mean over the backends: 1 when
 * the load is even, n (the number of backends) when one backend holds it all;
 * undefined (NaN) when nothing is in flight.
 *
 * Over the burst, the concentration is the peak-to-mean of the integrated
 * load — each backend's load summed over the samples — so that a backend is
 * "hot" when it carried more than its share of the burst, however the load
 * moved from sample to sample; the mean and the maximum of the per-sample
 * ratios (busy samples only) are reported beside it.
 *
 * Verdict: expect "concentrate" is engaged when concentration >=
 * concentrate_min (default 2: one backend carried at least twice its share);
 * expect "spread" is engaged when concentration <= spread_max (default 1.5,
 * which admits a bounded-load policy at HAProxy's hash-balance-factor 150).
 * Fewer than min_busy busy samples (default 3): not engaged — the probe saw
 * too little load to judge.
 *
 * Ownership: gp_probe_acc_init allocates per-backend sums;
 * gp_probe_acc_release frees them.
 */
#ifndef GP_PROBE_H
#define GP_PROBE_H

#include <stddef.h>

struct gp_probe_thr {
	double concentrate_min;	/* default 2.0 */
	double spread_max;	/* default 1.5 */
	long min_busy;		/* default 3 */
};

#define GP_PROBE_THR_DEFAULT { 2.0, 1.5, 3 }

/* max / mean of load[0..n); NaN when n == 0 or the sum is 0. */
double gp_probe_peak_to_mean(const double *load, size_t n);

struct gp_probe_acc {
	size_t n;		/* backends */
	double *sum;		/* [n] integrated load */
	long samples, busy;	/* samples taken; with something in flight */
	double ratio_sum, ratio_max;	/* over busy samples */
};

/* 0 or -1 (out of memory). */
int gp_probe_acc_init(struct gp_probe_acc *a, size_t n);
void gp_probe_acc_release(struct gp_probe_acc *a);
/* Add one sample; returns its peak-to-mean (NaN when idle). */
double gp_probe_acc_add(struct gp_probe_acc *a, const double *load);
/* The burst's concentration (NaN when nothing was ever in flight). */
double gp_probe_concentration(const struct gp_probe_acc *a);
/* Mean of the busy samples' ratios (NaN when none). */
double gp_probe_mean_ratio(const struct gp_probe_acc *a);

/*
 * 1 when the burst shows what expect ("spread" or "concentrate") asks for,
 * 0 otherwise (also for an unknown expect, or too few busy samples).
 */
int gp_probe_engaged(const char *expect, const struct gp_probe_acc *a,
		     const struct gp_probe_thr *t);

#endif
