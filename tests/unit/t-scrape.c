/* SPDX-License-Identifier: MIT */
/* Unit tests of scrape: sums over a metrics record, a failed scrape's shape. */
#include <jansson.h>
#include <string.h>

#include "http.h"
#include "scrape.h"
#include "tap.h"

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
	json_decref(f);
	return done_testing();
}
