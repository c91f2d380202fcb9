/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of validity: each rule of method §8.1 at its thresholds (exactly
 * at a bound, one past it) and with its evidence missing (not checked, and
 * with strict a reason).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "method/validity.h"

#define S(x) ((int64_t)(x) * 1000000000LL)

/* A run that passes every rule, with every piece of evidence present. */
static struct gp_run_evidence good_run(void)
{
	struct gp_run_evidence e;

	memset(&e, 0, sizeof(e));
	e.rate = 2;
	e.n_req = 10;
	e.paired = 10;
	e.have_framing_trailer = 1;
	e.have_behind = e.have_capped = e.have_interrupted = e.have_achieved = 1;
	e.achieved = 2;
	e.have_start = e.have_end = 1;
	e.start_ns = S(100);
	e.end_ns = S(110);
	e.arm = "a";
	e.run_id = "r1";
	e.url = "http://vip";
	return e;
}

/* The gateway recreated in arm a at 88 s, a good probe of a at 95 s. */
static struct gp_gateway_ev GW[] = { { "a", "g1", "t88", S(88) } };
static struct gp_probe_ev PR[] = {
	{ "a", "http://vip", "p1", NULL, "t95", "engaged", S(95), 1, 0 },
};
static struct gp_probe_ev *probes = PR;
static size_t n_probes = 1, n_gw = 1;

/* Health: a good round before the run, and one after it. */
static struct gp_health_check H[] = {
	{ S(90), 0, GP_HEALTH_VIP, 1, "http://vip", "t90", NULL, 0 },
	{ S(91), 1, GP_HEALTH_BACKEND, 1, "http://b1", "t91", NULL, 0 },
	{ S(92), 2, GP_HEALTH_SUMMARY, 1, NULL, "t92", NULL, 0 },
	{ S(120), 3, GP_HEALTH_VIP, 1, "http://vip", "t120", NULL, 0 },
	{ S(121), 4, GP_HEALTH_BACKEND, 1, "http://b1", "t121", NULL, 0 },
	{ S(122), 5, GP_HEALTH_SUMMARY, 1, NULL, "t122", NULL, 0 },
};
#define NH (sizeof(H) / sizeof(H[0]))

static struct gp_run_verdict V;
static struct gp_health_round *last_rounds;
static size_t last_n;

/* The round before the run (the first) was marked used by the last judge. */
static int w_used(void)
{
	return last_n > 0 && last_rounds[0].used;
}

/* Judge e with the checks h; returns the number of reasons. */
static size_t judge_h(const struct gp_run_evidence *e, struct gp_health_check *h, size_t n,
		      int strict)
{
	struct gp_health_round *r;
	size_t nr;

	struct gp_window w;

	if (gp_validity_rounds(h, n, &r, &nr))
		abort();
	w = (struct gp_window){ h, n, r, nr, probes, n_probes, GW, n_gw, S(60) };
	gp_run_verdict_release(&V);
	if (gp_validity_judge(e, &w, strict, &V))
		abort();
	free(last_rounds);
	last_rounds = r;
	last_n = nr;
	return json_array_size(V.reasons);
}

static size_t judge(const struct gp_run_evidence *e, int strict)
{
	struct gp_health_check h[NH];

	memcpy(h, H, sizeof(H));
	return judge_h(e, h, NH, strict);
}

static const char *reason0(void)
{
	return json_string_value(json_array_get(V.reasons, 0));
}

static const char *flag0(void)
{
	return json_string_value(json_array_get(V.flags, 0));
}

static void test_kept(void)
{
	struct gp_run_evidence e = good_run();

	is_int(judge(&e, 1), 0, "a run with all its evidence and nothing wrong: no reason, even strict");
	ok(!V.discarded, "kept");
	for (int k = 0; k < GP_N_RULES; k++)
		ok(V.checked[k] && !V.hit[k], "rule %s checked, not hit", gp_rule_name[k]);
	is_int(json_array_size(V.flags), 0, "no flag");
}

static void test_requests(void)
{
	struct gp_run_evidence e;

	memset(&e, 0, sizeof(e));
	gp_validity_note_request(&e, "ok", NULL, 200, NULL, 100, 10);
	gp_validity_note_request(&e, "ok", NULL, 200, NULL, 100, NAN);
	gp_validity_note_request(&e, "single_token", NULL, 200, NULL, 100, NAN);
	gp_validity_note_request(&e, "failed", "hang", 200, NULL, 80, NAN);
	gp_validity_note_request(&e, "failed", "hang", 200, NULL, NAN, NAN);
	gp_validity_note_request(&e, "failed", "truncated", 200, NULL, 80, NAN);
	gp_validity_note_request(&e, "failed", "invalid_framing", 200, NULL, NAN, NAN);
	gp_validity_note_request(&e, "failed", "timeout", 0, NULL, NAN, NAN);
	gp_validity_note_request(&e, "failed", "http_status", 504, "gateway", NAN, NAN);
	gp_validity_note_request(&e, "failed", "reset", 0, "prefill timed out", NAN, NAN);
	is_int(e.n_req, 10, "every request counted");
	is_int(e.paired, 1, "paired: ok with both latencies only");
	is_int(e.hang, 1, "a hang counts only after the first token");
	is_int(e.truncated, 1, "truncated");
	is_int(e.framing_req, 1, "invalid framing");
	is_int(e.timeouts, 2, "504 and a server's 'timed out'; not the client's deadline");
	is_str(e.timeout_example, "http 504", "the first backend timeout is the example");
	gp_run_evidence_release(&e);
	ok(e.timeout_example == NULL, "released");
}

static void test_stream_rules(void)
{
	struct gp_run_evidence e = good_run();

	e.framing_trailer = 1;
	judge(&e, 0);
	ok(V.hit[GP_RULE_FRAMING] && V.discarded, "one invalid framing in the trailer discards");
	is_str(reason0(), "invalid_framing: 1 request", "singular reason");
	e = good_run();
	e.framing_req = 2;
	e.framing_trailer = 1;
	judge(&e, 0);
	is_str(reason0(), "invalid_framing: 2 requests", "the larger of records and trailer");
	e = good_run();
	e.have_framing_trailer = 0;
	judge(&e, 0);
	ok(!V.checked[GP_RULE_FRAMING] && !V.discarded, "no framing count: not checked, kept");
	is_int(judge(&e, 1), 1, "strict: one reason");
	is_str(reason0(), "not_checked: invalid_framing", "strict: not_checked: invalid_framing");

	e = good_run();
	e.hang_trailer = 1;
	e.truncated = 3;
	is_int(judge(&e, 0), 2, "hang and truncated: two reasons under one rule");
	is_str(reason0(), "hang: 1 request", "the hang first");
	is_str(json_string_value(json_array_get(V.reasons, 1)), "truncated: 3 requests", "then truncated");
	ok(V.hit[GP_RULE_HANG], "rule hang_truncated");

	e = good_run();
	e.timeouts = 1;
	e.timeout_example = "http 408";
	judge(&e, 0);
	is_str(reason0(), "backend_timeout: 1 request (first: http 408)", "backend timeout reason");

	e = good_run();
	e.paired = 0;
	judge(&e, 0);
	is_str(reason0(), "zero_paired: no ok request with both ttft_ms and tpot_ms (10 attempted)",
	       "zero paired discards");
	e.paired = 1;
	is_int(judge(&e, 0), 0, "one paired request is enough");
}

static void test_client_behind(void)
{
	struct gp_run_evidence e = good_run();	/* 2 rps: mean gap 500 ms */

	e.behind = 1;
	e.late_p99 = 250;		/* exactly half the gap */
	e.late_max = 500;		/* exactly one gap */
	is_int(judge(&e, 0), 0, "p99 at half the gap and max at one gap: kept");
	is_int(json_array_size(V.flags), 1, "and flagged");
	is_str(flag0(), "client_behind: send lateness p99 250 ms, max 500 ms, within the tolerance "
	       "of the 500 ms mean gap", "the flag");
	e.late_p99 = 250.001;
	is_int(judge(&e, 0), 1, "p99 just past half the gap: discarded");
	ok(V.hit[GP_RULE_BEHIND], "by client_behind");
	e.late_p99 = 1;
	e.late_max = 500.001;
	is_int(judge(&e, 0), 1, "max just past one gap: discarded");
	e.rate = 0;
	e.late_max = 0;
	is_int(judge(&e, 0), 1, "behind with no rate (no gap): discarded");
	e = good_run();
	e.late_p99 = 1e6;
	is_int(judge(&e, 0), 0, "lateness without client_behind is not judged");
	e.have_behind = 0;
	judge(&e, 0);
	ok(!V.checked[GP_RULE_BEHIND], "no client_behind field: not checked");
}

static void test_capped_interrupted(void)
{
	struct gp_run_evidence e = good_run();

	e.capped = 1;
	judge(&e, 0);
	is_str(reason0(), "capped_sends: 1 send held back by --max-inflight", "one capped send discards");
	e.capped = 0;
	e.interrupted = 1;
	judge(&e, 0);
	is_str(reason0(), "interrupted: a signal stopped the run; its rep is incomplete", "interrupted");
	e = good_run();
	e.have_capped = e.have_interrupted = 0;
	is_int(judge(&e, 1), 2, "strict: both not checked");
	is_str(reason0(), "not_checked: capped_sends", "in rule order");
}

static void test_achieved_rate(void)
{
	struct gp_run_evidence e = good_run();

	/* 0.05 and 0.10 are not exact in binary, so "exactly at the bound"
	 * is tested as one part in 10^9 either side of it. */
	e.rate = 4;
	e.achieved = 4.2 - 1e-9;
	is_int(judge(&e, 0), 0, "just under +5 %%: kept");
	is_int(json_array_size(V.flags), 0, "just under +5 %%: not flagged");
	e.achieved = 4.2 + 1e-9;
	judge(&e, 0);
	is_int(json_array_size(V.flags), 1, "just over +5 %%: flagged");
	e.achieved = 4 * 0.95 - 1e-9;
	judge(&e, 0);
	is_int(json_array_size(V.flags), 1, "just past -5 %%: flagged");
	e.rate = 5;
	e.achieved = 5.5 - 1e-9;	/* just under +10 % */
	is_int(judge(&e, 0), 0, "just under +10 %%: kept");
	is_int(json_array_size(V.flags), 1, "and flagged");
	e.achieved = 5.5 + 1e-9;
	is_int(judge(&e, 0), 1, "just over +10 %%: discarded");
	is_str(reason0(), "achieved_rate: 5.5 req/s against the label 5 (+10.0 %, bound 10.0 %)",
	       "the reason");
	e.achieved = 4.5 - 1e-9;
	is_int(judge(&e, 0), 1, "just past -10 %%: discarded");
	e.poisson = 1;
	e.n_req = 101;			/* bound 10 % + 3/√100 = 40 % */
	e.achieved = 5 * 1.3999;
	is_int(judge(&e, 0), 0, "poisson, 100 gaps: +39.99 %% is within 40 %%");
	e.achieved = 5 * 1.4001;
	is_int(judge(&e, 0), 1, "poisson: +40.01 %% is not");
	e = good_run();
	e.have_achieved = 0;
	judge(&e, 0);
	ok(!V.checked[GP_RULE_RATE], "no achieved_rps: not checked");
	e.rate = 0;
	judge(&e, 0);
	ok(V.checked[GP_RULE_RATE], "a label of 0: nothing to hold it to, checked");

	/* A session replay: 4 sends a session, the label the session starts. */
	e = good_run();
	e.rate = 5;
	e.achieved = 20;
	is_int(judge(&e, 0), 1, "sessions without starts: every send held to the label, discarded");
	e.have_achieved_start = 1;
	e.achieved_start = 5.1;
	e.n_start = 10;
	is_int(judge(&e, 0), 0, "with achieved_start_rps: the starts held to the label, kept");
	ok(V.checked[GP_RULE_RATE], "... and checked");
	e.achieved_start = 5.5 + 1e-9;
	is_int(judge(&e, 0), 1, "starts 10 %% over: discarded");
	is_str(reason0(), "achieved_rate: 5.5 req/s against the label 5 (+10.0 %, bound 10.0 %)",
	       "... naming the start rate");
	e.poisson = 1;
	e.n_req = 10001;		/* the bound comes from the starts' count: 3/√9 */
	e.achieved_start = 5 * 2.1001;
	is_int(judge(&e, 0), 1, "poisson, 9 start gaps: +110.01 %% is past 10 %% + 3/3");
	e.achieved_start = 5 * 2.0999;
	is_int(judge(&e, 0), 0, "... +109.99 %% is within it: the starts' n sets the bound, not the sends' 10001");
}

static void test_health(void)
{
	struct gp_health_check h[NH];
	struct gp_run_evidence e = good_run();

	memcpy(h, H, sizeof(H));
	h[3].ok = 0;			/* the round after the run: vip fails */
	is_int(judge_h(&e, h, NH, 0), 1, "a failing vip_chat in the round after the run discards");
	is_str(reason0(), "vip_200: vip_chat check of http://vip failed at t120", "the reason");
	memcpy(h, H, sizeof(H));
	h[1].ok = 0;			/* the round before: a backend fails */
	judge_h(&e, h, NH, 0);
	ok(V.hit[GP_RULE_BACKEND] && !V.hit[GP_RULE_VIP], "a failing backend in the round before");

	/* Exactly at the bounds: the round before ends at the run's start. */
	memcpy(h, H, sizeof(H));
	h[1].ok = 0;
	h[2].at = S(100);
	is_int(judge_h(&e, h, NH, 0), 1, "a round that ends exactly at the start is the round before");
	/* A failing check older than the round before is outside the window. */
	{
		struct gp_health_check h2[NH + 3];

		memcpy(h2, H, sizeof(H));
		h2[NH] = (struct gp_health_check){ S(30), 6, GP_HEALTH_VIP, 0, "http://vip", "t30", NULL, 0 };
		h2[NH + 1] = (struct gp_health_check){ S(31), 7, GP_HEALTH_BACKEND, 0, "b", "t31", NULL, 0 };
		h2[NH + 2] = (struct gp_health_check){ S(32), 8, GP_HEALTH_SUMMARY, 1, NULL, "t32", NULL, 0 };
		is_int(judge_h(&e, h2, NH + 3, 0), 0, "a failing round over W = 60 s before the start: kept");
		memcpy(h2, H, sizeof(H));	/* judge_h sorted h2 */
		h2[NH] = (struct gp_health_check){ S(50), 6, GP_HEALTH_VIP, 0, "http://vip", "t50", NULL, 0 };
		h2[NH + 1] = (struct gp_health_check){ S(51), 7, GP_HEALTH_BACKEND, 0, "b", "t51", NULL, 0 };
		h2[NH + 2] = (struct gp_health_check){ S(52), 8, GP_HEALTH_SUMMARY, 1, NULL, "t52", NULL, 0 };
		is_int(judge_h(&e, h2, NH + 3, 0), 2, "a failing round 48 s before, inside W: discarded, "
		       "though a good round follows (a good round never covers a bad one)");
	}
	/* No health at all, or no time for the run: not checked. */
	is_int(judge_h(&e, NULL, 0, 0), 0, "no health records: kept");
	ok(!V.checked[GP_RULE_VIP] && !V.checked[GP_RULE_BACKEND], "and not checked");
	is_int(judge_h(&e, NULL, 0, 1), 3, "strict: vip_200, backend_health and kv_events not checked");
	e.have_start = e.have_end = 0;
	memcpy(h, H, sizeof(H));
	h[0].ok = 0;
	judge_h(&e, h, NH, 0);
	ok(!V.checked[GP_RULE_VIP] && !V.discarded, "a run without times has no window");
	/* Only the run's end known: the window is the end's neighbourhood. */
	e.have_end = 1;
	memcpy(h, H, sizeof(H));
	h[3].ok = 0;
	is_int(judge_h(&e, h, NH, 0), 1, "only ended_at: the round after still counts");
}

/* The evidence windows: W, the VIP, the run a round or probe was taken for,
 * the gateway's recreations. */
static void test_windows(void)
{
	struct gp_health_check h[NH];
	struct gp_run_evidence e = good_run();
	struct gp_probe_ev pr[1];

	memcpy(h, H, sizeof(H));
	for (int i = 0; i < 3; i++)
		h[i].at -= S(40);		/* the round before ends at 52 s: 48 s before */
	judge_h(&e, h, NH, 0);
	ok(V.checked[GP_RULE_VIP], "a round that ended 48 s before the start covers it (W 60 s)");
	for (int i = 0; i < 3; i++)
		h[i].at -= S(20);		/* now 68 s before */
	judge_h(&e, h, NH, 0);
	ok(!V.checked[GP_RULE_VIP] && !V.checked[GP_RULE_BACKEND],
	   "a round that ended 68 s before: stale, covers nothing");
	memcpy(h, H, sizeof(H));
	h[3].target = "http://other-vip";
	judge_h(&e, h, NH, 0);
	ok(!V.checked[GP_RULE_VIP] && V.checked[GP_RULE_BACKEND],
	   "the round after checked another VIP: vip_200 not checked");
	memcpy(h, H, sizeof(H));
	h[0].for_run = "r0";
	judge_h(&e, h, NH, 0);
	ok(!V.checked[GP_RULE_VIP], "a round taken for another run does not cover this one");
	h[0].for_run = "r1";
	judge_h(&e, h, NH, 0);
	ok(V.checked[GP_RULE_VIP] && w_used(), "a round taken for this run covers it, and is used");
	{
		struct gp_health_check h2[NH + 1];

		memcpy(h2, H, sizeof(H));
		h2[NH] = (struct gp_health_check){ S(97), 6, GP_HEALTH_KV, 0, "http://vip", "t97", NULL, 0 };
		is_int(judge_h(&e, h2, NH + 1, 0), 1, "a failed KV-events precheck 3 s before: discarded");
		is_str(reason0(), "kv_events: the KV-events precheck of http://vip failed at t97", "why");
	}

	/* Probes. */
	probes = pr;
	pr[0] = PR[0];
	pr[0].at = S(105);
	judge(&e, 0);
	ok(!V.checked[GP_RULE_PROBE], "a probe that ended during the run does not cover it");
	pr[0] = PR[0];
	pr[0].at = S(87);
	judge(&e, 0);
	ok(!V.checked[GP_RULE_PROBE], "a probe before the gateway's last recreation (88 s): not covered");
	pr[0] = PR[0];
	pr[0].arm = "b";
	judge(&e, 0);
	ok(!V.checked[GP_RULE_PROBE], "a probe of another arm: not covered");
	pr[0] = PR[0];
	pr[0].vip = "http://other-vip";
	judge(&e, 0);
	ok(!V.checked[GP_RULE_PROBE], "a probe through another VIP: not covered");
	pr[0] = PR[0];
	pr[0].for_run = "r0";
	judge(&e, 0);
	ok(!V.checked[GP_RULE_PROBE], "a probe taken for another run: not covered");
	pr[0] = PR[0];
	pr[0].ok = 0;
	is_int(judge(&e, 0), 1, "a failed probe of the arm before the run: discarded");
	is_str(reason0(), "probe: the probe p1 of arm a at t95 failed: engaged", "why");
	pr[0] = PR[0];
	judge(&e, 1);
	ok(V.checked[GP_RULE_PROBE] && !V.discarded, "the good probe covers it");
	probes = PR;

	/* The gateway. */
	{
		struct gp_gateway_ev gw[2] = { GW[0], { "b", "g2", "t99", S(99) } };
		struct gp_window w;
		struct gp_health_round *r;
		size_t nr;

		memcpy(h, H, sizeof(H));
		if (gp_validity_rounds(h, NH, &r, &nr))
			abort();
		w = (struct gp_window){ h, NH, r, nr, PR, 1, gw, 2, S(60) };
		gp_run_verdict_release(&V);
		is_int(gp_validity_judge(&e, &w, 0, &V), 0, "judged");
		ok(V.hit[GP_RULE_GATEWAY], "the gateway last recreated in another arm before the run: discarded");
		is_str(reason0(), "gateway: the gateway was last recreated at t99 in arm b, not a", "why");
		gw[1] = (struct gp_gateway_ev){ "a", "g2", "t105", S(105) };
		gp_run_verdict_release(&V);
		is_int(gp_validity_judge(&e, &w, 0, &V), 0, "judged");
		is_str(reason0(), "gateway: the gateway was recreated during the run, at t105 (generation g2)",
		       "recreated during the run: discarded");
		w.n_gw = 0;
		gp_run_verdict_release(&V);
		is_int(gp_validity_judge(&e, &w, 0, &V), 0, "judged");
		ok(!V.checked[GP_RULE_GATEWAY] && V.checked[GP_RULE_PROBE],
		   "no gateway records: the gateway rule not checked, a probe still covers");
		free(r);
	}

	/* Two run ids for one (arm, rate, rep). */
	e.other_id = "r1-other";
	is_int(judge(&e, 0), 1, "two runs in one key: discarded");
	is_str(reason0(), "mixed_runs: two runs, r1 and r1-other, are this one (arm, rate, rep): records "
	       "of two campaigns?", "why");
}

static void test_shards(void)
{
	struct gp_run_evidence e = good_run();

	gp_validity_note_shard(&e, 1, 2, 0);
	gp_validity_note_shard(&e, 1, 2, 1);
	gp_validity_note_shard(&e, 2, 2, 0);
	is_int(judge(&e, 0), 1, "shard 2 of 2 without its run_end: discarded");
	is_str(reason0(), "missing_shard: 1 of 2 shards incomplete (first: 2/2, no run_end)", "why");
	gp_validity_note_shard(&e, 2, 2, 1);
	is_int(judge(&e, 1), 0, "every shard once: kept, even strict");
	ok(V.checked[GP_RULE_SHARDS], "shards checked");
	gp_validity_note_shard(&e, 2, 2, 1);
	judge(&e, 0);
	is_str(reason0(), "duplicate_shard: shard 2/2 has 1 run headers and 2 run_ends (merged twice?)",
	       "a shard's run_end twice: duplicate");
	gp_run_evidence_release(&e);
	e = good_run();
	gp_validity_note_shard(&e, 1, 2, 0);
	gp_validity_note_shard(&e, 1, 3, 0);
	judge(&e, 0);
	is_str(reason0(), "missing_shard: shards of 2 and of 3 in one run", "two shard counts in one run");
	gp_run_evidence_release(&e);
	e = good_run();
	is_int(judge(&e, 0), 0, "no shard fields: one unsharded file, kept");
	ok(V.checked[GP_RULE_SHARDS], "and checked");
}

static void test_rounds(void)
{
	struct gp_health_check h[] = {
		{ S(5), 0, GP_HEALTH_VIP, 1, NULL, "", NULL, 0 },
		{ S(1), 1, GP_HEALTH_VIP, 1, NULL, "", NULL, 0 },
		{ S(2), 2, GP_HEALTH_SUMMARY, 1, NULL, "", NULL, 0 },
		{ S(5), 3, GP_HEALTH_SUMMARY, 1, NULL, "", NULL, 0 },
		{ S(9), 4, GP_HEALTH_OTHER, 1, NULL, "", NULL, 0 },
	};
	struct gp_health_round *r;
	size_t n = 0;

	is_int(gp_validity_rounds(h, 5, &r, &n), 0, "rounds: returns 0");
	is_int(n, 3, "two summaries and a trailing check: three rounds");
	ok(n == 3 && r[0].start == S(1) && r[0].end == S(2), "round 1 is 1..2 (sorted by time)");
	ok(n == 3 && r[1].start == S(5) && r[1].end == S(5) && h[3].order == 3,
	   "round 2 is 5..5: ties keep input order, the summary after the check");
	ok(n == 3 && r[2].start == S(9) && r[2].end == S(9), "round 3 has no summary");
	free(r);
	is_int(gp_validity_rounds(h, 0, &r, &n), 0, "no checks: returns 0");
	is_int(n, 0, "no checks: no rounds");
	ok(r == NULL, "and NULL");
}

/* The client's own limit and the emulator's lag (validity.h's bounds). */
static void test_own(void)
{
	struct gp_run_evidence e = good_run();

	gp_validity_note_request(&e, "failed", "client_limit", 0, "the client's own limit: …", NAN, NAN);
	is_int(e.client_limit, 1, "a client_limit request counted");
	is_int(judge(&e, 0), 1, "one client_limit request discards the run");
	ok(V.hit[GP_RULE_CLIENT_LIMIT] && !strncmp(reason0(), "client_limit: 1 request failed on the "
						   "client's own limit", 43), "client_limit: %s", reason0());
	e = good_run();
	/* 10000 tokens between the snapshots; late = 10000 - on-time. */
	gp_validity_note_lag(&e, 0, 500, 500);
	gp_validity_note_lag(&e, 1, 10500, 10400);
	is_int(judge(&e, 1), 0, "100 late of 10000 (1 %%, at the bound, exclusive): kept");
	gp_validity_note_lag(&e, 1, 0, -1);	/* a second target: one more late */
	is_int(judge(&e, 1), 1, "101 late of 10000 (over 1 %%): discarded");
	is_str(reason0(), "emulator_behind: gp-sim wrote 101 of the run's 10000 tokens (1.0 %) more than "
	       "5 ms late (bound: 1 % and 100 tokens): the emulator, not the routing, shaped this run",
	       "emulator_behind names the figure and the bound");
	e = good_run();
	e.sse_by_body = 2;
	e.usage_contradicted = 1;
	is_int(judge(&e, 1), 0, "sse_by_body and usage_contradicted: kept,");
	is_int(json_array_size(V.flags), 2, "and flagged");
	is_str(flag0(), "sse_by_body: 2 responses read as event streams by their body, not their Content-Type",
	       "the flag says how many");
	e = good_run();
	gp_validity_note_lag(&e, 0, 0, 0);
	gp_validity_note_lag(&e, 1, 1000, 901);
	is_int(judge(&e, 1), 0, "99 late of 1000 (9.9 %%, under 100 tokens): kept");
	e = good_run();
	gp_validity_note_lag(&e, 1, 1000, 0);
	is_int(judge(&e, 1), 0, "no before snapshot: the lag of the run is unknown, not judged");
	ok(V.checked[GP_RULE_EMULATOR], "and the rule counts as checked (no emulator figure to judge)");
}

int main(void)
{
	test_kept();
	test_requests();
	test_stream_rules();
	test_client_behind();
	test_capped_interrupted();
	test_achieved_rate();
	test_health();
	test_shards();
	test_windows();
	test_rounds();
	test_own();
	gp_run_verdict_release(&V);
	return done_testing();
}
