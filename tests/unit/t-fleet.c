/* SPDX-License-Identifier: MIT */
/* Unit tests of fleet: reading and validating the fleet file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/fleet.h"
#include "tap.h"

static int parse(struct gp_fleet *f, const char *text, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = json_loads(text, 0, &je);

	err[0] = 0;
	if (!root) {
		snprintf(err, errlen, "test json: %s", je.text);
		return -2;
	}
	return gp_fleet_parse(f, root, err, errlen);
}

static const char *full =
	"{\"model\":\"m\",\"context_length\":8192,"
	"\"vips\":[{\"name\":\"vip\",\"url\":\"http://127.0.0.1:8080\"}],"
	"\"backends\":[{\"name\":\"b1\",\"url\":\"http://127.0.0.1:9001\","
	"\"metrics_url\":\"http://127.0.0.1:9001/metrics\",\"role\":\"prefill\",\"accelerators\":2},"
	"{\"name\":\"b2\",\"url\":\"http://127.0.0.1:9002\"}],"
	"\"inflight_metrics\":[\"vllm:num_requests_running\",\"vllm:num_requests_waiting\"],"
	"\"key_header\":\"x-gp-cache-key\",\"receipt_header\":null,\"backend_header\":\"x-gp-backend\","
	"\"gateway\":{\"metrics_url\":\"http://127.0.0.1:8081/metrics\","
	"\"cache_hit_metric\":\"gw_cache_hits_total\",\"miss_metric\":null},"
	"\"arms\":[{\"name\":\"rr\",\"expect\":\"spread\",\"routes_by_cache\":false},"
	"{\"name\":\"cache\",\"expect\":\"concentrate\",\"routes_by_cache\":true,"
	"\"disaggregated\":true,\"up_cmd\":\"true\",\"x_extra\":{\"k\":1}}],"
	"\"x_tool_field\":42}";

int main(void)
{
	struct gp_fleet f;
	const struct gp_fleet_arm *a;
	char err[256];

	ok(parse(&f, full, err, sizeof(err)) == 0, "a fleet with every field parses (%s)", err);
	is_str(f.model, "m", "model");
	is_int(f.context_length, 8192, "context_length");
	is_int(f.n_vips, 1, "one vip");
	is_str(f.vips[0].url, "http://127.0.0.1:8080", "vip url");
	is_int(f.n_backends, 2, "two backends");
	is_str(f.backends[0].role, "prefill", "role");
	is_int(f.backends[0].accelerators, 2, "accelerators");
	is_str(f.backends[1].role, "both", "role defaults to both");
	is_int(f.backends[1].accelerators, 1, "accelerators default 1");
	ok(f.backends[1].metrics_url == NULL, "absent metrics_url is NULL");
	is_int(f.n_inflight_metrics, 2, "inflight metrics");
	is_str(f.inflight_metrics[1], "vllm:num_requests_waiting", "inflight metric name");
	is_str(f.key_header, "x-gp-cache-key", "key_header");
	ok(f.receipt_header == NULL, "null receipt_header is NULL");
	is_str(f.backend_header, "x-gp-backend", "backend_header");
	is_str(f.cache_hit_metric, "gw_cache_hits_total", "gateway.cache_hit_metric");
	ok(f.miss_metric == NULL, "null miss_metric");
	is_str(f.gateway_metrics_url, "http://127.0.0.1:8081/metrics", "gateway.metrics_url");
	is_int(f.n_arms, 2, "two arms");
	a = gp_fleet_arm(&f, "cache");
	ok(a && a->routes_by_cache == 1 && a->disaggregated == 1, "cache arm flags");
	ok(a && json_is_object(json_object_get(a->obj, "x_extra")), "unknown arm field kept");
	a = gp_fleet_arm(&f, "rr");
	ok(a && a->routes_by_cache == 0 && a->disaggregated == -1, "rr arm: absent disaggregated is -1");
	ok(gp_fleet_arm(&f, "nope") == NULL, "unknown arm: NULL");
	ok(gp_fleet_backend(&f, "b2") == &f.backends[1], "backend by name");
	ok(json_integer_value(json_object_get(f.root, "x_tool_field")) == 42,
	   "unknown top-level field kept");
	ok(gp_fleet_is_gateway_url(&f, "http://127.0.0.1:8080/v1/chat/completions"), "VIP url is the gateway");
	ok(gp_fleet_is_gateway_url(&f, "HTTP://127.0.0.1:8080"), "scheme case ignored");
	ok(gp_fleet_is_gateway_url(&f, "http://127.0.0.1:8081/x"), "gateway metrics origin");
	ok(!gp_fleet_is_gateway_url(&f, "http://127.0.0.1:9001/v1"), "a backend is not");
	ok(!gp_fleet_is_gateway_url(&f, "http://127.0.0.1:80"), "another port is not");
	ok(!gp_fleet_is_gateway_url(&f, "not a url"), "junk is not");
	gp_fleet_release(&f);

	ok(parse(&f, "{\"vips\":[{\"url\":\"http://vip\"}]}", err, sizeof(err)) == 0 &&
	   gp_fleet_is_gateway_url(&f, "http://VIP:80/"), "default port 80 matches");
	gp_fleet_release(&f);

	/* By address: numeric hosts resolve without DNS. */
	ok(parse(&f, "{\"vips\":[{\"url\":\"http://127.0.0.1:8080\"},{\"url\":\"http://[::1]:8082\"}],"
		 "\"gateway\":{\"metrics_url\":\"http://127.0.0.1:8081/m\"}}", err, sizeof(err)) == 0,
	   "fleet with two VIPs and gateway metrics");
	is_int(gp_fleet_resolves_to_gateway(&f, "http://127.0.0.1:8080/v1"), 0, "same address and port: VIP 0");
	is_int(gp_fleet_resolves_to_gateway(&f, "http://[0:0::1]:8082"), 1,
	       "another spelling of the IPv6 VIP: VIP 1");
	is_int(gp_fleet_resolves_to_gateway(&f, "http://127.0.0.1:8081"), 2,
	       "the gateway's metrics address: n_vips");
	is_int(gp_fleet_resolves_to_gateway(&f, "http://127.0.0.1:8083"), -1, "another port: no");
	is_int(gp_fleet_resolves_to_gateway(&f, "http://127.0.0.2:8080"), -1, "another address: no");
	is_int(gp_fleet_resolves_to_gateway(&f, "junk"), -1, "junk: no");
	gp_fleet_release(&f);

	ok(parse(&f, "{}", err, sizeof(err)) == 0 && f.n_arms == 0 && f.n_backends == 0,
	   "empty document is valid");
	gp_fleet_release(&f);

	static const struct { const char *doc, *msg; } bad[] = {
		{ "[]", "the fleet file is not a JSON object" },
		{ "{\"arms\":[{\"expect\":\"spread\"}]}", "field 'arms[0].name' is missing" },
		{ "{\"arms\":[{\"name\":\"a\"},{\"name\":1}]}", "field 'arms[1].name' is not a string" },
		{ "{\"arms\":[{\"name\":\"a\"},{\"name\":\"a\"}]}", "field 'arms[1].name': arm 'a' appears twice" },
		{ "{\"arms\":[{\"name\":\"a\",\"routes_by_cache\":\"yes\"}]}", "field 'arms[0].routes_by_cache' is not a boolean" },
		{ "{\"arms\":[{\"name\":\"a\",\"expect\":\"both\"}]}", "field 'arms[0].expect' must be spread or concentrate" },
		{ "{\"arms\":{}}", "field 'arms' is not an array" },
		{ "{\"backends\":[{\"name\":\"b\"}]}", "field 'backends[0].url' is missing" },
		{ "{\"backends\":[{\"url\":\"u\",\"role\":\"x\"}]}", "field 'backends[0].role' must be prefill, decode or both" },
		{ "{\"backends\":[{\"url\":\"u\",\"accelerators\":-1}]}", "field 'backends[0].accelerators' must be >= 0" },
		{ "{\"backends\":[7]}", "field 'backends[0]' is not an object" },
		{ "{\"vips\":[{\"name\":\"v\"}]}", "field 'vips[0].url' is missing" },
		{ "{\"gateway\":{\"cache_hit_metric\":3}}", "field 'gateway.cache_hit_metric' is not a string" },
		{ "{\"gateway\":3}", "field 'gateway' is not an object" },
		{ "{\"inflight_metrics\":[\"a\",2]}", "field 'inflight_metrics[1]' is not a string" },
		{ "{\"context_length\":\"big\"}", "field 'context_length' is not an integer" },
		{ "{\"backend_header\":true}", "field 'backend_header' is not a string" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ok(parse(&f, bad[i].doc, err, sizeof(err)) == -1, "refuses %s", bad[i].doc);
		is_str(err, bad[i].msg, "message for %s", bad[i].doc);
		ok(f.root == NULL && f.arms == NULL, "released after failure");
	}

	/* gp_fleet_load from a file: syntax error names the line. */
	{
		char path[] = "/tmp/t-fleet.XXXXXX";
		int fd = mkstemp(path);
		FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;

		ok(fp != NULL, "temp file");
		if (fp) {
			fputs("{\n\"arms\": [\n{\"name\": \"a\",}\n]}\n", fp);
			fclose(fp);
			ok(gp_fleet_load(&f, path, err, sizeof(err)) == -1 &&
			   strncmp(err, "line 3:", 7) == 0, "syntax error names the line (%s)", err);
			remove(path);
		}
		ok(gp_fleet_load(&f, "/nonexistent/fleet.json", err, sizeof(err)) == -1 &&
		   strstr(err, "No such file") != NULL, "missing file (%s)", err);
	}

	/* A URL with a placeholder nobody filled is refused, naming the field. */
	is_int(parse(&f, "{\"backends\":[{\"url\":\"http://127.0.0.1:9001\"},"
		     "{\"url\":\"http://${GP_B2}\"}]}", err, sizeof(err)), -1, "backends[1].url ${GP_B2}");
	is_str(err, "field 'backends[1].url' holds the unexpanded placeholder ${GP_B2}: fill the "
	       "template before the tools read it", "the message names the field and the placeholder");
	is_int(parse(&f, "{\"backends\":[{\"url\":\"http://h:1\",\"reset_url\":\"http://${X}/r\"}]}",
		     err, sizeof(err)), -1, "reset_url is a URL field too");
	is_int(parse(&f, "{\"gateway\":{\"metrics_url\":\"http://${GP_PROM}/m\"}}", err, sizeof(err)), -1,
	       "gateway.metrics_url too (%s)", err);
	is_int(parse(&f, "{\"arms\":[{\"name\":\"a\",\"up_cmd\":\"sh ${GP_TOP}/x.sh\"}]}", err, sizeof(err)),
	       0, "a command's ${VAR} is the shell's: kept");
	gp_fleet_release(&f);

	/* The backend a served value names: its name, its URL, its host:port. */
	ok(parse(&f, full, err, sizeof(err)) == 0, "parse again");
	is_int(gp_fleet_backend_index(&f, "b2"), 1, "by name");
	is_int(gp_fleet_backend_index(&f, "HTTP://127.0.0.1:9002/"), 1, "by URL, origin compared");
	is_int(gp_fleet_backend_index(&f, "127.0.0.1:9001"), 0, "by host:port (nginx's $upstream_addr)");
	is_int(gp_fleet_backend_index(&f, "127.0.0.1:9003"), -1, "another port: none");
	is_int(gp_fleet_backend_index(&f, "127.0.0.1"), -1, "a host alone: none");
	is_int(gp_fleet_backend_index(&f, ""), -1, "empty: none");
	gp_fleet_release(&f);
	return done_testing();
}
