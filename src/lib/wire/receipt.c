/* SPDX-License-Identifier: MIT */
/* receipt — the prefill and decode halves of a handoff receipt (receipt.h). */
#include <stdio.h>
#include <string.h>

#include "wire/receipt.h"

int gp_receipt_fmt_init(struct gp_receipt_fmt *f, const char *regex, char *err, size_t errlen)
{
	int e;

	memset(f, 0, sizeof(*f));
	if (!regex || !*regex)
		return 0;
	if ((e = regcomp(&f->re, regex, REG_EXTENDED))) {
		char m[200];

		regerror(e, &f->re, m, sizeof(m));
		snprintf(err, errlen, "'%s' is not an extended regular expression: %s", regex, m);
		return -1;
	}
	if (f->re.re_nsub < 2) {
		snprintf(err, errlen, "'%s' has %zu groups; it needs two (the prefill member, then "
			 "the decode member)", regex, f->re.re_nsub);
		regfree(&f->re);
		return -1;
	}
	f->have_re = 1;
	return 0;
}

void gp_receipt_fmt_release(struct gp_receipt_fmt *f)
{
	if (f->have_re)
		regfree(&f->re);
	f->have_re = 0;
}

static void put(char *dst, size_t cap, const char *s, size_t n)
{
	snprintf(dst, cap, "%.*s", (int)n, s);
}

static int split_re(const regex_t *re, const char *s, char *pre, size_t plen, char *dec,
		    size_t dlen)
{
	regmatch_t m[3];

	if (regexec(re, s, 3, m, 0) || m[1].rm_so < 0 || m[1].rm_eo == m[1].rm_so)
		return GP_RECEIPT_NONE;
	put(pre, plen, s + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
	if (m[2].rm_so < 0 || m[2].rm_eo == m[2].rm_so) {
		*dec = 0;
		return GP_RECEIPT_PREFILL_ONLY;
	}
	put(dec, dlen, s + m[2].rm_so, (size_t)(m[2].rm_eo - m[2].rm_so));
	return GP_RECEIPT_BOTH;
}

int gp_receipt_split(const struct gp_receipt_fmt *f, const char *s, char *pre, size_t plen,
		     char *dec, size_t dlen)
{
	static const char P[] = "___prefill_addr_", D[] = "___decode_addr_";
	const char *a, *b, *c;

	*pre = *dec = 0;
	if (!s)
		return GP_RECEIPT_NONE;
	if (f && f->have_re)
		return split_re(&f->re, s, pre, plen, dec, dlen);
	if (!(a = strstr(s, P))) {
		size_t n;

		if (strncmp(s, "prefill=", 8) || !(n = strcspn(s + 8, ";")))
			return GP_RECEIPT_NONE;
		put(pre, plen, s + 8, n);
		b = strstr(s, ";decode=");
		if (!b || !b[8] || b[8] == ';')
			return GP_RECEIPT_PREFILL_ONLY;
		put(dec, dlen, b + 8, strcspn(b + 8, ";"));
		return GP_RECEIPT_BOTH;
	}
	a += sizeof(P) - 1;
	b = strstr(a, D);
	if (!b || b == a)
		return GP_RECEIPT_NONE;
	c = b + sizeof(D) - 1;
	put(pre, plen, a, (size_t)(b - a));
	put(dec, dlen, c, strcspn(c, "_"));
	return *dec ? GP_RECEIPT_BOTH : GP_RECEIPT_PREFILL_ONLY;
}
