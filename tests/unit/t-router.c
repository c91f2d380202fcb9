/* SPDX-License-Identifier: MIT */
/* Unit tests of router: the policies of gp-sim's gateway emulation and its counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/prom.h"
#include "sim/pd.h"
#include "sim/router.h"
#include "tap.h"

#define N 4

static uint64_t keyh(int k)
{
	char s[32];

	snprintf(s, sizeof(s), "key-%d", k);
	return gp_router_key_hash(s, strlen(s));
}

static void test_pd(void)
{
	struct gp_router r;
	int role[N] = { GP_ROLE_PREFILL, GP_ROLE_PREFILL, GP_ROLE_DECODE, GP_ROLE_DECODE };
	long load[N] = { 0, 0, 5, 2 };
	size_t prefix[N] = { 0, 3, 9, 0 };
	struct gp_router_req q = { 1, keyh(1), prefix, load };
	int pre, dec, h;

	ok(gp_router_init(&r, GP_ROUTER_PD, N, 0, GP_ROUTER_OK) == 0, "pd init");
	is_int(gp_router_policy_parse("pd"), GP_ROUTER_PD, "pd parses");
	r.role = role;
	h = gp_router_pick_pd(&r, &q, 0, &pre, &dec);
	is_int(pre, 1, "pd: prefill on the prefill member with the longest cached prefix "
	       "(a decode member's larger cache does not count)");
	is_int(dec, 3, "pd: decode on the least loaded decode member");
	is_int(h, 1, "pd: a cached prefix on the prefill member is a hit");
	prefix[1] = 0;
	load[0] = 4;
	load[1] = 1;
	h = gp_router_pick_pd(&r, &q, 0, &pre, &dec);
	ok(pre == 1 && h == 0, "pd: no prefix cached: the least loaded prefill member, a miss");
	is_int(gp_router_pick(&r, &q, NULL), 3, "gp_router_pick under pd gives the decode member");
	is_int((long)r.routed[3], 3, "the decode member counts as routed");
	is_int((long)r.prefilled[1], 3, "the prefill member counts as prefilled");
	is_int((long)r.routed[1], 0, "a prefill member never counts as routed");
	h = gp_router_pick_pd(&r, &q, 1, &pre, &dec);
	ok(pre == 1 && dec == 1, "pd_fallback: served aggregated on the prefill member");
	role[0] = role[1] = GP_ROLE_DECODE;
	gp_router_pick_pd(&r, &q, 0, &pre, &dec);
	ok(pre == -1 && dec == -1, "no member may prefill: -1, -1");
	role[0] = GP_ROLE_BOTH;
	role[1] = role[2] = role[3] = GP_ROLE_PREFILL;
	gp_router_pick_pd(&r, &q, 0, &pre, &dec);
	ok(pre >= 0 && dec == 0, "the only member that may decode is taken, even when it also prefills");
	gp_router_release(&r);
}

static void test_pd_rr(void)
{
	struct gp_router r;
	int role[N] = { GP_ROLE_PREFILL, GP_ROLE_DECODE, GP_ROLE_PREFILL, GP_ROLE_DECODE };
	long load[N] = { 0, 9, 0, 0 };
	size_t prefix[N] = { 9, 0, 0, 0 };
	struct gp_router_req q = { 1, keyh(1), prefix, load };
	int pre[4], dec[4];

	ok(gp_router_init(&r, GP_ROUTER_PD_RR, N, 0, GP_ROUTER_OK) == 0, "pd_rr init");
	r.role = role;
	for (int i = 0; i < 4; i++)
		gp_router_pick_pd(&r, &q, 0, &pre[i], &dec[i]);
	ok(pre[0] == 0 && pre[1] == 2 && pre[2] == 0 && pre[3] == 2,
	   "pd_rr: prefill members in turn, blind to the cache");
	ok(dec[0] == 1 && dec[1] == 3 && dec[2] == 1 && dec[3] == 3,
	   "pd_rr: decode members in turn, blind to the load");
	is_int((long)r.hits, 0, "pd_rr counts no hits");
	is_str(gp_router_mode_name(&r), "pd_rr", "mode pd_rr");
	gp_router_release(&r);
}

static void test_pd_link(void)
{
	/* Llama 3 8B bf16: 2 x 32 layers x 8 KV heads x 128 x 2 B = 131072 B a token. */
	struct gp_pd_link l = { 0.5, 100, 131072 };

	is_dbl(gp_pd_xfer_bytes(&l, 2048), 2048.0 * 131072, 0, "2048 tokens: 256 MiB of KV");
	/* 0.5 ms + 268435456 B x 8 / 100e9 b/s = 0.5 ms + 21.474836 ms */
	is_int(gp_pd_xfer_ns(&l, 2048), 21974836, "2048 tokens at 100 Gbit/s: 21.97 ms");
	is_int(gp_pd_xfer_ns(&l, 0), 500000, "no tokens: the fixed cost");
	is_int(gp_pd_xfer_ns(&l, -3), 500000, "a negative count is 0");
	is_int(gp_pd_role_parse("prefill"), GP_ROLE_PREFILL, "role prefill parses");
	is_int(gp_pd_role_parse("decode"), GP_ROLE_DECODE, "role decode parses");
	is_int(gp_pd_role_parse("both"), GP_ROLE_BOTH, "role both parses");
	is_int(gp_pd_role_parse("mixed"), -1, "unknown role is -1");
	ok(gp_pd_can_prefill(GP_ROLE_BOTH) && !gp_pd_can_prefill(GP_ROLE_DECODE) &&
	   gp_pd_can_decode(GP_ROLE_BOTH) && !gp_pd_can_decode(GP_ROLE_PREFILL), "what each role may do");
}

static void test_names(void)
{
	is_int(gp_router_policy_parse("rr"), GP_ROUTER_RR, "rr parses");
	is_int(gp_router_policy_parse("kv"), GP_ROUTER_KV, "kv parses");
	is_int(gp_router_policy_parse("bounded"), GP_ROUTER_BOUNDED, "bounded parses");
	is_int(gp_router_policy_parse("chash"), GP_ROUTER_CHASH, "chash parses");
	is_int(gp_router_policy_parse("hash"), -1, "unknown policy is -1");
	is_int(gp_router_fault_parse("kv_events_down"), GP_ROUTER_KV_EVENTS_DOWN, "fault parses");
	is_int(gp_router_fault_parse("fallback"), GP_ROUTER_FALLBACK, "fallback parses");
	is_int(gp_router_fault_parse("down"), -1, "unknown fault is -1");
	is_str(gp_router_miss_name(GP_MISS_NO_MATCH), "no_match", "miss label");
}

static void test_rr(void)
{
	struct gp_router r;
	long load[N] = { 9, 0, 0, 0 };
	struct gp_router_req q = { 1, keyh(1), NULL, load };
	int seq[8];

	ok(gp_router_init(&r, GP_ROUTER_RR, N, 0, GP_ROUTER_OK) == 0, "rr init");
	for (int i = 0; i < 8; i++)
		seq[i] = gp_router_pick(&r, &q, NULL);
	ok(seq[0] == 0 && seq[1] == 1 && seq[2] == 2 && seq[3] == 3 && seq[4] == 0 && seq[7] == 3,
	   "rr cycles in order whatever the key and load");
	is_int((long)r.hits + (long)r.miss[0] + (long)r.miss[1], 0, "rr counts no hits or misses");
	is_int((long)r.requests, 8, "requests counted");
	is_int((long)r.routed[2], 2, "routed per engine");
	gp_router_release(&r);
}

static void test_chash(void)
{
	struct gp_router r;
	long load[N] = { 0 };
	struct gp_router_req q = { 1, 0, NULL, load };
	int cnt[N] = { 0 }, same = 1, first;

	ok(gp_router_init(&r, GP_ROUTER_CHASH, N, 0, GP_ROUTER_OK) == 0, "chash init");
	q.key_hash = keyh(7);
	first = gp_router_pick(&r, &q, NULL);
	for (int i = 0; i < 50; i++) {
		load[first] += 5;	/* load does not move a plain consistent hash */
		same &= gp_router_pick(&r, &q, NULL) == first;
	}
	ok(same, "one key always lands on one engine, whatever its load");
	memset(load, 0, sizeof(load));
	for (int k = 0; k < 4000; k++) {
		q.key_hash = keyh(k);
		cnt[gp_router_pick(&r, &q, NULL)]++;
	}
	for (int e = 0; e < N; e++)
		ok(cnt[e] > 700 && cnt[e] < 1300, "4000 keys spread over the ring: engine %d got %d", e,
		   cnt[e]);
	q.have_key = 0;
	ok(gp_router_pick(&r, &q, NULL) != gp_router_pick(&r, &q, NULL), "no key: round robin");
	gp_router_release(&r);
	{
		/* Consistency: growing the ring moves only about 1/(n+1) of the keys. */
		struct gp_router r4, r5;
		long l5[N + 1] = { 0 };
		struct gp_router_req q5 = { 1, 0, NULL, l5 };
		int moved = 0;

		gp_router_init(&r4, GP_ROUTER_CHASH, N, 0, GP_ROUTER_OK);
		gp_router_init(&r5, GP_ROUTER_CHASH, N + 1, 0, GP_ROUTER_OK);
		for (int k = 0; k < 2000; k++) {
			q.have_key = 1;
			q.key_hash = q5.key_hash = keyh(k);
			moved += gp_router_pick(&r4, &q, NULL) != gp_router_pick(&r5, &q5, NULL);
		}
		ok(moved > 200 && moved < 650, "adding a fifth engine moves %d of 2000 keys (~400)", moved);
		gp_router_release(&r4);
		gp_router_release(&r5);
	}
}

static void test_bounded(void)
{
	struct gp_router r;
	long load[N] = { 0 };
	struct gp_router_req q = { 1, keyh(3), NULL, load };
	int home, e, max = 0;

	ok(gp_router_init(&r, GP_ROUTER_BOUNDED, N, 1.0, GP_ROUTER_OK) == -1,
	   "bounded refuses a balance of 1");
	ok(gp_router_init(&r, GP_ROUTER_BOUNDED, N, 1.25, GP_ROUTER_OK) == 0, "bounded init");
	home = gp_router_pick(&r, &q, NULL);
	/* One hot key, 40 requests held in flight: no engine above ceil(1.25 × mean). */
	for (int i = 0; i < 40; i++) {
		long total = 0, cap;

		for (int k = 0; k < N; k++)
			total += load[k];
		cap = (long)((1.25 * (double)(total + 1) + N - 1e-9) / N);
		e = gp_router_pick(&r, &q, NULL);
		load[e]++;
		ok(load[e] <= cap || (i == 0 && e == home), "request %d: engine %d at %ld within %ld", i,
		   e, load[e], cap);
	}
	for (int k = 0; k < N; k++)
		max = load[k] > max ? (int)load[k] : max;
	ok(max <= 13, "the hot key's peak load %d is bounded near 1.25 × the mean of 10", max);
	ok(load[home] == max, "the key's home engine is the fullest (%ld)", load[home]);
	memset(load, 0, sizeof(load));
	is_int(gp_router_pick(&r, &q, NULL), home, "unloaded again: back to the key's home");
	gp_router_release(&r);
}

static void test_kv(void)
{
	struct gp_router r;
	long load[N] = { 3, 1, 2, 1 };
	size_t pre[N] = { 0, 0, 5, 2 };
	struct gp_router_req q = { 0, 0, pre, load };
	int hit = -1;

	ok(gp_router_init(&r, GP_ROUTER_KV, N, 0, GP_ROUTER_OK) == 0, "kv init");
	is_int(gp_router_pick(&r, &q, &hit), 2, "kv: the longest cached prefix wins over load");
	is_int(hit, 1, "that is a hit");
	pre[2] = 0;
	pre[3] = 0;
	is_int(gp_router_pick(&r, &q, &hit), 1, "no match: least loaded, lowest index");
	is_int(hit, 0, "that is a miss");
	pre[0] = pre[3] = 4;
	is_int(gp_router_pick(&r, &q, &hit), 3, "equal prefixes: the less loaded");
	is_int((long)r.hits, 2, "hits counted");
	is_int((long)r.miss[GP_MISS_NO_MATCH], 1, "no_match miss counted");
	is_str(gp_router_mode_name(&r), "kv", "mode kv");
	gp_router_release(&r);

	/* kv_events_down: the caches are invisible, misses climb request for request. */
	ok(gp_router_init(&r, GP_ROUTER_KV, N, 0, GP_ROUTER_KV_EVENTS_DOWN) == 0, "kv down init");
	pre[0] = pre[1] = pre[2] = pre[3] = 9;
	for (int i = 0; i < 10; i++)
		gp_router_pick(&r, &q, &hit);
	is_int((long)r.hits, 0, "kv_events_down: no hit although every engine holds the prefix");
	is_int((long)r.miss[GP_MISS_NO_MATCH], 10, "kv_events_down: one no_match miss per request");
	is_str(gp_router_mode_name(&r), "kv", "kv_events_down still claims kv");
	gp_router_release(&r);

	ok(gp_router_init(&r, GP_ROUTER_KV, N, 0, GP_ROUTER_FALLBACK) == 0, "fallback init");
	is_str(gp_router_mode_name(&r), "rr", "fallback runs and says rr");
	is_int(gp_router_pick(&r, &q, &hit), 0, "fallback: round robin (0)");
	is_int(gp_router_pick(&r, &q, &hit), 1, "fallback: round robin (1)");
	is_int((long)r.miss[GP_MISS_FALLBACK], 2, "fallback misses counted with their reason");
	is_int((long)r.hits, 0, "fallback: no hit");
	gp_router_release(&r);
}

struct seen {
	double hits, miss_nm, mode_kv, mode_rr, routed1;
	int n;
};

static void cb(const char *series, double v, void *arg)
{
	struct seen *s = arg;

	s->n++;
	if (!strcmp(series, "gp_router_cache_hits_total"))
		s->hits = v;
	else if (!strcmp(series, "gp_router_cache_misses_total{reason=\"no_match\"}"))
		s->miss_nm = v;
	else if (!strcmp(series, "gp_router_mode{mode=\"kv\"}"))
		s->mode_kv = v;
	else if (!strcmp(series, "gp_router_mode{mode=\"rr\"}"))
		s->mode_rr = v;
	else if (!strcmp(series, "gp_router_routed_total{engine=\"e1\"}"))
		s->routed1 = v;
}

static void test_metrics(void)
{
	struct gp_router r;
	long load[2] = { 0, 0 };
	size_t pre[2] = { 0, 3 };
	struct gp_router_req q = { 0, 0, pre, load };
	const char *names[2] = { "e0", "e1" };
	struct gp_prom p;
	struct seen s = { 0 };

	gp_router_init(&r, GP_ROUTER_KV, 2, 0, GP_ROUTER_OK);
	gp_router_pick(&r, &q, NULL);
	pre[1] = 0;
	gp_router_pick(&r, &q, NULL);
	gp_prom_init(&p);
	gp_router_metrics(&r, &p, names);
	ok(!p.err && gp_prom_parse(p.buf, p.len, cb, &s) == 0, "metrics parse");
	ok(s.hits == 1 && s.miss_nm == 1 && s.mode_kv == 1 && s.mode_rr == 0 && s.routed1 == 1,
	   "hits 1, no_match 1, mode kv, engine e1 routed 1");
	is_int(s.n, 1 + 2 + 1 + 2 + GP_ROUTER_NPOLICIES, "every series written (a mode gauge per policy)");
	gp_prom_release(&p);
	gp_router_release(&r);
}

int main(void)
{
	test_names();
	test_rr();
	test_chash();
	test_bounded();
	test_kv();
	test_metrics();
	test_pd();
	test_pd_rr();
	test_pd_link();
	return done_testing();
}
