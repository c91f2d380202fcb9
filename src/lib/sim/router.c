/* SPDX-License-Identifier: MIT */
/* router — the routing policies and counters of gp-sim's gateway emulation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "wire/prom.h"
#include "sim/pd.h"
#include "sim/router.h"

static const char *const policy_names[GP_ROUTER_NPOLICIES] = { "rr", "chash", "bounded", "kv", "pd", "pd_rr" };
static const char *const miss_names[GP_ROUTER_NMISS] = { "no_match", "fallback" };

int gp_router_policy_parse(const char *s)
{
	for (int i = 0; i < GP_ROUTER_NPOLICIES; i++)
		if (!strcmp(s, policy_names[i]))
			return i;
	return -1;
}

const char *gp_router_policy_name(enum gp_router_policy p)
{
	return (unsigned)p < GP_ROUTER_NPOLICIES ? policy_names[p] : "?";
}

int gp_router_fault_parse(const char *s)
{
	if (!strcmp(s, "kv_events_down"))
		return GP_ROUTER_KV_EVENTS_DOWN;
	if (!strcmp(s, "fallback"))
		return GP_ROUTER_FALLBACK;
	return -1;
}

const char *gp_router_miss_name(enum gp_router_miss m)
{
	return (unsigned)m < GP_ROUTER_NMISS ? miss_names[m] : "?";
}

uint64_t gp_router_key_hash(const char *key, size_t len)
{
	return gp_mix64(gp_fnv1a64(GP_FNV64_OFFSET, key, len));
}

struct point {
	uint64_t h;
	int e;
};

static int point_cmp(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return x->e - y->e;
}

int gp_router_init(struct gp_router *r, enum gp_router_policy policy, int n, double balance,
		   enum gp_router_fault fault)
{
	size_t np = (size_t)n * GP_ROUTER_VNODES;
	struct point *pt;

	memset(r, 0, sizeof(*r));
	if (n < 1 || (unsigned)policy >= GP_ROUTER_NPOLICIES ||
	    (policy == GP_ROUTER_BOUNDED && !(balance > 1)))
		return -1;
	r->policy = policy;
	r->active = fault == GP_ROUTER_FALLBACK ? GP_ROUTER_RR : policy;
	r->fault = fault;
	r->n = n;
	r->balance = balance;
	pt = malloc(np * sizeof(*pt));
	r->ring_hash = malloc(np * sizeof(*r->ring_hash));
	r->ring_engine = malloc(np * sizeof(*r->ring_engine));
	r->routed = calloc((size_t)n, sizeof(*r->routed));
	r->prefilled = calloc((size_t)n, sizeof(*r->prefilled));
	if (!pt || !r->ring_hash || !r->ring_engine || !r->routed || !r->prefilled) {
		free(pt);
		gp_router_release(r);
		return -1;
	}
	for (int e = 0; e < n; e++)
		for (int v = 0; v < GP_ROUTER_VNODES; v++)
			pt[(size_t)e * GP_ROUTER_VNODES + (size_t)v] = (struct point){
				gp_mix64(((uint64_t)(e + 1) << 32) | (uint64_t)v), e };
	qsort(pt, np, sizeof(*pt), point_cmp);
	for (size_t i = 0; i < np; i++) {
		r->ring_hash[i] = pt[i].h;
		r->ring_engine[i] = pt[i].e;
	}
	free(pt);
	return 0;
}

void gp_router_release(struct gp_router *r)
{
	free(r->ring_hash);
	free(r->ring_engine);
	free(r->routed);
	free(r->prefilled);
	r->ring_hash = NULL;
	r->ring_engine = NULL;
	r->routed = NULL;
	r->prefilled = NULL;
}

/* Index of the first ring point with hash >= h (wrapping to 0). */
static size_t ring_find(const struct gp_router *r, uint64_t h)
{
	size_t lo = 0, hi = (size_t)r->n * GP_ROUTER_VNODES;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ring_hash[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == (size_t)r->n * GP_ROUTER_VNODES ? 0 : lo;
}

static int pick_rr(struct gp_router *r)
{
	return (int)(r->rr_next++ % (uint64_t)r->n);
}

static int pick_bounded(struct gp_router *r, const struct gp_router_req *q)
{
	size_t np = (size_t)r->n * GP_ROUTER_VNODES, i = ring_find(r, q->key_hash);
	long total = 0, cap;

	for (int e = 0; e < r->n; e++)
		total += q->load[e];
	cap = (long)ceil(r->balance * (double)(total + 1) / (double)r->n);
	for (size_t k = 0; k < np; k++) {
		int e = r->ring_engine[(i + k) % np];

		if (q->load[e] + 1 <= cap)
			return e;
	}
	return r->ring_engine[i];	/* unreachable: some engine is at or under the mean */
}

/* kv: the longest cached prefix; ties and no match → least loaded, lowest index. */
static int pick_kv(struct gp_router *r, const struct gp_router_req *q, int *hit)
{
	int best = 0;
	size_t bp = 0;

	for (int e = 0; e < r->n; e++) {
		size_t p = q->prefix && r->fault != GP_ROUTER_KV_EVENTS_DOWN ? q->prefix[e] : 0;

		if (p > bp || (p == bp && q->load[e] < q->load[best])) {
			best = e;
			bp = p;
		}
	}
	*hit = bp > 0;
	return best;
}

static enum gp_pd_role role_of(const struct gp_router *r, int e)
{
	return r->role ? (enum gp_pd_role)r->role[e] : GP_ROLE_BOTH;
}

/* pd's prefill member: kv's rule among the engines that may prefill. */
static int pick_prefill(const struct gp_router *r, const struct gp_router_req *q, size_t *bp)
{
	int best = -1;

	*bp = 0;
	for (int e = 0; e < r->n; e++) {
		size_t p = q->prefix && r->fault != GP_ROUTER_KV_EVENTS_DOWN ? q->prefix[e] : 0;

		if (!gp_pd_can_prefill(role_of(r, e)))
			continue;
		if (best < 0 || p > *bp || (p == *bp && q->load[e] < q->load[best])) {
			best = e;
			*bp = p;
		}
	}
	return best;
}

/* pd's decode member: the least loaded that may decode, not pre if another can. */
static int pick_decode(const struct gp_router *r, const struct gp_router_req *q, int pre)
{
	int best = -1;

	for (int pass = 0; pass < 2 && best < 0; pass++)
		for (int e = 0; e < r->n; e++) {
			if (!gp_pd_can_decode(role_of(r, e)) || (pass == 0 && e == pre))
				continue;
			if (best < 0 || q->load[e] < q->load[best])
				best = e;
		}
	return best;
}

/* pd_rr: the next engine after the cursor that may do the half (and, for
 * the decode, is not avoid, where another may); -1 if none may. */
static int pick_next(const struct gp_router *r, uint64_t *cursor, int decode, int avoid)
{
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < r->n; k++) {
			int e = (int)((*cursor + (uint64_t)k) % (uint64_t)r->n);
			enum gp_pd_role ro = role_of(r, e);

			if (!(decode ? gp_pd_can_decode(ro) : gp_pd_can_prefill(ro)) ||
			    (pass == 0 && e == avoid))
				continue;
			*cursor = (uint64_t)e + 1;
			return e;
		}
	return -1;
}

int gp_router_pick_pd(struct gp_router *r, const struct gp_router_req *q, int fallback,
		      int *pre, int *dec)
{
	size_t bp = 0;

	if (r->policy == GP_ROUTER_PD_RR) {
		*pre = pick_next(r, &r->rr_pre, 0, -1);
		*dec = *pre < 0 ? -1 : fallback ? *pre : pick_next(r, &r->rr_dec, 1, *pre);
		if (*pre < 0 || *dec < 0)
			return 0;
		r->requests++;
		r->routed[*dec]++;
		r->prefilled[*pre]++;
		return 0;
	}
	*pre = pick_prefill(r, q, &bp);
	*dec = *pre < 0 ? -1 : fallback ? *pre : pick_decode(r, q, *pre);
	if (*pre < 0 || *dec < 0)
		return 0;
	r->requests++;
	r->routed[*dec]++;
	r->prefilled[*pre]++;
	if (bp > 0)
		r->hits++;
	else
		r->miss[GP_MISS_NO_MATCH]++;
	return bp > 0;
}

int gp_router_pick(struct gp_router *r, const struct gp_router_req *q, int *hit)
{
	int e, h = 0;

	switch (r->active) {
	case GP_ROUTER_CHASH:
		e = q->have_key ? r->ring_engine[ring_find(r, q->key_hash)] : pick_rr(r);
		break;
	case GP_ROUTER_BOUNDED:
		e = q->have_key ? pick_bounded(r, q) : pick_rr(r);
		break;
	case GP_ROUTER_KV:
		e = pick_kv(r, q, &h);
		break;
	case GP_ROUTER_PD:
	case GP_ROUTER_PD_RR: {
		int pre, dec;

		h = gp_router_pick_pd(r, q, 0, &pre, &dec);
		if (hit)
			*hit = h;
		return dec < 0 ? 0 : dec;
	}
	default:
		e = pick_rr(r);
	}
	r->requests++;
	r->routed[e]++;
	if (r->policy == GP_ROUTER_KV) {
		if (r->fault == GP_ROUTER_FALLBACK)
			r->miss[GP_MISS_FALLBACK]++;
		else if (h)
			r->hits++;
		else
			r->miss[GP_MISS_NO_MATCH]++;
	}
	if (hit)
		*hit = h;
	return e;
}

const char *gp_router_mode_name(const struct gp_router *r)
{
	return gp_router_policy_name(r->active);
}

void gp_router_metrics(const struct gp_router *r, struct gp_prom *p, const char *const *engine)
{
	gp_prom_family(p, "gp_router_cache_hits", "counter",
		       "Requests routed to an engine holding a cached prefix of the prompt.");
	gp_prom_sample(p, "gp_router_cache_hits", "_total", NULL, NULL, NULL, (double)r->hits);
	gp_prom_family(p, "gp_router_cache_misses", "counter",
		       "Requests routed without a cache hit, by reason.");
	for (int m = 0; m < GP_ROUTER_NMISS; m++)
		gp_prom_sample(p, "gp_router_cache_misses", "_total", NULL, "reason", miss_names[m],
			       (double)r->miss[m]);
	gp_prom_family(p, "gp_router_requests", "counter", "Requests routed.");
	gp_prom_sample(p, "gp_router_requests", "_total", NULL, NULL, NULL, (double)r->requests);
	gp_prom_family(p, "gp_router_routed", "counter", "Requests routed to each engine.");
	for (int e = 0; e < r->n; e++)
		gp_prom_sample(p, "gp_router_routed", "_total", NULL, "engine", engine[e],
			       (double)r->routed[e]);
	if (r->policy == GP_ROUTER_PD || r->policy == GP_ROUTER_PD_RR) {
		gp_prom_family(p, "gp_router_prefilled", "counter", "Prefills sent to each engine (pd).");
		for (int e = 0; e < r->n; e++)
			gp_prom_sample(p, "gp_router_prefilled", "_total", NULL, "engine", engine[e],
				       (double)r->prefilled[e]);
	}
	gp_prom_family(p, "gp_router_mode", "gauge", "The routing mode the router runs (1).");
	for (int i = 0; i < GP_ROUTER_NPOLICIES; i++)
		gp_prom_sample(p, "gp_router_mode", NULL, NULL, "mode", policy_names[i],
			       r->active == (enum gp_router_policy)i ? 1 : 0);
}
