/* SPDX-License-Identifier: MIT */
/*
 * flat — the fast reader of flat JSON records (flat.h).  The grammar is RFC
 * 8259's for an object of scalars; where jansson is stricter or could fail
 * (big integers, overflowing reals) the scan gives up rather than guess.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/flat.h"

static char *skip_ws(char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/* The bytes that end a string scan: the quote, a backslash, a control
 * byte (the scan refuses the last two); every other byte is 0. */
static const unsigned char stop[256] = {
	[0 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1,
};

/* A string without escapes, p at its opening quote: the byte after the
 * closing quote, or NULL. */
static char *scan_string(char *p, const char *end)
{
	for (p++; p < end && !stop[(unsigned char)*p]; p++)
		;
	return p < end && *p == '"' ? p + 1 : NULL;
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

/* No byte >= 0x80 and no NUL in p[0..n): eight bytes at a time. */
static int plain_ascii(const char *p, size_t n)
{
	const uint64_t lo = 0x0101010101010101ULL, hi = 0x8080808080808080ULL;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		if ((w & hi) || ((w - lo) & ~w & hi))	/* a high bit, or a zero byte */
			return 0;
	}
	for (; i < n; i++)
		if ((unsigned char)p[i] >= 0x80 || p[i] == 0)
			return 0;
	return 1;
}

int gp_flat_scan(char *line, size_t len, const char *const *keys, const size_t *klen,
		 size_t nkeys, struct gp_flat_val *out)
{
	char *p = line, *end = line + len;

	for (size_t i = 0; i < nkeys; i++)
		out[i] = (struct gp_flat_val){NULL, 0, GP_FLAT_ABSENT};
	if (!plain_ascii(line, len))
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

/*
 * A real of at most 15 significant digits and a power of ten within 22:
 * both the digits and the power are exact doubles, so one multiplication or
 * division rounds once, correctly, as strtod does (Clinger's fast path).
 * 0 with *out, or -1 for strtod to do it.
 */
static int fast_real(const char *p, size_t n, double *out)
{
	static const double p10[23] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
	};
	const char *end = p + n;
	uint64_t m = 0;
	int neg = 0, nd = 0, e10 = 0;
	double d;

	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	for (; p < end && *p >= '0' && *p <= '9'; p++)
		if (nd || *p != '0') {
			if (++nd > 15)
				return -1;
			m = m * 10 + (uint64_t)(*p - '0');
		}
	if (p < end && *p == '.')
		for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
			if (nd || *p != '0') {
				if (++nd > 15)
					return -1;
				m = m * 10 + (uint64_t)(*p - '0');
			}
			e10--;
		}
	if (p != end)
		return -1;	/* an exponent: strtod */
	if (e10 < -22)
		return -1;
	d = (double)m;
	d = e10 < 0 ? d / p10[-e10] : d;
	*out = neg ? -d : d;
	return 0;
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
	if (v->kind == GP_FLAT_REAL && !fast_real(v->p, v->n, out))
		return 0;
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
