/* SPDX-License-Identifier: MIT */
/* Unit tests of design: each gate both ways, the waiver, the feasibility
 * arithmetic at its edge, the answer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "method/design.h"
#include "tap.h"

/* A fleet of two backends b1, b2 and arms rr, hash: hash's disaggregated
 * absent (dis 0), true (1) or false (2). */
static void fleet(struct gp_fleet *f, int dis)
{
	char err[256], text[1024];
	json_error_t je;

	snprintf(text, sizeof(text),
		 "{\"backends\":[{\"name\":\"b1\",\"url\":\"http://127.0.0.1:9001\"},"
		 "{\"name\":\"b2\",\"url\":\"http://127.0.0.1:9002\"}],"
		 "\"vips\":[{\"url\":\"http://127.0.0.1:8080\"}],"
		 "\"arms\":[{\"name\":\"rr\"},{\"name\":\"hash\"%s}]}",
		 dis == 1 ? ",\"disaggregated\":true" : dis == 2 ? ",\"disaggregated\":false" : "");
	gp_fleet_init(f);
	if (gp_fleet_parse(f, json_loads(text, 0, &je), err, sizeof(err)))
		printf("# fleet: %s\n", err);
}

static void note(struct gp_design *d, const char *text)
{
	json_error_t je;
	json_t *o = json_loads(text, 0, &je);
	char err[256];

	if (!o || gp_design_note(d, o, err, sizeof(err)))
		printf("# note failed: %s: %s\n", text, o ? err : je.text);
	json_decref(o);
}

/* Run headers and requests of arm at rate, reps 1-2, with that digest and seeds 1000+rep. */
static void runs(struct gp_design *d, const char *arm, double rate, const char *digest, int seed0)
{
	char t[512];

	for (int rep = 1; rep <= 2; rep++) {
		snprintf(t, sizeof(t), "{\"type\":\"run\",\"arm\":\"%s\",\"rate_rps\":%g,\"rep\":%d,"
			 "\"trace_digest\":\"%s\",\"seed\":%d}", arm, rate, rep, digest, seed0 + rep);
		note(d, t);
		snprintf(t, sizeof(t), "{\"type\":\"request\",\"arm\":\"%s\",\"rate_rps\":%g,\"rep\":%d,"
			 "\"backend\":\"%s\",\"outcome\":\"ok\"}", arm, rate, rep, rep == 1 ? "b1" : "b2");
		note(d, t);
	}
}

static void caps(struct gp_design *d, int n)
{
	note(d, "{\"type\":\"capacity\",\"endpoint\":\"http://127.0.0.1:9001\",\"backend\":\"b1\","
		"\"role\":\"prefill\",\"capacity_tok_s\":5000,\"saturated\":true,\"suspect\":false,\"accelerators\":1}");
	if (n > 1)
		note(d, "{\"type\":\"capacity\",\"endpoint\":\"http://127.0.0.1:9002\",\"backend\":\"b2\","
			"\"role\":\"prefill\",\"capacity_tok_s\":4000,\"saturated\":true,\"suspect\":false,\"accelerators\":1}");
}

static const char *SLO = "{\"type\":\"slo\",\"ttft_ms\":232,\"tpot_ms\":6.215,\"origin\":\"baseline\","
			 "\"baseline_stat\":\"p50\",\"baseline_arm\":\"rr\",\"baseline_same_url\":true,"
			 "\"baseline_url\":\"http://127.0.0.1:8080\",\"target\":0.9}";

static void idle(struct gp_design *d, const char *name, double ttft, double tpot)
{
	char t[512];

	snprintf(t, sizeof(t), "{\"type\":\"idle_baseline\",\"backend\":\"%s\",\"requests\":4,\"ok\":4,"
		 "\"failed\":0,\"ttft_ms\":{\"p50\":%g,\"mean\":%g},\"tpot_ms\":{\"p50\":%g,\"mean\":%g}}",
		 name, ttft, ttft, tpot, tpot);
	note(d, t);
}

/* A design whose every gate passes. */
static struct gp_design *honest(void)
{
	struct gp_design *d = gp_design_new();

	runs(d, "rr", 4, "fnv1a64:00000000000000aa", 1000);
	runs(d, "hash", 4, "fnv1a64:00000000000000aa", 1000);
	caps(d, 2);
	note(d, SLO);
	idle(d, "b1", 100, 3);
	idle(d, "b2", 110, 3.2);
	return d;
}

static json_t *judge(const struct gp_design *d, const struct gp_fleet *f, unsigned waive)
{
	struct gp_design_cfg c = { .floor = "rr", .fleet = f, .slo_margin = GP_DESIGN_SLO_MARGIN,
				   .waive = waive };

	return gp_design_judge(d, &c);
}

static const char *status(json_t *a, enum gp_design_gate g)
{
	return json_string_value(json_object_get(json_array_get(a, g), "status"));
}

static const char *detail(json_t *a, enum gp_design_gate g)
{
	return json_string_value(json_object_get(json_array_get(a, g), "detail"));
}

static int all_ok(json_t *a)
{
	for (int g = 0; g < GP_DESIGN_N; g++)
		if (strcmp(status(a, g), "ok")) {
			printf("# %s: %s: %s\n", gp_design_gate_name(g), status(a, g), detail(a, g));
			return 0;
		}
	return 1;
}

int main(void)
{
	struct gp_fleet f, fd, fa;
	struct gp_design *d;
	json_t *a;
	char why[400];
	int none;
	char *ans;

	fleet(&f, 0);
	fleet(&fd, 1);
	fleet(&fa, 2);

	is_int(gp_design_gate_parse("slo_feasible"), GP_DESIGN_SLO_FEASIBLE, "gate names parse");
	is_int(gp_design_gate_parse("floors"), -1, "an unknown gate name is -1");
	is_str(gp_design_gate_name(GP_DESIGN_SAME_TRACE), "same_trace", "gate name");

	d = honest();
	a = judge(d, &f, 0);
	is_int((int)json_array_size(a), GP_DESIGN_N, "one record per gate");
	ok(all_ok(a), "honest design: every gate ok");
	json_decref(a);
	gp_design_free(d);

	/* floor */
	d = honest();
	runs(d, "hash", 8, "fnv1a64:00000000000000aa", 2000);
	a = judge(d, &f, 0);
	is_str(status(a, GP_DESIGN_FLOOR), "fail", "floor missing at a rung: fail");
	ok(strstr(detail(a, GP_DESIGN_FLOOR), "no run at 8 req/s") != NULL, "names the rung: %s",
	   detail(a, GP_DESIGN_FLOOR));
	json_decref(a);
	a = judge(d, &f, 1u << GP_DESIGN_FLOOR);
	is_str(status(a, GP_DESIGN_FLOOR), "waived", "--waive floor: waived, not ok");
	json_decref(a);
	gp_design_free(d);
	d = honest();
	{
		struct gp_design_cfg c = { .fleet = &f, .slo_margin = 0.1 };

		a = gp_design_judge(d, &c);
		is_str(status(a, GP_DESIGN_FLOOR), "fail", "no floor named: fail");
		json_decref(a);
		note(d, "{\"type\":\"noise_floor\",\"arm\":\"rr\",\"rate_rps\":4}");
		a = gp_design_judge(d, &c);
		is_str(status(a, GP_DESIGN_FLOOR), "ok", "the noise_floor's arm is the floor");
		json_decref(a);
		c.floor = "lc";
		a = gp_design_judge(d, &c);
		ok(!strcmp(status(a, GP_DESIGN_FLOOR), "fail") &&
		   strstr(detail(a, GP_DESIGN_FLOOR), "has no runs"), "a floor arm with no runs: fail");
		json_decref(a);
	}
	gp_design_free(d);

	/* same_trace */
	d = gp_design_new();
	runs(d, "rr", 4, "fnv1a64:00000000000000aa", 1000);
	runs(d, "hash", 4, "fnv1a64:00000000000000bb", 1000);
	a = judge(d, &f, 0);
	ok(!strcmp(status(a, GP_DESIGN_SAME_TRACE), "fail") &&
	   strstr(detail(a, GP_DESIGN_SAME_TRACE), "fnv1a64:00000000000000bb"),
	   "different digests at a rung: fail, naming both: %s", detail(a, GP_DESIGN_SAME_TRACE));
	json_decref(a);
	gp_design_free(d);
	d = gp_design_new();
	runs(d, "rr", 4, "fnv1a64:00000000000000aa", 1000);
	runs(d, "hash", 4, "fnv1a64:00000000000000aa", 1001);
	a = judge(d, &f, 0);
	ok(!strcmp(status(a, GP_DESIGN_SAME_TRACE), "fail") &&
	   strstr(detail(a, GP_DESIGN_SAME_TRACE), "seed"), "different seeds at a rep: fail: %s",
	   detail(a, GP_DESIGN_SAME_TRACE));
	json_decref(a);
	gp_design_free(d);
	d = gp_design_new();
	runs(d, "rr", 4, "fnv1a64:00000000000000aa", 1000);
	runs(d, "rr", 8, "fnv1a64:00000000000000aa", 2000);
	runs(d, "hash", 4, "fnv1a64:00000000000000aa", 1000);
	runs(d, "hash", 8, "fnv1a64:00000000000000aa", 2000);
	a = judge(d, &f, 0);
	is_str(status(a, GP_DESIGN_SAME_TRACE), "ok", "seeds that differ per rung, paired across arms: ok");
	json_decref(a);
	gp_design_free(d);
	d = gp_design_new();
	note(d, "{\"type\":\"run\",\"arm\":\"rr\",\"rate_rps\":4,\"rep\":1,\"seed\":1}");
	a = judge(d, &f, 0);
	is_str(status(a, GP_DESIGN_SAME_TRACE), "fail", "a run header without trace_digest: fail");
	json_decref(a);
	gp_design_free(d);

	/* topology */
	d = honest();
	a = judge(d, &fd, 0);
	ok(!strcmp(status(a, GP_DESIGN_TOPOLOGY), "fail") &&
	   json_object_get(json_array_get(a, GP_DESIGN_TOPOLOGY), "claim"),
	   "a disaggregated arm beside an aggregated one: fail, with the reframed claim");
	json_decref(a);
	a = judge(d, &fd, 1u << GP_DESIGN_TOPOLOGY);
	is_str(status(a, GP_DESIGN_TOPOLOGY), "waived", "--waive topology");
	json_decref(a);
	note(d, "{\"type\":\"request\",\"arm\":\"hash\",\"prefill\":\"10.0.0.1:8000\","
		"\"decode\":\"10.0.0.2:8000\",\"outcome\":\"ok\"}");
	a = judge(d, &f, 0);
	ok(!strcmp(status(a, GP_DESIGN_TOPOLOGY), "fail") &&
	   strstr(detail(a, GP_DESIGN_TOPOLOGY), "rr is aggregated, hash disaggregated"),
	   "no fleet field: the receipts make hash disaggregated: mixed");
	json_decref(a);
	a = judge(d, &fa, 0);
	ok(!strcmp(status(a, GP_DESIGN_TOPOLOGY), "fail") &&
	   strstr(detail(a, GP_DESIGN_TOPOLOGY), "receipts show prefill 10.0.0.1:8000"),
	   "the fleet says aggregated, the receipts split: fail: %s", detail(a, GP_DESIGN_TOPOLOGY));
	json_decref(a);
	gp_design_free(d);

	/* calibration */
	d = gp_design_new();
	runs(d, "rr", 4, "fnv1a64:00000000000000aa", 1000);
	caps(d, 1);
	a = judge(d, &f, 0);
	ok(!strcmp(status(a, GP_DESIGN_CALIBRATION), "fail") &&
	   strstr(detail(a, GP_DESIGN_CALIBRATION), "backend b2 has no trusted capacity"),
	   "a backend in the runs without a capacity: fail: %s", detail(a, GP_DESIGN_CALIBRATION));
	ok(strstr(detail(a, GP_DESIGN_CALIBRATION), "stale: added http://127.0.0.1:9002") != NULL,
	   "and the capacities are stale against the fleet (gp_calib_stale)");
	json_decref(a);
	note(d, "{\"type\":\"capacity\",\"endpoint\":\"http://127.0.0.1:9002\",\"backend\":\"b2\","
		"\"role\":\"prefill\",\"capacity_tok_s\":null,\"saturated\":false,\"suspect\":true}");
	a = judge(d, &f, 0);
	ok(!strcmp(status(a, GP_DESIGN_CALIBRATION), "fail") &&
	   strstr(detail(a, GP_DESIGN_CALIBRATION), "b2 has no trusted"), "a suspect capacity is no capacity");
	json_decref(a);
	gp_design_free(d);
	d = honest();
	note(d, "{\"type\":\"capacity\",\"endpoint\":\"http://127.0.0.1:9003\",\"backend\":\"b3\","
		"\"role\":\"prefill\",\"capacity_tok_s\":4000,\"saturated\":true,\"accelerators\":1}");
	a = judge(d, &f, 0);
	ok(!strcmp(status(a, GP_DESIGN_CALIBRATION), "fail") &&
	   strstr(detail(a, GP_DESIGN_CALIBRATION), "removed http://127.0.0.1:9003"),
	   "a member measured that the fleet no longer has: stale");
	json_decref(a);
	a = gp_design_judge(d, &(struct gp_design_cfg){ .floor = "rr", .slo_margin = 0.1 });
	is_str(status(a, GP_DESIGN_CALIBRATION), "fail", "no fleet: calibration cannot be checked");
	json_decref(a);
	gp_design_free(d);

	/* baseline_vip */
	d = honest();
	note(d, "{\"type\":\"slo\",\"ttft_ms\":232,\"tpot_ms\":6.215,\"origin\":\"baseline\","
		"\"baseline_arm\":\"rr\",\"baseline_same_url\":false,\"baseline_url\":\"http://127.0.0.1:9001\"}");
	a = judge(d, &f, 0);
	ok(!strcmp(status(a, GP_DESIGN_BASELINE_VIP), "fail") &&
	   strstr(detail(a, GP_DESIGN_BASELINE_VIP), "http://127.0.0.1:9001"),
	   "a baseline taken directly on a backend: fail, naming its URL");
	json_decref(a);
	note(d, "{\"type\":\"slo\",\"ttft_ms\":232,\"tpot_ms\":6.215,\"origin\":\"baseline\","
		"\"baseline_arm\":\"hash\",\"baseline_same_url\":true}");
	a = judge(d, &f, 0);
	ok(!strcmp(status(a, GP_DESIGN_BASELINE_VIP), "fail") &&
	   strstr(detail(a, GP_DESIGN_BASELINE_VIP), "arm hash, not the floor arm rr"),
	   "a baseline on another arm than the floor: fail");
	json_decref(a);
	note(d, "{\"type\":\"slo\",\"ttft_ms\":500,\"tpot_ms\":20,\"origin\":\"fixed\"}");
	a = judge(d, &f, 0);
	is_str(status(a, GP_DESIGN_BASELINE_VIP), "not_applicable", "a fixed SLO: not applicable");
	json_decref(a);
	gp_design_free(d);

	/* slo_feasible: the figures — SLO 232 ms / 6.215 ms, the slow
	 * member's idle TTFT 228 ms and TPOT 6.2 ms. */
	d = honest();
	note(d, "{\"type\":\"idle_baseline\",\"backend\":\"b2\",\"requests\":4,\"ok\":4,\"failed\":0,"
		"\"ttft_ms\":{\"p50\":228},\"tpot_ms\":{\"p50\":6.2}}");
	a = judge(d, &f, 0);
	ok(!strcmp(status(a, GP_DESIGN_SLO_FEASIBLE), "fail") &&
	   strstr(detail(a, GP_DESIGN_SLO_FEASIBLE), "member b2 cannot meet the SLO unloaded") &&
	   strstr(detail(a, GP_DESIGN_SLO_FEASIBLE), "TTFT 228 ms") &&
	   strstr(detail(a, GP_DESIGN_SLO_FEASIBLE), "SLO 232 ms"),
	   "an infeasible member: fail, naming it and both figures: %s", detail(a, GP_DESIGN_SLO_FEASIBLE));
	is_str(json_string_value(json_array_get(json_object_get(json_array_get(a, GP_DESIGN_SLO_FEASIBLE),
								"infeasible"), 0)), "b2", "infeasible lists b2");
	json_decref(a);
	gp_design_free(d);
	d = gp_design_new();
	note(d, SLO);
	idle(d, "b1", 100, 3);
	a = judge(d, &f, 0);
	ok(!strcmp(status(a, GP_DESIGN_SLO_FEASIBLE), "fail") &&
	   strstr(detail(a, GP_DESIGN_SLO_FEASIBLE), "member b2 has no idle baseline"),
	   "a member without an idle baseline: fail");
	json_decref(a);
	gp_design_free(d);

	/* The arithmetic at its edge: 210 x 1.10 = 231 <= 232; 211 x 1.10 = 232.1 > 232. */
	{
		json_error_t je;
		json_t *i1 = json_loads("{\"failed\":0,\"requests\":4,\"ttft_ms\":{\"p50\":210},"
					"\"tpot_ms\":{\"p50\":5}}", 0, &je);
		json_t *i2 = json_loads("{\"failed\":0,\"requests\":4,\"ttft_ms\":{\"p50\":211},"
					"\"tpot_ms\":{\"p50\":5.65}}", 0, &je);
		json_t *i3 = json_loads("{\"failed\":1,\"requests\":4,\"ttft_ms\":{\"p50\":1},"
					"\"tpot_ms\":{\"p50\":1}}", 0, &je);
		json_t *i4 = json_loads("{\"failed\":0,\"requests\":4,\"ttft_ms\":{\"p50\":1}}", 0, &je);

		is_int(gp_design_idle_feasible(i1, "p50", 232, 6.215, 0.10, why, sizeof(why)), 1,
		       "210 ms x 1.10 within 232 ms: feasible");
		is_int(gp_design_idle_feasible(i2, "p50", 232, 6.215, 0.10, why, sizeof(why)), 0,
		       "211 ms x 1.10 over 232 ms: infeasible");
		ok(strstr(why, "TTFT 211 ms") && strstr(why, "TPOT 5.65 ms"), "both figures named: %s", why);
		is_int(gp_design_idle_feasible(i2, "p50", 232, 6.215, 0, why, sizeof(why)), 1,
		       "margin 0: 211 ms within 232 ms");
		is_int(gp_design_idle_feasible(i3, NULL, 232, 6.215, 0.10, why, sizeof(why)), 0,
		       "a failed idle request: infeasible");
		is_int(gp_design_idle_feasible(i4, "p50", 232, 6.215, 0.10, why, sizeof(why)), -1,
		       "no TPOT statistic: malformed");
		is_int(gp_design_idle_feasible(i1, "p99", 232, 6.215, 0.10, why, sizeof(why)), -1,
		       "the statistic asked for is absent: malformed");
		json_decref(i1);
		json_decref(i2);
		json_decref(i3);
		json_decref(i4);
	}

	/* The answer. */
	d = honest();
	ans = gp_design_answer(d, NULL, &none);
	ok(!none && strstr(ans, "no knee records"), "no knee records: said so, not 'none': %s", ans);
	free(ans);
	note(d, "{\"type\":\"knee\",\"arm\":\"hash\",\"rate_rps\":null,\"target\":0.9}");
	note(d, "{\"type\":\"knee\",\"arm\":\"rr\",\"rate_rps\":null,\"target\":0.9}");
	ans = gp_design_answer(d, NULL, &none);
	ok(none, "every knee null: none");
	is_str(ans, "no arm reaches the target 0.9 at any rung: no goodput@SLO", "said as such");
	free(ans);
	gp_design_free(d);
	d = honest();
	note(d, "{\"type\":\"knee\",\"arm\":\"hash\",\"rate_rps\":8,\"target\":0.9,"
		"\"goodput_rps_per_accel\":3.5,\"goodput_per_accel_ci\":{\"lo\":3.25,\"hi\":3.75}}");
	note(d, "{\"type\":\"knee\",\"arm\":\"rr\",\"rate_rps\":null,\"target\":0.9}");
	note(d, "{\"type\":\"knee\",\"arm\":\"lc\",\"rate_rps\":null,\"target\":0.9}");
	note(d, "{\"type\":\"knee_compare\",\"arm\":\"hash\",\"vs\":\"rr\",\"verdict\":\"INCONCLUSIVE\"}");
	ans = gp_design_answer(d, "mixed", &none);
	ok(!none, "one knee: an answer");
	is_str(ans, "goodput@SLO at the knee, per accelerator: hash 3.5 [3.25, 3.75] req/s at 8 req/s; "
	       "at no rung reaching the target: rr, lc; at the knee: hash vs rr INCONCLUSIVE; mixed",
	       "the answer: knees, the arm without one, the comparison, the claim");
	free(ans);
	gp_design_free(d);

	/* Bad input names the field. */
	d = gp_design_new();
	{
		json_error_t je;
		json_t *o = json_loads("{\"type\":\"run\",\"arm\":\"rr\",\"rate_rps\":4,\"seed\":\"x\"}", 0, &je);
		char err[256];

		is_int(gp_design_note(d, o, err, sizeof(err)), -1, "a string seed is refused");
		is_str(err, "field 'seed' is not an integer", "naming the field");
		json_decref(o);
	}
	gp_design_free(d);

	gp_fleet_release(&f);
	gp_fleet_release(&fd);
	gp_fleet_release(&fa);
	return done_testing();
}
