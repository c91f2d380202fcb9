/* SPDX-License-Identifier: MIT */
/* Unit tests of cli: checked number parsing. */
#include "cli.h"
#include "tap.h"

int main(void)
{
	double d = -7;
	long l = -7;
	uint64_t u = 7;

	ok(gp_parse_double("1.5", 0, 10, &d) == 0 && d == 1.5, "double parses");
	ok(gp_parse_double("1e3", 0, 1e4, &d) == 0 && d == 1000, "double exponent");
	d = -7;
	ok(gp_parse_double("1.5x", 0, 10, &d) == -1 && d == -7, "trailing garbage refused, value untouched");
	ok(gp_parse_double("", 0, 10, &d) == -1, "empty refused");
	ok(gp_parse_double(NULL, 0, 10, &d) == -1, "NULL refused");
	ok(gp_parse_double("nan", -1e9, 1e9, &d) == -1, "nan refused");
	ok(gp_parse_double("inf", -1e9, 1e300, &d) == -1, "inf refused");
	ok(gp_parse_double("11", 0, 10, &d) == -1, "above max refused");
	ok(gp_parse_double("-0.1", 0, 10, &d) == -1, "below min refused");
	ok(gp_parse_double("10", 0, 10, &d) == 0 && d == 10, "max inclusive");
	ok(gp_parse_long("42", 0, 100, &l) == 0 && l == 42, "long parses");
	ok(gp_parse_long("4.2", 0, 100, &l) == -1, "long refuses a fraction");
	ok(gp_parse_long("99999999999999999999", 0, 100, &l) == -1, "long refuses overflow");
	ok(gp_parse_long("-3", -5, 5, &l) == 0 && l == -3, "long negative");
	ok(gp_parse_long("0x10", 0, 100, &l) == -1, "long is decimal only");
	ok(gp_parse_u64("18446744073709551615", &u) == 0 && u == UINT64_MAX, "u64 max");
	ok(gp_parse_u64("18446744073709551616", &u) == -1, "u64 overflow refused");
	ok(gp_parse_u64("-1", &u) == -1, "u64 refuses a sign");
	return done_testing();
}
