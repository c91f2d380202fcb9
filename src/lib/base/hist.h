/* SPDX-License-Identifier: MIT */
/*
 * hist — the one histogram of latencies and lateness: constant memory for
 * any number of samples, quantiles by Hyndman–Fan type 7 (numpy's and R's
 * default; doc/design.md).  Used by gp-replay and gp-calibrate (lateness,
 * summaries) and gp-sim (pacing lag).  Plain data: {0} or gp_hist_init is
 * empty; nothing is allocated.
 *
 * Values are nanoseconds >= 0 (negative values count as 0).  Below 128 ns every value
 * has its own bin; above, each power of two is split into 64 bins, so a value
 * is known within 1/64 of itself and the bin midpoint within 1/128 (0.8 %).
 * The maximum is kept exactly.
 *
 * Type 7 on the binned sample: with h = (n - 1) q, the quantile is
 * x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]), x the order
 * statistics (0-based), each read as its bin's midpoint.  Exact for values
 * below 128 ns; within 0.8 % above.
 */
#ifndef GP_HIST_H
#define GP_HIST_H

#include <stdint.h>

#define GP_HIST_OCTAVES 40	/* 128 ns · 2^40: beyond a day; larger values clamp */
#define GP_HIST_BINS (128 + GP_HIST_OCTAVES * 64)

struct gp_hist {
	uint64_t count;
	int64_t max_ns;
	uint64_t bin[GP_HIST_BINS];
};

void gp_hist_init(struct gp_hist *h);
void gp_hist_add(struct gp_hist *h, int64_t ns);
/*
 * Quantile q in [0, 1] in nanoseconds, type 7 (linear between order
 * statistics, each taken at its bin's midpoint; the largest order statistic
 * is the exact maximum).  NaN when empty.
 */
double gp_hist_quantile(const struct gp_hist *h, double q);

#endif
