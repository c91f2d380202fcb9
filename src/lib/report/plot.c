/* SPDX-License-Identifier: MIT */
/* plot — gp-report's plots, drawn by gnuplot (plot.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/plot.h"
#include "report/model.h"
#include "io/child.h"
#include "io/json.h"
#include "stats/stats.h"
#include "base/buf.h"
#include "base/sig.h"
#include "base/vec.h"
#include "base/banned.h"

/*
 * One gp_plot_draw.  An error anywhere below formats the message into msg
 * and unwinds to gp_plot_draw (longjmp): the drawing code reads as if
 * nothing could fail, and no failure exits.
 */
struct plotter {
	const char *gnuplot;
	const char *gdir;	/* DIR/gnuplot */
	int drawn;
	enum gp_plot_err err;
	char *msg;
	size_t msglen;
	jmp_buf fail;
};

static void fail(struct plotter *p, enum gp_plot_err err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
static void fail(struct plotter *p, enum gp_plot_err err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (p->msglen)
		vsnprintf(p->msg, p->msglen, fmt, ap);
	va_end(ap);
	p->err = err;
	longjmp(p->fail, 1);
}

static char *px_asprintf(struct plotter *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *px_asprintf(struct plotter *p, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = gp_vstrfmt(fmt, ap);
	va_end(ap);
	if (!s)
		fail(p, GP_PLOT_ENOMEM, "out of memory");
	return s;
}

static char *px_strdup(struct plotter *p, const char *s)
{
	char *d = strdup(s);

	if (!d)
		fail(p, GP_PLOT_ENOMEM, "out of memory");
	return d;
}

static void *px_realloc(struct plotter *p, void *v, size_t n)
{
	void *r = realloc(v, n ? n : 1);

	if (!r)
		fail(p, GP_PLOT_ENOMEM, "out of memory");
	return r;
}

/* Room for one more element at index n of v (base/vec.h). */
#define PX_GROW(p, v, n, cap, min) do { \
	if ((n) >= (cap)) { \
		void *g_ = gp_grow((v), &(cap), (size_t)(n) + 1, sizeof(*(v)), (min)); \
		if (!g_) \
			fail((p), GP_PLOT_ENOMEM, "out of memory"); \
		(v) = g_; \
	} \
} while (0)

static FILE *xfopen(struct plotter *p, const char *path, const char *mode)
{
	FILE *f = fopen(path, mode);

	if (!f)
		fail(p, GP_PLOT_EIO, "cannot write %s: %s", path, strerror(errno));
	return f;
}

static void xfclose(struct plotter *p, FILE *f, const char *path)
{
	if (ferror(f) | fclose(f))
		fail(p, GP_PLOT_EIO, "cannot write %s: %s", path, strerror(errno));
}

/* The first SIGINT/SIGTERM (sig.h): remove a and b, the files being
 * written, and stop.  Otherwise return. */
static void stop_removing(struct plotter *p, const char *a, const char *b)
{
	if (gp_sig_stop_unlink(a, b))
		fail(p, GP_PLOT_STOPPED, "interrupted");
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
static char *log_tail(struct plotter *p, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], last[512] = "";

	if (!f)
		return px_strdup(p, "");
	while (fgets(line, sizeof(line), f))
		if (line[0] != '\n')
			memcpy(last, line, sizeof(last));
	fclose(f);
	last[strcspn(last, "\n")] = 0;
	return px_strdup(p, last);
}

/*
 * Write DIR/gnuplot/NAME.gp: the body (the plot commands of body_text,
 * without terminal or output) once for PNG and once for SVG, then run
 * gnuplot on it in DIR/gnuplot.  Exit 69 when gnuplot cannot be started,
 * 70 when it fails or leaves no image.
 */
static void render(struct plotter *p, const char *name, const char *body, int w, int h)
{
	char *gp = px_asprintf(p, "%s/%s.gp", p->gdir, name), *logp = px_asprintf(p, "%s/%s.log", p->gdir, name);
	char *script = px_asprintf(p, "%s.gp", name);
	char *argv[] = { (char *)p->gnuplot, script, NULL };
	char *png = px_asprintf(p, "%s/../%s.png", p->gdir, name), *svg = px_asprintf(p, "%s/../%s.svg", p->gdir, name);
	FILE *f;
	int fd, rc;
	struct stat sb;

	stop_removing(p, NULL, NULL);
	f = xfopen(p, gp, "w");

	fprintf(f, "# gp-report: %s — re-run with: gnuplot %s.gp (in this directory)\n", name, name);
	fprintf(f, "set encoding utf8\nset termoption noenhanced\n");
	fprintf(f, "set terminal pngcairo size %d,%d font 'DejaVu Sans,11' noenhanced\n", w, h);
	fprintf(f, "set output '../%s.png'\n%s\nunset multiplot\nset output\n", name, body);
	fprintf(f, "set terminal svg size %d,%d dynamic font 'DejaVu Sans,11' noenhanced\n", w, h);
	fprintf(f, "set output '../%s.svg'\n%s\nunset multiplot\nset output\n", name, body);
	xfclose(p, f, gp);
	/* an image left by an earlier report is not this plot's */
	unlink(png);
	unlink(svg);
	fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		fail(p, GP_PLOT_EIO, "cannot write %s: %s", logp, strerror(errno));
	rc = gp_child_run(argv, p->gdir, -1, fd);
	close(fd);
	/* A signal while gnuplot drew (SIGINT from a terminal reaches it too):
	 * its images may be half written. */
	stop_removing(p, png, svg);
	if (rc == -ENOENT)
		fail(p, GP_PLOT_ERUN, "cannot run %s: not found (install gnuplot-nox, or use --no-plots)",
		     p->gnuplot);
	if (rc < 0)
		fail(p, GP_PLOT_ERUN, "cannot run %s: %s", p->gnuplot, strerror(-rc));
	if (rc) {
		char *t = log_tail(p, logp);

		/* what a failed gnuplot left is no plot */
		unlink(png);
		unlink(svg);
		fail(p, GP_PLOT_EDRAW, "%s failed on %s (exit %d)%s%s", p->gnuplot, gp, rc,
		     *t ? ": " : "", t);
	}
	if (stat(png, &sb) || sb.st_size == 0)
		fail(p, GP_PLOT_EDRAW, "%s wrote no %s (see %s)", p->gnuplot, png, logp);
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

static FILE *body_open(struct plotter *p, struct body *b)
{
	b->s = NULL;
	b->len = 0;
	b->f = open_memstream(&b->s, &b->len);
	if (!b->f)
		fail(p, GP_PLOT_ENOMEM, "out of memory");
	return b->f;
}

static char *body_close(struct plotter *p, struct body *b)
{
	if (fclose(b->f))
		fail(p, GP_PLOT_ENOMEM, "out of memory");
	return b->s;
}

static const char *const colors[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
};
#define COLOR(i) colors[(i) % (sizeof(colors) / sizeof(colors[0]))]

static const char *arm_color(const struct gp_records *m, const char *arm)
{
	return COLOR(gp_records_slot(m, arm));
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
static size_t arms_of(struct plotter *p, const struct gp_records *m, const char *type, const char ***out)
{
	const char **v = NULL;
	size_t n = 0, i = 0, cap = 0;
	const json_t *o;

	while ((o = gp_records_next(m, type, &i))) {
		const char *a = gp_jstr(o, "arm", "");
		size_t k;

		for (k = 0; k < n && strcmp(v[k], a); k++)
			;
		if (k == n) {
			PX_GROW(p, v, n, cap, 8);
			v[n++] = a;
		}
	}
	*out = v;
	return n;
}

static const json_t *knee_of(const struct gp_records *m, const char *arm)
{
	const json_t *o, *k = NULL;
	size_t i = 0;

	while ((o = gp_records_next(m, "knee", &i)))
		if (!strcmp(gp_jstr(o, "arm", ""), arm))
			k = o;
	return k;
}


struct pt {
	double x, y, lo, hi;
};

static int cmp_pt(const void *a, const void *b)
{
	double x = ((const struct pt *)a)->x, y = ((const struct pt *)b)->x;

	return (x > y) - (x < y);
}

/* The arm's (rate, mean good fraction, CI) points, ascending. */
static size_t arm_curve(struct plotter *p, const struct gp_records *m, const char *arm, struct pt **out)
{
	struct pt *v = NULL;
	size_t n = 0, i = 0, cap = 0;
	const json_t *o;

	while ((o = gp_records_next(m, "arm_summary", &i))) {
		const json_t *ci = json_object_get(o, "good_fraction_ci");
		double y = gp_jnum(o, "mean_good_fraction");

		if (strcmp(gp_jstr(o, "arm", ""), arm) || isnan(y))
			continue;
		PX_GROW(p, v, n, cap, 8);
		v[n].x = gp_jnum(o, "rate_rps");
		v[n].y = y;
		v[n].lo = isnan(gp_jnum(ci, "lo")) ? y : gp_jnum(ci, "lo");
		v[n].hi = isnan(gp_jnum(ci, "hi")) ? y : gp_jnum(ci, "hi");
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_pt);
	*out = v;
	return n;
}

/* The arm's key entry: its name, and its knee or why there is none. */
static char *arm_title(struct plotter *p, const struct gp_records *m, const char *arm, int *has_knee)
{
	const json_t *k = knee_of(m, arm);
	double r = gp_jnum(k, "rate_rps"), a;

	*has_knee = k && !isnan(r) && !isnan(gp_jnum(k, "good_fraction"));
	if (!k)
		return px_asprintf(p, "%s (no knee record)", arm);
	if (isnan(r))
		return px_asprintf(p, "%s (no rung clears the target: no knee)", arm);
	a = gp_records_achieved(m, arm, r);
	if (isnan(a))
		return px_asprintf(p, "%s (knee: %s req/s offered)", arm, gp_g4(r));
	return px_asprintf(p, "%s (knee: %s req/s offered, %s req/s achieved)", arm, gp_g4(r), gp_g4(a));
}

static char *dat_name(struct plotter *p, const char *name, size_t i)
{
	return px_asprintf(p, "%s-%zu.dat", name, i);
}

static FILE *dat_open(struct plotter *p, const char *name, size_t i, char **path)
{
	char *n = dat_name(p, name, i);

	*path = px_asprintf(p, "%s/%s", p->gdir, n);
	free(n);
	return xfopen(p, *path, "w");
}

static void plot_goodfrac_arm(struct plotter *p, const struct gp_records *m, FILE *f, size_t a,
			      const char *arm, double *xmax, double yr[2])
{
	struct pt *v;
	size_t n = arm_curve(p, m, arm, &v);
	const json_t *k = knee_of(m, arm);
	int has_knee;
	char *path, *title = arm_title(p, m, arm, &has_knee);
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
			gp_jnum(k, "rate_rps"), gp_jnum(k, "good_fraction"));
	xfclose(p, d, path);
	/* A dash type per arm, and knee circles of a size per arm: arms whose
	 * curves or knees coincide stay told apart. */
	fprintf(f, "%s'goodfrac-%zu.dat' index 0 using 1:2:3:4 with yerrorlines lw 2 dt %d pt %d ps 0.9 lc rgb '%s' title ",
		a ? ", \\\n     " : "", a, dash_type(gp_records_slot(m, arm)), point_type(gp_records_slot(m, arm)),
		arm_color(m, arm));
	gq(f, title);
	if (has_knee)
		fprintf(f, ", \\\n     'goodfrac-%zu.dat' index 1 using 1:2 with points pt 6 ps %.1f lw 2 lc rgb '%s' notitle",
			a, 3.0 + 1.2 * (double)(gp_records_slot(m, arm) % 4), arm_color(m, arm));
	free(title);
	free(path);
	free(v);
}

static int plot_goodfrac(struct plotter *p, const struct gp_records *m)
{
	const char **arms;
	size_t na = arms_of(p, m, "arm_summary", &arms);
	struct body b, pl;
	FILE *f, *g;
	double xmax = 0, t = gp_records_target(m), yr[2] = { 0, 1 };
	char *body, *plot;

	if (!na) {
		free(arms);
		return 0;
	}
	f = body_open(p, &b);
	g = body_open(p, &pl);
	style(f);
	fputs("set title 'Good fraction vs offered rate (bars: CI over reps; open circle: the knee)'\n"
	      "set xlabel 'offered rate (req/s)'\n"
	      "set ylabel 'good fraction (TTFT and TPOT within the SLO)'\nset ytics 0.1\n", f);
	fputs("plot ", g);
	for (size_t a = 0; a < na; a++)
		plot_goodfrac_arm(p, m, g, a, arms[a], &xmax, yr);
	plot = body_close(p, &pl);
	fprintf(f, "set xrange [0:%.17g]\n", xmax > 0 ? xmax * 1.08 : 1);
	/* the whole of every interval is shown, even past 0 or 1 */
	fprintf(f, "set yrange [%.17g:%.17g]\n", yr[0] < 0 ? yr[0] - 0.02 : 0, fmax(1.05, yr[1] + 0.02));
	if (!isnan(t))
		fprintf(f, "set arrow from graph 0, first %.17g to graph 1, first %.17g nohead dt 2 lw 1.5 lc rgb '#444444'\n"
			"set label 'target %s' at graph 0.01, first %.17g offset 0,-0.8 tc rgb '#444444'\n",
			t, t, gp_g4(t), t);
	fprintf(f, "%s\n", plot);
	body = body_close(p, &b);
	render(p, "goodfrac", body, 900, 620);
	free(body);
	free(plot);
	free(arms);
	return 1;
}

/* Values of metric (0 TTFT, 1 TPOT) of arm's requests at rate, ascending;
 * *attempted gets the arm's request count there. */
static size_t arm_values(struct plotter *p, const struct gp_records *m, size_t arm, double rate, int metric,
			 double **out, long *attempted)
{
	double *v = px_realloc(p, NULL, (m->nq + 1) * sizeof(*v));
	size_t n = 0;

	*attempted = 0;
	for (size_t i = 0; i < m->nq; i++) {
		const struct gp_req *q = &m->q[i];
		double x = metric ? q->tpot : q->ttft;

		if (q->arm != arm || !gp_same_rate(q->rate, rate))
			continue;
		(*attempted)++;
		if (!isnan(x))
			v[n++] = x;
	}
	gp_sort_doubles(v, n);
	*out = v;
	return n;
}

#define CDF_POINTS 1500

static int plot_cdf(struct plotter *p, const struct gp_records *m, double rate, int metric)
{
	const char *what = metric ? "TPOT" : "TTFT", *name = metric ? "tpot_cdf" : "ttft_cdf";
	double slo = gp_jnum(gp_records_last(m, "slo"), metric ? "tpot_ms" : "ttft_ms"), xmax = 0;
	struct body b;
	FILE *f = body_open(p, &b);
	char *body;
	int any = 0;

	style(f);
	fprintf(f, "set title '%s CDF per arm at %s req/s (requests with a %s)'\n", what, gp_g4(rate), what);
	fprintf(f, "set xlabel '%s (ms)'\nset ylabel 'fraction of requests with %s <= x'\n", what, what);
	fprintf(f, "set yrange [0:1.02]\nset ytics 0.1\n");
	fputs("plot ", f);
	for (size_t a = 0; a < m->narms; a++) {
		double *v;
		long att;
		size_t n = arm_values(p, m, a, rate, metric, &v, &att);
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
		xfclose(p, d, path);
		t = px_asprintf(p, "%s (%zu of %ld requests have a %s)", m->arms[a], n, att, what);
		/* Drawn first, drawn widest: a curve that another covers exactly
		 * still shows at its edges (and in its dashes). */
		fprintf(f, "%s'%s-%zu.dat' using 1:2 with steps lw %.1f dt %d lc rgb '%s' title ",
			any ? ", \\\n     " : "", name, a, 2.0 + 2.0 * (double)((m->narms - 1 - a) % 3),
			dash_type(gp_records_slot(m, m->arms[a])), arm_color(m, m->arms[a]));
		gq(f, t);
		any = 1;
		free(t);
		free(path);
		free(v);
	}
	if (!isnan(slo))
		fprintf(f, ", \\\n     NaN with lines dt 2 lw 2 lc rgb '#000000' title '%s SLO %s ms'", what, gp_g4(slo));
	fputc('\n', f);
	body = body_close(p, &b);
	if (any) {
		char *line = isnan(slo) ? px_strdup(p, "") :
			px_asprintf(p, "set arrow from first %.17g, graph 0 to first %.17g, graph 1 nohead dt 2 lw 2 lc rgb '#000000'\n",
				  slo, slo);
		char *full;

		if (!isnan(slo))
			xmax = fmax(xmax, slo);
		full = px_asprintf(p, "set xrange [0:%.17g]\n%s%s", xmax > 0 ? xmax * 1.05 : 1, line, body);
		render(p, name, full, 900, 560);
		free(full);
		free(line);
	}
	free(body);
	return any;
}

static const json_t *probe_of(const struct gp_records *m, const char *arm)
{
	const json_t *o, *k = NULL;
	size_t i = 0;

	while ((o = gp_records_next(m, "probe", &i)))
		if (!strcmp(gp_jstr(o, "arm", ""), arm))
			k = o;
	return k;
}

static int plot_probe(struct plotter *p, const struct gp_records *m)
{
	const char **arms;
	size_t na = arms_of(p, m, "probe_sample", &arms);
	struct body b;
	FILE *f;
	char *body;

	if (!na) {
		free(arms);
		return 0;
	}
	f = body_open(p, &b);
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

		while ((o = gp_records_next(m, "probe_sample", &i))) {
			if (strcmp(gp_jstr(o, "arm", ""), arms[a]) || isnan(gp_jnum(o, "peak_to_mean")))
				continue;
			/* Each probe round starts its clock at 0: a line back to it
			 * would be drawn across the plot. */
			if (round && (!gp_same_str(round, gp_jstr(o, "run", NULL)) || gp_jnum(o, "t_s") < t0))
				fputc('\n', d);
			round = gp_jstr(o, "run", "");
			t0 = gp_jnum(o, "t_s");
			fprintf(d, "%.17g %.17g\n", t0, gp_jnum(o, "peak_to_mean"));
		}
		xfclose(p, d, path);
		if (pr)
			t = px_asprintf(p, "%s (expect %s: concentration %s, %s)", arms[a],
				      gp_jstr(pr, "expect", "?"), gp_g4(gp_jnum(pr, "concentration")),
				      gp_jtri(pr, "engaged") == 1 ? "engaged" : "NOT engaged");
		else
			t = px_asprintf(p, "%s (no probe verdict record)", arms[a]);
		fprintf(f, "%s'probe-%zu.dat' using 1:2 with linespoints lw 2 pt %d ps 0.6 lc rgb '%s' title ",
			a ? ", \\\n     " : "", a, point_type(gp_records_slot(m, arms[a])), arm_color(m, arms[a]));
		gq(f, t);
		free(t);
		free(path);
	}
	fputc('\n', f);
	body = body_close(p, &b);
	render(p, "probe", body, 900, 560);
	free(body);
	free(arms);
	return 1;
}

/* The queue-depth field calib_step records carry, or NULL. */
static const char *const depth_fields[] = {
	"queue_mean", "queue_depth_max", "queue_depth", "peak_inflight", NULL,
};

static const char *depth_field(const struct gp_records *m)
{
	for (size_t k = 0; depth_fields[k]; k++) {
		const json_t *o;
		size_t i = 0;

		while ((o = gp_records_next(m, "calib_step", &i)))
			if (!isnan(gp_jnum(o, depth_fields[k])))
				return depth_fields[k];
	}
	return NULL;
}

static void calib_data(struct plotter *p, const struct gp_records *m, const char *ep, size_t e,
		       const char *depth)
{
	const json_t *o;
	size_t i = 0;
	char *path;
	FILE *d = dat_open(p, "calib", e, &path);

	fprintf(d, "# endpoint %s: offered_rps delivered_tok_s %s suspect (calib_step)\n", ep,
		depth ? depth : "queue_diverging");
	double x0 = -INFINITY;

	while ((o = gp_records_next(m, "calib_step", &i))) {
		double q = depth ? gp_jnum(o, depth) : gp_jtri(o, "queue_diverging") == 1;

		if (strcmp(gp_endpoint_of(o), ep))
			continue;
		if (gp_jnum(o, "offered_rps") < x0)	/* another calibration of it: its own line */
			fputc('\n', d);
		x0 = gp_jnum(o, "offered_rps");
		fprintf(d, "%.17g %.17g %.17g %d\n", gp_jnum(o, "offered_rps"), gp_jnum(o, "delivered_tok_s"),
			q, gp_jtri(o, "suspect") == 1);
	}
	xfclose(p, d, path);
	free(path);
}

/* The capacity_tok_s of endpoint ep's (last) capacity record, or NaN. */
static double capacity_of(const struct gp_records *m, const char *ep)
{
	const json_t *o;
	size_t i = 0;
	double c = NAN;

	while ((o = gp_records_next(m, "capacity", &i)))
		if (!strcmp(gp_endpoint_of(o), ep))
			c = gp_jnum(o, "capacity_tok_s");
	return c;
}

static int plot_calib(struct plotter *p, const struct gp_records *m)
{
	const char **eps = NULL, *depth = depth_field(m);
	char **labels;
	size_t ne = 0, i = 0, cap = 0;
	const json_t *o;
	struct body b;
	FILE *f;
	char *body;

	while ((o = gp_records_next(m, "calib_step", &i))) {
		size_t k;

		for (k = 0; k < ne && strcmp(eps[k], gp_endpoint_of(o)); k++)
			;
		if (k == ne) {
			PX_GROW(p, eps, ne, cap, 8);
			eps[ne++] = gp_endpoint_of(o);
		}
	}
	if (!ne)
		return 0;
	labels = px_realloc(p, NULL, ne * sizeof(*labels));
	for (size_t e = 0; e < ne; e++) {
		for (i = 0; (o = gp_records_next(m, "calib_step", &i)) && strcmp(gp_endpoint_of(o), eps[e]);)
			;
		labels[e] = px_strdup(p, gp_endpoint_label(o));
	}
	f = body_open(p, &b);
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
	body = body_close(p, &b);
	render(p, "calib", body, 900, 800);
	free(body);
	for (size_t e = 0; e < ne; e++)
		free(labels[e]);
	free(labels);
	free(eps);
	return 1;
}

/*
 * The by-turn plot :
 * per turns record (an arm at a rate), TTFT p50 (solid) and p90 (dashed) at
 * turn 1, 2 and 3+.  An affinity gateway shows turn >= 2 far below turn 1
 * (the history hits a prefix cache); round robin does not.
 */
static int plot_turns(struct plotter *p, const struct gp_records *m)
{
	const json_t *o;
	size_t i = 0, k = 0;
	struct body b;
	FILE *f;
	char *body;

	if (!gp_records_count(m, "turns"))
		return 0;
	f = body_open(p, &b);
	style(f);
	fputs("set title 'Sessions: TTFT by turn (solid p50, dashed p90)'\n"
	      "set xlabel 'turn of the session'\nset ylabel 'TTFT (ms)'\n"
	      "set xtics ('1' 1, '2' 2, '3+' 3)\nset xrange [0.7:3.3]\nset yrange [0:*]\nplot ", f);
	while ((o = gp_records_next(m, "turns", &i))) {
		const char *arm = gp_jstr(o, "arm", "");
		const json_t *by = json_object_get(o, "by_turn");
		char *path, *t;
		FILE *d = dat_open(p, "turns", k, &path);

		fprintf(d, "# arm %s at %s req/s: turn ttft_p50_ms ttft_p90_ms good_fraction (turns)\n",
			arm, gp_g4(gp_jnum(o, "rate_rps")));
		for (size_t j = 0; j < json_array_size(by); j++) {
			const json_t *t1 = json_array_get(by, j);

			if (!isnan(gp_jnum(t1, "ttft_p50_ms")))
				fprintf(d, "%zu %.17g %.17g %.17g\n", j + 1, gp_jnum(t1, "ttft_p50_ms"),
					gp_jnum(t1, "ttft_p90_ms"), gp_jnum(t1, "good_fraction"));
		}
		xfclose(p, d, path);
		t = px_asprintf(p, "%s @ %s req/s", arm, gp_g4(gp_jnum(o, "rate_rps")));
		fprintf(f, "%s'turns-%zu.dat' using 1:2 with linespoints lw 2 pt %d lc rgb '%s' title ",
			k ? ", \\\n     " : "", k, point_type(gp_records_slot(m, arm)), arm_color(m, arm));
		gq(f, t);
		fprintf(f, ", \\\n     'turns-%zu.dat' using 1:3 with linespoints lw 1 dt 2 pt %d lc rgb '%s' notitle",
			k, point_type(gp_records_slot(m, arm)), arm_color(m, arm));
		free(t);
		free(path);
		k++;
	}
	fputc('\n', f);
	body = body_close(p, &b);
	render(p, "turns", body, 900, 560);
	free(body);
	return 1;
}

enum gp_plot_err gp_plot_draw(const struct gp_records *m, const char *gnuplot, const char *gdir,
			      double rate, struct gp_plot_drawn *dr, char *msg, size_t msglen)
{
	/* On the heap: what longjmp returns to must not be an automatic
	 * object changed since setjmp. */
	struct plotter *p = calloc(1, sizeof(*p));
	enum gp_plot_err err;

	if (!p) {
		snprintf(msg, msglen, "out of memory");
		return GP_PLOT_ENOMEM;
	}
	p->gnuplot = gnuplot;
	p->gdir = gdir;
	p->msg = msg;
	p->msglen = msglen;
	if (setjmp(p->fail) == 0) {
		dr->goodfrac = plot_goodfrac(p, m);
		if (!isnan(rate)) {
			dr->cdf[0] = plot_cdf(p, m, rate, 0);
			dr->cdf[1] = plot_cdf(p, m, rate, 1);
		}
		dr->probe = plot_probe(p, m);
		dr->calib = plot_calib(p, m);
		dr->turns = plot_turns(p, m);
	}
	dr->n = p->drawn;
	err = p->err;
	free(p);
	return err;
}
