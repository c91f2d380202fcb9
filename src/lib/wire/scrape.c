/* SPDX-License-Identifier: MIT */
/* scrape — a Prometheus scrape as a metrics record. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "io/http.h"
#include "io/json.h"
#include "wire/openai.h"
#include "wire/prom.h"
#include "wire/scrape.h"

struct page {
	json_t *samples;
	char dup[200];		/* the first series seen twice, "" when none */
};

static void on_sample(const char *series, double value, void *arg)
{
	struct page *p = arg;

	if (!p->dup[0] && json_object_get(p->samples, series))
		snprintf(p->dup, sizeof(p->dup), "%s", series);
	json_object_set_new(p->samples, series, gp_json_real(value));
}

/* The page's samples into p; 0, or -1 with the reason in why. */
static int read_page(const char *body, size_t len, struct page *p, char *why, size_t cap)
{
	int bad = gp_prom_parse(body, len, on_sample, p);

	if (bad > 0)
		snprintf(why, cap, "line %d is not Prometheus text", bad);
	else if (bad < 0)
		snprintf(why, cap, "out of memory");
	else if (len && body[len - 1] != '\n') {
		int n = 1;

		for (size_t i = 0; i < len; i++)
			n += body[i] == '\n';
		snprintf(why, cap, "line %d ends without a newline: truncated", n);
	} else if (p->dup[0])
		snprintf(why, cap, "duplicate series %s", p->dup);
	else
		return 0;
	return -1;
}

json_t *gp_scrape(const char *url, const struct gp_http_tls *tls, long timeout_ms, int64_t *t_ns)
{
	char *body = NULL, err[256], at[40];
	size_t len = 0;
	long status = 0;
	json_t *o = json_object();
	struct page p = { json_object(), "" };

	if (t_ns)
		*t_ns = gp_now_ns();
	if (!o || !p.samples) {
		json_decref(o);
		json_decref(p.samples);
		return NULL;
	}
	json_object_set_new(o, "type", json_string("metrics"));
	json_object_set_new(o, "target", json_string(url));
	json_object_set_new(o, "at", json_string(gp_rfc3339(gp_wall_ns(), at, sizeof(at))));
	if (gp_http_fetch(url, tls, timeout_ms, 16u << 20, &body, &len, &status, err, sizeof(err), NULL)) {
		gp_oai_scrub(err, sizeof(err), NULL);
		json_object_set_new(o, "error", json_string(err));
	} else if (status != 200) {
		json_object_set_new(o, "error", json_string("http_status"));
		json_object_set_new(o, "http_status", json_integer(status));
	} else if (read_page(body, len, &p, err, sizeof(err))) {
		json_object_clear(p.samples);
		json_object_set_new(o, "error", json_string("invalid_text"));
		json_object_set_new(o, "error_detail", json_string(err));
	}
	json_object_set_new(o, "samples", p.samples);
	free(body);
	return o;
}

int gp_scrape_stamp(json_t *m, double t_s, const char *run, const char *arm, long rep,
		    const char *phase)
{
	json_t *rest = json_object(), *v;
	const char *k;
	void *tmp;
	int rc = rest ? 0 : -1;

	/* All but type and target wait in rest, to come back in their places. */
	json_object_foreach_safe(m, tmp, k, v) {
		if (!rc && strcmp(k, "type") && strcmp(k, "target")) {
			rc = json_object_set(rest, k, v);
			json_object_del(m, k);
		}
	}
	rc = rc || gp_json_set_real(m, "t_s", t_s) ||
	     json_object_set(m, "at", json_object_get(rest, "at")) ||
	     json_object_set_new(m, "run", json_string(run)) ||
	     json_object_set_new(m, "arm", json_string(arm)) ||
	     (rep >= 0 && json_object_set_new(m, "rep", json_integer(rep))) ||
	     json_object_set_new(m, "phase", json_string(phase)) ||
	     json_object_set(m, "samples", json_object_get(rest, "samples")) ||
	     json_object_update(m, rest);
	json_decref(rest);
	return rc ? -1 : 0;
}

const char *gp_scrape_why(const json_t *m, char *buf, size_t cap)
{
	const char *e = json_string_value(json_object_get(m, "error"));
	const char *d = json_string_value(json_object_get(m, "error_detail"));
	json_t *st = json_object_get(m, "http_status");

	if (!e)
		snprintf(buf, cap, "%s", "");
	else if (d)
		snprintf(buf, cap, "%s: %s", e, d);
	else if (json_is_integer(st))
		snprintf(buf, cap, "%s (HTTP %lld)", e, (long long)json_integer_value(st));
	else
		snprintf(buf, cap, "%s", e);
	return buf;
}

int gp_scrape_failed(const json_t *m)
{
	return json_object_get(m, "error") != NULL;
}

double gp_scrape_sum_label(const json_t *m, const char *name, const char *label, int *have)
{
	const char *series, *l;
	json_t *v;
	size_t n = strlen(name), k = strlen(label);
	double sum = 0;
	int h = 0;

	json_object_foreach(json_object_get(m, "samples"), series, v) {
		if (strncmp(series, name, n) || series[n] != '{' || !json_is_number(v))
			continue;
		for (l = series + n; (l = strstr(l + 1, label)); )
			if ((l[-1] == '{' || l[-1] == ',') && (l[k] == ',' || l[k] == '}')) {
				sum += json_number_value(v);
				h = 1;
				break;
			}
	}
	if (have)
		*have = h;
	return sum;
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
