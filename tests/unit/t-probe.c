/* SPDX-License-Identifier: MIT */
/* Unit tests of probe: peak-to-mean per sample and over a burst, the verdict
 * at the edges of its thresholds.  Expected values worked by hand. */
#include <math.h>

#include "method/probe.h"
#include "tap.h"

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
	return done_testing();
}
