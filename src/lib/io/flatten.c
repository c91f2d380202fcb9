/* SPDX-License-Identifier: MIT */
/*
 * flatten — records to the integrity scripts' TSV (flatten.h).  The row
 * layout follows share/awk/flatten.jq; keep the two in step (t-flatten diffs
 * them on every record type).
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/hash.h"
#include "io/flatten.h"

void gp_flatten_num(char *buf, size_t n, double d)
{
	char e[40], dig[20], *p = e, *b = buf, *end = buf + n - 1;
	int prec, decpt, nd = 0;

	if (isnan(d)) {
		snprintf(buf, n, "null");
		return;
	}
	if (d > DBL_MAX)
		d = DBL_MAX;	/* jq prints infinities as the largest double */
	if (d < -DBL_MAX)
		d = -DBL_MAX;
	/* Any decimal of 15 digits or fewer reads as one double and prints back
	 * at 15 digits as itself (DBL_DIG), so when the shortest form has 15
	 * digits or fewer it is the 15-digit form less its trailing zeros; else
	 * it has 16 or 17, and the nearest of that length, as jq's dtoa picks. */
	for (prec = d != 0 && fabs(d) < DBL_MIN ? 1 : 15; prec < 17; prec++) {	/* subnormal: fewer digits hold */
		snprintf(e, sizeof(e), "%.*e", prec - 1, d);
		if (strtod(e, NULL) == d)
			break;
	}
	if (prec == 17)
		snprintf(e, sizeof(e), "%.16e", d);
	if (*p == '-') {
		if (b < end)
			*b++ = '-';
		p++;
	}
	for (; *p != 'e'; p++)
		if (*p != '.')
			dig[nd++] = *p;
	decpt = atoi(p + 1) + 1;
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	if (nd == 1 && dig[0] == '0')
		decpt = 1;
	if (decpt <= -4 || decpt > nd + 15) {
		int x = decpt - 1, k = 1, j;

		for (int i = 0; i < nd && b < end; i++) {
			*b++ = dig[i];
			if (i == 0 && nd > 1 && b < end)
				*b++ = '.';
		}
		if (b < end)
			*b++ = 'e';
		if (b < end)
			*b++ = x < 0 ? '-' : '+';
		x = abs(x);
		for (j = 2, k = 10; 10 * k <= x; j++, k *= 10)
			;
		for (; j > 0 && b < end; j--, k /= 10) {
			*b++ = (char)('0' + x / k);
			x %= k;
		}
	} else if (decpt <= 0) {
		if (b < end)
			*b++ = '0';
		if (b < end)
			*b++ = '.';
		for (; decpt < 0 && b < end; decpt++)
			*b++ = '0';
		for (int i = 0; i < nd && b < end; i++)
			*b++ = dig[i];
	} else {
		for (int i = 0; i < nd && b < end; i++) {
			*b++ = dig[i];
			if (--decpt == 0 && i + 1 < nd && b < end)
				*b++ = '.';
		}
		for (; decpt > 0 && b < end; decpt--)
			*b++ = '0';
	}
	*b = 0;
}

/* One cell; -1 when only jq would print it alike (an object or array). */
static int cell(FILE *out, const json_t *v, int first)
{
	char num[40];

	if (!first)
		putc('\t', out);
	if (!v || json_is_null(v))
		return 0;
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		size_t n = json_string_length(v);

		for (size_t i = 0; i < n; i++)
			switch (s[i]) {
			case '\t': fputs("\\t", out); break;
			case '\n': fputs("\\n", out); break;
			case '\r': fputs("\\r", out); break;
			case '\\': fputs("\\\\", out); break;
			default: putc(s[i], out);
			}
		return 0;
	}
	if (json_is_integer(v) || json_is_real(v)) {
		gp_flatten_num(num, sizeof(num), json_is_integer(v) ?
			       (double)json_integer_value(v) : json_real_value(v));
		fputs(num, out);
		return 0;
	}
	if (json_is_boolean(v)) {
		fputs(json_is_true(v) ? "true" : "false", out);
		return 0;
	}
	return -1;
}

/* The row of one record: tag, then the fields, "+ci:K" naming an interval
 * object's first K of est, lo, hi, level (nulls when not an object), "!st"
 * the slo's single_token policy, "!rc" the request's has-receipt flag and
 * "A.B" field B of object field A (null when A is not an object), as
 * share/awk/flatten.jq writes them. */
static const char *const rows[][24] = {
	{ "request", "Q", "arm", "rate_rps", "rep", "run", "outcome", "error", "ttft_ms", "tpot_ms",
	  "e2e_ms", "out_tokens", "!rc", "http_status", "error_detail", NULL },
	{ "run", "H", "arm", "rate_rps", "rep", "run", "deadline_s", "schedule", "shard", NULL },
	{ "run_end", "E", "arm", "rate_rps", "rep", "run", "attempted", "ok", "single_token",
	  "failed", "invalid_framing", "by_error.hang", "by_error.truncated", "by_error.invalid_framing",
	  "capped_sends", "interrupted", "client_behind", "lateness_p99_ms", "lateness_max_ms",
	  "achieved_rps", "shard", NULL },
	{ "slo", "S", "ttft_ms", "tpot_ms", "!st", "origin", "baseline_stat", "multiple", NULL },
	{ "baseline_request", "B", "ttft_ms", "tpot_ms", NULL },
	{ "goodfrac", "G", "arm", "rate_rps", "rep", "attempted", "good", "paired", "single_token",
	  "failed", "good_fraction", NULL },
	{ "arm_summary", "A", "arm", "rate_rps", "reps", "mean_good_fraction", "cv",
	  "+4good_fraction_pooled", "+4good_fraction_ci", NULL },
};

static int row(FILE *out, const json_t *o, const char *const *r)
{
	static const char *const ci[4] = { "est", "lo", "hi", "level" };
	int bad = 0;

	fputs(r[1], out);
	for (size_t i = 2; r[i]; i++) {
		const char *f = r[i];

		if (!strcmp(f, "!rc")) {
			const json_t *v = json_object_get(o, "receipt");

			bad |= cell(out, NULL, 0);
			fputc(json_is_string(v) && json_string_length(v) > 0 ? '1' : '0', out);
		} else if (!strcmp(f, "!st")) {
			const json_t *v = json_object_get(o, "single_token");

			if (!v || json_is_null(v) || json_is_false(v))
				v = json_object_get(o, "single_token_policy");
			bad |= cell(out, v, 0);
		} else if (f[0] == '+') {
			const json_t *v = json_object_get(o, f + 2);

			for (int k = 0; k < f[1] - '0'; k++)
				bad |= cell(out, json_is_object(v) ? json_object_get(v, ci[k]) : NULL, 0);
		} else if (strchr(f, '.')) {
			const char *dot = strchr(f, '.');
			char a[64];
			const json_t *v;

			snprintf(a, sizeof(a), "%.*s", (int)(dot - f), f);
			v = json_object_get(o, a);
			bad |= cell(out, json_is_object(v) ? json_object_get(v, dot + 1) : NULL, 0);
		} else {
			bad |= cell(out, json_object_get(o, f), 0);
		}
	}
	putc('\n', out);
	return bad;
}

int gp_flatten_record(const json_t *o, FILE *out)
{
	const json_t *t = json_object_get(o, "type");

	if (!json_is_object(o))
		return GP_FLATTEN_JQ;	/* jq reads other values otherwise */
	if (json_is_string(t))
		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++)
			if (!strcmp(json_string_value(t), rows[r][0]))
				return row(out, o, rows[r]) ? GP_FLATTEN_JQ : GP_FLATTEN_OK;
	return GP_FLATTEN_OK;
}

int gp_flatten(FILE *in, FILE *out)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	int rc = GP_FLATTEN_OK;

	while (rc == GP_FLATTEN_OK && (got = getline(&line, &cap, in)) > 0) {
		json_error_t err;
		json_t *o = json_loadb(line, (size_t)got, 0, &err);

		rc = o ? gp_flatten_record(o, out) : GP_FLATTEN_JQ;	/* jq words it */
		json_decref(o);
	}
	free(line);
	if (rc == GP_FLATTEN_OK && ferror(in))
		rc = GP_FLATTEN_ERR;
	if (fflush(out) || ferror(out))
		rc = GP_FLATTEN_ERR;
	return rc;
}

/* Column k (1-based) of a TSV row: its start and length; -1 when absent. */
static int column(const char *row, size_t n, int k, const char **p, size_t *len)
{
	const char *s = row, *end = row + n, *t;

	for (int i = 1; i < k; i++) {
		if (!(t = memchr(s, '\t', (size_t)(end - s))))
			return -1;
		s = t + 1;
	}
	t = memchr(s, '\t', (size_t)(end - s));
	*p = s;
	*len = (size_t)((t ? t : end) - s);
	return 0;
}

/* The set of run ids pass1 has seen: open addressing over FNV-1a, every
 * allocation checked (the library does not die). */
struct idset {
	char **slot;
	size_t cap, n;
};

/* 1 when id[0..n) was new (now added), 0 when seen, -1 out of memory. */
static int idset_add(struct idset *s, const char *id, size_t n)
{
	uint64_t h;
	size_t i;

	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		char **slot = calloc(cap, sizeof(*slot));

		if (!slot)
			return -1;
		for (size_t k = 0; k < s->cap; k++)
			if (s->slot[k]) {
				h = gp_fnv1a64_str(s->slot[k]);
				for (i = h & (cap - 1); slot[i]; i = (i + 1) & (cap - 1))
					;
				slot[i] = s->slot[k];
			}
		free(s->slot);
		s->slot = slot;
		s->cap = cap;
	}
	h = gp_fnv1a64(GP_FNV64_OFFSET, id, n);
	for (i = h & (s->cap - 1); s->slot[i]; i = (i + 1) & (s->cap - 1))
		if (strlen(s->slot[i]) == n && !memcmp(s->slot[i], id, n))
			return 0;
	if (!(s->slot[i] = strndup(id, n)))
		return -1;
	s->n++;
	return 1;
}

static void idset_free(struct idset *s)
{
	for (size_t k = 0; k < s->cap; k++)
		free(s->slot[k]);
	free(s->slot);
}

int gp_flatten_pass1(FILE *flat, FILE *out)
{
	struct idset ids = { NULL, 0, 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	long row = 0;
	int rc = 0;

	while ((got = getline(&line, &cap, flat)) > 0) {
		size_t n = (size_t)got - (line[got - 1] == '\n');
		const char *arm, *run;
		size_t na, nr;
		int keep = row++ == 0 || n < 2 || line[0] != 'Q' || line[1] != '\t';

		if (!keep && !column(line, n, 2, &arm, &na) && na > 0 && !column(line, n, 5, &run, &nr) &&
		    nr > 0) {
			int added = idset_add(&ids, run, nr);	/* the run id's first */

			if (added < 0) {
				rc = -1;
				break;
			}
			keep = added;
		}
		if (keep && fwrite(line, 1, (size_t)got, out) != (size_t)got)
			rc = -1;
	}
	free(line);
	idset_free(&ids);
	if (ferror(flat) || fflush(out) || ferror(out))
		rc = -1;
	return rc;
}
