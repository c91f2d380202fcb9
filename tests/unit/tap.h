/* SPDX-License-Identifier: MIT */
/*
 * tap.h — a tiny TAP producer for the C unit tests (after Redis testhelp.h).
 * Header-only; every test binary prints "1..N" at the end (done_testing) and
 * exits non-zero when any check failed, so prove reports it.
 *
 *   ok(cond, "name %d", i);          is_int(got, want, "name");
 *   is_dbl(got, want, tol, "name");  is_str(got, want, "name");
 *   return done_testing();
 */
#ifndef GP_TAP_H
#define GP_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_fail;

static inline int tap_vok(int cond, const char *fmt, va_list ap)
{
	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	vprintf(fmt, ap);
	putchar('\n');
	if (!cond)
		tap_fail++;
	fflush(stdout);
	return cond;
}

static inline __attribute__((format(printf, 2, 3))) int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_vok(cond, fmt, ap);
	va_end(ap);
	return r;
}

#define is_int(got, want, ...) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	if (!ok(g_ == w_, __VA_ARGS__)) \
		printf("#   got %lld, want %lld (%s:%d)\n", g_, w_, __FILE__, __LINE__); \
} while (0)

#define is_dbl(got, want, tol, ...) do { \
	double g_ = (got), w_ = (want), t_ = (tol); \
	int c_ = (isnan(g_) && isnan(w_)) || (isinf(g_) && g_ == w_) || fabs(g_ - w_) <= t_; \
	if (!ok(c_, __VA_ARGS__)) \
		printf("#   got %.17g, want %.17g (tol %g) (%s:%d)\n", g_, w_, t_, __FILE__, __LINE__); \
} while (0)

#define is_str(got, want, ...) do { \
	const char *g_ = (got), *w_ = (want); \
	int c_ = (g_ && w_) ? strcmp(g_, w_) == 0 : g_ == w_; \
	if (!ok(c_, __VA_ARGS__)) \
		printf("#   got '%s', want '%s' (%s:%d)\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)", __FILE__, __LINE__); \
} while (0)

static inline void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
}

static inline int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_fail ? 1 : 0;
}

#endif
