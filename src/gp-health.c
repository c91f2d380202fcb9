/* SPDX-License-Identifier: MIT */
/*
 * gp-health — Phase 0 of the method (§3): is the fleet serving?  Read-only.
 * Per backend: /v1/models names the model and advertises the context length;
 * its metrics endpoint answers and carries the in-flight metrics.  Per VIP: a
 * real streamed chat completion returns 200 and completes, carrying the
 * receipt header when the fleet names one.  For an arm that routes by cache:
 * the KV-events precheck — the same long prompt twice through the VIP must
 * advance the cache-hit counter.  First of all, the gateway's own checks
 * (§3 step 1): the fleet's gateway.checks, each a command whose output must
 * match a regex or be a number at least a bound (the gateway is up, its
 * prefill timeout covers the longest prefill).  One `health` record per
 * check, then a `health_summary`.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wire/stream.h"
#include "cli/cli.h"
#include "base/clock.h"
#include "wire/fleet.h"
#include "method/gate.h"
#include "io/http.h"
#include "io/cmd.h"
#include "io/json.h"
#include "base/num.h"
#include "base/log.h"
#include "io/ndjson.h"
#include "wire/models.h"
#include "wire/openai.h"
#include "wire/scrape.h"
#include "base/sig.h"
#include "wire/trace.h"
#include "base/banned.h"

static const char usage[] =
	"Usage: gp-health --fleet FILE [--arm NAME] [--timeout-s S] [--prompt-tokens N]\n"
	"                 [--longest-prefill-s S] [--api-key-file FILE] [--cacert FILE]\n"
	"                 [--insecure] [-q] [--for-run ID] [-o FILE] [--help] [--version]\n"
	"\n"
	"  -f, --fleet FILE       the fleet file (required)\n"
	"  -a, --arm NAME         the arm the gateway runs now: when it routes by cache,\n"
	"                         run the KV-events precheck\n"
	"      --timeout-s S      bound on every request and scrape (default 10)\n"
	"      --prompt-tokens N  length of the precheck's prompt (default 512)\n"
	"      --longest-prefill-s S  the longest prefill the trace implies (from the\n"
	"                         calibration): the bound of a gateway check whose\n"
	"                         at_least is \"longest_prefill_s\"\n"
	"      --api-key-file F   read the API key from F (else GP_API_KEY, OPENAI_API_KEY)\n"
	"      --cacert FILE      https: verify certificates against this CA file\n"
	"      --insecure         https: do not verify certificates or host names\n"
	"      --for-run ID       the run this round is taken for (for_run in every record)\n"
	"  -q, --quiet            no failed-check lines on stderr\n"
	"  -o, --output FILE      write records to FILE\n"
	"  -h, --help             this text;  --version  the version\n";

struct ctx {
	struct gp_fleet fleet;
	const char *fleet_path;
	const struct gp_fleet_arm *arm;
	const char *for_run;	/* --for-run, or NULL */
	struct gp_out out;
	int64_t t0;
	long timeout_ms, prompt_tokens;
	double longest_prefill_s;	/* --longest-prefill-s, NaN when not given */
	int quiet;
	char key[1024];
	int have_key;
	long checks, failed, answered, tls_refused, not_run;
	struct gp_http_tls tls;
	json_t *failed_names, *not_run_names;
};

static struct ctx C;

/* "<check> <name or target>", as health_summary lists a check. */
static void list_check(json_t *list, const char *check, const char *target, const char *name)
{
	char n[2200];

	snprintf(n, sizeof(n), "%s %s", check, name ? name : target);
	json_array_append_new(list, json_string(n));
}

/* A check a signal kept from running, or cut short (sig.h): no health
 * record, which would report a failure nobody saw; the summary names it. */
static void not_run(const char *check, const char *target, const char *name)
{
	list_check(C.not_run_names, check, target, name);
	C.not_run++;
}

/* 1: start the check; 0 once a signal asked us to stop (it is not run). */
static int go(const char *check, const char *target, const char *name)
{
	if (!gp_sig_stop())
		return 1;
	not_run(check, target, name);
	return 0;
}

/* Emit one health record; `extra` (may be NULL) is merged and released.  A
 * check that ends after a signal was cut short by it: not run. */
static void emit(const char *check, const char *target, const char *name, int ok,
		 int answered, const char *detail, json_t *extra)
{
	char at[40];
	json_t *o;

	if (gp_sig_stop()) {
		json_decref(extra);
		not_run(check, target, name);
		return;
	}
	o = json_object();

	json_object_set_new(o, "type", json_string("health"));
	json_object_set_new(o, "check", json_string(check));
	json_object_set_new(o, "target", json_string(target));
	json_object_set_new(o, "name", name ? json_string(name) : json_null());
	json_object_set_new(o, "ok", json_boolean(ok));
	json_object_set_new(o, "at", json_string(gp_rfc3339(gp_wall_ns(), at, sizeof(at))));
	gp_json_set_real(o, "t_s", gp_ns_to_s(gp_now_ns() - C.t0));
	json_object_set_new(o, "arm", C.arm ? json_string(C.arm->name) : json_null());
	json_object_set_new(o, "for_run", C.for_run ? json_string(C.for_run) : json_null());
	json_object_set_new(o, "detail", json_string(detail ? detail : ""));
	if (extra) {
		json_object_update(o, extra);
		json_decref(extra);
	}
	if (gp_out_json(&C.out, o))
		gp_output_failed(&C.out);
	json_decref(o);
	C.checks++;
	C.answered += answered != 0;
	if (!ok) {
		list_check(C.failed_names, check, target, name);
		C.failed++;
		if (!C.quiet)
			gp_warn("not ready: %s %s: %s", check, target, detail ? detail : "failed");
	}
}

/* ---- the gateway's own checks: gateway.checks[] of the fleet */

/*
 * {"name", "cmd", "expect": REGEX} — a line of the output matches — or
 * {"name", "cmd", "at_least": N | "longest_prefill_s"} — the output's first
 * line is a number >= N (or >= --longest-prefill-s; without that option the
 * value is recorded, not judged, and the detail says so).
 */
static void check_gateway_cmd(const json_t *c, size_t i)
{
	char where[64], out[65536], err[256], line[512], detail[1024];
	const char *name = NULL, *cmd = NULL, *expect = NULL;
	json_t *al = json_object_get(c, "at_least"), *extra;
	double bound = NAN, value = NAN;
	int st = 0, ok = 0, m;
	size_t n;

	snprintf(where, sizeof(where), "gateway.checks[%zu]", i);
	if (!json_is_object(c) || gp_json_str(c, "cmd", &cmd) || !cmd)
		gp_die(GP_EXIT_DATAERR, "%s: field '%s.cmd' is missing", C.fleet_path, where);
	if (gp_json_str(c, "name", &name) || !name)
		name = cmd;
	if (gp_json_str(c, "expect", &expect) == GP_JSON_TYPE)
		gp_die(GP_EXIT_DATAERR, "%s: field '%s.expect' is not a string", C.fleet_path, where);
	if (json_is_string(al) && !strcmp(json_string_value(al), "longest_prefill_s"))
		bound = C.longest_prefill_s;
	else if (json_is_number(al))
		bound = json_number_value(al);
	else if (al && !json_is_null(al))
		gp_die(GP_EXIT_DATAERR, "%s: field '%s.at_least' is not a number or \"longest_prefill_s\"",
		       C.fleet_path, where);
	if (!expect && !al)
		gp_die(GP_EXIT_DATAERR, "%s: field '%s': an expect or an at_least is required",
		       C.fleet_path, where);
	if (gp_cmd_run(cmd, C.timeout_ms, out, sizeof(out), &st, err, sizeof(err))) {
		snprintf(detail, sizeof(detail), "could not run: %s", err);
		emit("gateway_cmd", cmd, name, 0, 0, detail, NULL);
		return;
	}
	n = strcspn(out, "\n");
	snprintf(line, sizeof(line), "%.*s", (int)(n > 200 ? 200 : n), out);
	if (expect) {
		char hit[512];

		m = gp_cmd_match(expect, out, hit, sizeof(hit), err, sizeof(err));
		if (m < 0)
			gp_die(GP_EXIT_DATAERR, "%s: field '%s.expect': %s", C.fleet_path, where, err);
		ok = m == 1;
		if (ok)
			snprintf(detail, sizeof(detail), "matched /%s/: %s", expect, hit);
		else
			snprintf(detail, sizeof(detail), "/%s/ did not match the output (exit %d): %s",
				 expect, st, line);
	} else {
		char *t = line + strspn(line, " \t");

		t[strcspn(t, " \t\r")] = 0;
		if (gp_parse_double(t, -1e300, 1e300, &value)) {
			snprintf(detail, sizeof(detail), "the output is not a number (exit %d): %s", st, line);
		} else if (isnan(bound)) {
			ok = 1;
			snprintf(detail, sizeof(detail), "%g (not compared: no --longest-prefill-s; the "
				 "calibration gives it)", value);
		} else {
			ok = value >= bound;
			snprintf(detail, sizeof(detail), "%g %s %g%s", value, ok ? ">=" : "<", bound,
				 json_is_string(al) ? " (the longest prefill the trace implies, s)" : "");
		}
	}
	extra = json_pack("{s:s, s:i, s:o, s:o}", "output", line, "exit_status", st,
			  "value", gp_json_real(value), "at_least", gp_json_real(bound));
	/* A failed check is no answer from the fleet: one where nothing runs is unreachable. */
	emit("gateway_cmd", cmd, name, ok, ok, detail, extra);
}

/* ---- backends: /v1/models */

static void check_models(const struct gp_fleet_backend *b)
{
	char url[2048], err[256], detail[512], shown[256];
	char *body = NULL;
	size_t len = 0;
	long status = 0, mml = -1, at = -1;
	json_t *ids = json_array(), *extra = json_object();
	struct gp_models ml = { 0 };
	int ok = 0, list = 0;
	enum gp_http_err k;

	snprintf(url, sizeof(url), "%s/v1/models", b->url);
	if (gp_http_fetch(url, &C.tls, C.timeout_ms, GP_MODELS_MAX_BYTES, &body, &len, &status, err, sizeof(err),
			  &k)) {
		gp_oai_scrub(err, sizeof(err), C.have_key ? C.key : NULL);
		json_decref(ids);
		json_object_set_new(extra, "error", json_string(gp_http_err_name(k)));
		C.tls_refused += k == GP_HTTP_ETLS;
		emit("backend_models", b->url, b->name, 0, 0, err, extra);
		return;
	}
	json_object_set_new(extra, "http_status", json_integer(status));
	if (status == 200 && !gp_models_read(body, len, &ml)) {
		list = 1;
		at = gp_models_find(&ml, C.fleet.model);
		mml = at >= 0 ? ml.max_model_len[at] : -1;
	}
	for (size_t i = 0; i < ml.n; i++) {
		gp_models_shown(ml.id[i], C.have_key ? C.key : NULL, shown, sizeof(shown));
		json_array_append_new(ids, json_string(shown));
	}
	json_object_set_new(extra, "models", ids);
	json_object_set_new(extra, "max_model_len", mml >= 0 ? json_integer(mml) : json_null());
	if (status != 200)
		snprintf(detail, sizeof(detail), "HTTP %ld", status);
	else if (!list)
		snprintf(detail, sizeof(detail), "the answer has no 'data' list of models");
	else if (at < 0)
		snprintf(detail, sizeof(detail), "model '%s' is not served (%zu other%s)",
			 C.fleet.model, ml.n, ml.n == 1 ? "" : "s");
	else if (C.fleet.context_length > 0 && mml < 0)
		snprintf(detail, sizeof(detail), "no max_model_len advertised (expected >= %ld)",
			 C.fleet.context_length);
	else if (C.fleet.context_length > 0 && mml < C.fleet.context_length)
		snprintf(detail, sizeof(detail), "max_model_len %ld < context_length %ld", mml,
			 C.fleet.context_length);
	else
		ok = 1;
	if (ok)
		snprintf(detail, sizeof(detail), "serves '%s'%s", C.fleet.model ? C.fleet.model : "a model",
			 mml >= 0 ? ", max_model_len advertised" : "");
	gp_models_release(&ml);
	free(body);
	emit("backend_models", b->url, b->name, ok, 1, detail, extra);
}

/* ---- metrics endpoints */

static void check_metrics(const char *url, const char *name, const char *const *need, size_t nneed)
{
	json_t *m = gp_scrape(url, &C.tls, C.timeout_ms, NULL), *extra = json_object(), *missing = json_array();
	char detail[512], why[400];
	int ok, answered;

	if (!m)
		gp_die_nomem();
	answered = !gp_scrape_failed(m) || json_object_get(m, "http_status");
	for (size_t i = 0; !gp_scrape_failed(m) && i < nneed; i++) {
		int have;

		gp_scrape_sum(m, need[i], &have);
		if (!have)
			json_array_append_new(missing, json_string(need[i]));
	}
	ok = !gp_scrape_failed(m) && json_array_size(missing) == 0;
	if (gp_scrape_failed(m))
		snprintf(detail, sizeof(detail), "scrape failed: %s", gp_scrape_why(m, why, sizeof(why)));
	else if (!ok)
		snprintf(detail, sizeof(detail), "missing %s",
			 json_string_value(json_array_get(missing, 0)));
	else
		snprintf(detail, sizeof(detail), "%zu series, the %zu required present",
			 json_object_size(json_object_get(m, "samples")), nneed);
	json_object_set_new(extra, "missing", missing);
	if (json_object_get(m, "http_status"))
		json_object_set(extra, "http_status", json_object_get(m, "http_status"));
	json_decref(m);
	emit("metrics", url, name, ok, answered, detail, extra);
}

/* ---- VIPs: a real streamed chat completion */

static char *chat_body(const char *prompt, long max_tokens, size_t *len)
{
	struct gp_buf b = { 0 };
	struct gp_oai_req q = { 0 };
	char *p;

	q.chat = 1;
	q.model = C.fleet.model ? C.fleet.model : "";
	q.prompt = prompt;
	q.prompt_len = strlen(prompt);
	q.max_tokens = max_tokens;
	q.stream = 1;
	if (gp_oai_req_write(&b, &q))
		gp_die(GP_EXIT_SOFTWARE, "cannot write the request body (no model in the fleet file?)");
	p = gp_xstrdup(b.p);
	*len = b.len;
	gp_buf_release(&b);
	return p;
}

static void chat(const char *vip, const char *prompt, long max_tokens, const char *key,
		 struct gp_stream_chat_res *r)
{
	struct gp_stream_chat_cfg cfg = { vip, C.have_key ? C.key : NULL, C.fleet.backend_header,
				      C.fleet.receipt_header, C.timeout_ms, &C.tls, gp_sig_stop };
	char hdr[512];
	const char *xh[1] = { hdr };
	size_t len;
	char *body = chat_body(prompt, max_tokens, &len);

	snprintf(hdr, sizeof(hdr), "%s: %s", C.fleet.key_header ? C.fleet.key_header : "x-gp-cache-key",
		 key);
	if (gp_stream_chat_once(&cfg, body, len, xh, 1, r))
		gp_die(GP_EXIT_SOFTWARE, "libcurl: %s", r->detail);
	free(body);
}

static json_t *chat_extra(const struct gp_stream_chat_res *r)
{
	json_t *e = json_object();

	json_object_set_new(e, "http_status", r->status ? json_integer(r->status) : json_null());
	json_object_set_new(e, "error", r->error ? json_string(r->error) : json_null());
	json_object_set_new(e, "content_events", json_integer(r->content_events));
	gp_json_set_real(e, "ttft_ms", r->ttft_ms);
	gp_json_set_real(e, "e2e_ms", r->e2e_ms);
	json_object_set_new(e, "backend", *r->backend ? json_string(r->backend) : json_null());
	return e;
}

static void check_vip(const struct gp_fleet_vip *v)
{
	struct gp_stream_chat_res r;
	char detail[512];
	int ok;

	chat(v->url, "ping", 4, "gp-health", &r);
	ok = r.error == NULL && r.status == 200;
	if (ok)
		snprintf(detail, sizeof(detail), "200, %ld content events, [DONE]", r.content_events);
	else if (r.status)
		snprintf(detail, sizeof(detail), "%s (HTTP %ld)%s%s", r.error, r.status,
			 *r.detail ? ": " : "", r.detail);
	else
		snprintf(detail, sizeof(detail), "%s%s%s%s", r.error, *r.detail ? ": " : "", r.detail,
			 r.error && !strcmp(r.error, "tls") ? " (" GP_HTTP_TLS_HINT ")" : "");
	C.tls_refused += r.error && !strcmp(r.error, "tls");
	emit("vip_chat", v->url, v->name, ok, r.status != 0, detail, chat_extra(&r));
	if (C.fleet.receipt_header) {
		json_t *e = json_object();

		json_object_set_new(e, "receipt", r.have_receipt ? json_string(r.receipt) : json_null());
		snprintf(detail, sizeof(detail), r.have_receipt && *r.receipt ? "%s present" :
			 "no %s header on the response", C.fleet.receipt_header);
		emit("receipt", v->url, v->name, ok && r.have_receipt && *r.receipt, r.status != 0,
		     detail, e);
	}
}

/* A member of a disaggregated fleet (role prefill or decode) serves a
 * completion asked of it directly: the one way to see that each role is up
 * on its own, whatever the gateway in front does with the two. */
static void check_role(const struct gp_fleet_backend *b)
{
	struct gp_stream_chat_res r;
	char detail[512];
	int ok;

	chat(b->url, "ping", 4, "gp-health", &r);
	ok = r.error == NULL && r.status == 200;
	if (ok)
		snprintf(detail, sizeof(detail), "%s member: 200, %ld content events, [DONE]", b->role,
			 r.content_events);
	else if (r.status)
		snprintf(detail, sizeof(detail), "%s member: %s (HTTP %ld)%s%s", b->role, r.error ? r.error : "failed", r.status,
			 *r.detail ? ": " : "", r.detail);
	else if (!ok)
		snprintf(detail, sizeof(detail), "%s member: %s%s%s", b->role, r.error ? r.error : "failed", *r.detail ? ": " : "",
			 r.detail);
	emit("role_chat", b->url, b->name, ok, r.status != 0, detail,
	     json_pack("{s:s}", "role", b->role));
}

/* ---- the KV-events precheck (method §3) */

/* Sum of `metric` over the scrapes of urls[0..n); -1 in *bad when one failed
 * or did not carry it. */
static double counter_sum(const char *const *urls, size_t n, const char *metric, int *bad)
{
	double sum = 0;

	*bad = 0;
	for (size_t i = 0; i < n; i++) {
		json_t *m = gp_scrape(urls[i], &C.tls, C.timeout_ms, NULL);
		int have = 0;

		if (!m)
			gp_die_nomem();
		sum += gp_scrape_sum(m, metric, &have);
		if (gp_scrape_failed(m) || !have)
			*bad = 1;
		json_decref(m);
	}
	return sum;
}

static void check_kv(const struct gp_fleet_vip *v)
{
	const char *gw[1] = { C.fleet.gateway_metrics_url }, **urls = gw, *metric;
	const char **bu = gp_xcalloc(C.fleet.n_backends + 1, sizeof(*bu));
	size_t n = 1, plen;
	char salt[64], key[80], detail[768], *prompt;
	double h0, h1, m0 = 0, m1 = 0, dh, dm = NAN;
	int bad0, bad1, mb0 = 1, mb1 = 1, ok;
	struct gp_stream_chat_res r[2];
	json_t *e = json_object();
	if (C.fleet.cache_hit_metric && C.fleet.gateway_metrics_url) {
		metric = C.fleet.cache_hit_metric;
	} else {
		metric = GP_FLEET_BACKEND_HIT_METRIC;
		n = 0;
		for (size_t i = 0; i < C.fleet.n_backends; i++)
			if (C.fleet.backends[i].metrics_url)
				bu[n++] = C.fleet.backends[i].metrics_url;
		urls = bu;
	}
	snprintf(salt, sizeof(salt), "gp-health-%ld-%lld", (long)getpid(), (long long)gp_wall_ns());
	snprintf(key, sizeof(key), "%s", salt);
	plen = gp_trace_synth_prompt(NULL, 0, C.prompt_tokens, NULL, 0, 0, salt);
	prompt = gp_xmalloc(plen + 1);
	gp_trace_synth_prompt(prompt, plen + 1, C.prompt_tokens, NULL, 0, 0, salt);
	h0 = counter_sum(urls, n, metric, &bad0);
	if (C.fleet.miss_metric && C.fleet.gateway_metrics_url)
		m0 = counter_sum(gw, 1, C.fleet.miss_metric, &mb0);
	chat(v->url, prompt, 2, key, &r[0]);
	chat(v->url, prompt, 2, key, &r[1]);
	h1 = counter_sum(urls, n, metric, &bad1);
	if (C.fleet.miss_metric && C.fleet.gateway_metrics_url)
		m1 = counter_sum(gw, 1, C.fleet.miss_metric, &mb1);
	dh = gp_gate_counter_delta(h0, h1);
	if (!mb0 && !mb1)
		dm = gp_gate_counter_delta(m0, m1);
	ok = !bad0 && !bad1 && !r[0].error && !r[1].error && dh > 0;
	if (n == 0)
		snprintf(detail, sizeof(detail), "no counter to read: the gateway names no "
			 "cache_hit_metric and no backend has a metrics_url");
	else if (bad0 || bad1)
		snprintf(detail, sizeof(detail), "counter %s could not be read (scrape failed or "
			 "the series is absent)", metric);
	else if (r[0].error || r[1].error)
		snprintf(detail, sizeof(detail), "the precheck requests failed: %s",
			 r[0].error ? r[0].error : r[1].error);
	else if (!ok)
		snprintf(detail, sizeof(detail), "counter %s did not move (+%.0f) over 2 identical "
			 "%ld-token prompts through the VIP: the KV-events plane is not feeding "
			 "the router%s", metric, dh, C.prompt_tokens,
			 isnan(dm) ? "" : "; misses climbed");
	else
		snprintf(detail, sizeof(detail), "counter %s +%.0f over 2 identical %ld-token prompts",
			 metric, dh, C.prompt_tokens);
	json_object_set_new(e, "counter", json_string(metric));
	gp_json_set_real(e, "counter_delta", bad0 || bad1 ? NAN : dh);
	json_object_set_new(e, "miss_counter", C.fleet.miss_metric ? json_string(C.fleet.miss_metric)
								   : json_null());
	gp_json_set_real(e, "miss_delta", dm);
	json_object_set_new(e, "prompt_tokens", json_integer(C.prompt_tokens));
	json_object_set_new(e, "backends", json_pack("[ss]", r[0].backend, r[1].backend));
	emit("kv_events", v->url, v->name, ok, r[0].status != 0, detail, e);
	free(prompt);
	free(bu);
}

/* ---- main */

static void parse_opts(int argc, char **argv, const char **output)
{
	enum { O_TIMEOUT = 256, O_PROMPT, O_KEYFILE, O_CACERT, O_INSECURE, O_FOR_RUN, O_VERSION, O_PREFILL };
	static const struct option lo[] = {
		{ "fleet", required_argument, NULL, 'f' },
		{ "arm", required_argument, NULL, 'a' },
		{ "timeout-s", required_argument, NULL, O_TIMEOUT },
		{ "prompt-tokens", required_argument, NULL, O_PROMPT },
		{ "longest-prefill-s", required_argument, NULL, O_PREFILL },
		{ "api-key-file", required_argument, NULL, O_KEYFILE },
		{ "cacert", required_argument, NULL, O_CACERT },
		{ "insecure", no_argument, NULL, O_INSECURE },
		{ "for-run", required_argument, NULL, O_FOR_RUN },
		{ "quiet", no_argument, NULL, 'q' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	const char *arm = NULL, *keyfile = NULL;
	char err[512];
	int c;

	C.timeout_ms = 10000;
	C.prompt_tokens = 512;
	C.longest_prefill_s = NAN;
	while ((c = gp_getopt(argc, argv, "f:a:qo:h", lo)) != -1) {
		switch (c) {
		case 'f': C.fleet_path = optarg; break;
		case 'a': arm = optarg; break;
		case O_TIMEOUT:
			C.timeout_ms = (long)ceil(gp_opt_double("--timeout-s", optarg, 0.001, 86400) * 1000);
			break;
		case O_PROMPT: C.prompt_tokens = gp_opt_long("--prompt-tokens", optarg, 1, 1000000); break;
		case O_PREFILL:
			C.longest_prefill_s = gp_opt_double("--longest-prefill-s", optarg, 0, 1e9);
			break;
		case O_KEYFILE: keyfile = optarg; break;
		case O_CACERT: C.tls.cacert = optarg; break;
		case O_INSECURE: C.tls.insecure = 1; break;
		case O_FOR_RUN: C.for_run = optarg; break;
		case 'q': C.quiet = 1; break;
		case 'o': *output = optarg; break;
		case 'h': gp_print_help(usage);
		case O_VERSION: gp_print_version();
		default: gp_usage_error("unknown option");
		}
	}
	if (optind < argc)
		gp_usage_error("unexpected argument '%s'", argv[optind]);
	if (!C.fleet_path)
		gp_usage_error("--fleet is required");
	if (gp_fleet_load(&C.fleet, C.fleet_path, err, sizeof(err)))
		gp_die(GP_EXIT_DATAERR, "%s: %s", C.fleet_path, err);
	if (arm && !(C.arm = gp_fleet_arm(&C.fleet, arm)))
		gp_usage_error("--arm: no arm '%s' in %s", arm, C.fleet_path);
	if (gp_stream_api_key(keyfile, C.key, sizeof(C.key), err, sizeof(err)) < 0)
		gp_die(GP_EXIT_USAGE, "--api-key-file: %s", err);
	C.have_key = *C.key != 0;
}

/* Every check of the fleet, in order; once a signal asks us to stop, the
 * rest are not run (go). */
static void run_checks(void)
{
	json_t *gw = json_object_get(C.fleet.root, "gateway"), *checks = json_object_get(gw, "checks"), *c;
	size_t k;

	if (checks && !json_is_null(checks) && !json_is_array(checks))
		gp_die(GP_EXIT_DATAERR, "%s: field 'gateway.checks' is not an array", C.fleet_path);
	json_array_foreach(checks, k, c) {
		const char *cmd = NULL;

		gp_json_str(c, "cmd", &cmd);
		if (go("gateway_cmd", cmd ? cmd : "", NULL))
			check_gateway_cmd(c, k);
	}
	for (size_t i = 0; i < C.fleet.n_backends; i++) {
		const struct gp_fleet_backend *b = &C.fleet.backends[i];

		if (go("backend_models", b->url, b->name))
			check_models(b);
		if (b->metrics_url && go("metrics", b->metrics_url, b->name))
			check_metrics(b->metrics_url, b->name, C.fleet.inflight_metrics,
				      C.fleet.n_inflight_metrics);
		if (b->role && strcmp(b->role, "both") && go("role_chat", b->url, b->name))
			check_role(b);
	}
	if (C.fleet.gateway_metrics_url && go("metrics", C.fleet.gateway_metrics_url, "gateway")) {
		const char *need[2];
		size_t n = 0;

		if (C.fleet.cache_hit_metric)
			need[n++] = C.fleet.cache_hit_metric;
		if (C.fleet.miss_metric)
			need[n++] = C.fleet.miss_metric;
		check_metrics(C.fleet.gateway_metrics_url, "gateway", need, n);
	}
	for (size_t i = 0; i < C.fleet.n_vips; i++) {
		const struct gp_fleet_vip *v = &C.fleet.vips[i];

		if (go("vip_chat", v->url, v->name))
			check_vip(v);
		else if (C.fleet.receipt_header)
			not_run("receipt", v->url, v->name);
		if (C.arm && C.arm->routes_by_cache && go("kv_events", v->url, v->name))
			check_kv(v);
	}
}

/* The health_summary trailer: counts of what ran, and what a signal kept
 * from running. */
static void write_summary(void)
{
	char at[40];
	int stopped = gp_sig_stop() != 0;
	json_t *s = json_pack("{s:s, s:b, s:s, s:f, s:o, s:I, s:I, s:o, s:b, s:I, s:o}",
			      "type", "health_summary", "ready", C.failed == 0 && !stopped,
			      "at", gp_rfc3339(gp_wall_ns(), at, sizeof(at)),
			      "t_s", gp_ns_to_s(gp_now_ns() - C.t0),
			      "arm", C.arm ? json_string(C.arm->name) : json_null(),
			      "checks", (json_int_t)C.checks, "failed", (json_int_t)C.failed,
			      "failed_checks", C.failed_names, "interrupted", stopped,
			      "not_run", (json_int_t)C.not_run, "not_run_checks", C.not_run_names);

	if (!s)
		gp_die_nomem();
	json_object_set_new(s, "for_run", C.for_run ? json_string(C.for_run) : json_null());
	if (gp_out_json(&C.out, s))
		gp_output_failed(&C.out);
	json_decref(s);
}

int main(int argc, char **argv)
{
	const char *output = NULL;

	gp_log_init(argv[0]);
	gp_sig_install();
	parse_opts(argc, argv, &output);
	if (gp_http_global_init())
		gp_die(GP_EXIT_SOFTWARE, "libcurl: cannot initialise");
	gp_http_fetch_stop(gp_sig_stop);
	gp_output_open(&C.out, output, 0);
	C.t0 = gp_now_ns();
	C.failed_names = json_array();
	C.not_run_names = json_array();
	if (C.fleet.n_vips + C.fleet.n_backends == 0)
		gp_die(GP_EXIT_DATAERR, "%s: the fleet names no VIP and no backend", C.fleet_path);
	if (!C.fleet.model)
		gp_die(GP_EXIT_DATAERR, "%s: field 'model' is missing: the checks need the model's name",
		       C.fleet_path);
	run_checks();
	write_summary();
	gp_output_close(&C.out);
	gp_fleet_release(&C.fleet);
	if (gp_sig_stop()) {
		if (!C.quiet)
			gp_warn("interrupted: %ld check%s not run", C.not_run, C.not_run == 1 ? "" : "s");
		return gp_sig_status(GP_EXIT_NEGATIVE);
	}
	if (C.answered == 0)
		gp_die(GP_EXIT_UNAVAILABLE, "nothing answered: fleet %s is unreachable%s", C.fleet_path,
		       C.tls_refused ? " (TLS refused: " GP_HTTP_TLS_HINT ")" : "");
	if (C.failed) {
		if (!C.quiet)
			gp_warn("not ready: %ld of %ld checks failed", C.failed, C.checks);
		return GP_EXIT_NEGATIVE;
	}
	return 0;
}
