/* SPDX-License-Identifier: MIT */
/* proof — the decision and delivery proofs of the dual proof (see proof.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "method/gate.h"
#include "base/buf.h"
#include "method/proof.h"
#include "wire/fleet.h"
#include "wire/receipt.h"

/* Sums over the replays that have snapshots of the hit counter in use. */
struct tally {
	long runs, moved, climbed, miss_runs;
	double hits, miss, queries, reqs;
};

/* Append id to the list *l ("a, b, ..."; at most 10 named).  0 or -1 (out of
 * memory: *l as it was). */
static int list_add(char **l, long *n, const char *id)
{
	char *t;

	if (++*n > 10) {
		if (*n == 11) {
			if (!(t = gp_strfmt("%s, ...", *l)))
				return -1;
			free(*l);
			*l = t;
		}
		return 0;
	}
	t = *l ? gp_strfmt("%s, %s", *l, id ? id : "?") : strdup(id ? id : "?");
	if (!t)
		return -1;
	free(*l);
	*l = t;
	return 0;
}

static int tally_runs(int gw, const struct gp_proof_run *runs, size_t n, double miss_ratio,
		      struct tally *t, struct gp_proof *out)
{
	long nm = 0, ns = 0;

	for (size_t r = 0; r < n; r++) {
		const struct gp_proof_run *x = &runs[r];
		int climbed = 0;

		if (!x->have_hit) {
			out->unscraped++;
			if (list_add(&out->not_scraped, &ns, x->id))
				return -1;
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
		if ((!(x->hit > 0) || climbed) && list_add(&out->not_moved, &nm, x->id))
			return -1;
	}
	return 0;
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

/* Append "; " and the text t (taken) to out->detail; -1 when t is NULL. */
static int detail_add(struct gp_proof *out, char *t)
{
	char *d;

	if (!t)
		return -1;
	d = gp_strfmt("%s; %s", out->detail, t);
	free(t);
	if (!d)
		return -1;
	free(out->detail);
	out->detail = d;
	return 0;
}

static int decision(int routes_by_cache, const struct gp_proof_metrics *m,
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
		out->detail = strdup("the arm does not route by cache");
		return out->detail ? 0 : -1;
	}
	if (tally_runs(gw, runs, n_runs, miss_ratio, &t, out))
		return -1;
	if (t.runs == 0) {
		out->detail = gp_strfmt("no before/after metrics snapshots of %s for this arm's %ld "
					"replays", gw ? m->hit : m->vhit, out->replays);
		return out->detail ? 0 : -1;
	}
	if (gw) {
		out->evidence = "gateway_counters";
		out->ok = with_unscraped(t.moved == t.runs && t.climbed == 0, out);
		if (m->miss && t.miss_runs)
			out->detail = gp_strfmt("%s +%.0f over %ld replays (%ld did not move); %s +%.0f over "
						"%.0f requests (%ld of %ld replays at or over %g misses "
						"per request: fallback)", m->hit, t.hits, t.runs,
						t.runs - t.moved, m->miss, t.miss, t.reqs, t.climbed,
						t.miss_runs, miss_ratio);
		else if (m->miss)
			out->detail = gp_strfmt("%s +%.0f over %ld replays (%ld did not move); no "
						"snapshots of %s", m->hit, t.hits, t.runs,
						t.runs - t.moved, m->miss);
		else
			out->detail = gp_strfmt("%s +%.0f over %ld replays (%ld did not move)", m->hit,
						t.hits, t.runs, t.runs - t.moved);
	} else {
		out->evidence = "backend_prefix_cache";
		out->ok = with_unscraped(t.moved == t.runs, out);
		out->detail = gp_strfmt("no gateway cache_hit_metric; backends' %s +%.0f over %ld "
					"replays (%ld did not move), %s +%.0f (hit ratio %.3g)", m->vhit,
					t.hits, t.runs, t.runs - t.moved, m->vquery, t.queries,
					t.queries > 0 ? t.hits / t.queries : NAN);
	}
	if (!out->detail)
		return -1;
	if (out->not_moved &&
	    detail_add(out, gp_strfmt("did not move or fell back: %s", out->not_moved)))
		return -1;
	if (out->unscraped &&
	    detail_add(out, gp_strfmt("%ld of %ld replays without snapshots of their own: %s",
				      out->unscraped, out->replays, out->not_scraped)))
		return -1;
	return 0;
}

int gp_decision_proof(int routes_by_cache, const struct gp_proof_metrics *m,
		      const struct gp_proof_run *runs, size_t n_runs, double miss_ratio,
		      struct gp_proof *out)
{
	if (decision(routes_by_cache, m, runs, n_runs, miss_ratio, out)) {
		gp_proof_release(out);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

int gp_proof_expects_receipt(int disaggregated, int fleet_has_receipt_header)
{
	return disaggregated == 1 || (disaggregated == -1 && fleet_has_receipt_header);
}

int gp_delivery_proof(int expects_receipt, long completed, long receipts, struct gp_proof *out)
{
	memset(out, 0, sizeof(*out));
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

static const char *const rc_names[GP_RC_N] = {
	"ok", "no receipt", "unreadable", "no decode half", "one member for both halves",
	"a member not in the fleet", "a member in the wrong role"
};

const char *gp_receipt_class_name(int c)
{
	return (unsigned)c < GP_RC_N ? rc_names[c] : "?";
}

/* host:port of a URL ("http://h:p/x" → "h:p"), in buf. */
static const char *url_hostport(const char *url, char *buf, size_t cap)
{
	const char *a = url ? strstr(url, "://") : NULL;

	a = a ? a + 3 : url ? url : "";
	snprintf(buf, cap, "%.*s", (int)strcspn(a, "/"), a);
	return buf;
}

static const struct gp_fleet_backend *member(const struct gp_fleet *f, const char *x)
{
	char hp[300];

	for (size_t i = 0; i < f->n_backends; i++)
		if (f->backends[i].name && !strcmp(f->backends[i].name, x))
			return &f->backends[i];
	for (size_t i = 0; i < f->n_backends; i++)
		if (!strcmp(url_hostport(f->backends[i].url, hp, sizeof(hp)), x))
			return &f->backends[i];
	return NULL;
}

static int may(const struct gp_fleet_backend *b, const char *half)
{
	return !b->role || !strcmp(b->role, "both") || !strcmp(b->role, half);
}

int gp_delivery_judge(const struct gp_fleet *f, int split, const char *pre, const char *dec)
{
	const struct gp_fleet_backend *p, *d;

	if (split < GP_RECEIPT_NONE)
		return GP_RC_NONE;
	if (split == GP_RECEIPT_NONE)
		return GP_RC_UNREAD;
	if (!(p = member(f, pre)))
		return GP_RC_UNKNOWN;
	if (split == GP_RECEIPT_PREFILL_ONLY)
		return GP_RC_NO_DECODE;
	if (!(d = member(f, dec)))
		return GP_RC_UNKNOWN;
	if (p == d)
		return GP_RC_SAME;
	if (!may(p, "prefill") || !may(d, "decode"))
		return GP_RC_ROLE;
	return GP_RC_OK;
}

int gp_delivery_proof_judged(int expects_receipt, const long counts[GP_RC_N], double min_share,
			     struct gp_proof *out)
{
	long completed = 0, carried;
	char *bad = NULL, *t;

	for (int c = 0; c < GP_RC_N; c++)
		completed += counts[c];
	carried = completed - counts[GP_RC_NONE];
	if (gp_delivery_proof(expects_receipt, completed, carried, out))
		return -1;
	if (strcmp(out->evidence, "receipt"))
		return 0;	/* not applicable, or nothing completed */
	for (int c = 1; c < GP_RC_N; c++) {
		if (!counts[c])
			continue;
		t = gp_strfmt("%s%s%ld %s", bad ? bad : "", bad ? ", " : "", counts[c], rc_names[c]);
		free(bad);
		if (!(bad = t))
			return -1;
	}
	out->ok = (double)counts[GP_RC_OK] >= min_share * (double)completed;
	t = gp_strfmt("%ld (%.1f %%) name a prefill member and another decode member "
		      "(%g %% needed)%s%s", counts[GP_RC_OK],
		      100.0 * (double)counts[GP_RC_OK] / (double)completed, 100 * min_share,
		      bad ? "; bad receipts: " : "", bad ? bad : "");
	free(bad);
	return detail_add(out, t);
}
