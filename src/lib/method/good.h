/* SPDX-License-Identifier: MIT */
/*
 * good — the conjunction good-mask and the attempted-denominator tally of
 * goodput@SLO (doc/design.md, method §7 step 1).
 *
 *   good ⇔ outcome ok ∧ TTFT ≤ TTFT_SLO ∧ TPOT ≤ TPOT_SLO      (never OR)
 *
 * Every attempted request counts in the denominator; a failed request is a
 * miss, never dropped.  A single-token request (outcome single_token: one
 * output token, so no TPOT exists) is judged on TTFT alone under
 * GP_SINGLE_TTFT (the default) and is a miss under GP_SINGLE_MISS; either way
 * it is counted apart.  A missing (NaN) TTFT or TPOT where one is needed makes
 * the request a miss: no comparison with NaN is true.
 *
 * Plain data, no allocation.
 */
#ifndef GP_GOOD_H
#define GP_GOOD_H

enum gp_outcome {
	GP_OUTCOME_OK = 0,
	GP_OUTCOME_SINGLE_TOKEN = 1,
	GP_OUTCOME_FAILED = 2,
};

enum gp_single_policy {
	GP_SINGLE_TTFT = 0,	/* judge on TTFT alone */
	GP_SINGLE_MISS = 1,	/* count as a miss */
};

struct gp_slo {
	double ttft_ms, tpot_ms;
	enum gp_single_policy single;
};

/* "ok" | "single_token" | "failed" → *out; 0, or -1 for any other text. */
int gp_outcome_parse(const char *s, enum gp_outcome *out);
/* The record spelling of an outcome (static string). */
const char *gp_outcome_name(enum gp_outcome o);

/* 1 when the request is good under slo, else 0. */
int gp_good(const struct gp_slo *slo, enum gp_outcome o, double ttft_ms, double tpot_ms);

/*
 * Counts of one (arm, rate, rep).  attempted = paired + unpaired_ok +
 * single_token + failed; good counts both paired and single-token goods,
 * good_single the latter alone.  paired: ok requests with both TTFT and TPOT.
 */
struct gp_tally {
	long attempted, good, good_single;
	long paired, unpaired_ok, single_token, failed;
};

void gp_tally_init(struct gp_tally *t);
/* Count one attempted request; returns gp_good() of it. */
int gp_tally_add(struct gp_tally *t, const struct gp_slo *slo, enum gp_outcome o,
		 double ttft_ms, double tpot_ms);
/* good / attempted; NaN when nothing was attempted. */
double gp_tally_fraction(const struct gp_tally *t);

#endif
