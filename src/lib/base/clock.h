/* SPDX-License-Identifier: MIT */
/*
 * clock — time inside a process is integer nanoseconds of CLOCK_MONOTONIC;
 * one wall-clock anchor per run, converted at the edge (RFC 3339 strings).
 */
#ifndef GP_CLOCK_H
#define GP_CLOCK_H

#include <stdint.h>
#include <stddef.h>

#define GP_NS_PER_S  1000000000LL
#define GP_NS_PER_MS 1000000LL

/* Monotonic nanoseconds (CLOCK_MONOTONIC). */
int64_t gp_now_ns(void);
/* Wall clock, nanoseconds since the Unix epoch (CLOCK_REALTIME). */
int64_t gp_wall_ns(void);
/* Format wall-clock ns as RFC 3339 UTC with microseconds into buf (>= 32 bytes).
 * Returns buf. */
char *gp_rfc3339(int64_t wall_ns, char *buf, size_t len);
/* Sleep until monotonic time t_ns (absolute); returns 0 at once if past, or
 * -1 when a signal interrupted the sleep (the caller checks its flags). */
int gp_sleep_until_ns(int64_t t_ns);

static inline double gp_ns_to_s(int64_t ns) { return (double)ns / 1e9; }
static inline double gp_ns_to_ms(int64_t ns) { return (double)ns / 1e6; }

#endif
