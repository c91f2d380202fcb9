/* SPDX-License-Identifier: MIT */
/* Unit tests of wire/receipt (the halves of a handoff receipt) and of the
 * delivery proof's judging of them against a fleet (method/proof). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "method/proof.h"
#include "wire/fleet.h"
#include "wire/receipt.h"
#include "tap.h"

static int split(const struct gp_receipt_fmt *f, const char *s, char *pre, char *dec)
{
	return gp_receipt_split(f, s, pre, 64, dec, 64);
}

static void test_split(void)
{
	char pre[64], dec[64], err[300];
	struct gp_receipt_fmt f;

	is_int(split(NULL, "prefill=10.0.0.1:8000;decode=10.0.0.2:8000", pre, dec), GP_RECEIPT_BOTH,
	       "header shape: both halves");
	ok(!strcmp(pre, "10.0.0.1:8000") && !strcmp(dec, "10.0.0.2:8000"), "header shape: the halves");
	is_int(split(NULL, "prefill=a;decode=b;x=1", pre, dec), GP_RECEIPT_BOTH, "fields after are ignored");
	ok(!strcmp(dec, "b"), "the decode half stops at ';'");
	is_int(split(NULL, "prefill=a", pre, dec), GP_RECEIPT_PREFILL_ONLY, "no decode half");
	is_int(split(NULL, "prefill=a;decode=", pre, dec), GP_RECEIPT_PREFILL_ONLY, "an empty decode half");
	is_int(split(NULL, "prefill=;decode=b", pre, dec), GP_RECEIPT_NONE, "an empty prefill half");
	is_int(split(NULL, "decode=b;prefill=a", pre, dec), GP_RECEIPT_NONE, "another order is no shape");
	is_int(split(NULL, "chatcmpl-___prefill_addr_10.1.1.1:8000___decode_addr_10.1.1.2:8001_5f3a",
		     pre, dec), GP_RECEIPT_BOTH, "LoxiLB's request id");
	ok(!strcmp(pre, "10.1.1.1:8000") && !strcmp(dec, "10.1.1.2:8001"), "LoxiLB: the halves");
	is_int(split(NULL, "___prefill_addr_10.1.1.1:8000___decode_addr__x", pre, dec),
	       GP_RECEIPT_PREFILL_ONLY, "LoxiLB: an empty decode half");
	is_int(split(NULL, "req-42", pre, dec), GP_RECEIPT_NONE, "a plain request id");
	is_int(split(NULL, NULL, pre, dec), GP_RECEIPT_NONE, "NULL");
	ok(gp_receipt_fmt_init(&f, "^P=([^ ]+) D=([^ ]*)$", err, sizeof(err)) == 0, "a regex with two groups");
	is_int(split(&f, "P=h1:1 D=h2:2", pre, dec), GP_RECEIPT_BOTH, "regex: both");
	ok(!strcmp(pre, "h1:1") && !strcmp(dec, "h2:2"), "regex: the halves");
	is_int(split(&f, "P=h1:1 D=", pre, dec), GP_RECEIPT_PREFILL_ONLY, "regex: an empty second group");
	is_int(split(&f, "prefill=a;decode=b", pre, dec), GP_RECEIPT_NONE,
	       "with a regex, the built-in shapes are not read");
	gp_receipt_fmt_release(&f);
	ok(gp_receipt_fmt_init(&f, "(a", err, sizeof(err)) == -1 && strstr(err, "not an extended"),
	   "a regex that does not compile: %s", err);
	ok(gp_receipt_fmt_init(&f, "P=(.*)", err, sizeof(err)) == -1 && strstr(err, "needs two"),
	   "one group is not enough: %s", err);
	ok(gp_receipt_fmt_init(&f, NULL, err, sizeof(err)) == 0 && !f.have_re, "NULL: the built-ins");
	{
		char p4[4], d4[4];

		is_int(gp_receipt_split(NULL, "prefill=abcdef;decode=ghijkl", p4, 4, d4, 4), GP_RECEIPT_BOTH,
		       "halves longer than the buffers");
		ok(!strcmp(p4, "abc") && !strcmp(d4, "ghi"), "are cut, NUL-terminated");
	}
}

static const char fleet_json[] =
	"{\"model\":\"m\",\"vips\":[{\"name\":\"v\",\"url\":\"http://127.0.0.1:9000\"}],"
	"\"backends\":[{\"name\":\"p1\",\"url\":\"http://127.0.0.1:9001\",\"role\":\"prefill\"},"
	"{\"name\":\"d1\",\"url\":\"http://127.0.0.1:9002/v1\",\"role\":\"decode\"},"
	"{\"name\":\"a1\",\"url\":\"http://127.0.0.1:9003\"}],"
	"\"arms\":[{\"name\":\"pd\",\"expect\":\"spread\",\"up_cmd\":\"true\"}]}";

static void test_judge(void)
{
	struct gp_fleet f;
	char err[300];
	long c[GP_RC_N] = { 0 };
	struct gp_proof out;

	json_t *root = json_loads(fleet_json, 0, NULL);

	if (!ok(root && gp_fleet_parse(&f, root, err, sizeof(err)) == 0, "fleet: %s", root ? err : "json"))
		return;
	is_int(gp_delivery_judge(&f, GP_RECEIPT_BOTH, "p1", "d1"), GP_RC_OK, "names: prefill, then decode");
	is_int(gp_delivery_judge(&f, GP_RECEIPT_BOTH, "127.0.0.1:9001", "127.0.0.1:9002"), GP_RC_OK,
	       "host:port of the urls (a path after the port ignored)");
	is_int(gp_delivery_judge(&f, GP_RECEIPT_BOTH, "a1", "a1"), GP_RC_SAME, "one member twice");
	is_int(gp_delivery_judge(&f, GP_RECEIPT_BOTH, "a1", "d1"), GP_RC_OK, "both may prefill");
	is_int(gp_delivery_judge(&f, GP_RECEIPT_BOTH, "p1", "a1"), GP_RC_OK, "both may decode");
	is_int(gp_delivery_judge(&f, GP_RECEIPT_BOTH, "d1", "p1"), GP_RC_ROLE, "halves swapped");
	is_int(gp_delivery_judge(&f, GP_RECEIPT_BOTH, "p1", "10.0.0.9:1"), GP_RC_UNKNOWN, "unknown decode");
	is_int(gp_delivery_judge(&f, GP_RECEIPT_PREFILL_ONLY, "p1", ""), GP_RC_NO_DECODE, "no decode half");
	is_int(gp_delivery_judge(&f, GP_RECEIPT_PREFILL_ONLY, "zz", ""), GP_RC_UNKNOWN,
	       "an unknown prefill member before a missing decode");
	is_int(gp_delivery_judge(&f, GP_RECEIPT_NONE, "", ""), GP_RC_UNREAD, "no shape");
	is_int(gp_delivery_judge(&f, GP_RECEIPT_NONE - 1, "", ""), GP_RC_NONE, "no receipt");
	c[GP_RC_OK] = 95;
	c[GP_RC_SAME] = 4;
	c[GP_RC_NONE] = 1;
	gp_delivery_proof_judged(1, c, 1.0, &out);
	is_int(out.ok, GP_PROOF_FAIL, "95 of 100 good, 100 %% needed: fails");
	is_str(out.detail, "99 of 100 completed requests carried a receipt; 95 (95.0 %) name a prefill "
	       "member and another decode member (100 % needed); bad receipts: 1 no receipt, 4 one "
	       "member for both halves", "the detail names the share and each bad class");
	free(out.detail);
	gp_delivery_proof_judged(1, c, 0.95, &out);
	is_int(out.ok, GP_PROOF_OK, "95 of 100 with 95 %% needed: holds");
	free(out.detail);
	gp_delivery_proof_judged(0, c, 1.0, &out);
	ok(out.ok == GP_PROOF_UNKNOWN && !strcmp(out.evidence, "not_applicable"), "not disaggregated");
	free(out.detail);
	memset(c, 0, sizeof(c));
	gp_delivery_proof_judged(1, c, 1.0, &out);
	ok(out.ok == GP_PROOF_UNKNOWN && !strcmp(out.evidence, "not_checked"), "nothing completed");
	free(out.detail);
	gp_fleet_release(&f);
}

int main(void)
{
	test_split();
	test_judge();
	return done_testing();
}
