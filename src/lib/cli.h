/* SPDX-License-Identifier: MIT */
/*
 * cli — numbers from the command line and from records, parsed with range and
 * end-pointer checks (no atoi), and the --help/--version conventions.
 *
 * gp_parse_* return 0 and store the value, or -1 (value untouched) when the
 * text is empty, has trailing garbage, is NaN/inf, or lies outside [min, max].
 * gp_opt_* are for tool code: they die with exit 2 naming the option.
 */
#ifndef GP_CLI_H
#define GP_CLI_H

#include <stdint.h>
#include <stdio.h>

int gp_parse_double(const char *s, double min, double max, double *out);
int gp_parse_long(const char *s, long min, long max, long *out);
int gp_parse_u64(const char *s, uint64_t *out);

double gp_opt_double(const char *opt, const char *arg, double min, double max);
long gp_opt_long(const char *opt, const char *arg, long min, long max);
uint64_t gp_opt_u64(const char *opt, const char *arg);

/*
 * Print `usage` to stdout and exit 0 (for --help), or print the version
 * line "prog (gp) VERSION" and exit 0 (for --version).
 */
void gp_print_help(const char *usage) __attribute__((noreturn));
void gp_print_version(void) __attribute__((noreturn));

#endif
