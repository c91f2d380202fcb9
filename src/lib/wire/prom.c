/* SPDX-License-Identifier: MIT */
/* prom — Prometheus text exposition writer and parser (see prom.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/prom.h"
#include "base/vec.h"
#include "base/banned.h"

void gp_prom_init(struct gp_prom *p)
{
	memset(p, 0, sizeof(*p));
}

void gp_prom_release(struct gp_prom *p)
{
	free(p->buf);
	gp_prom_init(p);
}

void gp_prom_reset(struct gp_prom *p)
{
	p->len = 0;
	p->err = 0;
	if (p->buf)
		p->buf[0] = '\0';
}

static int grow(struct gp_prom *p, size_t extra)
{
	char *nb;

	if (p->err)
		return -1;
	nb = gp_grow(p->buf, &p->cap, p->len + extra + 1, 1, 1024);	/* vec.h */
	if (!nb) {
		p->err = 1;
		return -1;
	}
	p->buf = nb;
	return 0;
}

static void put(struct gp_prom *p, const char *s, size_t n)
{
	if (grow(p, n))
		return;
	memcpy(p->buf + p->len, s, n);
	p->len += n;
	p->buf[p->len] = '\0';
}

static void puts_(struct gp_prom *p, const char *s)
{
	put(p, s, strlen(s));
}

/* Label value escaping of the text format: \ " and newline. */
static void put_escaped(struct gp_prom *p, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			put(p, "\\\\", 2);
		else if (*s == '"')
			put(p, "\\\"", 2);
		else if (*s == '\n')
			put(p, "\\n", 2);
		else
			put(p, s, 1);
	}
}

/* Shortest decimal that reads back as v; integers without a point. */
static void fmt_value(double v, char *buf, size_t len)
{
	if (isnan(v)) {
		snprintf(buf, len, "NaN");
	} else if (isinf(v)) {
		snprintf(buf, len, v > 0 ? "+Inf" : "-Inf");
	} else if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		snprintf(buf, len, "%.0f", v);
	} else {
		snprintf(buf, len, "%.15g", v);
		if (strtod(buf, NULL) != v)
			snprintf(buf, len, "%.17g", v);
	}
}

void gp_prom_family(struct gp_prom *p, const char *name, const char *type,
		    const char *help)
{
	if (help) {
		puts_(p, "# HELP ");
		puts_(p, name);
		put(p, " ", 1);
		for (const char *s = help; *s; s++) {	/* HELP escapes \ and newline */
			if (*s == '\\')
				put(p, "\\\\", 2);
			else if (*s == '\n')
				put(p, "\\n", 2);
			else
				put(p, s, 1);
		}
		put(p, "\n", 1);
	}
	puts_(p, "# TYPE ");
	puts_(p, name);
	put(p, " ", 1);
	puts_(p, type);
	put(p, "\n", 1);
}

void gp_prom_sample(struct gp_prom *p, const char *name, const char *suffix,
		    const char *const *labels, const char *extra_k,
		    const char *extra_v, double value)
{
	char num[40];
	int first = 1;

	puts_(p, name);
	if (suffix)
		puts_(p, suffix);
	if ((labels && labels[0]) || extra_k) {
		put(p, "{", 1);
		for (size_t i = 0; labels && labels[i]; i += 2) {
			if (!first)
				put(p, ",", 1);
			first = 0;
			puts_(p, labels[i]);
			put(p, "=\"", 2);
			put_escaped(p, labels[i + 1] ? labels[i + 1] : "");
			put(p, "\"", 1);
		}
		if (extra_k) {
			if (!first)
				put(p, ",", 1);
			puts_(p, extra_k);
			put(p, "=\"", 2);
			put_escaped(p, extra_v ? extra_v : "");
			put(p, "\"", 1);
		}
		put(p, "}", 1);
	}
	fmt_value(value, num, sizeof(num));
	put(p, " ", 1);
	puts_(p, num);
	put(p, "\n", 1);
}

void gp_prom_hist_init(struct gp_prom_hist *h, const double *le, size_t nb)
{
	memset(h, 0, sizeof(*h));
	if (nb > GP_PROM_MAX_BUCKETS)
		nb = GP_PROM_MAX_BUCKETS;
	h->nb = nb;
	memcpy(h->le, le, nb * sizeof(*le));
}

void gp_prom_hist_observe(struct gp_prom_hist *h, double v)
{
	size_t i = 0;

	while (i < h->nb && v > h->le[i])
		i++;
	h->n[i]++;
	h->sum += v;
	h->count++;
}

void gp_prom_hist_write(struct gp_prom *p, const char *name,
			const char *const *labels, const struct gp_prom_hist *h)
{
	char le[40];
	uint64_t cum = 0;

	for (size_t i = 0; i < h->nb; i++) {
		cum += h->n[i];
		fmt_value(h->le[i], le, sizeof(le));
		gp_prom_sample(p, name, "_bucket", labels, "le", le, (double)cum);
	}
	gp_prom_sample(p, name, "_bucket", labels, "le", "+Inf", (double)h->count);
	gp_prom_sample(p, name, "_sum", labels, NULL, NULL, h->sum);
	gp_prom_sample(p, name, "_count", labels, NULL, NULL, (double)h->count);
}

/* ---- parser ---- */

static int is_name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static int is_name_char(int c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static int is_blank(int c)
{
	return c == ' ' || c == '\t';
}

static size_t skip_blanks(const char *s, size_t n, size_t i)
{
	while (i < n && is_blank(s[i]))
		i++;
	return i;
}

static int is_label_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* A label value's body after its opening quote, up to the closing quote
 * (at *ip on return), re-escaped into series.  0 or -1 malformed. */
static int parse_label_value(const char *s, size_t n, size_t *ip, struct gp_prom *series)
{
	size_t i = *ip;

	for (;; i++) {
		if (i >= n)
			return -1;
		if (s[i] == '"')
			break;
		if (s[i] == '\\') {
			if (i + 1 >= n)
				return -1;
			i++;
			if (s[i] == 'n')
				put(series, "\\n", 2);
			else if (s[i] == '\\')
				put(series, "\\\\", 2);
			else if (s[i] == '"')
				put(series, "\\\"", 2);
			else
				return -1;
		} else if (s[i] == '\0') {
			return -1;	/* would cut the series string short */
		} else {
			put(series, s + i, 1);
		}
	}
	*ip = i;
	return 0;
}

/* One name="value" pair at *ip (blanks skipped), the nlabels-th, into
 * series; *ip past its closing quote.  0 or -1 malformed. */
static int parse_label(const char *s, size_t n, size_t *ip, struct gp_prom *series, size_t nlabels)
{
	size_t i = *ip, k0;

	if (i >= n || !is_label_start(s[i]))
		return -1;
	k0 = i;
	while (i < n && (is_label_start(s[i]) || (s[i] >= '0' && s[i] <= '9')))
		i++;
	put(series, nlabels ? "," : "{", 1);
	put(series, s + k0, i - k0);
	i = skip_blanks(s, n, i);
	if (i >= n || s[i] != '=')
		return -1;
	i = skip_blanks(s, n, i + 1);
	if (i >= n || s[i] != '"')
		return -1;
	i++;
	put(series, "=\"", 2);
	if (parse_label_value(s, n, &i, series))
		return -1;
	put(series, "\"", 1);
	*ip = i + 1;
	return 0;
}

/* The label set after its '{' at *ip, through its '}', into series (none
 * written for "{}"); *ip past the '}'.  0 or -1 malformed. */
static int parse_labels(const char *s, size_t n, size_t *ip, struct gp_prom *series)
{
	size_t i = *ip, nlabels = 0;

	for (;;) {
		i = skip_blanks(s, n, i);
		if (i < n && s[i] == '}')
			break;
		if (parse_label(s, n, &i, series, nlabels))
			return -1;
		nlabels++;
		i = skip_blanks(s, n, i);
		if (i < n && s[i] == ',') {
			i++;
			continue;
		}
		if (i < n && s[i] == '}')
			break;
		return -1;
	}
	if (nlabels)
		put(series, "}", 1);
	*ip = i + 1;
	return 0;
}

/* The value token at *ip into *value; *ip past it.  0 or -1 malformed. */
static int parse_value(const char *s, size_t n, size_t *ip, double *value)
{
	size_t i = *ip, v0 = i;
	char num[64];
	char *end;

	while (i < n && !is_blank(s[i]))
		i++;
	if (i == v0 || i - v0 >= sizeof(num) || memchr(s + v0, '\0', i - v0))
		return -1;
	memcpy(num, s + v0, i - v0);
	num[i - v0] = '\0';
	*value = strtod(num, &end);
	if (*end || end == num)
		return -1;
	*ip = i;
	return 0;
}

/* What may follow the value: blanks, an optional integer timestamp (ms,
 * ignored), blanks.  0 or -1 malformed. */
static int parse_tail(const char *s, size_t n, size_t i)
{
	i = skip_blanks(s, n, i);
	if (i >= n)
		return 0;
	if (s[i] == '-' || s[i] == '+')
		i++;
	if (i >= n || !(s[i] >= '0' && s[i] <= '9'))
		return -1;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	return skip_blanks(s, n, i) < n ? -1 : 0;
}

/*
 * Parse one sample line s[0..n) (no line ending) into the series buffer and
 * *value.  Returns 0, -1 malformed, -2 out of memory.
 */
static int parse_line(const char *s, size_t n, struct gp_prom *series, double *value)
{
	size_t i = 0, after_name;

	gp_prom_reset(series);
	if (i >= n || !is_name_start((unsigned char)s[i]))
		return -1;
	while (i < n && is_name_char((unsigned char)s[i]))
		i++;
	put(series, s, i);
	after_name = i;
	i = skip_blanks(s, n, i);
	if (i < n && s[i] == '{') {
		i++;
		if (parse_labels(s, n, &i, series))
			return -1;
		after_name = i;
		i = skip_blanks(s, n, i);
	}
	/* At least one blank, then the value. */
	if (i == after_name || i >= n)
		return -1;
	i = skip_blanks(s, n, i);
	if (parse_value(s, n, &i, value) || parse_tail(s, n, i))
		return -1;
	return series->err ? -2 : 0;
}

int gp_prom_parse(const char *text, size_t len,
		  void (*cb)(const char *series, double value, void *arg), void *arg)
{
	struct gp_prom series;
	size_t pos = 0;
	int line = 0, rc = 0;

	gp_prom_init(&series);
	while (pos < len) {
		const char *s = text + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		size_t i = 0;
		double v;
		int r;

		pos += n + (nl ? 1 : 0);
		line++;
		if (n && s[n - 1] == '\r')
			n--;
		while (i < n && is_blank(s[i]))
			i++;
		if (i == n || s[i] == '#')
			continue;
		r = parse_line(s + i, n - i, &series, &v);
		if (r == -2) {
			rc = -1;
			break;
		}
		if (r) {
			rc = line;
			break;
		}
		cb(series.buf, v, arg);
	}
	gp_prom_release(&series);
	return rc;
}
