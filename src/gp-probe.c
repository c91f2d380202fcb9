/* SPDX-License-Identifier: MIT */
/*
 * gp-probe — Phase 2 of the method (§5): is the routing mode mechanically
 * engaged?  First the arm's mode_cmd must print what mode_regex asks for (the
 * gateway's own runtime says which mode it runs); then a burst of cache-keyed
 * streamed requests through the VIP while every backend's in-flight load is
 * sampled; the concentration (probe.h) must be what the arm expects.
 * Writes metrics snapshots (before), probe_sample records, metrics (after)
 * and one probe record.
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
#include "io/cmd.h"
#include "wire/fleet.h"
#include "io/http.h"
#include "io/json.h"
#include "base/log.h"
#include "io/ndjson.h"
#include "wire/openai.h"
#include "method/probe.h"
#include "wire/scrape.h"
#include "base/sig.h"
#include "wire/trace.h"
#include "base/banned.h"

static const char usage[] =
	"Usage: gp-probe --fleet FILE --arm NAME [--expect spread|concentrate] [--vip NAME]\n"
	"                [--requests N] [--keys K] [--concurrency C] [--interval-ms MS]\n"
	"                [--prompt-tokens N] [--max-tokens N] [--concentrate-min X]\n"
	"                [--spread-max X] [--min-busy N] [--max-failed X] [--timeout-s S]\n"
	"                [--mode-timeout-s S] [--api-key-file FILE] [--cacert FILE]\n"
	"                [--insecure] [--capacity FILE] [--run ID] [--for-run ID] [--progress]\n"
	"                [-o FILE] [--help] [--version]\n"
	"\n"
	"  -f, --fleet FILE        the fleet file (required)\n"
	"  -a, --arm NAME          the arm to probe (required): its mode_cmd, mode_regex, expect\n"
	"  -e, --expect E          spread or concentrate (default: the arm's expect)\n"
	"      --vip NAME          the VIP to drive (default: the first)\n"
	"  -n, --requests N        requests in the burst (default 64)\n"
	"  -k, --keys K            distinct cache keys, request i has key i mod K (default 1)\n"
	"  -c, --concurrency C     requests in flight (default 16)\n"
	"      --interval-ms MS    sampling period of the backends' load (default 50)\n"
	"      --prompt-tokens N   prompt length; one prompt per key (default 256)\n"
	"      --max-tokens N      tokens generated per request (default 64)\n"
	"      --concentrate-min X concentrate engaged at concentration >= X (default 2)\n"
	"      --spread-max X      spread engaged at spread concentration <= X (default 1.5)\n"
	"      --capacity FILE     gp-calibrate capacity records: judge spread against each\n"
	"                          backend's capacity (heterogeneous fleets)\n"
	"      --min-busy N        samples with load needed for a verdict (default 3)\n"
	"      --max-failed X      fraction of failed requests that voids the burst (0.1)\n"
	"      --timeout-s S       bound on every request and scrape (default 30)\n"
	"      --mode-timeout-s S  bound on mode_cmd (default 10)\n"
	"      --api-key-file F    read the API key from F (else GP_API_KEY, OPENAI_API_KEY)\n"
	"      --cacert FILE       https: verify certificates against this CA file\n"
	"      --insecure          https: do not verify certificates or host names\n"
	"      --run ID            the probe's run id in its records (default probe-ARM-TIME)\n"
	"      --for-run ID        the replay this probe is taken for (for_run in the probe record)\n"
	"      --progress          progress on stderr (default: when stderr is a terminal)\n"
	"  -o, --output FILE       write records to FILE\n"
	"  -h, --help              this text;  --version  the version\n";

struct opts {
	const char *fleet_path, *arm, *expect, *vip, *run, *for_run, *output, *keyfile, *capacity;
	long requests, keys, concurrency, interval_ms, prompt_tokens, max_tokens;
	long timeout_ms, mode_timeout_ms;
	double max_failed;
	struct gp_probe_thr thr;
	int progress;
	struct gp_http_tls tls;
};

struct probe {
	struct opts o;
	struct gp_fleet fleet;
	const struct gp_fleet_arm *arm;
	const struct gp_fleet_vip *vip;
	struct gp_out out;
	int64_t t0;
	char run[160];
	char key[1024];
	int have_key;
	/* the burst */
	char **bodies;			/* [keys] request bodies */
	size_t *blen;
	char (*khdr)[256];		/* [keys] key header lines */
	struct gp_probe_acc acc;
	double *load;
	double *cap;			/* [backends] relative capacities (--capacity), or NULL */
	long ok, failed, done, sample_errors;
	json_t *by_error, *served;
	int64_t last_progress;
};

static struct probe P;

static void out_record(json_t *o)
{
	if (gp_out_json(&P.out, o))
		gp_output_failed(&P.out);
	json_decref(o);
}

static const char *bname(const struct gp_fleet_backend *b)
{
	return b->name ? b->name : b->url;
}

/* ---- the mode: the gateway's runtime must say what the arm claims */

static int check_mode(char *evidence, size_t cap)
{
	char out[65536], err[256];
	int st, m;

	if (!P.arm->mode_cmd || !P.arm->mode_regex) {
		snprintf(evidence, cap, "the arm has no %s in the fleet file",
			 P.arm->mode_cmd ? "mode_regex" : "mode_cmd");
		return 0;
	}
	if (gp_cmd_run(P.arm->mode_cmd, P.o.mode_timeout_ms, out, sizeof(out), &st, err, sizeof(err))) {
		snprintf(evidence, cap, "mode_cmd could not run: %s", err);
		return 0;
	}
	m = gp_cmd_match(P.arm->mode_regex, out, evidence, cap, err, sizeof(err));
	if (m < 0)
		gp_die(GP_EXIT_DATAERR, "%s: field 'arms[].mode_regex' of arm '%s': %s",
		       P.o.fleet_path, P.arm->name, err);
	if (m == 0) {
		size_t n = strcspn(out, "\n");

		snprintf(evidence, cap, "mode_regex /%s/ did not match the output of mode_cmd "
			 "(exit %d%s): %.*s", P.arm->mode_regex, st, st < 0 ? ", timed out" : "",
			 (int)(n > 200 ? 200 : n), out);
		return 0;
	}
	return 1;
}

/* ---- metrics snapshots, for gp-verify's dual proof */

static void snapshot(const char *url, const char *phase)
{
	int64_t t;
	json_t *m = gp_scrape(url, &P.o.tls, P.o.timeout_ms, &t);
	char why[400];

	if (!m)
		gp_die_nomem();
	if (gp_scrape_stamp(m, gp_ns_to_s(t - P.t0), P.run, P.arm->name, -1, phase) ||
	    json_object_set_new(m, "source", json_string("gp-probe")))
		gp_die_nomem();
	if (gp_scrape_failed(m))
		gp_warn("scrape %s: %s", url, gp_scrape_why(m, why, sizeof(why)));
	out_record(m);
}

static void snapshots(const char *phase)
{
	if (P.fleet.gateway_metrics_url)
		snapshot(P.fleet.gateway_metrics_url, phase);
	for (size_t i = 0; i < P.fleet.n_backends; i++)
		if (P.fleet.backends[i].metrics_url)
			snapshot(P.fleet.backends[i].metrics_url, phase);
}

/* ---- sampling: every backend's in-flight load */

static int sample(void *arg, int64_t now)
{
	json_t *infl = json_object(), *o;
	double r;
	int bad = 0;

	(void)arg;
	for (size_t i = 0; i < P.fleet.n_backends; i++) {
		const struct gp_fleet_backend *b = &P.fleet.backends[i];
		json_t *m = b->metrics_url ? gp_scrape(b->metrics_url, &P.o.tls, P.o.timeout_ms, NULL) : NULL;
		double v = 0;
		int failed = !m || gp_scrape_failed(m);

		for (size_t k = 0; !failed && k < P.fleet.n_inflight_metrics; k++)
			v += gp_scrape_sum(m, P.fleet.inflight_metrics[k], NULL);
		bad |= failed;
		P.load[i] = v;
		json_object_set_new(infl, bname(b), failed ? json_null() : gp_json_real(v));
		json_decref(m);
	}
	o = json_pack("{s:s, s:s, s:s, s:f, s:o}", "type", "probe_sample", "run", P.run, "arm",
		      P.arm->name, "t_s", gp_ns_to_s(now - P.t0), "inflight", infl);
	if (bad) {
		P.sample_errors++;
		json_object_set_new(o, "peak_to_mean", json_null());
		json_object_set_new(o, "error", json_string("scrape failed"));
	} else {
		r = gp_probe_acc_add(&P.acc, P.load);
		gp_json_set_real(o, "peak_to_mean", r);
	}
	out_record(o);
	if (P.o.progress && now - P.last_progress >= 1000000000LL) {
		P.last_progress = now;
		fprintf(stderr, "gp-probe: %ld/%ld requests done, %ld samples, concentration %.2f\n",
			P.done, P.o.requests, P.acc.samples, gp_probe_concentration(&P.acc));
	}
	return gp_sig_stop();
}

/* ---- the capacities (--capacity): each backend's relative capacity */

/* The fleet backend a capacity record names (by name, else by URL), or -1. */
static long backend_index(const json_t *o)
{
	const char *name = NULL, *url = NULL;

	gp_json_str(o, "backend", &name);
	gp_json_str(o, "endpoint", &url);
	for (size_t i = 0; i < P.fleet.n_backends; i++) {
		const struct gp_fleet_backend *b = &P.fleet.backends[i];

		if ((name && b->name && !strcmp(name, b->name)) || (url && !strcmp(url, b->url)))
			return (long)i;
	}
	return -1;
}

/*
 * Each backend's capacity relative to the fastest member of its role
 * (capacity_tok_s / the role's largest), averaged over the roles it was
 * calibrated in.  Every backend needs a trusted capacity (exit 65 naming
 * the one that has none).
 */
static void load_capacity(void)
{
	size_t n = P.fleet.n_backends;
	double (*c)[2] = gp_xcalloc(n, sizeof(*c)), top[2] = {0, 0};
	char *paths[1] = {(char *)P.o.capacity};
	struct gp_input in;
	json_t *o;
	int e;

	gp_input_init(&in, paths, 1);
	while ((e = gp_input_next_json(&in, &o)) == GP_NDJSON_LINE) {
		const char *type = gp_json_type(o), *role = NULL;
		json_t *v = json_object_get(o, "capacity_tok_s");
		long i = type && !strcmp(type, "capacity") ? backend_index(o) : -1;
		int r;

		gp_json_str(o, "role", &role);
		r = role && !strcmp(role, "decode");
		if (i >= 0 && json_is_number(v) && json_number_value(v) > 0) {
			c[i][r] = json_number_value(v);
			if (c[i][r] > top[r])
				top[r] = c[i][r];
		}
		json_decref(o);
	}
	if (e < 0)
		gp_input_failed(&in, e);
	gp_input_release(&in);
	P.cap = gp_xcalloc(n + 1, sizeof(*P.cap));
	for (size_t i = 0; i < n; i++) {
		int k = 0;

		for (int r = 0; r < 2; r++)
			if (c[i][r] > 0) {
				P.cap[i] += c[i][r] / top[r];
				k++;
			}
		if (!k)
			gp_die(GP_EXIT_DATAERR, "%s: no trusted capacity of backend '%s' (a capacity "
			       "record with capacity_tok_s)", P.o.capacity, bname(&P.fleet.backends[i]));
		P.cap[i] /= k;
	}
	free(c);
}

/* {"b1": 1, "b4": 0.5, ...}, or null without --capacity. */
static json_t *capacity_json(void)
{
	json_t *o;

	if (!P.cap)
		return json_null();
	o = json_object();
	for (size_t i = 0; i < P.fleet.n_backends; i++)
		gp_json_set_real(o, bname(&P.fleet.backends[i]), P.cap[i]);
	return o;
}

/* ---- the burst */

static void make(void *arg, long i, const char **body, size_t *len, const char **xhdr, int *nx)
{
	long k = i % P.o.keys;

	(void)arg;
	*body = P.bodies[k];
	*len = P.blen[k];
	xhdr[0] = P.khdr[k];
	*nx = 1;
}

/*
 * The fleet's name of the backend a gateway named in backend_header: its
 * name (HAProxy's %s), or the backend whose URL is http(s)://VALUE (nginx's
 * $upstream_addr, gp-sim's router); else the value as given.
 */
static const char *backend_of(const char *v)
{
	for (size_t i = 0; i < P.fleet.n_backends; i++) {
		const struct gp_fleet_backend *b = &P.fleet.backends[i];
		const char *u = b->url, *h = strstr(u, "://");
		size_t n = strlen(v);

		if (b->name && !strcmp(b->name, v))
			return b->name;
		if (h && !strncmp(h + 3, v, n) && (h[3 + n] == 0 || !strcmp(h + 3 + n, "/")))
			return bname(b);
	}
	return v;
}

/* Peak-to-mean of the requests each fleet backend served (spread: against
 * the capacities, probe.h); NaN when nothing was named, or a name is not one
 * of the fleet's backends. */
static double served_ratio(int spread)
{
	double *n = gp_xcalloc(P.fleet.n_backends + 1, sizeof(*n)), r = NAN;
	size_t known = 0;

	for (size_t i = 0; i < P.fleet.n_backends; i++) {
		json_t *v = json_object_get(P.served, bname(&P.fleet.backends[i]));

		n[i] = v ? (double)json_integer_value(v) : 0;
		known += v != NULL;
	}
	if (known && known == json_object_size(P.served))
		r = spread ? gp_probe_served_spread(n, P.fleet.n_backends, P.cap) :
			     gp_probe_peak_to_mean(n, P.fleet.n_backends);
	free(n);
	return r;
}

static void on_done(void *arg, long i, const struct gp_stream_chat_res *r)
{
	(void)arg;
	(void)i;
	P.done++;
	if (r->error) {
		json_t *v = json_object_get(P.by_error, r->error);

		P.failed++;
		json_object_set_new(P.by_error, r->error,
				    json_integer(v ? json_integer_value(v) + 1 : 1));
	} else {
		P.ok++;
	}
	if (*r->backend) {
		const char *name = backend_of(r->backend);
		json_t *v = json_object_get(P.served, name);

		json_object_set_new(P.served, name, json_integer(v ? json_integer_value(v) + 1 : 1));
	}
}

static void prepare_bodies(void)
{
	const char *kh = P.fleet.key_header ? P.fleet.key_header : "x-gp-cache-key";

	P.bodies = gp_xcalloc((size_t)P.o.keys, sizeof(*P.bodies));
	P.blen = gp_xcalloc((size_t)P.o.keys, sizeof(*P.blen));
	P.khdr = gp_xcalloc((size_t)P.o.keys, sizeof(*P.khdr));
	for (long k = 0; k < P.o.keys; k++) {
		char salt[200];
		size_t n;
		char *prompt;
		struct gp_buf b = { 0 };
		struct gp_oai_req q = { 0 };

		snprintf(salt, sizeof(salt), "%s-key-%ld", P.run, k);
		n = gp_trace_synth_prompt(NULL, 0, P.o.prompt_tokens, NULL, 0, 0, salt);
		prompt = gp_xmalloc(n + 1);
		gp_trace_synth_prompt(prompt, n + 1, P.o.prompt_tokens, NULL, 0, 0, salt);
		q.chat = 1;
		q.model = P.fleet.model ? P.fleet.model : "";
		q.prompt = prompt;
		q.prompt_len = n;
		q.max_tokens = P.o.max_tokens;
		q.stream = 1;
		q.ignore_eos = 1;
		if (gp_oai_req_write(&b, &q))
			gp_die(GP_EXIT_SOFTWARE, "cannot write the request body (no model in the fleet file?)");
		P.bodies[k] = b.p;
		P.blen[k] = b.len;
		snprintf(P.khdr[k], sizeof(P.khdr[k]), "%s: %s", kh, salt);
		free(prompt);
	}
}

static void burst(void)
{
	struct gp_stream_chat_cfg cfg = { P.vip->url, P.have_key ? P.key : NULL, P.fleet.backend_header,
				      NULL, P.o.timeout_ms, &P.o.tls, NULL };
	struct gp_stream_chat_burst b = { &cfg, P.o.requests, P.o.concurrency,
				      (int64_t)P.o.interval_ms * 1000000, make, on_done, sample, NULL };

	prepare_bodies();
	if (gp_probe_acc_init(&P.acc, P.fleet.n_backends))
		gp_die_nomem();
	P.acc.cap = P.cap;
	P.load = gp_xcalloc(P.fleet.n_backends + 1, sizeof(*P.load));
	if (gp_stream_chat_burst_run(&b))
		gp_die(GP_EXIT_SOFTWARE, "libcurl: cannot set up the burst");
	for (long k = 0; k < P.o.keys; k++)
		free(P.bodies[k]);
	free(P.bodies);
	free(P.blen);
	free(P.khdr);
}

/* ---- the verdict */

static int verdict(int mode_ok, const char *evidence, int burst_ran)
{
	double c = burst_ran ? gp_probe_concentration(&P.acc) : NAN;
	double sc = burst_ran ? gp_probe_spread_concentration(&P.acc) : NAN;
	int spread = !strcmp(P.o.expect, "spread");
	long attempted = P.ok + P.failed;
	int voided = burst_ran && attempted > 0 && (double)P.failed > P.o.max_failed * (double)attempted;
	int engaged = burst_ran && !voided && gp_probe_engaged(P.o.expect, &P.acc, &P.o.thr);
	char at[40], why[1400];
	json_t *o = json_object();

	if (!mode_ok)
		snprintf(why, sizeof(why), "mode not confirmed: %s", evidence);
	else if (voided)
		snprintf(why, sizeof(why), "%ld of %ld requests failed", P.failed, attempted);
	else if (P.acc.busy < P.o.thr.min_busy)
		snprintf(why, sizeof(why), "%ld samples with load in flight, %ld needed%s", P.acc.busy,
			 P.o.thr.min_busy, P.sample_errors ? " (some backends' scrapes failed: see "
			 "the probe_sample records)" : "");
	else if (!engaged)
		snprintf(why, sizeof(why), "expected %s, %sconcentration %.3g (%s %g)", P.o.expect,
			 spread && P.cap ? "capacity-weighted " : "", spread ? sc : c,
			 spread ? "spread needs <=" : "concentrate needs >=",
			 spread ? P.o.thr.spread_max : P.o.thr.concentrate_min);
	else
		snprintf(why, sizeof(why), "%s as expected: %sconcentration %.3g", P.o.expect,
			 spread && P.cap ? "capacity-weighted " : "", spread ? sc : c);
	json_object_set_new(o, "type", json_string("probe"));
	json_object_set_new(o, "run", json_string(P.run));
	json_object_set_new(o, "for_run", P.o.for_run ? json_string(P.o.for_run) : json_null());
	json_object_set_new(o, "arm", json_string(P.arm->name));
	json_object_set_new(o, "vip", json_string(P.vip->url));
	json_object_set_new(o, "expect", json_string(P.o.expect));
	gp_json_set_real(o, "concentration", c);
	gp_json_set_real(o, "spread_concentration", sc);
	json_object_set_new(o, "capacity", capacity_json());
	gp_json_set_real(o, "mean_peak_to_mean", burst_ran ? gp_probe_mean_ratio(&P.acc) : NAN);
	gp_json_set_real(o, "max_peak_to_mean", burst_ran && P.acc.busy ? P.acc.ratio_max : NAN);
	json_object_set_new(o, "n_samples", json_integer(burst_ran ? P.acc.samples : 0));
	json_object_set_new(o, "busy_samples", json_integer(burst_ran ? P.acc.busy : 0));
	json_object_set_new(o, "sample_errors", json_integer(P.sample_errors));
	json_object_set_new(o, "mode_cmd", P.arm->mode_cmd ? json_string(P.arm->mode_cmd) : json_null());
	json_object_set_new(o, "mode_regex", P.arm->mode_regex ? json_string(P.arm->mode_regex) : json_null());
	json_object_set_new(o, "mode_evidence", json_string(evidence));
	json_object_set_new(o, "mode_confirmed", json_boolean(mode_ok));
	json_object_set_new(o, "engaged", json_boolean(engaged));
	json_object_set_new(o, "reason", json_string(why));
	json_object_set_new(o, "requests", json_integer(burst_ran ? attempted : 0));
	json_object_set_new(o, "ok", json_integer(P.ok));
	json_object_set_new(o, "failed", json_integer(P.failed));
	json_object_set_new(o, "by_error", json_incref(P.by_error));
	json_object_set_new(o, "served", json_incref(P.served));
	gp_json_set_real(o, "served_peak_to_mean", served_ratio(0));
	gp_json_set_real(o, "served_spread", served_ratio(1));
	json_object_set_new(o, "keys", json_integer(P.o.keys));
	json_object_set_new(o, "concurrency", json_integer(P.o.concurrency));
	json_object_set_new(o, "interval_ms", json_integer(P.o.interval_ms));
	json_object_set_new(o, "prompt_tokens", json_integer(P.o.prompt_tokens));
	json_object_set_new(o, "max_tokens", json_integer(P.o.max_tokens));
	json_object_set_new(o, "thresholds", json_pack("{s:f, s:f, s:I, s:f}", "concentrate_min",
		P.o.thr.concentrate_min, "spread_max", P.o.thr.spread_max, "min_busy",
		(json_int_t)P.o.thr.min_busy, "max_failed", P.o.max_failed));
	json_object_set_new(o, "at", json_string(gp_rfc3339(gp_wall_ns(), at, sizeof(at))));
	gp_json_set_real(o, "t_s", gp_ns_to_s(gp_now_ns() - P.t0));
	out_record(o);
	if (!mode_ok || !engaged)
		gp_warn("arm %s: not engaged: %s", P.arm->name, why);
	else
		gp_info("arm %s: engaged: %s; mode: %s", P.arm->name, why, evidence);
	return mode_ok && engaged;
}

/* ---- main */

static void parse_opts(int argc, char **argv)
{
	enum { O_VIP = 256, O_CAPACITY, O_INTERVAL, O_PROMPT, O_MAXTOK, O_CMIN, O_SMAX, O_MINBUSY, O_MAXFAIL,
	       O_TIMEOUT, O_MTIMEOUT, O_KEYFILE, O_CACERT, O_INSECURE, O_RUN, O_FOR_RUN, O_PROGRESS,
	       O_VERSION };
	static const struct option lo[] = {
		{ "fleet", required_argument, NULL, 'f' },
		{ "arm", required_argument, NULL, 'a' },
		{ "expect", required_argument, NULL, 'e' },
		{ "vip", required_argument, NULL, O_VIP },
		{ "capacity", required_argument, NULL, O_CAPACITY },
		{ "requests", required_argument, NULL, 'n' },
		{ "keys", required_argument, NULL, 'k' },
		{ "concurrency", required_argument, NULL, 'c' },
		{ "interval-ms", required_argument, NULL, O_INTERVAL },
		{ "prompt-tokens", required_argument, NULL, O_PROMPT },
		{ "max-tokens", required_argument, NULL, O_MAXTOK },
		{ "concentrate-min", required_argument, NULL, O_CMIN },
		{ "spread-max", required_argument, NULL, O_SMAX },
		{ "min-busy", required_argument, NULL, O_MINBUSY },
		{ "max-failed", required_argument, NULL, O_MAXFAIL },
		{ "timeout-s", required_argument, NULL, O_TIMEOUT },
		{ "mode-timeout-s", required_argument, NULL, O_MTIMEOUT },
		{ "api-key-file", required_argument, NULL, O_KEYFILE },
		{ "cacert", required_argument, NULL, O_CACERT },
		{ "insecure", no_argument, NULL, O_INSECURE },
		{ "run", required_argument, NULL, O_RUN },
		{ "for-run", required_argument, NULL, O_FOR_RUN },
		{ "progress", no_argument, NULL, O_PROGRESS },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct opts *o = &P.o;
	int c;

	o->requests = 64;
	o->keys = 1;
	o->concurrency = 16;
	o->interval_ms = 50;
	o->prompt_tokens = 256;
	o->max_tokens = 64;
	o->timeout_ms = 30000;
	o->mode_timeout_ms = 10000;
	o->max_failed = 0.1;
	o->thr = (struct gp_probe_thr)GP_PROBE_THR_DEFAULT;
	o->progress = isatty(2);
	while ((c = gp_getopt(argc, argv, "f:a:e:n:k:c:o:h", lo)) != -1) {
		switch (c) {
		case 'f': o->fleet_path = optarg; break;
		case 'a': o->arm = optarg; break;
		case 'e':
			if (strcmp(optarg, "spread") && strcmp(optarg, "concentrate"))
				gp_usage_error("--expect: '%s' is not spread or concentrate", optarg);
			o->expect = optarg;
			break;
		case O_VIP: o->vip = optarg; break;
		case O_CAPACITY: o->capacity = optarg; break;
		case 'n': o->requests = gp_opt_long("--requests", optarg, 1, 10000000); break;
		case 'k': o->keys = gp_opt_long("--keys", optarg, 1, 100000); break;
		case 'c': o->concurrency = gp_opt_long("--concurrency", optarg, 1, 100000); break;
		case O_INTERVAL: o->interval_ms = gp_opt_long("--interval-ms", optarg, 1, 3600000); break;
		case O_PROMPT: o->prompt_tokens = gp_opt_long("--prompt-tokens", optarg, 1, 1000000); break;
		case O_MAXTOK: o->max_tokens = gp_opt_long("--max-tokens", optarg, 1, 1000000); break;
		case O_CMIN: o->thr.concentrate_min = gp_opt_double("--concentrate-min", optarg, 1, 1e6); break;
		case O_SMAX: o->thr.spread_max = gp_opt_double("--spread-max", optarg, 1, 1e6); break;
		case O_MINBUSY: o->thr.min_busy = gp_opt_long("--min-busy", optarg, 1, 1000000); break;
		case O_MAXFAIL: o->max_failed = gp_opt_double("--max-failed", optarg, 0, 1); break;
		case O_TIMEOUT:
			o->timeout_ms = (long)ceil(gp_opt_double("--timeout-s", optarg, 0.001, 86400) * 1000);
			break;
		case O_MTIMEOUT:
			o->mode_timeout_ms = (long)ceil(gp_opt_double("--mode-timeout-s", optarg, 0.001, 86400) * 1000);
			break;
		case O_KEYFILE: o->keyfile = optarg; break;
		case O_CACERT: o->tls.cacert = optarg; break;
		case O_INSECURE: o->tls.insecure = 1; break;
		case O_RUN: o->run = optarg; break;
		case O_FOR_RUN: o->for_run = optarg; break;
		case O_PROGRESS: o->progress = 1; break;
		case 'o': o->output = optarg; break;
		case 'h': gp_print_help(usage);
		case O_VERSION: gp_print_version();
		default: gp_usage_error("unknown option");
		}
	}
	if (optind < argc)
		gp_usage_error("unexpected argument '%s'", argv[optind]);
	if (!o->fleet_path)
		gp_usage_error("--fleet is required");
	if (!o->arm)
		gp_usage_error("--arm is required");
}

static void load_fleet(void)
{
	char err[512];

	if (gp_fleet_load(&P.fleet, P.o.fleet_path, err, sizeof(err)))
		gp_die(GP_EXIT_DATAERR, "%s: %s", P.o.fleet_path, err);
	if (!(P.arm = gp_fleet_arm(&P.fleet, P.o.arm)))
		gp_usage_error("--arm: no arm '%s' in %s", P.o.arm, P.o.fleet_path);
	if (!P.o.expect && !(P.o.expect = P.arm->expect))
		gp_usage_error("--expect is needed: arm '%s' has no expect", P.arm->name);
	for (size_t i = 0; i < P.fleet.n_vips; i++)
		if (!P.vip && (!P.o.vip || (P.fleet.vips[i].name && !strcmp(P.fleet.vips[i].name, P.o.vip))))
			P.vip = &P.fleet.vips[i];
	if (!P.vip)
		gp_usage_error(P.o.vip ? "--vip: no VIP '%s' in %s" : "%s%s: the fleet names no VIP",
			       P.o.vip ? P.o.vip : "", P.o.fleet_path);
	if (!P.fleet.model)
		gp_die(GP_EXIT_DATAERR, "%s: field 'model' is missing: the burst names the model",
		       P.o.fleet_path);
	if (P.fleet.n_backends == 0 || P.fleet.n_inflight_metrics == 0)
		gp_die(GP_EXIT_DATAERR, "%s: field '%s' is empty: the probe samples the backends' "
		       "in-flight load", P.o.fleet_path, P.fleet.n_backends ? "inflight_metrics" : "backends");
	if (gp_stream_api_key(P.o.keyfile, P.key, sizeof(P.key), err, sizeof(err)) < 0)
		gp_die(GP_EXIT_USAGE, "--api-key-file: %s", err);
	P.have_key = *P.key != 0;
	if (P.o.capacity)
		load_capacity();
}

int main(int argc, char **argv)
{
	char evidence[1024], at[40];
	int mode_ok, engaged, unreachable;

	gp_log_init(argv[0]);
	parse_opts(argc, argv);
	load_fleet();
	if (gp_http_global_init())
		gp_die(GP_EXIT_SOFTWARE, "libcurl: cannot initialise");
	gp_output_open(&P.out, P.o.output, 0);
	gp_sig_install();
	P.t0 = gp_now_ns();
	P.by_error = json_object();
	P.served = json_object();
	if (P.o.run)
		snprintf(P.run, sizeof(P.run), "%s", P.o.run);
	else
		snprintf(P.run, sizeof(P.run), "probe-%s-%s", P.arm->name,
			 gp_rfc3339(gp_wall_ns(), at, sizeof(at)));
	mode_ok = check_mode(evidence, sizeof(evidence));
	if (mode_ok) {
		if (P.o.progress)
			fprintf(stderr, "gp-probe: arm %s: mode confirmed: %s\n", P.arm->name, evidence);
		snapshots("before");
		burst();
		snapshots("after");
	}
	engaged = verdict(mode_ok, evidence, mode_ok);
	/* Unreachable: every request failed before anything was sent (read
	 * before by_error is released). */
	unreachable = mode_ok && P.ok == 0 && P.failed > 0 &&
		      json_integer_value(json_object_get(P.by_error, "connect")) +
		      json_integer_value(json_object_get(P.by_error, "tls")) == P.failed;
	gp_output_close(&P.out);
	if (unreachable && !gp_sig_stop())	/* before the fleet (the URL) is released */
		gp_die(GP_EXIT_UNAVAILABLE, "%s: the VIP is unreachable (every request failed to"
		       " connect or its TLS was refused)%s", P.vip->url,
		       json_integer_value(json_object_get(P.by_error, "tls")) ? "; " GP_HTTP_TLS_HINT : "");
	gp_probe_acc_release(&P.acc);
	free(P.load);
	free(P.cap);
	json_decref(P.by_error);
	json_decref(P.served);
	gp_fleet_release(&P.fleet);
	return gp_sig_status(engaged ? 0 : GP_EXIT_NEGATIVE);
}
