/* SPDX-License-Identifier: MIT */
/*
 * gate — the pure decisions of the verification gates (method §8) that are
 * not statistics: the CV the stability gate judges and how many replicates it
 * asks for (the verdict itself is gp_stability_verdict() in stats.h), the
 * method's thresholds, the evidence of a backend timeout for the validity
 * filter, the counter arithmetic of the dual proof, and a probe's evidence.
 * No I/O, no allocation; every function is a function of its arguments, so
 * the thresholds are tested exactly at their edges.
 */
#ifndef GP_GATE_H
#define GP_GATE_H

/*
 * How many more replicates the stability gate asks for: 0 unless
 * gp_stability_verdict() (stats.h, the verdict itself) says ADD_REPLICATES
 * for these arguments (same meaning: n reps, cv NaN = undefined, rep_cap <= 0 =
 * no cap); then
 *   n < min_reps                          → min_reps − n
 *   CV over the bound, cap set (n < cap)  → rep_cap − n  (run to the cap, where a
 *                                           residual CV may be footnoted)
 *   CV over the bound, no cap             → n  (double the replicates: the CV of
 *                                           the population does not shrink with
 *                                           more reps, but its estimate tightens;
 *                                           a documented heuristic, not a promise)
 */
long gp_gate_add_reps(long n, double cv, long min_reps, double max_cv, long rep_cap);

/*
 * 1 when a failed request is evidence of a backend prefill/processing
 * timeout: error class "http_status" with status 408 or 504; or any other
 * error class whose error_detail (the server's message, may be NULL) contains
 * "timeout", "time-out" or "timed out" in any case.  The client's own doings
 * are not backend timeouts and return 0: error "timeout" (the deadline
 * cancellation), "connect" (a connect timeout) and "cancelled".
 */
int gp_gate_backend_timeout(const char *error, long http_status, const char *detail);

/*
 * The increase of a monotone counter between two snapshots: after − before, or
 * `after` when the counter went down (a reset to zero in between, as
 * Prometheus' increase() assumes).
 */
double gp_gate_counter_delta(double before, double after);

/*
 * 1 when the gateway's miss-reason counter climbed request-for-request over a
 * run: delta_miss >= ratio × attempted (ratio default 0.9: nine misses in ten
 * requests means the gateway fell back to its default policy).  0 when
 * attempted <= 0.
 */
int gp_gate_miss_climb(double delta_miss, double attempted, double ratio);

/*
 * The CV the stability gate judges: the arm_summary's cv (NaN = undefined),
 * except that when every one of at least 2 reps scored a good fraction of 0
 * (mean 0: sd 0, CV undefined) the cell is stable at zero and the CV is taken
 * as 0 (the verdict footnotes it).
 */
double gp_gate_stability_cv(long reps, double cv, double mean);

/*
 * The method's thresholds (method §8.2; doc/design.md, "The rules"): publishable only at
 * N >= GP_METHOD_MIN_REPS reps and CV <= GP_METHOD_MAX_CV, intervals at level
 * >= GP_METHOD_LEVEL.  Looser ones are allowed and the verdict says "relaxed".
 */
#define GP_METHOD_MIN_REPS 5
#define GP_METHOD_MAX_CV 0.10
#define GP_METHOD_LEVEL 0.95

/*
 * Phase 2 evidence of one arm from its probe records: whether any was seen,
 * any confirmed the gateway's mode, any saw the mechanism engage.
 */
enum gp_probe_state { GP_PROBE_OK, GP_PROBE_MISSING, GP_PROBE_NOT_CONFIRMED, GP_PROBE_NOT_ENGAGED };
enum gp_probe_state gp_gate_probe(int seen, int confirmed, int engaged);

#endif
