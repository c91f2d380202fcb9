/* SPDX-License-Identifier: MIT */
/* rfc3339 — RFC 3339 timestamps to nanoseconds since the epoch. */
#include <stddef.h>

#include "base/rfc3339.h"

/* n decimal digits at s into *v; 0 or -1. */
static int digits(const char *s, int n, int *v)
{
	int x = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (s[i] - '0');
	}
	*v = x;
	return 0;
}

static int leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/*
 * Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar: shift
 * the year to start in March so the leap day is last, then count whole
 * 400-year eras (146097 days each) and the days inside the era.
 */
static int64_t days_from_civil(int y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/*
 * "YYYY-MM-DD[Tt ]HH:MM:SS[.frac]" at s: seconds since the epoch of that
 * clock reading taken as UTC into *t, nanoseconds into *frac; returns the
 * rest of s, or NULL when it is not such a reading.
 */
static const char *parse_clock(const char *s, int64_t *t, int64_t *frac)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, d, h, mi, sec;
	const char *p;

	if (!s)
		return NULL;
	if (digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) || s[7] != '-' ||
	    digits(s + 8, 2, &d))
		return NULL;
	if (s[10] != 'T' && s[10] != 't' && s[10] != ' ')
		return NULL;
	if (digits(s + 11, 2, &h) || s[13] != ':' || digits(s + 14, 2, &mi) ||
	    s[16] != ':' || digits(s + 17, 2, &sec))
		return NULL;
	if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 60)
		return NULL;
	if (d > mdays[mo - 1] + (mo == 2 && leap(y)))
		return NULL;
	p = s + 19;
	*frac = 0;
	if (*p == '.') {
		int n = 0;

		p++;
		if (*p < '0' || *p > '9')
			return NULL;
		for (; *p >= '0' && *p <= '9'; p++, n++)
			if (n < 9)
				*frac = *frac * 10 + (*p - '0');
		for (; n < 9; n++)
			*frac *= 10;
	}
	*t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
	return p;
}

int gp_rfc3339_parse(const char *s, int64_t *ns)
{
	int oh = 0, om = 0, sign = 0;
	int64_t frac, t;
	const char *p = parse_clock(s, &t, &frac);

	if (!p)
		return -1;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p == '+' ? 1 : -1;
		if (digits(p + 1, 2, &oh) || p[3] != ':' || digits(p + 4, 2, &om) ||
		    oh > 23 || om > 59)
			return -1;
		p += 6;
	} else {
		return -1;
	}
	if (*p)
		return -1;
	t -= sign * (oh * 3600 + om * 60);
	*ns = t * 1000000000LL + frac;
	return 0;
}

int gp_rfc3339_parse_naive(const char *s, int64_t *ns)
{
	int64_t frac, t;
	const char *p = parse_clock(s, &t, &frac);

	if (!p || *p)
		return -1;
	*ns = t * 1000000000LL + frac;
	return 0;
}
