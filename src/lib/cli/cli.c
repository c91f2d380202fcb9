/* SPDX-License-Identifier: MIT */
/* cli — the tool conventions: options, --help/--version, outputs, inputs that end a tool. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/log.h"
#include "io/json.h"
#include "io/ndjson.h"
#include "base/sig.h"

#ifndef GP_VERSION
#define GP_VERSION "0.1"
#endif

json_t *gp_input_need_object(struct gp_input *in, const char *line, size_t len)
{
	json_t *o = NULL;
	int e = gp_input_parse_object(in, line, len, &o);

	if (e < 0)
		gp_input_failed(in, e);
	return o;
}

double gp_opt_double(const char *opt, const char *arg, double min, double max)
{
	double v;

	if (gp_parse_double(arg, min, max, &v))
		gp_usage_error("%s: '%s' is not a number in [%g, %g]", opt, arg ? arg : "", min, max);
	return v;
}

long gp_opt_long(const char *opt, const char *arg, long min, long max)
{
	long v;

	if (gp_parse_long(arg, min, max, &v))
		gp_usage_error("%s: '%s' is not an integer in [%ld, %ld]", opt, arg ? arg : "", min, max);
	return v;
}

uint64_t gp_opt_u64(const char *opt, const char *arg)
{
	uint64_t v;

	if (gp_parse_u64(arg, &v))
		gp_usage_error("%s: '%s' is not a non-negative integer", opt, arg ? arg : "");
	return v;
}

/* A write failed with errno e: a closed pipe is a quiet 1, the rest 74.  Once
 * a signal asked us to stop (sig.h), a write it interrupted, or a reader that
 * it stopped first, is 128+N. */
static _Noreturn void write_failed(int e, const char *name)
{
	if ((e == EINTR || e == EPIPE) && gp_sig_stop())
		exit(128 + gp_sig_stop());
	if (e == EPIPE)
		exit(GP_EXIT_NEGATIVE);
	gp_die(GP_EXIT_IOERR, "%s: write error: %s", name ? name : "stdout", strerror(e));
}

void gp_stdout_close(void)
{
	int bad = fflush(stdout) != 0 || ferror(stdout);
	int e = errno;

	if (fclose(stdout) && !bad) {
		bad = 1;
		e = errno;
	}
	if (bad)
		write_failed(e, "stdout");
}

static _Noreturn void close_exit(void)
{
	gp_stdout_close();
	exit(GP_EXIT_OK);
}

void gp_print_help(const char *usage)
{
	fputs(usage, stdout);
	close_exit();
}

void gp_print_version(void)
{
	printf("%s (gp) %s\n", gp_progname(), GP_VERSION);
	close_exit();
}

int gp_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts)
{
	char *argv0 = argv[0];
	int c;

	/* getopt names argv[0] in its message: make it the tool (a subcommand's
	 * argv[0] is the subcommand, a path the whole path). */
	opterr = 1;
	argv[0] = (char *)gp_progname();
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	argv[0] = argv0;
	if (c == '?')
		gp_usage_exit();
	return c;
}

void gp_output_open(struct gp_out *o, const char *path, int gzip)
{
	if (gp_out_open(o, path, gzip))
		gp_die(GP_EXIT_IOERR, "%s: %s", path ? path : "stdout", strerror(errno));
}

void gp_output_failed(const struct gp_out *o)
{
	write_failed(o->err ? o->err : errno, o->name);
}

void gp_output_close(struct gp_out *o)
{
	if (gp_out_close(o))
		gp_output_failed(o);
}

void gp_stop_point(struct gp_out *o)
{
	int sig = gp_sig_stop();

	if (!sig)
		return;
	/* 128+N whatever the close says: the status already says "not done". */
	if (o)
		gp_out_close(o);
	else
		fflush(stdout);
	exit(128 + sig);
}

void gp_input_failed(struct gp_input *in, int err)
{
	int sig = gp_sig_stop();

	if (sig) {
		fflush(stdout);
		exit(128 + sig);
	}
	gp_die_at(GP_EXIT_DATAERR, gp_input_name(in),
		  err == GP_NDJSON_EOPEN ? 0 : gp_input_line(in), "%s",
		  gp_input_strerror(in, err));
}

/* ---- required record fields (io/json.h accessors, dying) ---- */

static void bad_field(const char *file, unsigned long line, const char *key, int err,
		      const char *want)
{
	if (err == GP_JSON_MISSING)
		gp_die_at(GP_EXIT_DATAERR, file, line, "field '%s' is missing", key);
	gp_die_at(GP_EXIT_DATAERR, file, line, "field '%s' is not %s", key, want);
}

double gp_need_num(const json_t *o, const char *key, const char *file, unsigned long line)
{
	double v = 0;
	int e = gp_json_num(o, key, &v);

	if (e)
		bad_field(file, line, key, e, "a number");
	return v;
}

long long gp_need_int(const json_t *o, const char *key, const char *file, unsigned long line)
{
	long long v = 0;
	int e = gp_json_int(o, key, &v);

	if (e)
		bad_field(file, line, key, e, "an integer");
	return v;
}

const char *gp_need_str(const json_t *o, const char *key, const char *file, unsigned long line)
{
	const char *v = NULL;
	int e = gp_json_str(o, key, &v);

	if (e)
		bad_field(file, line, key, e, "a string");
	return v;
}

static int may(int e, const char *key, const char *file, unsigned long line, const char *want)
{
	if (e == GP_JSON_TYPE)
		gp_die_at(GP_EXIT_DATAERR, file, line, "field '%s' is not %s", key, want);
	return e == 0;
}

int gp_may_num(const json_t *o, const char *key, const char *file, unsigned long line, double *out)
{
	return may(gp_json_num(o, key, out), key, file, line, "a number");
}

int gp_may_int(const json_t *o, const char *key, const char *file, unsigned long line,
	       long long *out)
{
	return may(gp_json_int(o, key, out), key, file, line, "an integer");
}

int gp_may_str(const json_t *o, const char *key, const char *file, unsigned long line,
	       const char **out)
{
	return may(gp_json_str(o, key, out), key, file, line, "a string");
}

/* ---- --self-check's TAP ---- */

void gp_tap(void *ctx, int ok, const char *name, double got, double want)
{
	struct gp_tap *t = ctx;

	printf("%sok %d - %s\n", ok ? "" : "not ", ++t->n, name);
	if (!ok && !isnan(want))
		printf("#   got %.17g, want %.17g\n", got, want);
	t->failed += !ok;
}

void gp_tap_plan(const struct gp_tap *t)
{
	printf("1..%d\n", t->n);
}
