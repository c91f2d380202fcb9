/* SPDX-License-Identifier: MIT */
/* Unit tests of rfc3339: parsing wall-clock anchors to epoch nanoseconds. */
#include <stdint.h>

#include "base/clock.h"
#include "base/rfc3339.h"
#include "tap.h"

int main(void)
{
	/* Expected seconds from Python 3.11: datetime.fromisoformat(s).timestamp(). */
	static const struct { const char *s; int64_t sec; int64_t frac_ns; } good[] = {
		{ "2025-01-02T03:04:05Z", 1735787045, 0 },
		{ "1970-01-01T00:00:00Z", 0, 0 },
		{ "2024-02-29T23:59:59.123456789+01:30", 1709245799, 123456789 },
		{ "1969-12-31T23:59:59-00:00", -1, 0 },
		{ "2000-03-01T00:00:00.5Z", 951868800, 500000000 },
		{ "2100-12-31t12:00:00z", 4133937600, 0 },
		{ "2100-12-31 12:00:00Z", 4133937600, 0 },
	};
	static const char *bad[] = {
		"", "2025-01-02", "2025-01-02T03:04:05", "2025-13-02T03:04:05Z",
		"2025-02-29T00:00:00Z", "2025-01-02T24:00:00Z", "2025-01-02T03:04:05.Z",
		"2025-01-02T03:04:05Zjunk", "2025-01-02T03:04:05+0100", "25-01-02T03:04:05Z",
		"2025-01-02T03:04:05+24:00",
	};
	char buf[64];
	int64_t ns = 7;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ns = 7;
		ok(gp_rfc3339_parse(good[i].s, &ns) == 0 &&
		   ns == good[i].sec * 1000000000LL + good[i].frac_ns, "parses %s", good[i].s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ns = 7;
		ok(gp_rfc3339_parse(bad[i], &ns) == -1 && ns == 7, "refuses '%s'", bad[i]);
	}
	ok(gp_rfc3339_parse(NULL, &ns) == -1, "refuses NULL");
	ok(gp_rfc3339_parse("2016-12-31T23:59:60Z", &ns) == 0 && ns == 1483228800LL * 1000000000LL,
	   "leap second counts as the next second");
	/* Without a zone (trace CSVs): the same instant as with Z, nothing after. */
	ok(gp_rfc3339_parse_naive("2023-11-16 18:15:46.6805900", &ns) == 0 &&
	   ns == 1700158546LL * 1000000000LL + 680590000, "naive: Azure's 7-digit fraction");
	ok(gp_rfc3339_parse_naive("2024-02-29T00:00:00", &ns) == 0 && ns == 1709164800LL * 1000000000LL,
	   "naive: leap day");
	ns = 7;
	ok(gp_rfc3339_parse_naive("2023-11-16 18:15:46Z", &ns) == -1 && ns == 7, "naive: refuses a zone");
	ok(gp_rfc3339_parse_naive("2023-02-29 00:00:00", &ns) == -1 && ns == 7, "naive: refuses Feb 29 of 2023");
	ok(gp_rfc3339_parse_naive("2023-11-16 18:15", &ns) == -1 && ns == 7, "naive: refuses no seconds");
	/* Round trip through the formatter of clock.h. */
	gp_rfc3339(1735787045123456000LL, buf, sizeof(buf));
	ok(gp_rfc3339_parse(buf, &ns) == 0 && ns == 1735787045123456000LL,
	   "round trip with gp_rfc3339 (%s)", buf);
	return done_testing();
}
