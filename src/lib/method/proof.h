/* SPDX-License-Identifier: MIT */
/*
 * proof — the dual proof of gp-verify publish (method §8.3): that a
 * cache-aware arm's gateway really decided by the cache (decision proof) and
 * that a disaggregated arm's requests really went the way it says (delivery
 * proof).  Documented in gp-verify(1), "Dual proof".
 *
 * What it decides, and from what evidence:
 *   decision — for an arm whose fleet entry routes_by_cache: per replay of
 *     the arm (a run with a run header, requests or a run_end; a gp-probe
 *     burst proves the mode, never a replay's decision) that has
 *     before/after metrics snapshots of its own, the increase of the hit
 *     counter (the gateway's cache_hit_metric summed over label sets and
 *     targets, or without one the backends' vllm:prefix_cache_hits_total),
 *     of the gateway's miss_metric and of the backends' prefix-cache queries,
 *     and the run's attempted requests (its run_end's, else its request
 *     records).  It holds when the hit counter moved in every such replay
 *     and, with a gateway miss counter, no replay's misses reached
 *     miss_ratio × attempted (gp_gate_miss_climb).  A replay without
 *     snapshots of its own is not checked: with any, the decision is
 *     GP_PROOF_UNKNOWN unless a scraped replay failed.
 *   delivery — for an arm that expects receipts (gp_proof_expects_receipt):
 *     every completed (ok or single-token) request carried a non-empty
 *     receipt.
 * Evidence that is absent gives ok = GP_PROOF_UNKNOWN with evidence
 * "not_checked"; an arm that needs no proof gets "not_applicable".
 *
 * Ownership: the metric names are borrowed during the call; the detail
 * string of a result is allocated and the caller frees it; evidence is a
 * static string.
 */
#ifndef GP_PROOF_H
#define GP_PROOF_H

#include <stddef.h>

enum { GP_PROOF_UNKNOWN = -1, GP_PROOF_FAIL = 0, GP_PROOF_OK = 1 };

/* One replay of the arm: counter increases between its snapshots. */
struct gp_proof_run {
	const char *id;				/* its run id, for the lists */
	int have_hit, have_miss, have_query;	/* both snapshots carry the counter */
	double hit, miss, query;		/* increases (gp_gate_counter_delta) */
	double attempted;
};

struct gp_proof_metrics {
	const char *hit;	/* the gateway's cache_hit_metric, NULL: none */
	const char *miss;	/* the gateway's miss_metric, NULL: none */
	const char *vhit;	/* the backends' hit counter (used without hit) */
	const char *vquery;	/* the backends' query counter */
};

struct gp_proof {
	int ok;			/* GP_PROOF_OK, GP_PROOF_FAIL or GP_PROOF_UNKNOWN */
	const char *evidence;	/* "gateway_counters", "backend_prefix_cache", "receipt",
				   "not_applicable" or "not_checked" */
	char *detail;		/* what was compared, or why not */
	long replays;		/* the arm's replays */
	long unscraped;		/* of those, without snapshots of their own */
	char *not_moved;	/* ids of the replays whose hit counter did not move
				   or whose misses climbed ("a, b"), or NULL */
	char *not_scraped;	/* ids of the unscraped replays, or NULL */
};

/* Free the strings of a proof. */
void gp_proof_release(struct gp_proof *p);

/*
 * The decision proof of one arm over its replays (only those with snapshots
 * of the hit counter in use are judged; the others are counted unscraped).
 */
void gp_decision_proof(int routes_by_cache, const struct gp_proof_metrics *m,
		       const struct gp_proof_run *runs, size_t n_runs, double miss_ratio,
		       struct gp_proof *out);

/*
 * Whether an arm must carry receipts: its fleet entry's disaggregated (1 yes,
 * 0 no, -1 not given); not given, when the fleet names a receipt_header.
 */
int gp_proof_expects_receipt(int disaggregated, int fleet_has_receipt_header);

/* The delivery proof of one arm: receipts of its completed requests. */
void gp_delivery_proof(int expects_receipt, long completed, long receipts, struct gp_proof *out);

#endif
