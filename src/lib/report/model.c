/* SPDX-License-Identifier: MIT */
/* model — gp-report's records and the questions asked of them (model.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/model.h"
#include "io/json.h"
#include "base/vec.h"
#include "base/banned.h"

int gp_same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

int gp_same_rate(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1, fmax(fabs(a), fabs(b)));
}

/* Room for one more element at index n of p, or return -1. */
#define GROW(p, n, cap, min) do { \
	if ((n) >= (cap)) { \
		void *g_ = gp_grow((p), &(cap), (size_t)(n) + 1, sizeof(*(p)), (min)); \
		if (!g_) \
			return -1; \
		(p) = g_; \
	} \
} while (0)

/* The arm's index in m->arms (added when new) into *out.  0 or -1. */
static int arm_index(struct gp_records *m, const char *arm, size_t *out)
{
	char *s;

	for (size_t i = 0; i < m->narms; i++)
		if (!strcmp(m->arms[i], arm)) {
			*out = i;
			return 0;
		}
	GROW(m->arms, m->narms, m->caparms, 16);
	if (!(s = strdup(arm)))
		return -1;
	m->arms[m->narms] = s;
	*out = m->narms++;
	return 0;
}

static int add_request(struct gp_records *m, const json_t *o)
{
	struct gp_req *q;
	size_t arm;

	GROW(m->q, m->nq, m->capq, 1024);
	if (arm_index(m, gp_jstr(o, "arm", ""), &arm))
		return -1;
	q = &m->q[m->nq++];
	q->arm = arm;
	q->rate = gp_jnum(o, "rate_rps");
	q->ttft = gp_jnum(o, "ttft_ms");
	q->tpot = gp_jnum(o, "tpot_ms");
	m->requests++;
	return 0;
}

static int add_run(struct gp_records *m, const json_t *o)
{
	const char *run = gp_jstr(o, "run", NULL), *arm = gp_jstr(o, "arm", NULL);
	char *r, *a;

	if (!run || !arm)
		return 0;
	GROW(m->ri, m->nri, m->capri, 64);
	r = strdup(run);
	a = strdup(arm);
	if (!r || !a) {
		free(r);
		free(a);
		return -1;
	}
	m->ri[m->nri].run = r;
	m->ri[m->nri].arm = a;
	m->ri[m->nri].rate = gp_jnum(o, "rate_rps");
	m->nri++;
	return 0;
}

static int add_rec(struct gp_records *m, json_t *o, const char *type, const char *file,
		   unsigned long line)
{
	char *f;

	GROW(m->r, m->nr, m->capr, 256);
	if (!(f = strdup(file)))
		return -1;
	m->r[m->nr].o = o;
	m->r[m->nr].type = type;
	m->r[m->nr].file = f;
	m->r[m->nr].line = line;
	m->nr++;
	return 0;
}

int gp_records_add(struct gp_records *m, json_t *o, const char *type, const char *file,
		   unsigned long line)
{
	int rc = 0;

	if (!strcmp(type, "request")) {
		rc = add_request(m, o);
		json_decref(o);
		return rc;
	}
	if (!strcmp(type, "run"))
		rc = add_run(m, o);
	if (rc || !strcmp(type, "metrics") || !strcmp(type, "trace") || !strcmp(type, "truth") ||
	    (rc = add_rec(m, o, type, file, line))) {
		json_decref(o);
		if (rc)
			errno = ENOMEM;
	}
	return rc;
}

void gp_records_release(struct gp_records *m)
{
	for (size_t i = 0; i < m->nr; i++) {
		json_decref(m->r[i].o);
		free(m->r[i].file);
	}
	for (size_t i = 0; i < m->narms; i++)
		free(m->arms[i]);
	for (size_t i = 0; i < m->nri; i++) {
		free(m->ri[i].run);
		free(m->ri[i].arm);
	}
	free(m->r);
	free(m->q);
	free(m->arms);
	free(m->ri);
	free(m->pal);
	free(m->ach_sum);
	free(m->ach_end);
	memset(m, 0, sizeof(*m));
}

const json_t *gp_records_next(const struct gp_records *m, const char *type, size_t *i)
{
	for (; *i < m->nr; (*i)++)
		if (!strcmp(m->r[*i].type, type))
			return m->r[(*i)++].o;
	return NULL;
}

size_t gp_records_count(const struct gp_records *m, const char *type)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nr; i++)
		n += !strcmp(m->r[i].type, type);
	return n;
}

const json_t *gp_records_last(const struct gp_records *m, const char *type)
{
	const json_t *o = NULL, *x;
	size_t i = 0;

	while ((x = gp_records_next(m, type, &i)))
		o = x;
	return o;
}

const char *gp_rfmt(enum gp_numfmt k, double v)
{
	static char ring[32][48];
	static unsigned n;
	char *b = ring[n++ % 32];

	if (isnan(v))
		return "n/a";
	switch (k) {
	case GP_F3: snprintf(b, sizeof(ring[0]), "%.3f", v); break;
	case GP_G4:	/* 4 significant digits, but 20000, not 2e+04 */
		if (fabs(v) >= 1e4 && fabs(v) < 1e15)
			snprintf(b, sizeof(ring[0]), "%.0f", v);
		else
			snprintf(b, sizeof(ring[0]), "%.4g", v);
		break;
	case GP_F1: snprintf(b, sizeof(ring[0]), "%.1f", v); break;
	case GP_PCT: snprintf(b, sizeof(ring[0]), "%.0f%% ", 100 * v); break;
	}
	return b;
}

static int rix_cmp(const void *pa, const void *pb)
{
	const struct gp_rix *a = pa, *b = pb;
	int c = strcmp(a->arm, b->arm);

	if (c)
		return c;
	if (a->rate != b->rate)
		return a->rate < b->rate ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* A run header's (run, index in ri) for the run_ends that name neither arm
 * nor rate: the first header of each run, sorted by run. */
struct runref {
	const char *run;
	size_t k;
};

static int runref_cmp(const void *pa, const void *pb)
{
	const struct runref *a = pa, *b = pb;
	int c = strcmp(a->run, b->run);

	return c ? c : a->k < b->k ? -1 : a->k > b->k;
}

static const struct gp_runinfo *run_of(const struct gp_records *m, const struct runref *rr, const char *run)
{
	size_t lo = 0, hi = m->nri;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(rr[mid].run, run) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nri && !strcmp(rr[lo].run, run) ? &m->ri[rr[lo].k] : NULL;
}

static int rix_push(struct gp_rix **x, size_t *n, size_t *cap, struct gp_rix v)
{
	struct gp_rix *p = gp_grow(*x, cap, *n + 1, sizeof(**x), 64);

	if (!p)
		return -1;
	*x = p;
	(*x)[(*n)++] = v;
	return 0;
}

int gp_records_index_achieved(struct gp_records *m)
{
	struct runref *rr = m->nri ? malloc(m->nri * sizeof(*rr)) : NULL;
	size_t i = 0, cs = 0, ce = 0;
	const json_t *e;

	if (m->nri && !rr)
		return -1;
	for (size_t k = 0; k < m->nri; k++)
		rr[k] = (struct runref){m->ri[k].run, k};
	if (m->nri)
		qsort(rr, m->nri, sizeof(*rr), runref_cmp);
	while ((e = gp_records_next(m, "arm_summary", &i)))
		if (!isnan(gp_jnum(e, "achieved_rps")) && !isnan(gp_jnum(e, "rate_rps")) &&
		    rix_push(&m->ach_sum, &m->nsum, &cs, (struct gp_rix){gp_jstr(e, "arm", ""),
			     gp_jnum(e, "rate_rps"), gp_jnum(e, "achieved_rps"), i}))
			goto oom;
	i = 0;
	while ((e = gp_records_next(m, "run_end", &i))) {
		const char *a = gp_jstr(e, "arm", NULL);
		double r = gp_jnum(e, "rate_rps"), v = gp_jnum(e, "achieved_rps");
		const struct gp_runinfo *ri = !a || isnan(r) ? run_of(m, rr, gp_jstr(e, "run", "")) : NULL;

		if (ri) {
			a = a ? a : ri->arm;
			r = isnan(r) ? ri->rate : r;
		}
		if (a && !isnan(r) && !isnan(v) &&
		    rix_push(&m->ach_end, &m->nend, &ce, (struct gp_rix){a, r, v, i}))
			goto oom;
	}
	free(rr);
	if (m->nsum)
		qsort(m->ach_sum, m->nsum, sizeof(*m->ach_sum), rix_cmp);
	if (m->nend)
		qsort(m->ach_end, m->nend, sizeof(*m->ach_end), rix_cmp);
	m->indexed = 1;
	return 0;
oom:
	free(rr);
	free(m->ach_sum);
	free(m->ach_end);
	m->ach_sum = m->ach_end = NULL;
	m->nsum = m->nend = 0;
	return -1;
}

/* The first record of x[0..n) at (arm, a rate gp_same_rate as rate) in file
 * order (*first), and the mean of their values; their number. */
static size_t rix_find(const struct gp_rix *x, size_t n, const char *arm, double rate, double *first,
		       double *mean)
{
	double w = 2e-9 * fmax(1, fabs(rate));	/* wider than gp_same_rate()'s tolerance */
	struct gp_rix key = {arm, rate - w, 0, 0};
	size_t lo = 0, hi = n, k = 0, fi = (size_t)-1;
	double sum = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rix_cmp(&x[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && !strcmp(x[lo].arm, arm) && x[lo].rate <= rate + w; lo++)
		if (gp_same_rate(x[lo].rate, rate)) {
			if (x[lo].idx < fi) {
				fi = x[lo].idx;
				*first = x[lo].v;
			}
			sum += x[lo].v;
			k++;
		}
	*mean = k ? sum / (double)k : NAN;
	return k;
}

double gp_records_achieved(const struct gp_records *m, const char *arm, double rate)
{
	double sum = 0, first = NAN, mean;
	long n = 0;
	const json_t *e;
	size_t i = 0;

	if (m->indexed) {
		if (isnan(rate))
			return NAN;
		if (rix_find(m->ach_sum, m->nsum, arm, rate, &first, &mean))
			return first;	/* the first arm_summary of the rung */
		return rix_find(m->ach_end, m->nend, arm, rate, &first, &mean) ? mean : NAN;
	}
	while ((e = gp_records_next(m, "arm_summary", &i)))
		if (!strcmp(gp_jstr(e, "arm", ""), arm) && gp_same_rate(gp_jnum(e, "rate_rps"), rate) &&
		    !isnan(gp_jnum(e, "achieved_rps")))
			return gp_jnum(e, "achieved_rps");
	i = 0;
	while ((e = gp_records_next(m, "run_end", &i))) {
		const char *a = gp_jstr(e, "arm", NULL);
		double r = gp_jnum(e, "rate_rps"), v = gp_jnum(e, "achieved_rps");

		for (size_t k = 0; (!a || isnan(r)) && k < m->nri; k++)
			if (!strcmp(m->ri[k].run, gp_jstr(e, "run", ""))) {
				a = a ? a : m->ri[k].arm;
				r = isnan(r) ? m->ri[k].rate : r;
			}
		if (a && !strcmp(a, arm) && gp_same_rate(r, rate) && !isnan(v)) {
			sum += v;
			n++;
		}
	}
	return n ? sum / n : NAN;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every arm of the input, sorted, so that an arm has one colour in every plot. */
int gp_records_palette(struct gp_records *m)
{
	size_t n = 0, k = 0;
	const char **pal = malloc((m->narms + m->nr + 1) * sizeof(*pal));

	if (!pal)
		return -1;
	free(m->pal);
	m->pal = pal;
	for (size_t i = 0; i < m->narms; i++)
		m->pal[n++] = m->arms[i];
	for (size_t i = 0; i < m->nr; i++)
		if (gp_jstr(m->r[i].o, "arm", NULL))
			m->pal[n++] = gp_jstr(m->r[i].o, "arm", NULL);
	qsort(m->pal, n, sizeof(*m->pal), cmp_str);
	for (size_t i = 0; i < n; i++)
		if (!k || strcmp(m->pal[k - 1], m->pal[i]))
			m->pal[k++] = m->pal[i];
	m->npal = k;
	return 0;
}

size_t gp_records_slot(const struct gp_records *m, const char *arm)
{
	const char **hit = bsearch(&arm, m->pal, m->npal, sizeof(*m->pal), cmp_str);

	return hit ? (size_t)(hit - m->pal) : 0;
}

const char *gp_endpoint_of(const json_t *o)
{
	return gp_jstr(o, "endpoint", gp_jstr(o, "target", "endpoint"));
}

const char *gp_endpoint_label(const json_t *o)
{
	static char ring[8][512];
	static unsigned k;
	char *b = ring[k++ % 8];

	if (!gp_jstr(o, "backend", NULL))
		return gp_endpoint_of(o);
	snprintf(b, sizeof(ring[0]), "%s (%s)", gp_jstr(o, "backend", ""), gp_endpoint_of(o));
	return b;
}

double gp_records_target(const struct gp_records *m)
{
	const json_t *k = gp_records_last(m, "knee");
	double t = gp_jnum(k, "target");

	return isnan(t) ? gp_jnum(gp_records_last(m, "slo"), "target") : t;
}
