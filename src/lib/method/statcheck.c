/* SPDX-License-Identifier: MIT */
/* statcheck — known-vector self-check of stats, boot, tost and good. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "stats/boot.h"
#include "method/gate.h"
#include "method/good.h"
#include "base/hash.h"
#include "method/statcheck.h"
#include "stats/stats.h"
#include "stats/tost.h"

struct run {
	gp_statcheck_fn *report;
	void *ctx;
	int failed;
};

static void check(struct run *r, int ok, const char *name)
{
	r->report(r->ctx, ok, name, NAN, NAN);
	r->failed += !ok;
}

static void near(struct run *r, double got, double want, double tol, const char *name)
{
	int ok = fabs(got - want) <= tol;

	r->report(r->ctx, ok, name, got, want);
	r->failed += !ok;
}

/* 25 latencies (ms) with ties; the sample of tests/unit/stats-vectors.py. */
static const double S1[25] = {
	31.2, 35.9, 38.4, 40.1, 41.7, 43.0, 44.8, 46.2, 48.0, 48.0, 49.5, 51.3,
	53.0, 55.2, 57.9, 61.5, 61.5, 64.0, 68.3, 72.9, 79.4, 88.0, 101.7, 126.3, 190.4,
};

static void good_mask(struct run *r)
{
	struct gp_slo slo = {.ttft_ms = 500, .tpot_ms = 50, .single = GP_SINGLE_TTFT};
	struct gp_tally t;

	check(r, gp_good(&slo, GP_OUTCOME_OK, 400, 40) == 1, "conjunction: TTFT and TPOT within → good");
	check(r, gp_good(&slo, GP_OUTCOME_OK, 600, 40) == 0, "conjunction: TTFT over → miss (never OR)");
	check(r, gp_good(&slo, GP_OUTCOME_OK, 400, 60) == 0, "conjunction: TPOT over → miss (never OR)");
	check(r, gp_good(&slo, GP_OUTCOME_OK, 500, 50) == 1, "conjunction: at the bounds → good (≤)");
	gp_tally_init(&t);
	gp_tally_add(&t, &slo, GP_OUTCOME_OK, 400, 40);
	gp_tally_add(&t, &slo, GP_OUTCOME_OK, 600, 40);
	gp_tally_add(&t, &slo, GP_OUTCOME_FAILED, 10, NAN);
	gp_tally_add(&t, &slo, GP_OUTCOME_FAILED, NAN, NAN);
	check(r, t.attempted == 4 && t.failed == 2 && t.good == 1, "failed requests stay in the denominator as misses");
	near(r, gp_tally_fraction(&t), 0.25, 0, "good fraction 1/4 over attempted");
	gp_tally_add(&t, &slo, GP_OUTCOME_SINGLE_TOKEN, 300, NAN);
	check(r, t.good == 2 && t.single_token == 1, "single token judged on TTFT alone by default");
	slo.single = GP_SINGLE_MISS;
	gp_tally_add(&t, &slo, GP_OUTCOME_SINGLE_TOKEN, 300, NAN);
	check(r, t.good == 2 && t.single_token == 2, "--single-token miss: a miss, counted apart");
}

static void quantiles_cv(struct run *r)
{
	/* np.quantile(S1, p), numpy 1.24 default (type 7). */
	near(r, gp_quantile_sorted(S1, 25, 0.5), 53.0, 1e-12, "type-7 p50 = np.quantile");
	near(r, gp_quantile_sorted(S1, 25, 0.9), 96.22000000000003, 1e-12, "type-7 p90 = np.quantile");
	near(r, gp_quantile_sorted(S1, 25, 0.99), 175.01599999999988, 1e-12, "type-7 p99 = np.quantile");
	near(r, gp_quantile_sorted(S1, 25, 0.01), 32.327999999999996, 1e-12, "type-7 p1 = np.quantile");
	/* statistics.stdev / statistics.mean */
	const double G[5] = {0.91, 0.94, 0.89, 0.93, 0.92};
	const double G2[5] = {0.70, 0.95, 0.80, 0.99, 0.62};
	near(r, gp_sd(G, 5), 0.01923538406167133, 1e-15, "sample sd = statistics.stdev");
	near(r, gp_cv(G, 5), 0.020953577409228027, 1e-14, "CV = statistics.stdev / mean");
	near(r, gp_cv(G2, 5), 0.19499395038125467, 1e-14, "CV of a noisy arm");
	check(r, isnan(gp_cv(G, 1)), "CV of one rep is undefined (null)");
}

static void stability(struct run *r)
{
	check(r, gp_stability_verdict(5, 0.05, 5, 0.10, 10) == GP_STABILITY_PUBLISHABLE,
	      "stability: N=5, CV 5% → PUBLISHABLE");
	check(r, gp_stability_verdict(4, 0.01, 5, 0.10, 10) == GP_STABILITY_ADD_REPLICATES,
	      "stability: N=4 → ADD_REPLICATES");
	check(r, gp_stability_verdict(6, 0.19, 5, 0.10, 10) == GP_STABILITY_ADD_REPLICATES,
	      "stability: CV 19% below the cap → ADD_REPLICATES");
	check(r, gp_stability_verdict(10, 0.19, 5, 0.10, 10) == GP_STABILITY_PUBLISHABLE_WITH_FOOTNOTE,
	      "stability: CV 19% at the cap → PUBLISHABLE_WITH_FOOTNOTE");
}

static void tost(struct run *r)
{
	/* scipy.stats.ttest_ind(equal_var=False); TOST by hand from scipy.stats.t. */
	const double A[5] = {0.91, 0.94, 0.89, 0.93, 0.92};
	const double B[6] = {0.88, 0.90, 0.86, 0.91, 0.87, 0.89};
	struct gp_tost t;
	double tt, df, p;

	gp_welch_t(A, 5, B, 6, &tt, &df, &p);
	near(r, tt, 2.868661559608758, 1e-12, "Welch t = scipy ttest_ind");
	near(r, p, 0.019509518496248157, 1e-10, "Welch p = scipy ttest_ind");
	near(r, df, 8.54434565759515, 1e-10, "Welch–Satterthwaite df");
	gp_tost_welch(A, 5, B, 6, 0.05, 0.05, &t);
	near(r, t.p_lower, 3.2660817334805016e-05, 1e-12, "TOST p_lower = scipy t.sf");
	near(r, t.p_upper, 0.08767454754505881, 1e-10, "TOST p_upper = scipy t.cdf");
	near(r, t.lo, 0.011783805038516417, 1e-8, "TOST 90% CI lo");
	near(r, t.hi, 0.05421619496148408, 1e-8, "TOST 90% CI hi");
	check(r, !t.equivalent, "TOST δ=0.05: CI reaches past δ → not equivalent");
	gp_tost_welch(A, 5, B, 6, 0.06, 0.05, &t);
	check(r, t.equivalent && t.p < 0.05, "TOST δ=0.06: CI inside ±δ → equivalent");
	const double X[5] = {0.80, 0.95, 0.70, 0.99, 0.85}, Y[5] = {0.90, 0.88, 0.92, 0.86, 0.89};
	gp_tost_welch(X, 5, Y, 5, 0.05, 0.05, &t);
	check(r, !t.equivalent && t.lo < -0.05 && t.hi > 0.05, "TOST: CI straddling the bounds is never equivalent");
	const double C1[3] = {0.9, 0.9, 0.9}, C2[3] = {0.88, 0.88, 0.88};
	gp_tost_welch(C1, 3, C2, 3, 0.05, 0.05, &t);
	check(r, t.degenerate && t.equivalent && t.p == 0, "TOST sd=0 both arms: equivalent iff |d| < δ");
}

/*
 * Per-rep intervals (tost.h): the issue-13 example, Welch with Satterthwaite
 * df from scipy 1.10.1 (stats.t.ppf) and numpy var(ddof=1); the binomial
 * floor at zero spread (tests/unit/stats-vectors.py, "per-rep intervals").
 */
static void perrep(struct run *r)
{
	const double W1[5] = {.95, .93, .96, .94, .92}, W2[5] = {.92, .91, .93, .90, .935};
	const double D1[2] = {1, 1}, D2[2] = {.99, .99};
	struct gp_tint ti;
	struct gp_tost t;
	double fa = gp_binom_floor_var(200, 200, 2), fb = gp_binom_floor_var(198, 200, 2);

	gp_welch_interval(W1, 5, 0, W2, 5, 0, 0.95, &ti);
	near(r, ti.lo, -0.0010353871092423465, 1e-9, "Welch 95% lo of the 5-rep example = scipy (inconclusive)");
	near(r, ti.hi, 0.043035387109242165, 1e-9, "Welch 95% hi of the 5-rep example = scipy");
	near(r, ti.df, 7.922506577373839, 1e-10, "Welch–Satterthwaite df of the example");
	gp_t_interval(W2, 5, 0, 0.95, &ti);
	near(r, ti.half_width, 0.017777922946993836, 1e-12, "noise floor half-width = t.ppf(.975, 4) s/√5");
	gp_welch_interval(D1, 2, fa, D2, 2, fb, 0.95, &ti);
	check(r, ti.degenerate && ti.floored && ti.hi - ti.lo > 0.1,
	      "zero spread between reps: binomial floor, never a zero-width interval");
	near(r, ti.lo, -0.04794900263885513, 1e-9, "floored Welch lo = scipy with the Jeffreys floors");
	gp_tost_welch_floor(D1, 2, fa, D2, 2, fb, 0.02, 0.05, &t);
	check(r, t.p > 0 && !t.equivalent, "floored TOST at zero spread: p > 0, not equivalent");
}

/* The gates' pure decisions at their edges (gate.h, stats.h). */
static void gates(struct run *r)
{
	check(r, gp_gate_add_reps(3, 0.01, 5, 0.10, 0) == 2, "add reps: 3 of 5 → add 2");
	check(r, gp_gate_add_reps(6, 0.2, 5, 0.10, 10) == 4, "add reps: CV over, cap 10 → run to the cap");
	check(r, gp_gate_add_reps(6, 0.2, 5, 0.10, 0) == 6, "add reps: CV over, no cap → double");
	check(r, gp_gate_add_reps(5, 0.10, 5, 0.10, 0) == 0, "add reps: CV at the bound → 0 (≤)");
	check(r, gp_gate_backend_timeout("http_status", 504, NULL) == 1, "backend timeout: http 504");
	check(r, gp_gate_backend_timeout("http_status", 500, "upstream timed out") == 1,
	      "backend timeout: 'timed out' in the server's message");
	check(r, gp_gate_backend_timeout("timeout", 0, NULL) == 0,
	      "the client's deadline is not a backend timeout");
	near(r, gp_gate_counter_delta(10, 4), 4, 0, "counter reset: increase = after");
	near(r, gp_gate_counter_delta(10, 25), 15, 0, "counter increase = after − before");
	check(r, gp_gate_miss_climb(90, 100, 0.9) == 1 && gp_gate_miss_climb(89, 100, 0.9) == 0,
	      "miss climb at 0.9 per request, exactly at the edge");
}

/*
 * BCa on a fixed sample with fixed resamples: indices splitmix64(12345) % 25,
 * 2000 resamples; reference from scipy 1.10's own _bca_interval on the same
 * bootstrap distribution, then np.percentile (tests/unit/stats-vectors.py).
 */
static int bca(struct run *r)
{
	enum { NB = 2000, N = 25 };
	double *ts = malloc(NB * sizeof(*ts)), x[N];
	uint64_t seed = 12345;
	struct gp_ci ci;

	if (!ts)
		return -1;
	for (int b = 0; b < NB; b++) {
		for (int i = 0; i < N; i++)
			x[i] = S1[gp_splitmix64(&seed) % N];
		gp_sort_doubles(x, N);
		ts[b] = gp_quantile_sorted(x, N, 0.9);
	}
	near(r, gp_boot_quantile_accel(S1, N, 0.9), 0.07578568667039733, 1e-12, "BCa jackknife a of p90 = scipy a_hat");
	gp_ci_from_dist(ts, NB, gp_quantile_sorted(S1, N, 0.9), gp_boot_quantile_accel(S1, N, 0.9), 1, 0.95, &ci);
	near(r, ci.z0, 0.04638925570538985, 1e-12, "BCa z0 of p90 = scipy");
	near(r, ci.lo, 71.06, 1e-9, "BCa p90 lo = scipy");
	near(r, ci.hi, 190.4, 1e-9, "BCa p90 hi = scipy");
	free(ts);

	/* Degenerate: all-equal sample → a point, never NaN. */
	double same[10];
	const double p50 = 0.5;
	struct gp_rng rng;
	for (int i = 0; i < 10; i++)
		same[i] = 3.0;
	gp_rng_seed(&rng, 1);
	if (gp_boot_quantiles(same, 10, &p50, 1, 200, 0.95, &rng, &ci))
		return -1;
	check(r, ci.degenerate && ci.lo == 3.0 && ci.hi == 3.0, "BCa of an all-equal sample: degenerate point, no NaN");
	return 0;
}

int gp_statcheck_run(gp_statcheck_fn *report, void *ctx)
{
	struct run r = {report, ctx, 0};

	good_mask(&r);
	quantiles_cv(&r);
	stability(&r);
	tost(&r);
	perrep(&r);
	gates(&r);
	if (bca(&r))
		return -1;
	return r.failed;
}
