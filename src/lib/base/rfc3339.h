/* SPDX-License-Identifier: MIT */
/*
 * rfc3339 — parse the wall-clock anchors that records carry ("started_at",
 * "ended_at", health "at") into integer nanoseconds since the Unix epoch, so
 * that times from different hosts and offsets compare.  The formatting side
 * is gp_rfc3339() in clock.h.  No allocation, no global state, no TZ lookup.
 */
#ifndef GP_RFC3339_H
#define GP_RFC3339_H

#include <stdint.h>

/*
 * Parse "YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)" (RFC 3339 §5.6; 'T' may
 * be 't' or a space, 'Z' may be 'z'; up to 9 fraction digits are kept, more are
 * accepted and truncated; a leap second 60 counts as the next second).
 * Returns 0 and stores nanoseconds since 1970-01-01T00:00:00Z, or -1 (value
 * untouched) when the text is not such a time or a field is out of range.
 */
int gp_rfc3339_parse(const char *s, int64_t *ns);
/*
 * The same date and time without a zone ("YYYY-MM-DD HH:MM:SS[.frac]", as
 * the Azure and BurstGPT traces write them), read as UTC: for differences
 * between readings of one clock.  0, or -1 (value untouched).
 */
int gp_rfc3339_parse_naive(const char *s, int64_t *ns);

#endif
