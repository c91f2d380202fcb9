/* SPDX-License-Identifier: MIT */
/*
 * flat — the fast reader of flat JSON records (flat.h).  The grammar is RFC
 * 8259's for an object of scalars; where jansson is stricter or could fail
 * (big integers, overflowing reals) the scan gives up rather than guess.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/flat.h"

static char *skip_ws(char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/* A string without escapes, p at its opening quote: the byte after the
 * closing quote, or NULL. */
static char *scan_string(char *p, const char *end)
{
	for (p++; p < end && *p != '"'; p++)
		if ((unsigned char)*p < 0x20 || *p == '\\')
			return NULL;
	return p < end ? p + 1 : NULL;
}

static int digit(const char *p, const char *end)
{
	return p < end && *p >= '0' && *p <= '9';
}

/* A number (RFC 8259); its end or NULL; *real when it has a fraction or an
 * exponent, *exp when an exponent. */
static char *scan_number(char *p, const char *end, int *real, int *exp)
{
	*real = *exp = 0;
	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (digit(p, end) && *p != '0')
		while (digit(p, end))
			p++;
	else
		return NULL;
	if (p < end && *p == '.') {
		*real = 1;
		if (!digit(++p, end))
			return NULL;
		while (digit(p, end))
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		*real = *exp = 1;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (!digit(p, end))
			return NULL;
		while (digit(p, end))
			p++;
	}
	return p;
}

/* Would jansson read this number?  Integers up to 18 digits always fit in
 * 64 bits; a real overflows only with an exponent or past 300 digits, and
 * then strtod says (jansson refuses an overflow, not an underflow). */
static int number_sure(const char *p, size_t n, int real, int exp)
{
	char buf[512], *e;
	double d;

	if (!real)
		return n - (*p == '-') <= 18;
	if (!exp && n <= 300)
		return 1;
	if (n >= sizeof(buf))
		return 0;
	memcpy(buf, p, n);
	buf[n] = 0;
	d = strtod(buf, &e);
	return e == buf + n && isfinite(d);
}

/* Which of keys[] is k[0..n)?  The last of equal keys; -1 for none. */
static long which_key(const char *k, size_t n, const char *const *keys, const size_t *klen,
		      size_t nkeys)
{
	for (size_t j = nkeys; j-- > 0;)
		if (klen[j] == n && (n == 0 || (keys[j][0] == k[0] && !memcmp(keys[j], k, n))))
			return (long)j;
	return -1;
}

int gp_flat_scan(char *line, size_t len, const char *const *keys, const size_t *klen,
		 size_t nkeys, struct gp_flat_val *out)
{
	char *p = line, *end = line + len;

	for (size_t i = 0; i < nkeys; i++)
		out[i] = (struct gp_flat_val){NULL, 0, GP_FLAT_ABSENT};
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)line[i] >= 0x80 || line[i] == 0)
			return -1;
	p = skip_ws(p, end);
	if (p == end || *p++ != '{')
		return -1;
	p = skip_ws(p, end);
	if (p < end && *p == '}') {
		p++;
	} else {
		for (;;) {
			char *k, *kend, *v;
			struct gp_flat_val val = {NULL, 0, GP_FLAT_ABSENT};
			int real, exp;
			long w;

			if (p == end || *p != '"' || !(kend = scan_string(p, end)))
				return -1;
			k = p + 1;
			p = skip_ws(kend, end);
			if (p == end || *p++ != ':')
				return -1;
			p = skip_ws(p, end);
			v = p;
			if (p == end) {
				return -1;
			} else if (*p == '"') {
				if (!(p = scan_string(p, end)))
					return -1;
				val = (struct gp_flat_val){v + 1, (size_t)(p - v - 2), GP_FLAT_STRING};
			} else if (*p == '-' || (*p >= '0' && *p <= '9')) {
				if (!(p = scan_number(p, end, &real, &exp)) ||
				    !number_sure(v, (size_t)(p - v), real, exp))
					return -1;
				val = (struct gp_flat_val){v, (size_t)(p - v),
							   real ? GP_FLAT_REAL : GP_FLAT_INT};
			} else if (end - p >= 4 && !memcmp(p, "null", 4)) {
				p += 4;
				val.kind = GP_FLAT_NULL;
			} else if (end - p >= 4 && !memcmp(p, "true", 4)) {
				p += 4;
				val.kind = GP_FLAT_TRUE;
			} else if (end - p >= 5 && !memcmp(p, "false", 5)) {
				p += 5;
				val.kind = GP_FLAT_FALSE;
			} else {
				return -1;	/* a nested object or array, or a syntax error */
			}
			if ((w = which_key(k, (size_t)(kend - 1 - k), keys, klen, nkeys)) >= 0)
				out[w] = val;	/* a repeated key: the last wins */
			p = skip_ws(p, end);
			if (p < end && *p == ',') {
				p = skip_ws(p + 1, end);
				continue;
			}
			if (p < end && *p == '}') {
				p++;
				break;
			}
			return -1;
		}
	}
	return skip_ws(p, end) == end ? 0 : -1;
}

int gp_flat_num(const struct gp_flat_val *v, double *out)
{
	char buf[512], *e;

	if (v->kind == GP_FLAT_ABSENT || v->kind == GP_FLAT_NULL) {
		*out = NAN;
		return 0;
	}
	if ((v->kind != GP_FLAT_INT && v->kind != GP_FLAT_REAL) || v->n >= sizeof(buf))
		return -1;
	memcpy(buf, v->p, v->n);	/* the number's text ends at v->n */
	buf[v->n] = 0;
	errno = 0;
	*out = strtod(buf, &e);
	if (e != buf + v->n || !isfinite(*out))
		return -1;
	if (v->kind == GP_FLAT_INT) {	/* jansson holds an integer as json_int_t */
		long long i = strtoll(buf, NULL, 10);

		*out = (double)i;
	}
	return 0;
}

int gp_flat_int(const struct gp_flat_val *v, long long *out)
{
	char buf[32];

	if (v->kind == GP_FLAT_ABSENT || v->kind == GP_FLAT_NULL)
		return 1;
	if (v->kind != GP_FLAT_INT || v->n >= sizeof(buf))
		return -1;
	memcpy(buf, v->p, v->n);
	buf[v->n] = 0;
	*out = strtoll(buf, NULL, 10);
	return 0;
}

int gp_flat_is(const struct gp_flat_val *v, const char *s)
{
	size_t n = strlen(s);

	return v->kind == GP_FLAT_STRING && v->n == n && !memcmp(v->p, s, n);
}

char *gp_flat_cstr(struct gp_flat_val *v)
{
	if (v->kind != GP_FLAT_STRING)
		return NULL;
	v->p[v->n] = 0;
	return v->p;
}

void gp_flat_uncstr(struct gp_flat_val *v)
{
	if (v->kind == GP_FLAT_STRING)
		v->p[v->n] = '"';
}
