/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of proof: the decision proof (hit counter moved in every replay,
 * misses below miss_ratio per request, exactly at the ratio a fallback), the
 * backends' prefix cache without a gateway counter, the delivery proof, and
 * missing evidence (not_checked) or none needed (not_applicable).
 */
#include <stdlib.h>
#include <string.h>

#include "method/proof.h"
#include "tap.h"

static const struct gp_proof_metrics GW = { "gw_hits", "gw_miss", "vllm:hits", "vllm:queries" };
static const struct gp_proof_metrics GW_NO_MISS = { "gw_hits", NULL, "vllm:hits", "vllm:queries" };
static const struct gp_proof_metrics BACKENDS = { NULL, NULL, "vllm:hits", "vllm:queries" };

static struct gp_proof P;

static void decide(int routes, const struct gp_proof_metrics *m, const struct gp_proof_run *r,
		   size_t n, double ratio)
{
	gp_proof_release(&P);
	gp_decision_proof(routes, m, r, n, ratio, &P);
}

static void test_decision(void)
{
	struct gp_proof_run r[2] = {
		{ .have_hit = 1, .hit = 30, .have_miss = 1, .miss = 2, .attempted = 40 },
		{ .have_hit = 1, .hit = 25, .have_miss = 1, .miss = 3, .attempted = 40 },
	};

	decide(0, &GW, r, 2, 0.9);
	is_int(P.ok, GP_PROOF_UNKNOWN, "an arm that does not route by cache: no verdict");
	is_str(P.evidence, "not_applicable", "not_applicable");
	decide(1, &GW, r, 2, 0.9);
	is_int(P.ok, GP_PROOF_OK, "hits moved in both runs, few misses: ok");
	is_str(P.evidence, "gateway_counters", "gateway counters");
	is_str(P.detail, "gw_hits +55 over 2 replays (0 did not move); gw_miss +5 over 80 requests "
	       "(0 of 2 replays at or over 0.9 misses per request: fallback)", "detail");
	r[1].hit = 0;
	decide(1, &GW, r, 2, 0.9);
	is_int(P.ok, GP_PROOF_FAIL, "one run whose hit counter did not move: fail");
	r[1].hit = 25;
	r[1].miss = 36;			/* exactly 0.9 x 40 */
	decide(1, &GW, r, 2, 0.9);
	is_int(P.ok, GP_PROOF_FAIL, "misses exactly at 0.9 per request: fallback, fail");
	r[1].miss = 35.999;
	decide(1, &GW, r, 2, 0.9);
	is_int(P.ok, GP_PROOF_OK, "just under 0.9 per request: ok");
	r[1].attempted = 0;
	r[1].miss = 1000;
	decide(1, &GW, r, 2, 0.9);
	is_int(P.ok, GP_PROOF_OK, "a run with no attempted count cannot climb");
	r[1].attempted = 40;
	r[1].have_miss = 0;
	r[0].have_miss = 0;
	decide(1, &GW, r, 2, 0.9);
	is_str(P.detail, "gw_hits +55 over 2 replays (0 did not move); no snapshots of gw_miss",
	       "a miss counter named but never snapshotted");
	decide(1, &GW_NO_MISS, r, 2, 0.9);
	is_str(P.detail, "gw_hits +55 over 2 replays (0 did not move)", "no miss counter named");
	r[0].have_hit = 0;
	r[0].id = "run-a";
	decide(1, &GW, r, 2, 0.9);
	ok(P.ok == GP_PROOF_UNKNOWN && strstr(P.detail, "over 1 replays"),
	   "a replay without snapshots of its own: the others judged, the decision not checked");
	ok(P.unscraped == 1 && P.replays == 2 && P.not_scraped && !strcmp(P.not_scraped, "run-a"),
	   "and it is named: 1 of 2 replays unscraped");
	r[1].hit = 0;
	r[1].id = "run-b";
	decide(1, &GW, r, 2, 0.9);
	ok(P.ok == GP_PROOF_FAIL && P.not_moved && !strcmp(P.not_moved, "run-b"),
	   "a scraped replay that did not move fails the decision, and is named");
	r[1].hit = 25;
	r[1].have_hit = 0;
	decide(1, &GW, r, 2, 0.9);
	is_int(P.ok, GP_PROOF_UNKNOWN, "no run with snapshots: unknown");
	is_str(P.evidence, "not_checked", "not_checked");
	is_str(P.detail, "no before/after metrics snapshots of gw_hits for this arm's 2 replays", "why");
	decide(1, &GW, NULL, 0, 0.9);
	is_int(P.ok, GP_PROOF_UNKNOWN, "no runs at all: unknown");
}

static void test_backends(void)
{
	struct gp_proof_run r[2] = {
		{ .have_hit = 1, .hit = 30, .have_query = 1, .query = 60, .attempted = 40 },
		{ .have_hit = 1, .hit = 10, .have_query = 1, .query = 20, .attempted = 40,
		  .have_miss = 1, .miss = 40 },
	};

	decide(1, &BACKENDS, r, 2, 0.9);
	is_int(P.ok, GP_PROOF_OK, "backends' prefix cache moved in both runs: ok");
	is_str(P.evidence, "backend_prefix_cache", "backend_prefix_cache");
	is_str(P.detail, "no gateway cache_hit_metric; backends' vllm:hits +40 over 2 replays (0 did not "
	       "move), vllm:queries +80 (hit ratio 0.5)", "detail with the hit ratio");
	r[0].hit = 0;
	decide(1, &BACKENDS, r, 2, 0.9);
	is_int(P.ok, GP_PROOF_FAIL, "one run did not move: fail (misses are not read here)");
}

static void test_delivery(void)
{
	ok(gp_proof_expects_receipt(1, 0), "disaggregated: receipts expected");
	ok(!gp_proof_expects_receipt(0, 1), "disaggregated false overrides a receipt_header");
	ok(gp_proof_expects_receipt(-1, 1), "not given, with a receipt_header: expected");
	ok(!gp_proof_expects_receipt(-1, 0), "not given, no receipt_header: not expected");
	gp_proof_release(&P);
	gp_delivery_proof(1, 10, 10, &P);
	ok(P.ok == GP_PROOF_OK && !strcmp(P.evidence, "receipt"), "every completed request has one");
	is_str(P.detail, "10 of 10 completed requests carried a receipt", "detail");
	gp_proof_release(&P);
	gp_delivery_proof(1, 10, 9, &P);
	is_int(P.ok, GP_PROOF_FAIL, "one missing: fail");
	gp_proof_release(&P);
	gp_delivery_proof(1, 0, 0, &P);
	ok(P.ok == GP_PROOF_UNKNOWN && !strcmp(P.evidence, "not_checked"),
	   "no completed request: not checked");
	gp_proof_release(&P);
	gp_delivery_proof(0, 10, 0, &P);
	ok(P.ok == GP_PROOF_UNKNOWN && !strcmp(P.evidence, "not_applicable"),
	   "no receipt expected: not applicable");
}

int main(void)
{
	test_decision();
	test_backends();
	test_delivery();
	gp_proof_release(&P);
	return done_testing();
}
