/* SPDX-License-Identifier: MIT */
/*
 * baseline — the SLO from an unloaded baseline run (method §9.1,
 * gp-analyze(1) --slo-baseline):
 *
 *   TTFT_SLO = K × STAT(TTFT of the baseline's ok requests)
 *   TPOT_SLO = K × STAT(TPOT of the same requests)
 *
 * STAT is p50 (the default), p90, p99 (gp_quantile_sorted, type 7) or the
 * mean.  The baseline is one arm (a second arm is refused: a baseline is one
 * path, unloaded), its rate is the highest request rate_rps seen, and it must
 * have passed the validity filter unless the caller waives it.  Only ok
 * requests enter the statistic; failed and single-token ones do not.
 *
 * struct gp_baseline owns its copy of the arm name and its arrays
 * (gp_baseline_release frees them).  Errors are returned, never printed.
 */
#ifndef GP_BASELINE_H
#define GP_BASELINE_H

#include <stddef.h>

#include "method/good.h"

enum gp_slo_stat { GP_SLO_P50, GP_SLO_P90, GP_SLO_P99, GP_SLO_MEAN };

/* "p50" | "p90" | "p99" | "mean" → *out; 0, or -1 for any other text. */
int gp_slo_stat_parse(const char *s, enum gp_slo_stat *out);
/* The option spelling of a statistic (static string). */
const char *gp_slo_stat_name(enum gp_slo_stat st);
/* STAT of x[0 .. n) (n >= 1); sorts x in place for a quantile. */
double gp_slo_stat_of(double *x, size_t n, enum gp_slo_stat st);

enum {
	GP_BASELINE_NOMEM = -1,
	GP_BASELINE_TWO_ARMS = -2,	/* a request of another arm than the first */
	GP_BASELINE_UNVERIFIED = -3,	/* no validity record, and it was required */
	GP_BASELINE_EMPTY = -4,		/* no ok request */
};

struct gp_baseline {
	char *arm;		/* the first request's arm, NULL before one */
	double rate;		/* the highest rate_rps seen */
	int validity;		/* a validity record was seen */
	double *ttft, *tpot;	/* the ok requests' latencies, in order */
	size_t n, cap;
};

void gp_baseline_init(struct gp_baseline *b);
void gp_baseline_release(struct gp_baseline *b);

/*
 * One request of the baseline, any outcome: its arm and rate_rps.  0;
 * GP_BASELINE_TWO_ARMS (nothing recorded) when arm differs from the first
 * request's; GP_BASELINE_NOMEM.
 */
int gp_baseline_request(struct gp_baseline *b, const char *arm, double rate);

/* The latencies of an ok request (after its gp_baseline_request).  0 or
 * GP_BASELINE_NOMEM. */
int gp_baseline_ok(struct gp_baseline *b, double ttft_ms, double tpot_ms);

/*
 * The SLO K × STAT of the ok requests into slo->ttft_ms, slo->tpot_ms (other
 * fields untouched).  0; GP_BASELINE_UNVERIFIED when require_validity and no
 * validity record was seen; GP_BASELINE_EMPTY when no request was ok.
 * The latency arrays are sorted in place by a quantile.
 */
int gp_baseline_slo(struct gp_baseline *b, enum gp_slo_stat st, double multiple,
		    int require_validity, struct gp_slo *slo);

#endif
