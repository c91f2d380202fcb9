/* SPDX-License-Identifier: MIT */
/*
 * router — the routing decision of gp-sim's gateway emulation (gp-sim
 * --router): which engine serves a request, and the counters a cache-aware
 * gateway exports about its decisions.  Pure logic: the caller (gp-sim) says,
 * per request, the cache key's hash, how many leading prompt blocks each
 * engine holds in its prefix cache and each engine's load; the router picks.
 *
 * Policies (the active mode):
 *   rr       round robin over the engines, blind to the request.
 *   chash    consistent hashing of the key on a ring of GP_ROUTER_VNODES
 *            points per engine (Karger et al. 1997): the first point at or
 *            after the key's hash, wrapping; a request without a key is
 *            routed round robin.
 *   bounded  consistent hashing with bounded loads (Mirrokni, Thorup,
 *            Zadimoghaddam 2018): walk the ring from the key's point and take
 *            the first engine whose load, counting this request, stays within
 *            ceil(balance × (total load + 1) / n) — HAProxy's
 *            hash-balance-factor is the same rule with balance in percent.
 *   kv       by the longest cached prefix: the engine holding the most
 *            leading blocks of the prompt (the engines' caches play the part
 *            of the KV-events plane a real cache-aware gateway subscribes
 *            to); ties, and requests no engine has cached, go to the least
 *            loaded engine, then the lowest index.  A request routed to an
 *            engine that holds at least one block is a hit; any other is a
 *            miss with reason "no_match".
 *   pd       disaggregated prefill/decode (sim/pd.h): the prefill member
 *            is picked as kv picks, among the engines whose role may
 *            prefill; the decode member is the least loaded engine whose
 *            role may decode, other than the prefill member where there is
 *            one (ties: lowest index).  gp_router_pick_pd gives both;
 *            gp_router_pick gives the decode member.
 *   pd_rr    disaggregated, blind: the prefill member round robin among
 *            those that may prefill, the decode member round robin among
 *            those that may decode (other than the prefill member where
 *            possible) — the floor arm of a pd campaign.
 *
 * Faults (what real KV-aware gateways suffer):
 *   kv_events_down  the KV plane stops feeding the router: it sees no engine
 *            cache (every lookup empty), so every request misses with
 *            "no_match" and falls to the no-match rule — round robin in
 *            effect — while the mode gauge still says kv.  Silent.
 *   fallback the router could not reach the KV plane at start and runs rr
 *            instead, and says so: the mode gauge and gp_router_mode_name()
 *            give "rr"; every request counts a miss with reason "fallback".
 *
 * The pd_fallback fault (gp_router_pick_pd's `fallback`, drawn by the
 * caller): the router serves the request aggregated on the prefill member,
 * silently — the counters look as usual; only the receipt can tell.
 *
 * Ownership: gp_router_init allocates the ring (gp_router_release frees it);
 * the arrays passed to gp_router_pick stay the caller's.
 */
#ifndef GP_ROUTER_H
#define GP_ROUTER_H

#include <stddef.h>
#include <stdint.h>

enum gp_router_policy { GP_ROUTER_RR, GP_ROUTER_CHASH, GP_ROUTER_BOUNDED, GP_ROUTER_KV,
			GP_ROUTER_PD, GP_ROUTER_PD_RR, GP_ROUTER_NPOLICIES };
enum gp_router_fault { GP_ROUTER_OK, GP_ROUTER_KV_EVENTS_DOWN, GP_ROUTER_FALLBACK };
enum gp_router_miss { GP_MISS_NO_MATCH, GP_MISS_FALLBACK, GP_ROUTER_NMISS };

#define GP_ROUTER_VNODES 160

struct gp_router {
	enum gp_router_policy policy;	/* configured */
	enum gp_router_policy active;	/* what it runs (rr under the fallback fault) */
	enum gp_router_fault fault;
	int n;				/* engines */
	double balance;			/* bounded: load factor, > 1 */
	uint64_t *ring_hash;		/* [n × VNODES] sorted point hashes */
	int *ring_engine;		/* engine of each point */
	uint64_t rr_next, rr_pre, rr_dec;	/* rr, and pd_rr's two cursors */
	/* counters */
	uint64_t requests, hits, miss[GP_ROUTER_NMISS];
	uint64_t *routed;		/* [n] requests sent to each engine */
	uint64_t *prefilled;		/* [n] pd: prefills sent to each engine */
	const int *role;		/* pd: [n] enum gp_pd_role, borrowed (NULL: all both) */
};

/* The request as the router sees it. */
struct gp_router_req {
	int have_key;
	uint64_t key_hash;		/* gp_router_key_hash of the key header */
	const size_t *prefix;		/* [n] leading prompt blocks cached per engine, or NULL */
	const long *load;		/* [n] requests each engine holds (running + waiting) */
};

/* Policy name ↔ enum: "rr", "chash", "bounded", "kv"; -1 when unknown. */
int gp_router_policy_parse(const char *s);
const char *gp_router_policy_name(enum gp_router_policy p);
/* Fault name ↔ enum: "kv_events_down", "fallback"; -1 when unknown. */
int gp_router_fault_parse(const char *s);
/* Miss reason label: "no_match", "fallback". */
const char *gp_router_miss_name(enum gp_router_miss m);

/* 0, or -1 (n < 1, balance <= 1 for bounded, out of memory). */
int gp_router_init(struct gp_router *r, enum gp_router_policy policy, int n, double balance,
		   enum gp_router_fault fault);
void gp_router_release(struct gp_router *r);

/* FNV-1a 64 of the key's bytes, finalised by a 64-bit mixer (splitmix64). */
uint64_t gp_router_key_hash(const char *key, size_t len);

/* The engine (0..n-1) for q; updates the counters.  *hit (may be NULL) is
 * 1 for a cache hit (kv only), else 0. */
int gp_router_pick(struct gp_router *r, const struct gp_router_req *q, int *hit);

/*
 * pd: the prefill member (*pre) and the decode member (*dec) for q, or -1
 * when no engine may prefill or none may decode; updates the counters (the
 * decode member counts as routed, the prefill member as prefilled).  With
 * fallback set, *dec = *pre (the request is served aggregated).  Returns 1
 * for a cache hit on the prefill member, else 0.
 */
int gp_router_pick_pd(struct gp_router *r, const struct gp_router_req *q, int fallback,
		      int *pre, int *dec);

/* The mode the router runs and reports: gp_router_policy_name(r->active). */
const char *gp_router_mode_name(const struct gp_router *r);

struct gp_prom;
/*
 * Append the router's metrics (Prometheus text) to p; engine[i] names engine
 * i (host:port).  The series, which the fleet file's gateway fields name:
 *   gp_router_cache_hits_total                  counter  kv hits
 *   gp_router_cache_misses_total{reason="…"}     counter  no_match, fallback
 *   gp_router_requests_total                    counter  requests routed
 *   gp_router_routed_total{engine="…"}           counter  per engine
 *   gp_router_prefilled_total{engine="…"}        counter  pd: prefills per engine
 *   gp_router_mode{mode="…"}                     gauge    1 for the active mode,
 *                                                        0 for the others
 */
void gp_router_metrics(const struct gp_router *r, struct gp_prom *p, const char *const *engine);

#endif
