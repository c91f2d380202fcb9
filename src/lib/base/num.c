/* SPDX-License-Identifier: MIT */
/* num — numbers from text, with range and end-pointer checks (no atoi). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "base/num.h"

int gp_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int gp_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int gp_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || end == s)
		return -1;
	*out = (uint64_t)v;
	return 0;
}
