/* SPDX-License-Identifier: MIT */
/* calib — the calibration policy (method §4): protocol, plateau, cross-check,
 * capacity, ladder, staleness.  The rules are stated in calib.h. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "method/calib.h"
#include "base/num.h"
#include "base/banned.h"

#define F(n, l, min, max, open, def, help) \
	{ #n, l, offsetof(struct gp_calib_protocol, n), min, max, open, def, help }

static const struct gp_calib_field fields[] = {
	F(start_rps, 0, 0, 1e6, 1, 1, "offered rate of the first step, requests/s"),
	F(ramp, 0, 1, 100, 1, 1.25, "geometric ramp factor between steps"),
	F(warmup_s, 0, 0, 86400, 0, 10, "discarded warmup at the start of each step, s"),
	F(hold_s, 0, 0, 86400, 1, 30, "minimum hold of a step after its warmup, s"),
	F(hold_requests, 1, 0, 1e9, 0, 100, "minimum requests offered in the hold"),
	F(plateau_pct, 0, 0, 100, 1, 5, "a gain below this is flat, %"),
	F(max_steps, 1, 3, 1000, 0, 20, "backstop: steps at most"),
	F(full_step_pct, 0, 0, 100, 1, 90, "share of the ramp's growth the offered rate must show, %"),
	F(diverge_requests, 1, 1, 1e9, 0, 4, "queue growth over the hold that counts as diverging"),
	F(sample_s, 0, 0.001, 3600, 0, 0.25, "metrics sampling interval, s"),
	F(late_ms, 0, 0, 1e6, 1, 10, "send lateness p99 above this flags the driver, ms"),
	F(max_inflight, 1, 0, 1e9, 0, 0, "requests in flight at most (0: no cap)"),
	F(prefill_input_tokens, 1, 1, 1e9, 0, 2048, "prefill role: prompt tokens"),
	F(prefill_output_tokens, 1, 1, 1e9, 0, 1, "prefill role: output tokens"),
	F(decode_input_tokens, 1, 1, 1e9, 0, 32, "decode role: prompt tokens"),
	F(decode_output_tokens, 1, 1, 1e9, 0, 256, "decode role: output tokens"),
};
#undef F

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

int gp_calib_role_parse(const char *s, enum gp_calib_role *out)
{
	if (s && !strcmp(s, "prefill"))
		*out = GP_CALIB_PREFILL;
	else if (s && !strcmp(s, "decode"))
		*out = GP_CALIB_DECODE;
	else
		return -1;
	return 0;
}

const char *gp_calib_role_name(enum gp_calib_role r)
{
	return r == GP_CALIB_DECODE ? "decode" : "prefill";
}

const struct gp_calib_field *gp_calib_fields(size_t *n)
{
	*n = NFIELDS;
	return fields;
}

const struct gp_calib_field *gp_calib_field(const char *name)
{
	char buf[64];
	size_t i;

	for (i = 0; name[i] && i + 1 < sizeof(buf); i++)
		buf[i] = name[i] == '-' ? '_' : name[i];
	if (name[i])
		return NULL;
	buf[i] = 0;
	for (i = 0; i < NFIELDS; i++)
		if (!strcmp(fields[i].name, buf))
			return &fields[i];
	return NULL;
}

static double get(const struct gp_calib_protocol *p, const struct gp_calib_field *f)
{
	const char *base = (const char *)p + f->offset;

	return f->is_long ? (double)*(const long *)(const void *)base :
			    *(const double *)(const void *)base;
}

/* Store v when in range; else -1 and the reason. */
static int put(struct gp_calib_protocol *p, const struct gp_calib_field *f, double v,
	       char *err, size_t errlen)
{
	char *base = (char *)p + f->offset;

	if (!isfinite(v)) {
		snprintf(err, errlen, "is not a finite number");
		return -1;
	}
	if (f->is_long && v != floor(v)) {
		snprintf(err, errlen, "must be an integer");
		return -1;
	}
	if (f->min_open ? !(v > f->min) : !(v >= f->min)) {
		snprintf(err, errlen, "must be %s %g", f->min_open ? ">" : ">=", f->min);
		return -1;
	}
	if (v > f->max) {
		snprintf(err, errlen, "must be <= %g", f->max);
		return -1;
	}
	if (f->is_long)
		*(long *)(void *)base = (long)v;
	else
		*(double *)(void *)base = v;
	return 0;
}

void gp_calib_protocol_default(struct gp_calib_protocol *p)
{
	char err[8];

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < NFIELDS; i++)
		put(p, &fields[i], fields[i].def, err, sizeof(err));
}

int gp_calib_protocol_set(struct gp_calib_protocol *p, const struct gp_calib_field *f,
			  const char *text, char *err, size_t errlen)
{
	double v;

	if (gp_parse_double(text, -INFINITY, INFINITY, &v)) {
		snprintf(err, errlen, "is not a number");
		return -1;
	}
	return put(p, f, v, err, errlen);
}

int gp_calib_protocol_from_json(struct gp_calib_protocol *p, const json_t *o,
				char *err, size_t errlen)
{
	struct gp_calib_protocol q = *p;
	const char *key;
	json_t *v;
	char why[96];

	if (!json_is_object(o)) {
		snprintf(err, errlen, "the protocol is not a JSON object");
		return -1;
	}
	json_object_foreach((json_t *)o, key, v) {
		const struct gp_calib_field *f = gp_calib_field(key);

		if (!f || strchr(key, '-')) {
			snprintf(err, errlen, "field '%.64s': not a protocol field", key);
			return -1;
		}
		if (!json_is_number(v)) {
			snprintf(err, errlen, "field '%s': is not a number", f->name);
			return -1;
		}
		if (put(&q, f, json_number_value(v), why, sizeof(why))) {
			snprintf(err, errlen, "field '%s': %s", f->name, why);
			return -1;
		}
	}
	*p = q;
	return 0;
}

json_t *gp_calib_protocol_json(const struct gp_calib_protocol *p)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < NFIELDS; i++) {
		double v = get(p, &fields[i]);
		json_t *j = fields[i].is_long ? json_integer((json_int_t)v) : json_real(v);

		if (json_object_set_new(o, fields[i].name, j)) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

int gp_calib_protocol_equal(const struct gp_calib_protocol *a, const struct gp_calib_protocol *b)
{
	for (size_t i = 0; i < NFIELDS; i++)
		if (get(a, &fields[i]) != get(b, &fields[i]))
			return 0;
	return 1;
}

double gp_calib_target_rps(const struct gp_calib_protocol *p, long k)
{
	return p->start_rps * pow(p->ramp, (double)k);
}

double gp_calib_hold_s(const struct gp_calib_protocol *p, double rate_rps)
{
	double by_count = rate_rps > 0 ? (double)p->hold_requests / rate_rps : 0;

	return by_count > p->hold_s ? by_count : p->hold_s;
}

long gp_calib_input_tokens(const struct gp_calib_protocol *p, enum gp_calib_role r)
{
	return r == GP_CALIB_DECODE ? p->decode_input_tokens : p->prefill_input_tokens;
}

long gp_calib_output_tokens(const struct gp_calib_protocol *p, enum gp_calib_role r)
{
	return r == GP_CALIB_DECODE ? p->decode_output_tokens : p->prefill_output_tokens;
}

long gp_calib_due(int64_t t_start_ns, int64_t gap_ns, int64_t w0_ns, int64_t w1_ns)
{
	/* The first i with t_start + i·gap >= w, for w >= t_start. */
	int64_t a = (w0_ns - t_start_ns + gap_ns - 1) / gap_ns;
	int64_t b = (w1_ns - t_start_ns + gap_ns - 1) / gap_ns;

	return b > a ? (long)(b - a) : 0;
}

double gp_calib_offered(double target_rps, long on_time, long due)
{
	return due > 0 ? target_rps * (double)on_time / (double)due : 0;
}

void gp_calib_window_init(struct gp_calib_window *w, int64_t w0_ns, int64_t w1_ns)
{
	memset(w, 0, sizeof(*w));
	w->w0_ns = w0_ns;
	w->w1_ns = w1_ns;
}

static int inside(const struct gp_calib_window *w, int64_t t)
{
	return t >= w->w0_ns && t < w->w1_ns;
}

void gp_calib_window_first(struct gp_calib_window *w, int64_t t_ns, long in_tokens)
{
	if (inside(w, t_ns)) {
		w->prompt_tokens += (double)in_tokens;
		w->first_tokens++;
	}
}

void gp_calib_window_token(struct gp_calib_window *w, int64_t t_ns)
{
	if (inside(w, t_ns))
		w->output_tokens += 1;
}

double gp_calib_window_tok_s(const struct gp_calib_window *w, enum gp_calib_role r)
{
	double len = (double)(w->w1_ns - w->w0_ns) / 1e9;

	if (!(len > 0))
		return 0;
	return (r == GP_CALIB_DECODE ? w->output_tokens : w->prompt_tokens) / len;
}

int gp_calib_diverging(const struct gp_calib_protocol *p, const double *t_s,
		       const double *depth, size_t n, double hold_s, double *slope,
		       double *growth)
{
	double mt = 0, md = 0, sxy = 0, sxx = 0, b = 0;

	for (size_t i = 0; i < n; i++) {
		mt += t_s[i];
		md += depth[i];
	}
	if (n >= 3) {
		mt /= (double)n;
		md /= (double)n;
		for (size_t i = 0; i < n; i++) {
			sxy += (t_s[i] - mt) * (depth[i] - md);
			sxx += (t_s[i] - mt) * (t_s[i] - mt);
		}
		if (sxx > 0)
			b = sxy / sxx;
	}
	if (slope)
		*slope = b;
	if (growth)
		*growth = b * hold_s;
	return b * hold_s >= (double)p->diverge_requests;
}

int gp_calib_late(const struct gp_calib_protocol *p, double lateness_p99_ms, long capped)
{
	return capped > 0 || (lateness_p99_ms == lateness_p99_ms && lateness_p99_ms > p->late_ms);
}

double gp_calib_gain_pct(double prev, double cur)
{
	if (!(prev > 0))
		return NAN;
	return 100.0 * (cur - prev) / prev;
}

const char *gp_calib_verdict_name(enum gp_calib_verdict v)
{
	static const char *const name[] = { "continue", "saturated", "rerun", "suspect",
					    "backstop" };

	return (unsigned)v < sizeof(name) / sizeof(name[0]) ? name[v] : "?";
}

/* Offered rate of step j grew by the full ramp step over step j − 1. */
static int full_step(const struct gp_calib_protocol *p, const struct gp_calib_step *s, size_t j)
{
	double need = p->full_step_pct / 100.0 * (p->ramp - 1.0);

	return s[j - 1].offered_rps > 0 &&
	       s[j].offered_rps / s[j - 1].offered_rps - 1.0 >= need - 1e-12;
}

static int small(double gain, double pct)
{
	return gain == gain && gain < pct;
}

/* Whether plateau step i (of the last three of n) is one that made the
 * plateau untrusted: driver-late, short of the full step, or (the last) not
 * diverging. */
static int culprit(const struct gp_calib_protocol *p, const struct gp_calib_step *steps, size_t n,
		   size_t i)
{
	return steps[i].late || (i + 2 >= n && !full_step(p, steps, i)) ||
	       (i + 1 == n && !steps[i].diverging);
}

size_t gp_calib_rerun_next(const struct gp_calib_protocol *p, const struct gp_calib_step *steps,
			   size_t n)
{
	for (size_t i = n >= 3 ? n - 3 : n; i < n; i++)
		if (!steps[i].rerun && culprit(p, steps, n, i))
			return i;
	return n;
}

void gp_calib_judge(const struct gp_calib_protocol *p, const struct gp_calib_step *steps,
		    size_t n, struct gp_calib_judgement *j)
{
	memset(j, 0, sizeof(*j));
	j->capacity_tok_s = NAN;
	if (n >= 3) {
		const struct gp_calib_step *a = &steps[n - 3], *b = a + 1, *c = a + 2;

		j->flat = small(gp_calib_gain_pct(a->delivered_tok_s, b->delivered_tok_s),
				p->plateau_pct) &&
			  small(gp_calib_gain_pct(b->delivered_tok_s, c->delivered_tok_s),
				p->plateau_pct);
		j->full_step = full_step(p, steps, n - 2) && full_step(p, steps, n - 1);
		j->diverging = c->diverging;
		j->late = a->late || b->late || c->late;
		if (j->flat)
			j->capacity_tok_s = (a->delivered_tok_s + b->delivered_tok_s +
					     c->delivered_tok_s) / 3.0;
	}
	if (j->flat && j->full_step && j->diverging && !j->late)
		j->verdict = GP_CALIB_SATURATED;
	else if (j->flat)
		j->verdict = gp_calib_rerun_next(p, steps, n) < n ? GP_CALIB_RERUN : GP_CALIB_SUSPECT;
	else if ((long)n >= p->max_steps)
		j->verdict = GP_CALIB_BACKSTOP;
	else
		j->verdict = GP_CALIB_CONTINUE;
}

int gp_calib_ladder(const double *cap_tok_s, size_t n, double mean_tokens,
		    const double *ratio, size_t nratio, struct gp_calib_ladder *out,
		    double *rates_rps)
{
	size_t ref = 0;

	if (n == 0 || !(mean_tokens > 0))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!(cap_tok_s[i] > 0) || !isfinite(cap_tok_s[i]))
			return -1;
		if (cap_tok_s[i] < cap_tok_s[ref])
			ref = i;
	}
	out->reference = ref;
	out->capacity_rps = cap_tok_s[ref] / mean_tokens;
	out->fleet_rps = (double)n * out->capacity_rps;
	for (size_t i = 0; i < nratio; i++)
		rates_rps[i] = ratio[i] * out->fleet_rps;
	return 0;
}

/* URLs equal up to case and one trailing '/'. */
static int same_url(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (la && a[la - 1] == '/')
		la--;
	if (lb && b[lb - 1] == '/')
		lb--;
	return la == lb && !strncasecmp(a, b, la);
}

static const struct gp_calib_member *find(const struct gp_calib_member *m, size_t n,
					  const char *url)
{
	for (size_t i = 0; i < n; i++)
		if (m[i].url && url && same_url(m[i].url, url))
			return &m[i];
	return NULL;
}

size_t gp_calib_stale(const struct gp_calib_member *was, size_t nwas,
		      const struct gp_calib_member *cur, size_t ncur,
		      void (*why)(void *arg, const char *reason), void *arg)
{
	char msg[600];
	size_t k = 0;

	for (size_t i = 0; i < ncur; i++) {
		const struct gp_calib_member *w = find(was, nwas, cur[i].url);

		if (!w)
			snprintf(msg, sizeof(msg), "added %.500s", cur[i].url);
		else if (w->accelerators != cur[i].accelerators)
			snprintf(msg, sizeof(msg), "accelerators of %.500s: %ld -> %ld",
				 cur[i].url, w->accelerators, cur[i].accelerators);
		else
			continue;
		k++;
		if (why)
			why(arg, msg);
	}
	for (size_t i = 0; i < nwas; i++) {
		if (find(cur, ncur, was[i].url))
			continue;
		snprintf(msg, sizeof(msg), "removed %.500s", was[i].url);
		k++;
		if (why)
			why(arg, msg);
	}
	return k;
}
