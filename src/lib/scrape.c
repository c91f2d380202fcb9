/* SPDX-License-Identifier: MIT */
/* scrape — a Prometheus scrape as a metrics record. */
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "http.h"
#include "json.h"
#include "openai.h"
#include "prom.h"
#include "scrape.h"

static void on_sample(const char *series, double value, void *arg)
{
	json_object_set_new((json_t *)arg, series, gp_json_real(value));
}

json_t *gp_scrape(const char *url, long timeout_ms, int64_t *t_ns)
{
	char *body = NULL, err[256], at[40];
	size_t len = 0;
	long status = 0;
	json_t *o = json_object(), *samples = json_object();

	if (t_ns)
		*t_ns = gp_now_ns();
	if (!o || !samples) {
		json_decref(o);
		json_decref(samples);
		return NULL;
	}
	json_object_set_new(o, "type", json_string("metrics"));
	json_object_set_new(o, "target", json_string(url));
	json_object_set_new(o, "at", json_string(gp_rfc3339(gp_wall_ns(), at, sizeof(at))));
	if (gp_http_fetch(url, timeout_ms, 16u << 20, &body, &len, &status, err, sizeof(err))) {
		gp_oai_scrub(err, sizeof(err), NULL);
		json_object_set_new(o, "error", json_string(err));
	} else if (status != 200) {
		json_object_set_new(o, "error", json_string("http_status"));
		json_object_set_new(o, "http_status", json_integer(status));
	} else if (gp_prom_parse(body, len, on_sample, samples)) {
		json_object_clear(samples);
		json_object_set_new(o, "error", json_string("invalid_text"));
	}
	json_object_set_new(o, "samples", samples);
	free(body);
	return o;
}

int gp_scrape_failed(const json_t *m)
{
	return json_object_get(m, "error") != NULL;
}

double gp_scrape_sum(const json_t *m, const char *name, int *have)
{
	const char *series;
	json_t *v;
	size_t n = strlen(name);
	double sum = 0;
	int h = 0;

	json_object_foreach(json_object_get(m, "samples"), series, v) {
		if (!strncmp(series, name, n) && (series[n] == 0 || series[n] == '{') &&
		    json_is_number(v)) {
			sum += json_number_value(v);
			h = 1;
		}
	}
	if (have)
		*have = h;
	return sum;
}
