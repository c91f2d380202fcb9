/* SPDX-License-Identifier: MIT */
/* design — the design gates of publish and the verdict's answer (design.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "method/design.h"
#include "method/calib.h"
#include "base/buf.h"
#include "io/json.h"

static const char *const gate_names[GP_DESIGN_N] = {
	"floor", "same_trace", "topology", "calibration", "baseline_vip", "slo_feasible",
};

const char *gp_design_gate_name(enum gp_design_gate g)
{
	return (unsigned)g < GP_DESIGN_N ? gate_names[g] : NULL;
}

int gp_design_gate_parse(const char *name)
{
	for (int g = 0; g < GP_DESIGN_N; g++)
		if (name && !strcmp(name, gate_names[g]))
			return g;
	return -1;
}

/*
 * What the gates need, as jansson objects used as maps:
 *   runs     "rate\x1frep\x1farm" -> {"digest","seed"} (a run header per run;
 *            shards repeat it)
 *   arms     arm -> {"rates": {rate: true}, "split": "prefill P, decode D"}
 *   served   backend header values and receipt endpoints -> count
 */
struct gp_design {
	json_t *runs, *arms, *served, *caps, *idle, *knees, *compares;
	json_t *slo;		/* the last slo record, or NULL */
	char *noise_floor;	/* the arm of the noise_floor records */
	long run_headers;
};

struct gp_design *gp_design_new(void)
{
	struct gp_design *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->runs = json_object();
	d->arms = json_object();
	d->served = json_object();
	d->caps = json_array();
	d->idle = json_array();
	d->knees = json_array();
	d->compares = json_array();
	if (!d->runs || !d->arms || !d->served || !d->caps || !d->idle || !d->knees || !d->compares) {
		gp_design_free(d);
		return NULL;
	}
	return d;
}

void gp_design_free(struct gp_design *d)
{
	if (!d)
		return;
	json_decref(d->runs);
	json_decref(d->arms);
	json_decref(d->served);
	json_decref(d->caps);
	json_decref(d->idle);
	json_decref(d->knees);
	json_decref(d->compares);
	json_decref(d->slo);
	free(d->noise_floor);
	free(d);
}

/* An optional string field: NULL when absent or null; -1 when mistyped. */
static int str_field(const json_t *o, const char *key, const char **out, char *err, size_t errlen)
{
	int rc = gp_json_str(o, key, out);

	if (rc == GP_JSON_TYPE)
		return gp_errf(err, errlen, "field '%s' is not a string", key);
	if (rc)
		*out = NULL;
	return 0;
}

static void rate_key(char *buf, size_t cap, double rate)
{
	snprintf(buf, cap, "%.10g", rate);
}

/* The arm's entry, made on first sight. */
static json_t *arm_entry(struct gp_design *d, const char *arm)
{
	json_t *a = json_object_get(d->arms, arm);

	if (!a) {
		a = json_pack("{s:{}}", "rates");
		if (!a || json_object_set_new(d->arms, arm, a))
			return NULL;
	}
	return a;
}

static int note_rate(struct gp_design *d, const char *arm, const json_t *o)
{
	json_t *a = arm_entry(d, arm);
	double rate;
	char k[64];

	if (!a)
		return -1;
	if (gp_json_num(o, "rate_rps", &rate) == 0) {
		rate_key(k, sizeof(k), rate);
		json_object_set_new(json_object_get(a, "rates"), k, json_true());
	}
	return 0;
}

static void count(json_t *map, const char *key)
{
	json_t *v = json_object_get(map, key);

	json_object_set_new(map, key, json_integer(v ? json_integer_value(v) + 1 : 1));
}

static int note_run(struct gp_design *d, const json_t *o, char *err, size_t errlen)
{
	const char *arm, *digest;
	double rate;
	long long rep = 0;
	char k[512];
	json_t *seed = json_object_get(o, "seed");

	if (str_field(o, "arm", &arm, err, errlen) || str_field(o, "trace_digest", &digest, err, errlen))
		return -1;
	if (!arm || gp_json_num(o, "rate_rps", &rate))
		return 0;	/* unlabelled: nothing to pair */
	if (gp_json_int(o, "rep", &rep) == GP_JSON_TYPE)
		return gp_errf(err, errlen, "field 'rep' is not an integer");
	if (seed && !json_is_null(seed) && !json_is_integer(seed))
		return gp_errf(err, errlen, "field 'seed' is not an integer");
	snprintf(k, sizeof(k), "%.10g\x1f%lld\x1f%s", rate, rep, arm);
	d->run_headers++;
	if (note_rate(d, arm, o))
		return gp_errf(err, errlen, "out of memory");
	if (!json_object_get(d->runs, k))
		json_object_set_new(d->runs, k, json_pack("{s:s?, s:O?}", "digest", digest, "seed",
							  seed && !json_is_null(seed) ? seed : NULL));
	return 0;
}

static int note_request(struct gp_design *d, const json_t *o, char *err, size_t errlen)
{
	const char *arm, *backend, *pre, *dec;
	json_t *a;

	if (str_field(o, "arm", &arm, err, errlen) || str_field(o, "backend", &backend, err, errlen) ||
	    str_field(o, "prefill", &pre, err, errlen) || str_field(o, "decode", &dec, err, errlen))
		return -1;
	if (backend && *backend)
		count(d->served, backend);
	if (pre && *pre)
		count(d->served, pre);
	if (dec && *dec)
		count(d->served, dec);
	if (!arm)
		return 0;
	if (!(a = arm_entry(d, arm)))
		return gp_errf(err, errlen, "out of memory");
	if (pre && dec && *pre && *dec && strcasecmp(pre, dec) && !json_object_get(a, "split")) {
		char t[600];

		snprintf(t, sizeof(t), "prefill %s, decode %s", pre, dec);
		json_object_set_new(a, "split", json_string(t));
	}
	return 0;
}

int gp_design_note(struct gp_design *d, const json_t *o, char *err, size_t errlen)
{
	const char *type = gp_json_type(o), *arm;

	if (!type)
		return 0;
	if (!strcmp(type, "request"))
		return note_request(d, o, err, errlen);
	if (!strcmp(type, "run"))
		return note_run(d, o, err, errlen);
	if (!strcmp(type, "arm_summary")) {
		if (str_field(o, "arm", &arm, err, errlen))
			return -1;
		return arm && note_rate(d, arm, o) ? gp_errf(err, errlen, "out of memory") : 0;
	}
	if (!strcmp(type, "capacity")) {
		const char *ep;

		if (str_field(o, "endpoint", &ep, err, errlen))
			return -1;
		if (!ep)
			return gp_errf(err, errlen, "field 'endpoint' is missing");
		return json_array_append(d->caps, (json_t *)o);
	}
	if (!strcmp(type, "idle_baseline")) {
		const char *b, *ep;

		if (str_field(o, "backend", &b, err, errlen) || str_field(o, "endpoint", &ep, err, errlen))
			return -1;
		if (!b && !ep)
			return gp_errf(err, errlen, "field 'backend' is missing");
		return json_array_append(d->idle, (json_t *)o);
	}
	if (!strcmp(type, "slo")) {
		json_decref(d->slo);
		d->slo = json_incref((json_t *)o);
		return 0;
	}
	if (!strcmp(type, "noise_floor")) {
		if (str_field(o, "arm", &arm, err, errlen))
			return -1;
		if (arm && !d->noise_floor && !(d->noise_floor = strdup(arm)))
			return gp_errf(err, errlen, "out of memory");
		return 0;
	}
	if (!strcmp(type, "knee"))
		return json_array_append(d->knees, (json_t *)o);
	if (!strcmp(type, "knee_compare"))
		return json_array_append(d->compares, (json_t *)o);
	return 0;
}

/* ------------------------------------------------------------ the gates */

enum { ST_OK, ST_FAIL, ST_NA };

/* The gate's record; detail is the buffer's text (or `ok` when empty). */
static json_t *gate_record(enum gp_design_gate g, int st, const struct gp_buf *b, const char *ok,
			   const struct gp_design_cfg *cfg)
{
	const char *status = st == ST_OK ? "ok" : st == ST_NA ? "not_applicable" :
			     (cfg->waive & (1u << g)) ? "waived" : "fail";

	return json_pack("{s:s, s:s, s:s, s:s}", "type", "design", "gate", gate_names[g],
			 "status", status, "detail", b->len ? b->p : ok);
}

static void bfmt(struct gp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bfmt(struct gp_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gp_buf_vfmt(b, fmt, ap);
	va_end(ap);
}

/* "; " between the findings of one gate. */
static void addf(struct gp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(struct gp_buf *b, const char *fmt, ...)
{
	va_list ap;

	if (b->len)
		gp_buf_add(b, "; ", 2);
	va_start(ap, fmt);
	gp_buf_vfmt(b, fmt, ap);
	va_end(ap);
}

static const char *floor_arm(const struct gp_design *d, const struct gp_design_cfg *cfg)
{
	return cfg->floor ? cfg->floor : d->noise_floor;
}

static json_t *gate_floor(const struct gp_design *d, const struct gp_design_cfg *cfg)
{
	const char *fl = floor_arm(d, cfg), *arm, *rate;
	struct gp_buf b = { 0 };
	json_t *fa, *a, *v, *r;
	int st = ST_OK;

	if (!fl) {
		addf(&b, "no floor arm is named (gp-verify publish --floor ARM, or gp-analyze --floor)");
		st = ST_FAIL;
	} else if (!(fa = json_object_get(d->arms, fl))) {
		addf(&b, "the floor arm %s has no runs", fl);
		st = ST_FAIL;
	} else {
		json_t *told = json_object();	/* one finding per rate */

		json_object_foreach(d->arms, arm, a) {
			json_object_foreach(json_object_get(a, "rates"), rate, v) {
				if (json_object_get(json_object_get(fa, "rates"), rate) ||
				    json_object_get(told, rate))
					continue;
				addf(&b, "the floor arm %s has no run at %s req/s (arm %s has)", fl, rate, arm);
				json_object_set_new(told, rate, json_true());
				st = ST_FAIL;
			}
		}
		json_decref(told);
	}
	r = gate_record(GP_DESIGN_FLOOR, st, &b, "", cfg);
	if (st == ST_OK) {
		char t[300];

		snprintf(t, sizeof(t), "the floor arm %s ran at every rung", fl);
		json_object_set_new(r, "detail", json_string(t));
	}
	gp_buf_release(&b);
	return r;
}

/* Split "rate\x1frep\x1farm" (the key is at most a few hundred bytes). */
static void key_parts(const char *k, char *rate, char *rep, const char **arm)
{
	const char *a = strchr(k, '\x1f'), *c = a ? strchr(a + 1, '\x1f') : NULL;

	snprintf(rate, 64, "%.*s", a ? (int)(a - k) : 0, k);
	snprintf(rep, 64, "%.*s", c ? (int)(c - a - 1) : 0, a ? a + 1 : "");
	*arm = c ? c + 1 : "";
}

static json_t *gate_same_trace(const struct gp_design *d, const struct gp_design_cfg *cfg)
{
	json_t *first_digest = json_object(), *first_seed = json_object(), *bad = json_object();
	struct gp_buf b = { 0 };
	const char *k, *arm;
	json_t *v, *r;
	int st = ST_OK;

	if (!json_object_size(d->runs)) {
		addf(&b, "no run headers (gp-replay's run records) to compare the arms' traces and seeds");
		st = ST_FAIL;
	}
	json_object_foreach(d->runs, k, v) {
		char rate[64], rep[64], rr[160];
		const char *dg = json_string_value(json_object_get(v, "digest"));
		json_t *seed = json_object_get(v, "seed"), *f;

		key_parts(k, rate, rep, &arm);
		/* Per rung: one trace digest. */
		f = json_object_get(first_digest, rate);
		if (!dg) {
			if (!json_object_get(bad, "")) {
				addf(&b, "arm %s at %s req/s rep %s: its run header has no trace_digest",
				     arm, rate, rep);
				json_object_set_new(bad, "", json_true());
			}
			st = ST_FAIL;
		} else if (!f) {
			json_object_set_new(first_digest, rate, json_pack("{s:s, s:s}", "digest", dg, "arm", arm));
		} else if (!json_object_get(bad, rate) &&
			   strcmp(dg, json_string_value(json_object_get(f, "digest")))) {
			addf(&b, "at %s req/s arm %s replayed trace %s, arm %s trace %s", rate,
			     json_string_value(json_object_get(f, "arm")),
			     json_string_value(json_object_get(f, "digest")), arm, dg);
			json_object_set_new(bad, rate, json_true());
			st = ST_FAIL;
		}
		/* Per (rung, rep): one replay seed. */
		snprintf(rr, sizeof(rr), "%s\x1f%s", rate, rep);
		f = json_object_get(first_seed, rr);
		if (!f) {
			json_object_set_new(first_seed, rr, json_pack("{s:O?, s:s}", "seed", seed, "arm", arm));
		} else if (!json_object_get(bad, rr) && !json_equal(json_object_get(f, "seed") ?
								   json_object_get(f, "seed") : json_null(),
								   seed ? seed : json_null())) {
			char *s1 = json_dumps(json_object_get(f, "seed") ? json_object_get(f, "seed") : json_null(),
					      JSON_ENCODE_ANY);
			char *s2 = json_dumps(seed ? seed : json_null(), JSON_ENCODE_ANY);

			addf(&b, "at %s req/s rep %s arm %s had replay seed %s, arm %s seed %s", rate, rep,
			     json_string_value(json_object_get(f, "arm")), s1 ? s1 : "?", arm, s2 ? s2 : "?");
			free(s1);
			free(s2);
			json_object_set_new(bad, rr, json_true());
			st = ST_FAIL;
		}
	}
	r = gate_record(GP_DESIGN_SAME_TRACE, st, &b,
			"at each rung every arm replayed one trace, with the same seed per rep", cfg);
	json_decref(first_digest);
	json_decref(first_seed);
	json_decref(bad);
	gp_buf_release(&b);
	return r;
}

static json_t *gate_topology(const struct gp_design *d, const struct gp_design_cfg *cfg)
{
	struct gp_buf b = { 0 };
	json_t *topo = json_object(), *a, *r;
	const char *arm, *seen[2] = { NULL, NULL };
	int st = ST_OK;

	json_object_foreach(d->arms, arm, a) {
		const struct gp_fleet_arm *fa = cfg->fleet ? gp_fleet_arm(cfg->fleet, arm) : NULL;
		const char *split = json_string_value(json_object_get(a, "split"));
		int dis = split != NULL;

		if (fa && fa->disaggregated == 0 && split) {
			addf(&b, "arm %s: the fleet says aggregated, its receipts show %s", arm, split);
			st = ST_FAIL;
		}
		if (fa && fa->disaggregated >= 0)
			dis = fa->disaggregated;
		json_object_set_new(topo, arm, json_string(dis ? "disaggregated" : "aggregated"));
		if (!seen[dis])
			seen[dis] = arm;
	}
	if (seen[0] && seen[1]) {
		addf(&b, "the arms mix topologies: %s is aggregated, %s disaggregated", seen[0], seen[1]);
		st = ST_FAIL;
	}
	r = gate_record(GP_DESIGN_TOPOLOGY, st, &b, seen[1] ? "every arm is disaggregated" :
			"every arm is aggregated", cfg);
	json_object_set_new(r, "topologies", topo);
	if (seen[0] && seen[1])
		json_object_set_new(r, "claim", json_string("the comparison mixes topologies: it compares "
							    "deployments (routing and topology together), "
							    "not routing policies alone"));
	gp_buf_release(&b);
	return r;
}

static void stale_why(void *arg, const char *reason)
{
	addf(arg, "stale: %s", reason);
}

/* A trusted capacity record of backend i. */
static int has_capacity(const struct gp_design *d, const struct gp_fleet *f, size_t i)
{
	size_t k;
	json_t *c;

	json_array_foreach(d->caps, k, c) {
		const char *ep = NULL, *be = NULL;
		double cap = NAN;
		int flag;
		long idx = -1;

		gp_json_str(c, "endpoint", &ep);
		if (gp_json_str(c, "backend", &be) == 0 && be)
			idx = gp_fleet_backend_index(f, be);
		if (idx < 0)
			idx = gp_fleet_backend_index(f, ep);
		if (idx != (long)i)
			continue;
		gp_json_num(c, "capacity_tok_s", &cap);
		if (!(cap > 0) || (!gp_json_bool(c, "suspect", &flag) && flag) ||
		    (!gp_json_bool(c, "saturated", &flag) && !flag))
			continue;
		return 1;
	}
	return 0;
}

static json_t *gate_calibration(const struct gp_design *d, const struct gp_design_cfg *cfg)
{
	const struct gp_fleet *f = cfg->fleet;
	struct gp_buf b = { 0 };
	struct gp_calib_member *was = NULL, *cur = NULL;
	size_t nwas = 0, k;
	char *in_runs = NULL;
	const char *v;
	json_t *c, *n, *r;
	int st = ST_OK;

	if (!f) {
		addf(&b, "no fleet file (gp-verify publish --fleet FILE): the capacity records cannot be "
		     "checked against the fleet the runs used");
		st = ST_FAIL;
		goto out;
	}
	if (!json_array_size(d->caps)) {
		addf(&b, "no capacity records (gp-calibrate's, for every backend in the runs)");
		st = ST_FAIL;
		goto out;
	}
	in_runs = calloc(f->n_backends + 1, 1);
	if (!in_runs)
		goto out;
	json_object_foreach(d->served, v, n) {
		long i = gp_fleet_backend_index(f, v);

		if (i < 0) {
			addf(&b, "backend %s served requests of the runs and is not in the fleet", v);
			st = ST_FAIL;
		} else {
			in_runs[i] = 1;
		}
	}
	if (!json_object_size(d->served))	/* no backend named: the whole fleet */
		memset(in_runs, 1, f->n_backends);
	for (size_t i = 0; i < f->n_backends; i++) {
		if (in_runs[i] && !has_capacity(d, f, i)) {
			addf(&b, "backend %s has no trusted capacity record",
			     f->backends[i].name ? f->backends[i].name : f->backends[i].url);
			st = ST_FAIL;
		}
	}
	/* What gp-calibrate check judges: the fleet now against the fleet measured. */
	was = calloc(json_array_size(d->caps) + 1, sizeof(*was));
	cur = calloc(f->n_backends + 1, sizeof(*cur));
	if (!was || !cur)
		goto out;
	json_array_foreach(d->caps, k, c) {
		const char *ep = NULL;
		long long acc = 1;
		size_t j;

		gp_json_str(c, "endpoint", &ep);
		gp_json_int(c, "accelerators", &acc);
		for (j = 0; j < nwas && strcasecmp(was[j].url, ep); j++)
			;
		was[j].url = ep;
		was[j].accelerators = (long)acc;
		if (j == nwas)
			nwas++;
	}
	for (size_t i = 0; i < f->n_backends; i++) {
		cur[i].url = f->backends[i].url;
		cur[i].accelerators = f->backends[i].accelerators;
	}
	if (gp_calib_stale(was, nwas, cur, f->n_backends, stale_why, &b))
		st = ST_FAIL;
out:
	r = gate_record(GP_DESIGN_CALIBRATION, st, &b, "every backend in the runs has a trusted "
			"capacity, measured on this fleet", cfg);
	free(in_runs);
	free(was);
	free(cur);
	gp_buf_release(&b);
	return r;
}

static json_t *gate_baseline_vip(const struct gp_design *d, const struct gp_design_cfg *cfg)
{
	const char *fl = floor_arm(d, cfg), *origin = NULL, *barm = NULL, *burl = NULL;
	struct gp_buf b = { 0 };
	json_t *same, *r;
	int st = ST_OK;

	if (!d->slo) {
		addf(&b, "no slo record (run gp-analyze)");
		st = ST_FAIL;
	} else if (gp_json_str(d->slo, "origin", &origin) || strcmp(origin, "baseline")) {
		st = ST_NA;
		addf(&b, "a fixed SLO: no baseline");
	} else {
		gp_json_str(d->slo, "baseline_arm", &barm);
		gp_json_str(d->slo, "baseline_url", &burl);
		same = json_object_get(d->slo, "baseline_same_url");
		if (fl && (!barm || strcmp(barm, fl))) {
			addf(&b, "the baseline was measured on arm %s, not the floor arm %s",
			     barm ? barm : "(none)", fl);
			st = ST_FAIL;
		}
		if (json_is_false(same)) {
			addf(&b, "the baseline's URL %s is not the arms' (measured directly on a backend, "
			     "or through another gateway?)", burl ? burl : "(none)");
			st = ST_FAIL;
		} else if (!json_is_true(same)) {
			addf(&b, "the baseline's URL could not be compared with the arms' (a run header is "
			     "missing)");
			st = ST_FAIL;
		}
	}
	r = gate_record(GP_DESIGN_BASELINE_VIP, st, &b, "the SLO's baseline went through the floor "
			"arm's VIP", cfg);
	gp_buf_release(&b);
	return r;
}

static int stat_of(const json_t *idle, const char *field, const char *stat, double *v)
{
	return gp_json_num(json_object_get(idle, field), stat, v) || !isfinite(*v);
}

int gp_design_idle_feasible(const json_t *idle, const char *stat, double slo_ttft_ms,
			    double slo_tpot_ms, double margin, char *why, size_t cap)
{
	long long failed = 0, n = 0;
	double t, p;
	int ok = 1;
	size_t len;

	if (!stat)
		stat = "p50";
	gp_json_int(idle, "failed", &failed);
	gp_json_int(idle, "requests", &n);
	if (why && cap)
		*why = 0;
	if (failed > 0) {
		snprintf(why, cap, "%lld of %lld idle requests failed", failed, n);
		return 0;
	}
	if (stat_of(idle, "ttft_ms", stat, &t)) {
		snprintf(why, cap, "field 'ttft_ms.%s' is missing", stat);
		return -1;
	}
	if (stat_of(idle, "tpot_ms", stat, &p)) {
		snprintf(why, cap, "field 'tpot_ms.%s' is missing", stat);
		return -1;
	}
	if (t * (1 + margin) > slo_ttft_ms) {
		snprintf(why, cap, "idle %s TTFT %.4g ms x %.2f = %.4g ms > SLO %.4g ms", stat, t,
			 1 + margin, t * (1 + margin), slo_ttft_ms);
		ok = 0;
	}
	if (p * (1 + margin) > slo_tpot_ms) {
		len = why ? strlen(why) : 0;
		snprintf(why + len, cap - len, "%sidle %s TPOT %.4g ms x %.2f = %.4g ms > SLO %.4g ms",
			 ok ? "" : ", ", stat, p, 1 + margin, p * (1 + margin), slo_tpot_ms);
		ok = 0;
	}
	return ok;
}

static const char *idle_name(const json_t *idle)
{
	const char *s = NULL;

	if (gp_json_str(idle, "backend", &s) || !s)
		gp_json_str(idle, "endpoint", &s);
	return s ? s : "?";
}

static json_t *gate_slo_feasible(const struct gp_design *d, const struct gp_design_cfg *cfg)
{
	const struct gp_fleet *f = cfg->fleet;
	struct gp_buf b = { 0 };
	json_t *bad = json_array(), *r, *idle;
	const char *stat = NULL;
	double ttft = NAN, tpot = NAN;
	size_t k;
	int st = ST_OK;

	if (!d->slo || gp_json_num(d->slo, "ttft_ms", &ttft) || gp_json_num(d->slo, "tpot_ms", &tpot)) {
		addf(&b, "no slo record with ttft_ms and tpot_ms (run gp-analyze)");
		st = ST_FAIL;
		goto out;
	}
	if (gp_json_str(d->slo, "baseline_stat", &stat) || !stat)
		stat = "p50";
	if (!json_array_size(d->idle)) {
		addf(&b, "no idle_baseline records (gp-calibrate idle: each member unloaded, directly)");
		st = ST_FAIL;
		goto out;
	}
	for (size_t i = 0; f && i < f->n_backends; i++) {
		int have = 0;

		json_array_foreach(d->idle, k, idle) {
			const char *n = NULL, *ep = NULL;

			gp_json_str(idle, "backend", &n);
			gp_json_str(idle, "endpoint", &ep);
			if ((n && gp_fleet_backend_index(f, n) == (long)i) ||
			    (ep && gp_fleet_backend_index(f, ep) == (long)i))
				have = 1;
		}
		if (!have) {
			addf(&b, "member %s has no idle baseline",
			     f->backends[i].name ? f->backends[i].name : f->backends[i].url);
			st = ST_FAIL;
		}
	}
	json_array_foreach(d->idle, k, idle) {
		char why[400];
		int ok = gp_design_idle_feasible(idle, stat, ttft, tpot, cfg->slo_margin, why, sizeof(why));

		if (ok == 1)
			continue;
		st = ST_FAIL;
		if (ok < 0) {
			addf(&b, "member %s: %s", idle_name(idle), why);
			continue;
		}
		json_array_append_new(bad, json_string(idle_name(idle)));
		addf(&b, "member %s cannot meet the SLO unloaded: %s", idle_name(idle), why);
	}
out:
	r = gate_record(GP_DESIGN_SLO_FEASIBLE, st, &b, "every member meets the SLO unloaded, "
			"with the margin", cfg);
	json_object_set_new(r, "infeasible", bad);
	json_object_set_new(r, "margin", json_real(cfg->slo_margin));
	gp_buf_release(&b);
	return r;
}

json_t *gp_design_judge(const struct gp_design *d, const struct gp_design_cfg *cfg)
{
	json_t *a = json_array();

	if (!a)
		return NULL;
	json_array_append_new(a, gate_floor(d, cfg));
	json_array_append_new(a, gate_same_trace(d, cfg));
	json_array_append_new(a, gate_topology(d, cfg));
	json_array_append_new(a, gate_calibration(d, cfg));
	json_array_append_new(a, gate_baseline_vip(d, cfg));
	json_array_append_new(a, gate_slo_feasible(d, cfg));
	if (json_array_size(a) != GP_DESIGN_N) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/* ------------------------------------------------------------ the answer */

static void interval(struct gp_buf *b, const json_t *ci)
{
	double lo, hi;

	if (!gp_json_num(ci, "lo", &lo) && !gp_json_num(ci, "hi", &hi))
		bfmt(b, " [%.4g, %.4g]", lo, hi);
}

char *gp_design_answer(const struct gp_design *d, const char *claim, int *none)
{
	struct gp_buf b = { 0 }, miss = { 0 };
	double target = NAN;
	int knees = 0, per_accel = 0;
	size_t i;
	json_t *k;
	char *s;

	/* Per accelerator when any knee has the figure (publish refuses a knee
	 * without it), per deployment otherwise. */
	json_array_foreach(d->knees, i, k)
		if (gp_json_num(k, "goodput_rps_per_accel", &target) == 0)
			per_accel = 1;
	target = NAN;
	json_array_foreach(d->knees, i, k) {
		const char *arm = NULL;
		double rate, g;

		gp_json_str(k, "arm", &arm);
		if (isnan(target))
			gp_json_num(k, "target", &target);
		if (!arm)
			continue;
		if (gp_json_num(k, "rate_rps", &rate)) {
			bfmt(&miss, "%s%s", miss.len ? ", " : "", arm);
			continue;
		}
		if (!knees++)
			bfmt(&b, "goodput@SLO at the knee%s: ", per_accel ? ", per accelerator" : "");
		else
			gp_buf_add(&b, ", ", 2);
		if (!gp_json_num(k, per_accel ? "goodput_rps_per_accel" : "goodput_rps", &g)) {
			bfmt(&b, "%s %.4g", arm, g);
			interval(&b, json_object_get(k, per_accel ? "goodput_per_accel_ci" : "goodput_ci"));
			bfmt(&b, " req/s at %.4g req/s", rate);
		} else {
			bfmt(&b, "%s n/a at %.4g req/s", arm, rate);
		}
	}
	*none = knees == 0 && json_array_size(d->knees) > 0;
	if (!json_array_size(d->knees)) {
		bfmt(&b, "no knee records (gp-analyze writes them): no goodput@SLO to report");
	} else if (!knees) {
		if (isnan(target))
			bfmt(&b, "no arm reaches the target at any rung: no goodput@SLO");
		else
			bfmt(&b, "no arm reaches the target %.4g at any rung: no goodput@SLO", target);
	} else {
		if (miss.len)
			bfmt(&b, "; at no rung reaching the target: %s", miss.p);
		json_array_foreach(d->compares, i, k) {
			const char *arm = NULL, *vs = NULL, *verdict = NULL;
			double diff;

			gp_json_str(k, "arm", &arm);
			gp_json_str(k, "vs", &vs);
			gp_json_str(k, "verdict", &verdict);
			if (!arm || !vs || !verdict)
				continue;
			bfmt(&b, "%s %s vs %s %s", i ? "," : "; at the knee:", arm, vs, verdict);
			if (!gp_json_num(k, "diff_goodput", &diff)) {
				bfmt(&b, " (%+.4g", diff);
				interval(&b, k);
				gp_buf_add(&b, ")", 1);
			}
		}
	}
	if (claim)
		bfmt(&b, "; %s", claim);
	gp_buf_release(&miss);
	if (!b.len)
		return strdup("");
	s = strdup(b.p);
	gp_buf_release(&b);
	return s;
}
