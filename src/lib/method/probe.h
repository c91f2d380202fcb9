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
 * Heterogeneous fleets.  On a fleet whose members differ in speed, even a
 * perfect spreading router does not give every member the same in-flight
 * load: round robin sends each member the same requests and a member at half
 * speed holds each twice as long (its in-flight share is (1/cap_i) / Σ(1/cap_j),
 * Little's law), while least-connections and bounded loads equalise in-flight
 * counts (share 1/n).  With the members' relative capacities cap_i (acc->cap,
 * from calibration), the spread concentration judges each member against the
 * larger of those two spreading shares:
 *
 *   spread_concentration = max_i  share_i / max(1/n, (1/cap_i) / Σ_j (1/cap_j))
 *
 * where share_i is member i's fraction of the integrated load: 1 when no
 * member carries more than a spreading router would give it, and the plain
 * concentration when every cap_i is equal (or acc->cap is NULL).  The served
 * counts (requests each member answered, when the gateway names it) are
 * judged the same way against max(1/n, cap_i/Σcap): round robin gives equal
 * counts, least-connections counts in proportion to speed.
 *
 * Measured behind HAProxy on gp-sim (64 requests at 16 in flight, one key,
 * prompts of 128 tokens, 16 out, sampled every 20 ms; 15 probes an arm at
 * --speed 1,1,1,0.5, 10 at equal speeds; tests/t6015 keeps the rules):
 *
 *                      half-speed member            equal speeds
 *                      plain      capacity-weighted  plain
 *   roundrobin         1.63-1.68  1.02-1.05          1.00-1.05
 *   leastconn          1.03-1.29  0.94-1.06          1.00-1.08
 *   bounded (125 %)    1.21-1.55  1.18-1.35          1.27-1.30
 *   chash, one key     4          2.5-4              4
 *
 * Round robin served 16/16/16/16 every time and was refused by the plain
 * rule; weighted, every spreading policy sits at or under 1.35.
 *
 * Verdict: expect "concentrate" is engaged when the plain concentration >=
 * concentrate_min (default 2: one backend carried at least twice its equal
 * share; heterogeneity does not enter, a pinned key is pinned whatever the
 * member's speed); expect "spread" is engaged when the spread concentration
 * <= spread_max (default 1.5: above every spreading policy of the table,
 * below consistent hashing's 2.5 on the slow member; bounded loads at a
 * looser factor need more: the demo's hash-balance-factor 150 measured up to
 * 1.63 over 300 probes, and its protocol sets 2.0).
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
	const double *cap;	/* [n] relative capacities (> 0), borrowed; NULL: equal */
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
/* The burst's spread concentration against a->cap (above; NaN when nothing
 * was ever in flight). */
double gp_probe_spread_concentration(const struct gp_probe_acc *a);
/* The served counts x[0..n) against max(1/n, cap_i/Σcap) (cap NULL: equal
 * shares, the plain peak-to-mean); NaN when nothing was served. */
double gp_probe_served_spread(const double *x, size_t n, const double *cap);

/*
 * 1 when the burst shows what expect ("spread" or "concentrate") asks for,
 * 0 otherwise (also for an unknown expect, or too few busy samples): spread
 * by the spread concentration, concentrate by the plain one.
 */
int gp_probe_engaged(const char *expect, const struct gp_probe_acc *a,
		     const struct gp_probe_thr *t);

#endif
