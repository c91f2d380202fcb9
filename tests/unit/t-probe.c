/* SPDX-License-Identifier: MIT */
/* Unit tests of probe: peak-to-mean per sample and over a burst, the verdict
 * at the edges of its thresholds.  Expected values worked by hand. */
#include <math.h>

#include "method/probe.h"
#include "tap.h"

/* A half-speed member (capacities 1, 1, 1, 0.5), worked by hand: round
 * robin's in-flight load (1, 1, 1, 2) — the slow member holds its requests
 * twice as long — has plain concentration 2 / 1.25 = 1.6, over spread_max
 * 1.5; against its spreading share (1/0.5) / 5 = 0.4 it is 0.4 / 0.4 = 1. */
static void heterogeneous(void)
{
	static const double cap[4] = { 1, 1, 1, 0.5 };
	struct gp_probe_thr thr = GP_PROBE_THR_DEFAULT;
	struct gp_probe_acc a;

	gp_probe_acc_init(&a, 4);
	gp_probe_acc_add(&a, (double[4]){ 1, 1, 1, 2 });
	gp_probe_acc_add(&a, (double[4]){ 1, 1, 1, 2 });
	gp_probe_acc_add(&a, (double[4]){ 1, 1, 1, 2 });
	is_dbl(gp_probe_concentration(&a), 1.6, 1e-12, "rr, half-speed member: plain 1.6");
	is_dbl(gp_probe_spread_concentration(&a), 1.6, 1e-12, "no capacities: the spread one is the plain one");
	ok(!gp_probe_engaged("spread", &a, &thr), "rr, no capacities: refused (the issue's false refusal)");
	a.cap = cap;
	is_dbl(gp_probe_spread_concentration(&a), 1.0, 1e-12, "rr against the capacities: 1");
	ok(gp_probe_engaged("spread", &a, &thr), "rr against the capacities: spread");
	gp_probe_acc_release(&a);

	/* least-connections: equal in-flight (share 1/4, its floor): 1 with or
	 * without capacities. */
	gp_probe_acc_init(&a, 4);
	a.cap = cap;
	for (int k = 0; k < 3; k++)
		gp_probe_acc_add(&a, (double[4]){ 3, 3, 3, 3 });
	is_dbl(gp_probe_spread_concentration(&a), 1.0, 1e-12, "least_conn: 1");
	gp_probe_acc_release(&a);

	/* One key pinned to the slow member: plain 4, against its 0.4 share
	 * 2.5 — still over spread_max, so a "spread" arm that concentrates is
	 * refused; "concentrate" is judged on the plain 4. */
	gp_probe_acc_init(&a, 4);
	a.cap = cap;
	for (int k = 0; k < 3; k++)
		gp_probe_acc_add(&a, (double[4]){ 0, 0, 0, 5 });
	is_dbl(gp_probe_spread_concentration(&a), 2.5, 1e-12, "pinned on the slow member: 2.5");
	ok(!gp_probe_engaged("spread", &a, &thr), "pinned: not spread");
	ok(gp_probe_engaged("concentrate", &a, &thr), "pinned: concentrate (plain 4)");
	gp_probe_acc_release(&a);

	/* A bounded-load overshoot on a fast member: (5, 3, 3, 5) of 16 → the
	 * fast member's share 5/16 = 0.3125 against 0.25: 1.25. */
	gp_probe_acc_init(&a, 4);
	a.cap = cap;
	for (int k = 0; k < 3; k++)
		gp_probe_acc_add(&a, (double[4]){ 5, 3, 3, 5 });
	is_dbl(gp_probe_spread_concentration(&a), 1.25, 1e-12, "a fast member over its share: 1.25");
	gp_probe_acc_release(&a);

	/* Served counts against max(1/4, cap_i / 3.5): rr's 16 each — the fast
	 * members' 0.25 of 0.2857, the slow one's 0.25 of 0.25 — is 1; a hash on
	 * one fast member 1 / 0.2857 = 3.5. */
	is_dbl(gp_probe_served_spread((double[4]){ 16, 16, 16, 16 }, 4, cap), 1.0, 1e-12, "served rr: 1");
	is_dbl(gp_probe_served_spread((double[4]){ 64, 0, 0, 0 }, 4, cap), 3.5, 1e-12,
	       "served, all on a fast member: 3.5");
	is_dbl(gp_probe_served_spread((double[4]){ 18, 18, 18, 10 }, 4, cap), 18 / 64.0 * 3.5, 1e-12,
	       "served least_conn (18,18,18,10): 0.984");
	is_dbl(gp_probe_served_spread((double[4]){ 3, 2, 2, 1 }, 4, NULL), 1.5, 1e-12,
	       "served without capacities: the plain peak-to-mean");
	ok(isnan(gp_probe_served_spread((double[4]){ 0 }, 4, cap)), "nothing served: undefined");
}

int main(void)
{
	struct gp_probe_thr thr = GP_PROBE_THR_DEFAULT;
	struct gp_probe_acc a;
	double even[4] = { 2, 2, 2, 2 }, hot[4] = { 8, 0, 0, 0 }, idle[4] = { 0 };
	double mild[4] = { 3, 2, 2, 1 }, edge2[4] = { 4, 2, 1, 1 }, edge15[4] = { 3, 2, 2, 1 };

	is_dbl(gp_probe_peak_to_mean(even, 4), 1.0, 1e-12, "even load: 1");
	is_dbl(gp_probe_peak_to_mean(hot, 4), 4.0, 1e-12, "one backend holds all: n");
	ok(isnan(gp_probe_peak_to_mean(idle, 4)), "idle: undefined");
	ok(isnan(gp_probe_peak_to_mean(even, 0)), "no backends: undefined");
	is_dbl(gp_probe_peak_to_mean(mild, 4), 1.5, 1e-12, "3,2,2,1: 3 / 2 = 1.5");

	/* The burst: the integrated load, not the mean of ratios. */
	ok(gp_probe_acc_init(&a, 4) == 0, "acc init");
	gp_probe_acc_add(&a, (double[4]){ 4, 0, 0, 0 });
	gp_probe_acc_add(&a, (double[4]){ 0, 4, 0, 0 });
	gp_probe_acc_add(&a, (double[4]){ 0, 0, 4, 0 });
	gp_probe_acc_add(&a, (double[4]){ 0, 0, 0, 4 });
	ok(isnan(gp_probe_acc_add(&a, idle)), "an idle sample has no ratio");
	is_int(a.samples, 5, "samples counted");
	is_int(a.busy, 4, "busy samples counted");
	is_dbl(gp_probe_mean_ratio(&a), 4.0, 1e-12, "every sample had one hot backend");
	is_dbl(gp_probe_concentration(&a), 1.0, 1e-12, "but over the burst each carried its share");
	ok(gp_probe_engaged("spread", &a, &thr), "which is spread");
	ok(!gp_probe_engaged("concentrate", &a, &thr), "not concentrate");
	gp_probe_acc_release(&a);

	gp_probe_acc_init(&a, 4);
	for (int i = 0; i < 5; i++)
		gp_probe_acc_add(&a, hot);
	is_dbl(gp_probe_concentration(&a), 4.0, 1e-12, "one hot key held on one backend: 4");
	ok(gp_probe_engaged("concentrate", &a, &thr), "concentrate engaged");
	ok(!gp_probe_engaged("spread", &a, &thr), "spread not engaged");
	ok(!gp_probe_engaged("sideways", &a, &thr), "unknown expect: not engaged");
	ok(!gp_probe_engaged(NULL, &a, &thr), "no expect: not engaged");
	gp_probe_acc_release(&a);

	/* Threshold edges: concentrate_min and spread_max are inclusive. */
	gp_probe_acc_init(&a, 4);
	for (int i = 0; i < 3; i++)
		gp_probe_acc_add(&a, edge2);
	is_dbl(gp_probe_concentration(&a), 2.0, 1e-12, "4,2,1,1: exactly 2");
	ok(gp_probe_engaged("concentrate", &a, &thr), "2.0 >= 2.0: concentrate");
	thr.concentrate_min = 2.0001;
	ok(!gp_probe_engaged("concentrate", &a, &thr), "just under a raised bound: not");
	gp_probe_acc_release(&a);
	thr = (struct gp_probe_thr)GP_PROBE_THR_DEFAULT;

	gp_probe_acc_init(&a, 4);
	for (int i = 0; i < 3; i++)
		gp_probe_acc_add(&a, edge15);
	ok(gp_probe_engaged("spread", &a, &thr), "1.5 <= 1.5: spread");
	thr.spread_max = 1.4999;
	ok(!gp_probe_engaged("spread", &a, &thr), "over a lowered bound: not spread");
	gp_probe_acc_release(&a);
	thr = (struct gp_probe_thr)GP_PROBE_THR_DEFAULT;

	/* Too few busy samples: no verdict either way. */
	gp_probe_acc_init(&a, 4);
	gp_probe_acc_add(&a, even);
	gp_probe_acc_add(&a, even);
	for (int i = 0; i < 10; i++)
		gp_probe_acc_add(&a, idle);
	ok(!gp_probe_engaged("spread", &a, &thr), "2 busy samples of 12: not engaged");
	thr.min_busy = 2;
	ok(gp_probe_engaged("spread", &a, &thr), "with min_busy 2: spread");
	gp_probe_acc_release(&a);

	gp_probe_acc_init(&a, 3);
	gp_probe_acc_add(&a, idle);
	ok(isnan(gp_probe_concentration(&a)), "never busy: undefined concentration");
	ok(isnan(gp_probe_mean_ratio(&a)), "never busy: undefined mean ratio");
	gp_probe_acc_release(&a);
	heterogeneous();
	return done_testing();
}
