/* SPDX-License-Identifier: MIT */
/* Unit tests of json (typed field access, dumping) and clock (monotonic, RFC 3339). */
#include <math.h>
#include <stdlib.h>

#include "base/clock.h"
#include "io/json.h"
#include "tap.h"

int main(void)
{
	json_error_t e;
	json_t *o = json_loads("{\"type\":\"request\",\"i\":3,\"r\":2.5,\"whole\":4.0,"
			       "\"s\":\"x\",\"b\":true,\"n\":null,\"big\":1e300}", 0, &e);
	double d = -1;
	long long ll = -1;
	const char *s = NULL;
	int b = -1;
	char buf[64];

	ok(o != NULL, "fixture parses");
	is_str(gp_json_type(o), "request", "type read");
	ok(gp_json_num(o, "i", &d) == 0 && d == 3, "integer read as number");
	ok(gp_json_num(o, "r", &d) == 0 && d == 2.5, "real read as number");
	ok(gp_json_num(o, "s", &d) == GP_JSON_TYPE, "string is not a number");
	ok(gp_json_num(o, "n", &d) == GP_JSON_MISSING, "null counts as missing");
	ok(gp_json_num(o, "nope", &d) == GP_JSON_MISSING, "absent is missing");
	ok(gp_json_int(o, "i", &ll) == 0 && ll == 3, "integer read");
	ok(gp_json_int(o, "whole", &ll) == 0 && ll == 4, "4.0 accepted as integer");
	ok(gp_json_int(o, "r", &ll) == GP_JSON_TYPE, "2.5 is not an integer");
	ok(gp_json_int(o, "big", &ll) == GP_JSON_TYPE, "1e300 is not an integer");
	ok(gp_json_str(o, "s", &s) == 0 && !strcmp(s, "x"), "string read");
	ok(gp_json_str(o, "i", &s) == GP_JSON_TYPE, "number is not a string");
	ok(gp_json_bool(o, "b", &b) == 0 && b == 1, "bool read");
	json_decref(o);

	o = json_object();
	json_object_set_new(o, "a_ms", gp_json_real(1.0 / 3));
	json_object_set_new(o, "inf", gp_json_real(INFINITY));
	json_object_set_new(o, "t_s", gp_json_real(12345.000001));
	char *out = gp_json_dump(o);
	is_str(out, "{\"a_ms\":0.333333333333333,\"inf\":null,\"t_s\":12345.000001}",
	       "15 significant digits, infinity as null, insertion order");
	free(out);
	json_decref(o);

	int64_t t0 = gp_now_ns(), t1 = gp_now_ns();
	ok(t1 >= t0 && t0 > 0, "monotonic clock advances");
	gp_sleep_until_ns(gp_now_ns() + 2 * GP_NS_PER_MS);
	ok(gp_now_ns() - t1 >= 2 * GP_NS_PER_MS, "sleep until an absolute deadline");
	is_str(gp_rfc3339(0, buf, sizeof(buf)), "1970-01-01T00:00:00.000000Z", "epoch in RFC 3339");
	is_str(gp_rfc3339(1700000000123456789LL, buf, sizeof(buf)), "2023-11-14T22:13:20.123456Z",
	       "microseconds kept (date from `date -u -d @1700000000`)");
	ok(gp_wall_ns() > 1700000000LL * GP_NS_PER_S, "wall clock is after 2023");
	return done_testing();
}
