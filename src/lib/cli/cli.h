/* SPDX-License-Identifier: MIT */
/*
 * cli — numbers from the command line and from records, parsed with range and
 * end-pointer checks (no atoi), and the conventions every tool shares
 * (doc/conventions.md): --help/--version, option errors, and how an output
 * that cannot be created or written ends the tool.
 *
 * The checked parsers themselves (gp_parse_*) are base/num.h, which this
 * header includes.  gp_opt_* are for tool code: they die with exit 2 naming
 * the option.
 */
#ifndef GP_CLI_H
#define GP_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "base/num.h"

struct gp_out;
struct gp_input;


double gp_opt_double(const char *opt, const char *arg, double min, double max);
long gp_opt_long(const char *opt, const char *arg, long min, long max);
uint64_t gp_opt_u64(const char *opt, const char *arg);

/*
 * Print `usage` to stdout and exit 0 (for --help), or print the version
 * line "prog (gp) VERSION" and exit 0 (for --version).
 */
void gp_print_help(const char *usage) __attribute__((noreturn));
void gp_print_version(void) __attribute__((noreturn));

/*
 * getopt_long with the usage-error half done: an unknown option or a missing
 * argument prints getopt's own one-line message under the tool's name, then
 * the Try line, and exits 2; it never returns '?'.
 */
int gp_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts);

/*
 * Outputs.  gp_output_open: gp_out_open, or die 74 naming the path ("stdout"
 * for NULL).  gp_output_failed: after a write or close of o failed — a closed
 * pipe (EPIPE) exits 1 without a word, any other error dies 74.
 * gp_output_close: gp_out_close, and gp_output_failed when it fails.
 */
void gp_output_open(struct gp_out *o, const char *path, int gzip);
void gp_output_failed(const struct gp_out *o) __attribute__((noreturn));
void gp_output_close(struct gp_out *o);
/* For text written with stdio (help, --self-check's TAP): close stdout, and
 * on a write error exit as gp_output_failed does (quiet 1 on EPIPE, else 74). */
void gp_stdout_close(void);

/*
 * A record boundary: when a SIGINT/SIGTERM asked us to stop (sig.h), close o
 * (flushed, a gzip stream ended; NULL: stdout flushed) and exit 128+signo
 * quietly.  Otherwise return.
 */
void gp_stop_point(struct gp_out *o);

/*
 * An input error from gp_input_next*: when a SIGINT/SIGTERM interrupted the
 * read (sig.h), exit 128+signo quietly, stdout flushed; otherwise die 65
 * naming the file and line (the file alone when it cannot be opened).
 */
void gp_input_failed(struct gp_input *in, int err) __attribute__((noreturn));

/* line (read from in) parsed as a JSON object, a new reference; not valid
 * JSON or not an object dies through gp_input_failed (ndjson.h's
 * gp_input_parse_object is the form that returns the error). */
json_t *gp_input_need_object(struct gp_input *in, const char *line, size_t len);

/* An optional field of a record read at file:line: 1 present (*out set),
 * 0 absent or null; present with another type exits 65 ("is not a number",
 * "is not an integer", "is not a string"). */
int gp_may_num(const json_t *o, const char *key, const char *file, unsigned long line, double *out);
int gp_may_int(const json_t *o, const char *key, const char *file, unsigned long line,
	       long long *out);
int gp_may_str(const json_t *o, const char *key, const char *file, unsigned long line,
	       const char **out);

/*
 * --self-check's TAP on stdout: gp_tap has the shape of statcheck.h's
 * reporter (ctx a struct gp_tap, counting); "#   got G, want W" follows a
 * failed numeric check.  gp_tap_plan prints the plan "1..N" at the end.
 */
struct gp_tap {
	int n, failed;
};
void gp_tap(void *ctx, int ok, const char *name, double got, double want);
void gp_tap_plan(const struct gp_tap *t);

/* A required field of a record read at file:line (io/json.h's accessors):
 * missing or mistyped exits 65 with "prog: file:line: field 'k' is missing"
 * (or "is not a number", "is not an integer", "is not a string"). */
double gp_need_num(const json_t *o, const char *key, const char *file, unsigned long line);
long long gp_need_int(const json_t *o, const char *key, const char *file, unsigned long line);
const char *gp_need_str(const json_t *o, const char *key, const char *file, unsigned long line);

#endif
