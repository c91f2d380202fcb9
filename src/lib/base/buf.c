/* SPDX-License-Identifier: MIT */
/* buf — growable byte buffer and the JSON-string escaper (see buf.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/banned.h"

void gp_buf_release(struct gp_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

int gp_buf_reserve(struct gp_buf *b, size_t n)
{
	size_t c;
	char *q;

	if (n > (size_t)-1 / 2 - b->len)
		return -1;
	if (b->len + n + 1 <= b->cap)
		return 0;
	c = b->cap ? b->cap : 256;
	while (c < b->len + n + 1)
		c *= 2;
	q = realloc(b->p, c);
	if (!q)
		return -1;
	b->p = q;
	b->cap = c;
	return 0;
}

int gp_buf_add(struct gp_buf *b, const char *s, size_t n)
{
	if (gp_buf_reserve(b, n))
		return -1;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int gp_buf_read(struct gp_buf *b, FILE *f)
{
	size_t n;

	do {
		if (gp_buf_reserve(b, 8192)) {
			errno = ENOMEM;
			return -1;
		}
		n = fread(b->p + b->len, 1, b->cap - b->len - 1, f);
		b->len += n;
		b->p[b->len] = '\0';
	} while (n > 0);
	return ferror(f) ? -1 : 0;
}

int gp_buf_vfmt(struct gp_buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0 || gp_buf_reserve(b, (size_t)n))
		return -1;
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

/* The two-byte escape of c, or 0 when c has none. */
static char short_escape(unsigned char c)
{
	switch (c) {
	case '"': return '"';
	case '\\': return '\\';
	case '\b': return 'b';
	case '\f': return 'f';
	case '\n': return 'n';
	case '\r': return 'r';
	case '\t': return 't';
	default: return 0;
	}
}

size_t gp_utf8_decode(const char *s, size_t n, unsigned *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned c = p[0], need, v, min, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		need = 1; v = c & 0x1F; min = 0x80;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 2; v = c & 0x0F; min = 0x800;
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 3; v = c & 0x07; min = 0x10000;
	} else {
		return 0;
	}
	if (n <= need)
		return 0;
	for (i = 1; i <= need; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	*cp = v;
	return need + 1;
}

size_t gp_utf8_seq(const char *s, size_t n)
{
	unsigned cp;

	return gp_utf8_decode(s, n, &cp);
}

int gp_utf8_valid(const char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		if (!(k = gp_utf8_seq(s + i, n - i)))
			return 0;
		i += k;
	}
	return 1;
}

static const char fffd[3] = { '\xEF', '\xBF', '\xBD' };

size_t gp_utf8_repair(char *s, size_t cap)
{
	size_t n = strlen(s), i, k, o = 0;
	char *t;

	if (!gp_utf8_valid(s, n)) {
		t = malloc(n + 1);
		if (t) {
			memcpy(t, s, n + 1);
			for (i = 0; i < n; i += k) {
				size_t w;

				k = gp_utf8_seq(t + i, n - i);
				w = k ? k : 3;
				if (o + w > cap - 1)
					break;
				memcpy(s + o, k ? t + i : fffd, w);
				o += w;
				if (!k)
					k = 1;
			}
			s[o] = '\0';
			free(t);
			return o;
		}
		for (i = 0; i < n; i += k)
			if (!(k = gp_utf8_seq(s + i, n - i)))
				s[i] = '?', k = 1;
	}
	if (n >= cap) {
		n = cap - 1;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
		s[n] = '\0';
	}
	return n;
}

size_t gp_term_escape(char *out, size_t cap, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, o = 0, k;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		int esc;

		k = c < 0x80 ? 1 : gp_utf8_seq(s + i, n - i);
		esc = !k || c < 0x20 || c == 0x7f || (c == 0xC2 && (unsigned char)s[i + 1] < 0xA0);
		if (!k)
			k = 1;
		if (esc) {
			size_t j;

			if (o + 4 * k > cap - 1)
				break;
			for (j = 0; j < k; j++) {
				unsigned char b = (unsigned char)s[i + j];

				out[o++] = '\\';
				out[o++] = 'x';
				out[o++] = hex[b >> 4];
				out[o++] = hex[b & 15];
			}
		} else if (c == '\\') {
			if (o + 2 > cap - 1)
				break;
			out[o++] = '\\';
			out[o++] = '\\';
		} else {
			if (o + k > cap - 1)
				break;
			memcpy(out + o, s + i, k);
			o += k;
		}
		i += k;
	}
	out[o] = '\0';
	return o;
}

size_t gp_json_escape(char *dst, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char e = short_escape(c);

		if (c >= 0x80) {
			size_t q = gp_utf8_seq(s + i, n - i);

			if (dst)
				memcpy(dst + k, q ? s + i : fffd, q ? q : 3);
			k += q ? q : 3;
			if (q)
				i += q - 1;
		} else if (e) {
			if (dst) {
				dst[k] = '\\';
				dst[k + 1] = e;
			}
			k += 2;
		} else if (c < 0x20) {
			if (dst) {
				memcpy(dst + k, "\\u00", 4);
				dst[k + 4] = hex[c >> 4];
				dst[k + 5] = hex[c & 15];
			}
			k += 6;
		} else {
			if (dst)
				dst[k] = (char)c;
			k++;
		}
	}
	return k;
}

int gp_buf_jstr(struct gp_buf *b, const char *s, size_t n)
{
	size_t k = gp_json_escape(NULL, s, n);

	if (k > (size_t)-1 / 2 || gp_buf_reserve(b, k + 2))
		return -1;
	b->p[b->len++] = '"';
	gp_json_escape(b->p + b->len, s, n);
	b->len += k;
	b->p[b->len++] = '"';
	b->p[b->len] = '\0';
	return 0;
}

char *gp_vstrfmt(const char *fmt, va_list ap)
{
	char *s;

	return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

char *gp_strfmt(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = gp_vstrfmt(fmt, ap);
	va_end(ap);
	return s;
}

int gp_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}
