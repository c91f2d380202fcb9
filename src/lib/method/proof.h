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
 *     each completed (ok or single-token) request's receipt is judged
 *     against the fleet file (gp_delivery_judge): it must name a prefill
 *     member whose role may prefill (prefill or both) and a different
 *     member whose role may decode (decode or both), each a backend of the
 *     fleet by name or by its URL's host:port.  The proof holds when the
 *     share of completed requests whose receipt is good is at least
 *     min_share (gp-verify --delivery-min-share, default 1: every one).
 * Evidence that is absent gives ok = GP_PROOF_UNKNOWN with evidence
 * "not_checked"; an arm that needs no proof gets "not_applicable".
 *
 * Ownership: the metric names are borrowed during the call; the detail
 * string of a result is allocated and the caller frees it; evidence is a
 * static string.  Both proofs return 0, or -1 when the detail could not be
 * allocated (detail NULL; nothing is printed and nothing exits).
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
int gp_decision_proof(int routes_by_cache, const struct gp_proof_metrics *m,
		      const struct gp_proof_run *runs, size_t n_runs, double miss_ratio,
		      struct gp_proof *out);

/*
 * Whether an arm must carry receipts: its fleet entry's disaggregated (1 yes,
 * 0 no, -1 not given); not given, when the fleet names a receipt_header.
 */
int gp_proof_expects_receipt(int disaggregated, int fleet_has_receipt_header);

/* The delivery proof of one arm: receipts of its completed requests. */
int gp_delivery_proof(int expects_receipt, long completed, long receipts, struct gp_proof *out);

/* How one completed request's receipt stands against the fleet. */
enum gp_receipt_class {
	GP_RC_OK,		/* a prefill member and a different decode member */
	GP_RC_NONE,		/* no receipt */
	GP_RC_UNREAD,		/* a receipt in no shape the reader knows */
	GP_RC_NO_DECODE,	/* a prefill half and no decode half */
	GP_RC_SAME,		/* one member for both halves (aggregated) */
	GP_RC_UNKNOWN,		/* a member that is no backend of the fleet */
	GP_RC_ROLE,		/* a member whose role may not do its half */
	GP_RC_N
};
/* "ok", "no receipt", "unreadable", "no decode half", "one member for both
 * halves", "a member not in the fleet", "a member in the wrong role". */
const char *gp_receipt_class_name(int c);

struct gp_fleet;
/*
 * Judge a receipt: split is gp_receipt_split's result (wire/receipt.h), or
 * GP_RECEIPT_NONE - 1 (-2) when the request carried no receipt; pre and dec
 * the halves.  Members are matched by backend name, then by the host:port of
 * the backend's url.
 */
int gp_delivery_judge(const struct gp_fleet *f, int split, const char *pre, const char *dec);

/*
 * The delivery proof from the judged receipts of an arm's completed
 * requests: counts[c] requests of each class (their sum is the completed
 * count).  OK when counts[GP_RC_OK] / completed >= min_share; the detail
 * names the share and each bad class with its count.  0, or -1 when out of
 * memory (out->detail then NULL or the shorter text).
 */
int gp_delivery_proof_judged(int expects_receipt, const long counts[GP_RC_N], double min_share,
			     struct gp_proof *out);

#endif
