/* SPDX-License-Identifier: MIT */
/* proof — the decision and delivery proofs of the dual proof (see proof.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "method/gate.h"
#include "base/log.h"
#include "method/proof.h"

/* Sums over the replays that have snapshots of the hit counter in use. */
struct tally {
	long runs, moved, climbed, miss_runs;
	double hits, miss, queries, reqs;
};

/* Append id to the list *l ("a, b, ..."; at most 10 named). */
static void list_add(char **l, long *n, const char *id)
{
	char *t;

	if (++*n > 10) {
		if (*n == 11) {
			t = gp_xasprintf("%s, ...", *l);
			free(*l);
			*l = t;
		}
		return;
	}
	t = *l ? gp_xasprintf("%s, %s", *l, id ? id : "?") : gp_xstrdup(id ? id : "?");
	free(*l);
	*l = t;
}

static void tally_runs(int gw, const struct gp_proof_run *runs, size_t n, double miss_ratio,
		       struct tally *t, struct gp_proof *out)
{
	long nm = 0, ns = 0;

	for (size_t r = 0; r < n; r++) {
		const struct gp_proof_run *x = &runs[r];
		int climbed = 0;

		if (!x->have_hit) {
			out->unscraped++;
			list_add(&out->not_scraped, &ns, x->id);
			continue;
		}
		t->runs++;
		t->hits += x->hit;
		t->moved += x->hit > 0;
		t->reqs += x->attempted;
		if (gw && x->have_miss) {
			t->miss_runs++;
			t->miss += x->miss;
			climbed = gp_gate_miss_climb(x->miss, x->attempted, miss_ratio);
			t->climbed += climbed;
		} else if (!gw && x->have_query) {
			t->queries += x->query;
		}
		if (!(x->hit > 0) || climbed)
			list_add(&out->not_moved, &nm, x->id);
	}
}

void gp_proof_release(struct gp_proof *p)
{
	free(p->detail);
	free(p->not_moved);
	free(p->not_scraped);
	p->detail = p->not_moved = p->not_scraped = NULL;
}

/* A scraped verdict of ok becomes not checked when some replays were not. */
static int with_unscraped(int ok, const struct gp_proof *out)
{
	return ok && out->unscraped ? GP_PROOF_UNKNOWN : ok ? GP_PROOF_OK : GP_PROOF_FAIL;
}

void gp_decision_proof(int routes_by_cache, const struct gp_proof_metrics *m,
		       const struct gp_proof_run *runs, size_t n_runs, double miss_ratio,
		       struct gp_proof *out)
{
	int gw = m->hit != NULL;
	struct tally t = { 0 };

	memset(out, 0, sizeof(*out));
	out->ok = GP_PROOF_UNKNOWN;
	out->evidence = "not_checked";
	out->replays = (long)n_runs;
	if (!routes_by_cache) {
		out->evidence = "not_applicable";
		out->detail = gp_xstrdup("the arm does not route by cache");
		return;
	}
	tally_runs(gw, runs, n_runs, miss_ratio, &t, out);
	if (t.runs == 0) {
		out->detail = gp_xasprintf("no before/after metrics snapshots of %s for this arm's %ld "
					"replays", gw ? m->hit : m->vhit, out->replays);
		return;
	}
	if (gw) {
		out->evidence = "gateway_counters";
		out->ok = with_unscraped(t.moved == t.runs && t.climbed == 0, out);
		if (m->miss && t.miss_runs)
			out->detail = gp_xasprintf("%s +%.0f over %ld replays (%ld did not move); %s +%.0f over "
						"%.0f requests (%ld of %ld replays at or over %g misses "
						"per request: fallback)", m->hit, t.hits, t.runs,
						t.runs - t.moved, m->miss, t.miss, t.reqs, t.climbed,
						t.miss_runs, miss_ratio);
		else if (m->miss)
			out->detail = gp_xasprintf("%s +%.0f over %ld replays (%ld did not move); no "
						"snapshots of %s", m->hit, t.hits, t.runs,
						t.runs - t.moved, m->miss);
		else
			out->detail = gp_xasprintf("%s +%.0f over %ld replays (%ld did not move)", m->hit,
						t.hits, t.runs, t.runs - t.moved);
	} else {
		out->evidence = "backend_prefix_cache";
		out->ok = with_unscraped(t.moved == t.runs, out);
		out->detail = gp_xasprintf("no gateway cache_hit_metric; backends' %s +%.0f over %ld "
					"replays (%ld did not move), %s +%.0f (hit ratio %.3g)", m->vhit,
					t.hits, t.runs, t.runs - t.moved, m->vquery, t.queries,
					t.queries > 0 ? t.hits / t.queries : NAN);
	}
	if (out->not_moved) {
		char *d = gp_xasprintf("%s; did not move or fell back: %s", out->detail, out->not_moved);

		free(out->detail);
		out->detail = d;
	}
	if (out->unscraped) {
		char *d = gp_xasprintf("%s; %ld of %ld replays without snapshots of their own: %s",
				       out->detail, out->unscraped, out->replays, out->not_scraped);

		free(out->detail);
		out->detail = d;
	}
}

int gp_proof_expects_receipt(int disaggregated, int fleet_has_receipt_header)
{
	return disaggregated == 1 || (disaggregated == -1 && fleet_has_receipt_header);
}

void gp_delivery_proof(int expects_receipt, long completed, long receipts, struct gp_proof *out)
{
	memset(out, 0, sizeof(*out));
	out->ok = GP_PROOF_UNKNOWN;
	out->evidence = "not_checked";
	if (!expects_receipt) {
		out->evidence = "not_applicable";
		out->detail = gp_xstrdup("the arm is not disaggregated (no receipt expected)");
	} else if (completed == 0) {
		out->detail = gp_xstrdup("no completed request that could carry a receipt");
	} else {
		out->evidence = "receipt";
		out->ok = receipts == completed;
		out->detail = gp_xasprintf("%ld of %ld completed requests carried a receipt", receipts,
					completed);
	}
}
