/* SPDX-License-Identifier: MIT */
/* Unit tests of scrape: sums over a metrics record, a failed scrape's shape,
 * the record's key order once stamped (doc/records.md, metrics). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "io/http.h"
#include "io/json.h"
#include "wire/scrape.h"
#include "serve.h"
#include "tap.h"

/* gp_http_fetch_stop: a scrape of a silent peer ends once stop says so,
 * long before its timeout, as a failed scrape. */
static void fetch_stopped(void)
{
	char url[64], err[256], *body = NULL;
	int fd, port = serve_silent(&fd);
	int64_t t0 = gp_now_ns();
	enum gp_http_err k = GP_HTTP_OK;
	size_t len;
	long status;
	json_t *f;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
	gp_http_fetch_stop(serve_stop_later);
	serve_stop_at = t0 + 200000000;
	is_int(gp_http_fetch(url, NULL, 10000, 1 << 20, &body, &len, &status, err, sizeof(err), &k), -1,
	       "a GET of a silent peer, stopped");
	is_int(k, GP_HTTP_EABORT, "its class: aborted (%s)", err);
	ok(gp_now_ns() - t0 < 3000000000, "it ends soon after the stop (%.3f s), not at the 10 s timeout",
	   gp_ns_to_s(gp_now_ns() - t0));
	f = gp_scrape(url, NULL, 10000, NULL);
	ok(f && gp_scrape_failed(f), "a scrape with stop already set: failed at once");
	json_decref(f);
	gp_http_fetch_stop(NULL);
	close(fd);
}

/* The keys of o in their order, comma-separated. */
static const char *keys(const json_t *o)
{
	static char buf[300];
	const char *k;
	json_t *v;
	size_t n = 0;

	buf[0] = 0;
	json_object_foreach((json_t *)o, k, v)
		n += snprintf(buf + n, n < sizeof(buf) ? sizeof(buf) - n : 0, "%s%s", n ? "," : "", k);
	return buf;
}

int main(void)
{
	json_t *m = json_pack("{s:s, s:{s:f, s:f, s:f, s:f, s:s}}", "type", "metrics", "samples",
			      "vllm:num_requests_running{model_name=\"m\"}", 3.0,
			      "vllm:num_requests_running{model_name=\"n\"}", 2.0,
			      "vllm:num_requests_running_total", 100.0,
			      "gp_router_cache_hits_total", 7.0, "junk", "x");
	int have = -1;
	json_t *f;

	is_dbl(gp_scrape_sum(m, "vllm:num_requests_running", &have), 5.0, 1e-12,
	       "summed over labels, a longer name is another metric");
	is_int(have, 1, "have");
	is_dbl(gp_scrape_sum(m, "gp_router_cache_hits_total", NULL), 7.0, 1e-12, "no labels");
	is_dbl(gp_scrape_sum(m, "junk", &have), 0.0, 0, "a non-number is not a sample");
	is_int(have, 0, "not had");
	is_dbl(gp_scrape_sum(m, "vllm:num", &have), 0.0, 0, "a prefix is not a metric");
	is_int(have, 0, "prefix not had");
	ok(!gp_scrape_failed(m), "not failed");
	json_decref(m);

	gp_http_global_init();
	f = gp_scrape("http://127.0.0.1:1/metrics", NULL, 2000, NULL);
	ok(f && gp_scrape_failed(f), "nothing listening: a failed scrape");
	ok(f && json_is_string(json_object_get(f, "error")) &&
	   json_object_size(json_object_get(f, "samples")) == 0, "error text, empty samples");
	is_str(json_string_value(json_object_get(f, "target")), "http://127.0.0.1:1/metrics", "target");
	is_str(json_string_value(json_object_get(f, "type")), "metrics", "type");
	ok(json_is_string(json_object_get(f, "at")), "at");
	ok(f && gp_scrape_stamp(f, NAN, "r1", "rr", -1, "before") == 0, "stamp a failed scrape");
	is_str(keys(f), "type,target,t_s,at,run,arm,phase,samples,error",
	       "stamped: doc/records.md order, no rep when rep < 0, error last");
	ok(json_is_null(json_object_get(f, "t_s")), "t_s NAN: null");
	gp_json_set_real(f, "t_s", -0.5);
	is_str(keys(f), "type,target,t_s,at,run,arm,phase,samples,error", "t_s set later keeps its place");
	is_str(json_string_value(json_object_get(f, "phase")), "before", "phase");
	json_decref(f);
	m = json_pack("{s:s, s:s, s:s, s:s, s:i, s:{}}", "type", "metrics", "target", "u",
		      "at", "2026-01-01T00:00:00Z", "error", "http_status", "http_status", 503, "samples");
	ok(m && gp_scrape_stamp(m, 2.0, "r2", "chash", 3, "after") == 0, "stamp with a rep");
	is_str(keys(m), "type,target,t_s,at,run,arm,rep,phase,samples,error,http_status",
	       "rep after arm; the error fields keep their order after samples");
	is_int(json_integer_value(json_object_get(m, "rep")), 3, "rep");
	is_dbl(json_real_value(json_object_get(m, "t_s")), 2.0, 0, "t_s");
	is_int(json_integer_value(json_object_get(m, "http_status")), 503, "http_status kept");
	is_str(json_string_value(json_object_get(m, "at")), "2026-01-01T00:00:00Z", "at kept");
	json_decref(m);
	fetch_stopped();
	return done_testing();
}
