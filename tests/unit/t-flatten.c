/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of io/flatten: the integrity rows byte for byte as
 * `jq -r -f share/awk/flatten.jq` (jq 1.6, run here when installed) prints
 * them, on every record type, awkward strings and numbers; numbers against
 * jq's own printing of 20 values that cover its three forms (written out:
 * these hold without jq); a nested value refused (GP_FLATTEN_JQ).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/flatten.h"
#include "tap.h"

static const char records[] =
	"{\"type\":\"request\",\"arm\":\"a\\tb\\\\c\",\"rate_rps\":8,\"rep\":1,\"run\":\"r\\n1\","
	"\"outcome\":\"ok\",\"error\":null,\"ttft_ms\":52.125,\"tpot_ms\":0.00001,\"e2e_ms\":1e16,"
	"\"out_tokens\":128,\"receipt\":\"p=a\"}\n"
	"{\"type\":\"request\",\"arm\":\"caf\\u00e9\",\"rate_rps\":2.5,\"rep\":2,\"outcome\":\"failed\","
	"\"error\":\"reset\",\"receipt\":\"\",\"ttft_ms\":-0.0,\"e2e_ms\":123456789012345678}\n"
	"{\"type\":\"run\",\"arm\":\"a\",\"rate_rps\":8,\"rep\":1,\"run\":\"r1\",\"deadline_s\":true}\n"
	"{\"type\":\"run_end\",\"arm\":\"a\",\"rate_rps\":8,\"rep\":1,\"run\":\"r1\",\"attempted\":3,"
	"\"ok\":1,\"single_token\":1,\"failed\":1,\"invalid_framing\":0}\n"
	"{\"type\":\"slo\",\"ttft_ms\":300,\"tpot_ms\":0.1,\"single_token\":false,"
	"\"single_token_policy\":\"miss\",\"origin\":\"fixed\",\"multiple\":null}\n"
	"{\"type\":\"slo\",\"ttft_ms\":300,\"tpot_ms\":30,\"single_token\":\"ttft\"}\n"
	"{\"type\":\"baseline_request\",\"ttft_ms\":1.5e-7,\"tpot_ms\":2}\n"
	"{\"type\":\"goodfrac\",\"arm\":\"a\",\"rate_rps\":8,\"rep\":1,\"attempted\":3,\"good\":1,"
	"\"paired\":1,\"single_token\":1,\"failed\":1,\"good_fraction\":0.3333333333333333}\n"
	"{\"type\":\"arm_summary\",\"arm\":\"a\",\"rate_rps\":8,\"reps\":5,\"mean_good_fraction\":0.9,"
	"\"cv\":0.1,\"good_fraction_pooled\":{\"est\":0.9,\"lo\":0.8,\"hi\":0.95,\"level\":0.95},"
	"\"good_fraction_ci\":{\"est\":0.9,\"lo\":0.7,\"hi\":1,\"level\":0.95}}\n"
	"{\"type\":\"arm_summary\",\"arm\":\"b\",\"good_fraction_pooled\":null}\n"
	"{\"type\":\"other\",\"arm\":{\"x\":1}}\n"
	"{\"arm\":\"no type\"}\n";

static void numbers(void)
{
	/* jq 1.6: jq -n -r '[...] | @tsv' */
	static const struct { double d; const char *want; } v[] = {
		{ 1e6, "1000000" }, { 1e15, "1000000000000000" }, { 1e16, "1e+16" },
		{ 123e15, "123000000000000000" }, { 1e-4, "0.0001" }, { 1e-5, "1e-05" },
		{ 1.5e-7, "1.5e-07" }, { -0.0, "-0" }, { 0, "0" }, { 1e300, "1e+300" },
		{ 1e-300, "1e-300" }, { 5e-324, "5e-324" }, { 1.7976931348623157e308, "1.7976931348623157e+308" },
		{ 100, "100" }, { 1234567.125, "1234567.125" }, { 9007199254740993.0, "9007199254740992" },
		{ 0.1, "0.1" }, { 1.0 / 3, "0.3333333333333333" }, { 52.125, "52.125" }, { -2.5e-5, "-2.5e-05" },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		gp_flatten_num(buf, sizeof(buf), v[i].d);
		if (!ok(!strcmp(buf, v[i].want), "number %s as jq prints it", v[i].want))
			diag("got %s", buf);
	}
}

static char *slurp(FILE *f)
{
	size_t n = 0, cap = 1 << 16;
	char *b = malloc(cap);

	rewind(f);
	while (b && (n += fread(b + n, 1, cap - n - 1, f)) == cap - 1)
		b = realloc(b, cap *= 2);
	if (b)
		b[n] = 0;
	return b;
}

int main(void)
{
	char path[] = "/tmp/t-flatten.XXXXXX";
	int fd = mkstemp(path);
	FILE *in = fd >= 0 ? fdopen(fd, "w+") : NULL, *out = tmpfile();
	char *got, *want = NULL, cmd[512];
	FILE *jq;

	numbers();
	ok(in && out, "scratch files");
	if (!in || !out)
		return done_testing();
	fputs(records, in);
	fflush(in);
	rewind(in);
	ok(gp_flatten(in, out) == GP_FLATTEN_OK, "every record flattened");
	got = slurp(out);
	snprintf(cmd, sizeof(cmd), "jq -r -f share/awk/flatten.jq %s 2>/dev/null", path);
	if (access("share/awk/flatten.jq", R_OK) == 0 && (jq = popen(cmd, "r"))) {
		want = slurp(jq);
		if (pclose(jq) != 0) {
			free(want);
			want = NULL;
		}
	}
	if (want) {
		ok(got && !strcmp(got, want), "the rows are jq's, byte for byte");
		if (got && strcmp(got, want))
			diag("io/flatten:\n%s\njq:\n%s", got, want);
	} else {
		ok(1, "# SKIP jq or share/awk/flatten.jq not here (run from the top of the tree)");
	}
	ok(got && strstr(got, "Q\ta\\tb\\\\c\t8\t1\tr\\n1\tok\t\t52.125\t1e-05\t1e+16\t128\t1\t\t\n"),
	   "a request row: escapes, null, exponents, receipt 1");
	ok(got && strstr(got, "S\t300\t0.1\tmiss\tfixed\t\t\n"), "slo: single_token false takes the policy");
	ok(got && strstr(got, "A\tb\t\t\t\t\t\t\t\t\t\t\t\t\n"), "arm_summary without intervals: empty cells");
	free(got);
	free(want);
	fclose(out);
	out = tmpfile();
	rewind(in);
	if (ftruncate(fileno(in), 0) == 0) {
		fputs("{\"type\":\"request\",\"arm\":[1]}\n", in);
		fflush(in);
		rewind(in);
		ok(gp_flatten(in, out) == GP_FLATTEN_JQ, "an array in a column: left to jq");
	}
	fclose(in);
	fclose(out);
	unlink(path);
	{
		/* The first pass's rows: all but Q; the first Q of each run id
		 * with arm and run set; the first row whatever it is. */
		static const char flat[] =
			"Q\t\t8\t1\tr0\n"		/* first row: kept, though no arm */
			"Q\ta\t8\t1\tr1\tok\n"	/* r1's first: kept */
			"Q\ta\t8\t1\tr1\tok\n"	/* r1 again: dropped */
			"H\ta\t8\t2\tr2\t60\n"	/* a header: kept */
			"Q\ta\t8\t2\tr2\tok\n"	/* r2's first Q: kept (the header came first) */
			"Q\ta\t8\t3\t\tok\n"	/* no run: dropped */
			"Q\t\t8\t3\tr3\tok\n"	/* no arm: dropped */
			"Q\tb\t8\t3\tr3\tok\n"	/* r3's first with an arm: kept */
			"G\ta\t8\t1\t2\n"		/* kept */
			"Q\ta\t8\t1\n";		/* short row, no run column: dropped */
		static const char want1[] =
			"Q\t\t8\t1\tr0\nQ\ta\t8\t1\tr1\tok\nH\ta\t8\t2\tr2\t60\n"
			"Q\ta\t8\t2\tr2\tok\nQ\tb\t8\t3\tr3\tok\nG\ta\t8\t1\t2\n";
		FILE *f = tmpfile(), *o = tmpfile();
		char *p1;

		fputs(flat, f);
		rewind(f);
		ok(gp_flatten_pass1(f, o) == 0, "first-pass rows written");
		p1 = slurp(o);
		ok(p1 && !strcmp(p1, want1), "first-pass rows: all but Q, each run id's first Q, the first row");
		if (p1 && strcmp(p1, want1))
			diag("got:\n%s", p1);
		free(p1);
		fclose(f);
		fclose(o);
	}
	return done_testing();
}
