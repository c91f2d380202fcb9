/* SPDX-License-Identifier: MIT */
/*
 * fleet — the fleet file (doc/records.md): what is measured.  One JSON document
 * with the VIPs, the backends and their metrics URLs, the gateway's metrics and
 * the arms (routing modes) of a campaign.
 *
 * Ownership: gp_fleet_load()/gp_fleet_parse() keep the parsed document in
 * f->root; every string and json_t pointer in the struct is borrowed from it and
 * lives until gp_fleet_release().  The arrays (vips, backends, arms,
 * inflight_metrics) are owned by the struct.  Unknown fields are kept in
 * f->root (and in each entry's `obj`), never an error, so tools can read the
 * fields they add.
 *
 * Validation: a field that is present must have the right type (null counts
 * as absent for optional fields); vips[].url, backends[].url and arms[].name
 * are required and arm names are unique; arms[].expect, when present, is
 * "spread" or "concentrate"; backends[].role, when present, is "prefill",
 * "decode" or "both"; a URL field (vips[].url, backends[].url, metrics_url
 * and reset_url, gateway.metrics_url) holding an unexpanded "${...}" is
 * refused, naming the field and the placeholder.  Errors come back as text naming the field path, e.g.
 * "field 'arms[1].name' is missing"; the caller prefixes the file name.
 */
#ifndef GP_FLEET_H
#define GP_FLEET_H

#include <stddef.h>
#include <jansson.h>

struct gp_fleet_vip {
	const char *name;	/* may be NULL */
	const char *url;
	json_t *obj;
};

struct gp_fleet_backend {
	const char *name;	/* may be NULL */
	const char *url;
	const char *metrics_url;	/* may be NULL */
	const char *role;	/* "prefill", "decode" or "both" (default) */
	long accelerators;	/* default 1 */
	json_t *obj;
};

struct gp_fleet_arm {
	const char *name;
	const char *expect;	/* "spread", "concentrate" or NULL */
	int routes_by_cache;	/* default 0 */
	int disaggregated;	/* 1, 0, or -1 when the field is absent */
	const char *up_cmd, *mode_cmd, *mode_regex;	/* may be NULL */
	json_t *obj;
};

struct gp_fleet {
	json_t *root;		/* owned: the whole document */
	const char *model;	/* may be NULL */
	long context_length;	/* 0 when absent */
	struct gp_fleet_vip *vips;
	size_t n_vips;
	struct gp_fleet_backend *backends;
	size_t n_backends;
	const char **inflight_metrics;
	size_t n_inflight_metrics;
	const char *key_header;		/* may be NULL */
	const char *receipt_header;	/* may be NULL */
	const char *receipt_regex;	/* the receipt's shape (wire/receipt.h), may be NULL */
	const char *backend_header;	/* response header naming the backend
					 * that served a request; may be NULL */
	const char *gateway_metrics_url;	/* gateway.metrics_url, may be NULL */
	const char *cache_hit_metric;	/* gateway.cache_hit_metric, may be NULL */
	const char *miss_metric;	/* gateway.miss_metric, may be NULL */
	struct gp_fleet_arm *arms;
	size_t n_arms;
};

/*
 * The backends' cache-hit counter (vLLM's prefix cache, in tokens), read when
 * the gateway names no cache_hit_metric; and its companion, the tokens
 * queried.
 */
#define GP_FLEET_BACKEND_HIT_METRIC "vllm:prefix_cache_hits_total"
#define GP_FLEET_BACKEND_QUERY_METRIC "vllm:prefix_cache_queries_total"

/* Zero the struct (no allocation). */
void gp_fleet_init(struct gp_fleet *f);
/*
 * Read and validate the fleet file at path.  0, or -1 with a message in err
 * ("line 3: ..." for JSON syntax, "field 'x' ..." for the schema, or the
 * strerror of a failed open); f is then released.
 */
int gp_fleet_load(struct gp_fleet *f, const char *path, char *err, size_t errlen);
/* Validate an already parsed document; takes over the reference to root
 * (also on failure).  0 or -1 with a message in err. */
int gp_fleet_parse(struct gp_fleet *f, json_t *root, char *err, size_t errlen);
/* Free the arrays and drop the document. */
void gp_fleet_release(struct gp_fleet *f);

/* The arm or backend of that name, or NULL. */
const struct gp_fleet_arm *gp_fleet_arm(const struct gp_fleet *f, const char *name);
const struct gp_fleet_backend *gp_fleet_backend(const struct gp_fleet *f, const char *name);

/*
 * The index of the backend that `value` names — its name, its URL (same
 * origin), or its URL's host:port as written (nginx's $upstream_addr, a
 * receipt's endpoint) — or -1.
 */
long gp_fleet_backend_index(const struct gp_fleet *f, const char *value);

/*
 * 1 when url has the same origin (scheme, host, port; scheme and host
 * compared without case, port defaulted from the scheme) as one of the VIPs or
 * the gateway's metrics URL — gp-calibrate refuses such a target.  0 otherwise,
 * also when url cannot be parsed.
 */
int gp_fleet_is_gateway_url(const struct gp_fleet *f, const char *url);

/*
 * Whether url resolves (getaddrinfo) to an address and port that a VIP or
 * the gateway's metrics URL also resolves to: the VIP's index, n_vips for
 * the gateway's metrics URL, or -1 (no match, or url does not resolve).
 * Catches a VIP reached under another name (localhost for 127.0.0.1).
 */
int gp_fleet_resolves_to_gateway(const struct gp_fleet *f, const char *url);

#endif
