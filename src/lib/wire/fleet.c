/* SPDX-License-Identifier: MIT */
/* fleet — read and validate the fleet file of doc/records.md. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "base/buf.h"
#include "wire/fleet.h"

void gp_fleet_init(struct gp_fleet *f)
{
	memset(f, 0, sizeof(*f));
}

void gp_fleet_release(struct gp_fleet *f)
{
	free(f->vips);
	free(f->backends);
	free(f->arms);
	free(f->inflight_metrics);
	json_decref(f->root);
	gp_fleet_init(f);
}

/* Optional string field: 0 (set or left NULL) or -1 with err. */
static int opt_str(const json_t *o, const char *key, const char *path, const char **out,
		   char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return gp_errf(err, errlen, "field '%s%s' is not a string", path, key);
	*out = json_string_value(v);
	return 0;
}

/* An optional header name: an RFC 9110 token, so no CR, LF, colon or space
 * can reach a request's header lines. */
static int opt_header(const json_t *o, const char *key, const char **out, char *err, size_t errlen)
{
	if (opt_str(o, key, "", out, err, errlen))
		return -1;
	if (!*out)
		return 0;
	if (!**out)
		return gp_errf(err, errlen, "field '%s' is an empty header name", key);
	for (const char *c = *out; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      strchr("!#$%&'*+-.^_`|~", *c)))
			return gp_errf(err, errlen, "field '%s' is not a header name (byte 0x%02x)", key,
				    (unsigned char)*c);
	return 0;
}

static int need_str(const json_t *o, const char *key, const char *path, const char **out,
		    char *err, size_t errlen)
{
	if (opt_str(o, key, path, out, err, errlen))
		return -1;
	if (!*out)
		return gp_errf(err, errlen, "field '%s%s' is missing", path, key);
	return 0;
}

/* A URL field: a string with no unexpanded placeholder ("${GP_B1}" left by
 * a template nobody filled, which libcurl would refuse without naming it). */
static int opt_url(const json_t *o, const char *key, const char *path, const char **out,
		   char *err, size_t errlen)
{
	const char *d;

	if (opt_str(o, key, path, out, err, errlen))
		return -1;
	if (*out && (d = strstr(*out, "${")) != NULL)
		return gp_errf(err, errlen, "field '%s%s' holds the unexpanded placeholder %.*s: "
			    "fill the template before the tools read it", path, key,
			    (int)(strchr(d, '}') ? strchr(d, '}') - d + 1 : (long)strlen(d)), d);
	return 0;
}

static int need_url(const json_t *o, const char *key, const char *path, const char **out,
		    char *err, size_t errlen)
{
	if (opt_url(o, key, path, out, err, errlen))
		return -1;
	if (!*out)
		return gp_errf(err, errlen, "field '%s%s' is missing", path, key);
	return 0;
}

static int opt_bool(const json_t *o, const char *key, const char *path, int *out,
		    char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_boolean(v))
		return gp_errf(err, errlen, "field '%s%s' is not a boolean", path, key);
	*out = json_is_true(v);
	return 0;
}

static int opt_long(const json_t *o, const char *key, const char *path, long min,
		    long *out, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v))
		return gp_errf(err, errlen, "field '%s%s' is not an integer", path, key);
	if (json_integer_value(v) < min)
		return gp_errf(err, errlen, "field '%s%s' must be >= %ld", path, key, min);
	*out = (long)json_integer_value(v);
	return 0;
}

/* The array at key (NULL when absent), or -1 when present and not an array. */
static int opt_array(const json_t *o, const char *key, json_t **out, char *err, size_t errlen)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return gp_errf(err, errlen, "field '%s' is not an array", key);
	*out = v;
	return 0;
}

static int entry(json_t *a, size_t i, const char *key, char *path, size_t pathlen,
		 json_t **out, char *err, size_t errlen)
{
	json_t *e = json_array_get(a, i);

	snprintf(path, pathlen, "%s[%zu].", key, i);
	if (!json_is_object(e))
		return gp_errf(err, errlen, "field '%s[%zu]' is not an object", key, i);
	*out = e;
	return 0;
}

static int parse_vips(struct gp_fleet *f, char *err, size_t errlen)
{
	json_t *a, *e = NULL;
	char path[64];

	if (opt_array(f->root, "vips", &a, err, errlen))
		return -1;
	if (!a || !json_array_size(a))
		return 0;
	f->vips = calloc(json_array_size(a), sizeof(*f->vips));
	if (!f->vips)
		return gp_errf(err, errlen, "out of memory");
	for (size_t i = 0; i < json_array_size(a); i++) {
		struct gp_fleet_vip *v = &f->vips[i];

		if (entry(a, i, "vips", path, sizeof(path), &e, err, errlen) ||
		    opt_str(e, "name", path, &v->name, err, errlen) ||
		    need_url(e, "url", path, &v->url, err, errlen))
			return -1;
		v->obj = e;
		f->n_vips++;
	}
	return 0;
}

static int parse_backends(struct gp_fleet *f, char *err, size_t errlen)
{
	json_t *a, *e = NULL;
	char path[64];

	if (opt_array(f->root, "backends", &a, err, errlen))
		return -1;
	if (!a || !json_array_size(a))
		return 0;
	f->backends = calloc(json_array_size(a), sizeof(*f->backends));
	if (!f->backends)
		return gp_errf(err, errlen, "out of memory");
	for (size_t i = 0; i < json_array_size(a); i++) {
		struct gp_fleet_backend *b = &f->backends[i];
		const char *reset = NULL;

		b->role = "both";
		b->accelerators = 1;
		if (entry(a, i, "backends", path, sizeof(path), &e, err, errlen) ||
		    opt_str(e, "name", path, &b->name, err, errlen) ||
		    need_url(e, "url", path, &b->url, err, errlen) ||
		    opt_url(e, "metrics_url", path, &b->metrics_url, err, errlen) ||
		    opt_url(e, "reset_url", path, &reset, err, errlen) ||
		    opt_str(e, "role", path, &b->role, err, errlen) ||
		    opt_long(e, "accelerators", path, 0, &b->accelerators, err, errlen))
			return -1;
		if (strcmp(b->role, "prefill") && strcmp(b->role, "decode") &&
		    strcmp(b->role, "both"))
			return gp_errf(err, errlen, "field '%srole' must be prefill, decode or both", path);
		b->obj = e;
		f->n_backends++;
	}
	return 0;
}

static int parse_arms(struct gp_fleet *f, char *err, size_t errlen)
{
	json_t *a, *e = NULL;
	char path[64];

	if (opt_array(f->root, "arms", &a, err, errlen))
		return -1;
	if (!a || !json_array_size(a))
		return 0;
	f->arms = calloc(json_array_size(a), sizeof(*f->arms));
	if (!f->arms)
		return gp_errf(err, errlen, "out of memory");
	for (size_t i = 0; i < json_array_size(a); i++) {
		struct gp_fleet_arm *r = &f->arms[i];

		r->disaggregated = -1;
		if (entry(a, i, "arms", path, sizeof(path), &e, err, errlen) ||
		    need_str(e, "name", path, &r->name, err, errlen) ||
		    opt_str(e, "expect", path, &r->expect, err, errlen) ||
		    opt_bool(e, "routes_by_cache", path, &r->routes_by_cache, err, errlen) ||
		    opt_bool(e, "disaggregated", path, &r->disaggregated, err, errlen) ||
		    opt_str(e, "up_cmd", path, &r->up_cmd, err, errlen) ||
		    opt_str(e, "mode_cmd", path, &r->mode_cmd, err, errlen) ||
		    opt_str(e, "mode_regex", path, &r->mode_regex, err, errlen))
			return -1;
		if (r->expect && strcmp(r->expect, "spread") && strcmp(r->expect, "concentrate"))
			return gp_errf(err, errlen, "field '%sexpect' must be spread or concentrate", path);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(f->arms[j].name, r->name))
				return gp_errf(err, errlen, "field '%sname': arm '%s' appears twice",
					    path, r->name);
		r->obj = e;
		f->n_arms++;
	}
	return 0;
}

static int parse_inflight(struct gp_fleet *f, char *err, size_t errlen)
{
	json_t *a;

	if (opt_array(f->root, "inflight_metrics", &a, err, errlen))
		return -1;
	if (!a || !json_array_size(a))
		return 0;
	f->inflight_metrics = calloc(json_array_size(a), sizeof(*f->inflight_metrics));
	if (!f->inflight_metrics)
		return gp_errf(err, errlen, "out of memory");
	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *v = json_array_get(a, i);

		if (!json_is_string(v))
			return gp_errf(err, errlen, "field 'inflight_metrics[%zu]' is not a string", i);
		f->inflight_metrics[f->n_inflight_metrics++] = json_string_value(v);
	}
	return 0;
}

int gp_fleet_parse(struct gp_fleet *f, json_t *root, char *err, size_t errlen)
{
	json_t *gw;

	gp_fleet_init(f);
	f->root = root;
	if (!json_is_object(root)) {
		gp_fleet_release(f);
		return gp_errf(err, errlen, "the fleet file is not a JSON object");
	}
	gw = json_object_get(root, "gateway");
	if (gw && !json_is_null(gw) && !json_is_object(gw)) {
		gp_fleet_release(f);
		return gp_errf(err, errlen, "field 'gateway' is not an object");
	}
	if (json_is_null(gw))
		gw = NULL;
	if (opt_str(root, "model", "", &f->model, err, errlen) ||
	    opt_long(root, "context_length", "", 1, &f->context_length, err, errlen) ||
	    opt_header(root, "key_header", &f->key_header, err, errlen) ||
	    opt_header(root, "receipt_header", &f->receipt_header, err, errlen) ||
	    opt_str(root, "receipt_regex", "", &f->receipt_regex, err, errlen) ||
	    opt_header(root, "backend_header", &f->backend_header, err, errlen) ||
	    (gw && (opt_url(gw, "metrics_url", "gateway.", &f->gateway_metrics_url, err, errlen) ||
		    opt_str(gw, "cache_hit_metric", "gateway.", &f->cache_hit_metric, err, errlen) ||
		    opt_str(gw, "miss_metric", "gateway.", &f->miss_metric, err, errlen))) ||
	    parse_vips(f, err, errlen) || parse_backends(f, err, errlen) ||
	    parse_arms(f, err, errlen) || parse_inflight(f, err, errlen)) {
		gp_fleet_release(f);
		return -1;
	}
	return 0;
}

int gp_fleet_load(struct gp_fleet *f, const char *path, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root;
	FILE *fp;

	gp_fleet_init(f);
	fp = fopen(path, "r");
	if (!fp)
		return gp_errf(err, errlen, "%s", strerror(errno));
	root = json_loadf(fp, JSON_REJECT_DUPLICATES, &je);
	fclose(fp);
	if (!root)
		return gp_errf(err, errlen, "line %d: %s", je.line, je.text);
	return gp_fleet_parse(f, root, err, errlen);
}

const struct gp_fleet_arm *gp_fleet_arm(const struct gp_fleet *f, const char *name)
{
	for (size_t i = 0; name && i < f->n_arms; i++)
		if (!strcmp(f->arms[i].name, name))
			return &f->arms[i];
	return NULL;
}

const struct gp_fleet_backend *gp_fleet_backend(const struct gp_fleet *f, const char *name)
{
	for (size_t i = 0; name && i < f->n_backends; i++)
		if (f->backends[i].name && !strcmp(f->backends[i].name, name))
			return &f->backends[i];
	return NULL;
}

/* scheme://[userinfo@]host[:port]/... into lowercase "scheme://host:port". */
static int origin(const char *url, char *out, size_t outlen)
{
	const char *p = strstr(url, "://"), *h, *end, *at, *colon;
	char scheme[16];
	size_t n;
	long port = -1;

	if (!p || (size_t)(p - url) >= sizeof(scheme) || p == url)
		return -1;
	for (n = 0; url + n < p; n++)
		scheme[n] = (char)tolower((unsigned char)url[n]);
	scheme[n] = 0;
	h = p + 3;
	end = h + strcspn(h, "/?#");
	at = memchr(h, '@', (size_t)(end - h));
	if (at)
		h = at + 1;
	if (*h == '[') {	/* IPv6 literal */
		const char *rb = memchr(h, ']', (size_t)(end - h));

		if (!rb)
			return -1;
		colon = rb + 1 < end && rb[1] == ':' ? rb + 1 : NULL;
	} else {
		colon = memchr(h, ':', (size_t)(end - h));
	}
	if (colon) {
		char *e;

		port = strtol(colon + 1, &e, 10);
		if (e != end || port < 0 || port > 65535)
			return -1;
	} else {
		colon = end;
		if (!strcmp(scheme, "http"))
			port = 80;
		else if (!strcmp(scheme, "https"))
			port = 443;
	}
	if (colon == h)
		return -1;
	n = (size_t)snprintf(out, outlen, "%s://%.*s:%ld", scheme, (int)(colon - h), h, port);
	if (n >= outlen)
		return -1;
	for (char *c = out; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return 0;
}

long gp_fleet_backend_index(const struct gp_fleet *f, const char *value)
{
	char a[512], b[512];
	int is_url;

	if (!value || !*value)
		return -1;
	for (size_t i = 0; i < f->n_backends; i++)
		if (f->backends[i].name && !strcmp(f->backends[i].name, value))
			return (long)i;
	/* A URL, or a host:port (nginx's $upstream_addr, a receipt's endpoint). */
	is_url = strstr(value, "://") != NULL;
	if (is_url ? origin(value, a, sizeof(a)) :
	    (size_t)snprintf(b, sizeof(b), "http://%s", value) >= sizeof(b) || origin(b, a, sizeof(a)))
		return -1;
	for (size_t i = 0; i < f->n_backends; i++) {
		const char *u = f->backends[i].url, *h = strstr(u, "://");

		if (is_url) {
			if (!origin(u, b, sizeof(b)) && !strcmp(a, b))
				return (long)i;
		} else if (h) {
			size_t n = strcspn(h + 3, "/?#");

			if (strlen(value) == n && !strncasecmp(h + 3, value, n))
				return (long)i;
		}
	}
	return -1;
}

int gp_fleet_is_gateway_url(const struct gp_fleet *f, const char *url)
{
	char a[512], b[512];

	if (!url || origin(url, a, sizeof(a)))
		return 0;
	for (size_t i = 0; i < f->n_vips; i++)
		if (!origin(f->vips[i].url, b, sizeof(b)) && !strcmp(a, b))
			return 1;
	if (f->gateway_metrics_url && !origin(f->gateway_metrics_url, b, sizeof(b)) &&
	    !strcmp(a, b))
		return 1;
	return 0;
}

/* "scheme://host:port" (from origin) → host (brackets stripped) and port. */
static int host_port(const char *org, char *host, size_t hostlen, char *port, size_t portlen)
{
	const char *h = strstr(org, "://") + 3, *c = strrchr(org, ':');
	size_t n;

	if (*h == '[')
		h++;
	n = (size_t)(c - h);
	if (n && h[n - 1] == ']')
		n--;
	if (n == 0 || n >= hostlen || strlen(c + 1) >= portlen)
		return -1;
	memcpy(host, h, n);
	host[n] = 0;
	snprintf(port, portlen, "%s", c + 1);
	return 0;
}

static int same_addr(const struct addrinfo *a, const struct addrinfo *b)
{
	if (a->ai_family != b->ai_family)
		return 0;
	if (a->ai_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a->ai_addr, *y = (const void *)b->ai_addr;

		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->ai_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a->ai_addr, *y = (const void *)b->ai_addr;

		return x->sin6_port == y->sin6_port &&
		       !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr));
	}
	return 0;
}

static struct addrinfo *resolve(const char *url)
{
	struct addrinfo hints, *res = NULL;
	char org[512], host[300], port[8];

	if (!url || origin(url, org, sizeof(org)) || host_port(org, host, sizeof(host), port,
							       sizeof(port)))
		return NULL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, port, &hints, &res))
		return NULL;
	return res;
}

int gp_fleet_resolves_to_gateway(const struct gp_fleet *f, const char *url)
{
	struct addrinfo *a = resolve(url);
	int hit = -1;

	for (size_t i = 0; a && hit < 0 && i <= f->n_vips; i++) {
		const char *v = i < f->n_vips ? f->vips[i].url : f->gateway_metrics_url;
		struct addrinfo *b = resolve(v);

		for (const struct addrinfo *p = a; b && hit < 0 && p; p = p->ai_next)
			for (const struct addrinfo *q = b; hit < 0 && q; q = q->ai_next)
				if (same_addr(p, q))
					hit = (int)i;
		if (b)
			freeaddrinfo(b);
	}
	if (a)
		freeaddrinfo(a);
	return hit;
}
