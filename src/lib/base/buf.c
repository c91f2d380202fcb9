/* SPDX-License-Identifier: MIT */
/* buf — growable byte buffer and the JSON-string escaper (see buf.h). */
#include <errno.h>
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

size_t gp_json_escape(char *dst, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char e = short_escape(c);

		if (e) {
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
