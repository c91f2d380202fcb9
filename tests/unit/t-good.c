/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of good: the conjunction mask (never OR), failed-as-miss over
 * the attempted denominator, and the single-token policy.  Expected counts
 * are worked by hand from the table below (each row says why).
 */
#include <math.h>

#include "method/good.h"
#include "tap.h"

int main(void)
{
	struct gp_slo slo = {.ttft_ms = 500, .tpot_ms = 50, .single = GP_SINGLE_TTFT};
	struct gp_tally t;
	enum gp_outcome o;

	ok(gp_outcome_parse("ok", &o) == 0 && o == GP_OUTCOME_OK, "parse ok");
	ok(gp_outcome_parse("single_token", &o) == 0 && o == GP_OUTCOME_SINGLE_TOKEN, "parse single_token");
	ok(gp_outcome_parse("failed", &o) == 0 && o == GP_OUTCOME_FAILED, "parse failed");
	ok(gp_outcome_parse("OK", &o) == -1 && gp_outcome_parse(NULL, &o) == -1, "anything else: -1");
	is_str(gp_outcome_name(GP_OUTCOME_SINGLE_TOKEN), "single_token", "name");

	is_int(gp_good(&slo, GP_OUTCOME_OK, 400, 40), 1, "both within: good");
	is_int(gp_good(&slo, GP_OUTCOME_OK, 500, 50), 1, "both at the bound: good (≤)");
	is_int(gp_good(&slo, GP_OUTCOME_OK, 600, 40), 0, "TTFT over, TPOT within: miss (AND, not OR)");
	is_int(gp_good(&slo, GP_OUTCOME_OK, 400, 60), 0, "TTFT within, TPOT over: miss (AND, not OR)");
	is_int(gp_good(&slo, GP_OUTCOME_OK, 400, NAN), 0, "missing TPOT: miss");
	is_int(gp_good(&slo, GP_OUTCOME_FAILED, 10, 1), 0, "failed with fast timings: miss");
	is_int(gp_good(&slo, GP_OUTCOME_SINGLE_TOKEN, 400, NAN), 1, "single token, TTFT within: good (ttft policy)");
	is_int(gp_good(&slo, GP_OUTCOME_SINGLE_TOKEN, 600, NAN), 0, "single token, TTFT over: miss");

	gp_tally_init(&t);
	gp_tally_add(&t, &slo, GP_OUTCOME_OK, 400, 40);		/* good */
	gp_tally_add(&t, &slo, GP_OUTCOME_OK, 450, 45);		/* good */
	gp_tally_add(&t, &slo, GP_OUTCOME_OK, 600, 40);		/* miss: TTFT */
	gp_tally_add(&t, &slo, GP_OUTCOME_OK, 400, 70);		/* miss: TPOT */
	gp_tally_add(&t, &slo, GP_OUTCOME_SINGLE_TOKEN, 300, NAN);	/* good (ttft policy) */
	gp_tally_add(&t, &slo, GP_OUTCOME_FAILED, NAN, NAN);	/* miss, counted */
	gp_tally_add(&t, &slo, GP_OUTCOME_FAILED, 100, NAN);	/* miss, counted */
	gp_tally_add(&t, &slo, GP_OUTCOME_OK, 100, 10);		/* good */
	is_int(t.attempted, 8, "every request is in the denominator");
	is_int(t.good, 4, "good = 3 paired + 1 single");
	is_int(t.good_single, 1, "single-token goods counted apart");
	is_int(t.paired, 5, "paired ok requests");
	is_int(t.single_token, 1, "single_token");
	is_int(t.failed, 2, "failed kept in the denominator");
	is_int(t.paired + t.unpaired_ok + t.single_token + t.failed, t.attempted, "paired + single + failed = attempted");
	is_dbl(gp_tally_fraction(&t), 0.5, 1e-15, "good fraction 4/8");

	slo.single = GP_SINGLE_MISS;
	gp_tally_init(&t);
	gp_tally_add(&t, &slo, GP_OUTCOME_SINGLE_TOKEN, 300, NAN);
	gp_tally_add(&t, &slo, GP_OUTCOME_OK, 400, 40);
	is_int(t.good, 1, "--single-token miss: the single-token request is a miss");
	is_int(t.single_token, 1, "and still counted apart");
	is_dbl(gp_tally_fraction(&t), 0.5, 1e-15, "fraction 1/2");
	gp_tally_init(&t);
	ok(isnan(gp_tally_fraction(&t)), "nothing attempted: NaN");
	return done_testing();
}
