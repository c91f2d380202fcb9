/* SPDX-License-Identifier: MIT */
/*
 * num — numbers from the command line and from records, parsed with range and
 * end-pointer checks (banned.h bans atoi and friends).  A primitive: no I/O,
 * never exits; cli's gp_opt_* wrap these for options and die with exit 2.
 *
 * gp_parse_* return 0 and store the value, or -1 (value untouched) when the
 * text is NULL or empty, has trailing garbage, is NaN/inf, or lies outside
 * [min, max].  gp_parse_u64 also refuses a leading '-'.
 */
#ifndef GP_NUM_H
#define GP_NUM_H

#include <stdint.h>

int gp_parse_double(const char *s, double min, double max, double *out);
int gp_parse_long(const char *s, long min, long max, long *out);
int gp_parse_u64(const char *s, uint64_t *out);

#endif
