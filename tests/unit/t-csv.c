/* SPDX-License-Identifier: MIT */
/* Unit tests of csv: header by name, RFC 4180 quoting, column errors. */
#include <string.h>

#include "wire/csv.h"
#include "tap.h"

int main(void)
{
	static const char *const names[] = { "Timestamp", "Request tokens", "Session ID" };
	struct gp_csv c;
	int col[3];
	char h[] = "\xef\xbb\xbftimestamp,Model, Request tokens \t,Other";
	char h2[] = "Timestamp,Model";
	char many[200];
	char r1[] = "5,\"gpt,4\",3,\"a \"\"b\"\"\"";
	char r2[] = "5,m,3";
	char r3[] = "5,\"m,3,x";
	char r4[] = "5,\"m\"x,3,4";
	char r5[] = "5,m,3,4,5";
	char r6[] = "5,,3,";

	memset(&c, 0, sizeof(c));
	is_int(gp_csv_header(&c, h, names, 3, col, 3), 4, "header: 4 columns");
	ok(col[0] == 0 && col[1] == 2 && col[2] == -1, "header: by name, case and spaces and BOM ignored");
	ok(gp_csv_header(&c, h2, names, 3, col, 3) == -1 &&
	   !strcmp(c.err, "field 'Request tokens' is missing from the header"), "header: a required name missing");
	memset(many, 0, sizeof(many));
	for (int i = 0; i < 40; i++)
		strcat(many, i ? ",x" : "x");
	ok(gp_csv_header(&c, many, names, 0, col, 0) == -1 && strstr(c.err, "more than 32"),
	   "header: over 32 columns refused");

	char h3[] = "Timestamp,Model,Request tokens,Note";
	gp_csv_header(&c, h3, names, 3, col, 3);
	ok(gp_csv_row(&c, r1, names, col, 3) == 0 && c.n == 4, "row: quoted comma kept in one field");
	is_str(c.f[1], "gpt,4", "row: quoted field unquoted");
	is_str(c.f[3], "a \"b\"", "row: \"\" inside quotes is one quote");
	ok(gp_csv_row(&c, r2, names, col, 3) == -1 && !strcmp(c.err, "row has 3 columns, the header has 4"),
	   "row: too few columns (%s)", c.err);
	ok(gp_csv_row(&c, r3, names, col, 3) == -1 && !strcmp(c.err, "column 2: quote not closed"),
	   "row: unclosed quote names its column");
	ok(gp_csv_row(&c, r4, names, col, 3) == -1 && !strcmp(c.err, "column 2: text after the closing quote"),
	   "row: text after a closing quote");
	ok(gp_csv_row(&c, r5, names, col, 3) == -1 && !strcmp(c.err, "row has 5 columns, the header has 4"),
	   "row: too many columns");
	ok(gp_csv_row(&c, r6, names, col, 3) == 0 && !*c.f[1] && !*c.f[3], "row: empty fields");
	char r7[] = "5,m";
	ok(gp_csv_row(&c, r7, names, col, 3) == -1 &&
	   !strcmp(c.err, "field 'Request tokens' is missing (2 of 4 columns)"), "row: a named column missing");
	return done_testing();
}
