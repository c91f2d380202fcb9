/* SPDX-License-Identifier: MIT */
/* proof — the decision and delivery proofs of the dual proof (see proof.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "method/gate.h"
#include "base/buf.h"
#include "method/proof.h"

/* Sums over the runs that have snapshots of the hit counter in use. */
struct tally {
	long runs, moved, climbed, miss_runs;
	double hits, miss, queries, reqs;
};

static void tally_runs(int gw, const struct gp_proof_run *runs, size_t n, double miss_ratio,
		       struct tally *t)
{
	for (size_t r = 0; r < n; r++) {
		const struct gp_proof_run *x = &runs[r];

		if (!x->have_hit)
			continue;
		t->runs++;
		t->hits += x->hit;
		t->moved += x->hit > 0;
		t->reqs += x->attempted;
		if (gw && x->have_miss) {
			t->miss_runs++;
			t->miss += x->miss;
			t->climbed += gp_gate_miss_climb(x->miss, x->attempted, miss_ratio);
		} else if (!gw && x->have_query) {
			t->queries += x->query;
		}
	}
}

int gp_decision_proof(int routes_by_cache, const struct gp_proof_metrics *m,
		      const struct gp_proof_run *runs, size_t n_runs, double miss_ratio,
		      struct gp_proof *out)
{
	int gw = m->hit != NULL;
	struct tally t = { 0 };

	out->ok = GP_PROOF_UNKNOWN;
	out->evidence = "not_checked";
	if (!routes_by_cache) {
		out->evidence = "not_applicable";
		out->detail = strdup("the arm does not route by cache");
		return out->detail ? 0 : -1;
	}
	tally_runs(gw, runs, n_runs, miss_ratio, &t);
	if (t.runs == 0) {
		out->detail = gp_strfmt("no before/after metrics snapshots of %s for this arm's runs",
					gw ? m->hit : m->vhit);
	} else if (gw) {
		out->evidence = "gateway_counters";
		out->ok = t.moved == t.runs && t.climbed == 0;
		if (m->miss && t.miss_runs)
			out->detail = gp_strfmt("%s +%.0f over %ld runs (%ld did not move); %s +%.0f over "
						"%.0f requests (%ld of %ld runs at or over %g misses "
						"per request: fallback)", m->hit, t.hits, t.runs,
						t.runs - t.moved, m->miss, t.miss, t.reqs, t.climbed,
						t.miss_runs, miss_ratio);
		else if (m->miss)
			out->detail = gp_strfmt("%s +%.0f over %ld runs (%ld did not move); no snapshots "
						"of %s", m->hit, t.hits, t.runs, t.runs - t.moved, m->miss);
		else
			out->detail = gp_strfmt("%s +%.0f over %ld runs (%ld did not move)", m->hit,
						t.hits, t.runs, t.runs - t.moved);
	} else {
		out->evidence = "backend_prefix_cache";
		out->ok = t.moved == t.runs;
		out->detail = gp_strfmt("no gateway cache_hit_metric; backends' %s +%.0f over %ld runs "
					"(%ld did not move), %s +%.0f (hit ratio %.3g)", m->vhit,
					t.hits, t.runs, t.runs - t.moved, m->vquery, t.queries,
					t.queries > 0 ? t.hits / t.queries : NAN);
	}
	return out->detail ? 0 : -1;
}

int gp_proof_expects_receipt(int disaggregated, int fleet_has_receipt_header)
{
	return disaggregated == 1 || (disaggregated == -1 && fleet_has_receipt_header);
}

int gp_delivery_proof(int expects_receipt, long completed, long receipts, struct gp_proof *out)
{
	out->ok = GP_PROOF_UNKNOWN;
	out->evidence = "not_checked";
	if (!expects_receipt) {
		out->evidence = "not_applicable";
		out->detail = strdup("the arm is not disaggregated (no receipt expected)");
	} else if (completed == 0) {
		out->detail = strdup("no completed request that could carry a receipt");
	} else {
		out->evidence = "receipt";
		out->ok = receipts == completed;
		out->detail = gp_strfmt("%ld of %ld completed requests carried a receipt", receipts,
					completed);
	}
	return out->detail ? 0 : -1;
}
