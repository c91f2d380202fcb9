/* SPDX-License-Identifier: MIT */
/* validity — the run validity rules of method §8.1 (see validity.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "method/gate.h"
#include "method/validity.h"
#include "base/buf.h"
#include "base/vec.h"

const char *const gp_rule_name[GP_N_RULES] = {
	"invalid_framing", "hang_truncated", "backend_timeout", "vip_200",
	"backend_health", "zero_paired",
	"client_behind", "capped_sends", "interrupted", "achieved_rate", "shards",
	"client_limit", "emulator_behind",
	"kv_events", "probe", "gateway", "mixed_runs",
};

int gp_validity_note_request(struct gp_run_evidence *e, const char *outcome, const char *error,
			     long http_status, const char *detail, double ttft_ms, double tpot_ms)
{
	e->n_req++;
	if (!strcmp(outcome, "ok") && !isnan(ttft_ms) && !isnan(tpot_ms))
		e->paired++;
	if (!error)
		return 0;
	if (!strcmp(error, "client_limit"))
		e->client_limit++;
	if (!strcmp(error, "hang") && isfinite(ttft_ms))
		e->hang++;
	else if (!strcmp(error, "truncated"))
		e->truncated++;
	else if (!strcmp(error, "invalid_framing"))
		e->framing_req++;
	if (gp_gate_backend_timeout(error, http_status, detail)) {
		e->timeouts++;
		if (!e->timeout_example)
			e->timeout_example = http_status && !strcmp(error, "http_status") ?
				gp_strfmt("http %ld", http_status) :
				gp_strfmt("%s: %.80s", error, detail ? detail : "");
		if (!e->timeout_example)
			return -1;
	}
	return 0;
}

void gp_validity_note_lag(struct gp_run_evidence *e, int after, double tokens, double on_time)
{
	after = after != 0;
	e->lag_tokens[after] += tokens;
	e->lag_on_time[after] += on_time;
	e->have_lag[after] = 1;
}

int gp_validity_note_shard(struct gp_run_evidence *e, long i, long n, int trailer)
{
	if (!e->shard_n) {
		int *hdr = calloc((size_t)n, sizeof(int)), *end = calloc((size_t)n, sizeof(int));

		if (!hdr || !end) {
			free(hdr);
			free(end);
			errno = ENOMEM;
			return -1;
		}
		e->shard_n = n;
		e->shard_hdr = hdr;
		e->shard_end = end;
	}
	if (n != e->shard_n) {
		e->shard_n_other = n;
		return 0;
	}
	(trailer ? e->shard_end : e->shard_hdr)[i - 1]++;
	return 0;
}

void gp_run_evidence_release(struct gp_run_evidence *e)
{
	free(e->timeout_example);
	free(e->shard_hdr);
	free(e->shard_end);
	e->timeout_example = NULL;
	e->shard_hdr = e->shard_end = NULL;
}

static int check_cmp(const void *a, const void *b)
{
	const struct gp_health_check *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

int gp_validity_rounds(struct gp_health_check *h, size_t n, struct gp_health_round **rounds,
		       size_t *n_rounds)
{
	size_t nr = 0, cap = 0;
	struct gp_health_round *r = NULL;

	if (n)
		qsort(h, n, sizeof(*h), check_cmp);
	for (size_t i = 0; i < n; i++) {
		struct gp_health_round *c;

		if (i == 0 || h[i - 1].kind == GP_HEALTH_SUMMARY) {
			struct gp_health_round *g = nr < cap ? r : gp_grow(r, &cap, nr + 1, sizeof(*r), 8);

			if (!g) {
				free(r);
				errno = ENOMEM;
				return -1;
			}
			r = g;
			c = &r[nr++];
			memset(c, 0, sizeof(*c));
			c->start = h[i].at;
			c->start_text = h[i].at_text;
		}
		c = &r[nr - 1];
		c->end = h[i].at;
		c->end_text = h[i].at_text;
		if (h[i].began && h[i].began < c->start)
			c->start = h[i].began;
		if (!c->for_run && h[i].for_run)
			c->for_run = h[i].for_run;
		if (h[i].kind == GP_HEALTH_VIP && !c->vip)
			c->vip = h[i].target;
		c->n_backend += h[i].kind == GP_HEALTH_BACKEND;
	}
	*rounds = r;
	*n_rounds = nr;
	return 0;
}

/* The reason t (taken) that rule hits; an allocation that failed (t NULL,
 * or the array's) marks the verdict failed: a reason is never lost quietly. */
static void reason(struct gp_run_verdict *v, enum gp_rule rule, char *t)
{
	if (!t || json_array_append_new(v->reasons, json_string(t)))
		v->failed = 1;
	free(t);
	v->hit[rule] = 1;
}

static void flag(struct gp_run_verdict *v, json_t *f)
{
	if (json_array_append_new(v->flags, f))
		v->failed = 1;
}

static const char *plural(long long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* Two URLs of one VIP: equal but for trailing slashes. */
static int same_url(const char *a, const char *b)
{
	size_t na, nb;

	if (!a || !b)
		return 0;
	na = strlen(a);
	nb = strlen(b);
	while (na && a[na - 1] == '/')
		na--;
	while (nb && b[nb - 1] == '/')
		nb--;
	return na == nb && !strncmp(a, b, na);
}

/* Evidence taken for another run does not cover this one. */
static int names_other(const char *for_run, const char *run_id)
{
	return for_run && (!run_id || strcmp(for_run, run_id));
}

static int64_t run_start(const struct gp_run_evidence *e)
{
	return e->have_start ? e->start_ns : e->end_ns;
}

static int64_t run_end(const struct gp_run_evidence *e)
{
	return e->have_end ? e->end_ns : e->start_ns;
}

/* The failed checks in [start − W, end + W] (validity.h, struct gp_window). */
static void failed_checks(const struct gp_run_evidence *e, const struct gp_window *w,
			  struct gp_run_verdict *v)
{
	int64_t lo = run_start(e) - w->window_ns, hi = run_end(e) + w->window_ns;

	for (size_t i = 0; i < w->n_h; i++) {
		const struct gp_health_check *c = &w->h[i];
		int vip_match = !e->url || same_url(c->target, e->url);

		if (c->at < lo || c->at > hi || c->ok)
			continue;
		if (c->kind == GP_HEALTH_VIP && vip_match && !v->hit[GP_RULE_VIP])
			reason(v, GP_RULE_VIP, gp_strfmt("vip_200: vip_chat check of %s failed at %s",
							 c->target ? c->target : "the VIP", c->at_text));
		else if (c->kind == GP_HEALTH_BACKEND && !v->hit[GP_RULE_BACKEND])
			reason(v, GP_RULE_BACKEND,
			       gp_strfmt("backend_health: backend_models check of %s failed at %s",
					 c->target ? c->target : "a backend", c->at_text));
		else if (c->kind == GP_HEALTH_KV && vip_match && !v->hit[GP_RULE_KV])
			reason(v, GP_RULE_KV, gp_strfmt("kv_events: the KV-events precheck of %s failed "
							"at %s", c->target ? c->target : "the VIP",
							c->at_text));
	}
}

/*
 * The health rules: a covering round before and one after (validity.h,
 * struct gp_window), each against the run's VIP, and no failed check in the
 * window.
 */
static void health_rules(const struct gp_run_evidence *e, const struct gp_window *w,
			 struct gp_run_verdict *v)
{
	struct gp_health_round *before = NULL, *after = NULL, *be_before = NULL, *be_after = NULL;
	int64_t s = run_start(e), t = run_end(e);

	for (size_t i = 0; i < w->n_rounds; i++) {
		struct gp_health_round *r = &w->rounds[i];
		int is_before = r->end <= s && r->end >= s - w->window_ns;
		int is_after = r->start >= t && r->start <= t + w->window_ns;

		if (names_other(r->for_run, e->run_id) || (!is_before && !is_after))
			continue;
		if (is_before && r->n_backend && (!be_before || r->end > be_before->end))
			be_before = r;
		if (is_after && r->n_backend && (!be_after || r->start < be_after->start))
			be_after = r;
		if (!e->url || !same_url(r->vip, e->url))
			continue;
		if (is_before && (!before || r->end > before->end))
			before = r;
		if (is_after && (!after || r->start < after->start))
			after = r;
	}
	v->checked[GP_RULE_VIP] = v->checked[GP_RULE_KV] = before && after;
	v->checked[GP_RULE_BACKEND] = be_before && be_after;
	if (before && after)
		before->used = after->used = 1;
	if (be_before && be_after)
		be_before->used = be_after->used = 1;
	failed_checks(e, w, v);
}

/* The probe rule: a good probe of the arm before the run, none failed. */
static void probe_rule(const struct gp_run_evidence *e, const struct gp_window *w, int64_t gen,
		       struct gp_run_verdict *v)
{
	int64_t s = run_start(e), t = run_end(e);
	struct gp_probe_ev *cover = NULL;

	for (size_t i = 0; i < w->n_probes; i++) {
		struct gp_probe_ev *p = &w->probes[i];

		if (!e->arm || strcmp(p->arm, e->arm) || (p->vip && e->url && !same_url(p->vip, e->url)))
			continue;
		if (!p->ok && p->at >= s - w->window_ns && p->at <= t + w->window_ns) {
			if (!v->hit[GP_RULE_PROBE])
				reason(v, GP_RULE_PROBE, gp_strfmt("probe: the probe %s of arm %s at %s "
								   "failed: %s", p->run ? p->run : "?",
								   p->arm, p->at_text,
								   p->reason ? p->reason : "not engaged"));
			continue;
		}
		if (!p->ok || names_other(p->for_run, e->run_id) || !p->vip || !e->url)
			continue;
		if (p->at > s || p->at < s - w->window_ns || p->at <= gen)
			continue;
		if (!cover || p->at > cover->at)
			cover = p;
	}
	v->checked[GP_RULE_PROBE] = cover != NULL;
	if (cover)
		cover->used = 1;
}

/*
 * The gateway rule: the last recreation at or before the start was of the
 * run's arm, and none happened during the run.  Returns the time of that
 * recreation (INT64_MIN when none), which a probe must follow.
 */
static int64_t gateway_rule(const struct gp_run_evidence *e, const struct gp_window *w,
			    struct gp_run_verdict *v)
{
	int64_t s = run_start(e), t = run_end(e);
	const struct gp_gateway_ev *last = NULL, *during = NULL;

	for (size_t i = 0; i < w->n_gw; i++) {
		const struct gp_gateway_ev *g = &w->gw[i];

		if (g->up_at <= s && (!last || g->up_at >= last->up_at))
			last = g;
		if (g->up_at > s && g->up_at <= t && !during)
			during = g;
	}
	if (!last)
		return INT64_MIN;
	v->checked[GP_RULE_GATEWAY] = 1;
	if (!e->arm || strcmp(last->arm, e->arm))
		reason(v, GP_RULE_GATEWAY, gp_strfmt("gateway: the gateway was last recreated at %s "
							"in arm %s, not %s", last->at_text, last->arm,
							e->arm ? e->arm : "?"));
	if (during)
		reason(v, GP_RULE_GATEWAY, gp_strfmt("gateway: the gateway was recreated during the "
							"run, at %s (generation %s)", during->at_text,
							during->generation ? during->generation : "?"));
	return last->up_at;
}

/* The rules that read the evidence around the run. */
static void window_rules(const struct gp_run_evidence *e, const struct gp_window *w,
			 struct gp_run_verdict *v)
{
	int64_t gen;

	if (!w || (!e->have_start && !e->have_end))
		return;
	health_rules(e, w, v);
	gen = gateway_rule(e, w, v);
	probe_rule(e, w, gen, v);
}

/* client_behind: discarded past the tolerance of the schedule, flagged within. */
static void behind_rule(const struct gp_run_evidence *e, struct gp_run_verdict *v)
{
	double gap_ms = e->rate > 0 ? 1000 / e->rate : 0;

	if (!(gap_ms > 0) || e->late_p99 > GP_LATE_P99_GAP * gap_ms || e->late_max > gap_ms)
		reason(v, GP_RULE_BEHIND, gp_strfmt("client_behind: the client did not hold its "
						    "schedule (send lateness p99 %.3g ms, max %.3g ms; "
						    "mean gap %.3g ms)", e->late_p99, e->late_max, gap_ms));
	else
		flag(v, json_sprintf("client_behind: send lateness p99 %.3g ms, "
							     "max %.3g ms, within the tolerance of the "
							     "%.3g ms mean gap", e->late_p99,
							     e->late_max, gap_ms));
}

/* achieved_rate: the achieved rate against the label (a label of 0 has none). */
static void rate_rule(const struct gp_run_evidence *e, struct gp_run_verdict *v)
{
	double dev, bound = GP_RATE_DISCARD;

	if (e->rate == 0) {
		v->checked[GP_RULE_RATE] = 1;	/* no label to hold it to */
		return;
	}
	double ach = e->have_achieved_start ? e->achieved_start : e->achieved;
	long long n = e->have_achieved_start ? e->n_start : e->n_req;

	if (!(e->have_achieved || e->have_achieved_start) || !(e->rate > 0))
		return;
	dev = ach / e->rate - 1;
	if (e->poisson && n > 1)
		bound += 3 / sqrt((double)(n - 1));
	v->checked[GP_RULE_RATE] = 1;
	if (fabs(dev) > bound)
		reason(v, GP_RULE_RATE, gp_strfmt("achieved_rate: %.4g req/s against the label %.4g "
						  "(%+.1f %%, bound %.1f %%)", ach, e->rate,
						  100 * dev, 100 * bound));
	else if (fabs(dev) > GP_RATE_FLAG)
		flag(v, json_sprintf("achieved_rate: %.4g req/s against the "
							     "label %.4g (%+.1f %%, over the %.0f %% "
							     "flag)", ach, e->rate, 100 * dev,
							     100 * GP_RATE_FLAG));
}

/*
 * The client's rules: the client, not the server, shaped a run whose sends
 * fell behind schedule, were held back by --max-inflight, or were stopped by
 * a signal; and a run whose achieved rate is not its label offered another
 * load than the rung says.  Checked when the run_end carries the field.
 */
static void client_rules(const struct gp_run_evidence *e, struct gp_run_verdict *v)
{
	v->checked[GP_RULE_BEHIND] = e->have_behind;
	v->checked[GP_RULE_CAPPED] = e->have_capped;
	v->checked[GP_RULE_INTERRUPTED] = e->have_interrupted;
	if (e->behind)
		behind_rule(e, v);
	if (e->capped > 0)
		reason(v, GP_RULE_CAPPED, gp_strfmt("capped_sends: %lld %s held back by --max-inflight",
						    e->capped, plural(e->capped, "send", "sends")));
	if (e->interrupted)
		reason(v, GP_RULE_INTERRUPTED, gp_strfmt("interrupted: a signal stopped the run; its "
							 "rep is incomplete"));
	rate_rule(e, v);
}

/* The shards rule (gp_validity_note_shard). */
static void shard_rule(const struct gp_run_evidence *e, struct gp_run_verdict *v)
{
	long bad = 0, first = 0, dup = 0;

	v->checked[GP_RULE_SHARDS] = 1;	/* no shard fields: one unsharded file */
	if (e->shard_n_other) {
		reason(v, GP_RULE_SHARDS, gp_strfmt("missing_shard: shards of %ld and of %ld in one "
						       "run", e->shard_n, e->shard_n_other));
		return;
	}
	for (long i = 0; i < e->shard_n; i++)
		if (e->shard_hdr[i] != 1 || e->shard_end[i] != 1) {
			if (!bad++)
				first = i;
			dup |= e->shard_hdr[i] > 1 || e->shard_end[i] > 1;
		}
	if (!bad)
		return;
	if (dup)
		reason(v, GP_RULE_SHARDS, gp_strfmt("duplicate_shard: shard %ld/%ld has %d run "
						       "headers and %d run_ends (merged twice?)",
						       first + 1, e->shard_n, e->shard_hdr[first],
						       e->shard_end[first]));
	else
		reason(v, GP_RULE_SHARDS, gp_strfmt("missing_shard: %ld of %ld %s incomplete "
						       "(first: %ld/%ld, %s)", bad, e->shard_n,
						       plural(e->shard_n, "shard", "shards"), first + 1,
						       e->shard_n,
						       !e->shard_hdr[first] && !e->shard_end[first] ?
						       "absent" : !e->shard_hdr[first] ? "no run header" :
						       "no run_end"));
}

/* The server's rules on the streams: framing, hangs and truncations, timeouts. */
static void stream_rules(const struct gp_run_evidence *e, struct gp_run_verdict *v)
{
	long long framing = e->framing_trailer > e->framing_req ? e->framing_trailer : e->framing_req;
	long long hang = e->hang > e->hang_trailer ? e->hang : e->hang_trailer;
	long long trunc = e->truncated > e->truncated_trailer ? e->truncated : e->truncated_trailer;

	v->checked[GP_RULE_FRAMING] = e->have_framing_trailer;
	v->checked[GP_RULE_HANG] = v->checked[GP_RULE_TIMEOUT] = v->checked[GP_RULE_PAIRED] = 1;
	if (framing > 0)
		reason(v, GP_RULE_FRAMING, gp_strfmt("invalid_framing: %lld %s", framing,
						     plural(framing, "request", "requests")));
	if (hang > 0)
		reason(v, GP_RULE_HANG, gp_strfmt("hang: %lld %s", hang,
						  plural(hang, "request", "requests")));
	if (trunc > 0)
		reason(v, GP_RULE_HANG, gp_strfmt("truncated: %lld %s", trunc,
						  plural(trunc, "request", "requests")));
	if (e->timeouts > 0)
		reason(v, GP_RULE_TIMEOUT, gp_strfmt("backend_timeout: %ld %s (first: %s)", e->timeouts,
						     plural(e->timeouts, "request", "requests"),
						     e->timeout_example ? e->timeout_example : "?"));
}

/* The client's own limit, and the emulator's lag: the run measured them, not
 * the system under test. */
static void own_rules(const struct gp_run_evidence *e, struct gp_run_verdict *v)
{
	double n = e->lag_tokens[1] - e->lag_tokens[0];
	double late = n - (e->lag_on_time[1] - e->lag_on_time[0]);

	v->checked[GP_RULE_CLIENT_LIMIT] = v->checked[GP_RULE_EMULATOR] = 1;
	if (e->client_limit > 0)
		reason(v, GP_RULE_CLIENT_LIMIT,
		       gp_strfmt("client_limit: %ld %s failed on the client's own limit (descriptors, "
				    "memory or ephemeral ports), not the server's", e->client_limit,
				    plural(e->client_limit, "request", "requests")));
	if (e->sse_by_body > 0)
		flag(v, json_sprintf("sse_by_body: %lld %s read as event streams by "
							     "their body, not their Content-Type",
							     e->sse_by_body, plural(e->sse_by_body, "response",
										    "responses")));
	if (e->usage_contradicted > 0)
		flag(v, json_sprintf("usage_contradicted: %lld %s sent usage below their "
							     "content events; out_tokens is the count",
							     e->usage_contradicted,
							     plural(e->usage_contradicted, "response", "responses")));
	if (e->have_lag[0] && e->have_lag[1] && n > 0 && late >= GP_EMU_LATE_MIN &&
	    late > GP_EMU_LATE_FRAC * n)
		reason(v, GP_RULE_EMULATOR,
		       gp_strfmt("emulator_behind: gp-sim wrote %.0f of the run's %.0f tokens (%.1f %%) more "
				    "than %.0f ms late (bound: %.0f %% and %d tokens): the emulator, not the "
				    "routing, shaped this run", late, n, 100 * late / n, GP_EMU_LATE_S * 1e3,
				    GP_EMU_LATE_FRAC * 100, GP_EMU_LATE_MIN));
}

int gp_validity_judge(const struct gp_run_evidence *e, const struct gp_window *w, int strict,
		      struct gp_run_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->reasons = json_array();
	v->flags = json_array();
	if (!v->reasons || !v->flags) {
		gp_run_verdict_release(v);
		errno = ENOMEM;
		return -1;
	}
	stream_rules(e, v);
	window_rules(e, w, v);
	client_rules(e, v);
	shard_rule(e, v);
	own_rules(e, v);
	v->checked[GP_RULE_MIXED] = 1;
	if (e->other_id)
		reason(v, GP_RULE_MIXED, gp_strfmt("mixed_runs: two runs, %s and %s, are this one "
						       "(arm, rate, rep): records of two campaigns?",
						       e->run_id ? e->run_id : "?", e->other_id));
	if (e->paired == 0)
		reason(v, GP_RULE_PAIRED, gp_strfmt("zero_paired: no ok request with both ttft_ms and "
						    "tpot_ms (%ld attempted)", e->n_req));
	if (strict)
		for (int k = 0; k < GP_N_RULES; k++)
			if (!v->checked[k])
				if (json_array_append_new(v->reasons,
							  json_sprintf("not_checked: %s", gp_rule_name[k])))
					v->failed = 1;
	v->discarded = json_array_size(v->reasons) > 0;
	if (v->failed) {
		gp_run_verdict_release(v);
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

void gp_run_verdict_release(struct gp_run_verdict *v)
{
	json_decref(v->reasons);
	json_decref(v->flags);
	v->reasons = v->flags = NULL;
}
