/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of prom: the parser against vLLM-style (prometheus_client) and
 * HAProxy-exporter-style exposition text (escaped label values, +Inf
 * buckets, NaN, timestamps, blank lines, CRLF), malformed lines reported by
 * number, and the writer round-tripped through the parser.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wire/prom.h"
#include "tap.h"

struct got {
	int n;
	char series[64][256];
	double v[64];
};

static void collect(const char *series, double value, void *arg)
{
	struct got *g = arg;

	if (g->n < 64) {
		snprintf(g->series[g->n], sizeof(g->series[0]), "%s", series);
		g->v[g->n] = value;
	}
	g->n++;
}

static int parse(const char *text, struct got *g)
{
	memset(g, 0, sizeof(*g));
	return gp_prom_parse(text, strlen(text), collect, g);
}

/* Value of a series, NAN when absent. */
static double find(const struct got *g, const char *series)
{
	for (int i = 0; i < g->n && i < 64; i++)
		if (strcmp(g->series[i], series) == 0)
			return g->v[i];
	return NAN;
}

/* Shape of vLLM 0.6-0.8 /metrics (Python prometheus_client output). */
static const char vllm_text[] =
	"# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
	"# TYPE vllm:num_requests_running gauge\n"
	"vllm:num_requests_running{model_name=\"meta-llama/Llama-3.1-8B-Instruct\"} 3.0\n"
	"# HELP vllm:num_requests_waiting Number of requests waiting to be processed.\n"
	"# TYPE vllm:num_requests_waiting gauge\n"
	"vllm:num_requests_waiting{model_name=\"meta-llama/Llama-3.1-8B-Instruct\"} 0.0\n"
	"# HELP vllm:prefix_cache_queries_total Prefix cache queries.\n"
	"# TYPE vllm:prefix_cache_queries_total counter\n"
	"vllm:prefix_cache_queries_total{engine=\"0\",model_name=\"m\"} 12288.0\n"
	"vllm:prefix_cache_queries_created{engine=\"0\",model_name=\"m\"} 1.7203e+09\n"
	"\n"
	"# TYPE vllm:time_to_first_token_seconds histogram\n"
	"vllm:time_to_first_token_seconds_bucket{le=\"0.001\",model_name=\"m\"} 0.0\n"
	"vllm:time_to_first_token_seconds_bucket{le=\"0.005\",model_name=\"m\"} 2.0\n"
	"vllm:time_to_first_token_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 7.0\n"
	"vllm:time_to_first_token_seconds_count{model_name=\"m\"} 7.0\n"
	"vllm:time_to_first_token_seconds_sum{model_name=\"m\"} 0.123456789\n"
	"vllm:gpu_cache_usage_perc{model_name=\"m\"} NaN\n";

/* Shape of HAProxy 2.x's built-in exporter (service prometheus-exporter). */
static const char haproxy_text[] =
	"# HELP haproxy_process_nbthread Number of started threads (global.nbthread)\r\n"
	"# TYPE haproxy_process_nbthread gauge\r\n"
	"haproxy_process_nbthread 2\r\n"
	"\r\n"
	"# HELP haproxy_frontend_current_sessions Number of current sessions on the frontend\r\n"
	"# TYPE haproxy_frontend_current_sessions gauge\r\n"
	"haproxy_frontend_current_sessions{proxy=\"fe_vip\"} 17\r\n"
	"haproxy_server_status{proxy=\"be_llm\",server=\"b1\",state=\"UP\"} 1\r\n"
	"haproxy_backend_http_responses_total{proxy=\"be_llm\",code=\"5xx\"} 4\r\n"
	"haproxy_server_check_status{proxy=\"be_llm\",server=\"b2\",state=\"L7OK\"} +Inf\r\n"
	"haproxy_backend_max_queue_time_seconds{proxy=\"be_llm\"} -Inf 1700000000000\r\n";

int main(void)
{
	struct got g;
	int rc;

	rc = parse(vllm_text, &g);
	is_int(rc, 0, "vLLM text parses");
	is_int(g.n, 10, "10 samples");
	is_str(g.series[0], "vllm:num_requests_running{model_name=\"meta-llama/Llama-3.1-8B-Instruct\"}",
	       "series keeps name and labels");
	is_dbl(g.v[0], 3.0, 0, "gauge value");
	is_dbl(find(&g, "vllm:prefix_cache_queries_total{engine=\"0\",model_name=\"m\"}"), 12288, 0,
	       "counter with two labels, order kept");
	is_dbl(find(&g, "vllm:prefix_cache_queries_created{engine=\"0\",model_name=\"m\"}"),
	       1.7203e9, 1, "exponent notation");
	is_dbl(find(&g, "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\",model_name=\"m\"}"), 7, 0,
	       "+Inf bucket");
	is_dbl(find(&g, "vllm:time_to_first_token_seconds_sum{model_name=\"m\"}"), 0.123456789, 1e-15,
	       "sum");
	ok(isnan(find(&g, "vllm:gpu_cache_usage_perc{model_name=\"m\"}")), "NaN value");

	rc = parse(haproxy_text, &g);
	is_int(rc, 0, "HAProxy text with CRLF parses");
	is_int(g.n, 6, "6 samples");
	is_str(g.series[0], "haproxy_process_nbthread", "no labels: no braces");
	is_dbl(g.v[0], 2, 0, "value before CR");
	is_str(g.series[2], "haproxy_server_status{proxy=\"be_llm\",server=\"b1\",state=\"UP\"}",
	       "three labels");
	ok(isinf(g.v[4]) && g.v[4] > 0, "+Inf value");
	ok(isinf(g.v[5]) && g.v[5] < 0, "-Inf value with a timestamp ignored");

	/* Label value escapes, spacing, trailing comma, empty braces. */
	rc = parse("m{path=\"a\\\"b\\\\c\\nd\"} 1\n"
		   "  n { a = \"x\" , b=\"\" , } 2.5\n"
		   "o{} 3\n"
		   "p{a=\"}{,=\"} 4\n"
		   "# a comment\n"
		   "q\t5\t-12\n", &g);
	is_int(rc, 0, "escapes and spacing parse");
	is_str(g.series[0], "m{path=\"a\\\"b\\\\c\\nd\"}", "escaped quote, backslash, newline kept canonical");
	is_str(g.series[1], "n{a=\"x\",b=\"\"}", "blanks removed, trailing comma accepted");
	is_dbl(g.v[1], 2.5, 0, "value after spaced labels");
	is_str(g.series[2], "o", "empty braces normalised away");
	is_str(g.series[3], "p{a=\"}{,=\"}", "braces and commas inside a value");
	is_str(g.series[4], "q", "tab separators");
	is_dbl(g.v[4], 5, 0, "value with tab and negative timestamp");

	/* Malformed lines: the 1-based line number, samples before it reported. */
	is_int(parse("a 1\nb 2\nc\n", &g), 3, "missing value: line 3");
	is_int(g.n, 2, "two samples before the error");
	is_int(parse("a 1\r\n\r\nb{x=\"1} 2\r\n", &g), 3, "unterminated label value");
	is_int(parse("a{x=1} 2\n", &g), 1, "unquoted label value");
	is_int(parse("a{x=\"1\"} two\n", &g), 1, "non-numeric value");
	is_int(parse("a 1 2 3\n", &g), 1, "trailing garbage");
	is_int(parse("a 1 12.5\n", &g), 1, "non-integer timestamp");
	is_int(parse("9a 1\n", &g), 1, "name cannot start with a digit");
	is_int(parse("a{x=\"\\q\"} 1\n", &g), 1, "unknown escape");
	is_int(parse("a{x=\"1\"}2\n", &g), 1, "no blank before the value");
	is_int(parse("ok 1\n# x\n\nbad{\n", &g), 4, "line counting skips nothing");
	is_int(parse("", &g), 0, "empty text");
	is_int(parse("a 1", &g), 0, "no final newline");
	is_int(g.n, 1, "... still one sample");

	/* Writer round trip. */
	{
		struct gp_prom p;
		struct gp_prom_hist h;
		const double le[] = { 0.1, 0.5, 1 };
		const char *lab[] = { "model_name", "m\"x\\y", NULL };

		gp_prom_init(&p);
		gp_prom_family(&p, "t:g", "gauge", "A gauge.\nTwo lines.");
		gp_prom_sample(&p, "t:g", NULL, lab, NULL, NULL, 0.25);
		gp_prom_family(&p, "t:c", "counter", NULL);
		gp_prom_sample(&p, "t:c", "_total", NULL, NULL, NULL, 1e15);
		gp_prom_sample(&p, "t:c", "_total", lab, "k", "v", 0.1);
		gp_prom_hist_init(&h, le, 3);
		gp_prom_hist_observe(&h, 0.05);
		gp_prom_hist_observe(&h, 0.1);
		gp_prom_hist_observe(&h, 0.7);
		gp_prom_hist_observe(&h, 3);
		gp_prom_hist_write(&p, "t:h", lab, &h);
		ok(!p.err, "writer: no error");
		ok(strstr(p.buf, "# HELP t:g A gauge.\\nTwo lines.\n# TYPE t:g gauge\n") != NULL,
		   "HELP escapes the newline");
		ok(strstr(p.buf, "t:c_total 1000000000000000\n") != NULL, "integers printed without a point");
		rc = parse(p.buf, &g);
		is_int(rc, 0, "writer output parses");
		is_dbl(find(&g, "t:g{model_name=\"m\\\"x\\\\y\"}"), 0.25, 0, "escaped label round trip");
		is_dbl(find(&g, "t:c_total{model_name=\"m\\\"x\\\\y\",k=\"v\"}"), 0.1, 0, "extra label last");
		is_dbl(find(&g, "t:h_bucket{model_name=\"m\\\"x\\\\y\",le=\"0.1\"}"), 2, 0,
		       "bucket le=0.1 counts v <= 0.1 (cumulative)");
		is_dbl(find(&g, "t:h_bucket{model_name=\"m\\\"x\\\\y\",le=\"1\"}"), 3, 0, "bucket le=1");
		is_dbl(find(&g, "t:h_bucket{model_name=\"m\\\"x\\\\y\",le=\"+Inf\"}"), 4, 0, "+Inf = count");
		is_dbl(find(&g, "t:h_sum{model_name=\"m\\\"x\\\\y\"}"), 3.85, 1e-12, "sum");
		is_dbl(find(&g, "t:h_count{model_name=\"m\\\"x\\\\y\"}"), 4, 0, "count");
		gp_prom_reset(&p);
		is_int(p.len, 0, "reset empties");
		gp_prom_sample(&p, "x", NULL, NULL, NULL, NULL, NAN);
		gp_prom_sample(&p, "y", NULL, NULL, NULL, NULL, -INFINITY);
		is_str(p.buf, "x NaN\ny -Inf\n", "NaN and -Inf written");
		gp_prom_release(&p);
	}
	{
		/* Found by tests/fuzz/fuzz-prom: a NUL byte inside a label value
		 * was copied into the series, so the callback saw a cut string
		 * (x{a="q), and a value "1<NUL>junk" read as 1. */
		static const char lv[] = "ok 1\nx{a=\"q\0z\"} 2\nnever 3\n";
		static const char vv[] = "ok 1\ny 1\0junk\nnever 3\n";

		memset(&g, 0, sizeof(g));
		rc = gp_prom_parse(lv, sizeof(lv) - 1, collect, &g);
		is_int(rc, 2, "NUL in a label value: line 2 malformed");
		is_int(g.n, 1, "NUL in a label value: only the sample before it");
		memset(&g, 0, sizeof(g));
		rc = gp_prom_parse(vv, sizeof(vv) - 1, collect, &g);
		is_int(rc, 2, "NUL in a value: line 2 malformed");
		is_int(g.n, 1, "NUL in a value: only the sample before it");
	}
	return done_testing();
}
