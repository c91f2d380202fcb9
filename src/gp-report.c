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
#include "report/model.h"
#include "report/plot.h"
#include "stats/stats.h"
#include "io/json.h"
#include "base/log.h"
#include "io/ndjson.h"
#include "io/child.h"
#include "base/sig.h"
#include "base/vec.h"
#include "base/buf.h"
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
	{ "knee", "bound", K_STR, 0 }, { "knee", "bound_rate_rps", K_NUM, 0 },
	{ "knee_compare", "ratio", K_NUM, 0 }, { "knee_compare", "ratio_ci", K_OBJ, 0 },
	{ "knee_compare", "bound", K_STR, 0 },
	{ "power", "arm", K_STR, 1 }, { "power", "rate_rps", K_NUM, 1 },
	{ "power", "half_width", K_NUM, 0 }, { "power", "delta", K_NUM, 0 },
	{ "rung_added", "rate_rps", K_NUM, 1 }, { "rung_added", "direction", K_STR, 1 },
	{ "rung_added", "reason", K_STR, 0 }, { "ladder_limit", "direction", K_STR, 1 },
	{ "turns", "arm", K_STR, 1 }, { "turns", "rate_rps", K_NUM, 1 },
	{ "turns", "by_turn", K_ARR, 1 }, { "turns", "sessions", K_INT, 0 },
	{ "turns", "sessions_good", K_INT, 0 },
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

static void load(struct gp_records *m, char **paths, int n)
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
		if (gp_records_add(m, o, type, file, line))
			gp_die_nomem();
	}
	if (rc < 0)
		gp_input_failed(&in, rc);
	gp_input_release(&in);
	if (gp_records_index_achieved(m))
		gp_die_nomem();
}

/* The next record of type after index *i (start with *i = 0); NULL at the end. */
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
	double lo = gp_jnum(ci, "lo"), hi = gp_jnum(ci, "hi");

	if (isnan(lo) || isnan(hi))
		return "n/a";
	snprintf(b, sizeof(ring[0]), "[%s, %s]%s%s", f(lo), f(hi),
		 gp_jtri(ci, "degenerate") == 1 ? " degenerate" : "", gp_jtri(ci, "sparse") == 1 ? " sparse" : "");
	return b;
}

/* ---- the protocol: its rates, the moderate rate ---- */

/* Distinct rates of the request records, ascending; returns how many. */
static size_t request_rates(const struct gp_records *m, double **out)
{
	double *v = gp_xrealloc(NULL, (m->nq + 1) * sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < m->nq; i++)
		if (!isnan(m->q[i].rate))
			v[n++] = m->q[i].rate;
	gp_sort_doubles(v, n);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || !gp_same_rate(v[k - 1], v[i]))
			v[k++] = v[i];
	*out = v;
	return k;
}

/* The rate of the CDFs and why it was chosen; NaN when no request has one. */
static double moderate_rate(const struct gp_records *m, const struct opts *o, const char **why)
{
	double *rates, want = NAN, best = NAN;
	size_t n = request_rates(m, &rates), i = 0;
	const json_t *lad = gp_records_last(m, "ladder"), *x;

	while ((x = gp_records_next(m, "ladder", &i)))	/* the binding role's, when one is */
		if (gp_jtri(x, "binding") == 1)
			lad = x;

	*why = "the middle rung measured (no ladder record)";
	if (!isnan(o->moderate)) {
		want = o->moderate;
		*why = "--moderate-rps";
	} else if (lad && !isnan(gp_jnum(json_object_get(lad, "rates_rps"), "moderate"))) {
		want = gp_jnum(json_object_get(lad, "rates_rps"), "moderate");
		*why = "the ladder's moderate rate";
	}
	if (n && isnan(want))
		best = rates[(n - 1) / 2];
	for (size_t k = 0; k < n && !isnan(want); k++)
		if (isnan(best) || fabs(rates[k] - want) < fabs(best - want))
			best = rates[k];
	if (!isnan(want) && !isnan(best) && !gp_same_rate(best, want))
		*why = !isnan(o->moderate) ? "the rung nearest --moderate-rps" :
			"the rung nearest the ladder's moderate rate";
	free(rates);
	return best;
}

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

/* The first SIGINT/SIGTERM (sig.h): remove a and b, the files being
 * written, and exit 128+N.  Otherwise return. */
static void stop_removing(const char *a, const char *b)
{
	if (gp_sig_stop_unlink(a, b))
		gp_stop_point(NULL);
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

static void sec_verdict(struct gp_doc *d, const struct gp_records *m)
{
	const json_t *v = gp_records_last(m, "verdict"), *x;
	size_t i;

	gp_doc_heading(d, 2, "Verdict and headline");
	if (!v) {
		not_measured(d, "no verdict record (gp-verify publish writes it)");
		return;
	}
	gp_doc_para(d, "%s — %s (%zu reason%s, %zu footnote%s: under the headline).",
		    gp_jtri(v, "publishable") == 1 ? "PUBLISHABLE" : "NOT PUBLISHABLE",
		    gp_jtri(v, "publishable") == 1 ? "every gate of gp-verify publish passed" :
		    "gp-verify publish refused it", json_array_size(json_object_get(v, "reasons")),
		    json_array_size(json_object_get(v, "reasons")) == 1 ? "" : "s",
		    json_array_size(json_object_get(v, "footnotes")),
		    json_array_size(json_object_get(v, "footnotes")) == 1 ? "" : "s");
	if (json_is_string(json_object_get(v, "answer")))
		gp_doc_para(d, "Answer: %s", json_string_value(json_object_get(v, "answer")));
	(void)i;
	(void)x;
}

/* The verdict's reasons and footnotes, after the headline. */
static void sec_reasons(struct gp_doc *d, const struct gp_records *m)
{
	const json_t *v = gp_records_last(m, "verdict"), *x;
	size_t i;

	if (!v || (!json_array_size(json_object_get(v, "reasons")) &&
		   !json_array_size(json_object_get(v, "footnotes"))))
		return;
	gp_doc_heading(d, 2, "The verdict's reasons and footnotes");
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
	if (!ci || isnan(gp_jnum(ci, "lo")))
		return gp_g4(est);
	snprintf(b, sizeof(ring[0]), "%s %s", gp_g4(est), ci_text(ci, gp_g4));
	return b;
}

static const char *figure_ci(double est, double lo, double hi, const char *pre);

/* One arm's headline line. */
static void headline_item(struct gp_doc *d, const json_t *k, const json_t *c, const char *floor)
{
	const json_t *ci = json_object_get(k, "goodput_per_accel_ci");
	const char *arm = gp_jstr(k, "arm", ""), *b = gp_jstr(k, "bound", NULL), *cb = gp_jstr(c, "bound", NULL);
	int lower = gp_same_str(b, "lower");
	double r = gp_jnum(k, "rate_rps");
	char vs[400] = "";

	if (isnan(r)) {
		gp_doc_item(d, "%s: no rung clears the target; its knee is below %s req/s (an upper bound, "
			    "not a point)", arm, gp_g4(gp_jnum(k, "bound_rate_rps")));
		return;
	}
	if (!floor)
		snprintf(vs, sizeof(vs), " (the floor arm)");
	else if (c && !isnan(gp_jnum(c, "ratio"))) {
		const json_t *rc = json_object_get(c, "ratio_ci");
		char ratio[160];

		if (isnan(gp_jnum(rc, "lo")))
			snprintf(ratio, sizeof(ratio), "%s×", gp_g4(gp_jnum(c, "ratio")));
		else
			snprintf(ratio, sizeof(ratio), "%s× [%s, %s]", gp_g4(gp_jnum(c, "ratio")), gp_g4(gp_jnum(rc, "lo")),
				 gp_g4(gp_jnum(rc, "hi")));
		snprintf(vs, sizeof(vs), " — %s%s %s's, %s%s good req/s per accelerator: %s%s%s", cb &&
			 !strcmp(cb, "lower") ? "≥ " : cb && !strcmp(cb, "upper") ? "≤ " : "", ratio,
			 floor, gp_jnum(c, "diff_goodput") >= 0 ? "+" : "",
			 figure_ci(gp_jnum(c, "diff_goodput"), gp_jnum(c, "lo"), gp_jnum(c, "hi"), ""),
			 gp_jstr(c, "verdict", "n/a"), gp_jstr(c, "reason", NULL) ? " (" : "",
			 gp_jstr(c, "reason", NULL) ? gp_jstr(c, "reason", "") : "");
	} else if (c)
		snprintf(vs, sizeof(vs), " — no ratio to %s: %s", floor,
			 gp_jstr(c, "ratio_reason", gp_jstr(c, "reason", "n/a")));
	if (gp_jstr(c, "reason", NULL) && c && !isnan(gp_jnum(c, "ratio")))
		strncat(vs, ")", sizeof(vs) - strlen(vs) - 1);
	if (!isnan(gp_jnum(k, "goodput_rps_per_accel")))
		gp_doc_item(d, "%s: %s good req/s per accelerator at %s%s req/s offered%s%s", arm,
			    figure_ci(gp_jnum(k, "goodput_rps_per_accel"), gp_jnum(ci, "lo"), gp_jnum(ci, "hi"),
				      lower ? "≥ " : ""), lower ? "≥ " : "", gp_g4(r), vs,
			    lower ? " (a lower bound: its top rung clears)" : "");
	else
		gp_doc_item(d, "%s: %s good req/s at %s%s req/s offered (%s)%s", arm,
			    figure_ci(gp_jnum(k, "goodput_rps"), gp_jnum(json_object_get(k, "goodput_ci"), "lo"),
				      gp_jnum(json_object_get(k, "goodput_ci"), "hi"), lower ? "≥ " : ""),
			    lower ? "≥ " : "", gp_g4(r), gp_jstr(k, "accelerators_reason", "no accelerators"), vs);
}

/* "est [lo, hi]" in g4, after pre (e.g. "≥ " before a lower bound); "est" alone without bounds. */
static const char *figure_ci(double est, double lo, double hi, const char *pre)
{
	static char ring[8][160];
	static unsigned k;
	char *b = ring[k++ % 8];

	if (isnan(est))
		return "n/a";
	if (isnan(lo) || isnan(hi))
		snprintf(b, sizeof(ring[0]), "%s%s", pre, gp_g4(est));
	else
		snprintf(b, sizeof(ring[0]), "%s%s [%s, %s]", pre, gp_g4(est), gp_g4(lo), gp_g4(hi));
	return b;
}

static const json_t *knee_compare_of(const struct gp_records *m, const char *arm)
{
	const json_t *o;
	size_t i = 0;

	while ((o = gp_records_next(m, "knee_compare", &i)))
		if (gp_same_str(gp_jstr(o, "arm", NULL), arm))
			return o;
	return NULL;
}

/*
 * The headline, first: per arm its goodput@SLO per accelerator at its knee
 * with its interval and the knee's offered rate, and against the floor arm
 * the ratio (Fieller) and the difference (Welch) with their intervals and
 * the verdict; a knee that is a bound says so (≥, or below the lowest rung),
 * never as a point.  Then the good-fraction plot.
 */
static void sec_headline(struct gp_doc *d, const struct gp_records *m, int drawn)
{
	const json_t *k, *fk = NULL;
	const char *floor = NULL;
	size_t i = 0;

	if (!gp_records_count(m, "knee")) {
		not_measured(d, "no knee records (gp-analyze writes one per arm)");
	} else {
		while ((k = gp_records_next(m, "knee_compare", &i)))
			floor = gp_jstr(k, "vs", floor);
		i = 0;
		while ((k = gp_records_next(m, "knee", &i)))
			if (gp_same_str(gp_jstr(k, "arm", NULL), floor))
				fk = k;
		gp_doc_para(d, "Good req/s per accelerator at each arm's knee (the highest rate whose mean good "
			    "fraction clears %s), %sintervals over reps%s%s%s:",
			    gp_g4(gp_records_target(m)), gp_rfmt(GP_PCT, isnan(gp_jnum(gp_records_last(m, "slo"), "level")) ? 0.95 :
						gp_jnum(gp_records_last(m, "slo"), "level")),
			    floor ? "; against the floor arm " : "", floor ? floor : "",
			    floor ? ", the ratio (Fieller) and the difference (Welch)" : "");
		if (fk)
			headline_item(d, fk, NULL, NULL);
		i = 0;
		while ((k = gp_records_next(m, "knee", &i)))
			if (k != fk)
				headline_item(d, k, knee_compare_of(m, gp_jstr(k, "arm", "")), floor);
	}
	if (drawn)
		gp_doc_figure(d, "goodfrac.png", "goodfrac.svg",
			      "Good fraction vs offered rate per arm, with the target line and the knee marked.");
}

static void knee_compare_table(struct gp_doc *d, const struct gp_records *m)
{
	const json_t *o;
	size_t i = 0;

	if (!gp_records_count(m, "knee_compare"))
		return;
	gp_doc_para(d, "Goodput at the knee against the floor arm's (Welch's interval of the difference over reps):");
	TABLE(d, "llrrllll", "arm", "vs", "knee (req/s)", "floor knee (req/s)", "diff goodput", "CI", "verdict",
	      "per accelerator");
	while ((o = gp_records_next(m, "knee_compare", &i))) {
		gp_doc_cell(d, "%s", gp_jstr(o, "arm", ""));
		gp_doc_cell(d, "%s", gp_jstr(o, "vs", ""));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "rate_rps")));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "rate_rps_vs")));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "diff_goodput")));
		gp_doc_cell(d, "%s", ci_text(o, gp_g4));
		gp_doc_cell(d, "%s%s%s", gp_jstr(o, "verdict", "n/a"), gp_jstr(o, "reason", NULL) ? ": " : "",
			    gp_jstr(o, "reason", ""));
		gp_doc_cell(d, "%s", yesno(gp_jtri(o, "per_accel")));
	}
}

static void sec_knee(struct gp_doc *d, const struct gp_records *m)
{
	const json_t *k;
	size_t i = 0;

	gp_doc_heading(d, 2, "goodput@SLO (the knee)");
	if (!gp_records_count(m, "knee")) {
		not_measured(d, "no knee records (gp-analyze writes one per arm)");
		return;
	}
	gp_doc_para(d, "The knee is the highest offered rate whose mean good fraction clears the target; "
		    "goodput is the good requests per second there, with its interval over reps where the "
		    "records carry one.");
	TABLE(d, "lrrrrlrll", "arm", "knee (req/s offered)", "achieved (req/s)", "good fraction", "target",
	      "goodput (req/s)", "accelerators", "goodput per accelerator (req/s)", "crossing (req/s)");
	while ((k = gp_records_next(m, "knee", &i))) {
		double r = gp_jnum(k, "rate_rps"), a = gp_jnum(k, "achieved_rps");

		if (isnan(a) && !isnan(r))
			a = gp_records_achieved(m, gp_jstr(k, "arm", ""), r);
		gp_doc_cell(d, "%s", gp_jstr(k, "arm", ""));
		gp_doc_cell(d, "%s", isnan(r) ? "none clears" : gp_g4(r));
		gp_doc_cell(d, "%s", gp_g4(a));
		gp_doc_cell(d, "%s", gp_f3(gp_jnum(k, "good_fraction")));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(k, "target")));
		gp_doc_cell(d, "%s", with_ci(gp_jnum(k, "goodput_rps"), json_object_get(k, "goodput_ci")));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(k, "accelerators")));
		gp_doc_cell(d, "%s", isnan(gp_jnum(k, "goodput_rps_per_accel")) && gp_jstr(k, "accelerators_reason", NULL) ?
			    gp_jstr(k, "accelerators_reason", "") :
			    with_ci(gp_jnum(k, "goodput_rps_per_accel"), json_object_get(k, "goodput_per_accel_ci")));
		gp_doc_cell(d, "%s", with_ci(gp_jnum(k, "crossing_rate_rps"), json_object_get(k, "crossing_ci")));
	}
	i = 0;
	while ((k = gp_records_next(m, "knee", &i)))
		if (gp_jstr(k, "edge", NULL))
			gp_doc_item(d, "%s: the knee is at the %s edge of the ladder%s%s", gp_jstr(k, "arm", ""),
				    gp_jstr(k, "edge", ""), gp_jstr(k, "advice", NULL) ? " — " : "", gp_jstr(k, "advice", ""));
		else if (gp_jtri(k, "monotone") == 0)
			gp_doc_item(d, "%s: the good-fraction curve is non-monotone (it rises again above a "
				    "lower rung)%s%s", gp_jstr(k, "arm", ""), gp_jstr(k, "advice", NULL) ? " — " : "",
				    gp_jstr(k, "advice", ""));
	knee_compare_table(d, m);
}

static void sec_slo(struct gp_doc *d, const struct gp_records *m)
{
	const json_t *s = gp_records_last(m, "slo");
	const char *origin = gp_jstr(s, "origin", NULL);

	gp_doc_heading(d, 2, "SLO and its origin");
	if (!s) {
		not_measured(d, "no slo record (gp-analyze writes it)");
		return;
	}
	gp_doc_para(d, "A request is good when TTFT <= %s ms AND TPOT <= %s ms; every attempted request is in "
		    "the denominator and a failed one is a miss.", gp_ms(gp_jnum(s, "ttft_ms")), gp_g4(gp_jnum(s, "tpot_ms")));
	if (origin && !strcmp(origin, "baseline"))
		gp_doc_para(d, "Origin: baseline — %s x the %s of %s ok requests of the unloaded baseline%s%s.",
			    gp_g4(gp_jnum(s, "multiple")), gp_jstr(s, "baseline_stat", "?"),
			    gp_g4(gp_jnum(s, "baseline_requests")), gp_jstr(s, "baseline_file", NULL) ? " in " : "",
			    gp_jstr(s, "baseline_file", ""));
	else
		gp_doc_para(d, "Origin: %s.", origin ? origin : "not stated in the record");
	if (gp_jstr(s, "baseline_arm", NULL) || !isnan(gp_jnum(s, "baseline_rate_rps")) || gp_jstr(s, "baseline_url", NULL))
		gp_doc_para(d, "Baseline: arm %s at %s req/s through %s; it passed validity: %s; its rate is at or "
			    "below the lowest rung: %s; the arms' URL: %s.", gp_jstr(s, "baseline_arm", "n/a"),
			    gp_g4(gp_jnum(s, "baseline_rate_rps")), gp_jstr(s, "baseline_url", "a URL not recorded"),
			    yesno(gp_jtri(s, "baseline_validity")), yesno(gp_jtri(s, "baseline_low_rate")),
			    yesno(gp_jtri(s, "baseline_same_url")));
	if (!isnan(gp_jnum(s, "seed")) || !isnan(gp_jnum(s, "level")))
		gp_doc_para(d, "Analysis settings: seed %s, %s resamples, confidence level %s, knee target %s, "
			    "minimum reps for a verdict %s, accelerators %s%s%s.", gp_g4(gp_jnum(s, "seed")),
			    gp_g4(gp_jnum(s, "resamples")), gp_g4(gp_jnum(s, "level")), gp_g4(gp_jnum(s, "target")), gp_g4(gp_jnum(s, "min_reps")),
			    gp_g4(gp_jnum(s, "accelerators")), gp_jstr(s, "accelerators_from", NULL) ? " from " : "",
			    gp_jstr(s, "accelerators_from", ""));
	TABLE(d, "rrlllr", "TTFT SLO (ms)", "TPOT SLO (ms)", "origin", "baseline statistic", "single-token requests",
	      "multiple");
	gp_doc_cell(d, "%s", gp_g4(gp_jnum(s, "ttft_ms")));
	gp_doc_cell(d, "%s", gp_g4(gp_jnum(s, "tpot_ms")));
	gp_doc_cell(d, "%s", origin ? origin : "n/a");
	gp_doc_cell(d, "%s", gp_jstr(s, "baseline_stat", "n/a"));
	gp_doc_cell(d, "%s", gp_jstr(s, "single_token", "n/a"));
	gp_doc_cell(d, "%s", gp_g4(gp_jnum(s, "multiple")));
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	struct gp_buf b = { 0 };

	if (!f || gp_buf_read(&b, f)) {
		if (errno == ENOMEM)
			gp_die_nomem();
		gp_die(GP_EXIT_DATAERR, "%s: cannot read: %s", path, strerror(errno));
	}
	fclose(f);
	if (memchr(b.p, 0, b.len))
		gp_die(GP_EXIT_DATAERR, "%s: not a text file", path);
	return b.p;
}

static void sec_protocol(struct gp_doc *d, const struct gp_records *m, const struct opts *o)
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
	while ((p = gp_records_next(m, "protocol", &i))) {
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
static struct hgroup *health_groups(const struct gp_records *m, size_t *ng)
{
	struct hgroup *g = NULL;
	const json_t *o;
	size_t i = 0, n = 0, cap = 0, k;

	while ((o = gp_records_next(m, "health", &i))) {
		const char *arm = gp_jstr(o, "arm", NULL), *check = gp_jstr(o, "check", ""),
			   *name = gp_jstr(o, "name", NULL), *target = gp_jstr(o, "target", NULL);

		for (k = 0; k < n; k++)
			if (gp_same_str(g[k].arm, arm) && !strcmp(g[k].check, check) &&
			    gp_same_str(g[k].name, name) && gp_same_str(g[k].target, target))
				break;
		if (k == n) {
			GP_XGROW(g, n, cap, 16);
			g[n++] = (struct hgroup){ arm, check, name, target, 0, 0, SIZE_MAX, SIZE_MAX };
		}
		g[k].checks++;
		if (gp_jtri(o, "ok") == 1)
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
static char *health_failure(const struct gp_records *m, size_t r)
{
	const json_t *o = m->r[r].o;
	const char *det = gp_jstr(o, "detail", gp_jstr(o, "error", ""));

	return gp_xasprintf("%s: %.80s%s (%s:%lu)", gp_jstr(o, "at", "time not recorded"), det,
			 strlen(det) > 80 ? "…" : "", m->r[r].file, m->r[r].line);
}

/* The last column (the one the HTML page wraps): the first and the last failure. */
static void health_failures_cell(struct gp_doc *d, const struct gp_records *m, const struct hgroup *g)
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

static void health_rounds(struct gp_doc *d, const struct gp_records *m)
{
	const json_t *o;
	size_t i = 0, n = gp_records_count(m, "health_summary"), ready = 0, shown = 0;

	if (!n)
		return;
	while ((o = gp_records_next(m, "health_summary", &i)))
		ready += gp_jtri(o, "ready") == 1;
	gp_doc_para(d, "%zu health round%s (gp-health runs): %zu READY, %zu NOT READY.", n,
		    n == 1 ? "" : "s", ready, n - ready);
	i = 0;
	while ((o = gp_records_next(m, "health_summary", &i)) && shown < HEALTH_LISTED) {
		if (gp_jtri(o, "ready") == 1)
			continue;
		char *failed = joined(json_object_get(o, "failed_checks"), ", ");
		char *cut = joined(json_object_get(o, "not_run_checks"), ", ");
		int stopped = gp_jtri(o, "interrupted") == 1;

		gp_doc_item(d, "health summary (%s%s%s%s): NOT READY%s%s%s%s%s (%s:%lu)",
			    gp_jstr(o, "arm", NULL) ? "arm " : "", gp_jstr(o, "arm", ""), gp_jstr(o, "arm", NULL) ? ", " : "",
			    gp_jstr(o, "at", "time not recorded"), *failed ? " — failed: " : "", failed,
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

static void health_failures(struct gp_doc *d, const struct gp_records *m, size_t bad)
{
	const json_t *o;
	size_t i = 0, shown = 0;

	if (!bad)
		return;
	gp_doc_para(d, "The first %zu of %zu failed checks, each with its record (every failure is in "
		    "the record files: jq 'select(.type == \"health\" and .ok != true)'):",
		    bad < HEALTH_LISTED ? bad : HEALTH_LISTED, bad);
	while ((o = gp_records_next(m, "health", &i)) && shown < HEALTH_LISTED) {
		if (gp_jtri(o, "ok") == 1)
			continue;
		gp_doc_item(d, "%s:%lu: %s %s%s%s at %s: %s", m->r[i - 1].file, m->r[i - 1].line,
			    gp_jstr(o, "check", ""), gp_jstr(o, "name", ""), gp_jstr(o, "name", NULL) ? " " : "",
			    gp_jstr(o, "target", ""), gp_jstr(o, "at", "time not recorded"),
			    gp_jstr(o, "detail", gp_jstr(o, "error", "")));
		shown++;
	}
}

static void sec_health(struct gp_doc *d, const struct gp_records *m)
{
	size_t n = gp_records_count(m, "health"), ng, bad = 0;
	struct hgroup *g;

	gp_doc_heading(d, 2, "Phase 0: health");
	if (!n && !gp_records_count(m, "health_summary")) {
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

static void sec_calib(struct gp_doc *d, const struct gp_records *m, int drawn)
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 2, "Phase 1: calibration");
	if (!gp_records_count(m, "calib_step") && !gp_records_count(m, "capacity") && !gp_records_count(m, "ladder")) {
		not_measured(d, "no calib_step, capacity or ladder records (gp-calibrate)");
		return;
	}
	if (gp_records_count(m, "capacity")) {
		TABLE(d, "llrrlll", "endpoint", "role", "capacity (tok/s)", "plateau steps", "saturated",
		      "suspect", "verdict");
		while ((o = gp_records_next(m, "capacity", &i))) {
			const json_t *ps = json_object_get(o, "plateau_steps");

			gp_doc_cell(d, "%s", gp_endpoint_label(o));
			gp_doc_cell(d, "%s", gp_jstr(o, "role", "n/a"));
			gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "capacity_tok_s")));
			gp_doc_cell(d, "%s", json_is_array(ps) ? gp_g4((double)json_array_size(ps)) : gp_g4(gp_jnum(o, "plateau_steps")));
			gp_doc_cell(d, "%s", yesno(gp_jtri(o, "saturated")));
			gp_doc_cell(d, "%s", yesno(gp_jtri(o, "suspect")));
			char *why = joined(json_object_get(o, "reasons"), ", ");

			gp_doc_cell(d, "%s%s%s", gp_jstr(o, "verdict", "n/a"), *why ? ": " : "", why);
			free(why);
		}
	} else
		not_measured(d, "no capacity records");
	i = 0;
	if (gp_records_count(m, "ladder")) {
		TABLE(d, "llrrr", "role", "reference", "unsaturated (req/s)", "moderate (req/s)", "saturated (req/s)");
		while ((o = gp_records_next(m, "ladder", &i))) {
			const json_t *r = json_object_get(o, "rates_rps"), *ref = json_object_get(o, "reference");
			char *refs = json_is_string(ref) ? gp_xstrdup(json_string_value(ref)) :
				     ref ? json_dumps(ref, JSON_COMPACT) : gp_xstrdup("n/a");

			gp_doc_cell(d, "%s", gp_jstr(o, "role", "n/a"));
			gp_doc_cell(d, "%s", refs ? refs : "?");
			gp_doc_cell(d, "%s", gp_g4(gp_jnum(r, "unsaturated")));
			gp_doc_cell(d, "%s", gp_g4(gp_jnum(r, "moderate")));
			gp_doc_cell(d, "%s", gp_g4(gp_jnum(r, "saturated")));
			free(refs);
		}
	} else
		not_measured(d, "no ladder record");
	if (drawn)
		gp_doc_figure(d, "calib.png", "calib.svg",
			      "Calibration steps: delivered tokens/s and queue depth against the offered rate, per endpoint.");
	if (!gp_records_count(m, "calib_step"))
		return;
	TABLE(d, "lrrrrlll", "endpoint", "step", "offered (req/s)", "delivered (tok/s)", "gain (%)",
	      "queue diverging", "suspect", "rerun");
	i = 0;
	while ((o = gp_records_next(m, "calib_step", &i))) {
		gp_doc_cell(d, "%s", gp_endpoint_label(o));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "step")));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "offered_rps")));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "delivered_tok_s")));
		gp_doc_cell(d, "%s", gp_rfmt(GP_F1, gp_jnum(o, "gain_pct")));
		gp_doc_cell(d, "%s", yesno(gp_jtri(o, "queue_diverging")));
		gp_doc_cell(d, "%s", yesno(gp_jtri(o, "suspect")));
		gp_doc_cell(d, "%s", yesno(gp_jtri(o, "rerun")));
	}
}

static void sec_probe(struct gp_doc *d, const struct gp_records *m, int drawn)
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 2, "Phase 2: mechanism probe");
	if (!gp_records_count(m, "probe") && !gp_records_count(m, "probe_sample")) {
		not_measured(d, "no probe or probe_sample records (gp-probe)");
		return;
	}
	if (gp_records_count(m, "probe")) {
		TABLE(d, "llrllll", "arm", "expect", "concentration (peak/mean)", "mode confirmed", "engaged",
		      "mode evidence", "reason");
		while ((o = gp_records_next(m, "probe", &i))) {
			const json_t *ev = json_object_get(o, "mode_evidence");
			char *evs = json_is_string(ev) ? gp_xstrdup(json_string_value(ev)) :
				    ev && !json_is_null(ev) ? json_dumps(ev, JSON_COMPACT) : gp_xstrdup("n/a");

			gp_doc_cell(d, "%s", gp_jstr(o, "arm", ""));
			gp_doc_cell(d, "%s", gp_jstr(o, "expect", "n/a"));
			gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "concentration")));
			gp_doc_cell(d, "%s", yesno(gp_jtri(o, "mode_confirmed")));
			gp_doc_cell(d, "%s", gp_jtri(o, "engaged") == 1 ? "ENGAGED" : gp_jtri(o, "engaged") == 0 ?
				    "NOT ENGAGED" : "not checked");
			gp_doc_cell(d, "%s", evs ? evs : "?");
			gp_doc_cell(d, "%s", gp_jstr(o, "reason", ""));
			free(evs);
		}
	} else
		not_measured(d, "no probe verdict records");
	if (drawn)
		gp_doc_figure(d, "probe.png", "probe.svg",
			      "Probe: peak-to-mean in-flight load over the backends, sample by sample, per arm.");
	else if (!gp_records_count(m, "probe_sample"))
		not_measured(d, "no probe_sample records: no concentration over time");
}

static void sec_goodfrac(struct gp_doc *d, const struct gp_records *m, int drawn)
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 2, "Good fraction per arm and rate");
	if (!gp_records_count(m, "arm_summary")) {
		not_measured(d, "no arm_summary records (gp-analyze)");
		return;
	}
	if (drawn)
		gp_doc_para(d, "The plot of these figures is under the headline.");
	TABLE(d, "lrrrlrrrrr", "arm", "rate (req/s)", "reps", "mean good fraction", "CI over reps", "CV",
	      "achieved (req/s)", "goodput (req/s)", "attempted", "failed");
	while ((o = gp_records_next(m, "arm_summary", &i))) {
		const char *arm = gp_jstr(o, "arm", "");
		double r = gp_jnum(o, "rate_rps");

		gp_doc_cell(d, "%s", arm);
		gp_doc_cell(d, "%s", gp_g4(r));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "reps")));
		gp_doc_cell(d, "%s", gp_f3(gp_jnum(o, "mean_good_fraction")));
		gp_doc_cell(d, "%s", ci_text(json_object_get(o, "good_fraction_ci"), gp_f3));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "cv")));
		gp_doc_cell(d, "%s", gp_g4(gp_records_achieved(m, arm, r)));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "goodput_rps")));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "attempted")));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "failed")));
	}
}

static const char *quant(const json_t *o, const char *metric, const char *q)
{
	const json_t *ci = json_object_get(json_object_get(o, metric), q);
	static char ring[16][128];
	static unsigned k;
	char *b = ring[k++ % 16];

	if (isnan(gp_jnum(ci, "est")))
		return "n/a";
	snprintf(b, sizeof(ring[0]), "%s %s", gp_ms(gp_jnum(ci, "est")), ci_text(ci, gp_ms));
	return b;
}

static void sec_latency(struct gp_doc *d, const struct gp_records *m, double rate, const char *why,
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
			    gp_g4(rate), why, m->requests);
	for (int k = 0; k < 2; k++)
		if (drawn[k])
			gp_doc_figure(d, k ? "tpot_cdf.png" : "ttft_cdf.png", k ? "tpot_cdf.svg" : "ttft_cdf.svg",
				      k ? "TPOT CDF per arm at the moderate rate, with the TPOT SLO."
					: "TTFT CDF per arm at the moderate rate, with the TTFT SLO.");
	if (!gp_records_count(m, "arm_summary")) {
		not_measured(d, "no arm_summary records, so no latency quantiles");
		return;
	}
	gp_doc_para(d, "Quantiles of the pooled paired requests (ms), with their BCa intervals:");
	TABLE(d, "lrllllll", "arm", "rate (req/s)", "TTFT p50", "TTFT p90", "TTFT p99", "TPOT p50", "TPOT p90",
	      "TPOT p99");
	while ((o = gp_records_next(m, "arm_summary", &i))) {
		gp_doc_cell(d, "%s", gp_jstr(o, "arm", ""));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "rate_rps")));
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
	int passed = gp_jtri(t, "tost_passed");

	if (!t)
		return "n/a";
	if (passed < 0)
		passed = gp_jtri(t, "equivalent");
	if (gp_jtri(t, "equivalent") != 1 && gp_jstr(t, "reason", NULL))
		snprintf(b, sizeof(b), "%s: %s", passed == 1 ? "passes" : "fails", gp_jstr(t, "reason", ""));
	else
		snprintf(b, sizeof(b), "%s%s", passed == 1 ? "passes" : "fails",
			 gp_jtri(t, "resolvable") == 0 ? "; delta below the noise floor" : "");
	return b;
}

/* The protocol's compare list: the --protocol file's, else a protocol
 * record's; NULL when none (a new reference). */
static json_t *asked_pairs(const struct gp_records *m, const struct opts *o)
{
	json_t *p = o->protocol ? json_load_file(o->protocol, 0, NULL) : NULL, *c;
	const json_t *r = p ? p : gp_records_last(m, "protocol");

	c = json_incref(json_object_get(r, "compare"));
	json_decref(p);
	if (c && !json_is_array(c)) {
		json_decref(c);
		c = NULL;
	}
	return c;
}

/*
 * The comparisons the protocol asked for (its compare list): each pair at
 * every rung where a compare record has it, and "not compared" where none.
 */
static void sec_asked(struct gp_doc *d, const struct gp_records *m, const struct opts *o)
{
	json_t *pairs = asked_pairs(m, o), *q;
	size_t k;

	if (!pairs || !json_array_size(pairs)) {
		json_decref(pairs);
		return;
	}
	gp_doc_heading(d, 2, "The comparisons asked for");
	gp_doc_para(d, "The pairs the protocol names (compare), each at every rung: diff = mean good "
		    "fraction of the arm minus that of the other, its verdict, and the TOST at the "
		    "protocol's delta.");
	TABLE(d, "llrrlll", "arm", "vs", "rate (req/s)", "diff", "CI", "verdict", "TOST");
	json_array_foreach(pairs, k, q) {
		const char *a = json_string_value(json_array_get(q, 0)), *v = json_string_value(json_array_get(q, 1));
		const json_t *c;
		size_t i = 0;
		int seen = 0;

		if (!a || !v)
			continue;
		while ((c = gp_records_next(m, "compare", &i))) {
			char ci[128];

			if (strcmp(gp_jstr(c, "arm", ""), a) || strcmp(gp_jstr(c, "vs", ""), v))
				continue;
			seen = 1;
			snprintf(ci, sizeof(ci), "[%s, %s]", gp_f3(gp_jnum(c, "lo")), gp_f3(gp_jnum(c, "hi")));
			gp_doc_cell(d, "%s", a);
			gp_doc_cell(d, "%s", v);
			gp_doc_cell(d, "%s", gp_g4(gp_jnum(c, "rate_rps")));
			gp_doc_cell(d, "%s", gp_f3(gp_jnum(c, "diff")));
			gp_doc_cell(d, "%s", isnan(gp_jnum(c, "lo")) ? "n/a" : ci);
			gp_doc_cell(d, "%s%s%s", gp_jstr(c, "verdict", ""), gp_jstr(c, "reason", NULL) ? ": " : "",
				    gp_jstr(c, "reason", ""));
			gp_doc_cell(d, "%s", tost_text(json_object_get(c, "tost")));
		}
		if (!seen) {
			gp_doc_cell(d, "%s", a);
			gp_doc_cell(d, "%s", v);
			gp_doc_cell(d, "%s", "-");
			gp_doc_cell(d, "%s", "-");
			gp_doc_cell(d, "%s", "n/a");
			gp_doc_cell(d, "%s", "not compared: no compare record of this pair");
			gp_doc_cell(d, "%s", "n/a");
		}
	}
	json_decref(pairs);
}

static void sec_compare(struct gp_doc *d, const struct gp_records *m)
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 2, "Comparisons");
	if (!gp_records_count(m, "compare"))
		not_measured(d, "no compare records (gp-analyze --floor ARM / --equiv ARM)");
	else {
		gp_doc_para(d, "diff = mean good fraction of the arm minus that of its comparator.  A WIN or LOSS "
			    "needs the whole interval on one side of zero; only a passing TOST says EQUIVALENT.");
		TABLE(d, "llrrlrlrlrl", "arm", "vs", "rate (req/s)", "diff", "CI", "reps", "verdict", "TOST delta",
		      "TOST CI", "TOST p", "TOST result");
	}
	while ((o = gp_records_next(m, "compare", &i))) {
		const json_t *t = json_object_get(o, "tost");
		double lvl = gp_jnum(o, "level"), tl = gp_jnum(t, "level");
		char lo[128], tci[128];

		snprintf(lo, sizeof(lo), "%s[%s, %s]", isnan(lvl) ? "" : gp_rfmt(GP_PCT, lvl),
			 gp_f3(gp_jnum(o, "lo")), gp_f3(gp_jnum(o, "hi")));
		snprintf(tci, sizeof(tci), "%s[%s, %s]", isnan(tl) ? "" : gp_rfmt(GP_PCT, tl),
			 gp_f3(gp_jnum(t, "lo90")), gp_f3(gp_jnum(t, "hi90")));
		gp_doc_cell(d, "%s", gp_jstr(o, "arm", ""));
		gp_doc_cell(d, "%s", gp_jstr(o, "vs", ""));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "rate_rps")));
		gp_doc_cell(d, "%s", gp_f3(gp_jnum(o, "diff")));
		gp_doc_cell(d, "%s", isnan(gp_jnum(o, "lo")) ? "n/a" : lo);
		gp_doc_cell(d, "%s/%s", gp_g4(gp_jnum(o, "reps")), gp_g4(gp_jnum(o, "reps_vs")));
		gp_doc_cell(d, "%s%s%s", gp_jstr(o, "verdict", ""), gp_jstr(o, "reason", NULL) ? ": " : "",
			    gp_jstr(o, "reason", ""));
		gp_doc_cell(d, "%s", t ? gp_g4(gp_jnum(t, "delta")) : "no TOST");
		gp_doc_cell(d, "%s", t && !isnan(gp_jnum(t, "lo90")) ? tci : "n/a");
		gp_doc_cell(d, "%s", t ? gp_g4(gp_jnum(t, "p")) : "n/a");
		gp_doc_cell(d, "%s", tost_text(t));
	}
	i = 0;
	gp_doc_heading(d, 3, "Noise floor");
	if (!gp_records_count(m, "noise_floor")) {
		not_measured(d, "no noise_floor records (gp-analyze --floor ARM)");
		return;
	}
	TABLE(d, "lrrrrl", "floor arm", "rate (req/s)", "reps", "mean good fraction", "half-width", "CI");
	while ((o = gp_records_next(m, "noise_floor", &i))) {
		char ci[96];

		snprintf(ci, sizeof(ci), "[%s, %s]", gp_f3(gp_jnum(o, "lo")), gp_f3(gp_jnum(o, "hi")));
		gp_doc_cell(d, "%s", gp_jstr(o, "arm", ""));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "rate_rps")));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "reps")));
		gp_doc_cell(d, "%s", gp_f3(gp_jnum(o, "mean")));
		gp_doc_cell(d, "%s", isnan(gp_jnum(o, "half_width")) ? gp_jstr(o, "reason", "n/a") : gp_f3(gp_jnum(o, "half_width")));
		gp_doc_cell(d, "%s", isnan(gp_jnum(o, "lo")) ? "n/a" : ci);
	}
}

/* The rungs the adaptive ladder added, and why; a limit reached. */
static void sec_grown(struct gp_doc *d, const struct gp_records *m)
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 3, "Rungs added by the adaptive ladder");
	if (!gp_records_count(m, "rung_added") && !gp_records_count(m, "ladder_limit")) {
		gp_doc_para(d, "None: no rung_added record (the calibrated rungs bracketed every knee, or the "
			    "protocol's ladder does not grow).");
		return;
	}
	if (gp_records_count(m, "rung_added")) {
		TABLE(d, "rlrrrrl", "rate (req/s)", "direction", "step", "from (req/s)", "ratio", "reps", "why");
		while ((o = gp_records_next(m, "rung_added", &i))) {
			gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "rate_rps")));
			gp_doc_cell(d, "%s", gp_jstr(o, "direction", ""));
			gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "step")));
			gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "from_rate_rps")));
			gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "ratio")));
			gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "reps")));
			gp_doc_cell(d, "%s", gp_jstr(o, "reason", ""));
		}
	}
	i = 0;
	while ((o = gp_records_next(m, "ladder_limit", &i)))
		gp_doc_item(d, "limit %s: %s", gp_jstr(o, "direction", ""), gp_jstr(o, "reason", ""));
}

/* What each rung resolves, and what would resolve delta. */
static void sec_power(struct gp_doc *d, const struct gp_records *m)
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 3, "Power: the smallest difference each rung resolves");
	if (!gp_records_count(m, "power")) {
		not_measured(d, "no power records (gp-analyze --floor ARM)");
		return;
	}
	gp_doc_para(d, "The noise floor's half-width (the floor arm's t-interval over reps) is the smallest "
		    "difference in good fraction a rung can resolve; a TOST margin delta below it cannot be "
		    "claimed.  What would resolve delta: the reps at this run length, or the requests per rep "
		    "(and the run length at the rung's achieved rate) at these reps.");
	TABLE(d, "lrrrrrlrrr", "floor arm", "rate (req/s)", "reps", "requests per rep", "resolves", "delta",
	      "resolvable", "reps for delta", "requests per rep for delta", "run length for delta (s)");
	while ((o = gp_records_next(m, "power", &i))) {
		int res = gp_jtri(o, "resolvable");

		gp_doc_cell(d, "%s", gp_jstr(o, "arm", ""));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "rate_rps")));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "reps")));
		gp_doc_cell(d, "%s", gp_rfmt(GP_F1, gp_jnum(o, "requests_per_rep")));
		gp_doc_cell(d, "%s", gp_f3(gp_jnum(o, "half_width")));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "delta")));
		gp_doc_cell(d, "%s", res == 1 ? "yes" : res == 0 ? "NO" : "n/a");
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "reps_for_delta")));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "requests_for_delta")));
		gp_doc_cell(d, "%s", gp_rfmt(GP_F1, gp_jnum(o, "duration_s_for_delta")));
	}
}

static void sec_validity(struct gp_doc *d, const struct gp_records *m)
{
	const json_t *v = gp_records_last(m, "validity"), *o, *r;
	size_t i = 0, k;

	gp_doc_heading(d, 2, "Validity: discards with reasons");
	if (!v && !gp_records_count(m, "discard")) {
		not_measured(d, "no validity or discard records (gp-verify validity)");
		return;
	}
	if (v)
		gp_doc_para(d, "%s runs kept, %s discarded by rule%s.", gp_g4(gp_jnum(v, "kept")), gp_g4(gp_jnum(v, "discarded")),
			    gp_jtri(v, "strict") == 1 ? " (--strict)" : "");
	if (v && json_array_size(json_object_get(v, "rules"))) {
		TABLE(d, "llr", "rule", "status", "runs discarded");
		json_array_foreach(json_object_get(v, "rules"), k, r) {
			gp_doc_cell(d, "%s", gp_jstr(r, "rule", "?"));
			gp_doc_cell(d, "%s", gp_jstr(r, "status", "?"));
			gp_doc_cell(d, "%s", gp_g4(gp_jnum(r, "discarded")));
		}
	}
	if (!gp_records_count(m, "discard")) {
		gp_doc_para(d, "No run was discarded.");
		return;
	}
	TABLE(d, "lrrl", "arm", "rate (req/s)", "rep", "reasons");
	while ((o = gp_records_next(m, "discard", &i))) {
		char *why = joined(json_object_get(o, "reasons"), "; ");

		gp_doc_cell(d, "%s", gp_jstr(o, "arm", ""));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "rate_rps")));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "rep")));
		gp_doc_cell(d, "%s", why);
		free(why);
	}
}

static void sec_stability(struct gp_doc *d, const struct gp_records *m)
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 2, "Stability: replicates per rung");
	if (!gp_records_count(m, "stability")) {
		not_measured(d, "no stability records (gp-verify publish)");
		return;
	}
	o = gp_records_last(m, "stability");
	gp_doc_para(d, "Policy: at least %s reps and CV <= %s%s%s.", gp_g4(gp_jnum(o, "min_reps")), gp_g4(gp_jnum(o, "max_cv")),
		    isnan(gp_jnum(o, "rep_cap")) ? "; no repetition cap" : "; repetition cap ",
		    isnan(gp_jnum(o, "rep_cap")) ? "" : gp_g4(gp_jnum(o, "rep_cap")));
	TABLE(d, "lrrrlrl", "arm", "rate (req/s)", "reps taken", "CV", "verdict", "reps to add", "footnote");
	while ((o = gp_records_next(m, "stability", &i))) {
		gp_doc_cell(d, "%s", gp_jstr(o, "arm", ""));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "rate_rps")));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "reps")));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "cv")));
		gp_doc_cell(d, "%s", gp_jstr(o, "verdict", ""));
		gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "add_reps")));
		gp_doc_cell(d, "%s", gp_jstr(o, "footnote", ""));
	}
}

static void sec_integrity(struct gp_doc *d, const struct gp_records *m)
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 2, "Integrity: the independent re-derivation");
	if (!gp_records_count(m, "integrity")) {
		not_measured(d, "no integrity records (gp-verify publish)");
		return;
	}
	TABLE(d, "lll", "check", "result", "detail");
	while ((o = gp_records_next(m, "integrity", &i))) {
		int ok = gp_jtri(o, "ok");

		gp_doc_cell(d, "%s", gp_jstr(o, "check", ""));
		gp_doc_cell(d, "%s", ok == 1 ? "ok" : ok == 0 ? "FAIL" : "not checked");
		gp_doc_cell(d, "%s", gp_jstr(o, "detail", ""));
	}
}

static const char *proof_text(int ok, const char *evidence)
{
	if (ok < 0 && !strcmp(evidence, "not_applicable"))
		return "not applicable";
	return ok < 0 ? "not checked" : ok ? "yes" : "NO";
}

static void sec_dual(struct gp_doc *d, const struct gp_records *m)
{
	const json_t *o;
	size_t i = 0;

	gp_doc_heading(d, 2, "Dual proof: decision vs delivery");
	if (!gp_records_count(m, "dual_proof")) {
		not_measured(d, "no dual_proof records (gp-verify publish)");
		return;
	}
	TABLE(d, "llllll", "arm", "decision ok", "evidence", "delivery ok", "delivery evidence", "detail");
	while ((o = gp_records_next(m, "dual_proof", &i))) {
		gp_doc_cell(d, "%s", gp_jstr(o, "arm", ""));
		gp_doc_cell(d, "%s", proof_text(gp_jtri(o, "decision_ok"), gp_jstr(o, "evidence", "")));
		gp_doc_cell(d, "%s", gp_jstr(o, "evidence", "n/a"));
		gp_doc_cell(d, "%s", proof_text(gp_jtri(o, "delivery_ok"), gp_jstr(o, "delivery_evidence", "")));
		gp_doc_cell(d, "%s", gp_jstr(o, "delivery_evidence", "n/a"));
		gp_doc_cell(d, "%s", gp_jstr(o, "detail", ""));
	}
}

static void sec_inputs(struct gp_doc *d, const struct gp_records *m)
{
	static const char *const types[] = {
		"slo", "goodfrac", "arm_summary", "noise_floor", "compare", "knee", "discard", "validity",
		"knee_compare", "power", "rung_added", "ladder_limit", "stability", "integrity", "dual_proof", "verdict",
		"health", "health_summary", "calib_step",
		"capacity", "ladder", "probe_sample", "probe", "run", "run_end",
	};
	char *s = gp_xasprintf("%ld request", m->requests);

	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		size_t n = gp_records_count(m, types[k]);
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

static const json_t *cell_of(const struct gp_records *m, const char *type, const char *arm, double rate)
{
	const json_t *o;
	size_t i = 0;

	while ((o = gp_records_next(m, type, &i)))
		if (!strcmp(gp_jstr(o, "arm", ""), arm) && gp_same_rate(gp_jnum(o, "rate_rps"), rate))
			return o;
	return NULL;
}

static void summary(const struct gp_records *m, const struct opts *o, int plots)
{
	const json_t *s, *v = gp_records_last(m, "verdict");
	size_t i = 0;

	fprintf(stderr, "gp-report: wrote %s/report.md%s%s%s, %d plot%s\n", o->dir, o->html ? ", " : "",
		o->html ? o->dir : "", o->html ? "/report.html" : "", plots, plots == 1 ? "" : "s");
	if (gp_records_count(m, "arm_summary"))
		fprintf(stderr, "  %-12s %9s %5s %6s %8s  %-26s %s\n", "arm", "rate_rps", "reps", "good",
			"CV", "stability", "compare");
	while ((s = gp_records_next(m, "arm_summary", &i))) {
		const char *arm = gp_jstr(s, "arm", "");
		double r = gp_jnum(s, "rate_rps");
		const json_t *st = cell_of(m, "stability", arm, r), *c = cell_of(m, "compare", arm, r);
		char cmp[96] = "-";

		if (c)
			snprintf(cmp, sizeof(cmp), "%s vs %s", gp_jstr(c, "verdict", "?"), gp_jstr(c, "vs", "?"));
		fprintf(stderr, "  %-12s %9s %5s %6s %8s  %-26s %s\n", arm, gp_g4(r), gp_g4(gp_jnum(s, "reps")),
			gp_f3(gp_jnum(s, "mean_good_fraction")), gp_g4(gp_jnum(s, "cv")), st ? gp_jstr(st, "verdict", "?") : "-", cmp);
	}
	i = 0;
	while ((s = gp_records_next(m, "knee", &i))) {
		double r = gp_jnum(s, "rate_rps");

		if (isnan(r))
			fprintf(stderr, "  knee %s: no rung clears the target\n", gp_jstr(s, "arm", ""));
		else
			fprintf(stderr, "  knee %s: %s req/s offered, goodput %s req/s per accelerator\n",
				gp_jstr(s, "arm", ""), gp_g4(r), gp_g4(gp_jnum(s, "goodput_rps_per_accel")));
	}
	if (v)
		fprintf(stderr, "  verdict: %s (%zu reason%s)\n",
			gp_jtri(v, "publishable") == 1 ? "PUBLISHABLE" : "NOT PUBLISHABLE",
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

/* The by-turn table: per arm and rate, each turn's requests, good fraction
 * and TTFT, and the sessions all of whose turns were good. */
static void sec_turns(struct gp_doc *d, const struct gp_records *m, int drawn)
{
	const json_t *o;
	size_t i = 0;

	if (!gp_records_count(m, "turns"))
		return;		/* no sessions in the campaign: no section */
	gp_doc_heading(d, 2, "Sessions: by turn");
	if (drawn)
		gp_doc_figure(d, "turns.png", "turns.svg",
			      "TTFT by turn of the session per arm: p50 solid, p90 dashed.");
	TABLE(d, "lrlrrrrrr", "arm", "rate (req/s)", "turn", "attempted", "good fraction", "TTFT p50 (ms)",
	      "TTFT p90 (ms)", "sessions good", "of sessions");
	while ((o = gp_records_next(m, "turns", &i))) {
		const json_t *by = json_object_get(o, "by_turn");

		for (size_t j = 0; j < json_array_size(by); j++) {
			const json_t *t = json_array_get(by, j);

			gp_doc_cell(d, "%s", gp_jstr(o, "arm", ""));
			gp_doc_cell(d, "%s", gp_g4(gp_jnum(o, "rate_rps")));
			gp_doc_cell(d, "%s", gp_jstr(t, "turn", "?"));
			gp_doc_cell(d, "%s", gp_g4(gp_jnum(t, "attempted")));
			gp_doc_cell(d, "%s", gp_f3(gp_jnum(t, "good_fraction")));
			gp_doc_cell(d, "%s", gp_ms(gp_jnum(t, "ttft_p50_ms")));
			gp_doc_cell(d, "%s", gp_ms(gp_jnum(t, "ttft_p90_ms")));
			gp_doc_cell(d, "%s", j ? "" : gp_g4(gp_jnum(o, "sessions_good")));
			gp_doc_cell(d, "%s", j ? "" : gp_g4(gp_jnum(o, "sessions")));
		}
	}
}


static void draw(const struct gp_records *m, const struct opts *o, double rate, struct gp_plot_drawn *dr)
{
	char *gdir, msg[1024];
	enum gp_plot_err err;

	if (o->no_plots)
		return;
	gdir = gp_xasprintf("%s/gnuplot", o->dir);
	mkdirs(gdir);
	err = gp_plot_draw(m, o->gnuplot, gdir, rate, dr, msg, sizeof(msg));
	switch (err) {
	case GP_PLOT_OK: break;
	case GP_PLOT_STOPPED: gp_stop_point(NULL); break;
	case GP_PLOT_ENOMEM: gp_die_nomem();
	case GP_PLOT_EIO: gp_die(GP_EXIT_IOERR, "%s", msg);
	case GP_PLOT_ERUN: gp_die(GP_EXIT_UNAVAILABLE, "%s", msg);
	case GP_PLOT_EDRAW: gp_die(GP_EXIT_SOFTWARE, "%s", msg);
	}
	free(gdir);
}

static struct gp_doc *build(const struct gp_records *m, const struct opts *o, double rate, const char *why,
			    const struct gp_plot_drawn *dr)
{
	struct gp_doc *d = gp_doc_new("gp campaign report");

	if (!d)
		gp_die_nomem();
	if (o->no_plots)
		gp_doc_para(d, "Plots not drawn (--no-plots).");
	sec_verdict(d, m);
	sec_headline(d, m, dr->goodfrac);
	sec_reasons(d, m);
	sec_knee(d, m);
	sec_slo(d, m);
	sec_protocol(d, m, o);
	sec_health(d, m);
	sec_calib(d, m, dr->calib);
	sec_grown(d, m);
	sec_probe(d, m, dr->probe);
	sec_goodfrac(d, m, dr->goodfrac);
	sec_latency(d, m, rate, why, dr->cdf);
	sec_turns(d, m, dr->turns);
	sec_asked(d, m, o);
	sec_compare(d, m);
	sec_power(d, m);
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
	struct gp_records m = { 0 };
	struct gp_plot_drawn dr = { 0 };
	struct gp_doc *d;
	const char *why = "";
	double rate;

	gp_log_init(argv[0]);
	gp_sig_install();
	parse(argc, argv, &o);
	load(&m, argv + optind, argc - optind);
	if (gp_records_palette(&m))
		gp_die_nomem();
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
	gp_records_release(&m);
	return GP_EXIT_OK;
}

