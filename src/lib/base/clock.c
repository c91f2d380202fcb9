/* SPDX-License-Identifier: MIT */
/* clock — monotonic nanoseconds and RFC 3339 wall-clock anchors. */
#include <stdio.h>
#include <time.h>

#include "base/clock.h"

int64_t gp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * GP_NS_PER_S + ts.tv_nsec;
}

int64_t gp_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * GP_NS_PER_S + ts.tv_nsec;
}

char *gp_rfc3339(int64_t wall_ns, char *buf, size_t len)
{
	time_t s = (time_t)(wall_ns / GP_NS_PER_S);
	long us = (long)((wall_ns % GP_NS_PER_S) / 1000);
	struct tm tm;
	char head[24];

	if (us < 0) {
		us += 1000000;
		s -= 1;
	}
	gmtime_r(&s, &tm);
	strftime(head, sizeof(head), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06ldZ", head, us);
	return buf;
}

int gp_sleep_until_ns(int64_t t_ns)
{
	struct timespec ts = { (time_t)(t_ns / GP_NS_PER_S), (long)(t_ns % GP_NS_PER_S) };

	return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ? -1 : 0;
}
