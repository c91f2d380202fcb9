/* SPDX-License-Identifier: MIT */
/*
 * t-clock — monotonic and wall nanoseconds, RFC 3339 anchors (checked
 * against `date -u -d @1700000000.123456789 +%FT%T.%6NZ`), and the absolute
 * sleep the pacers use.
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "tap.h"

int main(void)
{
	char buf[40];
	int64_t a, b, t0, w;
	int mono = 1;

	a = gp_now_ns();
	for (int i = 0; i < 100000; i++) {
		b = gp_now_ns();
		mono &= b >= a;
		a = b;
	}
	ok(mono, "gp_now_ns never goes back (100000 reads)");
	w = gp_wall_ns();
	ok(w / GP_NS_PER_S - (int64_t)time(NULL) <= 1 && (int64_t)time(NULL) - w / GP_NS_PER_S <= 1,
	   "gp_wall_ns is the epoch time, in ns");

	is_str(gp_rfc3339(0, buf, sizeof(buf)), "1970-01-01T00:00:00.000000Z", "the epoch");
	is_str(gp_rfc3339(1700000000123456789LL, buf, sizeof(buf)), "2023-11-14T22:13:20.123456Z",
	       "microseconds, truncated, UTC, Z");
	is_str(gp_rfc3339(-1000, buf, sizeof(buf)), "1969-12-31T23:59:59.999999Z",
	       "before the epoch: the second before, not a negative fraction");
	is_int(strlen(gp_rfc3339(4102444799999999999LL, buf, sizeof(buf))), 27, "27 bytes (fits 32)");

	is_dbl(gp_ns_to_s(1500000000), 1.5, 0, "gp_ns_to_s");
	is_dbl(gp_ns_to_ms(2500000), 2.5, 0, "gp_ns_to_ms");

	t0 = gp_now_ns();
	is_int(gp_sleep_until_ns(t0 - GP_NS_PER_S), 0, "a time past: 0");
	ok(gp_now_ns() - t0 < 5 * GP_NS_PER_MS, "and at once");
	t0 = gp_now_ns();
	is_int(gp_sleep_until_ns(t0 + 30 * GP_NS_PER_MS), 0, "sleep until now + 30 ms");
	ok(gp_now_ns() - t0 >= 30 * GP_NS_PER_MS, "not a nanosecond early (%.3f ms)",
	   gp_ns_to_ms(gp_now_ns() - t0));
	return done_testing();
}
