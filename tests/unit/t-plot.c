/* SPDX-License-Identifier: MIT */
/*
 * t-plot — gp-report's plots (report/plot.h) with stand-in gnuplots (shell
 * scripts): the script and data files written, what a drawn plot needs,
 * and each failure as its class and message, never an exit.  A failed
 * gp_plot_draw does not reclaim the plot under way (plot.h), so the
 * failures run in a child that ends with _exit (no leak report).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/json.h"
#include "report/plot.h"
#include "fork.h"
#include "tap.h"

static char dir[] = "/tmp/t-plot.XXXXXX", gdir[64], prog_ok[96], prog_bad[96], prog_noimg[96];
static struct gp_records M;

static void script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");

	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
}

static void add(const char *text)
{
	json_t *o = json_loads(text, 0, NULL);

	if (!o || gp_records_add(&M, o, gp_json_type(o), "in", 1))
		abort();
}

struct run {
	const char *prog, *gdir;
};

/* A failing draw in a child: its class as the exit status, its message on stderr. */
static void draw_child(void *a)
{
	const struct run *r = a;
	struct gp_plot_drawn dr = { 0 };
	char msg[512];
	enum gp_plot_err e = gp_plot_draw(&M, r->prog, r->gdir, NAN, &dr, msg, sizeof(msg));

	fputs(msg, stderr);
	fflush(stderr);
	_exit((int)e);
}

static int contains(const char *path, const char *what)
{
	char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
	return strstr(buf, what) != NULL;
}

int main(void)
{
	struct gp_plot_drawn dr = { 0 };
	char msg[512], err[512], path[128];
	struct run r;

	if (!mkdtemp(dir))
		return 1;
	snprintf(gdir, sizeof(gdir), "%s/gnuplot", dir);
	mkdir(gdir, 0755);
	/* gnuplot runs in gdir with NAME.gp: an image is ../NAME.png */
	snprintf(prog_ok, sizeof(prog_ok), "%s/ok-gnuplot", dir);
	script(prog_ok, "n=${1%.gp}; echo png >../$n.png; echo svg >../$n.svg");
	snprintf(prog_bad, sizeof(prog_bad), "%s/bad-gnuplot", dir);
	script(prog_bad, "echo \"line 3: undefined variable: x\" >&2; exit 3");
	snprintf(prog_noimg, sizeof(prog_noimg), "%s/lazy-gnuplot", dir);
	script(prog_noimg, "exit 0");

	is_int(gp_records_palette(&M), 0, "no records: a palette");
	is_int(gp_plot_draw(&M, "/nonexistent/gnuplot", gdir, NAN, &dr, msg, sizeof(msg)), GP_PLOT_OK,
	       "nothing to draw: OK, gnuplot never run");
	is_int(dr.n, 0, "no plot");

	add("{\"type\":\"arm_summary\",\"arm\":\"rr\",\"rate_rps\":4,\"mean_good_fraction\":0.95,"
	    "\"good_fraction_ci\":{\"lo\":0.9,\"hi\":0.99}}");
	add("{\"type\":\"arm_summary\",\"arm\":\"rr\",\"rate_rps\":8,\"mean_good_fraction\":0.5}");
	add("{\"type\":\"knee\",\"arm\":\"rr\",\"rate_rps\":4,\"good_fraction\":0.95,\"target\":0.9}");
	is_int(gp_records_palette(&M), 0, "the palette");
	is_int(gp_plot_draw(&M, prog_ok, gdir, NAN, &dr, msg, sizeof(msg)), GP_PLOT_OK,
	       "the good-fraction plot drawn (%s)", msg);
	ok(dr.goodfrac == 1 && dr.n == 1 && !dr.probe && !dr.calib, "one plot: goodfrac only");
	snprintf(path, sizeof(path), "%s/goodfrac.gp", gdir);
	ok(contains(path, "set terminal pngcairo size 900,620") && contains(path, "set output '../goodfrac.svg'"),
	   "its script draws PNG then SVG");
	ok(contains(path, "rr (knee: 4 req/s offered)"), "the arm's key names its knee");
	ok(contains(path, "first 0.90000000000000002 "), "the target line at 0.9");
	snprintf(path, sizeof(path), "%s/goodfrac-0.dat", gdir);
	ok(contains(path, "4 0.94999999999999996 0.90000000000000002 0.98999999999999999\n"
			  "8 0.5 0.5 0.5\n"), "its data: rate, mean, CI (the mean without one), ascending");

	r = (struct run){ "/nonexistent/gnuplot", gdir };
	is_int(fork_run(draw_child, &r, err, sizeof(err)), GP_PLOT_ERUN, "gnuplot missing: ERUN");
	ok(strstr(err, "cannot run /nonexistent/gnuplot: not found") != NULL, "and says so (%s)", err);
	r = (struct run){ prog_bad, gdir };
	is_int(fork_run(draw_child, &r, err, sizeof(err)), GP_PLOT_EDRAW, "gnuplot failing: EDRAW");
	ok(strstr(err, "failed on") && strstr(err, "(exit 3): line 3: undefined variable: x"),
	   "with its exit status and its last message (%s)", err);
	r = (struct run){ prog_noimg, gdir };
	is_int(fork_run(draw_child, &r, err, sizeof(err)), GP_PLOT_EDRAW, "no image written: EDRAW");
	ok(strstr(err, "wrote no") != NULL, "named (%s)", err);
	r = (struct run){ prog_ok, "/nonexistent/dir/gnuplot" };
	is_int(fork_run(draw_child, &r, err, sizeof(err)), GP_PLOT_EIO, "a data file that cannot be written: EIO");
	ok(strstr(err, "cannot write /nonexistent/dir/gnuplot/goodfrac-0.dat") != NULL, "names it (%s)", err);

	gp_records_release(&M);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			return 1;
	}
	return done_testing();
}
