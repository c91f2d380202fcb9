/* SPDX-License-Identifier: MIT */
/* Unit tests of gate: replicate advice, timeout evidence, counter deltas. */
#include <math.h>

#include "method/gate.h"
#include "stats/stats.h"
#include "tap.h"

int main(void)
{
	/* The verdict itself is gp_stability_verdict(); check the edges we rely on. */
	is_int(gp_stability_verdict(5, 0.10, 5, 0.10, 0), GP_STABILITY_PUBLISHABLE,
	       "N=5, CV=0.10 exactly: PUBLISHABLE");
	is_int(gp_stability_verdict(5, 0.1000001, 5, 0.10, 0), GP_STABILITY_ADD_REPLICATES,
	       "N=5, CV=0.1000001: not publishable");
	is_int(gp_stability_verdict(4, 0.0, 5, 0.10, 0), GP_STABILITY_ADD_REPLICATES,
	       "N=4: ADD_REPLICATES whatever the CV");
	is_int(gp_stability_verdict(8, 0.2, 5, 0.10, 8), GP_STABILITY_PUBLISHABLE_WITH_FOOTNOTE,
	       "at the cap with CV over: FOOTNOTE");
	is_int(gp_stability_verdict(7, 0.2, 5, 0.10, 8), GP_STABILITY_ADD_REPLICATES,
	       "one below the cap: ADD_REPLICATES");

	is_int(gp_gate_add_reps(3, 0.01, 5, 0.10, 0), 2, "3 reps: 2 more to the floor");
	is_int(gp_gate_add_reps(0, NAN, 5, 0.10, 0), 5, "no reps: 5");
	is_int(gp_gate_add_reps(5, 0.10, 5, 0.10, 0), 0, "publishable: 0 more");
	is_int(gp_gate_add_reps(5, 0.1000001, 5, 0.10, 8), 3, "CV over, cap 8: 3 more to the cap");
	is_int(gp_gate_add_reps(6, 0.2, 5, 0.10, 0), 6, "CV over, no cap: double");
	is_int(gp_gate_add_reps(8, 0.2, 5, 0.10, 8), 0, "at the cap: 0 more (footnote)");
	is_int(gp_gate_add_reps(5, NAN, 5, 0.10, 0), 5, "undefined CV is over the bound");

	ok(gp_gate_backend_timeout("http_status", 504, NULL), "504 is a backend timeout");
	ok(gp_gate_backend_timeout("http_status", 408, ""), "408 is a backend timeout");
	ok(!gp_gate_backend_timeout("http_status", 500, "internal error"), "500 is not");
	ok(gp_gate_backend_timeout("http_status", 500, "Prefill TIMED OUT after 30s"),
	   "500 with 'timed out' in the message is");
	ok(gp_gate_backend_timeout("reset", 0, "upstream Timeout"), "a reset saying timeout is");
	ok(gp_gate_backend_timeout("http_status", 503, "gateway time-out"), "time-out spelling");
	ok(!gp_gate_backend_timeout("timeout", 0, "deadline exceeded: timeout"),
	   "the client's deadline is not a backend timeout");
	ok(!gp_gate_backend_timeout("connect", 0, "Connection timed out"),
	   "a connect timeout is not a backend timeout");
	ok(!gp_gate_backend_timeout("cancelled", 0, "timeout"), "cancelled is not");
	ok(!gp_gate_backend_timeout(NULL, 504, NULL), "no error: not a timeout");

	is_dbl(gp_gate_counter_delta(10, 25), 15, 0, "counter delta");
	is_dbl(gp_gate_counter_delta(10, 10), 0, 0, "counter that did not move");
	is_dbl(gp_gate_counter_delta(100, 7), 7, 0, "counter reset: after");
	ok(gp_gate_miss_climb(90, 100, 0.9), "90 misses in 100 requests: climbed");
	ok(!gp_gate_miss_climb(89.999, 100, 0.9), "just under 0.9: did not");
	ok(!gp_gate_miss_climb(5, 0, 0.9), "no requests: did not");

	is_dbl(gp_gate_stability_cv(5, NAN, 0), 0, 0, "every rep at 0: CV taken as 0");
	is_dbl(gp_gate_stability_cv(2, NAN, 0), 0, 0, "two reps at 0: likewise");
	ok(isnan(gp_gate_stability_cv(1, NAN, 0)), "one rep: CV stays undefined");
	ok(isnan(gp_gate_stability_cv(5, NAN, 1e-9)), "a mean above 0 with no CV: undefined");
	is_dbl(gp_gate_stability_cv(5, 0.2, 0.5), 0.2, 0, "a defined CV is the CV");
	is_int(gp_gate_probe(0, 1, 1), GP_PROBE_MISSING, "no probe record: missing evidence");
	is_int(gp_gate_probe(1, 0, 1), GP_PROBE_NOT_CONFIRMED, "mode not confirmed comes first");
	is_int(gp_gate_probe(1, 1, 0), GP_PROBE_NOT_ENGAGED, "confirmed, not engaged");
	is_int(gp_gate_probe(1, 1, 1), GP_PROBE_OK, "confirmed and engaged");
	return done_testing();
}
