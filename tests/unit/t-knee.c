/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of knee: the highest rung whose mean good fraction is >= the
 * target, its crossing neighbour, the edge and the monotone flag.  Each
 * curve is a ladder of mean good fractions in ascending rate order; the
 * expected values are read off by hand as the comment on each case says.
 */
#include <math.h>
#include <string.h>

#include "method/knee.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void pick(const double *m, size_t n, double target, struct gp_knee *k)
{
	k->rung = k->next = 12345;	/* poison: every field must be written */
	k->edge = (enum gp_knee_edge)99;
	k->monotone = -1;
	k->dips = 12345;
	gp_knee_pick(m, n, target, k);
}

static void inside(void)
{
	/* 0.99, 0.95 clear 0.9; 0.7 does not: knee at index 1, next 2, inside. */
	static const double m[] = {0.99, 0.95, 0.7, 0.3};
	struct gp_knee k;

	pick(m, N(m), 0.9, &k);
	is_int(k.rung, 1, "inside: knee at the last rung >= target");
	is_int(k.next, 2, "inside: the crossing's far rung is the one above");
	is_int(k.edge, GP_KNEE_INSIDE, "inside: no edge");
	ok(gp_knee_edge_name(k.edge) == NULL && gp_knee_edge_advice(k.edge) == NULL,
	   "inside: no edge name, no advice");
	is_int(k.monotone, 1, "inside: falling curve is monotone");
}

static void exactly_met(void)
{
	/* 0.9 >= 0.9 (≥, not >): index 2 clears, 0.89 at index 3 does not. */
	static const double m[] = {1.0, 0.95, 0.9, 0.89};
	struct gp_knee k;

	pick(m, N(m), 0.9, &k);
	is_int(k.rung, 2, "target exactly met: that rung is the knee");
	is_int(k.next, 3, "target exactly met: next is the rung above");
	is_int(k.edge, GP_KNEE_INSIDE, "target exactly met: inside");
	/* The same curve against 0.95: index 1 meets it exactly. */
	pick(m, N(m), 0.95, &k);
	is_int(k.rung, 1, "target 0.95 met exactly at index 1");
}

static void never_met(void)
{
	/* Every mean < 0.9: no knee, no next, edge below. */
	static const double m[] = {0.8, 0.6, 0.2};
	struct gp_knee k;

	pick(m, N(m), 0.9, &k);
	ok(k.rung == GP_KNEE_NONE && k.next == GP_KNEE_NONE, "never met: no knee, no next");
	is_int(k.edge, GP_KNEE_BELOW, "never met: edge below");
	is_str(gp_knee_edge_name(k.edge), "below", "never met: named below");
	is_str(gp_knee_edge_advice(k.edge), "no rung clears the target: extend the ladder downward",
	       "never met: advice");
	is_int(k.monotone, 1, "never met: still monotone");
}

static void met_everywhere(void)
{
	/* Every mean >= 0.9: the top rung (index 3) is the knee, nothing above. */
	static const double m[] = {1.0, 0.99, 0.97, 0.91};
	struct gp_knee k;

	pick(m, N(m), 0.9, &k);
	is_int(k.rung, 3, "met at every rung: knee at the top rung");
	ok(k.next == GP_KNEE_NONE, "met at every rung: no rung above");
	is_int(k.edge, GP_KNEE_LAST, "met at every rung: edge last");
	is_str(gp_knee_edge_name(k.edge), "last", "named last");
	ok(strstr(gp_knee_edge_advice(k.edge), "extend the ladder upward") != NULL, "advice: upward");
}

static void first_and_only(void)
{
	static const double m[] = {0.95, 0.5, 0.1};
	static const double one_ok[] = {0.95}, one_bad[] = {0.5};
	struct gp_knee k;

	/* Only index 0 clears: edge first, next 1. */
	pick(m, N(m), 0.9, &k);
	ok(k.rung == 0 && k.next == 1, "only the first rung clears: knee 0, next 1");
	is_int(k.edge, GP_KNEE_FIRST, "edge first");
	is_str(gp_knee_edge_name(k.edge), "first", "named first");
	ok(strstr(gp_knee_edge_advice(k.edge), "too coarse") != NULL, "advice: too coarse");
	/* One rung that clears: "only" wins over "last" and "first". */
	pick(one_ok, 1, 0.9, &k);
	ok(k.rung == 0 && k.next == GP_KNEE_NONE, "one clearing rung: knee 0, no next");
	is_int(k.edge, GP_KNEE_ONLY, "one clearing rung: edge only");
	is_str(gp_knee_edge_name(k.edge), "only", "named only");
	/* One rung that fails: "below" wins over "only". */
	pick(one_bad, 1, 0.9, &k);
	ok(k.rung == GP_KNEE_NONE && k.edge == GP_KNEE_BELOW, "one failing rung: below");
}

static void non_monotone(void)
{
	/* Index 2 (0.92) rises above index 1 (0.8): not monotone; the knee is
	 * the highest clearing rung, index 2, though index 1 fails below it. */
	static const double m[] = {0.95, 0.8, 0.92, 0.5};
	/* A rise that stays below the target: 0.5 → 0.6 at index 3; the knee
	 * (index 0) is unchanged, the flag still drops. */
	static const double m2[] = {0.95, 0.7, 0.5, 0.6};
	/* A flat stretch (0.9 = 0.9) is no rise: still monotone. */
	static const double flat[] = {0.9, 0.9, 0.4};
	/* A NaN mean never clears, and a rise after it is not seen (NaN > x
	 * and x > NaN are false): knee at index 0. */
	static const double nan_mid[] = {0.95, NAN, 0.3};
	struct gp_knee k;

	pick(m, N(m), 0.9, &k);
	ok(k.rung == 2 && k.next == 3, "non-monotone: knee at the highest clearing rung 2, next 3");
	is_int(k.edge, GP_KNEE_INSIDE, "non-monotone: inside");
	is_int(k.monotone, 0, "non-monotone: flagged");
	is_int(k.dips, 1, "non-monotone: one rung below the knee fails");
	ok(gp_knee_advice(&k) && strstr(gp_knee_advice(&k), "non-monotone"),
	   "non-monotone inside: the advice says so (an inside knee had none)");
	pick(m2, N(m2), 0.9, &k);
	ok(k.rung == 0 && k.monotone == 0, "a rise below the target: knee 0, not monotone");
	pick(flat, N(flat), 0.9, &k);
	ok(k.rung == 1 && k.monotone == 1, "flat then falling: knee 1, monotone");
	ok(k.dips == 0 && gp_knee_advice(&k) == NULL, "flat then falling: no dip, no advice");
	pick(nan_mid, N(nan_mid), 0.9, &k);
	ok(k.rung == 0 && k.next == 1 && k.monotone == 1, "NaN mean: not a knee, no rise seen");
}

/* The report of issue 22: the top rung clears, a lower one does not; the
 * advice was "every rung clears the target". */
static void top_clears_lower_fails(void)
{
	static const double m[] = {0.95, 0.85, 0.93};
	static const double up[] = {0.99, 0.97, 0.95};
	struct gp_knee k;

	pick(m, N(m), 0.9, &k);
	ok(k.rung == 2 && k.edge == GP_KNEE_LAST && k.dips == 1, "dip then clear: knee at the top, one dip");
	ok(!strstr(gp_knee_advice(&k), "every rung clears"), "dip then clear: not 'every rung clears'");
	ok(strstr(gp_knee_advice(&k), "non-monotone") && strstr(gp_knee_advice(&k), "upward"),
	   "dip then clear: non-monotone named, and the ladder still to extend upward");
	pick(up, N(up), 0.9, &k);
	is_str(gp_knee_advice(&k), gp_knee_edge_advice(GP_KNEE_LAST),
	       "every rung clears: the edge's advice, unchanged");
}

int main(void)
{
	top_clears_lower_fails();
	inside();
	exactly_met();
	never_met();
	met_everywhere();
	first_and_only();
	non_monotone();
	return done_testing();
}
