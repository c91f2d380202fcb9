/* SPDX-License-Identifier: MIT */
/*
 * pace — the arrival schedule of an open-loop replay, shard selection, the
 * wall-clock start anchor, and the lateness histogram.
 *
 * A schedule maps the i-th trace record (file order, 0-based) to an offset in
 * seconds from the run's start.  Three modes:
 *
 *   as is     offset_i = t_i − t_0 (the trace's own timestamps, shifted so
 *             the first record goes at 0);
 *   rescale   offset_i = (t_i − t_0) · (trace_rps / rate_rps): every gap is
 *             multiplied by the same factor, so the shape (bursts, lulls,
 *             diurnal swings) is kept and the mean rate becomes rate_rps;
 *   poisson   offset_0 = 0, offset_i = offset_{i−1} + Exp(rate_rps) from a
 *             seeded xoshiro256** stream (rng.h): a Poisson process.
 *   poisson_count  a Poisson process at rate_rps conditioned on its count n
 *             and on its span: offset_0 = 0, offset_{n−1} = (n − 1) / rate_rps,
 *             and the n − 2 others independent uniforms on that span, sorted
 *             (given its count, a Poisson process's arrival times are the
 *             order statistics of uniforms).  The records from n on are not
 *             sent (offset +INFINITY).  The achieved rate (n − 1)/(last −
 *             first) is then rate_rps exactly, up to send lateness; the plain
 *             Poisson schedule's varies by about 1/√n (32 % at n = 10).  The
 *             ends are pinned because with them free the span of n uniforms
 *             over a window D is D (n − 1)/(n + 1) on average, and as
 *             variable as the plain process's at small n.
 *
 * The mean rate of a trace is (n − 1) / (t_last − t_first): n arrivals span
 * n − 1 gaps.  With that definition a rescaled trace has exactly rate_rps.
 *
 * Shards: every process computes the schedule of the WHOLE trace (call
 * gp_pace_next for every record, including the ones another shard takes), so
 * all shards agree on every record's offset; shard I of N (1-based I) then
 * sends the records whose index mod N == I − 1.
 *
 * All functions are pure or touch only the struct they are given.
 */
#ifndef GP_PACE_H
#define GP_PACE_H

#include <stdint.h>

#include "base/hist.h"

#include "base/rng.h"

enum { GP_PACE_ASIS, GP_PACE_RESCALE, GP_PACE_POISSON, GP_PACE_POISSON_COUNT };

struct gp_pace {
	int mode;
	int started;
	double t_first;		/* t_s of the first record (as is, rescale) */
	double factor;		/* rescale multiplier */
	double rate_rps;	/* poisson */
	double next_s;		/* poisson: offset of the next record */
	struct gp_rng rng;
	double *off;		/* poisson_count: the n offsets, ascending (owned) */
	unsigned long n, i;	/* poisson_count: the count, the next record */
};

void gp_pace_asis(struct gp_pace *p);
/* trace_rps, rate_rps > 0. */
void gp_pace_rescale(struct gp_pace *p, double trace_rps, double rate_rps);
/* rate_rps > 0; the seed makes the schedule reproducible. */
void gp_pace_poisson(struct gp_pace *p, double rate_rps, uint64_t seed);
/*
 * The conditioned schedule of n >= 2 arrivals at rate_rps > 0 (see above).
 * 0, or -1 when n < 2 or memory runs out (p is then as after
 * gp_pace_asis).  gp_pace_release frees the offsets.
 */
int gp_pace_poisson_count(struct gp_pace *p, double rate_rps, unsigned long n, uint64_t seed);
/* The count of a conditioned run of duration_s at rate_rps: ceil(rate ×
 * duration) less a rounding slack of 1e-9, so that (n − 1)/rate < duration
 * and n is the label's count within one request; 0 when not positive. */
unsigned long gp_pace_count_for(double rate_rps, double duration_s);
/* Free what a schedule owns (only poisson_count owns anything). */
void gp_pace_release(struct gp_pace *p);
/*
 * Offset (seconds from the run start) of the next record, whose trace
 * timestamp is t_s.  Call once per trace record, in file order.  Offsets are
 * non-decreasing when the trace's t_s are.
 */
double gp_pace_next(struct gp_pace *p, double t_s);

/* (n − 1) / (t_last − t_first), or 0 when n < 2 or the span is not > 0. */
double gp_pace_trace_rps(unsigned long n, double t_first, double t_last);

/* Parse "I/N" with 1 <= I <= N: 0, or -1 (values untouched). */
int gp_pace_parse_shard(const char *s, long *i, long *n);
/* Whether record `index` (0-based, file order) belongs to shard i of n. */
static inline int gp_pace_in_shard(unsigned long index, long i, long n)
{
	return (long)(index % (unsigned long)n) == i - 1;
}

/*
 * The CLOCK_MONOTONIC instant (ns) of the wall-clock instant epoch_s (Unix
 * seconds), given a monotonic and a wall-clock reading taken together.
 */
int64_t gp_pace_mono_of_epoch(double epoch_s, int64_t now_mono_ns, int64_t now_wall_ns);


#endif
