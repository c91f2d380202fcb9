/* SPDX-License-Identifier: MIT */
/*
 * scrape — one Prometheus scrape as a `metrics` record (doc/records.md,
 * doc/records.md), and sums over its samples.  The record every scraping tool
 * writes (gp-health, gp-probe) comes from here, so gp-verify's dual proof
 * reads one shape.
 *
 * gp_scrape returns a new object
 *   {"type":"metrics","target":URL,"at":RFC3339,"samples":{"name{labels}":v}}
 * and, on a failed scrape, "samples":{} with "error" (libcurl's text, scrubbed
 * of secrets, also for a page over 16 MiB; "http_status" with
 * "http_status":N; or "invalid_text" with "error_detail" saying where) — the
 * shape gp-replay --scrape writes too.  A tool that writes it as a record
 * adds t_s, run, arm, phase with gp_scrape_stamp.  The monotonic time of the
 * scrape goes to *t_ns (may be NULL).
 *
 * Invalid text (the page is refused whole: no sample of it is kept, never a
 * partial page passed off as the whole): a line that is not a sample, a
 * comment or blank (prom.h; "line N is not Prometheus text"); a page that
 * does not end with a newline, as the format requires of its last line
 * ("line N ends without a newline: truncated"); the same series twice
 * ("duplicate series S", as Prometheus itself refuses the scrape).  An empty
 * page is valid and holds no sample.
 *
 * tls is the TLS policy of https:// URLs (http.h; NULL: the default).
 *
 * Ownership: the returned object is the caller's (json_decref); NULL only when
 * out of memory.  Nothing here prints.
 */
#ifndef GP_SCRAPE_H
#define GP_SCRAPE_H

#include <stdint.h>
#include <jansson.h>

#include "io/http.h"

json_t *gp_scrape(const char *url, const struct gp_http_tls *tls, long timeout_ms, int64_t *t_ns);

/*
 * Stamp m, from gp_scrape, with the run it belongs to, its keys put in the
 * order of doc/records.md's metrics record: type, target, t_s, at, run, arm,
 * rep (only when rep >= 0; gp-probe has none), phase, samples, then a failed
 * scrape's error fields as gp_scrape wrote them.  t_s NAN is written null: a
 * place kept for a later gp_json_set_real (jansson keeps a key's place when
 * its value is replaced).  0, or -1 when out of memory.
 */
int gp_scrape_stamp(json_t *m, double t_s, const char *run, const char *arm, long rep,
		    const char *phase);

/* 1 when the record is a failed scrape (it has "error"). */
int gp_scrape_failed(const json_t *metrics);

/*
 * A failed scrape's reason for a message: "error" then, when present,
 * ": error_detail" or " (HTTP N)", e.g. "invalid_text: line 3 is not
 * Prometheus text".  Written to buf (cap bytes), returned; "" when the
 * scrape did not fail.
 */
const char *gp_scrape_why(const json_t *metrics, char *buf, size_t cap);

/*
 * Sum of the samples of metric `name` (series "name" or "name{…}") in a
 * metrics record's "samples"; *have (may be NULL) is 1 when at least one
 * series matched.
 */
double gp_scrape_sum(const json_t *metrics, const char *name, int *have);
/* The same over the series "name{…}" whose labels include `label` exactly
 * (e.g. le="0.005"). */
double gp_scrape_sum_label(const json_t *metrics, const char *name, const char *label, int *have);

#endif
