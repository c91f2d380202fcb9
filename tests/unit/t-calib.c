/* SPDX-License-Identifier: MIT */
/* t-calib — the calibration policy of calib.h: the pre-registered protocol and
 * its file form, the geometric ramp, the hold, the warmup discard, the plateau
 * rule, the backstop, the capacity, queue divergence, SUSPECT and its one
 * re-run, driver lateness, the ladder and the staleness check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "method/calib.h"

static struct gp_calib_protocol proto(void)
{
	struct gp_calib_protocol p;

	gp_calib_protocol_default(&p);
	p.start_rps = 10;
	p.ramp = 1.5;
	p.plateau_pct = 5;
	p.max_steps = 8;
	return p;
}

static void test_protocol(void)
{
	struct gp_calib_protocol p, q;
	char err[160];
	json_t *o, *f;
	size_t n;
	const struct gp_calib_field *fl = gp_calib_fields(&n);

	gp_calib_protocol_default(&p);
	is_dbl(p.ramp, 1.25, 0, "default ramp 1.25");
	is_int(p.max_steps, 20, "default backstop 20 steps");
	is_int(p.hold_requests, 100, "default hold 100 requests");
	ok(n >= 16 && !strcmp(fl[0].name, "start_rps"), "fields listed in record order");
	ok(gp_calib_field("plateau-pct") == gp_calib_field("plateau_pct") &&
	   gp_calib_field("plateau_pct") != NULL, "option and record spellings name one field");
	ok(gp_calib_field("no_such") == NULL, "unknown field: NULL");

	ok(gp_calib_protocol_set(&p, gp_calib_field("ramp"), "1", err, sizeof(err)) == -1 &&
	   strstr(err, "> 1"), "ramp 1 refused: must be > 1 (%s)", err);
	ok(gp_calib_protocol_set(&p, gp_calib_field("max_steps"), "2.5", err, sizeof(err)) == -1 &&
	   strstr(err, "integer"), "max_steps 2.5 refused: integer (%s)", err);
	ok(gp_calib_protocol_set(&p, gp_calib_field("max_steps"), "2", err, sizeof(err)) == -1,
	   "max_steps 2 refused: the plateau needs three steps");
	ok(gp_calib_protocol_set(&p, gp_calib_field("hold_s"), "x", err, sizeof(err)) == -1 &&
	   strstr(err, "not a number"), "text refused");
	ok(gp_calib_protocol_set(&p, gp_calib_field("hold_s"), "2.5", err, sizeof(err)) == 0 &&
	   p.hold_s == 2.5, "hold_s set from text");

	/* The file form is the record form: a round trip is the identity. */
	p.ramp = 1.4;
	p.max_inflight = 3;
	o = gp_calib_protocol_json(&p);
	ok(o && json_object_size(o) == n, "protocol JSON holds every field");
	ok(json_is_integer(json_object_get(o, "max_steps")) &&
	   json_is_real(json_object_get(o, "ramp")), "integer fields as integers, others as reals");
	gp_calib_protocol_default(&q);
	ok(!gp_calib_protocol_equal(&p, &q), "differing protocols are not equal");
	ok(gp_calib_protocol_from_json(&q, o, err, sizeof(err)) == 0 &&
	   gp_calib_protocol_equal(&p, &q), "from_json(json(p)) == p");
	json_decref(o);

	f = json_loads("{\"ramp\":1.1,\"hold_s\":3}", 0, NULL);
	gp_calib_protocol_default(&q);
	ok(gp_calib_protocol_from_json(&q, f, err, sizeof(err)) == 0 && q.ramp == 1.1 &&
	   q.hold_s == 3 && q.max_steps == 20, "a partial file keeps the other defaults");
	json_decref(f);

	f = json_loads("{\"ramp\":1.1,\"rampp\":2}", 0, NULL);
	q = p;
	ok(gp_calib_protocol_from_json(&q, f, err, sizeof(err)) == -1 &&
	   !strcmp(err, "field 'rampp': not a protocol field") && gp_calib_protocol_equal(&q, &p),
	   "unknown key refused, protocol untouched (%s)", err);
	json_decref(f);
	f = json_loads("{\"hold-s\":2}", 0, NULL);
	ok(gp_calib_protocol_from_json(&q, f, err, sizeof(err)) == -1,
	   "the option spelling is not a file key");
	json_decref(f);
	f = json_loads("{\"ramp\":\"1.5\"}", 0, NULL);
	ok(gp_calib_protocol_from_json(&q, f, err, sizeof(err)) == -1 &&
	   !strcmp(err, "field 'ramp': is not a number"), "string value refused (%s)", err);
	json_decref(f);
	f = json_loads("{\"max_steps\":3.5}", 0, NULL);
	ok(gp_calib_protocol_from_json(&q, f, err, sizeof(err)) == -1 &&
	   !strcmp(err, "field 'max_steps': must be an integer"), "non-integer refused (%s)", err);
	json_decref(f);
	f = json_loads("[1]", 0, NULL);
	ok(gp_calib_protocol_from_json(&q, f, err, sizeof(err)) == -1, "array refused");
	json_decref(f);
}

static void test_ramp_hold(void)
{
	struct gp_calib_protocol p = proto();
	int geometric = 1;

	is_dbl(gp_calib_target_rps(&p, 0), 10, 1e-12, "step 0 offers start_rps");
	for (long k = 1; k < 10; k++) {
		double r = gp_calib_target_rps(&p, k) / gp_calib_target_rps(&p, k - 1);

		if (fabs(r - 1.5) > 1e-12)
			geometric = 0;
	}
	ok(geometric, "every step multiplies the rate by the ramp");
	is_dbl(gp_calib_target_rps(&p, 3), 33.75, 1e-9, "step 3 = 10 * 1.5^3");

	p.hold_s = 2;
	p.hold_requests = 50;
	is_dbl(gp_calib_hold_s(&p, 10), 5, 1e-12, "hold: 50 requests at 10/s outlast 2 s");
	is_dbl(gp_calib_hold_s(&p, 100), 2, 1e-12, "hold: 2 s outlast 50 requests at 100/s");
	p.hold_requests = 0;
	is_dbl(gp_calib_hold_s(&p, 1), 2, 1e-12, "hold: no count minimum, the duration");

	is_int(gp_calib_input_tokens(&p, GP_CALIB_PREFILL), p.prefill_input_tokens,
	       "prefill: long prompts");
	is_int(gp_calib_output_tokens(&p, GP_CALIB_DECODE), p.decode_output_tokens,
	       "decode: long outputs");
	ok(p.prefill_output_tokens < p.decode_output_tokens &&
	   p.decode_input_tokens < p.prefill_input_tokens, "role shapes differ as the method says");
}

static void test_offered(void)
{
	const int64_t ms = 1000000;

	/* Sends at 0, 100, 200, ... ms; hold [500, 1500): i = 5..14. */
	is_int(gp_calib_due(0, 100 * ms, 500 * ms, 1500 * ms), 10, "due: 10 sends in [0.5 s, 1.5 s)");
	is_int(gp_calib_due(0, 100 * ms, 550 * ms, 1500 * ms), 9, "due: 9 from 0.55 s (i = 6..14)");
	is_int(gp_calib_due(0, 100 * ms, 500 * ms, 1501 * ms), 11, "due: 1.5 s itself is inside [.., 1.501)");
	is_int(gp_calib_due(7, 3, 7, 7), 0, "empty window: none due");
	is_dbl(gp_calib_offered(40, 10, 10), 40, 0, "every due send on time: offered = target");
	is_dbl(gp_calib_offered(40, 5, 10), 20, 0, "half on time: half the target");
	is_dbl(gp_calib_offered(40, 0, 0), 0, 0, "nothing due: 0");
}

static void test_window(void)
{
	struct gp_calib_window w;
	const int64_t s = 1000000000;

	/* Warmup [0, 1 s) is discarded; the hold is [1 s, 3 s). */
	gp_calib_window_init(&w, 1 * s, 3 * s);
	gp_calib_window_first(&w, s / 2, 1000);		/* warmup: discarded */
	gp_calib_window_first(&w, s, 1000);		/* at w0: counts */
	gp_calib_window_first(&w, 2 * s, 500);
	gp_calib_window_first(&w, 3 * s, 1000);		/* at w1: next window */
	for (int64_t t = 0; t < 4 * s; t += s / 10)
		gp_calib_window_token(&w, t);		/* 40 tokens, 20 inside */
	is_dbl(w.prompt_tokens, 1500, 0, "prompt tokens of the first tokens in the window");
	is_int(w.first_tokens, 2, "two first tokens in the window");
	is_dbl(gp_calib_window_tok_s(&w, GP_CALIB_PREFILL), 750, 1e-9, "prefill: 1500 / 2 s");
	is_dbl(gp_calib_window_tok_s(&w, GP_CALIB_DECODE), 10, 1e-9,
	       "decode: 20 events in the window / 2 s (warmup discarded)");
	gp_calib_window_init(&w, s, s);
	is_dbl(gp_calib_window_tok_s(&w, GP_CALIB_DECODE), 0, 0, "empty window: 0");
}

static void test_diverging(void)
{
	struct gp_calib_protocol p = proto();
	double t[20], d[20], slope, growth;

	p.diverge_requests = 4;
	for (int i = 0; i < 20; i++) {
		t[i] = 0.1 * i;
		d[i] = 5 + (i % 2);		/* stationary, jittering */
	}
	ok(!gp_calib_diverging(&p, t, d, 20, 2, &slope, &growth) && fabs(growth) < 1,
	   "a stationary queue does not diverge (growth %.3f)", growth);
	for (int i = 0; i < 20; i++)
		d[i] = 2 + 10 * t[i] + (i % 3);	/* grows 10 requests/s */
	ok(gp_calib_diverging(&p, t, d, 20, 2, &slope, &growth), "a growing queue diverges");
	is_dbl(slope, 10, 0.5, "slope = least-squares growth rate");
	is_dbl(growth, 2 * slope, 1e-9, "growth = slope * hold");
	for (int i = 0; i < 20; i++)
		d[i] = 2 + 1.5 * t[i];		/* 3 requests over 2 s: below 4 */
	ok(!gp_calib_diverging(&p, t, d, 20, 2, NULL, NULL), "growth below diverge_requests");
	for (int i = 0; i < 20; i++)
		d[i] = 1;			/* a throttled client: one in flight */
	ok(!gp_calib_diverging(&p, t, d, 20, 2, &slope, NULL) && slope == 0,
	   "constant depth: slope 0");
	ok(!gp_calib_diverging(&p, t, d, 2, 2, &slope, NULL) && slope == 0,
	   "two samples are never diverging");
	ok(!gp_calib_diverging(&p, t, d, 0, 2, NULL, NULL), "no samples: not diverging");
	d[0] = 0; d[1] = 100; d[2] = 200;
	t[0] = t[1] = t[2] = 1;
	ok(!gp_calib_diverging(&p, t, d, 3, 2, &slope, NULL) && slope == 0,
	   "samples at one instant: no slope");
}

static void test_late(void)
{
	struct gp_calib_protocol p = proto();

	p.late_ms = 10;
	ok(!gp_calib_late(&p, 3, 0), "p99 3 ms: on time");
	ok(gp_calib_late(&p, 12, 0), "p99 12 ms over 10: late");
	ok(gp_calib_late(&p, 0.1, 1), "a send held back by max_inflight: late");
	ok(!gp_calib_late(&p, NAN, 0), "no sends: not late");
}

/* A sweep against a backend of capacity cap tok/s, 1000 tokens a request. */
static size_t sweep(const struct gp_calib_protocol *p, struct gp_calib_step *s, double cap,
		    double client_rps, struct gp_calib_judgement *j)
{
	size_t n = 0;

	for (long k = 0;; k++) {
		double target = gp_calib_target_rps(p, k);
		double off = target < client_rps ? target : client_rps;

		s[n].target_rps = target;
		s[n].offered_rps = off;
		s[n].delivered_tok_s = fmin(off * 1000, cap);
		s[n].diverging = off * 1000 > cap * 1.05;
		s[n].late = off < target;
		s[n].rerun = 0;
		n++;
		gp_calib_judge(p, s, n, j);
		while (j->verdict == GP_CALIB_RERUN) {
			size_t i = gp_calib_rerun_next(p, s, n);

			s[i].rerun = 1;	/* the same step again, same result */
			gp_calib_judge(p, s, n, j);
		}
		if (j->verdict != GP_CALIB_CONTINUE)
			return n;
	}
}

static void test_judge(void)
{
	struct gp_calib_protocol p = proto();
	struct gp_calib_step s[64];
	struct gp_calib_judgement j;
	size_t n;

	/* 10, 15, 22.5, 33.75, 50.6, 75.9, 113.9 req/s against 40 req/s of capacity:
	 * delivered 10k, 15k, 22.5k, 33.75k, then 40k three times; the gains into
	 * steps 5 and 6 are 0, the gain into step 4 (+18.5 %) is not. */
	n = sweep(&p, s, 40000, 1e9, &j);
	is_str(gp_calib_verdict_name(j.verdict), "saturated", "saturating backend: saturated");
	is_int(n, 7, "plateau declared at the second flat gain (step 6)");
	ok(j.flat && j.full_step && j.diverging && !j.late, "flat, full step, diverging, on time");
	is_dbl(j.capacity_tok_s, 40000, 1e-6,
	       "capacity = mean delivered over the three plateau steps");

	/* A client capped at 30 req/s: flat, the offered rate stops growing, no
	 * queue: SUSPECT after one re-run, never a capacity. */
	n = sweep(&p, s, 1e9, 30, &j);
	is_str(gp_calib_verdict_name(j.verdict), "suspect", "client ceiling: suspect");
	ok(j.flat && !j.full_step && !j.diverging && j.late,
	   "flat but the offered rate did not grow, no divergence, driver late");

	/* A flat delivery, the offered rate grew, but the queue never diverged. */
	memset(s, 0, sizeof(s));
	for (int i = 0; i < 3; i++) {
		s[i].offered_rps = gp_calib_target_rps(&p, i);
		s[i].target_rps = s[i].offered_rps;
		s[i].delivered_tok_s = 1000 + i;
	}
	gp_calib_judge(&p, s, 3, &j);
	is_str(gp_calib_verdict_name(j.verdict), "rerun", "plateau without divergence: re-run");
	is_dbl(j.capacity_tok_s, 1001, 1e-9, "the plateau's mean, (1000 + 1001 + 1002) / 3");
	s[2].rerun = 1;
	s[2].diverging = 1;
	gp_calib_judge(&p, s, 3, &j);
	is_str(gp_calib_verdict_name(j.verdict), "saturated", "the re-run diverges: saturated");
	s[2].diverging = 0;
	gp_calib_judge(&p, s, 3, &j);
	is_str(gp_calib_verdict_name(j.verdict), "suspect", "the re-run does not: suspect");
	s[2].delivered_tok_s = 2000;
	gp_calib_judge(&p, s, 3, &j);
	is_str(gp_calib_verdict_name(j.verdict), "continue", "the re-run is not flat: ramp on");
	ok(isnan(j.capacity_tok_s), "no plateau: no capacity");

	/* One flat gain is not a plateau; both gains must be below the bound. */
	s[2].delivered_tok_s = 1000 * 1.06;	/* +6 %, then */
	s[2].diverging = 1;
	s[2].rerun = 0;
	gp_calib_judge(&p, s, 3, &j);
	ok(!j.flat && j.verdict == GP_CALIB_CONTINUE, "a 6 %% gain is not flat at 5 %%");
	ok(isnan(gp_calib_gain_pct(0, 10)), "gain from zero is undefined, not small");
	s[0].delivered_tok_s = 0;
	s[1].delivered_tok_s = 0;
	s[2].delivered_tok_s = 0;
	gp_calib_judge(&p, s, 3, &j);
	ok(!j.flat, "nothing delivered at all is not a plateau");

	/* The offered rate grew by only half the step at one of the two. */
	for (int i = 0; i < 3; i++) {
		s[i].offered_rps = 10 * pow(1.5, i);
		s[i].delivered_tok_s = 1000;
		s[i].diverging = 1;
	}
	s[2].offered_rps = s[1].offered_rps * 1.25;
	gp_calib_judge(&p, s, 3, &j);
	ok(j.flat && !j.full_step && j.verdict == GP_CALIB_RERUN,
	   "offered grew by half a step: not saturated");
	s[2].offered_rps = s[1].offered_rps * (1 + 0.9 * 0.5);
	gp_calib_judge(&p, s, 3, &j);
	ok(j.full_step && j.verdict == GP_CALIB_SATURATED, "exactly full_step_pct of it: enough");
	s[0].late = 1;
	gp_calib_judge(&p, s, 3, &j);
	ok(j.late && j.verdict == GP_CALIB_RERUN, "a late plateau step is not trusted");
	is_int((long)gp_calib_rerun_next(&p, s, 3), 0, "the late step 0 is the one to re-run, not the last");

	/* Issue 22: the first plateau step was driver-late, the queue diverged
	 * in the last.  Re-running the last step (as before) leaves it
	 * SUSPECT; re-running step 0, on time now, saturates. */
	s[2].rerun = 1;
	gp_calib_judge(&p, s, 3, &j);
	ok(j.verdict == GP_CALIB_RERUN && gp_calib_rerun_next(&p, s, 3) == 0,
	   "the last step re-run, the late step 0 not: still a re-run, of step 0");
	s[0].late = 0;
	s[0].rerun = 1;
	gp_calib_judge(&p, s, 3, &j);
	is_str(gp_calib_verdict_name(j.verdict), "saturated", "step 0 re-run on time: saturated");
	s[0].late = 1;
	gp_calib_judge(&p, s, 3, &j);
	is_str(gp_calib_verdict_name(j.verdict), "suspect",
	       "step 0 late again at its re-run: suspect (each step re-run once)");
	is_int((long)gp_calib_rerun_next(&p, s, 3), 3, "nothing left to re-run");
	/* Two late steps and a flat queue: all three, in order. */
	for (int i = 0; i < 3; i++)
		s[i].rerun = 0;
	s[1].late = 1;
	s[2].diverging = 0;
	is_int((long)gp_calib_rerun_next(&p, s, 3), 0, "late 0, late 1, flat 2: 0 first");
	s[0].rerun = 1;
	is_int((long)gp_calib_rerun_next(&p, s, 3), 1, "then 1");
	s[1].rerun = 1;
	is_int((long)gp_calib_rerun_next(&p, s, 3), 2, "then 2, whose queue did not diverge");
	s[1].late = 0;
	s[1].rerun = 0;
	s[0].late = 0;
	s[2].diverging = 1;
	/* Offered growth short at step 2 only: step 2 is the one. */
	s[2].offered_rps = s[1].offered_rps * 1.25;
	is_int((long)gp_calib_rerun_next(&p, s, 3), 2, "offered short of the full step at 2: 2");

	/* Backstop: the backend never saturates within max_steps. */
	n = sweep(&p, s, 1e12, 1e12, &j);
	is_str(gp_calib_verdict_name(j.verdict), "backstop", "never flat: backstop");
	is_int(n, p.max_steps, "stops after exactly max_steps steps");
	gp_calib_judge(&p, s, 2, &j);
	ok(!j.flat && j.verdict == GP_CALIB_CONTINUE, "two steps are never a plateau");
}

static void test_ladder(void)
{
	/* --speed 1,1,0.5: the third member has half the capacity. */
	const double cap[] = { 40000, 40500, 20000 };
	const double ratio[] = { 0.5, 0.8, 1.2 };
	double rates[3];
	struct gp_calib_ladder l;

	ok(gp_calib_ladder(cap, 3, 1000, ratio, 3, &l, rates) == 0, "ladder computed");
	is_int(l.reference, 2, "the slow member is the reference");
	is_dbl(l.capacity_rps, 20, 1e-12, "reference capacity 20000 tok/s / 1000 tok = 20 req/s");
	is_dbl(l.fleet_rps, 60, 1e-12, "round robin over 3 saturates at 3 x 20 req/s");
	is_dbl(rates[0], 30, 1e-12, "unsaturated 0.5 x 60");
	is_dbl(rates[1], 48, 1e-12, "moderate 0.8 x 60");
	is_dbl(rates[2], 72, 1e-12, "saturated 1.2 x 60");
	ok(gp_calib_ladder(cap, 0, 1000, ratio, 3, &l, rates) == -1, "no members refused");
	ok(gp_calib_ladder(cap, 3, 0, ratio, 3, &l, rates) == -1, "zero mean tokens refused");
	{
		const double bad[] = { 100, NAN };

		ok(gp_calib_ladder(bad, 2, 10, ratio, 3, &l, rates) == -1, "a null capacity refused");
	}
	{
		const double tie[] = { 10, 10 };

		ok(gp_calib_ladder(tie, 2, 10, NULL, 0, &l, NULL) == 0 && l.reference == 0,
		   "ties go to the first member");
	}
}

static int nwhy;
static char lastwhy[256];

static void why(void *arg, const char *r)
{
	(void)arg;
	nwhy++;
	snprintf(lastwhy, sizeof(lastwhy), "%s", r);
}

static void test_stale(void)
{
	const struct gp_calib_member was[] = {
		{ "http://127.0.0.1:9001", 1 }, { "http://127.0.0.1:9002", 1 },
	};
	struct gp_calib_member cur[] = {
		{ "HTTP://127.0.0.1:9001/", 1 }, { "http://127.0.0.1:9002", 1 },
	};

	nwhy = 0;
	is_int(gp_calib_stale(was, 2, cur, 2, why, NULL), 0, "same fleet: fresh");
	is_int(nwhy, 0, "no reasons");
	cur[1].accelerators = 2;
	is_int(gp_calib_stale(was, 2, cur, 2, why, NULL), 1, "accelerators changed: stale");
	is_str(lastwhy, "accelerators of http://127.0.0.1:9002: 1 -> 2", "says what changed");
	cur[1].accelerators = 1;
	cur[1].url = "http://127.0.0.1:9003";
	nwhy = 0;
	is_int(gp_calib_stale(was, 2, cur, 2, why, NULL), 2, "a backend replaced: added + removed");
	is_str(lastwhy, "removed http://127.0.0.1:9002", "names the removed one");
	is_int(gp_calib_stale(was, 2, cur, 1, NULL, NULL), 1, "a backend gone: stale");
}

static void test_roles(void)
{
	enum gp_calib_role r;

	ok(gp_calib_role_parse("decode", &r) == 0 && r == GP_CALIB_DECODE, "decode parsed");
	ok(gp_calib_role_parse("both", &r) == -1, "both is not a calibration role");
	is_str(gp_calib_role_name(GP_CALIB_PREFILL), "prefill", "role names");
}

int main(void)
{
	test_protocol();
	test_ramp_hold();
	test_offered();
	test_window();
	test_diverging();
	test_late();
	test_judge();
	test_ladder();
	test_stale();
	test_roles();
	return done_testing();
}
