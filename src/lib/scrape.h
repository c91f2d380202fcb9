/* SPDX-License-Identifier: MIT */
/*
 * scrape — one Prometheus scrape as a `metrics` record (DESIGN.md §3,
 * doc/records.md), and sums over its samples.  The record every scraping tool
 * writes (gp-health, gp-probe) comes from here, so gp-verify's dual proof
 * reads one shape.
 *
 * gp_scrape returns a new object
 *   {"type":"metrics","target":URL,"at":RFC3339,"samples":{"name{labels}":v}}
 * and, on a failed scrape, "samples":{} with "error" (libcurl's text, scrubbed
 * of secrets; "http_status" with "http_status":N; or "invalid_text") — the
 * shape gp-replay --scrape writes.  The caller adds t_s, run, arm, phase.
 * The monotonic time of the scrape goes to *t_ns (may be NULL).
 *
 * Ownership: the returned object is the caller's (json_decref); NULL only when
 * out of memory.  Nothing here prints.
 */
#ifndef GP_SCRAPE_H
#define GP_SCRAPE_H

#include <stdint.h>
#include <jansson.h>

json_t *gp_scrape(const char *url, long timeout_ms, int64_t *t_ns);

/* 1 when the record is a failed scrape (it has "error"). */
int gp_scrape_failed(const json_t *metrics);

/*
 * Sum of the samples of metric `name` (series "name" or "name{…}") in a
 * metrics record's "samples"; *have (may be NULL) is 1 when at least one
 * series matched.
 */
double gp_scrape_sum(const json_t *metrics, const char *name, int *have);

#endif
