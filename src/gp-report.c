/* SPDX-License-Identifier: MIT */
/*
 * gp-report — the campaign's records (analysis, verification, probe,
 * calibration, health, requests) in, DIR/report.md out, with plots drawn by
 * gnuplot (PNG and SVG), an optional self-contained HTML page, and a summary
 * table on stderr.  Every figure comes from a record; a section without
 * records says "not measured".
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "report/doc.h"
#include "io/json.h"
#include "base/log.h"
#include "base/map.h"
#include "io/ndjson.h"
#include "io/child.h"
#include "base/sig.h"
#include "base/vec.h"
#include "base/banned.h"

static const char usage[] =
	"Usage: gp-report [-o DIR] [--html] [--protocol FILE] [--moderate-rps R]\n"
	"                 [--no-plots] [--gnuplot PROG] [-q] [FILE...]\n"
	"\n"
	"Reads analysis, verify, probe, calibration, health and request records (files\n"
	"or stdin, gzip transparent) and writes DIR/report.md with plots (PNG and SVG)\n"
	"drawn by gnuplot, and a summary table on stderr.\n"
	"\n"
	"  -o, --output DIR     where to write (default report/; created)\n"
	"  --html               also write DIR/report.html, one self-contained page\n"
	"  --protocol FILE      the campaign's pre-registered protocol, echoed whole\n"
	"  --moderate-rps R     the rate of the latency CDFs (default: the ladder's\n"
	"                       moderate rate, else the middle rung measured)\n"
	"  --no-plots           tables only; gnuplot is not needed\n"
	"  --gnuplot PROG       the gnuplot to run (default gnuplot, on PATH)\n"
	"  -q, --quiet          no summary on stderr\n"
	"  -h, --help, --version\n";

struct opts {
	const char *dir, *protocol, *gnuplot;
	double moderate;
	int html, no_plots, quiet;
};

/* ---- records ---- */

struct rec {
	json_t *o;
	const char *type;	/* borrowed from o */
	char *file;
	unsigned long line;
};

struct req {
	size_t arm;		/* index into arms */
	double rate, ttft, tpot;	/* NaN: null */
};

struct runinfo {
	char *run, *arm;
	double rate;
};

struct model {
	struct rec *r;
	size_t nr, capr;
	struct req *q;
	size_t nq, capq;
	char **arms;		/* arms seen in request records */
	size_t narms;
	struct runinfo *ri;
	size_t nri, capri;
	long requests;
	const char **pal;	/* every arm named, sorted: one colour each */
	size_t npal;
	struct gp_map *armix;	/* arm -> index into arms */
	struct rix *ach_sum, *ach_end;	/* achieved(): its records by (arm, rate) */
	size_t nsum, nend;
};

/* A record's (arm, rate) and value, with its index in file order, in arrays
 * sorted by (arm, rate, index): achieved() finds a rung's records by binary
 * search where a scan of every record per rung was quadratic in rungs. */
struct rix {
	const char *arm;
	double rate, v;
	size_t idx;
};

enum kind { K_NUM = 1, K_INT, K_STR, K_BOOL, K_ARR, K_OBJ };

/* The fields gp-report reads, by record type: required (present and not null)
 * or optional (null or absent allowed; of the right type when present). */
struct spec {
	const char *type, *field;
	enum kind kind;
	int required;
};

static const struct spec specs[] = {
	{ "slo", "ttft_ms", K_NUM, 1 }, { "slo", "tpot_ms", K_NUM, 1 },
	{ "slo", "origin", K_STR, 0 }, { "slo", "baseline_stat", K_STR, 0 },
	{ "slo", "multiple", K_NUM, 0 }, { "slo", "target", K_NUM, 0 },
	{ "goodfrac", "arm", K_STR, 1 }, { "goodfrac", "rate_rps", K_NUM, 1 },
	{ "goodfrac", "rep", K_INT, 1 }, { "goodfrac", "good_fraction", K_NUM, 0 },
	{ "arm_summary", "arm", K_STR, 1 }, { "arm_summary", "rate_rps", K_NUM, 1 },
	{ "arm_summary", "reps", K_INT, 1 }, { "arm_summary", "mean_good_fraction", K_NUM, 0 },
	{ "arm_summary", "cv", K_NUM, 0 }, { "arm_summary", "ttft_ms", K_OBJ, 0 },
	{ "arm_summary", "tpot_ms", K_OBJ, 0 }, { "arm_summary", "good_fraction_ci", K_OBJ, 0 },
	{ "arm_summary", "goodput_rps", K_NUM, 0 },
	{ "noise_floor", "arm", K_STR, 1 }, { "noise_floor", "rate_rps", K_NUM, 1 },
	{ "noise_floor", "half_width", K_NUM, 0 },
	{ "compare", "arm", K_STR, 1 }, { "compare", "vs", K_STR, 1 },
	{ "compare", "rate_rps", K_NUM, 1 }, { "compare", "verdict", K_STR, 1 },
	{ "compare", "diff", K_NUM, 0 }, { "compare", "lo", K_NUM, 0 },
	{ "compare", "hi", K_NUM, 0 }, { "compare", "tost", K_OBJ, 0 },
	{ "knee", "arm", K_STR, 1 }, { "knee", "rate_rps", K_NUM, 0 },
	{ "knee", "good_fraction", K_NUM, 0 }, { "knee", "target", K_NUM, 0 },
	{ "knee", "goodput_rps", K_NUM, 0 }, { "knee", "goodput_rps_per_accel", K_NUM, 0 },
	{ "knee", "achieved_rps", K_NUM, 0 }, { "knee", "goodput_ci", K_OBJ, 0 },
	{ "knee", "crossing_ci", K_OBJ, 0 }, { "knee", "edge", K_STR, 0 },
	{ "knee_compare", "arm", K_STR, 1 }, { "knee_compare", "vs", K_STR, 0 },
	{ "knee_compare", "verdict", K_STR, 0 }, { "knee_compare", "diff_goodput", K_NUM, 0 },
	{ "arm_summary", "achieved_rps", K_NUM, 0 },
	{ "discard", "arm", K_STR, 1 }, { "discard", "rate_rps", K_NUM, 1 },
	{ "discard", "rep", K_INT, 1 }, { "discard", "reasons", K_ARR, 1 },
	{ "validity", "kept", K_INT, 1 }, { "validity", "discarded", K_INT, 1 },
	{ "validity", "rules", K_ARR, 0 },
	{ "stability", "arm", K_STR, 1 }, { "stability", "rate_rps", K_NUM, 1 },
	{ "stability", "reps", K_INT, 1 }, { "stability", "verdict", K_STR, 1 },
	{ "stability", "cv", K_NUM, 0 }, { "stability", "add_reps", K_INT, 0 },
	{ "integrity", "check", K_STR, 1 }, { "integrity", "ok", K_BOOL, 0 },
	{ "integrity", "detail", K_STR, 0 },
	{ "dual_proof", "arm", K_STR, 1 }, { "dual_proof", "decision_ok", K_BOOL, 0 },
	{ "dual_proof", "delivery_ok", K_BOOL, 0 }, { "dual_proof", "detail", K_STR, 0 },
	{ "verdict", "publishable", K_BOOL, 1 }, { "verdict", "reasons", K_ARR, 0 },
	{ "verdict", "footnotes", K_ARR, 0 },
	{ "health", "check", K_STR, 1 }, { "health", "ok", K_BOOL, 1 },
	{ "health_summary", "ready", K_BOOL, 1 },
	{ "calib_step", "offered_rps", K_NUM, 1 }, { "calib_step", "delivered_tok_s", K_NUM, 0 },
	{ "calib_step", "queue_diverging", K_BOOL, 0 }, { "calib_step", "suspect", K_BOOL, 0 },
	{ "capacity", "capacity_tok_s", K_NUM, 0 }, { "capacity", "role", K_STR, 0 },
	{ "ladder", "rates_rps", K_OBJ, 1 },
	{ "probe_sample", "arm", K_STR, 1 }, { "probe_sample", "t_s", K_NUM, 1 },
	{ "probe_sample", "peak_to_mean", K_NUM, 0 },
	{ "probe", "arm", K_STR, 1 }, { "probe", "concentration", K_NUM, 0 },
	{ "probe", "engaged", K_BOOL, 0 }, { "probe", "mode_confirmed", K_BOOL, 0 },
	{ "request", "arm", K_STR, 1 }, { "request", "rate_rps", K_NUM, 0 },
	{ "request", "ttft_ms", K_NUM, 0 }, { "request", "tpot_ms", K_NUM, 0 },
	{ "run", "run", K_STR, 0 }, { "run_end", "achieved_rps", K_NUM, 0 },
};

static const char *const kind_name[] = {
	"", "a number", "an integer", "a string", "a boolean", "an array", "an object",
};

static int kind_ok(const json_t *v, enum kind k)
{
	switch (k) {
	case K_NUM: return json_is_number(v);
	case K_INT: return json_is_integer(v);
	case K_STR: return json_is_string(v);
	case K_BOOL: return json_is_boolean(v);
	case K_ARR: return json_is_array(v);
	case K_OBJ: return json_is_object(v);
	}
	return 0;
}

static void check_record(const json_t *o, const char *type, const char *file, unsigned long line)
{
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		const struct spec *s = &specs[i];
		const json_t *v;

		if (strcmp(s->type, type))
			continue;
		v = json_object_get(o, s->field);
		if (!v || json_is_null(v)) {
			if (s->required)
				gp_die_at(GP_EXIT_DATAERR, file, line, "field '%s' is missing", s->field);
			continue;
		}
		if (!kind_ok(v, s->kind))
			gp_die_at(GP_EXIT_DATAERR, file, line, "field '%s' is not %s",
				  s->field, kind_name[s->kind]);
	}
}

static double num(const json_t *o, const char *k)
{
	double v;

	return o && gp_json_num(o, k, &v) == 0 ? v : NAN;
}

static const char *str(const json_t *o, const char *k, const char *def)
{
	const char *s;

	return o && gp_json_str(o, k, &s) == 0 ? s : def;
}

/* -1 absent or null, 0 false, 1 true. */
static int tri(const json_t *o, const char *k)
{
	int b;

	return o && gp_json_bool(o, k, &b) == 0 ? b : -1;
}

/* Equal strings, or both NULL. */
static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int same_rate(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1, fmax(fabs(a), fabs(b)));
}

static size_t arm_index(struct model *m, const char *arm)
{
	size_t i;

	if (!m->armix)
		m->armix = gp_map_new();
	if ((i = gp_map_add(m->armix, arm)) < m->narms)
		return i;
	m->arms = gp_xrealloc(m->arms, (m->narms + 1) * sizeof(*m->arms));
	m->arms[m->narms] = gp_xstrdup(arm);
	return m->narms++;
}

static void add_request(struct model *m, const json_t *o)
{
	struct req *q;

	GP_XGROW(m->q, m->nq, m->capq, 1024);
	q = &m->q[m->nq++];
	q->arm = arm_index(m, str(o, "arm", ""));
	q->rate = num(o, "rate_rps");
	q->ttft = num(o, "ttft_ms");
	q->tpot = num(o, "tpot_ms");
	m->requests++;
}

static void add_run(struct model *m, const json_t *o)
{
	const char *run = str(o, "run", NULL), *arm = str(o, "arm", NULL);

	if (!run || !arm)
		return;
	GP_XGROW(m->ri, m->nri, m->capri, 64);
	m->ri[m->nri].run = gp_xstrdup(run);
	m->ri[m->nri].arm = gp_xstrdup(arm);
	m->ri[m->nri].rate = num(o, "rate_rps");
	m->nri++;
}

static void index_achieved(struct model *m);

static void load(struct model *m, char **paths, int n)
{
	struct gp_input in;
	json_t *o;
	int rc;

	gp_input_init(&in, paths, n);
	while ((rc = gp_input_next_json(&in, &o)) == GP_NDJSON_LINE) {
		const char *type = gp_json_type(o);
		const char *file = gp_input_name(&in);
		unsigned long line = gp_input_line(&in);

		gp_stop_point(NULL);
		if (!type)
			gp_die_at(GP_EXIT_DATAERR, file, line, "field 'type' is missing");
		check_record(o, type, file, line);
		if (!strcmp(type, "request")) {
			add_request(m, o);
			json_decref(o);
			continue;
		}
		if (!strcmp(type, "run"))
			add_run(m, o);
		if (!strcmp(type, "metrics") || !strcmp(type, "trace") || !strcmp(type, "truth")) {
			json_decref(o);
			continue;
		}
		GP_XGROW(m->r, m->nr, m->capr, 256);
		m->r[m->nr].o = o;
		m->r[m->nr].type = type;
		m->r[m->nr].file = gp_xstrdup(file);
		m->r[m->nr].line = line;
		m->nr++;
	}
	if (rc < 0)
		gp_input_failed(&in, rc);
	gp_input_release(&in);
	index_achieved(m);
}

/* The next record of type after index *i (start with *i = 0); NULL at the end. */
static const json_t *next_of(const struct model *m, const char *type, size_t *i)
{
	for (; *i < m->nr; (*i)++)
		if (!strcmp(m->r[*i].type, type))
			return m->r[(*i)++].o;
	return NULL;
}

static size_t count_of(const struct model *m, const char *type)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nr; i++)
		n += !strcmp(m->r[i].type, type);
	return n;
}

static const json_t *last_of(const struct model *m, const char *type)
{
	const json_t *o = NULL, *x;
	size_t i = 0;

	while ((x = next_of(m, type, &i)))
		o = x;
	return o;
}

/* ---- number formatting (ring of buffers, so several fit one printf) ---- */

enum numfmt { F3, G4, F1, PCT };

static const char *fmt(enum numfmt k, double v)
{
	static char ring[32][48];
	static unsigned n;
	char *b = ring[n++ % 32];

	if (isnan(v))
		return "n/a";
	switch (k) {
	case F3: snprintf(b, sizeof(ring[0]), "%.3f", v); break;
	case G4:	/* 4 significant digits, but 20000, not 2e+04 */
		if (fabs(v) >= 1e4 && fabs(v) < 1e15)
			snprintf(b, sizeof(ring[0]), "%.0f", v);
		else
			snprintf(b, sizeof(ring[0]), "%.4g", v);
		break;
	case F1: snprintf(b, sizeof(ring[0]), "%.1f", v); break;
	case PCT: snprintf(b, sizeof(ring[0]), "%.0f%% ", 100 * v); break;
	}
	return b;
}

static const char *f3(double v) { return fmt(F3, v); }
static const char *g4(double v) { return fmt(G4, v); }
static const char *ms(double v) { return fmt(F1, v); }

static const char *yesno(int t)
{
	return t < 0 ? "not checked" : t ? "yes" : "no";
}

/* "[lo, hi]" of a CI object, or "n/a". */
static const char *ci_text(const json_t *ci, const char *(*f)(double))
{
	static char ring[16][96];
	static unsigned k;
	char *b = ring[k++ % 16];
	double lo = num(ci, "lo"), hi = num(ci, "hi");

	if (isnan(lo) || isnan(hi))
		return "n/a";
	snprintf(b, sizeof(ring[0]), "[%s, %s]%s%s", f(lo), f(hi),
		 tri(ci, "degenerate") == 1 ? " degenerate" : "", tri(ci, "sparse") == 1 ? " sparse" : "");
	return b;
}

/* ---- the protocol: its rates, the moderate rate ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Distinct rates of the request records, ascending; returns how many. */
static size_t request_rates(const struct model *m, double **out)
{
	double *v = gp_xrealloc(NULL, (m->nq + 1) * sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < m->nq; i++)
		if (!isnan(m->q[i].rate))
			v[n++] = m->q[i].rate;
	qsort(v, n, sizeof(*v), cmp_double);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || !same_rate(v[k - 1], v[i]))
			v[k++] = v[i];
	*out = v;
	return k;
}

/* The rate of the CDFs and why it was chosen; NaN when no request has one. */
static double moderate_rate(const struct model *m, const struct opts *o, const char **why)
{
	double *rates, want = NAN, best = NAN;
	size_t n = request_rates(m, &rates), i = 0;
	const json_t *lad = last_of(m, "ladder"), *x;

	while ((x = next_of(m, "ladder", &i)))	/* the binding role's, when one is */
		if (tri(x, "binding") == 1)
			lad = x;

	*why = "the middle rung measured (no ladder record)";
	if (!isnan(o->moderate)) {
		want = o->moderate;
		*why = "--moderate-rps";
	} else if (lad && !isnan(num(json_object_get(lad, "rates_rps"), "moderate"))) {
		want = num(json_object_get(lad, "rates_rps"), "moderate");
		*why = "the ladder's moderate rate";
	}
	if (n && isnan(want))
		best = rates[(n - 1) / 2];
	for (size_t k = 0; k < n && !isnan(want); k++)
		if (isnan(best) || fabs(rates[k] - want) < fabs(best - want))
			best = rates[k];
	if (!isnan(want) && !isnan(best) && !same_rate(best, want))
		*why = !isnan(o->moderate) ? "the rung nearest --moderate-rps" :
			"the rung nearest the ladder's moderate rate";
	free(rates);
	return best;
}

/*
 * The achieved rate of (arm, rate): the arm_summary's achieved_rps where the
 * analysis carries it, else the mean achieved_rps of the run_end records;
 * NaN when neither.
 */
static int rix_cmp(const void *pa, const void *pb)
{
	const struct rix *a = pa, *b = pb;
	int c = strcmp(a->arm, b->arm);

	if (c)
		return c;
	if (a->rate != b->rate)
		return a->rate < b->rate ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int idx_cmp(const void *pa, const void *pb)
{
	const struct rix *a = pa, *b = pb;

	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Index what achieved() reads: the arm_summary records with an achieved
 * rate, and the run_ends with one, their arm and rate from the run header
 * when they carry none (the first header of the run). */
static void index_achieved(struct model *m)
{
	struct gp_map *runs = gp_map_new();
	const json_t *e;
	size_t i = 0, cap = 0;

	for (size_t k = 0; k < m->nri; k++) {
		size_t j = gp_map_count(runs);

		if (gp_map_add(runs, m->ri[k].run) == j)
			gp_map_set_u64(runs, j, k);	/* the first header of the run */
	}
	while ((e = next_of(m, "arm_summary", &i)))
		if (!isnan(num(e, "achieved_rps")) && !isnan(num(e, "rate_rps"))) {
			GP_XGROW(m->ach_sum, m->nsum, cap, 64);
			m->ach_sum[m->nsum++] = (struct rix){str(e, "arm", ""), num(e, "rate_rps"),
							     num(e, "achieved_rps"), i};
		}
	i = 0;
	cap = 0;
	while ((e = next_of(m, "run_end", &i))) {
		const char *a = str(e, "arm", NULL);
		double r = num(e, "rate_rps"), v = num(e, "achieved_rps");
		size_t k = (!a || isnan(r)) ? gp_map_find(runs, str(e, "run", "")) : GP_MAP_NONE;

		if (k != GP_MAP_NONE) {
			k = gp_map_u64(runs, k);
			a = a ? a : m->ri[k].arm;
			r = isnan(r) ? m->ri[k].rate : r;
		}
		if (a && !isnan(r) && !isnan(v)) {
			GP_XGROW(m->ach_end, m->nend, cap, 64);
			m->ach_end[m->nend++] = (struct rix){a, r, v, i};
		}
	}
	gp_map_free(runs);
	if (m->nsum)
		qsort(m->ach_sum, m->nsum, sizeof(*m->ach_sum), rix_cmp);
	if (m->nend)
		qsort(m->ach_end, m->nend, sizeof(*m->ach_end), rix_cmp);
}

/* The records of x[0..n) at (arm, a rate same_rate() as rate), in file
 * order, copied to *out (malloc'd); their number. */
static size_t rix_find(const struct rix *x, size_t n, const char *arm, double rate,
		       struct rix **out)
{
	double w = 2e-9 * fmax(1, fabs(rate));	/* wider than same_rate()'s tolerance */
	struct rix key = {arm, rate - w, 0, 0};
	size_t lo = 0, hi = n, k = 0, cap = 0;

	*out = NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rix_cmp(&x[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && !strcmp(x[lo].arm, arm) && x[lo].rate <= rate + w; lo++)
		if (same_rate(x[lo].rate, rate)) {
			GP_XGROW(*out, k, cap, 8);
			(*out)[k++] = x[lo];
		}
	if (k > 1)
		qsort(*out, k, sizeof(**out), idx_cmp);
	return k;
}

static double achieved(const struct model *m, const char *arm, double rate)
{
	double sum = 0, v;
	struct rix *hit;
	size_t n;

	if (isnan(rate))
		return NAN;
	if (rix_find(m->ach_sum, m->nsum, arm, rate, &hit)) {
		v = hit[0].v;	/* the first arm_summary of the rung */
		free(hit);
		return v;
	}
	free(hit);
	n = rix_find(m->ach_end, m->nend, arm, rate, &hit);
	for (size_t i = 0; i < n; i++)
		sum += hit[i].v;	/* in file order, as before */
	free(hit);
	return n ? sum / (double)n : NAN;
}

/* ---- plots: data files and a gnuplot script per plot in DIR/gnuplot/ ---- */

struct plotter {
	const struct opts *opt;
	char *gdir;		/* DIR/gnuplot */
	int drawn;
};

static FILE *xfopen(const char *path, const char *mode)
{
	FILE *f = fopen(path, mode);

	if (!f)
		gp_die(GP_EXIT_IOERR, "cannot write %s: %s", path, strerror(errno));
	return f;
}

static void xfclose(FILE *f, const char *path)
{
	if (ferror(f) | fclose(f))
		gp_die(GP_EXIT_IOERR, "cannot write %s: %s", path, strerror(errno));
}

/*
 * The first SIGINT/SIGTERM (sig.h): remove `a` and `b` (either may be NULL),
 * the files being written, so that no half file is left under a name a
 * reader takes for whole, and exit 128+N.  Otherwise return.
 */
static void stop_removing(const char *a, const char *b)
{
	if (!gp_sig_stop())
		return;
	if (a)
		unlink(a);
	if (b)
		unlink(b);
	gp_stop_point(NULL);
}

/* A gnuplot string literal: single quotes, '' for a quote, no newlines. */
static void gq(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("''", f);
		else
			fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	fputc('\'', f);
}

/* Last line of gnuplot's messages, for the error. */
static char *log_tail(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], last[512] = "";

	if (!f)
		return gp_xstrdup("");
	while (fgets(line, sizeof(line), f))
		if (line[0] != '\n')
			memcpy(last, line, sizeof(last));
	fclose(f);
	last[strcspn(last, "\n")] = 0;
	return gp_xstrdup(last);
}

/*
 * Write DIR/gnuplot/NAME.gp: the body (the plot commands of body_text,
 * without terminal or output) once for PNG and once for SVG, then run
 * gnuplot on it in DIR/gnuplot.  Exit 69 when gnuplot cannot be started,
 * 70 when it fails or leaves no image.
 */
static void render(struct plotter *p, const char *name, const char *body, int w, int h)
{
	char *gp = gp_xasprintf("%s/%s.gp", p->gdir, name), *logp = gp_xasprintf("%s/%s.log", p->gdir, name);
	char *script = gp_xasprintf("%s.gp", name);
	char *argv[] = { (char *)p->opt->gnuplot, script, NULL };
	char *png = gp_xasprintf("%s/../%s.png", p->gdir, name), *svg = gp_xasprintf("%s/../%s.svg", p->gdir, name);
	FILE *f;
	int fd, rc;
	struct stat sb;

	stop_removing(NULL, NULL);
	f = xfopen(gp, "w");

	fprintf(f, "# gp-report: %s — re-run with: gnuplot %s.gp (in this directory)\n", name, name);
	fprintf(f, "set encoding utf8\nset termoption noenhanced\n");
	fprintf(f, "set terminal pngcairo size %d,%d font 'DejaVu Sans,11' noenhanced\n", w, h);
	fprintf(f, "set output '../%s.png'\n%s\nunset multiplot\nset output\n", name, body);
	fprintf(f, "set terminal svg size %d,%d dynamic font 'DejaVu Sans,11' noenhanced\n", w, h);
	fprintf(f, "set output '../%s.svg'\n%s\nunset multiplot\nset output\n", name, body);
	xfclose(f, gp);
	fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		gp_die(GP_EXIT_IOERR, "cannot write %s: %s", logp, strerror(errno));
	rc = gp_child_run(argv, p->gdir, -1, fd);
	close(fd);
	/* A signal while gnuplot drew (SIGINT from a terminal reaches it too):
	 * its images may be half written. */
	stop_removing(png, svg);
	if (rc == -ENOENT)
		gp_die(GP_EXIT_UNAVAILABLE, "cannot run %s: not found (install gnuplot-nox, or use --no-plots)",
		       p->opt->gnuplot);
	if (rc < 0)
		gp_die(GP_EXIT_UNAVAILABLE, "cannot run %s: %s", p->opt->gnuplot, strerror(-rc));
	if (rc) {
		char *t = log_tail(logp);

		gp_die(GP_EXIT_SOFTWARE, "%s failed on %s (exit %d)%s%s", p->opt->gnuplot, gp, rc,
		       *t ? ": " : "", t);
	}
	if (stat(png, &sb) || sb.st_size == 0)
		gp_die(GP_EXIT_SOFTWARE, "%s wrote no %s (see %s)", p->opt->gnuplot, png, logp);
	p->drawn++;
	free(png);
	free(svg);
	free(gp);
	free(logp);
	free(script);
}

/* A growing string for a script body. */
struct body {
	char *s;
	size_t len;
	FILE *f;
};

static FILE *body_open(struct body *b)
{
	b->s = NULL;
	b->len = 0;
	b->f = open_memstream(&b->s, &b->len);
	if (!b->f)
		gp_die_nomem();
	return b->f;
}

static char *body_close(struct body *b)
{
	if (fclose(b->f))
		gp_die_nomem();
	return b->s;
}

static const char *const colors[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
};
#define COLOR(i) colors[(i) % (sizeof(colors) / sizeof(colors[0]))]

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every arm of the input, sorted, so that an arm has one colour in every plot. */
static void build_palette(struct model *m)
{
	size_t n = 0, k = 0;

	m->pal = gp_xrealloc(NULL, (m->narms + m->nr + 1) * sizeof(*m->pal));
	for (size_t i = 0; i < m->narms; i++)
		m->pal[n++] = m->arms[i];
	for (size_t i = 0; i < m->nr; i++)
		if (str(m->r[i].o, "arm", NULL))
			m->pal[n++] = str(m->r[i].o, "arm", NULL);
	qsort(m->pal, n, sizeof(*m->pal), cmp_str);
	for (size_t i = 0; i < n; i++)
		if (!k || strcmp(m->pal[k - 1], m->pal[i]))
			m->pal[k++] = m->pal[i];
	m->npal = k;
}

static size_t arm_slot(const struct model *m, const char *arm)
{
	const char **hit = bsearch(&arm, m->pal, m->npal, sizeof(*m->pal), cmp_str);

	return hit ? (size_t)(hit - m->pal) : 0;
}

static const char *arm_color(const struct model *m, const char *arm)
{
	return COLOR(arm_slot(m, arm));
}

/* A point type and a dash type per series, so that series drawn on top of
 * each other stay told apart. */
static int point_type(size_t i)
{
	static const int pt[] = { 7, 5, 9, 11, 13, 15 };

	return pt[i % (sizeof(pt) / sizeof(pt[0]))];
}

static int dash_type(size_t i)
{
	return (int)(i % 4) + 1;
}

static void style(FILE *f)
{
	fputs("set grid lw 1 lc rgb '#d8d8d8'\nset border lw 1\n"
	      "set key outside below center horizontal Left reverse samplen 2 maxcols 1 height 1.5\n", f);
}

/* Distinct values of field "arm" over records of type, in input order. */
static size_t arms_of(const struct model *m, const char *type, const char ***out)
{
	const char **v = NULL;
	size_t n = 0, i = 0;
	const json_t *o;

	while ((o = next_of(m, type, &i))) {
		const char *a = str(o, "arm", "");
		size_t k;

		for (k = 0; k < n && strcmp(v[k], a); k++)
			;
		if (k == n) {
			v = gp_xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = a;
		}
	}
	*out = v;
	return n;
}

static const json_t *knee_of(const struct model *m, const char *arm)
{
	const json_t *o, *k = NULL;
	size_t i = 0;

	while ((o = next_of(m, "knee", &i)))
		if (!strcmp(str(o, "arm", ""), arm))
			k = o;
	return k;
}

/* The good-fraction target: the knee's, else the slo record's; NaN: none. */
static double target_of(const struct model *m)
{
	const json_t *k = last_of(m, "knee");
	double t = num(k, "target");

	return isnan(t) ? num(last_of(m, "slo"), "target") : t;
}

struct pt {
	double x, y, lo, hi;
};

static int cmp_pt(const void *a, const void *b)
{
	return cmp_double(&((const struct pt *)a)->x, &((const struct pt *)b)->x);
}

/* The arm's (rate, mean good fraction, CI) points, ascending. */
static size_t arm_curve(const struct model *m, const char *arm, struct pt **out)
{
	struct pt *v = NULL;
	size_t n = 0, i = 0;
	const json_t *o;

	while ((o = next_of(m, "arm_summary", &i))) {
		const json_t *ci = json_object_get(o, "good_fraction_ci");
		double y = num(o, "mean_good_fraction");

		if (strcmp(str(o, "arm", ""), arm) || isnan(y))
			continue;
		v = gp_xrealloc(v, (n + 1) * sizeof(*v));
		v[n].x = num(o, "rate_rps");
		v[n].y = y;
		v[n].lo = isnan(num(ci, "lo")) ? y : num(ci, "lo");
		v[n].hi = isnan(num(ci, "hi")) ? y : num(ci, "hi");
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_pt);
	*out = v;
	return n;
}

/* The arm's key entry: its name, and its knee or why there is none. */
static char *arm_title(const struct model *m, const char *arm, int *has_knee)
{
	const json_t *k = knee_of(m, arm);
	double r = num(k, "rate_rps"), a;

	*has_knee = k && !isnan(r) && !isnan(num(k, "good_fraction"));
	if (!k)
		return gp_xasprintf("%s (no knee record)", arm);
	if (isnan(r))
		return gp_xasprintf("%s (no rung clears the target: no knee)", arm);
	a = achieved(m, arm, r);
	if (isnan(a))
		return gp_xasprintf("%s (knee: %s req/s offered)", arm, g4(r));
	return gp_xasprintf("%s (knee: %s req/s offered, %s req/s achieved)", arm, g4(r), g4(a));
}

static char *dat_name(const char *name, size_t i)
{
	return gp_xasprintf("%s-%zu.dat", name, i);
}

static FILE *dat_open(struct plotter *p, const char *name, size_t i, char **path)
{
	char *n = dat_name(name, i);

	*path = gp_xasprintf("%s/%s", p->gdir, n);
	free(n);
	return xfopen(*path, "w");
}

static void plot_goodfrac_arm(struct plotter *p, const struct model *m, FILE *f, size_t a,
			      const char *arm, double *xmax, double yr[2])
{
	struct pt *v;
	size_t n = arm_curve(m, arm, &v);
	const json_t *k = knee_of(m, arm);
	int has_knee;
	char *path, *title = arm_title(m, arm, &has_knee);
	FILE *d = dat_open(p, "goodfrac", a, &path);

	fprintf(d, "# arm %s: rate_rps mean_good_fraction ci_lo ci_hi (arm_summary)\n", arm);
	for (size_t i = 0; i < n; i++) {
		fprintf(d, "%.17g %.17g %.17g %.17g\n", v[i].x, v[i].y, v[i].lo, v[i].hi);
		*xmax = fmax(*xmax, v[i].x);
		yr[0] = fmin(yr[0], v[i].lo);
		yr[1] = fmax(yr[1], v[i].hi);
	}
	if (has_knee)
		fprintf(d, "\n\n# knee: rate_rps good_fraction (knee)\n%.17g %.17g\n",
			num(k, "rate_rps"), num(k, "good_fraction"));
	xfclose(d, path);
	/* A dash type per arm, and knee circles of a size per arm: arms whose
	 * curves or knees coincide stay told apart. */
	fprintf(f, "%s'goodfrac-%zu.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 dt %d pt %d ps 0.9 lc rgb '%s' title ",
		a ? ", \\\n     " : "", a, dash_type(arm_slot(m, arm)), point_type(arm_slot(m, arm)),
		arm_color(m, arm));
	gq(f, title);
	if (has_knee)
		fprintf(f, ", \\\n     'goodfrac-%zu.dat' index 1 using 1:2 with points pt 6 ps %.1f lw 2 lc rgb '%s' notitle",
			a, 3.0 + 1.2 * (double)(arm_slot(m, arm) % 4), arm_color(m, arm));
	free(title);
	free(path);
	free(v);
}

static int plot_goodfrac(struct plotter *p, const struct model *m)
{
	const char **arms;
	size_t na = arms_of(m, "arm_summary", &arms);
	struct body b, pl;
	FILE *f, *g;
	double xmax = 0, t = target_of(m), yr[2] = { 0, 1 };
	char *body, *plot;

	if (!na) {
		free(arms);
		return 0;
	}
	f = body_open(&b);
	g = body_open(&pl);
	style(f);
	fputs("set title 'Good fraction vs offered rate (bars: CI over reps; open circle: the knee)'\n"
	      "set xlabel 'offered rate (req/s)'\n"
	      "set ylabel 'good fraction (TTFT and TPOT within the SLO)'\nset ytics 0.1\n", f);
	fputs("plot ", g);
	for (size_t a = 0; a < na; a++)
		plot_goodfrac_arm(p, m, g, a, arms[a], &xmax, yr);
	plot = body_close(&pl);
	fprintf(f, "set xrange [0:%.17g]\n", xmax > 0 ? xmax * 1.08 : 1);
	/* the whole of every interval is shown, even past 0 or 1 */
	fprintf(f, "set yrange [%.17g:%.17g]\n", yr[0] < 0 ? yr[0] - 0.02 : 0, fmax(1.05, yr[1] + 0.02));
	if (!isnan(t))
		fprintf(f, "set arrow from graph 0, first %.17g to graph 1, first %.17g nohead dt 2 lw 1.5 lc rgb '#444444'\n"
			"set label 'target %s' at graph 0.01, first %.17g offset 0,-0.8 tc rgb '#444444'\n",
			t, t, g4(t), t);
	fprintf(f, "%s\n", plot);
	body = body_close(&b);
	render(p, "goodfrac", body, 900, 620);
	free(body);
	free(plot);
	free(arms);
	return 1;
}

/* Values of metric (0 TTFT, 1 TPOT) of arm's requests at rate, ascending;
 * *attempted gets the arm's request count there. */
static size_t arm_values(const struct model *m, size_t arm, double rate, int metric,
			 double **out, long *attempted)
{
	double *v = gp_xrealloc(NULL, (m->nq + 1) * sizeof(*v));
	size_t n = 0;

	*attempted = 0;
	for (size_t i = 0; i < m->nq; i++) {
		const struct req *q = &m->q[i];
		double x = metric ? q->tpot : q->ttft;

		if (q->arm != arm || !same_rate(q->rate, rate))
			continue;
		(*attempted)++;
		if (!isnan(x))
			v[n++] = x;
	}
	qsort(v, n, sizeof(*v), cmp_double);
	*out = v;
	return n;
}

#define CDF_POINTS 1500

static int plot_cdf(struct plotter *p, const struct model *m, double rate, int metric)
{
	const char *what = metric ? "TPOT" : "TTFT", *name = metric ? "tpot_cdf" : "ttft_cdf";
	double slo = num(last_of(m, "slo"), metric ? "tpot_ms" : "ttft_ms"), xmax = 0;
	struct body b;
	FILE *f = body_open(&b);
	char *body;
	int any = 0;

	style(f);
	fprintf(f, "set title '%s CDF per arm at %s req/s (requests with a %s)'\n", what, g4(rate), what);
	fprintf(f, "set xlabel '%s (ms)'\nset ylabel 'fraction of requests with %s <= x'\n", what, what);
	fprintf(f, "set yrange [0:1.02]\nset ytics 0.1\n");
	fputs("plot ", f);
	for (size_t a = 0; a < m->narms; a++) {
		double *v;
		long att;
		size_t n = arm_values(m, a, rate, metric, &v, &att);
		char *path, *t;
		FILE *d;

		if (!att) {
			free(v);
			continue;
		}
		d = dat_open(p, name, a, &path);
		fprintf(d, "# arm %s at %.17g req/s: %s_ms ecdf (%zu of %ld requests)\n",
			m->arms[a], rate, metric ? "tpot" : "ttft", n, att);
		if (n)
			fprintf(d, "%.17g 0\n", v[0]);
		for (size_t i = 0; i < n; i++) {
			size_t step = n > CDF_POINTS ? n / CDF_POINTS : 1;

			if (i % step == 0 || i == n - 1)
				fprintf(d, "%.17g %.17g\n", v[i], (double)(i + 1) / (double)n);
		}
		xmax = n ? fmax(xmax, v[n - 1]) : xmax;
		xfclose(d, path);
		t = gp_xasprintf("%s (%zu of %ld requests have a %s)", m->arms[a], n, att, what);
		/* Drawn first, drawn widest: a curve that another covers exactly
		 * still shows at its edges (and in its dashes). */
		fprintf(f, "%s'%s-%zu.dat' using 1:2 with steps lw %.1f dt %d lc rgb '%s' title ",
			any ? ", \\\n     " : "", name, a, 2.0 + 2.0 * (double)((m->narms - 1 - a) % 3),
			dash_type(arm_slot(m, m->arms[a])), arm_color(m, m->arms[a]));
		gq(f, t);
		any = 1;
		free(t);
		free(path);
		free(v);
	}
	if (!isnan(slo))
		fprintf(f, ", \\\n     NaN with lines dt 2 lw 2 lc rgb '#000000' title '%s SLO %s ms'", what, g4(slo));
	fputc('\n', f);
	body = body_close(&b);
	if (any) {
		char *line = isnan(slo) ? gp_xstrdup("") :
			gp_xasprintf("set arrow from first %.17g, graph 0 to first %.17g, graph 1 nohead dt 2 lw 2 lc rgb '#000000'\n",
				  slo, slo);
		char *full;

		if (!isnan(slo))
			xmax = fmax(xmax, slo);
		full = gp_xasprintf("set xrange [0:%.17g]\n%s%s", xmax > 0 ? xmax * 1.05 : 1, line, body);
		render(p, name, full, 900, 560);
		free(full);
		free(line);
	}
	free(body);
	return any;
}

static const json_t *probe_of(const struct model *m, const char *arm)
{
	const json_t *o, *k = NULL;
	size_t i = 0;

	while ((o = next_of(m, "probe", &i)))
		if (!strcmp(str(o, "arm", ""), arm))
			k = o;
	return k;
}

static int plot_probe(struct plotter *p, const struct model *m)
{
	const char **arms;
	size_t na = arms_of(m, "probe_sample", &arms);
	struct body b;
	FILE *f;
	char *body;

	if (!na) {
		free(arms);
		return 0;
	}
	f = body_open(&b);
	style(f);
	fputs("set title 'Mechanism probe: in-flight concentration over time (peak / mean over backends)'\n"
	      "set xlabel 'time since the probe started (s)'\n"
	      "set ylabel 'peak-to-mean in-flight load (1 = even)'\n"
	      "set yrange [0:*]\nset offsets 0, 0, graph 0.06, 0\nset arrow from graph 0, first 1 to graph 1, first 1 nohead dt 3 lc rgb '#666666'\n"
	      "plot ", f);
	for (size_t a = 0; a < na; a++) {
		const json_t *o, *pr = probe_of(m, arms[a]);
		size_t i = 0;
		char *path, *t;
		FILE *d = dat_open(p, "probe", a, &path);

		fprintf(d, "# arm %s: t_s peak_to_mean (probe_sample; idle samples skipped; "
			"a blank line between probe rounds)\n", arms[a]);
		const char *round = NULL;
		double t0 = -INFINITY;

		while ((o = next_of(m, "probe_sample", &i))) {
			if (strcmp(str(o, "arm", ""), arms[a]) || isnan(num(o, "peak_to_mean")))
				continue;
			/* Each probe round starts its clock at 0: a line back to it
			 * would be drawn across the plot. */
			if (round && (!same_str(round, str(o, "run", NULL)) || num(o, "t_s") < t0))
				fputc('\n', d);
			round = str(o, "run", "");
			t0 = num(o, "t_s");
			fprintf(d, "%.17g %.17g\n", t0, num(o, "peak_to_mean"));
		}
		xfclose(d, path);
		if (pr)
			t = gp_xasprintf("%s (expect %s: concentration %s, %s)", arms[a],
				      str(pr, "expect", "?"), g4(num(pr, "concentration")),
				      tri(pr, "engaged") == 1 ? "engaged" : "NOT engaged");
		else
			t = gp_xasprintf("%s (no probe verdict record)", arms[a]);
		fprintf(f, "%s'probe-%zu.dat' using 1:2 with linespoints lw 2 pt %d ps 0.6 lc rgb '%s' title ",
			a ? ", \\\n     " : "", a, point_type(arm_slot(m, arms[a])), arm_color(m, arms[a]));
		gq(f, t);
		free(t);
		free(path);
	}
	fputc('\n', f);
	body = body_close(&b);
	render(p, "probe", body, 900, 560);
	free(body);
	free(arms);
	return 1;
}

/* The queue-depth field calib_step records carry, or NULL. */
static const char *const depth_fields[] = {
	"queue_mean", "queue_depth_max", "queue_depth", "peak_inflight", NULL,
};

static const char *depth_field(const struct model *m)
{
	for (size_t k = 0; depth_fields[k]; k++) {
		const json_t *o;
		size_t i = 0;

		while ((o = next_of(m, "calib_step", &i)))
			if (!isnan(num(o, depth_fields[k])))
				return depth_fields[k];
	}
	return NULL;
}

static const char *endpoint_of(const json_t *o)
{
	return str(o, "endpoint", str(o, "target", "endpoint"));
}

/* "name (endpoint)" when the record names the backend, else the endpoint. */
static const char *endpoint_label(const json_t *o)
{
	static char ring[8][512];
	static unsigned k;
	char *b = ring[k++ % 8];

	if (!str(o, "backend", NULL))
		return endpoint_of(o);
	snprintf(b, sizeof(ring[0]), "%s (%s)", str(o, "backend", ""), endpoint_of(o));
	return b;
}

static void calib_data(struct plotter *p, const struct model *m, const char *ep, size_t e,
		       const char *depth)
{
	const json_t *o;
	size_t i = 0;
	char *path;
	FILE *d = dat_open(p, "calib", e, &path);

	fprintf(d, "# endpoint %s: offered_rps delivered_tok_s %s suspect (calib_step)\n", ep,
		depth ? depth : "queue_diverging");
	double x0 = -INFINITY;

	while ((o = next_of(m, "calib_step", &i))) {
		double q = depth ? num(o, depth) : tri(o, "queue_diverging") == 1;

		if (strcmp(endpoint_of(o), ep))
			continue;
		if (num(o, "offered_rps") < x0)	/* another calibration of it: its own line */
			fputc('\n', d);
		x0 = num(o, "offered_rps");
		fprintf(d, "%.17g %.17g %.17g %d\n", num(o, "offered_rps"), num(o, "delivered_tok_s"),
			q, tri(o, "suspect") == 1);
	}
	xfclose(d, path);
	free(path);
}

/* The capacity_tok_s of endpoint ep's (last) capacity record, or NaN. */
static double capacity_of(const struct model *m, const char *ep)
{
	const json_t *o;
	size_t i = 0;
	double c = NAN;

	while ((o = next_of(m, "capacity", &i)))
		if (!strcmp(endpoint_of(o), ep))
			c = num(o, "capacity_tok_s");
	return c;
}

static int plot_calib(struct plotter *p, const struct model *m)
{
	const char **eps = NULL, *depth = depth_field(m);
	char **labels;
	size_t ne = 0, i = 0;
	const json_t *o;
	struct body b;
	FILE *f;
	char *body;

	while ((o = next_of(m, "calib_step", &i))) {
		size_t k;

		for (k = 0; k < ne && strcmp(eps[k], endpoint_of(o)); k++)
			;
		if (k == ne) {
			eps = gp_xrealloc(eps, (ne + 1) * sizeof(*eps));
			eps[ne++] = endpoint_of(o);
		}
	}
	if (!ne)
		return 0;
	labels = gp_xrealloc(NULL, ne * sizeof(*labels));
	for (size_t e = 0; e < ne; e++) {
		for (i = 0; (o = next_of(m, "calib_step", &i)) && strcmp(endpoint_of(o), eps[e]);)
			;
		labels[e] = gp_xstrdup(endpoint_label(o));
	}
	f = body_open(&b);
	style(f);
	fputs("set multiplot layout 2,1 title 'Calibration: each endpoint driven directly "
	      "(crosses: SUSPECT steps; dotted: its capacity)'\n"
	      "set lmargin 12\nset logscale x 2\nset xlabel 'offered rate (req/s, log scale)'\n"
	      "set ylabel 'delivered (tokens/s)'\nset yrange [0:*]\nset offsets 0, 0, graph 0.06, 0\nplot ", f);
	for (size_t e = 0; e < ne; e++) {
		calib_data(p, m, eps[e], e, depth);
		fprintf(f, "%s'calib-%zu.dat' using 1:2 with linespoints lw 2 dt %d pt %d ps 0.8 lc rgb '%s' title ",
			e ? ", \\\n     " : "", e, dash_type(e), point_type(e), COLOR(e));
		gq(f, labels[e]);
		fprintf(f, ", \\\n     'calib-%zu.dat' using 1:($4 > 0 ? $2 : 1/0) with points pt 2 ps 2.5 lw 2 lc rgb '%s' notitle",
			e, COLOR(e));
		if (!isnan(capacity_of(m, eps[e])))
			fprintf(f, ", \\\n     %.17g with lines dt 3 lw 1.5 lc rgb '%s' notitle",
				capacity_of(m, eps[e]), COLOR(e));
	}
	if (depth)
		fprintf(f, "\nunset key\nset ylabel 'queue depth in the hold (%s, requests)'\nplot ", depth);
	else
		fputs("\nunset key\nset ylabel 'queue diverging (1 = yes; no depth in the records)'\nset yrange [-0.1:1.1]\nplot ", f);
	for (size_t e = 0; e < ne; e++) {
		fprintf(f, "%s'calib-%zu.dat' using 1:3 with linespoints lw 2 dt %d pt %d ps 0.8 lc rgb '%s' title ",
			e ? ", \\\n     " : "", e, dash_type(e), point_type(e), COLOR(e));
		gq(f, labels[e]);
	}
	fputc('\n', f);
	body = body_close(&b);
	render(p, "calib", body, 900, 800);
	free(body);
	for (size_t e = 0; e < ne; e++)
		free(labels[e]);
	free(labels);
	free(eps);
	return 1;
}

/* ---- the report's sections ---- */

#define TABLE(d, align, ...) do { \
		static const char *const h_[] = { __VA_ARGS__ }; \
		gp_doc_table(d, sizeof(h_) / sizeof(h_[0]), h_, align); \
	} while (0)

static void not_measured(struct gp_doc *d, const char *what)
{
	gp_doc_para(d, "Not measured: %s.", what);
}

/* Strings of a JSON array joined by sep (caller frees). */
static char *joined(const json_t *arr, const char *sep)
{
	size_t i;
	json_t *v;
	char *s = gp_xstrdup("");

	json_array_foreach(arr, i, v) {
		char *t = gp_xasprintf("%s%s%s", s, i ? sep : "", json_is_string(v) ? json_string_value(v) : "?");

		free(s);
		s = t;
	}
	return s;
}

static void sec_verdict(struct gp_doc *d, const struct model *m)
{
	const json_t *v = last_of(m, "verdict"), *x;
	size_t i;

	gp_doc_heading(d, 2, "Verdict");
	if (!v) {
		not_measured(d, "no verdict record (gp-verify publish writes it)");
		return;
	}
	gp_doc_para(d, "%s — %s", tri(v, "publishable") == 1 ? "PUBLISHABLE" : "NOT PUBLISHABLE",
		    tri(v, "publishable") == 1 ? "every gate of gp-verify publish passed." :
		    "gp-verify publish gave these reasons:");
	json_array_foreach(json_object_get(v, "reasons"), i, x)
		gp_doc_item(d, "%s", json_is_string(x) ? json_string_value(x) : "?");
	json_array_foreach(json_object_get(v, "footnotes"), i, x)
		gp_doc_item(d, "footnote: %s", json_is_string(x) ? json_string_value(x) : "?");
}

/* "est [lo, hi]" of a value and its interval object (when there is one). */
static const char *with_ci(double est, const json_t *ci)
{
	static char ring[16][160];
	static unsigned k;
	char *b = ring[k++ % 16];

	if (isnan(est))
		return "n/a";
	if (!ci || isnan(num(ci, "lo")))
		return g4(est);
	snprintf(b, sizeof(ring[0]), "%s %s", g4(est), ci_text(ci, g4));
	return b;
}

static void knee_compare_table(struct gp_doc *d, const struct model *m)
{
	const json_t *o;
	size_t i = 0;

	if (!count_of(m, "knee_compare"))
		return;
	gp_doc_para(d, "Goodput at the knee against the floor arm's (Welch's interval of the difference over reps):");
	TABLE(d, "llrrllll", "arm", "vs", "knee (req/s)", "floor knee (req/s)", "diff goodput", "CI", "verdict",
	      "per accelerator");
	while ((o = next_of(m, "knee_compare", &i))) {
		gp_doc_cell(d, "%s", str(o, "arm", ""));
		gp_doc_cell(d, "%s", str(o, "vs", ""));
		gp_doc_cell(d, "%s", g4(num(o, "rate_rps")));
		gp_doc_cell(d, "%s", g4(num(o, "rate_rps_vs")));
		gp_doc_cell(d, "%s", g4(num(o, "diff_goodput")));
		gp_doc_cell(d, "%s", ci_text(o, g4));
		gp_doc_cell(d, "%s%s%s", str(o, "verdict", "n/a"), str(o, "reason", NULL) ? ": " : "",
			    str(o, "reason", ""));
		gp_doc_cell(d, "%s", yesno(tri(o, "per_accel")));
	}
}

static void sec_knee(struct gp_doc *d, const struct model *m)
{
	const json_t *k;
	size_t i = 0;

	gp_doc_heading(d, 2, "goodput@SLO (the knee)");
	if (!count_of(m, "knee")) {
		not_measured(d, "no knee records (gp-analyze writes one per arm)");
		return;
	}
	gp_doc_para(d, "The knee is the highest offered rate whose mean good fraction clears the target; "
		    "goodput is the good requests per second there, with its interval over reps where the "
		    "records carry one.");
	TABLE(d, "lrrrrlrll", "arm", "knee (req/s offered)", "achieved (req/s)", "good fraction", "target",
	      "goodput (req/s)", "accelerators", "goodput per accelerator (req/s)", "crossing (req/s)");
	while ((k = next_of(m, "knee", &i))) {
		double r = num(k, "rate_rps"), a = num(k, "achieved_rps");

		if (isnan(a) && !isnan(r))
			a = achieved(m, str(k, "arm", ""), r);
		gp_doc_cell(d, "%s", str(k, "arm", ""));
		gp_doc_cell(d, "%s", isnan(r) ? "none clears" : g4(r));
		gp_doc_cell(d, "%s", g4(a));
		gp_doc_cell(d, "%s", f3(num(k, "good_fraction")));
		gp_doc_cell(d, "%s", g4(num(k, "target")));
		gp_doc_cell(d, "%s", with_ci(num(k, "goodput_rps"), json_object_get(k, "goodput_ci")));
		gp_doc_cell(d, "%s", g4(num(k, "accelerators")));
		gp_doc_cell(d, "%s", isnan(num(k, "goodput_rps_per_accel")) && str(k, "accelerators_reason", NULL) ?
			    str(k, "accelerators_reason", "") :
			    with_ci(num(k, "goodput_rps_per_accel"), json_object_get(k, "goodput_per_accel_ci")));
		gp_doc_cell(d, "%s", with_ci(num(k, "crossing_rate_rps"), json_object_get(k, "crossing_ci")));
	}
	i = 0;
	while ((k = next_of(m, "knee", &i)))
		if (str(k, "edge", NULL))
			gp_doc_item(d, "%s: the knee is at the %s edge of the ladder%s%s", str(k, "arm", ""),
				    str(k, "edge", ""), str(k, "advice", NULL) ? " — " : "", str(k, "advice", ""));
	knee_compare_table(d, m);
}

static void sec_slo(struct gp_doc *d, const struct model *m)
{
	const json_t *s = last_of(m, "slo");
	const char *origin = str(s, "origin", NULL);

	gp_doc_heading(d, 2, "SLO and its origin");
	if (!s) {
		not_measured(d, "no slo record (gp-analyze writes it)");
		return;
	}
	gp_doc_para(d, "A request is good when TTFT <= %s ms AND TPOT <= %s ms; every attempted request is in "
		    "the denominator and a failed one is a miss.", ms(num(s, "ttft_ms")), g4(num(s, "tpot_ms")));
	if (origin && !strcmp(origin, "baseline"))
		gp_doc_para(d, "Origin: baseline — %s x the %s of %s ok requests of the unloaded baseline%s%s.",
			    g4(num(s, "multiple")), str(s, "baseline_stat", "?"),
			    g4(num(s, "baseline_requests")), str(s, "baseline_file", NULL) ? " in " : "",
			    str(s, "baseline_file", ""));
	else
		gp_doc_para(d, "Origin: %s.", origin ? origin : "not stated in the record");
	if (str(s, "baseline_arm", NULL) || !isnan(num(s, "baseline_rate_rps")) || str(s, "baseline_url", NULL))
		gp_doc_para(d, "Baseline: arm %s at %s req/s through %s; it passed validity: %s; its rate is at or "
			    "below the lowest rung: %s; the arms' URL: %s.", str(s, "baseline_arm", "n/a"),
			    g4(num(s, "baseline_rate_rps")), str(s, "baseline_url", "a URL not recorded"),
			    yesno(tri(s, "baseline_validity")), yesno(tri(s, "baseline_low_rate")),
			    yesno(tri(s, "baseline_same_url")));
	if (!isnan(num(s, "seed")) || !isnan(num(s, "level")))
		gp_doc_para(d, "Analysis settings: seed %s, %s resamples, confidence level %s, knee target %s, "
			    "minimum reps for a verdict %s, accelerators %s%s%s.", g4(num(s, "seed")),
			    g4(num(s, "resamples")), g4(num(s, "level")), g4(num(s, "target")), g4(num(s, "min_reps")),
			    g4(num(s, "accelerators")), str(s, "accelerators_from", NULL) ? " from " : "",
			    str(s, "accelerators_from", ""));
	TABLE(d, "rrlllr", "TTFT SLO (ms)", "TPOT SLO (ms)", "origin", "baseline statistic", "single-token requests",
	      "multiple");
	gp_doc_cell(d, "%s", g4(num(s, "ttft_ms")));
	gp_doc_cell(d, "%s", g4(num(s, "tpot_ms")));
	gp_doc_cell(d, "%s", origin ? origin : "n/a");
	gp_doc_cell(d, "%s", str(s, "baseline_stat", "n/a"));
	gp_doc_cell(d, "%s", str(s, "single_token", "n/a"));
	gp_doc_cell(d, "%s", g4(num(s, "multiple")));
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = NULL;
	size_t len = 0, got;
	char buf[8192];

	if (!f)
		gp_die(GP_EXIT_DATAERR, "%s: cannot read: %s", path, strerror(errno));
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
		s = gp_xrealloc(s, len + got + 1);
		memcpy(s + len, buf, got);
		len += got;
	}
	if (ferror(f))
		gp_die(GP_EXIT_DATAERR, "%s: cannot read: %s", path, strerror(errno));
	fclose(f);
	if (!s)
		s = gp_xstrdup("");
	s[len] = 0;
	if (memchr(s, 0, len))
		gp_die(GP_EXIT_DATAERR, "%s: not a text file", path);
	return s;
}

static void sec_protocol(struct gp_doc *d, const struct model *m, const struct opts *o)
{
	const json_t *p;
	size_t i = 0;
	int any = 0;

	gp_doc_heading(d, 2, "Protocol");
	if (o->protocol) {
		char *text = slurp(o->protocol);

		gp_doc_para(d, "Pre-registered in %s, echoed whole:", o->protocol);
		gp_doc_pre(d, text);
		free(text);
		any = 1;
	}
	while ((p = next_of(m, "protocol", &i))) {
		char *text = json_dumps(p, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		gp_doc_para(d, "Protocol record (%s:%lu):", m->r[i - 1].file, m->r[i - 1].line);
		gp_doc_pre(d, text ? text : "?");
		free(text);
		any = 1;
	}
	if (!any)
		not_measured(d, "no protocol given (--protocol FILE) and no protocol record in the input");
}

/* ---- phase 0: health, summarized.  A campaign checks health before every
 * run, so the records run to thousands: one row per (arm, check, backend or
 * VIP) with its counts and its first and last failure, then the first few
 * failures and not-ready rounds with the file:line of each record. */

#define HEALTH_LISTED 5		/* failures (and not-ready rounds) listed in full */

struct hgroup {
	const char *arm, *check, *name, *target;	/* borrowed from the records */
	size_t checks, passed;
	size_t first, last;	/* record indexes of the first and last failure */
};

/* The groups of the health records, in the order each first appears. */
static struct hgroup *health_groups(const struct model *m, size_t *ng)
{
	struct hgroup *g = NULL;
	const json_t *o;
	size_t i = 0, n = 0, cap = 0, k;

	while ((o = next_of(m, "health", &i))) {
		const char *arm = str(o, "arm", NULL), *check = str(o, "check", ""),
			   *name = str(o, "name", NULL), *target = str(o, "target", NULL);

		for (k = 0; k < n; k++)
			if (same_str(g[k].arm, arm) && !strcmp(g[k].check, check) &&
			    same_str(g[k].name, name) && same_str(g[k].target, target))
				break;
		if (k == n) {
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				g = gp_xrealloc(g, cap * sizeof(*g));
			}
			g[n++] = (struct hgroup){ arm, check, name, target, 0, 0, SIZE_MAX, SIZE_MAX };
		}
		g[k].checks++;
		if (tri(o, "ok") == 1)
			g[k].passed++;
		else {
			if (g[k].first == SIZE_MAX)
				g[k].first = i - 1;
			g[k].last = i - 1;
		}
	}
	*ng = n;
	return g;
}

/* "AT: DETAIL (FILE:LINE)" of health record r, the detail cut at 80 bytes;
 * a freshly allocated string. */
static char *health_failure(const struct model *m, size_t r)
{
	const json_t *o = m->r[r].o;
	const char *det = str(o, "detail", str(o, "error", ""));

	return gp_xasprintf("%s: %.80s%s (%s:%lu)", str(o, "at", "time not recorded"), det,
			 strlen(det) > 80 ? "…" : "", m->r[r].file, m->r[r].line);
}

/* The last column (the one the HTML page wraps): the first and the last failure. */
static void health_failures_cell(struct gp_doc *d, const struct model *m, const struct hgroup *g)
{
	char *first, *last;

	if (g->first == SIZE_MAX) {
		gp_doc_cell(d, "—");
		return;
	}
	first = health_failure(m, g->first);
	if (g->last == g->first) {
		gp_doc_cell(d, "once: %s", first);
		free(first);
		return;
	}
	last = health_failure(m, g->last);
	gp_doc_cell(d, "first %s; last %s", first, last);
	free(first);
	free(last);
}

static void health_rounds(struct gp_doc *d, const struct model *m)
{
	const json_t *o;
	size_t i = 0, n = count_of(m, "health_summary"), ready = 0, shown = 0;

	if (!n)
		return;
	while ((o = next_of(m, "health_summary", &i)))
		ready += tri(o, "ready") == 1;
	gp_doc_para(d, "%zu health round%s (gp-health runs): %zu READY, %zu NOT READY.", n,
		    n == 1 ? "" : "s", ready, n - ready);
	i = 0;
	while ((o = next_of(m, "health_summary", &i)) && shown < HEALTH_LISTED) {
		if (tri(o, "ready") == 1)
			continue;
		char *failed = joined(json_object_get(o, "failed_checks"), ", ");
		char *cut = joined(json_object_get(o, "not_run_checks"), ", ");
		int stopped = tri(o, "interrupted") == 1;

		gp_doc_item(d, "health summary (%s%s%s%s): NOT READY%s%s%s%s%s (%s:%lu)",
			    str(o, "arm", NULL) ? "arm " : "", str(o, "arm", ""), str(o, "arm", NULL) ? ", " : "",
			    str(o, "at", "time not recorded"), *failed ? " — failed: " : "", failed,
			    stopped ? " — interrupted" : "", stopped && *cut ? ", not run: " : "", stopped ? cut : "",
			    m->r[i - 1].file, m->r[i - 1].line);
		free(failed);
		free(cut);
		shown++;
	}
	if (n - ready > shown)
		gp_doc_para(d, "… and %zu more NOT READY rounds (jq 'select(.type == \"health_summary\" and "
			    ".ready != true)').", n - ready - shown);
}

static void health_failures(struct gp_doc *d, const struct model *m, size_t bad)
{
	const json_t *o;
	size_t i = 0, shown = 0;

	if (!bad)
		return;
	gp_doc_para(d, "The first %zu of %zu failed checks, each with its record (every failure is in "
		    "the record files: jq 'select(.type == \"health\" and .ok != true)'):",
		    bad < HEALTH_LISTED ? bad : HEALTH_LISTED, bad);
	while ((o = next_of(m, "health", &i)) && shown < HEALTH_LISTED) {
		if (tri(o, "ok") == 1)
			continue;
		gp_doc_item(d, "%s:%lu: %s %s%s%s at %s: %s", m->r[i - 1].file, m->r[i - 1].line,
			    str(o, "check", ""), str(o, "name", ""), str(o, "name", NULL) ? " " : "",
			    str(o, "target", ""), str(o, "at", "time not recorded"),
			    str(o, "detail", str(o, "error", "")));
		shown++;
	}
}

static void sec_health(struct gp_doc *d, const struct model *m)
{
	size_t n = count_of(m, "health"), ng, bad = 0;
	struct hgroup *g;

	gp_doc_heading(d, 2, "Phase 0: health");
	if (!n && !count_of(m, "health_summary")) {
		not_measured(d, "no health or health_summary records (gp-health)");
		return;
	}
	health_rounds(d, m);
	g = health_groups(m, &ng);
	for (size_t k = 0; k < ng; k++)
		bad += g[k].checks - g[k].passed;
	gp_doc_para(d, "%zu checks, %zu failed.", n, bad);
	if (ng) {
		TABLE(d, "lllrrl", "arm", "check", "backend or VIP", "checks", "passed",
		      "failures (first, last)");
		for (size_t k = 0; k < ng; k++) {
			gp_doc_cell(d, "%s", g[k].arm ? g[k].arm : "—");
			gp_doc_cell(d, "%s", g[k].check);
			if (g[k].name && g[k].target)
				gp_doc_cell(d, "%s (%s)", g[k].name, g[k].target);
			else
				gp_doc_cell(d, "%s", g[k].target ? g[k].target : g[k].name ? g[k].name : "n/a");
			gp_doc_cell(d, "%zu", g[k].checks);
			gp_doc_cell(d, "%zu", g[k].passed);
			health_failures_cell(d, m, &g[k]);
		}
	}
	free(g);
	health_failures(d, m, bad);
}

static void sec_calib(struct gp_doc *d, const struct model *m, int drawn)
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 2, "Phase 1: calibration");
	if (!count_of(m, "calib_step") && !count_of(m, "capacity") && !count_of(m, "ladder")) {
		not_measured(d, "no calib_step, capacity or ladder records (gp-calibrate)");
		return;
	}
	if (count_of(m, "capacity")) {
		TABLE(d, "llrrlll", "endpoint", "role", "capacity (tok/s)", "plateau steps", "saturated",
		      "suspect", "verdict");
		while ((o = next_of(m, "capacity", &i))) {
			const json_t *ps = json_object_get(o, "plateau_steps");

			gp_doc_cell(d, "%s", endpoint_label(o));
			gp_doc_cell(d, "%s", str(o, "role", "n/a"));
			gp_doc_cell(d, "%s", g4(num(o, "capacity_tok_s")));
			gp_doc_cell(d, "%s", json_is_array(ps) ? g4((double)json_array_size(ps)) : g4(num(o, "plateau_steps")));
			gp_doc_cell(d, "%s", yesno(tri(o, "saturated")));
			gp_doc_cell(d, "%s", yesno(tri(o, "suspect")));
			char *why = joined(json_object_get(o, "reasons"), ", ");

			gp_doc_cell(d, "%s%s%s", str(o, "verdict", "n/a"), *why ? ": " : "", why);
			free(why);
		}
	} else
		not_measured(d, "no capacity records");
	i = 0;
	if (count_of(m, "ladder")) {
		TABLE(d, "llrrr", "role", "reference", "unsaturated (req/s)", "moderate (req/s)", "saturated (req/s)");
		while ((o = next_of(m, "ladder", &i))) {
			const json_t *r = json_object_get(o, "rates_rps"), *ref = json_object_get(o, "reference");
			char *refs = json_is_string(ref) ? gp_xstrdup(json_string_value(ref)) :
				     ref ? json_dumps(ref, JSON_COMPACT) : gp_xstrdup("n/a");

			gp_doc_cell(d, "%s", str(o, "role", "n/a"));
			gp_doc_cell(d, "%s", refs ? refs : "?");
			gp_doc_cell(d, "%s", g4(num(r, "unsaturated")));
			gp_doc_cell(d, "%s", g4(num(r, "moderate")));
			gp_doc_cell(d, "%s", g4(num(r, "saturated")));
			free(refs);
		}
	} else
		not_measured(d, "no ladder record");
	if (drawn)
		gp_doc_figure(d, "calib.png", "calib.svg",
			      "Calibration steps: delivered tokens/s and queue depth against the offered rate, per endpoint.");
	if (!count_of(m, "calib_step"))
		return;
	TABLE(d, "lrrrrlll", "endpoint", "step", "offered (req/s)", "delivered (tok/s)", "gain (%)",
	      "queue diverging", "suspect", "rerun");
	i = 0;
	while ((o = next_of(m, "calib_step", &i))) {
		gp_doc_cell(d, "%s", endpoint_label(o));
		gp_doc_cell(d, "%s", g4(num(o, "step")));
		gp_doc_cell(d, "%s", g4(num(o, "offered_rps")));
		gp_doc_cell(d, "%s", g4(num(o, "delivered_tok_s")));
		gp_doc_cell(d, "%s", fmt(F1, num(o, "gain_pct")));
		gp_doc_cell(d, "%s", yesno(tri(o, "queue_diverging")));
		gp_doc_cell(d, "%s", yesno(tri(o, "suspect")));
		gp_doc_cell(d, "%s", yesno(tri(o, "rerun")));
	}
}

static void sec_probe(struct gp_doc *d, const struct model *m, int drawn)
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 2, "Phase 2: mechanism probe");
	if (!count_of(m, "probe") && !count_of(m, "probe_sample")) {
		not_measured(d, "no probe or probe_sample records (gp-probe)");
		return;
	}
	if (count_of(m, "probe")) {
		TABLE(d, "llrllll", "arm", "expect", "concentration (peak/mean)", "mode confirmed", "engaged",
		      "mode evidence", "reason");
		while ((o = next_of(m, "probe", &i))) {
			const json_t *ev = json_object_get(o, "mode_evidence");
			char *evs = json_is_string(ev) ? gp_xstrdup(json_string_value(ev)) :
				    ev && !json_is_null(ev) ? json_dumps(ev, JSON_COMPACT) : gp_xstrdup("n/a");

			gp_doc_cell(d, "%s", str(o, "arm", ""));
			gp_doc_cell(d, "%s", str(o, "expect", "n/a"));
			gp_doc_cell(d, "%s", g4(num(o, "concentration")));
			gp_doc_cell(d, "%s", yesno(tri(o, "mode_confirmed")));
			gp_doc_cell(d, "%s", tri(o, "engaged") == 1 ? "ENGAGED" : tri(o, "engaged") == 0 ?
				    "NOT ENGAGED" : "not checked");
			gp_doc_cell(d, "%s", evs ? evs : "?");
			gp_doc_cell(d, "%s", str(o, "reason", ""));
			free(evs);
		}
	} else
		not_measured(d, "no probe verdict records");
	if (drawn)
		gp_doc_figure(d, "probe.png", "probe.svg",
			      "Probe: peak-to-mean in-flight load over the backends, sample by sample, per arm.");
	else if (!count_of(m, "probe_sample"))
		not_measured(d, "no probe_sample records: no concentration over time");
}

static void sec_goodfrac(struct gp_doc *d, const struct model *m, int drawn)
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 2, "Good fraction per arm and rate");
	if (!count_of(m, "arm_summary")) {
		not_measured(d, "no arm_summary records (gp-analyze)");
		return;
	}
	if (drawn)
		gp_doc_figure(d, "goodfrac.png", "goodfrac.svg",
			      "Good fraction vs offered rate per arm, with the target line and the knee marked.");
	TABLE(d, "lrrrlrrrrr", "arm", "rate (req/s)", "reps", "mean good fraction", "CI over reps", "CV",
	      "achieved (req/s)", "goodput (req/s)", "attempted", "failed");
	while ((o = next_of(m, "arm_summary", &i))) {
		const char *arm = str(o, "arm", "");
		double r = num(o, "rate_rps");

		gp_doc_cell(d, "%s", arm);
		gp_doc_cell(d, "%s", g4(r));
		gp_doc_cell(d, "%s", g4(num(o, "reps")));
		gp_doc_cell(d, "%s", f3(num(o, "mean_good_fraction")));
		gp_doc_cell(d, "%s", ci_text(json_object_get(o, "good_fraction_ci"), f3));
		gp_doc_cell(d, "%s", g4(num(o, "cv")));
		gp_doc_cell(d, "%s", g4(achieved(m, arm, r)));
		gp_doc_cell(d, "%s", g4(num(o, "goodput_rps")));
		gp_doc_cell(d, "%s", g4(num(o, "attempted")));
		gp_doc_cell(d, "%s", g4(num(o, "failed")));
	}
}

static const char *quant(const json_t *o, const char *metric, const char *q)
{
	const json_t *ci = json_object_get(json_object_get(o, metric), q);
	static char ring[16][128];
	static unsigned k;
	char *b = ring[k++ % 16];

	if (isnan(num(ci, "est")))
		return "n/a";
	snprintf(b, sizeof(ring[0]), "%s %s", ms(num(ci, "est")), ci_text(ci, ms));
	return b;
}

static void sec_latency(struct gp_doc *d, const struct model *m, double rate, const char *why,
			const int drawn[2])
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 2, "Latency: TTFT and TPOT");
	if (!m->nq)
		not_measured(d, "no request records in the input, so no CDFs (give gp-report the runs' "
			     "records too, e.g. the output of gp-verify validity)");
	else if (isnan(rate))
		not_measured(d, "no request record carries a rate_rps, so no CDFs");
	else
		gp_doc_para(d, "CDFs at %s req/s, %s, from %ld request records; the dashed line is the SLO.",
			    g4(rate), why, m->requests);
	for (int k = 0; k < 2; k++)
		if (drawn[k])
			gp_doc_figure(d, k ? "tpot_cdf.png" : "ttft_cdf.png", k ? "tpot_cdf.svg" : "ttft_cdf.svg",
				      k ? "TPOT CDF per arm at the moderate rate, with the TPOT SLO."
					: "TTFT CDF per arm at the moderate rate, with the TTFT SLO.");
	if (!count_of(m, "arm_summary")) {
		not_measured(d, "no arm_summary records, so no latency quantiles");
		return;
	}
	gp_doc_para(d, "Quantiles of the pooled paired requests (ms), with their BCa intervals:");
	TABLE(d, "lrllllll", "arm", "rate (req/s)", "TTFT p50", "TTFT p90", "TTFT p99", "TPOT p50", "TPOT p90",
	      "TPOT p99");
	while ((o = next_of(m, "arm_summary", &i))) {
		gp_doc_cell(d, "%s", str(o, "arm", ""));
		gp_doc_cell(d, "%s", g4(num(o, "rate_rps")));
		gp_doc_cell(d, "%s", quant(o, "ttft_ms", "p50"));
		gp_doc_cell(d, "%s", quant(o, "ttft_ms", "p90"));
		gp_doc_cell(d, "%s", quant(o, "ttft_ms", "p99"));
		gp_doc_cell(d, "%s", quant(o, "tpot_ms", "p50"));
		gp_doc_cell(d, "%s", quant(o, "tpot_ms", "p90"));
		gp_doc_cell(d, "%s", quant(o, "tpot_ms", "p99"));
	}
}

/* The TOST's outcome in words: passed or not, and what else equivalence needs. */
static const char *tost_text(const json_t *t)
{
	static char b[320];
	int passed = tri(t, "tost_passed");

	if (!t)
		return "n/a";
	if (passed < 0)
		passed = tri(t, "equivalent");
	if (tri(t, "equivalent") != 1 && str(t, "reason", NULL))
		snprintf(b, sizeof(b), "%s: %s", passed == 1 ? "passes" : "fails", str(t, "reason", ""));
	else
		snprintf(b, sizeof(b), "%s%s", passed == 1 ? "passes" : "fails",
			 tri(t, "resolvable") == 0 ? "; delta below the noise floor" : "");
	return b;
}

static void sec_compare(struct gp_doc *d, const struct model *m)
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 2, "Comparisons");
	if (!count_of(m, "compare"))
		not_measured(d, "no compare records (gp-analyze --floor ARM / --equiv ARM)");
	else {
		gp_doc_para(d, "diff = mean good fraction of the arm minus that of its comparator.  A WIN or LOSS "
			    "needs the whole interval on one side of zero; only a passing TOST says EQUIVALENT.");
		TABLE(d, "llrrlrlrlrl", "arm", "vs", "rate (req/s)", "diff", "CI", "reps", "verdict", "TOST delta",
		      "TOST CI", "TOST p", "TOST result");
	}
	while ((o = next_of(m, "compare", &i))) {
		const json_t *t = json_object_get(o, "tost");
		double lvl = num(o, "level"), tl = num(t, "level");
		char lo[128], tci[128];

		snprintf(lo, sizeof(lo), "%s[%s, %s]", isnan(lvl) ? "" : fmt(PCT, lvl),
			 f3(num(o, "lo")), f3(num(o, "hi")));
		snprintf(tci, sizeof(tci), "%s[%s, %s]", isnan(tl) ? "" : fmt(PCT, tl),
			 f3(num(t, "lo90")), f3(num(t, "hi90")));
		gp_doc_cell(d, "%s", str(o, "arm", ""));
		gp_doc_cell(d, "%s", str(o, "vs", ""));
		gp_doc_cell(d, "%s", g4(num(o, "rate_rps")));
		gp_doc_cell(d, "%s", f3(num(o, "diff")));
		gp_doc_cell(d, "%s", isnan(num(o, "lo")) ? "n/a" : lo);
		gp_doc_cell(d, "%s/%s", g4(num(o, "reps")), g4(num(o, "reps_vs")));
		gp_doc_cell(d, "%s%s%s", str(o, "verdict", ""), str(o, "reason", NULL) ? ": " : "",
			    str(o, "reason", ""));
		gp_doc_cell(d, "%s", t ? g4(num(t, "delta")) : "no TOST");
		gp_doc_cell(d, "%s", t && !isnan(num(t, "lo90")) ? tci : "n/a");
		gp_doc_cell(d, "%s", t ? g4(num(t, "p")) : "n/a");
		gp_doc_cell(d, "%s", tost_text(t));
	}
	i = 0;
	gp_doc_heading(d, 3, "Noise floor");
	if (!count_of(m, "noise_floor")) {
		not_measured(d, "no noise_floor records (gp-analyze --floor ARM)");
		return;
	}
	TABLE(d, "lrrrrl", "floor arm", "rate (req/s)", "reps", "mean good fraction", "half-width", "CI");
	while ((o = next_of(m, "noise_floor", &i))) {
		char ci[96];

		snprintf(ci, sizeof(ci), "[%s, %s]", f3(num(o, "lo")), f3(num(o, "hi")));
		gp_doc_cell(d, "%s", str(o, "arm", ""));
		gp_doc_cell(d, "%s", g4(num(o, "rate_rps")));
		gp_doc_cell(d, "%s", g4(num(o, "reps")));
		gp_doc_cell(d, "%s", f3(num(o, "mean")));
		gp_doc_cell(d, "%s", isnan(num(o, "half_width")) ? str(o, "reason", "n/a") : f3(num(o, "half_width")));
		gp_doc_cell(d, "%s", isnan(num(o, "lo")) ? "n/a" : ci);
	}
}

static void sec_validity(struct gp_doc *d, const struct model *m)
{
	const json_t *v = last_of(m, "validity"), *o, *r;
	size_t i = 0, k;

	gp_doc_heading(d, 2, "Validity: discards with reasons");
	if (!v && !count_of(m, "discard")) {
		not_measured(d, "no validity or discard records (gp-verify validity)");
		return;
	}
	if (v)
		gp_doc_para(d, "%s runs kept, %s discarded by rule%s.", g4(num(v, "kept")), g4(num(v, "discarded")),
			    tri(v, "strict") == 1 ? " (--strict)" : "");
	if (v && json_array_size(json_object_get(v, "rules"))) {
		TABLE(d, "llr", "rule", "status", "runs discarded");
		json_array_foreach(json_object_get(v, "rules"), k, r) {
			gp_doc_cell(d, "%s", str(r, "rule", "?"));
			gp_doc_cell(d, "%s", str(r, "status", "?"));
			gp_doc_cell(d, "%s", g4(num(r, "discarded")));
		}
	}
	if (!count_of(m, "discard")) {
		gp_doc_para(d, "No run was discarded.");
		return;
	}
	TABLE(d, "lrrl", "arm", "rate (req/s)", "rep", "reasons");
	while ((o = next_of(m, "discard", &i))) {
		char *why = joined(json_object_get(o, "reasons"), "; ");

		gp_doc_cell(d, "%s", str(o, "arm", ""));
		gp_doc_cell(d, "%s", g4(num(o, "rate_rps")));
		gp_doc_cell(d, "%s", g4(num(o, "rep")));
		gp_doc_cell(d, "%s", why);
		free(why);
	}
}

static void sec_stability(struct gp_doc *d, const struct model *m)
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 2, "Stability: replicates per rung");
	if (!count_of(m, "stability")) {
		not_measured(d, "no stability records (gp-verify publish)");
		return;
	}
	o = last_of(m, "stability");
	gp_doc_para(d, "Policy: at least %s reps and CV <= %s%s%s.", g4(num(o, "min_reps")), g4(num(o, "max_cv")),
		    isnan(num(o, "rep_cap")) ? "; no repetition cap" : "; repetition cap ",
		    isnan(num(o, "rep_cap")) ? "" : g4(num(o, "rep_cap")));
	TABLE(d, "lrrrlrl", "arm", "rate (req/s)", "reps taken", "CV", "verdict", "reps to add", "footnote");
	while ((o = next_of(m, "stability", &i))) {
		gp_doc_cell(d, "%s", str(o, "arm", ""));
		gp_doc_cell(d, "%s", g4(num(o, "rate_rps")));
		gp_doc_cell(d, "%s", g4(num(o, "reps")));
		gp_doc_cell(d, "%s", g4(num(o, "cv")));
		gp_doc_cell(d, "%s", str(o, "verdict", ""));
		gp_doc_cell(d, "%s", g4(num(o, "add_reps")));
		gp_doc_cell(d, "%s", str(o, "footnote", ""));
	}
}

static void sec_integrity(struct gp_doc *d, const struct model *m)
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 2, "Integrity: the independent re-derivation");
	if (!count_of(m, "integrity")) {
		not_measured(d, "no integrity records (gp-verify publish)");
		return;
	}
	TABLE(d, "lll", "check", "result", "detail");
	while ((o = next_of(m, "integrity", &i))) {
		int ok = tri(o, "ok");

		gp_doc_cell(d, "%s", str(o, "check", ""));
		gp_doc_cell(d, "%s", ok == 1 ? "ok" : ok == 0 ? "FAIL" : "not checked");
		gp_doc_cell(d, "%s", str(o, "detail", ""));
	}
}

static const char *proof_text(int ok, const char *evidence)
{
	if (ok < 0 && !strcmp(evidence, "not_applicable"))
		return "not applicable";
	return ok < 0 ? "not checked" : ok ? "yes" : "NO";
}

static void sec_dual(struct gp_doc *d, const struct model *m)
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 2, "Dual proof: decision vs delivery");
	if (!count_of(m, "dual_proof")) {
		not_measured(d, "no dual_proof records (gp-verify publish)");
		return;
	}
	TABLE(d, "llllll", "arm", "decision ok", "evidence", "delivery ok", "delivery evidence", "detail");
	while ((o = next_of(m, "dual_proof", &i))) {
		gp_doc_cell(d, "%s", str(o, "arm", ""));
		gp_doc_cell(d, "%s", proof_text(tri(o, "decision_ok"), str(o, "evidence", "")));
		gp_doc_cell(d, "%s", str(o, "evidence", "n/a"));
		gp_doc_cell(d, "%s", proof_text(tri(o, "delivery_ok"), str(o, "delivery_evidence", "")));
		gp_doc_cell(d, "%s", str(o, "delivery_evidence", "n/a"));
		gp_doc_cell(d, "%s", str(o, "detail", ""));
	}
}

static void sec_inputs(struct gp_doc *d, const struct model *m)
{
	static const char *const types[] = {
		"slo", "goodfrac", "arm_summary", "noise_floor", "compare", "knee", "discard", "validity",
		"knee_compare", "stability", "integrity", "dual_proof", "verdict", "health", "health_summary", "calib_step",
		"capacity", "ladder", "probe_sample", "probe", "run", "run_end",
	};
	char *s = gp_xasprintf("%ld request", m->requests);

	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		size_t n = count_of(m, types[k]);
		char *t;

		if (!n)
			continue;
		t = gp_xasprintf("%s, %zu %s", s, n, types[k]);
		free(s);
		s = t;
	}
	gp_doc_heading(d, 2, "Records read");
	gp_doc_para(d, "%s.  Every number above comes from these records.", s);
	free(s);
}

/* ---- the terminal summary ---- */

static const json_t *cell_of(const struct model *m, const char *type, const char *arm, double rate)
{
	const json_t *o;
	size_t i = 0;

	while ((o = next_of(m, type, &i)))
		if (!strcmp(str(o, "arm", ""), arm) && same_rate(num(o, "rate_rps"), rate))
			return o;
	return NULL;
}

static void summary(const struct model *m, const struct opts *o, int plots)
{
	const json_t *s, *v = last_of(m, "verdict");
	size_t i = 0;

	fprintf(stderr, "gp-report: wrote %s/report.md%s%s%s, %d plot%s\n", o->dir, o->html ? ", " : "",
		o->html ? o->dir : "", o->html ? "/report.html" : "", plots, plots == 1 ? "" : "s");
	if (count_of(m, "arm_summary"))
		fprintf(stderr, "  %-12s %9s %5s %6s %8s  %-26s %s\n", "arm", "rate_rps", "reps", "good",
			"CV", "stability", "compare");
	while ((s = next_of(m, "arm_summary", &i))) {
		const char *arm = str(s, "arm", "");
		double r = num(s, "rate_rps");
		const json_t *st = cell_of(m, "stability", arm, r), *c = cell_of(m, "compare", arm, r);
		char cmp[96] = "-";

		if (c)
			snprintf(cmp, sizeof(cmp), "%s vs %s", str(c, "verdict", "?"), str(c, "vs", "?"));
		fprintf(stderr, "  %-12s %9s %5s %6s %8s  %-26s %s\n", arm, g4(r), g4(num(s, "reps")),
			f3(num(s, "mean_good_fraction")), g4(num(s, "cv")), st ? str(st, "verdict", "?") : "-", cmp);
	}
	i = 0;
	while ((s = next_of(m, "knee", &i))) {
		double r = num(s, "rate_rps");

		if (isnan(r))
			fprintf(stderr, "  knee %s: no rung clears the target\n", str(s, "arm", ""));
		else
			fprintf(stderr, "  knee %s: %s req/s offered, goodput %s req/s per accelerator\n",
				str(s, "arm", ""), g4(r), g4(num(s, "goodput_rps_per_accel")));
	}
	if (v)
		fprintf(stderr, "  verdict: %s (%zu reason%s)\n",
			tri(v, "publishable") == 1 ? "PUBLISHABLE" : "NOT PUBLISHABLE",
			json_array_size(json_object_get(v, "reasons")),
			json_array_size(json_object_get(v, "reasons")) == 1 ? "" : "s");
	else
		fprintf(stderr, "  verdict: not measured (no verdict record)\n");
}

/* ---- main ---- */

static void mkdirs(const char *path)
{
	char *p = gp_xstrdup(path);

	for (char *s = p + 1; ; s++) {
		int end = !*s;

		if (*s != '/' && !end)
			continue;
		*s = 0;
		if (mkdir(p, 0777) && errno != EEXIST)
			gp_die(GP_EXIT_IOERR, "cannot create %s: %s", p, strerror(errno));
		if (end)
			break;
		*s = '/';
	}
	free(p);
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "output", required_argument, 0, 'o' }, { "html", no_argument, 0, 'H' },
		{ "protocol", required_argument, 0, 'p' }, { "moderate-rps", required_argument, 0, 'm' },
		{ "no-plots", no_argument, 0, 'n' }, { "gnuplot", required_argument, 0, 'g' },
		{ "quiet", no_argument, 0, 'q' }, { "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' }, { 0, 0, 0, 0 },
	};
	int c;

	o->dir = "report";
	o->gnuplot = "gnuplot";
	o->moderate = NAN;
	while ((c = gp_getopt(argc, argv, "o:qh", lo)) != -1) {
		switch (c) {
		case 'o': o->dir = optarg; break;
		case 'H': o->html = 1; break;
		case 'p': o->protocol = optarg; break;
		case 'm': o->moderate = gp_opt_double("--moderate-rps", optarg, 0, 1e12); break;
		case 'n': o->no_plots = 1; break;
		case 'g': o->gnuplot = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'h': gp_print_help(usage);
		case 'V': gp_print_version();
		default: gp_usage_error("unknown option");
		}
	}
	if (!*o->dir)
		gp_usage_error("-o needs a directory");
	/* gnuplot runs in DIR/gnuplot: a relative path is taken from here. */
	if (strchr(o->gnuplot, '/') && o->gnuplot[0] != '/') {
		char *abs = realpath(o->gnuplot, NULL);

		if (abs)
			o->gnuplot = abs;
	}
}

struct drawn {
	int goodfrac, cdf[2], probe, calib, n;
};

static void draw(const struct model *m, const struct opts *o, double rate, struct drawn *dr)
{
	struct plotter p = { o, NULL, 0 };

	if (o->no_plots)
		return;
	p.gdir = gp_xasprintf("%s/gnuplot", o->dir);
	mkdirs(p.gdir);
	dr->goodfrac = plot_goodfrac(&p, m);
	if (!isnan(rate)) {
		dr->cdf[0] = plot_cdf(&p, m, rate, 0);
		dr->cdf[1] = plot_cdf(&p, m, rate, 1);
	}
	dr->probe = plot_probe(&p, m);
	dr->calib = plot_calib(&p, m);
	dr->n = p.drawn;
	free(p.gdir);
}

static struct gp_doc *build(const struct model *m, const struct opts *o, double rate, const char *why,
			    const struct drawn *dr)
{
	struct gp_doc *d = gp_doc_new("gp campaign report");

	if (!d)
		gp_die_nomem();
	if (o->no_plots)
		gp_doc_para(d, "Plots not drawn (--no-plots).");
	sec_verdict(d, m);
	sec_knee(d, m);
	sec_slo(d, m);
	sec_protocol(d, m, o);
	sec_health(d, m);
	sec_calib(d, m, dr->calib);
	sec_probe(d, m, dr->probe);
	sec_goodfrac(d, m, dr->goodfrac);
	sec_latency(d, m, rate, why, dr->cdf);
	sec_compare(d, m);
	sec_validity(d, m);
	sec_stability(d, m);
	sec_integrity(d, m);
	sec_dual(d, m);
	sec_inputs(d, m);
	if (gp_doc_failed(d))
		gp_die_nomem();
	return d;
}

/* DIR/report.md or .html, written as NAME.tmp and renamed: a signal (or a
 * failure) never leaves a half report under its name. */
static void write_doc(const struct gp_doc *d, const struct opts *o, int html)
{
	char *path = gp_xasprintf("%s/report.%s", o->dir, html ? "html" : "md");
	char *tmp = gp_xasprintf("%s.tmp", path);
	FILE *f;
	const char *bad = NULL;
	int rc;

	stop_removing(NULL, NULL);
	f = xfopen(tmp, "w");
	rc = html ? gp_doc_write_html(d, f, o->dir, &bad) : gp_doc_write_md(d, f);
	if (rc) {
		int e = errno;

		unlink(tmp);
		if (bad)
			gp_die(GP_EXIT_SOFTWARE, "cannot inline %s/%s into %s", o->dir, bad, path);
		gp_die(GP_EXIT_IOERR, "cannot write %s: %s", path, strerror(e));
	}
	xfclose(f, tmp);
	stop_removing(tmp, NULL);
	if (rename(tmp, path))
		gp_die(GP_EXIT_IOERR, "cannot write %s: %s", path, strerror(errno));
	free(tmp);
	free(path);
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct model m = { 0 };
	struct drawn dr = { 0 };
	struct gp_doc *d;
	const char *why = "";
	double rate;

	gp_log_init(argv[0]);
	gp_sig_install();
	parse(argc, argv, &o);
	load(&m, argv + optind, argc - optind);
	build_palette(&m);
	mkdirs(o.dir);
	rate = moderate_rate(&m, &o, &why);
	draw(&m, &o, rate, &dr);
	d = build(&m, &o, rate, why, &dr);
	write_doc(d, &o, 0);
	if (o.html)
		write_doc(d, &o, 1);
	if (!o.quiet)
		summary(&m, &o, dr.n);
	gp_doc_free(d);
	for (size_t i = 0; i < m.nr; i++) {
		json_decref(m.r[i].o);
		free(m.r[i].file);
	}
	for (size_t i = 0; i < m.narms; i++)
		free(m.arms[i]);
	for (size_t i = 0; i < m.nri; i++) {
		free(m.ri[i].run);
		free(m.ri[i].arm);
	}
	free(m.r);
	free(m.q);
	free(m.arms);
	free(m.ri);
	free(m.pal);
	return GP_EXIT_OK;
}
